// `#[repr(packed)]` lowers the element's alignment to 1, so a slice of elements may start at an
// odd address and a field view would hand out misaligned `&u32`s: refused at compile time.
cnda::structured! {
    #[repr(packed)]
    pub struct Packed (PackedSoa) {
        pub id: u32,
        pub mass: f32,
    }
}

fn main() {}
