//! PTX modules: the text NVRTC emits, lexed (`lex.rs`), parsed into functions with resolved
//! registers, symbols and labels (`parse.rs`), each instruction decoded once into the compact
//! form of `ir.rs` (`decode.rs`). Nothing is looked up by name at run time.

pub mod decode;
pub mod ir;
pub mod lex;
pub mod parse;

pub use ir::{Function, Module};
pub use parse::parse_module;
