//! NumPy's `.npy` files (feature `npy`): any scalar element cnda has, complex included (but
//! `bf16`, which NumPy lacks) and every `structured!` element, read and written with the header handled by the `npyz`
//! crate and the data moved as raw bytes. Reading validates strictly, as interop does everywhere:
//! the rank, the element type (a structured one field by field, through
//! [`check_layout`]) and the byte order must match; Fortran-ordered
//! files are transposed into row-major arrays; a header claiming more data than the file holds is
//! an error, never an abort or a short array.
//!
//! ```
//! use cnda::prelude::*;
//! use cnda::interop::npy;
//!
//! let a = Array::from_fn([2, 3], |[i, j]| (i * 3 + j) as f32);
//! let mut file = Vec::new();
//! npy::write(&mut file, a.t()).unwrap(); // any view; written in its logical (row-major) order
//! let b: Array<f32, 2> = npy::read(file.as_slice()).unwrap();
//! assert_eq!(b, a.t().to_owned());
//! assert!(npy::read::<f64, 2>(file.as_slice()).is_err()); // wrong element type
//! ```

use std::io::{Read, Write};
use std::path::Path;

use npyz::{DType as NpyDType, Field, TypeChar, TypeStr, WriteOptions, WriterBuilder};

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::{DType, Element, Pod};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::structured::{check_layout, ByteOrder, FieldInfo, Structured};
use crate::view::{ArrayView, DynView};

/// The element layout a `.npy` header describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NpyLayout {
    /// A scalar type.
    Scalar {
        /// The type.
        dtype: DType,
        /// Its byte order.
        byte_order: ByteOrder,
    },
    /// A structured (record) type.
    Structured {
        /// The fields, offsets packed in order as `.npy` list descriptions lay them out.
        fields: Vec<FieldInfo<String>>,
        /// The record size in bytes.
        itemsize: usize,
    },
}

/// What a `.npy` header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The array's shape.
    pub shape: Vec<usize>,
    /// Whether the data is stored column-major (`fortran_order`).
    pub fortran_order: bool,
    /// The element layout.
    pub layout: NpyLayout,
}

/// An element type a `.npy` file can hold: cnda's scalars (but `bf16`) and structured elements.
pub trait NpyElement: Pod {
    /// The layout this type writes.
    fn layout() -> NpyLayout;

    /// Checks that a file's layout is exactly this type's.
    ///
    /// # Errors
    ///
    /// `Error::DType` or `Error::UnsupportedDType` for another scalar type, `Error::Structure`
    /// naming the first difference of a structured one, `Error::Layout` for a foreign byte order.
    fn check(got: &NpyLayout) -> Result<()>;
}

macro_rules! scalar_elements {
    ($($T:ty),*) => {$(
        impl NpyElement for $T {
            fn layout() -> NpyLayout {
                NpyLayout::Scalar { dtype: <$T as Element>::DTYPE, byte_order: ByteOrder::NATIVE }
            }

            fn check(got: &NpyLayout) -> Result<()> {
                check_scalar(<$T as Element>::DTYPE, got)
            }
        }
    )*};
}
scalar_elements!(
    i8,
    i16,
    i32,
    i64,
    isize,
    u8,
    u16,
    u32,
    u64,
    usize,
    half::f16,
    f32,
    f64,
    num_complex::Complex<f32>,
    num_complex::Complex<f64>
);

impl<S: Structured> NpyElement for S {
    fn layout() -> NpyLayout {
        let fields = S::FIELDS
            .iter()
            .map(|f| FieldInfo {
                name: f.name.to_string(),
                offset: f.offset,
                dtype: f.dtype,
                size: f.size,
                byte_order: f.byte_order,
            })
            .collect();
        NpyLayout::Structured { fields, itemsize: core::mem::size_of::<S>() }
    }

    fn check(got: &NpyLayout) -> Result<()> {
        match got {
            NpyLayout::Structured { fields, itemsize } => check_layout::<S>(fields, *itemsize),
            NpyLayout::Scalar { dtype, .. } => Err(Error::Structure {
                name: S::NAME,
                reason: format!("the file holds plain {dtype} elements, not records"),
            }),
        }
    }
}

fn check_scalar(expected: DType, got: &NpyLayout) -> Result<()> {
    match got {
        NpyLayout::Scalar { dtype, byte_order } if *dtype == expected => {
            if *byte_order != ByteOrder::NATIVE && dtype.size() > 1 {
                return Err(Error::Layout {
                    op: "npy::read",
                    reason: format!("the file's {dtype} elements are {byte_order:?}-endian, this machine is not"),
                    fix: "re-save it in native byte order (np.save(f, x.astype(x.dtype.newbyteorder('=')))",
                });
            }
            Ok(())
        }
        NpyLayout::Scalar { dtype, .. } => Err(Error::DType { op: "npy::read", expected, got: *dtype }),
        NpyLayout::Structured { fields, .. } => Err(Error::UnsupportedDType {
            op: "npy::read",
            got: format!("records of {} fields", fields.len()),
            fix: "read it as the matching structured! element type",
        }),
    }
}

fn io_error(op: &'static str, e: std::io::Error) -> Error {
    Error::Io { op, reason: e.to_string() }
}

/// The `.npy` type string of a scalar field.
fn type_str(dtype: DType, order: ByteOrder) -> Result<TypeStr> {
    let kind = match dtype {
        DType::F16 | DType::F32 | DType::F64 => 'f',
        DType::C64 | DType::C128 => 'c',
        DType::U8 | DType::U16 | DType::U32 | DType::U64 | DType::Usize => 'u',
        DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::Isize => 'i',
        DType::BF16 => {
            return Err(Error::UnsupportedDType {
                op: "npy::write",
                got: "bf16".into(),
                fix: "NumPy has no bfloat16; convert to f32 first",
            })
        }
    };
    let order = match (order, dtype.size()) {
        (_, 1) => '|',
        (ByteOrder::Little, _) => '<',
        (ByteOrder::Big, _) => '>',
    };
    Ok(format!("{order}{kind}{}", dtype.size()).parse().expect("a valid numeric type string"))
}

fn npy_dtype(layout: &NpyLayout) -> Result<NpyDType> {
    match layout {
        NpyLayout::Scalar { dtype, byte_order } => Ok(NpyDType::Plain(type_str(*dtype, *byte_order)?)),
        NpyLayout::Structured { fields, .. } => Ok(NpyDType::Record(
            fields
                .iter()
                .map(|f| Ok(Field { name: f.name.clone(), dtype: NpyDType::Plain(type_str(f.dtype, f.byte_order)?) }))
                .collect::<Result<_>>()?,
        )),
    }
}

/// The cnda type and byte order of a `.npy` type string.
fn scalar_of(ty: &TypeStr) -> Result<(DType, ByteOrder)> {
    let dtype = match (ty.type_char(), ty.size_field()) {
        (TypeChar::Float, 2) => DType::F16,
        (TypeChar::Float, 4) => DType::F32,
        (TypeChar::Float, 8) => DType::F64,
        (TypeChar::Complex, 8) => DType::C64,
        (TypeChar::Complex, 16) => DType::C128,
        (TypeChar::Int, 1) => DType::I8,
        (TypeChar::Int, 2) => DType::I16,
        (TypeChar::Int, 4) => DType::I32,
        (TypeChar::Int, 8) => DType::I64,
        (TypeChar::Uint, 1) => DType::U8,
        (TypeChar::Uint, 2) => DType::U16,
        (TypeChar::Uint, 4) => DType::U32,
        (TypeChar::Uint, 8) => DType::U64,
        _ => {
            return Err(Error::UnsupportedDType {
                op: "npy::read",
                got: ty.to_string(),
                fix: "cnda reads integer, floating-point and complex (complex64, complex128) files; convert the array in NumPy first",
            })
        }
    };
    let order = match ty.endianness() {
        npyz::Endianness::Little => ByteOrder::Little,
        npyz::Endianness::Big => ByteOrder::Big,
        npyz::Endianness::Irrelevant => ByteOrder::NATIVE,
    };
    Ok((dtype, order))
}

fn layout_of(dtype: &NpyDType) -> Result<NpyLayout> {
    match dtype {
        NpyDType::Plain(ty) => {
            let (dtype, byte_order) = scalar_of(ty)?;
            Ok(NpyLayout::Scalar { dtype, byte_order })
        }
        NpyDType::Record(fields) => {
            let mut offset = 0;
            let mut out = Vec::with_capacity(fields.len());
            for field in fields {
                let NpyDType::Plain(ty) = &field.dtype else {
                    return Err(Error::UnsupportedDType {
                        op: "npy::read",
                        got: format!("the nested or sub-array field `{}`", field.name),
                        fix: "structured elements hold scalar fields only",
                    });
                };
                let (dtype, byte_order) = scalar_of(ty)?;
                out.push(FieldInfo { name: field.name.clone(), offset, dtype, size: dtype.size(), byte_order });
                offset += dtype.size();
            }
            Ok(NpyLayout::Structured { fields: out, itemsize: offset })
        }
        NpyDType::Array(..) => Err(Error::UnsupportedDType {
            op: "npy::read",
            got: "a sub-array element type".into(),
            fix: "give the sub-array axes as array axes",
        }),
    }
}

/// Reads a `.npy` header, leaving `r` at the first data byte.
///
/// # Errors
///
/// `Error::Io` for a file that is not `.npy` or is cut short; `Error::UnsupportedDType` for
/// element types cnda does not hold (objects, strings, `complex256`, nested records).
pub fn read_header(r: &mut impl Read) -> Result<Header> {
    // npyz multiplies the header's shape without overflow checks, which panics in debug builds on
    // a crafted header; such a file is an error here, never a panic. (In release builds the
    // product wraps, and `read_data` recomputes the size with checks.)
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| npyz::NpyHeader::from_reader(&mut *r)));
    let header = parsed
        .map_err(|_| Error::Io { op: "npy::read", reason: "the header's shape overflows 64 bits".into() })?
        .map_err(|e| io_error("npy::read", e))?;
    let file = npyz::NpyFile::with_header(header, std::io::empty());
    let shape = file.shape().iter().map(|&n| usize::try_from(n)).collect::<core::result::Result<Vec<_>, _>>().map_err(
        |_| Error::Io { op: "npy::read", reason: format!("shape {:?} does not fit this machine", file.shape()) },
    )?;
    Ok(Header { shape, fortran_order: file.order() == npyz::Order::Fortran, layout: layout_of(&file.dtype())? })
}

/// Reads the data after `header` as a row-major buffer of all its elements (Fortran-ordered
/// files transposed).
///
/// The header is untrusted: memory grows with the bytes actually read (in chunks of at most
/// [`CHUNK_BYTES`], doubling), never with the size the header announces, so a short or lying
/// file costs at most twice its real size before the error. When the number of bytes left is
/// known (a file), [`read_data_sized`] checks it first and allocates once.
///
/// # Errors
///
/// As [`NpyElement::check`] for the element type; `Error::Overflow` or `Error::Alloc` for a shape
/// too large to hold; `Error::Io` when the data ends before the size the header announces.
pub fn read_data<T: NpyElement>(header: &Header, r: &mut impl Read) -> Result<Array<T, 1>> {
    read_data_within(header, r, None)
}

/// [`read_data`] from a source with `available` bytes left after the header (a file's length
/// minus the header's): a file shorter than its header announces is refused before any
/// allocation, and the buffer is allocated once.
///
/// # Errors
///
/// As [`read_data`]; `Error::Io` naming both sizes when `available` is too small.
pub fn read_data_sized<T: NpyElement>(header: &Header, r: &mut impl Read, available: u64) -> Result<Array<T, 1>> {
    read_data_within(header, r, Some(available))
}

/// The largest buffer [`read_data`] allocates before it has read that many bytes.
pub const CHUNK_BYTES: usize = 64 << 20;

fn read_data_within<T: NpyElement>(header: &Header, r: &mut impl Read, available: Option<u64>) -> Result<Array<T, 1>> {
    T::check(&header.layout)?;
    let size = core::mem::size_of::<T>();
    let len = crate::shape::checked_len("npy::read", &header.shape, size)?;
    let bytes = len * size; // cannot overflow: `checked_len` bounds it by isize::MAX
    let short = |got: u64, why: &str| {
        Error::Io {
        op: "npy::read",
        reason: format!(
            "the header announces shape {:?}: {len} elements of {size} bytes = {bytes} bytes of data, but {why} {got} bytes; the file is truncated or its header is wrong",
            header.shape
        ),
    }
    };
    if let Some(available) = available {
        if available < bytes as u64 {
            return Err(short(available, "the file holds only"));
        }
    }
    let first = if available.is_some() { len } else { len.min((CHUNK_BYTES / size).max(1)) };
    let mut data = Array::<T, 1>::try_zeros([first])?;
    let mut filled = 0;
    loop {
        let got = read_full(r, &mut bytemuck::cast_slice_mut(data.as_mut_slice())[filled * size..])?;
        if filled * size + got < data.len() * size {
            return Err(short((filled * size + got) as u64, "the data ends after"));
        }
        filled = data.len();
        if filled == len {
            break;
        }
        // Grow with the bytes read so far, not with the header's promise.
        let mut grown = Array::<T, 1>::try_zeros([len.min(filled.saturating_mul(2))])?;
        grown.as_mut_slice()[..filled].copy_from_slice(data.as_slice());
        data = grown;
    }
    if !header.fortran_order || header.shape.len() < 2 {
        return Ok(data);
    }
    // Column-major: the file's bytes are the array with first-axis-fastest strides; copy them
    // into row-major order through a run-time-rank view of the data.
    let mut strides = vec![1isize; header.shape.len()];
    for axis in 1..header.shape.len() {
        // Cannot overflow: `checked_len` bounded the product by isize::MAX.
        strides[axis] = strides[axis - 1] * header.shape[axis - 1] as isize;
    }
    let mut out = Array::<T, 1>::try_zeros([len])?;
    DynView::from_slice_strided(&header.shape, &strides, 0, data.as_slice())?.try_copy_to_slice(out.as_mut_slice())?;
    Ok(out)
}

/// Fills as much of `buf` as `r` can give; the count read (less than `buf.len()` only at the end
/// of the data).
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match r.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_error("npy::read", e)),
        }
    }
    Ok(done)
}

/// Reads a rank-`N` array of `T` from a `.npy` stream.
///
/// # Errors
///
/// As [`read_header`] and [`read_data`]; `Error::Layout` when the file's rank is not `N`.
pub fn read<T: NpyElement, const N: usize>(mut r: impl Read) -> Result<Array<T, N>> {
    read_within(&mut r, |_| Ok(None))
}

/// A rank-`N` array of `T` read from `r`, the data's size checked against `available` (the bytes
/// left after the header, when known) before allocating.
fn read_within<R: Read, T: NpyElement, const N: usize>(
    r: &mut R,
    available: impl FnOnce(&mut R) -> Result<Option<u64>>,
) -> Result<Array<T, N>> {
    let header = read_header(r)?;
    let shape: [usize; N] = header.shape.as_slice().try_into().map_err(|_| Error::Layout {
        op: "npy::read",
        reason: format!(
            "the file holds an array of {} dimensions (shape {:?}), not {N}",
            header.shape.len(),
            header.shape
        ),
        fix: "read it with the file's rank",
    })?;
    let available = available(r)?;
    let data = read_data_within::<T>(&header, r, available)?;
    Ok(data.into_reshaped(shape))
}

/// Reads a rank-`N` array of `T` from the `.npy` file at `path`; a file shorter than its header
/// announces is refused before any allocation.
///
/// # Errors
///
/// As [`read`]; `Error::Io` when the file cannot be opened or is shorter than its header says.
pub fn load<T: NpyElement, const N: usize>(path: impl AsRef<Path>) -> Result<Array<T, N>> {
    let file = std::fs::File::open(path.as_ref()).map_err(|e| io_error("npy::load", e))?;
    let length = file.metadata().map_err(|e| io_error("npy::load", e))?.len();
    read_within(&mut std::io::BufReader::new(file), |r| {
        let at = std::io::Seek::stream_position(r).map_err(|e| io_error("npy::load", e))?;
        Ok(Some(length.saturating_sub(at)))
    })
}

/// Writes the header of a C-ordered array of `shape` and element layout `T`.
fn write_header<T: NpyElement>(w: &mut impl Write, shape: &[usize]) -> Result<()> {
    let shape: Vec<u64> = shape.iter().map(|&n| n as u64).collect();
    WriteOptions::new_header_only()
        .dtype(npy_dtype(&T::layout())?)
        .shape(&shape)
        .writer(&mut *w)
        .write_header_only()
        .map_err(|e| io_error("npy::write", e))?;
    Ok(())
}

/// Writes `data`, the row-major elements of `shape`, as a `.npy` stream.
///
/// # Errors
///
/// `Error::LengthMismatch` when `data` does not hold the product of `shape`; `Error::Io`.
pub fn write_slice<T: NpyElement>(mut w: impl Write, shape: &[usize], data: &[T]) -> Result<()> {
    let len = crate::shape::checked_len("npy::write", shape, core::mem::size_of::<T>())?;
    if len != data.len() {
        return Err(Error::LengthMismatch { op: "npy::write", shape: shape.to_vec(), expected: len, got: data.len() });
    }
    write_header::<T>(&mut w, shape)?;
    w.write_all(bytemuck::cast_slice(data)).map_err(|e| io_error("npy::write", e))?;
    w.flush().map_err(|e| io_error("npy::write", e))
}

/// Writes the view `a` as a `.npy` stream, in its logical row-major order (any layout; a
/// non-contiguous view is copied once).
///
/// # Errors
///
/// `Error::Io`; `Error::Alloc` when a non-contiguous view's copy cannot be allocated.
pub fn write<T: NpyElement, const N: usize, L: Layout, C: BoundsCheck>(
    w: impl Write,
    a: ArrayView<'_, T, N, L, C>,
) -> Result<()> {
    if let Ok(dense) = a.try_layout::<crate::layout::RowMajor>() {
        return write_slice(w, &a.shape(), dense.as_slice());
    }
    let copy = a.try_to_owned()?;
    write_slice(w, &a.shape(), copy.as_slice())
}

/// Writes the view `a` to a `.npy` file at `path`.
///
/// # Errors
///
/// As [`write()`]; `Error::Io` when the file cannot be created.
pub fn save<T: NpyElement, const N: usize, L: Layout, C: BoundsCheck>(
    path: impl AsRef<Path>,
    a: ArrayView<'_, T, N, L, C>,
) -> Result<()> {
    let file = std::fs::File::create(path.as_ref()).map_err(|e| io_error("npy::save", e))?;
    write(std::io::BufWriter::new(file), a)
}
