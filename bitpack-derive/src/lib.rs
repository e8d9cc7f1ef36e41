//! Derive macros for `bitpack`. Use them through the `bitpack` crate, which
//! re-exports them beside their traits.

use proc_macro::TokenStream;

/// Derives `bitpack::BitElement`. Documented on the re-export in `bitpack`.
#[proc_macro_derive(BitElement, attributes(bitwidth, bitpack))]
pub fn derive_bit_element(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}

/// Derives `bitpack::DeviceCopy`. Documented on the re-export in `bitpack`.
#[proc_macro_derive(DeviceCopy, attributes(bitpack))]
pub fn derive_device_copy(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
