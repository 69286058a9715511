//! The model backend (`tests/common/model.rs`: naive kernels under the generic algorithms) as a
//! conformance device.

use cnda::prelude::*;

use super::device_harness::{Device, DeviceHarness};
use crate::model::{Model, ModelAlloc};

/// Operands on model device 0.
const DEVICE: ModelAlloc = ModelAlloc(0);

/// The model device.
pub struct ModelDevice;

impl Device for ModelDevice {
    const NAME: &'static str = "Model";
    type B = Model;

    fn upload<T: Float, const N: usize>(a: &Array<T, N>) -> Array<T, N, Model> {
        Array::try_from_fn_in(&DEVICE, a.shape(), |i| a[i]).unwrap()
    }

    fn upload_csr<T: Float>(m: &cnda::sparse::CsrMatrix<T>) -> cnda::sparse::CsrMatrix<T, Model> {
        m.to_device(&DEVICE)
    }

    fn download<T: Float, const N: usize, L: Layout, C: BoundsCheck>(a: &Array<T, N, Model, L, C>) -> Array<T, N> {
        Array::from_fn(a.shape(), |i| a[i])
    }
}

/// The model backend as the conformance cases see it.
pub type ModelHarness = DeviceHarness<ModelDevice>;
