//! CUDA as a conformance device: the cases run on device 0 where one opens, and print SKIP
//! elsewhere (CI has no GPU; the GPU machine runs them).

use cnda::prelude::*;

use super::device_harness::{Device, DeviceHarness};

/// Device 0, if this machine has one.
fn device() -> Option<CudaDevice> {
    CudaDevice::new(0).ok()
}

/// The first CUDA device.
pub struct CudaDevice0;

impl Device for CudaDevice0 {
    const NAME: &'static str = "Cuda";
    type B = Cuda;

    fn available() -> bool {
        device().is_some()
    }

    fn upload<T: Float, const N: usize>(a: &Array<T, N>) -> Array<T, N, Cuda> {
        a.to_device(&device().expect("checked by available()"))
    }

    fn download<T: Float, const N: usize, L: Layout, C: BoundsCheck>(a: &Array<T, N, Cuda, L, C>) -> Array<T, N> {
        a.to_host()
    }
}

/// CUDA as the conformance cases see it.
pub type CudaHarness = DeviceHarness<CudaDevice0>;
