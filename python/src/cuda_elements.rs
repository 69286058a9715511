//! The element types `CudaArray` arithmetic and reductions compute in, and the Python and NumPy
//! scalars that convert to each: float32, float64, int32, int64, complex64 and complex128, with
//! what NumPy's rules ask of each (Python scalars are weak, NEP 50: `float32 + 0.1` stays
//! float32 and `complex64 * 2j` complex64; a float never becomes an int, a complex never a real;
//! NumPy scalars are strong: they must not promote the array's dtype). Complex numbers have no
//! order: their `min` and `max` are refused here.

use cnda::backend::cuda::Cuda;
use cnda::layout::RowMajor;
use cnda::{Arithmetic, Array, Complex, Dec, Rank, Shared, View};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyComplex, PyFloat};

use crate::cuda::OnDevice;
use crate::cuda_ops::caught;
use crate::errors::to_pyerr;

/// What numbers an element type holds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Int,
    Float,
    Complex,
}

/// The element types CudaArray ops compute in, with what the operators and reductions need of
/// each.
pub trait Compute: OnDevice + Arithmetic + for<'py> IntoPyObject<'py> {
    /// The NumPy name of the type.
    const NAME: &'static str;
    /// Its kind (which Python scalars convert to it, which ops it has).
    const KIND: Kind;

    /// A Python int as this integer type, when in its range (`None` for the other types: ints
    /// reach them through `from_f64`, as NumPy converts ints too large for int64).
    fn from_i64(value: i64) -> Option<Self>;

    /// A Python float as this type (rounded), unless the type is an integer one.
    fn from_f64(value: f64) -> Option<Self>;

    /// A Python complex as this type (rounded), if the type is a complex one.
    fn from_complex(value: Complex<f64>) -> Option<Self>;

    /// The smallest (`largest` false) or largest element, `None` when there is none; complex
    /// numbers have no order, and are a `TypeError`.
    fn extreme(a: &Array<Self, 1, Cuda>, largest: bool) -> PyResult<Option<Self>>;

    /// As [`extreme`](Self::extreme) along `axis` of `v`.
    fn extreme_axis<const N: usize, const M: usize>(
        v: View<'_, Self, N, Shared, Cuda, RowMajor>,
        axis: usize,
        largest: bool,
    ) -> PyResult<Option<Array<Self, M, Cuda>>>
    where
        Rank<N>: Dec<Output = Rank<M>>;

    /// `sums` divided by `count`, in place (a mean's last step; complex sums part by part, as
    /// dividing by `count + 0i` would square `count` and overflow early).
    fn divide_by_count(sums: &mut Array<Self, 1, Cuda>, count: usize) -> PyResult<()>;
}

macro_rules! real {
    ($($T:ty => $name:literal $kind:ident, |$i:ident| $from_i64:expr, |$f:ident| $from_f64:expr;)*) => {$(
        impl Compute for $T {
            const NAME: &'static str = $name;
            const KIND: Kind = Kind::$kind;

            fn from_i64($i: i64) -> Option<Self> {
                $from_i64
            }

            fn from_f64($f: f64) -> Option<Self> {
                $from_f64
            }

            fn from_complex(_: Complex<f64>) -> Option<Self> {
                None
            }

            fn extreme(a: &Array<Self, 1, Cuda>, largest: bool) -> PyResult<Option<Self>> {
                caught(if largest { "max" } else { "min" }, || if largest { a.max() } else { a.min() })
            }

            fn extreme_axis<const N: usize, const M: usize>(
                v: View<'_, Self, N, Shared, Cuda, RowMajor>,
                axis: usize,
                largest: bool,
            ) -> PyResult<Option<Array<Self, M, Cuda>>>
            where
                Rank<N>: Dec<Output = Rank<M>>,
            {
                if largest { v.try_max_axis::<M>(axis) } else { v.try_min_axis::<M>(axis) }.map_err(to_pyerr)
            }

            fn divide_by_count(sums: &mut Array<Self, 1, Cuda>, count: usize) -> PyResult<()> {
                sums.try_div_assign(<$T>::from_usize(count)).map_err(to_pyerr)
            }
        }
    )*};
}

// Float conversions round as NumPy's; an integer type takes integers in its range only.
real! {
    f32 => "float32" Float, |_i| None, |f| Some(f as f32);
    f64 => "float64" Float, |_i| None, |f| Some(f);
    i32 => "int32" Int, |i| i32::try_from(i).ok(), |_f| None;
    i64 => "int64" Int, |i| Some(i), |_f| None;
}

macro_rules! complex {
    ($($F:ty => $name:literal;)*) => {$(
        impl Compute for Complex<$F> {
            const NAME: &'static str = $name;
            const KIND: Kind = Kind::Complex;

            fn from_i64(_: i64) -> Option<Self> {
                None
            }

            fn from_f64(value: f64) -> Option<Self> {
                Some(Complex::new(value as $F, 0.0))
            }

            fn from_complex(value: Complex<f64>) -> Option<Self> {
                Some(Complex::new(value.re as $F, value.im as $F))
            }

            fn extreme(_: &Array<Self, 1, Cuda>, largest: bool) -> PyResult<Option<Self>> {
                Err(unordered(largest))
            }

            fn extreme_axis<const N: usize, const M: usize>(
                _: View<'_, Self, N, Shared, Cuda, RowMajor>,
                _: usize,
                largest: bool,
            ) -> PyResult<Option<Array<Self, M, Cuda>>>
            where
                Rank<N>: Dec<Output = Rank<M>>,
            {
                Err(unordered(largest))
            }

            fn divide_by_count(sums: &mut Array<Self, 1, Cuda>, count: usize) -> PyResult<()> {
                let (mut re, mut im) = sums.parts_mut();
                let count = count as $F;
                re.try_div_assign(count).and_then(|()| im.try_div_assign(count)).map_err(to_pyerr)
            }
        }
    )*};
}

complex! {
    f32 => "complex64";
    f64 => "complex128";
}

/// The refusal of `min`/`max` of complex numbers.
fn unordered(largest: bool) -> PyErr {
    let name = if largest { "max" } else { "min" };
    PyTypeError::new_err(format!(
        "{name}: complex numbers have no order, and CudaArray's {name} compares (NumPy orders complex numbers by \
         real part, then imaginary part, which is rarely what a physical quantity means); reduce a real array, such as \
         the magnitudes: cnda.to_cuda(np.abs(a.to_numpy())), or compare on the host: a.to_numpy().{name}()"
    ))
}

/// A Python int, float or complex as `T`, or `TypeError` when `T` cannot hold it; `op` names the
/// operation in the message.
pub fn python_scalar<T: Compute>(op: &str, x: &Bound<'_, PyAny>) -> PyResult<T> {
    let t = T::NAME;
    if x.is_instance_of::<PyComplex>() {
        let value: Complex<f64> = x.extract()?;
        return T::from_complex(value).ok_or_else(|| {
            // NumPy's weak complex scalar keeps a float32 array's precision.
            let wide = if t == "float32" { "complex64" } else { "complex128" };
            PyTypeError::new_err(format!(
                "{op}: {t} cannot hold the Python complex {value} (NumPy computes {t} with a complex in {wide}, and \
                 CudaArray ops keep the array's dtype: the device does not convert types); convert the array first: \
                 cnda.to_cuda(a.to_numpy().astype(np.{wide}))"
            ))
        });
    }
    if x.is_instance_of::<PyFloat>() {
        let value: f64 = x.extract()?;
        return T::from_f64(value).ok_or_else(|| {
            let hint = if value.fract() == 0.0 && value.abs() < 9.0e15 {
                format!("pass the int {} instead, or ", value as i64)
            } else {
                String::new()
            };
            PyTypeError::new_err(format!(
                "{op}: {t} cannot hold the Python float {value:?} (NumPy computes {t} with a float in float64, and \
                 CudaArray ops keep the array's dtype: the device does not convert types); {hint}convert the array \
                 first: cnda.to_cuda(a.to_numpy().astype(np.float64))"
            ))
        });
    }
    if T::KIND != Kind::Int {
        // Through f64, as NumPy converts an int too large for int64 into a float.
        let value: f64 = x
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("{op}: {t} cannot hold the Python int {x}: it is too large")))?;
        return Ok(T::from_f64(value).expect("a float or complex type holds any float"));
    }
    x.extract::<i64>().ok().and_then(T::from_i64).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{op}: {t} cannot hold the Python int {x} (out of bounds for {t}); use a smaller value, or an int64 \
             CudaArray"
        ))
    })
}

/// A NumPy scalar as `T`, when NumPy's promotion of it with a `T` array gives `T` (strong scalars,
/// NEP 50); else `TypeError` naming both dtypes.
pub fn numpy_scalar<T: Compute>(op: &str, x: &Bound<'_, PyAny>) -> PyResult<T> {
    let np = x.py().import("numpy")?;
    let dtype = x.getattr("dtype")?;
    let promoted: Option<String> =
        np.call_method1("result_type", (T::NAME, &dtype)).and_then(|d| d.getattr("name")?.extract()).ok();
    if promoted.as_deref() != Some(T::NAME) {
        let to = promoted.map(|p| format!("promotes to {p} in NumPy")).unwrap_or_else(|| "does not combine".into());
        return Err(PyTypeError::new_err(format!(
            "{op}: a NumPy {dtype} scalar with a {t} CudaArray {to}, and CudaArray ops keep the array's dtype (the \
             device does not convert types); pass a Python number (float(x), int(x), complex(x)) or a {t} scalar \
             (np.{t}(x))",
            t = T::NAME
        )));
    }
    python_scalar::<T>(op, &x.call_method0("item")?)
}
