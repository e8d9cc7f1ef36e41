//! Derive macros for `bitpack`: `#[derive(BitElement)]` and
//! `#[derive(DeviceCopy)]`.
//!
//! Use them through the `bitpack` crate, which re-exports each beside its
//! trait; the user documentation is on those re-exports.
//!
//! Every entry point parses the input ([`ast`]), reads its attributes
//! ([`attr`], [`repr`]), checks what needs no type information ([`check`]),
//! collecting every error with the span of the token at fault, and emits one
//! `const _: () = { ... };` block ([`expand`]): the impl, and the layout
//! proofs that need type information as items for rustc to evaluate. On
//! error it emits the errors and a stub impl ([`fallback`]).

mod ast;
mod attr;
mod check;
mod expand;
mod fallback;
mod repr;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `bitpack::BitElement`. Documented on the re-export in `bitpack`.
#[proc_macro_derive(BitElement, attributes(bitwidth, bitpack))]
pub fn derive_bit_element(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::bit_element::derive(&input).into()
}

/// Derives `bitpack::DeviceCopy`. Documented on the re-export in `bitpack`.
#[proc_macro_derive(DeviceCopy, attributes(bitpack))]
pub fn derive_device_copy(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::device_copy::derive(&input).into()
}
