//! One enum variant per element type: `by_element!` runs a body with the payload of a value of
//! [`Data`](crate::array::Data) (six element types) or `CudaData` (the four real ones) and its
//! type, `element_variants!` wraps a payload of `T` into the variant for `T`. Every match lists
//! its variants, so a variant added to an enum fails to compile where it is not handled.

/// `$body` with `$s` bound to the payload of `$data` and `$T` to its type: for [`Data`]
/// (`by_element!(Data, ..)`: `F32`, `F64`, `I32`, `I64`, `C64`, `C128`), for another enum of the
/// four real types (`CudaData`), or for a `Data` known to be real (`by_element!(@real Data, ..)`,
/// after the complex variants were refused: reaching one there is a bug).
macro_rules! by_element {
    (Data, $data:expr, $s:ident, $T:ident => $body:expr) => {
        match $data {
            Data::C64($s) => {
                type $T = cnda::Complex<f32>;
                $body
            }
            Data::C128($s) => {
                type $T = cnda::Complex<f64>;
                $body
            }
            Data::F32($s) => {
                type $T = f32;
                $body
            }
            Data::F64($s) => {
                type $T = f64;
                $body
            }
            Data::I32($s) => {
                type $T = i32;
                $body
            }
            Data::I64($s) => {
                type $T = i64;
                $body
            }
        }
    };
    (@real Data, $data:expr, $s:ident, $T:ident => $body:expr) => {
        by_element!(@four Data, $data, $s, $T => $body, Data::C64(_) | Data::C128(_) => {
            unreachable!("complex data refused before")
        })
    };
    ($Enum:ident, $data:expr, $s:ident, $T:ident => $body:expr) => {
        by_element!(@four $Enum, $data, $s, $T => $body,)
    };
    (@four $Enum:ident, $data:expr, $s:ident, $T:ident => $body:expr, $($rest:tt)*) => {
        match $data {
            $($rest)*
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
        }
    };
}
pub(crate) use by_element;

/// Implements `$Trait::$method` for the four real element types (`@` and a list: for the types
/// listed): a payload of `T` wrapped into the variant of `$Enum` for `T`.
macro_rules! element_variants {
    ($Trait:ident::$method:ident($Payload:ident) -> $Enum:ident) => {
        element_variants!(@ $Trait $method $Payload $Enum: f32 => F32, f64 => F64, i32 => I32, i64 => I64);
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
