//! [`CudaDevice`]: one GPU's context, stream and kernel cache.
//!
//! A device is opened once per ordinal for the life of the process (as CUDA's primary context
//! is), so the handle is a `Copy` reference that buffers and data handles carry: an op on device
//! arrays finds its stream and kernels from its operands, and two handles are the same device
//! exactly when they point at the same state.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{
    result as driver, sys as driver_sys, CudaContext, CudaFunction, CudaModule, CudaStream, LaunchConfig,
};
use cudarc::nvrtc::Ptx;

use super::dispatch::BLOCK;
use super::kernels::{aot_cubin, compile_type, Family, Output};
use super::staging::Staging;
use crate::error::{Error, Result};

/// What an open device holds.
pub(crate) struct DeviceState {
    ordinal: usize,
    /// Compute capability as `10 * major + minor` (90 for an H100).
    sm: u32,
    multiprocessors: u32,
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// Kernel modules loaded so far, by family and element type (`"all"` for a whole family
    /// compiled ahead of time).
    modules: Mutex<HashMap<(&'static str, &'static str), Arc<CudaModule>>>,
    /// Kernels looked up so far, by entry-point name.
    functions: Mutex<HashMap<String, CudaFunction>>,
    /// The cuBLAS handle on `stream`, made at the first matmul; the lock serializes its use.
    blas: Mutex<Option<cudarc::cublas::CudaBlas>>,
    /// cuFFT plans on `stream`, by layout, made at first use and kept (planning costs more than
    /// most transforms), at most `FFT_PLANS` of them (all destroyed when a new one would pass
    /// that: each holds a work area); the lock serializes their use.
    #[cfg(feature = "fft")]
    ffts: Mutex<HashMap<super::cufft::PlanKey, cudarc::cufft::sys::cufftHandle>>,
    /// Pinned blocks for large transfers, made at the first one; `None` inside once pinned
    /// memory was refused (transfers then go from pageable memory).
    staging: Mutex<Option<Option<Staging>>>,
    /// Whether kernels load as NVRTC's PTX for the device's virtual architecture (the driver
    /// compiles it) instead of a CUBIN: `CNDA_CUDA_PTX=1` or [`CudaDeviceBuilder::ptx`].
    ptx: AtomicBool,
}

/// The most cuFFT plans a device keeps.
#[cfg(feature = "fft")]
const FFT_PLANS: usize = 64;

/// Options for opening a [`CudaDevice`]: `CudaDevice::builder(0).ptx(true).open()`.
#[derive(Clone, Copy, Debug)]
pub struct CudaDeviceBuilder {
    ordinal: usize,
    ptx: bool,
}

impl CudaDeviceBuilder {
    /// Load kernels as PTX for the device's virtual architecture (`compute_XX`, compiled by the
    /// driver at load) instead of CUBINs (ahead-of-time ones are skipped then): what a driver
    /// that runs no machine code needs, such as the CPU-hosted CUDA device of `tools/cuda-sim`.
    /// Also on when the environment variable `CNDA_CUDA_PTX` is `1`. The setting belongs to the
    /// device: once on, it stays on for the life of the process.
    pub fn ptx(mut self, on: bool) -> Self {
        self.ptx = on;
        self
    }

    /// Opens the device (or returns the one already open, with PTX turned on if asked).
    ///
    /// # Errors
    ///
    /// As [`CudaDevice::new`].
    pub fn open(self) -> Result<CudaDevice> {
        let dev = CudaDevice::open(self.ordinal)?;
        if self.ptx || std::env::var("CNDA_CUDA_PTX").is_ok_and(|v| v == "1") {
            dev.0.ptx.store(true, Ordering::Relaxed);
        }
        Ok(dev)
    }
}

/// A CUDA device: its context, the stream cnda's work on it is ordered on, and the kernels
/// compiled for it (by NVRTC at first use, cached).
///
/// ```no_run
/// use cnda::prelude::*;
///
/// let dev = CudaDevice::new(0)?; // an `Err` on a machine without a driver or GPU
/// let a = Array::<f32, 2, Cuda>::zeros_in(&dev, [1024, 1024]);
/// let b = &a + 1.0f32;
/// let host = b.to_host(); // waits for the device
/// assert_eq!(host[[0, 0]], 1.0);
/// # Ok::<(), cnda::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct CudaDevice(pub(crate) &'static DeviceState);

impl PartialEq for CudaDevice {
    fn eq(&self, other: &Self) -> bool {
        core::ptr::eq(self.0, other.0)
    }
}

impl Eq for CudaDevice {}

impl fmt::Debug for CudaDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CudaDevice({}, sm_{})", self.0.ordinal, self.0.sm)
    }
}

pub(crate) fn device_error(message: String) -> Error {
    Error::Device { backend: "cuda", message }
}

/// The bytes of freed device memory the stream-ordered allocator keeps for reuse across
/// synchronizations: all of it by default (as CuPy's and PyTorch's caching allocators do), so an
/// op's output reuses the pages an earlier temporary held instead of mapping new ones (the
/// driver's default, 0, returns every freed block to the system at each synchronization: on an
/// H200 that made a copy into a new array 3.6-4.5x slower than its kernel);
/// `CNDA_CUDA_RELEASE_THRESHOLD` (bytes) sets another, `0` the driver's behaviour. The kept
/// memory serves later stream-ordered allocations of this process from the device's default pool
/// (cnda's, and CuPy's or PyTorch's when they allocate from that pool: the setting is the
/// process's), and `cuMemPoolTrimTo` or the process's end returns it.
///
/// # Errors
///
/// `Error::Device` when the variable is set but is not a number of bytes.
fn release_threshold() -> Result<u64> {
    match std::env::var("CNDA_CUDA_RELEASE_THRESHOLD") {
        Err(_) => Ok(u64::MAX),
        Ok(v) => v.trim().parse().map_err(|_| {
            device_error(format!(
                "CNDA_CUDA_RELEASE_THRESHOLD is {v:?}, not a number of bytes; set it to the bytes of freed device memory to keep (0 returns all of it at each synchronization) or unset it to keep all"
            ))
        }),
    }
}

/// Sets the release threshold of `device`'s default memory pool (the one `cuMemAllocAsync` takes
/// from) to `bytes`.
fn keep_freed_memory(device: driver_sys::CUdevice, mut bytes: u64) -> core::result::Result<(), driver::DriverError> {
    // SAFETY: `device` is a device handle from a live context; the attribute is a u64 that
    // `bytes` holds for the duration of the call.
    unsafe {
        let pool = driver::device::get_default_mem_pool(device)?;
        driver_sys::cuMemPoolSetAttribute(
            pool,
            driver_sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            (&mut bytes as *mut u64).cast(),
        )
        .result()
    }
}

/// The devices opened so far, by ordinal.
fn opened() -> &'static Mutex<HashMap<usize, &'static DeviceState>> {
    static OPENED: OnceLock<Mutex<HashMap<usize, &'static DeviceState>>> = OnceLock::new();
    OPENED.get_or_init(Default::default)
}

impl CudaDevice {
    /// The number of CUDA devices, 0 where there is no driver.
    pub fn count() -> usize {
        // SAFETY: only tries to open the driver library by its candidate names.
        if !unsafe { driver_sys::is_culib_present() } {
            return 0;
        }
        if driver::init().is_err() {
            return 0;
        }
        driver::device::get_count().map(|n| n.max(0) as usize).unwrap_or(0)
    }

    /// Device `ordinal`, opened on first use (a context and a stream) and shared afterwards.
    ///
    /// # Errors
    ///
    /// `Error::Device` when there is no CUDA driver, no such device, or the driver refuses it.
    pub fn new(ordinal: usize) -> Result<CudaDevice> {
        Self::builder(ordinal).open()
    }

    /// Options for opening device `ordinal` (see [`CudaDeviceBuilder`]).
    pub fn builder(ordinal: usize) -> CudaDeviceBuilder {
        CudaDeviceBuilder { ordinal, ptx: false }
    }

    fn open(ordinal: usize) -> Result<CudaDevice> {
        // SAFETY: only tries to open the driver library; cudarc panics on first use without it.
        if !unsafe { driver_sys::is_culib_present() } {
            return Err(device_error(
                "no CUDA driver (libcuda) on this machine; install the NVIDIA driver, or use the Cpu backend".into(),
            ));
        }
        let mut opened = opened().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(state) = opened.get(&ordinal) {
            return Ok(CudaDevice(state));
        }
        let count = Self::count();
        if ordinal >= count {
            return Err(device_error(format!(
                "there is no CUDA device {ordinal}: this machine has {count}; pick an ordinal below {count} (see nvidia-smi)"
            )));
        }
        let fail = |what: &str, e: driver::DriverError| device_error(format!("device {ordinal}: {what}: {e:?}"));
        let context = CudaContext::new(ordinal).map_err(|e| fail("cannot create a context", e))?;
        let (major, minor) = context.compute_capability().map_err(|e| fail("cannot read the compute capability", e))?;
        let multiprocessors = context
            .attribute(driver_sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(|e| fail("cannot read the multiprocessor count", e))?;
        let stream = context.new_stream().map_err(|e| fail("cannot create a stream", e))?;
        if context.has_async_alloc() {
            let bytes = release_threshold()?;
            keep_freed_memory(context.cu_device(), bytes)
                .map_err(|e| fail("cannot set the memory pool's release threshold", e))?;
        }
        let state = DeviceState {
            ordinal,
            sm: (major * 10 + minor) as u32,
            multiprocessors: multiprocessors.max(1) as u32,
            context,
            stream,
            modules: Mutex::new(HashMap::new()),
            functions: Mutex::new(HashMap::new()),
            blas: Mutex::new(None),
            #[cfg(feature = "fft")]
            ffts: Mutex::new(HashMap::new()),
            staging: Mutex::new(None),
            ptx: AtomicBool::new(false),
        };
        // Open for the life of the process, as the driver's primary context is: handles are
        // plain references.
        let state: &'static DeviceState = Box::leak(Box::new(state));
        opened.insert(ordinal, state);
        Ok(CudaDevice(state))
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.0.ordinal
    }

    /// The compute capability as `10 * major + minor` (90 for sm_90).
    pub fn compute_capability(&self) -> u32 {
        self.0.sm
    }

    /// Whether kernels load as PTX rather than CUBIN (see [`CudaDeviceBuilder::ptx`]).
    pub fn loads_ptx(&self) -> bool {
        self.0.ptx.load(Ordering::Relaxed)
    }

    /// What NVRTC should produce for this device: PTX when the device loads PTX, else CUBIN.
    pub(crate) fn kernel_output(&self) -> Output {
        if self.loads_ptx() {
            Output::Ptx
        } else {
            Output::Cubin
        }
    }

    /// Waits until all work queued on the device's stream has finished.
    ///
    /// # Errors
    ///
    /// `Error::Device` with the error a kernel or copy raised.
    pub fn synchronize(&self) -> Result<()> {
        self.0.stream.synchronize().map_err(|e| device_error(format!("synchronize: {e:?}")))
    }

    /// The raw `CUstream` all of cnda's work on this device is ordered on, for other CUDA code
    /// to order itself after (DLPack's `stream` argument, CuPy's `ExternalStream`, a
    /// `cuStreamWaitEvent`). Valid for the life of the process.
    pub fn raw_stream(&self) -> *mut core::ffi::c_void {
        self.0.stream.cu_stream().cast()
    }

    /// Orders cnda's stream on this device after all work queued so far on `stream`, another
    /// library's `CUstream` (CUDA's default-stream handles `0`, `1` and `2` included), without
    /// blocking the host: what that work writes is then ready for cnda's next kernels.
    ///
    /// # Safety
    ///
    /// `stream` is a live stream of this device's context, or a default-stream handle.
    ///
    /// # Errors
    ///
    /// `Error::Device` when the driver refuses the event.
    pub unsafe fn wait_for_stream(&self, stream: *mut core::ffi::c_void) -> Result<()> {
        // SAFETY: the caller vouches for `stream`; cnda's stream lives as long as the process.
        unsafe { self.order(stream.cast(), self.0.stream.cu_stream()) }
    }

    /// Orders `stream`, another library's `CUstream` on this device (or a default-stream
    /// handle), after all of cnda's work queued so far on it, without blocking the host: cnda's
    /// results are then ready for that stream's next work.
    ///
    /// # Safety
    ///
    /// As for [`wait_for_stream`](Self::wait_for_stream).
    ///
    /// # Errors
    ///
    /// `Error::Device` when the driver refuses the event.
    pub unsafe fn make_stream_wait(&self, stream: *mut core::ffi::c_void) -> Result<()> {
        // SAFETY: as for `wait_for_stream`.
        unsafe { self.order(self.0.stream.cu_stream(), stream.cast()) }
    }

    /// Makes `waiter` wait for the work queued so far on `signal`: an event recorded on one and
    /// waited for by the other, then destroyed (the driver releases it once it completes).
    ///
    /// # Safety
    ///
    /// Both are live streams of this device's context or default-stream handles.
    unsafe fn order(&self, signal: driver_sys::CUstream, waiter: driver_sys::CUstream) -> Result<()> {
        self.bind()?;
        let fail = |e: driver::DriverError| device_error(format!("ordering streams with an event: {e:?}"));
        let event = driver::event::create(driver_sys::CUevent_flags::CU_EVENT_DISABLE_TIMING).map_err(fail)?;
        // SAFETY: a live event and streams live by the caller's contract; the event is destroyed
        // once, after its last use.
        unsafe {
            let ordered = driver::event::record(event, signal).and_then(|()| {
                driver::stream::wait_event(waiter, event, driver_sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT)
            });
            let destroyed = driver::event::destroy(event);
            ordered.and(destroyed).map_err(fail)
        }
    }

    /// The stream cnda's work on this device is ordered on.
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.0.stream
    }

    /// Makes the device's context current on this thread, as raw driver and cuBLAS calls need
    /// (cudarc's own launches and allocations do it themselves).
    ///
    /// # Errors
    ///
    /// `Error::Device` when the driver refuses.
    pub(crate) fn bind(&self) -> Result<()> {
        self.0.context.bind_to_thread().map_err(|e| device_error(format!("binding device {}: {e:?}", self.0.ordinal)))
    }

    /// The device's streaming multiprocessors (at least 1).
    pub(crate) fn multiprocessors(&self) -> usize {
        self.0.multiprocessors as usize
    }

    /// A launch configuration of 256-thread blocks for `n` grid-stride items: enough blocks to
    /// fill the device a few times over, not one per item.
    pub(crate) fn grid(&self, n: usize) -> LaunchConfig {
        let blocks = n.div_ceil(BLOCK as usize).clamp(1, self.0.multiprocessors as usize * 32);
        LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
    }

    /// `f` with the device's cuBLAS handle (bound to its stream), created at first use.
    ///
    /// # Errors
    ///
    /// `Error::Device` when cuBLAS cannot be loaded or initialized.
    pub(crate) fn with_blas<R>(&self, f: impl FnOnce(cudarc::cublas::sys::cublasHandle_t) -> R) -> Result<R> {
        self.bind()?;
        let mut blas = self.0.blas.lock().unwrap_or_else(|e| e.into_inner());
        if blas.is_none() {
            // SAFETY: only tries to open the cuBLAS library by its candidate names.
            if !unsafe { cudarc::cublas::sys::is_culib_present() } {
                return Err(device_error(
                    "cuBLAS (libcublas) is not installed; install the CUDA toolkit's cuBLAS for matmul on CUDA".into(),
                ));
            }
            let handle = cudarc::cublas::CudaBlas::new(self.0.stream.clone())
                .map_err(|e| device_error(format!("cuBLAS initialization: {e:?}")))?;
            *blas = Some(handle);
        }
        Ok(f(*blas.as_ref().expect("created above").handle()))
    }

    /// `f` with the device's cuFFT plan of `key` (bound to its stream), made at first use.
    ///
    /// # Errors
    ///
    /// `Error::Device` when cuFFT cannot be loaded or refuses the plan.
    #[cfg(feature = "fft")]
    pub(crate) fn with_fft_plan<R>(
        &self,
        key: super::cufft::PlanKey,
        f: impl FnOnce(cudarc::cufft::sys::cufftHandle) -> R,
    ) -> Result<R> {
        use cudarc::cufft::{result as cufft, sys as cufft_sys};
        self.bind()?;
        let mut plans = self.0.ffts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&plan) = plans.get(&key) {
            return Ok(f(plan));
        }
        // SAFETY: only tries to open the cuFFT library by its candidate names.
        if !unsafe { cufft_sys::is_culib_present() } {
            return Err(device_error(
                "cuFFT (libcufft) is not installed; install the CUDA toolkit's cuFFT for transforms on CUDA".into(),
            ));
        }
        if plans.len() >= FFT_PLANS {
            // The queued transforms may still use the plans' work areas: wait for them first.
            self.0.stream.synchronize().map_err(|e| device_error(format!("cuFFT plan cache: {e:?}")))?;
            for (_, old) in plans.drain() {
                // SAFETY: a plan made here, used only under this lock, its work finished.
                unsafe { cufft::destroy(old) }.map_err(|e| device_error(format!("cuFFT plan destroy: {e:?}")))?;
            }
        }
        let plan = key.plan().map_err(|e| device_error(format!("cuFFT plan {key:?}: {e:?}")))?;
        // SAFETY: `plan` was just made; the stream is the device's, alive for the process.
        if let Err(e) = unsafe { cufft::set_stream(plan, self.0.stream.cu_stream() as _) } {
            // SAFETY: the plan made above, never used.
            let _ = unsafe { cufft::destroy(plan) };
            return Err(device_error(format!("cuFFT stream: {e:?}")));
        }
        plans.insert(key, plan);
        Ok(f(plan))
    }

    /// `f` with the device's pinned staging blocks, made at first use; `None` where the driver
    /// refuses pinned memory (the caller copies from pageable memory then). The lock serializes
    /// large transfers on the device.
    pub(crate) fn with_staging<R>(&self, f: impl FnOnce(Option<&mut Staging>) -> R) -> R {
        let mut slot = self.0.staging.lock().unwrap_or_else(|e| e.into_inner());
        let staging = slot.get_or_insert_with(|| Staging::new(*self).ok());
        f(staging.as_mut())
    }

    /// Kernel `name` of an image (CUBIN or PTX, as [`kernel_output`](Self::kernel_output)
    /// says) compiled for this device outside the kernel families (a user kernel); not cached
    /// here (its owner keeps the function).
    ///
    /// # Errors
    ///
    /// `Error::Device` when the image does not load or lacks the kernel.
    pub(crate) fn load_user(&self, name: &str, cubin: Vec<u8>) -> Result<CudaFunction> {
        let module = self
            .0
            .context
            .load_module(Ptx::from_binary(cubin))
            .map_err(|e| device_error(format!("loading a user kernel: {e:?}")))?;
        module.load_function(name).map_err(|e| device_error(format!("a user kernel without {name}: {e:?}")))
    }

    /// The kernel `name` of a generated source (an expression stencil's), compiled by NVRTC
    /// from `source()` and loaded the first time `key` is asked for, then cached by it.
    ///
    /// # Errors
    ///
    /// `source`'s error; `Error::Device` with NVRTC's log when it does not compile, or when the
    /// module does not load.
    pub(crate) fn generated_function(
        &self,
        key: String,
        name: &str,
        source: impl FnOnce() -> Result<String>,
    ) -> Result<CudaFunction> {
        if let Some(f) = self.0.functions.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(f.clone());
        }
        let image = super::kernels::compile_source(name, &source()?, self.compute_capability(), self.kernel_output())?;
        let function = self.load_user(name, image)?;
        self.0.functions.lock().unwrap_or_else(|e| e.into_inner()).insert(key, function.clone());
        Ok(function)
    }

    /// The kernel `name` of `family` for element type `t`, loading its module first if needed:
    /// the family's CUBIN compiled ahead of time when build.rs had nvcc, else the family's
    /// kernels for `t` alone, compiled now by NVRTC (a fraction of the family, so the first op
    /// on a type waits less).
    ///
    /// # Errors
    ///
    /// `Error::Device` when the family does not compile or load, or has no such kernel.
    pub(crate) fn function(&self, family: &Family, t: &'static str, name: &str) -> Result<CudaFunction> {
        if let Some(f) = self.0.functions.lock().unwrap_or_else(|e| e.into_inner()).get(name) {
            return Ok(f.clone());
        }
        let module = {
            let mut modules = self.0.modules.lock().unwrap_or_else(|e| e.into_inner());
            let aot = if self.loads_ptx() { None } else { aot_cubin(family.name, self.0.sm) };
            let key = (family.name, if aot.is_some() { "all" } else { t });
            match modules.get(&key) {
                Some(m) => m.clone(),
                None => {
                    let cubin = match aot {
                        Some(image) => image.to_vec(),
                        None => compile_type(family, t, self.0.sm, self.kernel_output())?,
                    };
                    let module = self
                        .0
                        .context
                        .load_module(Ptx::from_binary(cubin))
                        .map_err(|e| device_error(format!("loading kernels/cuda/{}.cu: {e:?}", family.name)))?;
                    modules.insert(key, module.clone());
                    module
                }
            }
        };
        let function = module.load_function(name).map_err(|e| {
            device_error(format!(
                "kernels/cuda/{}.cu has no kernel {name} ({e:?}); this element type or op has no CUDA kernel",
                family.name
            ))
        })?;
        self.0.functions.lock().unwrap_or_else(|e| e.into_inner()).insert(name.to_string(), function.clone());
        Ok(function)
    }
}
