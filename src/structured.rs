//! Structured (array-of-structs) elements: `#[repr(C)]` Pod structs with field metadata, zero-copy
//! per-field strided views, and conversion to and from a struct of arrays.
//!
//! ```
//! use cnda::prelude::*;
//!
//! cnda::structured! {
//!     /// One particle.
//!     #[derive(Debug, PartialEq)]
//!     pub struct Particle (ParticleSoa) {
//!         pub x: f32,
//!         pub y: f32,
//!         pub vx: f32,
//!         pub mass: f32,
//!     }
//! }
//!
//! let mut ps = Array::from_fn([2, 3], |[i, j]| Particle { x: (i * 3 + j) as f32, y: 0.0, vx: 1.0, mass: 2.0 });
//! // A zero-copy view of one field: an `ArrayView<f32, 2, Strided>` (stride 4 elements).
//! let x = ps.field(Particle::x);
//! assert_eq!((x.shape(), x.strides()), ([2, 3], [12, 4]));
//! assert_eq!(x.sum(), 15.0);
//! // Every field at once, mutably: x += vx * dt in place, no copy.
//! let (mut x, _y, vx, _mass) = Particle::fields_mut(ps.view_mut());
//! x.zip_mut_with(&vx, |x, v| *x += v * 1.0);
//! // Struct of arrays and back.
//! let soa = ParticleSoa::aos_to_soa(ps.view());
//! assert_eq!(soa.x.as_slice(), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
//! assert_eq!(soa.soa_to_aos().unwrap(), ps);
//! ```
//!
//! `structured!` declares the struct `#[repr(C)]` with `Clone`, `Copy`, `Pod` and `Zeroable`
//! (do not derive those yourself), checks at compile time that it has no padding and that every
//! field's offset and the struct's size are multiples of the field's size (so a field view has
//! whole-element strides), and generates:
//! - one associated constant per field (`Particle::x: Field<Particle, f32>`) for `field` /
//!   `field_mut`; a misspelled field name is a compile error;
//! - `Particle::fields(view)` / `Particle::fields_mut(view)`: a tuple with one view per field, in
//!   declaration order, so several fields are borrowed at once (some mutably);
//! - `Structured::FIELDS`, the runtime description (name, offset, dtype, size, byte order) that
//!   interop validates foreign structured dtypes against with [`check_fields`];
//! - the struct of arrays `ParticleSoa<N>` (one `Array<F, N>` per field) with `aos_to_soa` and
//!   `soa_to_aos`.

use core::marker::PhantomData;

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::{DType, Element, Pod};
use crate::error::{Error, Result};
use crate::kernel::HostAccessible;
use crate::layout::{Layout, Strided};
use crate::raw::RawParts;
use crate::view::{ArrayView, ArrayViewMut};

/// Byte order of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ByteOrder {
    /// Least significant byte first.
    Little,
    /// Most significant byte first.
    Big,
}

impl ByteOrder {
    /// The byte order of this machine.
    pub const NATIVE: ByteOrder = if cfg!(target_endian = "little") { ByteOrder::Little } else { ByteOrder::Big };
}

/// The runtime description of one field of a structured element. The name is a `&'static str`
/// in `Structured::FIELDS`; a description read from foreign metadata (a NumPy dtype, an `.npy`
/// header) owns its names (`FieldInfo<String>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FieldInfo<Name = &'static str> {
    /// Field name.
    pub name: Name,
    /// Byte offset within the struct.
    pub offset: usize,
    /// Element type.
    pub dtype: DType,
    /// Size in bytes.
    pub size: usize,
    /// Byte order.
    pub byte_order: ByteOrder,
}

/// A structured element: a padding-free `#[repr(C)]` Pod struct of scalar fields. Implemented by
/// the `structured!` macro.
///
/// # Safety
///
/// `FIELDS` lists every field with its true offset, type and size, in declaration order; the
/// struct has no padding; and its alignment is a multiple of every field's (so no
/// `#[repr(packed)]`: a field view of an element slice at any address must hand out aligned
/// references; `field_by_name` also checks this).
pub unsafe trait Structured: Pod {
    /// The struct's name, for error messages.
    const NAME: &'static str;
    /// The fields, in declaration order.
    const FIELDS: &'static [FieldInfo];
}

/// A typed handle to field `F` of structured element `S` (the associated constants `structured!`
/// generates, e.g. `Particle::x`).
pub struct Field<S, F> {
    offset: usize,
    types: PhantomData<fn() -> (S, F)>,
}

impl<S, F> Clone for Field<S, F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S, F> Copy for Field<S, F> {}

impl<S: Structured, F: Element> Field<S, F> {
    /// # Safety
    ///
    /// `S` has a field of type `F` at byte `offset`, `size_of::<S>()` and `offset` are multiples of
    /// `size_of::<F>()`, and `align_of::<S>()` is a multiple of `align_of::<F>()`.
    #[doc(hidden)]
    pub const unsafe fn new_unchecked(offset: usize) -> Self {
        Field { offset, types: PhantomData }
    }

    /// The field's byte offset.
    pub fn offset(&self) -> usize {
        self.offset
    }
}

/// Checks a foreign structured layout (`got`, e.g. from a NumPy dtype) against `S`'s, strictly:
/// the same number of fields, the same names in the same order, the same types, sizes, offsets
/// and byte order.
///
/// # Errors
///
/// `Error::Structure` naming the first difference.
pub fn check_fields<S: Structured>(got: &[FieldInfo<impl AsRef<str>>]) -> Result<()> {
    let expected = S::FIELDS;
    let fail = |reason: String| Err(Error::Structure { name: S::NAME, reason });
    if expected.len() != got.len() {
        return fail(format!("expected {} fields, got {}", expected.len(), got.len()));
    }
    for (k, (e, g)) in expected.iter().zip(got).enumerate() {
        let name = g.name.as_ref();
        if e.name != name {
            return fail(format!("field {k} must be `{}`, got `{name}`", e.name));
        }
        if e.dtype != g.dtype || e.size != g.size {
            return fail(format!(
                "field `{}` requires {} ({} bytes), got {} ({} bytes)",
                e.name, e.dtype, e.size, g.dtype, g.size
            ));
        }
        if e.offset != g.offset {
            return fail(format!("field `{}` must sit at byte {}, got byte {}", e.name, e.offset, g.offset));
        }
        if e.byte_order != g.byte_order {
            return fail(format!(
                "field `{}` must be {:?}-endian, got {:?}-endian",
                e.name, e.byte_order, g.byte_order
            ));
        }
    }
    Ok(())
}

/// [`check_fields`], and that a foreign element of `itemsize` bytes is exactly `S`'s size (a
/// larger one has trailing bytes `S` does not describe, as NumPy's `align=True` dtypes may).
///
/// # Errors
///
/// `Error::Structure` naming the first difference.
pub fn check_layout<S: Structured>(got: &[FieldInfo<impl AsRef<str>>], itemsize: usize) -> Result<()> {
    check_fields::<S>(got)?;
    let size = core::mem::size_of::<S>();
    if itemsize != size {
        return Err(Error::Structure {
            name: S::NAME,
            reason: format!("elements must be {size} bytes, got {itemsize} (the fields match; the rest is padding)"),
        });
    }
    Ok(())
}

/// The raw parts of field `F` at byte `offset` of every element of `raw`.
pub(crate) fn field_parts<S: Pod, F: Pod, const N: usize, L: Layout>(
    raw: RawParts<S, N, L>,
    offset: usize,
) -> RawParts<F, N, Strided> {
    let ratio = (core::mem::size_of::<S>() / core::mem::size_of::<F>()) as isize;
    let strides = raw.strides().map(|s| s * ratio);
    let ptr = raw.ptr.cast::<u8>().wrapping_add(offset).cast::<F>();
    RawParts::<F, N, Strided>::strided(ptr, raw.shape, strides)
}

/// A mutable view of one field of `view`'s elements, without consuming `view`: what
/// `structured!`'s `fields_mut` calls once per field.
///
/// # Safety
///
/// For as long as the result lives, no other view of the same field of these elements exists
/// (distinct fields of a padding-free struct are disjoint bytes, so one view per field is fine),
/// and `view` itself is not used.
#[doc(hidden)]
pub unsafe fn field_view_mut<'a, S: Structured, F: Element, const N: usize, L: Layout, C: BoundsCheck>(
    view: &ArrayViewMut<'a, S, N, L, C>,
    field: Field<S, F>,
) -> ArrayViewMut<'a, F, N, Strided, C> {
    // SAFETY: `Field` guarantees a field of type `F` at that offset with whole-element strides;
    // exclusivity is the caller's contract.
    unsafe { ArrayViewMut::from_raw(field_parts(view.raw, field.offset)) }
}

fn field_info<S: Structured>(name: &str) -> Result<&'static FieldInfo> {
    S::FIELDS.iter().find(|f| f.name == name).ok_or_else(|| Error::Structure {
        name: S::NAME,
        reason: format!(
            "there is no field `{name}`; the fields are {:?}",
            S::FIELDS.iter().map(|f| f.name).collect::<Vec<_>>()
        ),
    })
}

impl<'a, S: Structured, const N: usize, L: Layout, C: BoundsCheck> ArrayView<'a, S, N, L, C> {
    /// A zero-copy view of one field of every element.
    pub fn field<F: Element>(self, field: Field<S, F>) -> ArrayView<'a, F, N, Strided, C> {
        // SAFETY: `Field` guarantees a field of type `F` at that offset with whole-element
        // strides; the field values of this view's elements are valid for 'a.
        unsafe { ArrayView::from_raw(field_parts(self.raw, field.offset)) }
    }

    /// A zero-copy view of the field named `name`, checked at run time.
    ///
    /// # Errors
    ///
    /// `Error::Structure` when there is no such field, `Error::DType` when it is not of type `F`.
    pub fn field_by_name<F: Element>(self, name: &str) -> Result<ArrayView<'a, F, N, Strided, C>> {
        let info = field_info::<S>(name)?;
        if info.dtype != F::DTYPE {
            return Err(Error::DType { op: "field_by_name", expected: info.dtype, got: F::DTYPE });
        }
        let (size, whole) = (core::mem::size_of::<F>(), core::mem::size_of::<S>());
        let fits = info.size == size
            && info.offset.checked_add(size).is_some_and(|end| end <= whole)
            && info.offset % size == 0
            && whole % size == 0
            // A field of a packed element at an odd address would be misaligned.
            && core::mem::align_of::<S>() % core::mem::align_of::<F>() == 0;
        if !fits {
            return Err(Error::Structure {
                name: S::NAME,
                reason: format!(
                    "field `{name}` ({} bytes at byte {}) does not tile a {whole}-byte element as a {size}-byte {}",
                    info.size,
                    info.offset,
                    F::DTYPE
                ),
            });
        }
        // SAFETY: `Element` is sealed, so `F::DTYPE` is `F`'s true type; the checks above put a
        // whole `F` inside `S` at an offset and struct size that are multiples of its size, in an
        // element whose alignment is a multiple of `F`'s.
        Ok(self.field(unsafe { Field::new_unchecked(info.offset) }))
    }
}

impl<'a, S: Structured, const N: usize, L: Layout, C: BoundsCheck> ArrayViewMut<'a, S, N, L, C> {
    /// A zero-copy mutable view of one field of every element.
    pub fn field<F: Element>(self, field: Field<S, F>) -> ArrayViewMut<'a, F, N, Strided, C> {
        // SAFETY: as for `ArrayView::field`; distinct elements have distinct fields, and any bit
        // pattern written to a field leaves a valid Pod struct.
        unsafe { ArrayViewMut::from_raw(field_parts(self.raw, field.offset)) }
    }
}

impl<S: Structured, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> Array<S, N, B, L, C> {
    /// A zero-copy view of one field of every element; see [`ArrayView::field`].
    pub fn field<F: Element>(&self, field: Field<S, F>) -> ArrayView<'_, F, N, Strided, C> {
        self.host_view().field(field)
    }

    /// A zero-copy mutable view of one field of every element.
    pub fn field_mut<F: Element>(&mut self, field: Field<S, F>) -> ArrayViewMut<'_, F, N, Strided, C> {
        self.host_view_mut().field(field)
    }

    /// See [`ArrayView::field_by_name`].
    ///
    /// # Errors
    ///
    /// As for [`ArrayView::field_by_name`].
    pub fn field_by_name<F: Element>(&self, name: &str) -> Result<ArrayView<'_, F, N, Strided, C>> {
        self.host_view().field_by_name(name)
    }
}

/// Declares a structured element type; see the [module documentation](mod@crate::structured).
#[macro_export]
macro_rules! structured {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident ($soa:ident) {
            $($fvis:vis $field:ident : $fty:ty),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy)]
        #[repr(C)]
        $vis struct $name {
            $($fvis $field: $fty),+
        }

        const _: () = {
            let mut fields = 0;
            $(fields += ::core::mem::size_of::<$fty>();)+
            assert!(
                ::core::mem::size_of::<$name>() == fields,
                concat!("structured element `", stringify!($name), "` has padding: reorder its fields or add explicit padding fields")
            );
            $(
                assert!(
                    ::core::mem::size_of::<$name>() % ::core::mem::size_of::<$fty>() == 0
                        && ::core::mem::offset_of!($name, $field) % ::core::mem::size_of::<$fty>() == 0,
                    concat!("field `", stringify!($field), "` of `", stringify!($name), "` does not sit on a whole-element stride: its offset and the struct size must be multiples of its size")
                );
                // A field view hands out `&$fty` at `element address + offset`: that is aligned
                // only when the field's alignment divides the element's (`#[repr(packed)]` makes
                // the element's alignment 1, so a slice of elements may start at any address).
                assert!(
                    ::core::mem::align_of::<$name>() % ::core::mem::align_of::<$fty>() == 0,
                    concat!("field `", stringify!($field), "` of `", stringify!($name), "` would be misaligned: the element's alignment must be a multiple of every field's (remove #[repr(packed)]; structured elements are already free of padding)")
                );
            )+
        };

        // SAFETY: `#[repr(C)]`, every field is a Pod scalar (`Element`), and the assertion above
        // proves there is no padding, so every bit pattern is a valid value and zero is one.
        unsafe impl $crate::bytemuck::Zeroable for $name {}
        // SAFETY: as above; the struct is `Copy` and `'static`.
        unsafe impl $crate::bytemuck::Pod for $name {}

        // SAFETY: the fields are listed in declaration order with `offset_of!` offsets and their
        // own types' dtypes and sizes.
        unsafe impl $crate::structured::Structured for $name {
            const NAME: &'static str = stringify!($name);
            const FIELDS: &'static [$crate::structured::FieldInfo] = &[$(
                $crate::structured::FieldInfo {
                    name: stringify!($field),
                    offset: ::core::mem::offset_of!($name, $field),
                    dtype: <$fty as $crate::Element>::DTYPE,
                    size: ::core::mem::size_of::<$fty>(),
                    byte_order: $crate::structured::ByteOrder::NATIVE,
                },
            )+];
        }

        impl $name {
            /// Shared views of every field at once, in declaration order (zero-copy, strided).
            #[allow(clippy::type_complexity)]
            pub fn fields<'a, const N: usize, L: $crate::Layout, C: $crate::BoundsCheck>(
                view: $crate::ArrayView<'a, $name, N, L, C>,
            ) -> ($($crate::ArrayView<'a, $fty, N, $crate::Strided, C>,)+) {
                ($(view.field($name::$field),)+)
            }

            /// Mutable views of every field at once, in declaration order: read some fields while
            /// writing others (`x += vx * dt`) with no copy.
            #[allow(clippy::type_complexity)]
            pub fn fields_mut<'a, const N: usize, L: $crate::Layout, C: $crate::BoundsCheck>(
                view: $crate::ArrayViewMut<'a, $name, N, L, C>,
            ) -> ($($crate::ArrayViewMut<'a, $fty, N, $crate::Strided, C>,)+) {
                // SAFETY: one view per field; distinct fields of this padding-free `repr(C)`
                // struct are disjoint bytes, and `view` is consumed here.
                unsafe { ($($crate::structured::field_view_mut(&view, $name::$field),)+) }
            }
        }

        #[allow(non_upper_case_globals)]
        impl $name {
            $(
                #[doc = concat!("Handle to the field `", stringify!($field), "`, for `field` / `field_mut`.")]
                pub const $field: $crate::structured::Field<$name, $fty> =
                    // SAFETY: `offset_of!` is the field's offset; the assertion above checked the
                    // whole-element stride conditions.
                    unsafe { $crate::structured::Field::new_unchecked(::core::mem::offset_of!($name, $field)) };
            )+
        }

        #[doc = concat!("`", stringify!($name), "` as a struct of arrays: one array per field.")]
        #[derive(Clone, Debug)]
        $vis struct $soa<const N: usize> {
            $(
                #[doc = concat!("The `", stringify!($field), "` field of every element.")]
                pub $field: $crate::Array<$fty, N>,
            )+
        }

        impl<const N: usize> $soa<N> {
            /// Copies each field of `aos` into its own row-major array.
            pub fn aos_to_soa<L: $crate::Layout, C: $crate::BoundsCheck>(aos: $crate::ArrayView<'_, $name, N, L, C>) -> Self {
                $soa { $($field: aos.field($name::$field).to_owned().with_check()),+ }
            }

            /// Interleaves the fields back into an array of structs.
            ///
            /// # Errors
            ///
            /// `Error::ShapeMismatch` when the field arrays differ in shape.
            pub fn soa_to_aos(&self) -> $crate::Result<$crate::Array<$name, N>> {
                let shapes = [$(self.$field.shape()),+];
                if let Some(other) = shapes.iter().find(|s| **s != shapes[0]) {
                    return Err($crate::Error::ShapeMismatch { op: "soa_to_aos", expected: shapes[0].to_vec(), got: other.to_vec() });
                }
                let mut out = $crate::Array::<$name, N>::try_zeros(shapes[0])?;
                $(out.field_mut($name::$field).assign(&self.$field);)+
                Ok(out)
            }
        }
    };
}
