//! Stub impls emitted next to the errors (thiserror's `fallback.rs`), so that
//! one mistake in a derive input is reported once, not again at every use of
//! the type as a `BitElement` or `DeviceCopy`.

use crate::ast::{Data, Input};
use proc_macro2::TokenStream;
use quote::quote;
use syn::Type;

/// `where for<'a> Self: Copy + 'static` (and `Send + Sync` for a
/// `BitElement`, `threads`), the stub's supertraits: they then hold without
/// asking more of a generic type's parameters. The bound names a lifetime of
/// its own, so it is checked where the impl is used, not where it is
/// written (a bound without one that cannot hold is an error in itself).
fn where_clause(input: &Input<'_>, threads: bool) -> TokenStream {
    let ident = input.ident;
    let (_, ty_generics, where_clause) = input.generics.split_for_impl();
    let core = quote!(::core);
    let threads = if threads {
        quote!(+ #core::marker::Send + #core::marker::Sync)
    } else {
        quote!()
    };
    let mut preds = quote! {
        for<'__bitpack> #ident #ty_generics: #core::marker::Copy #threads + 'static,
    };
    if let Some(wc) = where_clause {
        let existing = &wc.predicates;
        preds = quote!(#existing, #preds);
    }
    quote!(where #preds)
}

/// Whether a field of the struct is a raw pointer: such a type is no
/// `BitElement` stub's (it is not `Send`, so every item of the stub would be
/// reported again), and its one error says why.
fn has_pointer(input: &Input<'_>) -> bool {
    matches!(&input.data, Data::Struct(fields) if fields.iter().any(|f| matches!(f.ty, Type::Ptr(_))))
}

/// A `BitElement` impl that is never run: the input had errors, which were
/// emitted beside it. None for a struct with a raw pointer field.
pub fn bit_element(input: &Input<'_>, krate: &TokenStream) -> TokenStream {
    if has_pointer(input) {
        return TokenStream::new();
    }
    let ident = input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let where_clause = where_clause(input, true);
    let core = quote!(::core);
    let lanes = if input.generics.params.is_empty() {
        quote!(#krate::__impl_lanes!(#ident);)
    } else {
        quote!()
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::BitElement for #ident #ty_generics #where_clause {
            const BITS: #core::primitive::u32 = 1;
            type Raw = #core::primitive::u8;

            fn raw_bits(self) -> #core::primitive::u8 {
                #core::unreachable!()
            }

            fn from_raw_bits(_: #core::primitive::u8) -> Self {
                #core::unreachable!()
            }
        }

        #lanes
    }
}

/// A `DeviceCopy` impl beside the errors. The program does not compile, so
/// it promises nothing.
pub fn device_copy(input: &Input<'_>, krate: &TokenStream) -> TokenStream {
    let ident = input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let where_clause = where_clause(input, false);
    quote! {
        #[automatically_derived]
        unsafe impl #impl_generics #krate::DeviceCopy for #ident #ty_generics #where_clause {}
    }
}
