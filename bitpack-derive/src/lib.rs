//! Derive macros for `bitpack` (the package `bitpacked`):
//! `#[derive(BitElement)]` and `#[derive(DeviceCopy)]`.
//!
//! Use them through the `bitpack` crate, which re-exports each beside its
//! trait; the user documentation is on those re-exports.

// Every entry point parses the input (`ast`), reads its attributes (`attr`,
// `repr`), checks what needs no type information (`check`), collecting
// every error with the span of the token at fault, and emits one
// `const _: () = { ... };` block (`expand`): the impl, and the layout proofs
// that need type information as items for rustc to evaluate. On error it
// emits the errors and a stub impl (`fallback`). Errors are collected in a
// `ctxt::Ctxt`, which must be checked before it is dropped.

// Which file uses which (`use crate::...`, `super::...`, test modules
// included), lowest layer first; there is no cycle, and the test
// `file_graph::matches_the_sources_and_has_no_cycle` keeps this list true:
//
//   ctxt.rs                -> (none)
//   repr.rs                -> (none)
//   attr.rs                -> ctxt.rs
//   ast.rs                 -> attr.rs ctxt.rs repr.rs
//   check.rs               -> ast.rs attr.rs ctxt.rs repr.rs
//   fallback.rs            -> ast.rs
//   file_graph.rs          -> source_text.rs
//   source_text.rs         -> (none)
//   expand/common.rs       -> attr.rs
//   expand/bit_element.rs  -> ast.rs attr.rs check.rs ctxt.rs expand/common.rs fallback.rs
//   expand/device_copy.rs  -> ast.rs attr.rs check.rs ctxt.rs expand/common.rs fallback.rs
//   expand/mod.rs          -> expand/bit_element.rs expand/device_copy.rs
//   lib.rs                 -> expand/bit_element.rs expand/device_copy.rs

mod ast;
mod attr;
mod check;
mod ctxt;
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

#[cfg(test)]
mod file_graph;
#[cfg(test)]
mod source_text;
