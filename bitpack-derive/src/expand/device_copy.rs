//! `#[derive(DeviceCopy)]`.

use super::common::{crate_path, first_span, generic_names, mentions, with_bounds, wrap};
use crate::ast::Input;
use crate::attr::Derive;
use crate::check;
use crate::ctxt::Ctxt;
use crate::fallback;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::DeriveInput;

/// Expands `#[derive(DeviceCopy)]`.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let parsed = Input::from_syn(&cx, input, Derive::DeviceCopy);
    let krate = crate_path(&parsed.attrs);
    check::device_copy(&cx, &parsed);
    let body = match cx.check() {
        Ok(()) => expand(&parsed, &krate),
        Err(err) => {
            let mut out = err.to_compile_error();
            out.extend(fallback::device_copy(&parsed, &krate));
            out
        }
    };
    wrap(body)
}

fn expand(input: &Input<'_>, krate: &TokenStream) -> TokenStream {
    let device_copy_trait = quote!(#krate::DeviceCopy);
    let ident = input.ident;
    let names = generic_names(input.generics);
    let tys = input.all_field_types();

    // Fields that name no generic parameter are checked here, each error at
    // its field type; the others become bounds of the impl. The check is a
    // bound on the very trait the impl below implements (`#device_copy_trait`), not a helper
    // of the runtime crate: `crate = "..."` may name a facade whose helpers
    // the user wrote, but no path can name two traits at once.
    let checks: Vec<_> = tys
        .iter()
        .filter(|ty| !mentions(ty, &names))
        .map(|ty| {
            let span = first_span(ty);
            quote_spanned!(span=> __bitpack_field_is_device_copy::<#ty>();)
        })
        .collect();
    let checks = if checks.is_empty() {
        quote!()
    } else {
        // The helper is a function, declared inside a closure: a name in the
        // value namespace of a block of its own, which no field type (a path
        // in the type namespace) can resolve to.
        quote! {
            const _: fn() = || {
                fn __bitpack_field_is_device_copy<T: #device_copy_trait>() {}
                #(#checks)*
            };
        }
    };
    let generics = with_bounds(input.generics, tys.iter().copied(), &device_copy_trait);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    // SAFETY (of the emitted impl):
    // - `check::device_copy` accepted the input only with `repr(C)` or
    //   `repr(transparent)` (a struct or union) or an explicit integer repr (an
    //   enum), so its layout is fixed ("The Rust Reference", Type layout: "The
    //   C Representation", "Primitive representations");
    // - every field is `DeviceCopy`: checked above for concrete field types,
    //   and required by the impl's bounds for generic ones, so no field holds
    //   a host pointer, reference or handle;
    // - `DeviceCopy: Copy + 'static` makes rustc require `Copy` (no `Drop`,
    //   no interior mutability through `UnsafeCell`, which is not `Copy`);
    // - padding bytes are moved as raw bytes and never read as values, which
    //   the trait's copy rule allows.
    //
    // The runtime crate's `__impl_device_repr!` then makes the type a
    // `cudarc` kernel argument (`DeviceRepr`) under the same generics and
    // bounds when its `cuda` feature is on, and expands to nothing without
    // it; its SAFETY comment is beside the impl it writes.
    quote! {
        #checks

        #[automatically_derived]
        unsafe impl #impl_generics #device_copy_trait for #ident #ty_generics #where_clause {}

        #krate::__impl_device_repr!([#impl_generics] #ident #ty_generics [#where_clause]);
    }
}
