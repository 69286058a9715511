//! Build script. With feature `cuda` and an `nvcc` (named by `CNDA_NVCC`, or on `PATH`), it
//! compiles every `kernels/cuda/*.cu` to CUBIN ahead of time for the architectures in
//! `CNDA_CUDA_ARCHS` (default `80,90`: A100 and H100) and embeds them, so opening a device needs
//! no JIT. Otherwise, and always without feature `cuda`, it only writes an empty table: NVRTC
//! compiles the kernels at first use, cached per device.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The kernel families, as in `src/backend/cuda/kernels.rs`.
const FAMILIES: [&str; 6] = ["elementwise", "copy", "reduce", "stencil", "sparse", "vector"];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CNDA_NVCC");
    println!("cargo:rerun-if-env-changed=CNDA_CUDA_ARCHS");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut table =
        String::from("/// CUBINs compiled ahead of time by build.rs: (family, compute capability, image).\n");
    table.push_str("pub(crate) static AOT_CUBINS: &[(&str, u32, &[u8])] = &[\n");
    if env::var_os("CARGO_FEATURE_CUDA").is_some() {
        println!("cargo:rerun-if-changed=kernels");
        if let Some(nvcc) = nvcc() {
            compile_all(&nvcc, &out, &mut table);
        }
    }
    table.push_str("];\n");
    fs::write(out.join("aot_cubins.rs"), table).expect("OUT_DIR is writable");
}

/// `CNDA_NVCC`, or `nvcc` on `PATH`.
fn nvcc() -> Option<PathBuf> {
    if let Some(path) = env::var_os("CNDA_NVCC") {
        return Some(PathBuf::from(path));
    }
    env::split_paths(&env::var_os("PATH")?).map(|dir| dir.join("nvcc")).find(|p| p.is_file())
}

/// Compiles every family for every architecture, adding each image to `table`. A kernel that
/// does not compile fails the build: with nvcc at hand, that is the fastest place to learn it.
fn compile_all(nvcc: &Path, out: &Path, table: &mut String) {
    let archs = env::var("CNDA_CUDA_ARCHS").unwrap_or_else(|_| "80,90".into());
    let common = fs::read_to_string("kernels/cuda/common.cuh").expect("kernels/cuda/common.cuh");
    for family in FAMILIES {
        let source = fs::read_to_string(format!("kernels/cuda/{family}.cu")).expect("a kernel file per family");
        let unit = out.join(format!("{family}.cu"));
        fs::write(&unit, format!("{common}\n#line 1 \"{family}.cu\"\n{source}")).expect("OUT_DIR is writable");
        for sm in archs.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let sm: u32 =
                sm.parse().unwrap_or_else(|_| panic!("CNDA_CUDA_ARCHS: `{sm}` is not a compute capability like 90"));
            let image = out.join(format!("{family}_sm{sm}.cubin"));
            let result = Command::new(nvcc)
                .args(["-cubin", &format!("-arch=sm_{sm}"), "-std=c++17", "-fmad=false", "-o"])
                .arg(&image)
                .arg(&unit)
                .output()
                .unwrap_or_else(|e| {
                    panic!("cannot run {}: {e}; unset CNDA_NVCC to compile kernels at run time", nvcc.display())
                });
            if !result.status.success() {
                panic!(
                    "nvcc could not compile kernels/cuda/{family}.cu for sm_{sm}:\n{}",
                    String::from_utf8_lossy(&result.stderr)
                );
            }
            writeln!(table, "    (\"{family}\", {sm}, include_bytes!({:?})),", image.display().to_string())
                .expect("a String");
        }
    }
}
