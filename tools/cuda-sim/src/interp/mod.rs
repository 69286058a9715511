//! The PTX interpreter: a launch runs its grid block by block (`block.rs`), the threads of a
//! block one after another between barriers in a seeded random order, each thread stepping its
//! own program counter (`thread.rs`). Arithmetic is one file per instruction family (`int.rs`,
//! `float.rs`, `cvt.rs`), memory access one (`mem.rs`), and the shared-memory race checker one
//! (`race.rs`).

pub mod block;
pub mod cvt;
pub mod float;
pub mod int;
pub mod mem;
pub mod race;
pub mod thread;

pub use block::{launch, LaunchConfig};
