//! CUDA as a conformance device: the cases run on device 0 where one opens (a GPU, or in CI the
//! CPU-hosted device of tools/cuda-sim), and print SKIP elsewhere, or fail where
//! `CNDA_REQUIRE_CUDA` is set.

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
        let present = device().is_some();
        assert!(
            present || std::env::var_os("CNDA_REQUIRE_CUDA").is_none(),
            "CNDA_REQUIRE_CUDA is set but no CUDA device opens: {:?}",
            CudaDevice::new(0).err()
        );
        present
    }

    fn upload<T: Float, const N: usize>(a: &Array<T, N>) -> Array<T, N, Cuda> {
        a.to_device(&device().expect("checked by available()"))
    }

    fn upload_csr<T: Float>(m: &cnda::sparse::CsrMatrix<T>) -> cnda::sparse::CsrMatrix<T, Cuda> {
        m.to_device(&device().expect("checked by available()"))
    }

    fn download<T: Float, const N: usize, L: Layout, C: BoundsCheck>(a: &Array<T, N, Cuda, L, C>) -> Array<T, N> {
        a.to_host()
    }
}

/// CUDA as the conformance cases see it.
pub type CudaHarness = DeviceHarness<CudaDevice0>;
