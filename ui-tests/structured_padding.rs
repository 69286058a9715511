// A structured element may not contain padding bytes (they would be uninitialized memory).
cnda::structured! {
    pub struct Mixed (MixedSoa) {
        pub flag: u8,
        pub value: f64,
    }
}

fn main() {}
