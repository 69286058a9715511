//! Operands of the generic ops: what `matmul`, the operators and the stencils accept as inputs
//! ([`AsOperand`]) and outputs ([`AsOperandMut`]), each reduced to a kernel [`Desc`].

use crate::element::Pod;
use crate::kernel::{Backend, Desc};

mod sealed {
    pub trait Sealed {}
}

/// A borrowed operand of an op on backend `B`: an array on `B`, or (for `Cpu`) a view or a
/// [`CowArray`](crate::CowArray). What the right-hand sides of `matmul` and the operators
/// accept; sealed, because kernels trust the descriptor it hands out.
pub trait AsOperand<T: Pod, const N: usize, B: Backend = crate::kernel::Cpu>: sealed::Sealed {
    /// The operand's kernel descriptor, valid while `self` is borrowed.
    #[doc(hidden)]
    fn operand_desc(&self) -> Desc<B, T, N>;
}

/// A uniquely borrowed operand that an op writes on backend `B`: a mutable array reference on
/// `B`, or (for `Cpu`) a mutable view. Sealed, because kernels trust its descriptor.
pub trait AsOperandMut<T: Pod, const N: usize, B: Backend = crate::kernel::Cpu>: sealed::Sealed {
    /// The operand's kernel descriptor for writing, valid while `self` is borrowed; its indices
    /// address distinct elements.
    #[doc(hidden)]
    fn operand_desc_mut(&mut self) -> Desc<B, T, N>;
}

mod impls {
    use super::{sealed::Sealed, AsOperand, AsOperandMut, Desc};
    use crate::array::Array;
    use crate::array::{AsView, CowArray};
    use crate::check::BoundsCheck;
    use crate::element::Pod;
    use crate::kernel::{Backend, Cpu};
    use crate::layout::Layout;
    use crate::view::{Access, Unique, View};

    impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> Sealed for Array<T, N, B, L, C> {}
    impl<T: Pod, const N: usize, A: Access, B: Backend, L: Layout, C: BoundsCheck> Sealed for View<'_, T, N, A, B, L, C> {}
    impl<T: Pod, const N: usize, C: BoundsCheck> Sealed for CowArray<'_, T, N, C> {}
    impl<S: Sealed> Sealed for &S {}
    impl<S: Sealed> Sealed for &mut S {}

    impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> AsOperandMut<T, N, B>
        for &mut Array<T, N, B, L, C>
    {
        fn operand_desc_mut(&mut self) -> Desc<B, T, N> {
            self.desc_mut()
        }
    }

    impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> AsOperandMut<T, N, B>
        for View<'_, T, N, Unique, B, L, C>
    {
        fn operand_desc_mut(&mut self) -> Desc<B, T, N> {
            self.desc_mut()
        }
    }

    impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> AsOperandMut<T, N, B>
        for &mut View<'_, T, N, Unique, B, L, C>
    {
        fn operand_desc_mut(&mut self) -> Desc<B, T, N> {
            self.desc_mut()
        }
    }

    impl<T: Pod, const N: usize, B: Backend, L: Layout, C: BoundsCheck> AsOperand<T, N, B> for Array<T, N, B, L, C> {
        fn operand_desc(&self) -> Desc<B, T, N> {
            self.desc()
        }
    }

    impl<T: Pod, const N: usize, A: Access, B: Backend, L: Layout, C: BoundsCheck> AsOperand<T, N, B>
        for View<'_, T, N, A, B, L, C>
    {
        fn operand_desc(&self) -> Desc<B, T, N> {
            self.desc()
        }
    }

    impl<T: Pod, const N: usize, C: BoundsCheck> AsOperand<T, N, Cpu> for CowArray<'_, T, N, C> {
        fn operand_desc(&self) -> Desc<Cpu, T, N> {
            self.as_view().desc()
        }
    }

    impl<T: Pod, const N: usize, B: Backend, S: AsOperand<T, N, B>> AsOperand<T, N, B> for &S {
        fn operand_desc(&self) -> Desc<B, T, N> {
            (**self).operand_desc()
        }
    }
}
