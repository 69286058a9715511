// The pool trusts a `BlockSource` for the size of every block it hands out, so implementing one
// is an `unsafe impl`: a safe one does not compile.
use cnda::pool::BlockSource;
use cnda::Cpu;

struct Tiny;

impl BlockSource for Tiny {
    type Backend = Cpu;
    type Block = Box<[u8; 1]>;

    fn alloc_block(&self, _op: &'static str, _bytes: usize) -> Result<Self::Block, cnda::Error> {
        Ok(Box::new([0]))
    }

    unsafe fn free_block(&self, _block: Self::Block, _bytes: usize) {}

    unsafe fn free_orphan(_block: Self::Block, _bytes: usize) {}
}

fn main() {}
