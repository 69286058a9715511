//! Every CUDA kernel file compiles with NVRTC to CUBIN for sm_90 (H100) and to PTX, and with nvcc
//! (where scripts/test installs it) to the CUBINs build.rs embeds, for sm_80 (A100) and sm_90, and
//! exports the entry points the backend launches by name. Needs no GPU, only NVRTC
//! (scripts/test installs it from PyPI and sets CNDA_REQUIRE_NVRTC=1, so a missing library fails
//! there instead of skipping).
#![cfg(feature = "cuda")]

use cnda::backend::cuda::kernels::{compile, nvrtc_present, Output, FAMILIES};
use cnda::kernel::tokens::{
    DEVICE_ARG, DEVICE_BINARY, DEVICE_COMPLEX_REAL, DEVICE_COMPLEX_UNARY, DEVICE_FOLD, DEVICE_UNARY,
};

fn nvrtc_or_skip() -> bool {
    if nvrtc_present() {
        return true;
    }
    assert!(
        std::env::var_os("CNDA_REQUIRE_NVRTC").is_none(),
        "CNDA_REQUIRE_NVRTC is set but libnvrtc cannot be loaded"
    );
    eprintln!("SKIP: libnvrtc not found (install nvidia-cuda-nvrtc and put its lib folder on LD_LIBRARY_PATH)");
    false
}

/// Entry points each family must export (a sample of every form, type and op; every name the
/// backend accepts from an op token, `DEVICE_BINARY`, `DEVICE_UNARY`, `DEVICE_FOLD`, `DEVICE_ARG`).
fn expected(family: &str) -> Vec<String> {
    let types = ["f32", "f64", "i32", "i64", "f16", "bf16"];
    let floats = ["f32", "f64"];
    let stencil_types = ["f32", "f64", "f16", "bf16"];
    let mut names = Vec::new();
    match family {
        "elementwise" => {
            for t in types {
                for op in DEVICE_BINARY {
                    for form in ["binary", "scalar_right", "scalar_left", "update", "update_scalar"] {
                        names.push(format!("cnda_{form}_{op}_{t}"));
                    }
                    names.push(format!("cnda_binary_{op}_{t}_contig"));
                }
                names.push(format!("cnda_unary_neg_{t}"));
            }
            for t in ["c64", "c128"] {
                for op in DEVICE_BINARY.iter().filter(|&&op| op != "rem") {
                    for form in ["binary", "scalar_right", "scalar_left", "update", "update_scalar"] {
                        names.push(format!("cnda_{form}_{op}_{t}"));
                    }
                }
                names.extend(DEVICE_COMPLEX_UNARY.iter().map(|op| format!("cnda_unary_{op}_{t}")));
                names.extend(DEVICE_COMPLEX_REAL.iter().map(|op| format!("cnda_complex_{op}_{t}")));
            }
            for t in floats {
                for op in DEVICE_UNARY {
                    names.push(format!("cnda_unary_{op}_{t}"));
                }
                for op in ["powi", "powf", "clamp"] {
                    names.push(format!("cnda_unary_{op}_{t}"));
                }
            }
        }
        "copy" => {
            for t in types {
                for form in ["fill", "copy", "transpose"] {
                    names.push(format!("cnda_{form}_{t}"));
                }
                names.push(format!("cnda_copy_{t}_contig"));
            }
        }
        "reduce" => {
            for t in types {
                for op in DEVICE_FOLD.iter().chain(DEVICE_ARG) {
                    names.push(format!("cnda_{op}_{t}"));
                }
                for op in DEVICE_FOLD {
                    names.push(format!("cnda_{op}_{t}_contig"));
                }
                for form in ["sum_axis", "product_axis", "min_axis", "max_axis"] {
                    names.push(format!("cnda_{form}_{t}"));
                }
            }
            for t in ["c64", "c128"] {
                for op in ["sum", "product"] {
                    names.extend([
                        format!("cnda_{op}_{t}"),
                        format!("cnda_{op}_{t}_contig"),
                        format!("cnda_{op}_axis_{t}"),
                    ]);
                }
            }
        }
        "stencil" => {
            for t in stencil_types {
                names.push(format!("cnda_stencil_{t}"));
            }
        }
        "sparse" => names.extend(floats.iter().map(|t| format!("cnda_spmv_{t}"))),
        "vector" => {
            for t in stencil_types {
                for form in ["dot", "axpby", "axpby_sumsq", "axpy_xpby"] {
                    names.push(format!("cnda_{form}_{t}"));
                    names.push(format!("cnda_{form}_{t}_contig"));
                    names.push(format!("cnda_{form}_{t}_rows"));
                }
            }
        }
        other => panic!("no expectations for kernel family {other}"),
    }
    names
}

/// Whether `name` appears in `image` as a whole NUL-terminated symbol (CUBIN) or entry (PTX).
fn exports(image: &[u8], name: &str, output: Output) -> bool {
    let needle: Vec<u8> = match output {
        Output::Cubin => [b"\0", name.as_bytes(), b"\0"].concat(),
        Output::Ptx => [b".entry ", name.as_bytes(), b"("].concat(),
    };
    image.windows(needle.len()).any(|w| w == needle.as_slice())
}

/// Through NVRTC, CUBIN for sm_90 (the GPU machine's) and PTX; `ahead_of_time_*` below checks
/// nvcc's CUBINs for every architecture build.rs embeds (sm_80 too), where scripts/test runs it.
#[test]
fn every_kernel_compiles_to_cubin_for_sm90_and_to_ptx() {
    if !nvrtc_or_skip() {
        return;
    }
    for family in &FAMILIES {
        let cubin = compile(family, 90, Output::Cubin).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&cubin[..4], b"\x7fELF", "{} sm_90: not an ELF image", family.name);
        for name in expected(family.name) {
            assert!(exports(&cubin, &name, Output::Cubin), "{}.cu for sm_90 lacks {name}", family.name);
        }
        let ptx = compile(family, 80, Output::Ptx).unwrap_or_else(|e| panic!("{e}"));
        for name in expected(family.name) {
            assert!(exports(&ptx, &name, Output::Ptx), "{}.cu PTX lacks {name}", family.name);
        }
    }
}

#[test]
fn a_broken_kernel_is_an_error_with_nvrtc_log() {
    if !nvrtc_or_skip() {
        return;
    }
    // `compile_source` is the path user kernels take; a compile error carries NVRTC's log.
    let e = cnda::backend::cuda::kernels::compile_source(
        "broken",
        "extern \"C\" __global__ void k() { undefined_name; }",
        90,
        Output::Cubin,
    )
    .unwrap_err();
    let message = e.to_string();
    assert!(message.contains("NVRTC could not compile kernels/cuda/broken.cu for sm_90"), "{message}");
    assert!(message.contains("undefined_name"), "the log names the error: {message}");
}

#[test]
fn ahead_of_time_cubins_export_every_entry_point() {
    let images = cnda::backend::cuda::kernels::aot_cubins();
    if images.is_empty() {
        assert!(std::env::var_os("CNDA_NVCC").is_none(), "CNDA_NVCC is set but build.rs embedded no CUBIN");
        eprintln!("SKIP: built without nvcc (set CNDA_NVCC or put nvcc on PATH for ahead-of-time CUBINs)");
        return;
    }
    for (family, sm, image) in images {
        assert_eq!(&image[..4], b"\x7fELF", "{family} sm_{sm}");
        for name in expected(family) {
            assert!(exports(image, &name, Output::Cubin), "{family}.cu for sm_{sm} (nvcc) lacks {name}");
        }
        assert!(cnda::backend::cuda::kernels::aot_cubin(family, *sm).is_some());
    }
    // With the default architectures, an sm_89 device runs the sm_80 CUBIN (same major, lower
    // minor), and an sm_75 one has none.
    if std::env::var_os("CNDA_CUDA_ARCHS").is_none() {
        let aot = cnda::backend::cuda::kernels::aot_cubin;
        assert_eq!(aot("copy", 89), aot("copy", 80));
        assert!(aot("copy", 75).is_none());
    }
}

#[test]
fn a_stencil_macro_kernel_compiles_in_f32_and_f64() {
    if !nvrtc_or_skip() {
        return;
    }
    use cnda::backend::cuda::stencil_source;
    use cnda::stencil::{stencil, Stencil};
    fn sources<S: Stencil<f32, 2> + Stencil<f64, 2>>(_: &S) -> [String; 2] {
        [stencil_source::<S, f32, 2>().unwrap(), stencil_source::<S, f64, 2>().unwrap()]
    }
    let s = stencil!(|u, k; a| u[0, 0] + a * k[1, -1] * (exp(u[-1, 0]) - powi(u[0, 1], -3)).max(tanh(k[0, 0])));
    for source in sources(&s) {
        let cubin = cnda::backend::cuda::kernels::compile_source("stencil", &source, 90, Output::Cubin).unwrap();
        assert!(exports(&cubin, "cnda_expression", Output::Cubin));
    }
}

/// Every node kind, in every element type CUDA stencils compute in: the generated source compiles
/// (the 16-bit floats through `common.cuh`'s storage types).
#[test]
fn every_node_kind_compiles_in_every_element_type() {
    if !nvrtc_or_skip() {
        return;
    }
    use cnda::backend::cuda::stencil_source;
    use cnda::stencil::{stencil, Scalar, Stencil};
    let s = stencil!(|u, k; a, b| select(
        (u[0, 0] < a && !(k[0, 1] >= b)) || u[1, 0] == u[-1, 0] || u[0, -1] != 1e39 && k[0, 0] <= 2 && u[0, 0] > 0,
        sqrt(u[0, 0]) + exp(u[1, 0]) - ln(abs(u[-1, 0])) * sin(k[0, 1]) / cos(k[0, 0]),
        -tanh(floor(u[0, -1])).min(a).max(b) + powi(u[0, 1], -2147483648) + powi(k[0, 0], 0)
    ));
    fn source<S: Stencil<T, 2>, T: Scalar>(_: &S) -> String {
        stencil_source::<S, T, 2>().unwrap()
    }
    for source in [source::<_, f32>(&s), source::<_, f64>(&s), source::<_, half::f16>(&s), source::<_, half::bf16>(&s)]
    {
        let ptx = cnda::backend::cuda::kernels::compile_source("stencil", &source, 80, Output::Ptx)
            .unwrap_or_else(|e| panic!("{e}\n{source}"));
        assert!(exports(&ptx, "cnda_expression", Output::Ptx));
    }
}

#[test]
fn one_element_type_compiles_alone_for_a_faster_first_op() {
    if !nvrtc_or_skip() {
        return;
    }
    use cnda::backend::cuda::kernels::compile_type;
    for family in &FAMILIES {
        let all = expected(family.name);
        for t in ["f32", "f64", "i32", "i64", "f16", "bf16"] {
            let mine: Vec<&String> = all.iter().filter(|n| n.contains(&format!("_{t}"))).collect();
            if mine.is_empty() {
                continue; // the stencil family has no integer kernels
            }
            let cubin = compile_type(family, t, 90, Output::Cubin).unwrap_or_else(|e| panic!("{e}"));
            for name in &mine {
                assert!(exports(&cubin, name, Output::Cubin), "{}.cu for {t} alone lacks {name}", family.name);
            }
            let other = all.iter().find(|n| !n.contains(&format!("_{t}"))).expect("several types");
            assert!(!exports(&cubin, other, Output::Cubin), "{}.cu for {t} alone has {other}", family.name);
        }
    }
}
