//! [`WgpuDevice`]: a WebGPU adapter's device and queue, and the compute pipelines built for it.
//!
//! The device is opened once for the life of the process (the first `WgpuDevice::new()`), so the
//! handle is a `Copy` reference that buffers and data handles carry. wgpu reports validation
//! errors through error scopes, which every dispatch and allocation here pushes, so they come back
//! as `Error::Device` instead of wgpu's default panic.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use wgpu::util::DeviceExt;

use super::dispatch::Params;
use super::shaders::{self, Family};
use crate::error::{Error, Result};

/// What an open device holds.
pub(crate) struct DeviceState {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter: String,
    /// Whether the adapter runs shaders on the CPU (lavapipe): workgroup memory is then cache,
    /// and time tiling pays.
    on_cpu: bool,
    /// The largest storage binding (and so the largest array) the adapter allows, in bytes.
    max_binding: u64,
    /// The most storage buffers one shader may bind (a stencil binds its outputs, the fields it
    /// reads and two parameter buffers).
    max_storage_buffers: u32,
    /// The shader features cnda asked for and got (`SHADER_F64`, `SHADER_F16`).
    features: wgpu::Features,
    /// Pipelines built so far, by family, element type and entry point.
    pipelines: Mutex<HashMap<(&'static str, &'static str, String), wgpu::ComputePipeline>>,
}

/// A WebGPU device (Vulkan; on machines without a GPU, a software adapter such as Mesa's
/// lavapipe): its queue, and the compute pipelines built from `kernels/wgpu/*.wgsl` for it.
///
/// ```no_run
/// use cnda::prelude::*;
///
/// let dev = WgpuDevice::new()?; // an `Err` where there is no adapter
/// let a = Array::from_fn([64, 64], |[i, j]| (i + j) as f32).to_device(&dev);
/// let b = (&a * 2.0f32).to_host();
/// assert_eq!(b[[1, 2]], 6.0);
/// # Ok::<(), cnda::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct WgpuDevice(pub(crate) &'static DeviceState);

impl PartialEq for WgpuDevice {
    fn eq(&self, other: &Self) -> bool {
        core::ptr::eq(self.0, other.0)
    }
}

impl Eq for WgpuDevice {}

impl fmt::Debug for WgpuDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WgpuDevice({})", self.0.adapter)
    }
}

pub(crate) fn device_error(message: String) -> Error {
    Error::Device { backend: "wgpu", message }
}

impl WgpuDevice {
    /// The device of the first Vulkan adapter (high performance preferred), opened at the first
    /// call and shared afterwards.
    ///
    /// # Errors
    ///
    /// `Error::Device` when there is no adapter (no Vulkan driver, not even a software one) or it
    /// refuses a device.
    pub fn new() -> Result<WgpuDevice> {
        static OPENED: OnceLock<core::result::Result<&'static DeviceState, String>> = OnceLock::new();
        match OPENED.get_or_init(|| open().map(|state| &*Box::leak(Box::new(state)))) {
            Ok(state) => Ok(WgpuDevice(state)),
            Err(message) => Err(device_error(message.clone())),
        }
    }

    /// The adapter's name and driver, as wgpu reports them.
    pub fn adapter(&self) -> &str {
        &self.0.adapter
    }

    /// Whether shaders on this device compute in element type `T`: `f32`, `i32` and
    /// `Complex<f32>` always, `f64`, `Complex<f64>` and `half::f16` where the adapter has the
    /// `SHADER_F64` / `SHADER_F16` feature (other types never). Complex elements have elementwise
    /// ops and sums and products, not matmul.
    pub fn supports<T: crate::element::Element>(&self) -> bool {
        use crate::element::DType;
        match T::DTYPE {
            DType::F32 | DType::I32 | DType::C64 => true,
            DType::F64 | DType::C128 => self.has(wgpu::Features::SHADER_F64),
            DType::F16 => self.has(wgpu::Features::SHADER_F16),
            _ => false,
        }
    }

    /// Whether the adapter runs shaders on the CPU (a software adapter such as lavapipe).
    pub(crate) fn on_cpu(&self) -> bool {
        self.0.on_cpu
    }

    /// Whether the device was opened with shader feature `feature`.
    pub(crate) fn has(&self, feature: wgpu::Features) -> bool {
        self.0.features.contains(feature)
    }

    /// The largest array the adapter can bind, in bytes.
    pub fn max_binding_bytes(&self) -> u64 {
        self.0.max_binding
    }

    /// The most storage buffers one shader may bind on this adapter.
    pub(crate) fn max_storage_buffers(&self) -> u32 {
        self.0.max_storage_buffers
    }

    /// Waits until all work submitted to the device's queue has finished.
    ///
    /// # Errors
    ///
    /// `Error::Device` when the device is lost or the wait fails.
    pub fn synchronize(&self) -> Result<()> {
        self.0
            .device
            .poll(wgpu::PollType::Wait { submission_index: None, timeout: None })
            .map(|_| ())
            .map_err(|e| device_error(format!("synchronize: {e}")))
    }

    pub(crate) fn device(&self) -> &wgpu::Device {
        &self.0.device
    }

    pub(crate) fn queue(&self) -> &wgpu::Queue {
        &self.0.queue
    }

    /// Runs `f` inside a validation error scope, turning an error wgpu reports into
    /// `Error::Device`.
    pub(crate) fn checked<R>(&self, what: &str, f: impl FnOnce() -> R) -> Result<R> {
        let scope = self.0.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out_of_memory = self.0.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let result = f();
        let memory = pollster::block_on(out_of_memory.pop());
        let validation = pollster::block_on(scope.pop());
        match (memory, validation) {
            (Some(e), _) => Err(device_error(format!("{what}: out of device memory: {e}"))),
            (_, Some(e)) => Err(device_error(format!("{what}: {e}"))),
            (None, None) => Ok(result),
        }
    }

    /// The pipeline of entry point `entry` of `family` for element type `elem`, built at first
    /// use (the shader assembled for `elem` and compiled by wgpu).
    ///
    /// # Errors
    ///
    /// `Error::UnsupportedDType` when the family has no shader for `elem`; `Error::Device` when
    /// wgpu refuses the shader or entry point.
    pub(crate) fn pipeline(
        &self,
        family: &'static Family,
        elem: &'static str,
        entry: &str,
    ) -> Result<wgpu::ComputePipeline> {
        let key = (family.name, elem, entry.to_string());
        if let Some(p) = self.0.pipelines.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(p.clone());
        }
        let source = shaders::source(family, elem)?;
        let pipeline = self.build(&format!("building {}.wgsl ({elem}) entry {entry}", family.name), &source, entry)?;
        self.0.pipelines.lock().unwrap_or_else(|e| e.into_inner()).insert(key, pipeline.clone());
        Ok(pipeline)
    }

    /// The pipeline of a generated shader (an expression stencil's), built from `source()` the
    /// first time `key` is asked for and cached by it.
    ///
    /// # Errors
    ///
    /// `source`'s error; `Error::Device` with wgpu's message when the shader is rejected.
    pub(crate) fn generated_pipeline(
        &self,
        key: String,
        entry: &str,
        source: impl FnOnce() -> Result<String>,
    ) -> Result<wgpu::ComputePipeline> {
        let key = ("generated", "", key);
        if let Some(p) = self.0.pipelines.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(p.clone());
        }
        let pipeline = self.build("building a stencil! shader", &source()?, entry)?;
        self.0.pipelines.lock().unwrap_or_else(|e| e.into_inner()).insert(key, pipeline.clone());
        Ok(pipeline)
    }

    /// Compiles WGSL `source` and builds the pipeline of its entry point `entry`.
    fn build(&self, what: &str, source: &str, entry: &str) -> Result<wgpu::ComputePipeline> {
        let device = &self.0.device;
        self.checked(what, || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(entry),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: None,
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        })
    }

    /// Dispatches `pipeline` over `groups` workgroups with `bindings` (binding number, buffer),
    /// the parameter block at binding 3 and, when there are any, the element scalars at
    /// binding 5.
    ///
    /// # Errors
    ///
    /// `Error::Device` with wgpu's validation message.
    pub(crate) fn dispatch(
        &self,
        what: &str,
        pipeline: &wgpu::ComputePipeline,
        bindings: &[(u32, &wgpu::Buffer)],
        params: &Params,
        groups: impl Into<Groups>,
    ) -> Result<()> {
        let Groups(groups) = groups.into();
        #[cfg(feature = "tracing")]
        tracing::trace!(target: "cnda::wgpu", entry = what, groups_x = groups[0], groups_y = groups[1], groups_z = groups[2], "dispatch");
        let device = &self.0.device;
        self.checked(what, || {
            let storage = |label, contents: &[u8]| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage: wgpu::BufferUsages::STORAGE,
                })
            };
            let words = storage("cnda params", bytemuck::cast_slice(&params.words));
            let elems = (!params.elems.is_empty()).then(|| {
                // Bindings are whole 4-byte words: pad an odd number of f16 scalars.
                let mut bytes = params.elems.clone();
                bytes.resize(bytes.len().next_multiple_of(4), 0);
                storage("cnda element scalars", &bytes)
            });
            let mut entries: Vec<wgpu::BindGroupEntry<'_>> = bindings
                .iter()
                .map(|&(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
                .collect();
            entries.push(wgpu::BindGroupEntry { binding: 3, resource: words.as_entire_binding() });
            if let Some(elems) = &elems {
                entries.push(wgpu::BindGroupEntry { binding: 5, resource: elems.as_entire_binding() });
            }
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries,
            });
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, &group, &[]);
                pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
            }
            self.0.queue.submit([encoder.finish()]);
        })
    }

    /// Workgroups of 256 threads for `n` items: a 2D grid when one dimension's 65,535 is not
    /// enough (the shaders fold it back with `flat_index`).
    pub(crate) fn groups(n: usize) -> Result<(u32, u32)> {
        let groups = n.div_ceil(256).max(1);
        let x = groups.min(65_535);
        let y = groups.div_ceil(x);
        if y > 65_535 {
            return Err(device_error(format!("{n} items exceed one dispatch; split the array")));
        }
        Ok((x as u32, y as u32))
    }
}

/// Opens the first Vulkan adapter's device.
fn open() -> core::result::Result<DeviceState, String> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: None,
        apply_limit_buckets: false,
    }))
    .map_err(|e| {
        format!("no WebGPU adapter ({e}); install a Vulkan driver (on Debian, mesa-vulkan-drivers and libvulkan1 give the lavapipe software adapter), or use the Cpu backend")
    })?;
    let info = adapter.get_info();
    let limits = adapter.limits();
    // f64 and f16 shaders where the adapter has them (lavapipe and NVIDIA's Vulkan driver do).
    let features = adapter.features() & (wgpu::Features::SHADER_F64 | wgpu::Features::SHADER_F16);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("cnda"),
        required_features: features,
        required_limits: limits.clone(),
        experimental_features: Default::default(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: Default::default(),
    }))
    .map_err(|e| format!("the adapter {} refused a device: {e}", info.name))?;
    // Errors outside cnda's error scopes are logged, not turned into panics.
    device.on_uncaptured_error(Arc::new(|e| eprintln!("cnda wgpu: uncaptured device error: {e}")));
    let max_binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
    Ok(DeviceState {
        device,
        queue,
        adapter: format!("{} ({:?}, {})", info.name, info.device_type, info.driver),
        on_cpu: info.device_type == wgpu::DeviceType::Cpu,
        max_binding,
        max_storage_buffers: limits.max_storage_buffers_per_shader_stage,
        features,
        pipelines: Mutex::new(HashMap::new()),
    })
}

/// The workgroups of a dispatch along x, y and z: from `(x, y)` (z = 1) or `[x, y, z]`.
pub(crate) struct Groups(pub(crate) [u32; 3]);

impl From<(u32, u32)> for Groups {
    fn from((x, y): (u32, u32)) -> Self {
        Groups([x, y, 1])
    }
}

impl From<[u32; 3]> for Groups {
    fn from(xyz: [u32; 3]) -> Self {
        Groups(xyz)
    }
}
