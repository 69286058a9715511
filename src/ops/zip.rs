//! [`Zip`]: lockstep iteration over up to eight arrays or views of one shape, any layouts, with
//! the index of each element on request ([`Zip::indexed`]).
//!
//! ```
//! use cnda::prelude::*;
//! let a = Array::from_fn([3, 4], |[i, j]| (i + j) as f64);
//! let b = a.t().to_owned();                    // another layout, same values transposed
//! let mut out = Array::<f64, 2>::zeros([3, 4]);
//! Zip::from(out.view_mut()).and(a.view()).and(b.t()).for_each(|o, &x, &y| *o = x * y);
//! assert_eq!(out[[2, 3]], 25.0);
//! // Arrays themselves are producers (`&a` reads, `&mut out` writes), and `indexed()` adds the
//! // index of each element.
//! Zip::from(&mut out).and(&a).indexed().for_each(|[i, j], o, &x| *o = x + (10 * i + j) as f64);
//! assert_eq!(out[[2, 3]], 5.0 + 23.0);
//! ```
//!
//! The walk goes lane by lane through the lane engine: when every operand is contiguous the whole
//! array is one lane and the closure runs in a plain counted loop that LLVM vectorizes.

use crate::array::Array;
use crate::check::{BoundsCheck, DefaultCheck};
use crate::element::Pod;
use crate::error::or_panic;
use crate::error::{Error, Result};
use crate::iter::Odometer;
use crate::kernel::host::HostEngine;
use crate::kernel::{Cpu, HostAccessible};
use crate::layout::{Layout, RowMajor};
use crate::ops::map::collect;
use crate::view::{ArrayView, ArrayViewMut};

mod sealed {
    pub trait Sealed {}
}

/// Something `Zip` can walk: a shared view (items `&T`) or a mutable view (items `&mut T`).
///
/// Sealed: `Zip` does pointer arithmetic with `base_ptr` and `strides` and trusts them to
/// describe live elements of the producer's shape, which only cnda's own views guarantee.
pub trait NdProducer<const N: usize>: sealed::Sealed {
    /// What the closure receives per element.
    type Item;
    /// The element type.
    type Elem;
    /// The shape walked.
    fn shape(&self) -> [usize; N];
    /// Element strides.
    #[doc(hidden)]
    fn strides(&self) -> [isize; N];
    /// Pointer to the element at index 0.
    #[doc(hidden)]
    fn base_ptr(&self) -> *mut Self::Elem;
    /// The item at `ptr`.
    ///
    /// # Safety
    ///
    /// `ptr` is an element of this producer, and each element is turned into an item once.
    #[doc(hidden)]
    unsafe fn item(ptr: *mut Self::Elem) -> Self::Item;
}

impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> sealed::Sealed for ArrayView<'_, T, N, L, C> {}
impl<T: Pod, const N: usize, L: Layout, C: BoundsCheck> sealed::Sealed for ArrayViewMut<'_, T, N, L, C> {}

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> NdProducer<N> for ArrayView<'a, T, N, L, C> {
    type Item = &'a T;
    type Elem = T;
    fn shape(&self) -> [usize; N] {
        self.raw.shape
    }
    fn strides(&self) -> [isize; N] {
        self.raw.strides()
    }
    fn base_ptr(&self) -> *mut T {
        self.raw.ptr
    }
    unsafe fn item(ptr: *mut T) -> &'a T {
        // SAFETY: the caller passes an element of this view, valid for 'a.
        unsafe { &*ptr }
    }
}

impl<'a, T: Pod, const N: usize, L: Layout, C: BoundsCheck> NdProducer<N> for ArrayViewMut<'a, T, N, L, C> {
    type Item = &'a mut T;
    type Elem = T;
    fn shape(&self) -> [usize; N] {
        self.raw.shape
    }
    fn strides(&self) -> [isize; N] {
        self.raw.strides()
    }
    fn base_ptr(&self) -> *mut T {
        self.raw.ptr
    }
    unsafe fn item(ptr: *mut T) -> &'a mut T {
        // SAFETY: the caller passes an element of this uniquely borrowed view, once.
        unsafe { &mut *ptr }
    }
}

impl<T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> sealed::Sealed for &Array<T, N, B, L, C> {}
impl<T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> sealed::Sealed
    for &mut Array<T, N, B, L, C>
{
}

/// An array lends its elements for reading, as its view would.
impl<'a, T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> NdProducer<N>
    for &'a Array<T, N, B, L, C>
{
    type Item = &'a T;
    type Elem = T;
    fn shape(&self) -> [usize; N] {
        Array::shape(self)
    }
    fn strides(&self) -> [isize; N] {
        self.host_view().raw.strides()
    }
    fn base_ptr(&self) -> *mut T {
        self.host_view().raw.ptr
    }
    unsafe fn item(ptr: *mut T) -> &'a T {
        // SAFETY: the caller passes an element of this array, borrowed shared for 'a.
        unsafe { &*ptr }
    }
}

/// An array lends its elements for writing, as its mutable view would.
impl<'a, T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> NdProducer<N>
    for &'a mut Array<T, N, B, L, C>
{
    type Item = &'a mut T;
    type Elem = T;
    fn shape(&self) -> [usize; N] {
        Array::shape(self)
    }
    fn strides(&self) -> [isize; N] {
        self.host_view().raw.strides()
    }
    fn base_ptr(&self) -> *mut T {
        self.host_view().raw.ptr
    }
    unsafe fn item(ptr: *mut T) -> &'a mut T {
        // SAFETY: the caller passes an element of this array, borrowed uniquely for 'a, once.
        unsafe { &mut *ptr }
    }
}

/// Lockstep iteration over producers of one shape; see the module documentation.
pub struct Zip<P, const N: usize> {
    parts: P,
    shape: [usize; N],
}

#[cfg(feature = "rayon")]
/// Pointers moved into parallel tasks; sound because `par_for_each` requires `Item: Send` and
/// hands every task disjoint rows.
struct Shared<P>(P);
// SAFETY: see the type's documentation.
#[cfg(feature = "rayon")]
unsafe impl<P> Send for Shared<P> {}
// SAFETY: see the type's documentation.
#[cfg(feature = "rayon")]
unsafe impl<P> Sync for Shared<P> {}

#[cfg(feature = "rayon")]
impl<P: Copy> Shared<P> {
    /// The pointers (a method, so closures capture the whole `Shared`, not its field).
    fn get(&self) -> P {
        self.0
    }
}

impl<P1: NdProducer<N>, const N: usize> Zip<(P1,), N> {
    /// Starts a zip over one producer.
    pub fn from(p1: P1) -> Self {
        Zip { shape: p1.shape(), parts: (p1,) }
    }
}

fn check_shape<const N: usize>(expected: [usize; N], got: [usize; N]) -> Result<()> {
    if expected == got {
        Ok(())
    } else {
        Err(Error::ShapeMismatch { op: "Zip::and", expected: expected.to_vec(), got: got.to_vec() })
    }
}

macro_rules! zip_and {
    ($([$($P:ident $p:ident),+] next $Q:ident;)*) => {$(
        impl<$($P: NdProducer<N>,)+ const N: usize> Zip<($($P,)+), N> {
            /// Adds a producer of the same shape.
            ///
            /// # Panics
            ///
            /// When its shape differs; [`Zip::try_and`] returns the error.
            #[track_caller]
            pub fn and<$Q: NdProducer<N>>(self, q: $Q) -> Zip<($($P,)+ $Q,), N> {
                or_panic(self.try_and(q))
            }

            /// Adds a producer of the same shape.
            ///
            /// # Errors
            ///
            /// `Error::ShapeMismatch` when its shape differs.
            pub fn try_and<$Q: NdProducer<N>>(self, q: $Q) -> Result<Zip<($($P,)+ $Q,), N>> {
                check_shape(self.shape, q.shape())?;
                let ($($p,)+) = self.parts;
                Ok(Zip { shape: self.shape, parts: ($($p,)+ q,) })
            }
        }
    )*};
}

zip_and! {
    [P1 p1] next P2;
    [P1 p1, P2 p2] next P3;
    [P1 p1, P2 p2, P3 p3] next P4;
    [P1 p1, P2 p2, P3 p3, P4 p4] next P5;
    [P1 p1, P2 p2, P3 p3, P4 p4, P5 p5] next P6;
    [P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6] next P7;
    [P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7] next P8;
}

/// Per arity: producer type, producer value / lane step, lane base, base pointer, row offset.
macro_rules! zip_arity {
    ($([$($P:ident $p:ident $b:ident $s:ident $r:ident),+];)*) => {$(
        impl<$($P: NdProducer<N>,)+ const N: usize> Zip<($($P,)+), N> {
            /// Calls `f` with the items at each index, in row-major order of the indices.
            pub fn for_each(self, mut f: impl FnMut($($P::Item),+)) {
                let ($($p,)+) = self.parts;
                let ($($s,)+) = ($($p.base_ptr(),)+);
                Cpu::for_each_lane(self.shape, [$($p.strides()),+], |[$($b),+], len, [$($p),+]| {
                    if true $(&& $p == 1)+ {
                        // Unit steps everywhere: plain pointer increments, which LLVM vectorizes.
                        $(let $s = $s.wrapping_offset($b);)+
                        for i in 0..len {
                            // SAFETY: as below, with every step equal to 1.
                            unsafe { f($($P::item($s.add(i))),+) };
                        }
                        return;
                    }
                    for i in 0..len as isize {
                        // SAFETY: lane offsets are in bounds for every producer; each index is
                        // visited once, so each mutable element becomes one item.
                        unsafe { f($($P::item($s.offset($b + i * $p))),+) };
                    }
                });
            }

            /// Folds the items at each index into an accumulator, in row-major order of the
            /// indices: `Zip::from(a.view()).and(b.view()).fold(0.0, |acc, &x, &y| acc + x * y)`
            /// is a dot product.
            pub fn fold<A>(self, init: A, mut f: impl FnMut(A, $($P::Item),+) -> A) -> A {
                let mut acc = Some(init);
                self.for_each(|$($p),+| {
                    let a = acc.take().expect("the accumulator is put back after every call");
                    acc = Some(f(a, $($p),+));
                });
                acc.expect("the accumulator is put back after every call")
            }

            /// A new row-major array of `f(items)` at each index.
            ///
            /// # Panics
            ///
            /// When the result cannot be allocated.
            pub fn map_collect<R: Pod>(self, mut f: impl FnMut($($P::Item),+) -> R) -> Array<R, N, Cpu, RowMajor, DefaultCheck> {
                let shape = self.shape;
                let ($($p,)+) = self.parts;
                let ($($s,)+) = ($($p.base_ptr(),)+);
                // SAFETY: the destination is fresh, written once per index in lane order; the
                // producers' lane offsets are in bounds.
                let out = unsafe {
                    collect::<R, N, DefaultCheck>("Zip::map_collect", shape, |dst| {
                        Cpu::for_each_lane(shape, [$($p.strides(),)+ dst.strides], |[$($b,)+ bd], len, [$($p,)+ sd]| {
                            for i in 0..len as isize {
                                dst.ptr.offset(bd + i * sd).write(f($($P::item($s.offset($b + i * $p))),+));
                            }
                        });
                    })
                };
                or_panic(out)
            }

            /// [`Zip::for_each`] on all threads: disjoint blocks of rows (axis 0) per task.
            #[cfg(feature = "rayon")]
            pub fn par_for_each(self, f: impl Fn($($P::Item),+) + Sync + Send)
            where
                $($P::Item: Send,)+
            {
                let ($($p,)+) = self.parts;
                let strides = [$($p.strides()),+];
                let ptrs = Shared(($($p.base_ptr(),)+));
                Cpu::for_each_row_block(self.shape, |first, block| {
                    let ($($s,)+) = ptrs.get();
                    let [$($r),+] = strides.map(|st| if N == 0 { 0 } else { first as isize * st[0] });
                    Cpu::for_each_lane(block, strides, |[$($b),+], len, [$($p),+]| {
                        for i in 0..len as isize {
                            // SAFETY: as in `for_each`, within this task's disjoint rows.
                            unsafe { f($($P::item($s.offset($r + $b + i * $p))),+) };
                        }
                    });
                });
            }
        }
    )*};
}

zip_arity! {
    [P1 p1 b1 s1 r1];
    [P1 p1 b1 s1 r1, P2 p2 b2 s2 r2];
    [P1 p1 b1 s1 r1, P2 p2 b2 s2 r2, P3 p3 b3 s3 r3];
    [P1 p1 b1 s1 r1, P2 p2 b2 s2 r2, P3 p3 b3 s3 r3, P4 p4 b4 s4 r4];
    [P1 p1 b1 s1 r1, P2 p2 b2 s2 r2, P3 p3 b3 s3 r3, P4 p4 b4 s4 r4, P5 p5 b5 s5 r5];
    [P1 p1 b1 s1 r1, P2 p2 b2 s2 r2, P3 p3 b3 s3 r3, P4 p4 b4 s4 r4, P5 p5 b5 s5 r5, P6 p6 b6 s6 r6];
    [P1 p1 b1 s1 r1, P2 p2 b2 s2 r2, P3 p3 b3 s3 r3, P4 p4 b4 s4 r4, P5 p5 b5 s5 r5, P6 p6 b6 s6 r6,
     P7 p7 b7 s7 r7];
    [P1 p1 b1 s1 r1, P2 p2 b2 s2 r2, P3 p3 b3 s3 r3, P4 p4 b4 s4 r4, P5 p5 b5 s5 r5, P6 p6 b6 s6 r6,
     P7 p7 b7 s7 r7, P8 p8 b8 s8 r8];
}

/// A [`Zip`] whose closures also receive the index of each element: [`Zip::indexed`].
pub struct IndexedZip<P, const N: usize>(Zip<P, N>);

impl<P, const N: usize> Zip<P, N> {
    /// The same walk, with the index of each element (`[usize; N]`) as the closures' first
    /// argument.
    pub fn indexed(self) -> IndexedZip<P, N> {
        IndexedZip(self)
    }
}

/// Per arity: the indexed forms, over the plain walk (which visits indices in row-major order).
macro_rules! zip_indexed {
    ($([$($P:ident $p:ident),+];)*) => {$(
        impl<$($P: NdProducer<N>,)+ const N: usize> IndexedZip<($($P,)+), N> {
            /// Calls `f` with each index and the items there, in row-major order of the indices.
            pub fn for_each(self, mut f: impl FnMut([usize; N], $($P::Item),+)) {
                // The plain walk visits indices in row-major order: the odometer names them.
                let mut indices = Odometer::new(self.0.shape, [0; N]);
                self.0.for_each(|$($p),+| {
                    let (index, _) = indices.next().expect("one index per element");
                    f(index, $($p),+);
                });
            }

            /// Folds each index and the items there into an accumulator, in row-major order.
            pub fn fold<A>(self, init: A, mut f: impl FnMut(A, [usize; N], $($P::Item),+) -> A) -> A {
                let mut indices = Odometer::new(self.0.shape, [0; N]);
                self.0.fold(init, |acc, $($p),+| {
                    let (index, _) = indices.next().expect("one index per element");
                    f(acc, index, $($p),+)
                })
            }
        }
    )*};
}

zip_indexed! {
    [P1 p1];
    [P1 p1, P2 p2];
    [P1 p1, P2 p2, P3 p3];
    [P1 p1, P2 p2, P3 p3, P4 p4];
    [P1 p1, P2 p2, P3 p3, P4 p4, P5 p5];
    [P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6];
    [P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7];
    [P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8];
}
