//! A device backend's refusal of unary tokens whose result type is not the one its kernel writes
//! (the complex functions with real results are the one form whose types differ): shared by the
//! CUDA and WebGPU backends' tests.

use num_complex::Complex;

use crate::element::Pod;
use crate::error::Error;
use crate::kernel::tokens::{DeviceUnary, UnaryOp};
use crate::kernel::{Allocator, Desc, ElementwiseKernels};

/// A token of one's own claiming a device function whose result type is not the one its kernel
/// writes.
#[derive(Clone, Copy, Debug)]
struct Claims<R>(core::marker::PhantomData<R>);

impl<T: Pod, R: Pod + Default + core::fmt::Debug + Send + Sync> UnaryOp<T> for Claims<R> {
    type Output = R;
    const NAME: &'static str = "abs";

    fn apply(self, _: T) -> R {
        R::default()
    }

    fn device_form(self) -> Option<DeviceUnary<T>> {
        Some(DeviceUnary::Named("abs"))
    }
}

/// The kernels writing a complex function's real result are chosen only for the part type: a
/// token claiming another result type (a narrower float, or a real operand's function with
/// another type) is refused, never launched on the wrong element size.
pub(super) fn results_of_another_type_are_refused<B: ElementwiseKernels>(alloc: &impl Allocator<B>) {
    let dev = alloc.device();
    let z = alloc.try_alloc_zeroed::<Complex<f64>>("test", 4).expect("a small device buffer");
    let x = alloc.try_alloc_zeroed::<f64>("test", 4).expect("a small device buffer");
    let mut narrow = alloc.try_alloc_zeroed::<f32>("test", 4).expect("a small device buffer");
    let mut wide = alloc.try_alloc_zeroed::<Complex<f64>>("test", 4).expect("a small device buffer");
    fn desc<B: ElementwiseKernels, T: Pod>(handle: B::Handle<T>) -> Desc<B, T, 1> {
        Desc { handle, shape: [4], strides: [1] }
    }
    // SAFETY: fresh device buffers of four elements each, distinct.
    unsafe {
        let e = B::unary(
            &dev,
            Claims::<f32>(Default::default()),
            desc(B::handle_mut(&mut narrow, 0)),
            desc(B::handle(&z, 0)),
        );
        assert!(matches!(e, Err(Error::NoKernel { .. })), "{e:?}");
        let e = B::unary(
            &dev,
            Claims::<f32>(Default::default()),
            desc(B::handle_mut(&mut narrow, 0)),
            desc(B::handle(&x, 0)),
        );
        assert!(matches!(e, Err(Error::NoKernel { .. })), "{e:?}");
        let e = B::unary(
            &dev,
            Claims::<Complex<f64>>(Default::default()),
            desc(B::handle_mut(&mut wide, 0)),
            desc(B::handle(&x, 0)),
        );
        assert!(matches!(e, Err(Error::NoKernel { .. })), "{e:?}");
    }
}
