//! WebGPU as a conformance device: the cases run on the adapter this machine has (Mesa's
//! lavapipe in CI), in f32, and in f64 where the adapter has `SHADER_F64` (lavapipe and NVIDIA's
//! driver do; Vulkan's f64 has no transcendental functions, so those cases are left out), and
//! print SKIP without one.

use cnda::prelude::*;

use super::device_harness::{Device, DeviceHarness};

fn device() -> Option<WgpuDevice> {
    WgpuDevice::new().ok()
}

/// The first WebGPU adapter.
pub struct WgpuAdapter;

impl Device for WgpuAdapter {
    const NAME: &'static str = "Wgpu";
    type B = Wgpu;

    fn available() -> bool {
        let present = device().is_some();
        assert!(
            present || std::env::var_os("CNDA_REQUIRE_WGPU").is_none(),
            "CNDA_REQUIRE_WGPU is set but no adapter opens"
        );
        present
    }

    fn supports_f64() -> bool {
        device().is_some_and(|d| d.supports::<f64>())
    }

    fn supports_f64_transcendentals() -> bool {
        false
    }

    fn keeps_subnormals() -> bool {
        false
    }

    fn rounds_each_operation() -> bool {
        false
    }

    fn supports_f16() -> bool {
        device().is_some_and(|d| d.supports::<half::f16>())
    }

    fn upload<T: Float, const N: usize>(a: &Array<T, N>) -> Array<T, N, Wgpu> {
        a.to_device(&device().expect("checked by available()"))
    }

    fn upload_csr<T: Float>(m: &cnda::sparse::CsrMatrix<T>) -> cnda::sparse::CsrMatrix<T, Wgpu> {
        m.to_device(&device().expect("checked by available()"))
    }

    fn download<T: Float, const N: usize, L: Layout, C: BoundsCheck>(a: &Array<T, N, Wgpu, L, C>) -> Array<T, N> {
        a.to_host()
    }
}

/// WebGPU as the conformance cases see it.
pub type WgpuHarness = DeviceHarness<WgpuAdapter>;
