//! Code generation. Each derive emits one `const _: () = { ... };` block
//! holding its impls and the layout proofs it leaves to rustc.

pub mod bit_element;
pub mod device_copy;

use crate::attr::Container;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use std::collections::HashSet;
use syn::{GenericParam, Generics, Type};

/// The path to the runtime crate: `#[bitpack(crate = "...")]` or `::bitpack`.
///
/// Generated code writes this path out at every use and imports nothing:
/// an import (`use ::bitpack as __bitpack;`) would be in scope where the
/// user's field types are resolved too, so a user item of the same name
/// (`mod __bitpack`) would be read as the crate there, and a check would look
/// at another type than the field's. A given path keeps the span of its
/// string, so that a path that does not resolve is reported there.
pub fn crate_path(attrs: &Container) -> TokenStream {
    match &attrs.krate {
        Some(path) => respan(path.to_token_stream(), first_span(path)),
        None => quote!(::bitpack),
    }
}

/// Wraps generated items in one anonymous `const` block, so that no helper
/// name reaches the user's namespace. The block declares no named item that
/// could shadow a name in the user's field types.
pub fn wrap(body: TokenStream) -> TokenStream {
    quote! {
        #[allow(
            non_upper_case_globals,
            non_snake_case,
            unused_qualifications,
            clippy::identity_op,
            clippy::unnecessary_cast,
            clippy::assertions_on_constants,
        )]
        const _: () = {
            #body
        };
    }
}

/// The compile errors, each at its span.
pub fn errors(errors: Vec<syn::Error>) -> TokenStream {
    errors.into_iter().map(|e| e.to_compile_error()).collect()
}

/// The names of the type and const parameters.
pub fn generic_names(generics: &Generics) -> HashSet<String> {
    generics
        .params
        .iter()
        .filter_map(|p| match p {
            GenericParam::Type(t) => Some(t.ident.to_string()),
            GenericParam::Const(c) => Some(c.ident.to_string()),
            GenericParam::Lifetime(_) => None,
        })
        .collect()
}

/// Whether `ty` names one of the generic parameters (then a bound on it goes
/// on the impl; otherwise it can be checked by a free item).
pub fn mentions(ty: &Type, names: &HashSet<String>) -> bool {
    fn walk(tokens: TokenStream, names: &HashSet<String>) -> bool {
        tokens.into_iter().any(|tt| match tt {
            TokenTree::Ident(ident) => names.contains(&ident.to_string()),
            TokenTree::Group(group) => walk(group.stream(), names),
            _ => false,
        })
    }
    !names.is_empty() && walk(ty.to_token_stream(), names)
}

/// `generics` with `ty: bound` added for every type in `tys` that names a
/// generic parameter, each bound spanned on its type.
pub fn with_bounds<'a>(
    generics: &Generics,
    tys: impl IntoIterator<Item = &'a Type>,
    bound: &TokenStream,
) -> Generics {
    let names = generic_names(generics);
    let mut out = generics.clone();
    for ty in tys {
        if mentions(ty, &names) {
            let span = first_span(ty);
            out.make_where_clause()
                .predicates
                .push(syn::parse_quote_spanned!(span=> #ty: #bound));
        }
    }
    out
}

/// The span of the first token of `tokens`.
pub fn first_span(tokens: &impl ToTokens) -> Span {
    tokens
        .to_token_stream()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span())
}

/// The span of the last token of `tokens`.
pub fn last_span(tokens: &impl ToTokens) -> Span {
    tokens
        .to_token_stream()
        .into_iter()
        .last()
        .map_or_else(Span::call_site, |t| t.span())
}

/// Every token of `tokens`, re-spanned to `span`.
pub fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

/// `const _: () = assert!(cond, msg);` whose error covers the tokens of `at`:
/// the macro path carries the span of the first token and the argument list
/// the span of the last, so rustc underlines all of `at`.
///
/// The assertion is `::core::assert!`, never an item of the runtime crate's
/// path, which `#[bitpack(crate = "...")]` lets the user replace.
pub fn const_assert(at: &impl ToTokens, cond: TokenStream, msg: &str) -> TokenStream {
    let (first, last) = (first_span(at), last_span(at));
    let path = respan(quote!(::core::assert), first);
    let mut args =
        proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, quote!(#cond, #msg));
    args.set_span(last);
    let bang = quote_spanned!(first=> !);
    quote_spanned! {first=>
        const _: () = #path #bang #args;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn finds_generic_parameters_in_types() {
        let generics: Generics = parse_quote!(<'a, T: Copy, const N: usize>);
        let names = generic_names(&generics);
        assert!(mentions(&parse_quote!(T), &names));
        assert!(mentions(&parse_quote!(Wrapper<[T; 2]>), &names));
        assert!(mentions(&parse_quote!(arbitrary_int::UInt<u8, N>), &names));
        assert!(mentions(&parse_quote!(<T as Trait>::Assoc), &names));
        assert!(!mentions(&parse_quote!(u8), &names));
        assert!(!mentions(&parse_quote!(Tee), &names));
        assert!(!mentions(&parse_quote!(T), &HashSet::new()));
    }

    #[test]
    fn bounds_only_generic_fields() {
        let generics: Generics = parse_quote!(<T>);
        let tys: Vec<Type> = vec![parse_quote!(T), parse_quote!(u8), parse_quote!(Option<T>)];
        let out = with_bounds(&generics, &tys, &quote!(::bitpack::BitElement));
        let wc = out.where_clause.unwrap().to_token_stream().to_string();
        assert_eq!(
            wc,
            "where T : :: bitpack :: BitElement , Option < T > : :: bitpack :: BitElement"
        );
    }
}

#[cfg(test)]
mod expansion_tests {
    use syn::{DeriveInput, parse_quote};

    fn bit_element(input: DeriveInput) -> String {
        super::bit_element::derive(&input).to_string()
    }

    fn device_copy(input: DeriveInput) -> String {
        super::device_copy::derive(&input).to_string()
    }

    /// Whether the tokens hold a `use` item (after a `{`, `;` or attribute).
    fn imports(out: &str) -> bool {
        ["{ use ", "; use ", "] use "]
            .iter()
            .any(|item| out.contains(item))
    }

    /// Whether the tokens name `bitpack` anywhere.
    fn names_bitpack(out: &str) -> bool {
        out.split_whitespace().any(|token| token == "bitpack")
    }

    #[test]
    fn names_the_runtime_crate_through_the_given_path_and_imports_nothing() {
        let forms: [DeriveInput; 4] = [
            parse_quote! { #[bitpack(crate = "my::facade")] #[repr(transparent)] #[bitwidth(4)] struct F(u8); },
            parse_quote! { #[bitpack(crate = "my::facade")] #[repr(C)] struct Rgb { r: u8, g: u8, b: u8 } },
            parse_quote! { #[bitpack(crate = "my::facade")] #[repr(u8)] enum E { A, B } },
            parse_quote! { #[bitpack(crate = "my::facade")] #[repr(transparent)] struct W<T>(T); },
        ];
        for input in forms {
            for out in [bit_element(input.clone()), device_copy(input)] {
                assert!(out.contains("my :: facade ::"), "{out}");
                assert!(!names_bitpack(&out), "a path to `bitpack`: {out}");
                // No import: it would also be in scope for the field types.
                assert!(!imports(&out), "{out}");
                assert!(!out.contains("__private :: core"), "{out}");
                assert!(!out.contains("compile_error"), "{out}");
            }
        }
    }

    #[test]
    fn default_path_is_the_bitpack_crate() {
        let out = bit_element(parse_quote! { #[repr(transparent)] #[bitwidth(4)] struct F(u8); });
        assert!(out.contains("impl :: bitpack :: BitElement for F"), "{out}");
        assert!(!imports(&out), "{out}");
    }

    #[test]
    fn narrow_width_is_checked_through_the_field_type_even_when_spelled_as_a_primitive() {
        let out = bit_element(parse_quote! { #[repr(transparent)] #[bitwidth(8)] struct F(u8); });
        assert!(
            out.contains("8 <= < u8 as :: bitpack :: BitElement > :: BITS"),
            "{out}"
        );
    }

    #[test]
    fn device_copy_checks_fields_through_the_implemented_trait() {
        let out = device_copy(
            parse_quote! { #[bitpack(crate = "f")] #[repr(C)] struct P { a: u8, b: x::Y } },
        );
        assert!(
            out.contains("fn __bitpack_field_is_device_copy < T : f :: DeviceCopy > ()"),
            "{out}"
        );
        assert!(
            out.contains("__bitpack_field_is_device_copy :: < x :: Y > ()"),
            "{out}"
        );
        assert!(out.contains("unsafe impl f :: DeviceCopy for P"), "{out}");
        assert!(!out.contains("__private"), "{out}");
    }

    #[test]
    fn lanes_only_for_non_generic_types() {
        let out = bit_element(parse_quote! { #[repr(transparent)] #[bitwidth(4)] struct F(u8); });
        assert!(out.contains(":: bitpack :: __impl_lanes ! (F)"), "{out}");
        let out = bit_element(parse_quote! { #[repr(transparent)] #[bitwidth(4)] struct F<T>(T); });
        assert!(!out.contains("__impl_lanes"), "{out}");
        assert!(out.contains("where T : :: bitpack :: BitElement"), "{out}");
    }

    #[test]
    fn errors_come_with_a_stub_impl_and_nothing_else() {
        let out = bit_element(parse_quote! { #[repr(C)] #[bitwidth(0)] struct F(u8, u8); });
        assert_eq!(out.matches("compile_error").count(), 1, "{out}");
        assert!(out.contains("impl :: bitpack :: BitElement for F"), "{out}");
        assert!(out.contains("unreachable"), "{out}");
        // The stub keeps the type usable as an element: Lanes are there too.
        assert!(out.contains("__impl_lanes ! (F)"), "{out}");
        let out = device_copy(parse_quote! { struct P<T> { a: T } });
        assert_eq!(out.matches("compile_error").count(), 1, "{out}");
        assert!(
            out.contains("unsafe impl < T > :: bitpack :: DeviceCopy for P < T >"),
            "{out}"
        );
    }

    #[test]
    fn enums_match_every_pattern_without_panicking() {
        let out = bit_element(parse_quote! { #[repr(u8)] enum E { C = 2, A = 0, D = 3, B = 1 } });
        assert!(
            out.contains("0 => Self :: A , 1 => Self :: B , 2 => Self :: C , _ => Self :: D"),
            "{out}"
        );
        assert!(
            !out.contains("panic") && !out.contains("unreachable") && !out.contains("unsafe"),
            "{out}"
        );
    }
}
