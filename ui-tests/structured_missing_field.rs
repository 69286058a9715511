// Field handles are generated per field: a misspelled field name does not compile.
use cnda::prelude::*;

cnda::structured! {
    pub struct Vec3 (Vec3Soa) {
        pub x: f32,
        pub y: f32,
        pub z: f32,
    }
}

fn main() {
    let a = Array::<Vec3, 1>::zeros([4]);
    let _ = a.field(Vec3::w);
}
