// `Operand::combine` hands a raw descriptor to the kernels, which read through it unchecked: it
// is an `unsafe fn`, so safe code cannot pass it a made-up descriptor.
use cnda::kernel::tokens::Add;
use cnda::kernel::Desc;
use cnda::prelude::*;
use cnda::Operand;

fn main() {
    let b = Array::<f64, 1>::zeros([4]);
    let made_up = Desc::<Cpu, f64, 1> { handle: 0x10 as *mut f64, shape: [1 << 20], strides: [1] };
    let _ = Operand::<f64, 1, Cpu>::combine(&b, &b.allocator(), Add, made_up);
}
