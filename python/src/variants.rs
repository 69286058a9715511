//! One enum variant per element type: `by_element!` runs a body with the payload of a value of
//! [`Data`](crate::array::Data) or `CudaData` (six element types each) and its type,
//! `element_variants!` wraps a payload of `T` into the variant for `T`. Every match lists its
//! variants, so a variant added to an enum fails to compile where it is not handled.

/// `$body` with `$s` bound to the payload of `$data` and `$T` to its type, for either enum of
/// the six element types (`Data`, `CudaData`: `F32`, `F64`, `I32`, `I64`, `C64`, `C128`).
macro_rules! by_element {
    ($Enum:ident, $data:expr, $s:ident, $T:ident => $body:expr) => {
        match $data {
            $Enum::F32($s) => {
                type $T = f32;
                $body
            }
            $Enum::F64($s) => {
                type $T = f64;
                $body
            }
            $Enum::I32($s) => {
                type $T = i32;
                $body
            }
            $Enum::I64($s) => {
                type $T = i64;
                $body
            }
            $Enum::C64($s) => {
                type $T = cnda::Complex<f32>;
                $body
            }
            $Enum::C128($s) => {
                type $T = cnda::Complex<f64>;
                $body
            }
        }
    };
}
pub(crate) use by_element;

/// Implements `$Trait::$method` for the six element types (`@` and a list: for the types
/// listed): a payload of `T` wrapped into the variant of `$Enum` for `T`.
macro_rules! element_variants {
    ($Trait:ident::$method:ident($Payload:ident) -> $Enum:ident) => {
        element_variants!(@ $Trait $method $Payload $Enum:
            f32 => F32, f64 => F64, i32 => I32, i64 => I64, cnda::Complex<f32> => C64, cnda::Complex<f64> => C128);
    };
    (@ $Trait:ident $method:ident $Payload:ident $Enum:ident: $($T:ty => $variant:ident),*) => {$(
        impl $Trait for $T {
            fn $method(payload: $Payload<$T>) -> $Enum {
                $Enum::$variant(payload)
            }
        }
    )*};
}
pub(crate) use element_variants;
