//! CUDA's error codes (`CUresult`) and the sim's last error message.

use std::cell::RefCell;

/// A `CUresult` value.
pub type CuResult = u32;

pub const SUCCESS: CuResult = 0;
pub const INVALID_VALUE: CuResult = 1;
pub const OUT_OF_MEMORY: CuResult = 2;
pub const NOT_INITIALIZED: CuResult = 3;
pub const INVALID_DEVICE: CuResult = 101;
pub const INVALID_IMAGE: CuResult = 200;
pub const INVALID_CONTEXT: CuResult = 201;
pub const INVALID_PTX: CuResult = 218;
pub const INVALID_HANDLE: CuResult = 400;
pub const NOT_FOUND: CuResult = 500;
pub const ILLEGAL_ADDRESS: CuResult = 700;
pub const LAUNCH_OUT_OF_RESOURCES: CuResult = 701;
pub const ILLEGAL_INSTRUCTION: CuResult = 715;
pub const MISALIGNED_ADDRESS: CuResult = 716;
pub const LAUNCH_FAILED: CuResult = 719;
pub const NOT_SUPPORTED: CuResult = 801;
pub const UNKNOWN: CuResult = 999;

/// An error with its `CUresult` and what the sim knows about it (kernel, thread, address).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError {
    pub code: CuResult,
    pub message: String,
}

impl SimError {
    pub fn new(code: CuResult, message: impl Into<String>) -> SimError {
        SimError { code, message: message.into() }
    }
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", name(self.code), self.code, self.message)
    }
}

thread_local! {
    /// The calling thread's last error (as CUDA's runtime keeps its last error per thread).
    static LAST: RefCell<Option<SimError>> = const { RefCell::new(None) };
}

/// Records `e` as the calling thread's last error (readable with [`last_error`] or
/// `cuSimGetLastError`) and prints it on stderr (unless `CUDA_SIM_QUIET=1`); returns its code.
pub fn report(e: SimError) -> CuResult {
    if std::env::var_os("CUDA_SIM_QUIET").is_none_or(|v| v != "1") {
        eprintln!("cuda-sim: {e}");
    }
    let code = e.code;
    LAST.with(|l| *l.borrow_mut() = Some(e));
    code
}

/// The calling thread's last error, if any.
pub fn last_error() -> Option<SimError> {
    LAST.with(|l| l.borrow().clone())
}

/// Forgets the calling thread's last error.
pub fn clear_last_error() {
    LAST.with(|l| *l.borrow_mut() = None);
}

/// CUDA's name of a code.
pub fn name(code: CuResult) -> &'static str {
    match code {
        SUCCESS => "CUDA_SUCCESS",
        INVALID_VALUE => "CUDA_ERROR_INVALID_VALUE",
        OUT_OF_MEMORY => "CUDA_ERROR_OUT_OF_MEMORY",
        NOT_INITIALIZED => "CUDA_ERROR_NOT_INITIALIZED",
        INVALID_DEVICE => "CUDA_ERROR_INVALID_DEVICE",
        INVALID_IMAGE => "CUDA_ERROR_INVALID_IMAGE",
        INVALID_CONTEXT => "CUDA_ERROR_INVALID_CONTEXT",
        INVALID_PTX => "CUDA_ERROR_INVALID_PTX",
        INVALID_HANDLE => "CUDA_ERROR_INVALID_HANDLE",
        NOT_FOUND => "CUDA_ERROR_NOT_FOUND",
        ILLEGAL_ADDRESS => "CUDA_ERROR_ILLEGAL_ADDRESS",
        LAUNCH_OUT_OF_RESOURCES => "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
        ILLEGAL_INSTRUCTION => "CUDA_ERROR_ILLEGAL_INSTRUCTION",
        MISALIGNED_ADDRESS => "CUDA_ERROR_MISALIGNED_ADDRESS",
        LAUNCH_FAILED => "CUDA_ERROR_LAUNCH_FAILED",
        NOT_SUPPORTED => "CUDA_ERROR_NOT_SUPPORTED",
        _ => "CUDA_ERROR_UNKNOWN",
    }
}

/// CUDA's description of a code.
pub fn describe(code: CuResult) -> &'static str {
    match code {
        SUCCESS => "no error",
        INVALID_VALUE => "invalid argument",
        OUT_OF_MEMORY => "out of memory",
        NOT_INITIALIZED => "initialization error",
        INVALID_DEVICE => "invalid device ordinal",
        INVALID_IMAGE => "device kernel image is invalid (the CPU-hosted device runs PTX only)",
        INVALID_CONTEXT => "invalid device context",
        INVALID_PTX => "a PTX JIT compilation failed",
        INVALID_HANDLE => "invalid resource handle",
        NOT_FOUND => "named symbol not found",
        ILLEGAL_ADDRESS => "an illegal memory access was encountered",
        LAUNCH_OUT_OF_RESOURCES => "too many resources requested for launch",
        ILLEGAL_INSTRUCTION => "an illegal instruction was encountered",
        MISALIGNED_ADDRESS => "misaligned address",
        LAUNCH_FAILED => "unspecified launch failure",
        NOT_SUPPORTED => "operation not supported",
        _ => "unknown error",
    }
}
