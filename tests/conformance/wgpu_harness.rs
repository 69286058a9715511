//! WebGPU as a conformance device: the cases run on the adapter this machine has (Mesa's
//! lavapipe in CI), in f32 (WebGPU shaders have no f64 here), and print SKIP without one.

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
        false
    }

    fn upload<T: Float, const N: usize>(a: &Array<T, N>) -> Array<T, N, Wgpu> {
        a.to_device(&device().expect("checked by available()"))
    }

    fn download<T: Float, const N: usize, L: Layout, C: BoundsCheck>(a: &Array<T, N, Wgpu, L, C>) -> Array<T, N> {
        a.to_host()
    }
}

/// WebGPU as the conformance cases see it.
pub type WgpuHarness = DeviceHarness<WgpuAdapter>;
