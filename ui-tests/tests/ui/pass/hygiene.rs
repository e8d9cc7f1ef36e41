//! The generated code names everything by absolute path and prefixes its own
//! locals, so it compiles beside user items that shadow the names it uses:
//! primitive type names, `core`, `assert`, a constant named like a parameter,
//! and traits named like bitpack's. It also adds no warning under strict
//! lints, and the `BitElement` derive needs no `unsafe`.
#![forbid(unsafe_code)]
#![deny(warnings, missing_docs, unused_qualifications, unused_results, clippy::all)]

#[allow(non_camel_case_types, dead_code)]
struct u8;
#[allow(non_camel_case_types, dead_code)]
struct u32;
#[allow(non_camel_case_types, dead_code)]
struct u128;
#[allow(non_camel_case_types, dead_code)]
struct usize;
#[allow(dead_code)]
mod core {}
#[allow(unused_macros)]
macro_rules! assert {
    ($($t:tt)*) => {
        compile_error!("the user's `assert!` was called")
    };
}
#[allow(non_upper_case_globals, dead_code)]
const raw: i32 = 0;
#[allow(dead_code)]
trait BitElement {}
#[allow(dead_code)]
trait Unsigned {}

/// A narrow newtype.
#[derive(Clone, Copy, Debug, PartialEq, bitpack::BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
pub struct Float4(pub std::primitive::u8);

/// An aggregate.
#[derive(Clone, Copy, Debug, PartialEq, bitpack::BitElement)]
#[repr(C)]
pub struct Rgb {
    /// Red.
    pub r: std::primitive::u8,
    /// Green.
    pub g: std::primitive::u8,
    /// Blue.
    pub b: std::primitive::u8,
}

/// An enum.
#[derive(Clone, Copy, Debug, PartialEq, bitpack::BitElement)]
#[repr(u8)]
pub enum Lane {
    /// 0.
    A,
    /// 1.
    B,
}

/// A generic wrapper.
#[derive(Clone, Copy, Debug, PartialEq, bitpack::BitElement)]
#[repr(transparent)]
#[bitwidth(2)]
pub struct Low2<T>(pub T);

fn main() {
    use bitpack::BitElement as _;
    std::assert_eq!(Float4(0xF3).raw_bits(), 3);
    std::assert_eq!(Rgb { r: 1, g: 2, b: 3 }.raw_bits(), 0x030201);
    std::assert_eq!(Lane::B.raw_bits(), 1);
    std::assert_eq!(Low2(7u16).raw_bits(), 3);
}
