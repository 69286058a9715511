//! Every WGSL shader, assembled for every element type its family supports, parses and validates
//! with naga (as wgpu would before building a pipeline), and exports the entry points the backend
//! dispatches by name. Needs no adapter.
#![cfg(feature = "wgpu")]

use cnda::backend::wgpu::shaders::{source, validate, ELEMENTS, FAMILIES};

/// Entry points each family must export (a sample of every form and op).
fn expected(family: &str, elem: &str) -> Vec<String> {
    let complex = elem == "c64" || elem == "c128";
    let float = elem != "i32" && !complex;
    let transcendental = elem == "f32" || elem == "f16";
    let mut names = Vec::new();
    match family {
        "elementwise" => {
            let ops: &[&str] = if complex {
                &["add", "sub", "mul", "div", "assign"]
            } else {
                &["add", "sub", "mul", "div", "rem", "assign"]
            };
            for op in ops {
                for form in
                    ["binary", "scalar_right", "scalar_left", "update", "update_scalar_right", "update_scalar_left"]
                {
                    names.push(format!("{form}_{op}"));
                }
                names.push(format!("binary_{op}_contig"));
                names.push(format!("scalar_right_{op}_contig"));
                names.push(format!("scalar_left_{op}_contig"));
                names.push(format!("binary_{op}_2d"));
            }
            names.push("unary_neg".into());
            names.push("unary_neg_contig".into());
            if float {
                for op in ["abs", "sqrt", "floor", "ceil", "round", "powi", "clamp"] {
                    names.push(format!("unary_{op}"));
                }
            }
            if transcendental {
                for op in ["exp", "ln", "log10", "sin", "cos", "tan", "tanh", "powf"] {
                    names.push(format!("unary_{op}"));
                }
            }
            if complex {
                names.extend(
                    ["unary_conj", "unary_conj_contig", "update_unary_conj", "complex_abs", "complex_abs2"]
                        .map(String::from),
                );
            }
            if elem == "c64" {
                names.push("complex_arg".into());
            }
        }
        "copy" => names.extend(["fill".to_string(), "copy".to_string(), "copy_2d".to_string()]),
        "reduce" => {
            let ops: &[&str] = if complex { &["sum", "product"] } else { &["sum", "product", "min", "max"] };
            for op in ops {
                names.push(format!("fold_{op}"));
                names.push(format!("fold_{op}_contig"));
                names.push(format!("fold_axis_{op}"));
            }
            if !complex {
                names.extend(["argmin".to_string(), "argmax".to_string()]);
            }
        }
        "matmul" => names.push("matmul".into()),
        "stencil" => names.extend(["stencil".to_string(), "stencil_2d".to_string()]),
        "sparse" => names.push("spmv".into()),
        "fft" => names.extend(["fft_gather", "fft_pass", "fft_pointwise", "fft_scatter"].map(String::from)),
        other => panic!("no expectations for {other}"),
    }
    names
}

#[test]
fn every_shader_validates_with_naga_for_every_element_type() {
    let mut checked = 0;
    for family in &FAMILIES {
        for elem in ELEMENTS {
            let Ok(text) = source(family, elem) else {
                let complex = elem == "c64" || elem == "c128";
                assert!(
                    (!family.integers && elem == "i32") || (!family.complex && complex),
                    "{} has no {elem} shader",
                    family.name
                );
                continue;
            };
            validate(&format!("{}.wgsl ({elem})", family.name), &text).unwrap_or_else(|e| panic!("{e}"));
            let module = naga::front::wgsl::parse_str(&text).unwrap();
            for name in expected(family.name, elem) {
                assert!(
                    module.entry_points.iter().any(|e| e.name == name),
                    "{}.wgsl ({elem}) lacks entry point {name}",
                    family.name
                );
            }
            checked += 1;
        }
    }
    assert_eq!(
        checked, 31,
        "seven families, four real element types (the stencil, sparse and fft ones float-only), and the two complex types for elementwise, reduce and matmul"
    );
}

#[test]
fn a_broken_shader_is_an_error_naming_it() {
    let e = validate("broken", "fn f() -> f32 { return undefined_name; }").unwrap_err();
    assert!(e.to_string().contains("broken: WGSL does not"), "{e}");
}
