//! Stub impls emitted next to the errors (thiserror's `fallback.rs`), so that
//! one mistake in a derive input is reported once, not again at every use of
//! the type as a `BitElement` or `DeviceCopy`.

use crate::ast::Input;
use proc_macro2::TokenStream;
use quote::quote;

/// `where Self: Copy + Send + Sync + 'static` for a generic type, so that
/// the stub's supertraits hold without asking more of the parameters.
fn where_clause(input: &Input<'_>) -> TokenStream {
    let ident = input.ident;
    let (_, ty_generics, where_clause) = input.generics.split_for_impl();
    if input.generics.params.is_empty() {
        return quote!(#where_clause);
    }
    let mut preds = quote!(
        #ident #ty_generics: ::core::marker::Copy
            + ::core::marker::Send
            + ::core::marker::Sync
            + 'static,
    );
    if let Some(wc) = where_clause {
        let existing = &wc.predicates;
        preds = quote!(#existing, #preds);
    }
    quote!(where #preds)
}

/// A `BitElement` impl that is never run: the input had errors, which were
/// emitted beside it.
pub fn bit_element(input: &Input<'_>, krate: &TokenStream) -> TokenStream {
    let ident = input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let where_clause = where_clause(input);
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
    let where_clause = where_clause(input);
    quote! {
        #[automatically_derived]
        unsafe impl #impl_generics #krate::DeviceCopy for #ident #ty_generics #where_clause {}
    }
}
