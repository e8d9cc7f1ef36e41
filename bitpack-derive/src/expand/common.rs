//! What the code generation of both derives shares: the runtime crate's
//! path, the wrapping `const` block, bounds for generic fields, spans and
//! const assertions.

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
