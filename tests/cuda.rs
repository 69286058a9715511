//! The CUDA backend where there may be no GPU: opening a device is an `Err` with a what/why/how
//! message, never a panic, and the kernels of the conformance suite (tests/conformance) run
//! only where a device opens. With a device (the GPU machine), round trips and a first op.
#![cfg(feature = "cuda")]

use cnda::prelude::*;

#[test]
fn opening_a_device_fails_cleanly_without_one() {
    let count = CudaDevice::count();
    match CudaDevice::new(0) {
        Ok(dev) => assert!(count > 0 && dev.ordinal() == 0),
        Err(e) => {
            assert_eq!(count, 0, "a device exists but did not open: {e}");
            assert!(matches!(e, Error::Device { backend: "cuda", .. }), "{e}");
            let message = e.to_string();
            assert!(message.contains("no CUDA driver") || message.contains("there is no CUDA device"), "{message}");
        }
    }
    let e = CudaDevice::new(usize::MAX).unwrap_err();
    assert!(matches!(e, Error::Device { .. }), "{e}");
}

#[test]
fn round_trips_and_a_first_op_on_a_device() {
    let Ok(dev) = CudaDevice::new(0) else {
        eprintln!("SKIP: no CUDA device");
        return;
    };
    let a = Array::from_fn([37, 53], |[i, j]| (i * 53 + j) as f32);
    let d = a.to_device(&dev);
    assert_eq!(d.to_host(), a);
    assert_eq!(d.t().to_host(), a.t().to_owned()); // a transposed device view, made contiguous there
    let e = &d + 1.0f32;
    assert_eq!(e.to_host(), &a + 1.0f32);
    let z = Array::<f64, 3, Cuda>::zeros_in(&dev, [2, 0, 4]);
    assert_eq!(z.to_host().shape(), [2, 0, 4]);
    dev.synchronize().unwrap();
}
