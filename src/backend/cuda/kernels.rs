//! The CUDA kernel sources and their compilation by NVRTC.
//!
//! Every file in `kernels/cuda/` is compiled with `kernels/cuda/common.cuh` prepended (the strided
//! descriptor `Desc` and the index arithmetic), so the files need no include path. Entry points
//! are `extern "C"` and named `cnda_<form>_<op>_<type>` (`cnda_binary_add_f32`,
//! `cnda_sum_f64`, ...) after the Rust op tokens' `NAME`s, so a launcher finds its kernel by name.

use std::ffi::{c_char, CStr, CString};

use cudarc::nvrtc::{result, sys};

use crate::error::{Error, Result};

/// The descriptor and helpers every kernel file starts with.
pub const COMMON: &str = include_str!("../../../kernels/cuda/common.cuh");

/// One op family's kernels.
#[derive(Clone, Copy, Debug)]
pub struct Family {
    /// The family's name (the file's stem).
    pub name: &'static str,
    source: &'static str,
}

impl Family {
    /// The family's own file (compiled after [`COMMON`]).
    pub fn source(&self) -> &'static str {
        self.source
    }
}

/// Every kernel family, one per op family.
pub const FAMILIES: [Family; 6] = [
    Family { name: "elementwise", source: include_str!("../../../kernels/cuda/elementwise.cu") },
    Family { name: "copy", source: include_str!("../../../kernels/cuda/copy.cu") },
    Family { name: "reduce", source: include_str!("../../../kernels/cuda/reduce.cu") },
    Family { name: "stencil", source: include_str!("../../../kernels/cuda/stencil.cu") },
    Family { name: "sparse", source: include_str!("../../../kernels/cuda/sparse.cu") },
    Family { name: "vector", source: include_str!("../../../kernels/cuda/vector.cu") },
];

/// What NVRTC produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// PTX for a virtual architecture (`compute_XX`), which the driver compiles at load time.
    Ptx,
    /// Machine code (an ELF CUBIN) for a real architecture (`sm_XX`), loaded as is.
    Cubin,
}

include!(concat!(env!("OUT_DIR"), "/aot_cubins.rs"));

/// The CUBIN of `family` compiled ahead of time (by build.rs with nvcc) that runs on compute
/// capability `sm`: the same major version, the highest minor not above the device's.
pub fn aot_cubin(family: &str, sm: u32) -> Option<&'static [u8]> {
    AOT_CUBINS
        .iter()
        .filter(|(f, built, _)| *f == family && built / 10 == sm / 10 && *built <= sm)
        .max_by_key(|(_, built, _)| *built)
        .map(|(_, _, image)| *image)
}

/// Every CUBIN compiled ahead of time: (family, compute capability, image). Empty unless the
/// crate was built with feature `cuda` and an nvcc.
pub fn aot_cubins() -> &'static [(&'static str, u32, &'static [u8])] {
    AOT_CUBINS
}

/// Whether the NVRTC library can be loaded on this machine.
pub fn nvrtc_present() -> bool {
    // SAFETY: only tries to open the library by its candidate names; nothing is called in it.
    unsafe { sys::is_culib_present() }
}

fn device_error(message: String) -> Error {
    Error::Device { backend: "cuda", message }
}

/// An NVRTC program, destroyed on drop.
struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program was created by `create_program` and is destroyed once, here.
        let _ = unsafe { result::destroy_program(self.0) };
    }
}

/// Compiles `family` for `sm` (the compute capability, as `90` for sm_90) to PTX or CUBIN.
///
/// # Errors
///
/// `Error::Device` when NVRTC is not installed, or with NVRTC's log when a kernel does not
/// compile.
pub fn compile(family: &Family, sm: u32, output: Output) -> Result<Vec<u8>> {
    compile_unit(family.name, family.source, sm, output, None)
}

/// Compiles the kernels of `family` for element type `t` only (`"f32"`, `"f64"`, `"i32"`,
/// `"i64"`, `"f16"`, `"bf16"`, `"c64"` or `"c128"`): what a device compiles at the first op on that type, a fraction of the whole family.
///
/// # Errors
///
/// As [`compile`].
pub fn compile_type(family: &Family, t: &str, sm: u32, output: Output) -> Result<Vec<u8>> {
    compile_unit(family.name, family.source, sm, output, Some(t))
}

/// Compiles kernel source `source` (the common header is prepended), named `name` in messages,
/// for `sm` to PTX or CUBIN: what [`compile`] does for a family, here for any source (user
/// kernels).
///
/// # Errors
///
/// As [`compile`].
pub fn compile_source(name: &str, source: &str, sm: u32, output: Output) -> Result<Vec<u8>> {
    compile_unit(name, source, sm, output, None)
}

fn compile_unit(name: &str, source: &str, sm: u32, output: Output, only: Option<&str>) -> Result<Vec<u8>> {
    if !nvrtc_present() {
        return Err(device_error(
            "NVRTC (libnvrtc) is not installed, so CUDA kernels cannot be compiled; install the CUDA toolkit, or `pip install nvidia-cuda-nvrtc` and put its lib folder on LD_LIBRARY_PATH".into(),
        ));
    }
    let unit = format!("{COMMON}\n#line 1 \"{name}.cu\"\n{source}");
    let source = CString::new(unit).map_err(|_| device_error("a kernel source contains a NUL byte".into()))?;
    let file =
        CString::new(format!("{name}.cu")).map_err(|_| device_error("a kernel name contains a NUL byte".into()))?;
    let program = Program(
        result::create_program(&source, Some(&file)).map_err(|e| device_error(format!("nvrtcCreateProgram: {e:?}")))?,
    );
    let arch = match output {
        Output::Ptx => format!("--gpu-architecture=compute_{sm}"),
        Output::Cubin => format!("--gpu-architecture=sm_{sm}"),
    };
    let only = only.map(|t| format!("-DCNDA_ONLY_{t}"));
    let mut options = vec![arch.as_str(), "--std=c++17", "--fmad=false"];
    options.extend(only.as_deref());
    // SAFETY: `program` is a live program; `source` and `file` outlive it (dropped after it).
    if let Err(e) = unsafe { result::compile_program(program.0, &options) } {
        // SAFETY: as above; the log is a NUL-terminated string NVRTC wrote.
        let log = unsafe { result::get_program_log(program.0) }
            .map(|raw| unsafe { CStr::from_ptr(raw.as_ptr()) }.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Err(device_error(format!(
            "NVRTC could not compile kernels/cuda/{name}.cu for sm_{sm} ({e:?}):\n{log}"
        )));
    }
    let mut size = 0usize;
    let mut image;
    match output {
        Output::Ptx => {
            // SAFETY: a compiled program; `size` is written by NVRTC.
            unsafe { sys::nvrtcGetPTXSize(program.0, &mut size).result() }
                .map_err(|e| device_error(format!("nvrtcGetPTXSize: {e:?}")))?;
            image = vec![0u8; size];
            // SAFETY: `image` holds the `size` bytes NVRTC reported.
            unsafe { sys::nvrtcGetPTX(program.0, image.as_mut_ptr().cast::<c_char>()).result() }
                .map_err(|e| device_error(format!("nvrtcGetPTX: {e:?}")))?;
        }
        Output::Cubin => {
            // SAFETY: as for PTX.
            unsafe { sys::nvrtcGetCUBINSize(program.0, &mut size).result() }
                .map_err(|e| device_error(format!("nvrtcGetCUBINSize: {e:?}")))?;
            image = vec![0u8; size];
            // SAFETY: as for PTX.
            unsafe { sys::nvrtcGetCUBIN(program.0, image.as_mut_ptr().cast::<c_char>()).result() }
                .map_err(|e| device_error(format!("nvrtcGetCUBIN: {e:?}")))?;
        }
    }
    Ok(image)
}
