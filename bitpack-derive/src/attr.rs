//! The derives' own attributes: `#[bitwidth(N)]`, `#[bitpack(crate = "...")]`,
//! `#[bitpack(record)]`, `#[bitpack(default)]`, and on a record's fields
//! `#[bitpack(at = N)]`, `#[bitpack(reserved)]` (or `reserved = ones`) and
//! `#[bitpack(default = N)]`.
//!
//! Parsing keeps the tokens that were written (the literal, the key) so that
//! every error can point at them. Range checks of the values live in
//! `check.rs`.

use crate::ctxt::Ctxt;
use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Lit, LitInt, LitStr, Meta};

/// `#[bitwidth(N)]`, as written.
#[derive(Debug)]
pub struct Bitwidth {
    /// The value, if it is an integer literal that fits in `u128`.
    pub value: u128,
    /// The literal.
    pub lit: LitInt,
    /// The `bitwidth` key.
    pub key: Span,
}

/// The container attributes that matter to the derives.
#[derive(Debug, Default)]
pub struct Container {
    /// `#[bitpack(crate = "path")]`.
    pub krate: Option<syn::Path>,
    /// `#[bitwidth(N)]` (only read by the `BitElement` derive).
    pub bitwidth: Option<Bitwidth>,
    /// The `non_exhaustive` key of `#[non_exhaustive]`.
    pub non_exhaustive: Option<Span>,
    /// The `record` key of `#[bitpack(record)]`: a struct of narrow fields
    /// packed LSB-first.
    pub record: Option<Span>,
    /// The `default` key of `#[bitpack(default)]`: emit `Default` (records
    /// only).
    pub default: Option<Span>,
}

/// The attributes of a record's field.
#[derive(Debug, Default)]
pub struct FieldAttrs {
    /// `#[bitpack(at = N)]`: the value and its literal.
    pub at: Option<(u32, LitInt)>,
    /// `#[bitpack(reserved)]` (`false`: all zeros) or `reserved = ones`
    /// (`true`), with the span of the key.
    pub reserved: Option<(bool, Span)>,
    /// `#[bitpack(default = N)]`: the code and its literal.
    pub default: Option<(u128, LitInt)>,
}

/// Which derive is reading the attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Derive {
    BitElement,
    DeviceCopy,
}

/// Parses the container attributes, reporting malformed, unknown and
/// duplicate ones to `cx`.
pub fn container(cx: &Ctxt, attrs: &[Attribute], derive: Derive) -> Container {
    let mut out = Container::default();
    for attr in attrs {
        let path = attr.path();
        if path.is_ident("bitpack") {
            parse_bitpack(cx, attr, &mut out);
        } else if path.is_ident("bitwidth") && derive == Derive::BitElement {
            parse_bitwidth(cx, attr, &mut out);
        } else if path.is_ident("non_exhaustive") {
            out.non_exhaustive.get_or_insert(path.span());
        }
    }
    out
}

fn parse_bitpack(cx: &Ctxt, attr: &Attribute, out: &mut Container) {
    let list = match &attr.meta {
        Meta::List(list) => list,
        other => {
            cx.error_spanned_by(
                other.path(),
                "expected `#[bitpack(crate = \"path\")]`: the only `bitpack` attribute names the \
                 crate that the generated code refers to",
            );
            return;
        }
    };
    let result = list.parse_nested_meta(|meta| {
        for (key, slot) in [("record", &mut out.record), ("default", &mut out.default)] {
            if meta.path.is_ident(key) {
                if slot.is_some() {
                    cx.error_spanned_by(
                        &meta.path,
                        format!("duplicate `{key}` key in `#[bitpack(...)]`; give it once"),
                    );
                } else {
                    *slot = Some(meta.path.span());
                }
                return Ok(());
            }
        }
        if meta.path.is_ident("crate") {
            let key = meta.path.clone();
            let value = meta.value()?;
            let lit: LitStr = if value.peek(LitStr) {
                value.parse()?
            } else {
                let expr: Expr = value.parse()?;
                cx.error_spanned_by(
                    &expr,
                    format!(
                        "`crate = {}` must be a string literal naming a path, e.g. `crate = \"::bitpack\"`",
                        expr.to_token_stream()
                    ),
                );
                return Ok(());
            };
            let path: syn::Path = match lit.parse() {
                Ok(path) => path,
                Err(_) => {
                    cx.error_spanned_by(
                        &lit,
                        format!(
                            "`crate = {:?}` is not a path; write the path to the `bitpack` crate or \
                             its re-export, e.g. `crate = \"::bitpack\"` or `crate = \"my_crate::bitpack\"`",
                            lit.value()
                        ),
                    );
                    return Ok(());
                }
            };
            if out.krate.is_some() {
                cx.error_spanned_by(&key, "duplicate `crate` key in `#[bitpack(...)]`; give it once");
            } else {
                out.krate = Some(path);
            }
            Ok(())
        } else {
            let name = meta.path.to_token_stream().to_string().replace(' ', "");
            cx.error_spanned_by(
                &meta.path,
                format!(
                    "unknown `bitpack` attribute `{name}`; the keys on a type are `crate = \"path\"`, \
                     `record` and `default`"
                ),
            );
            // Skip its value, if any, so that the keys after it are still read.
            if meta.input.peek(syn::Token![=]) {
                let _: Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _content;
                syn::parenthesized!(_content in meta.input);
            }
            Ok(())
        }
    });
    if let Err(err) = result {
        cx.syn_error(err);
    }
}

fn parse_bitwidth(cx: &Ctxt, attr: &Attribute, out: &mut Container) {
    let key = attr.path().span();
    let expr: Expr = match &attr.meta {
        Meta::List(list) => match list.parse_args::<Expr>() {
            Ok(expr) => expr,
            Err(_) => {
                cx.error_spanned_by(
                    &list.tokens,
                    "expected one integer literal: `#[bitwidth(4)]`",
                );
                return;
            }
        },
        Meta::NameValue(nv) => {
            cx.error_spanned_by(
                nv,
                format!(
                    "write the width in parentheses: `#[bitwidth({})]`",
                    nv.value.to_token_stream()
                ),
            );
            return;
        }
        Meta::Path(path) => {
            cx.error_spanned_by(
                path,
                "`#[bitwidth]` needs the number of value bits, 1..=128: `#[bitwidth(4)]`",
            );
            return;
        }
    };
    let lit = match expr {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(lit), ..
        }) => lit,
        other => {
            cx.error_spanned_by(
                &other,
                format!(
                    "`#[bitwidth({})]`: the width must be an integer literal, 1..=128 (the derive \
                     reads it as written; constants and expressions are not evaluated)",
                    other.to_token_stream()
                ),
            );
            return;
        }
    };
    // Too large for a `u128` is far above 128: the range check reports it.
    let value = lit.base10_parse::<u128>().unwrap_or(u128::MAX);
    if let Some(first) = &out.bitwidth {
        cx.error_spanned_by(
            attr.path(),
            format!(
                "duplicate `#[bitwidth]`: the width is already `{}`; give it once",
                first.lit
            ),
        );
        return;
    }
    out.bitwidth = Some(Bitwidth { value, lit, key });
}

/// Reads the `#[bitpack(...)]` attributes of a record's field, reporting
/// `#[bitwidth]`, malformed, unknown and duplicate keys to `cx`.
pub fn record_field(cx: &Ctxt, attrs: &[Attribute]) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in attrs {
        if attr.path().is_ident("bitwidth") {
            cx.error_spanned_by(
                attr.path(),
                "`#[bitwidth]` is not allowed on a record's field; a field's width is its type's \
                 `BitElement::BITS` (use `u3`, a narrow newtype or an enum of that width)",
            );
            continue;
        }
        if !attr.path().is_ident("bitpack") {
            continue;
        }
        let Meta::List(list) = &attr.meta else {
            cx.error_spanned_by(
                attr.path(),
                "expected `#[bitpack(at = N)]`, `#[bitpack(reserved)]`, \
                 `#[bitpack(reserved = ones)]` or `#[bitpack(default = N)]` on a record's field",
            );
            continue;
        };
        let result = list.parse_nested_meta(|meta| {
            let key = meta.path.clone();
            let name = key.to_token_stream().to_string().replace(' ', "");
            let int = |meta: &syn::meta::ParseNestedMeta<'_>| -> syn::Result<Option<LitInt>> {
                let expr: Expr = meta.value()?.parse()?;
                match expr {
                    Expr::Lit(syn::ExprLit {
                        lit: Lit::Int(lit), ..
                    }) => Ok(Some(lit)),
                    other => {
                        cx.error_spanned_by(
                            &other,
                            format!(
                                "`{name} = {}`: the value must be an integer literal (the \
                                 derive reads it as written; constants are not evaluated)",
                                other.to_token_stream()
                            ),
                        );
                        Ok(None)
                    }
                }
            };
            let dup = |cx: &Ctxt| {
                cx.error_spanned_by(
                    &key,
                    format!("duplicate `{name}` key on this field; give it once"),
                )
            };
            match name.as_str() {
                "at" => {
                    if let Some(lit) = int(&meta)? {
                        if out.at.is_some() {
                            dup(cx);
                        } else {
                            match lit.base10_parse::<u32>() {
                                Ok(v) if v < 128 => out.at = Some((v, lit)),
                                _ => cx.error_spanned_by(
                                    &lit,
                                    format!(
                                        "`at = {lit}` is past the last bit of a record: a \
                                         record is at most 128 bits, so a field starts at \
                                         0..=127"
                                    ),
                                ),
                            }
                        }
                    }
                }
                "default" => {
                    if let Some(lit) = int(&meta)? {
                        if out.default.is_some() {
                            dup(cx);
                        } else {
                            let v = lit.base10_parse::<u128>().unwrap_or(u128::MAX);
                            out.default = Some((v, lit));
                        }
                    }
                }
                "reserved" => {
                    let ones = if meta.input.peek(syn::Token![=]) {
                        let expr: Expr = meta.value()?.parse()?;
                        match &expr {
                            Expr::Path(p) if p.path.is_ident("ones") => Some(true),
                            Expr::Path(p) if p.path.is_ident("zeros") => Some(false),
                            other => {
                                cx.error_spanned_by(
                                    other,
                                    format!(
                                        "`reserved = {}`: a reserved field holds all zeros \
                                         (`reserved` or `reserved = zeros`) or all ones \
                                         (`reserved = ones`)",
                                        other.to_token_stream()
                                    ),
                                );
                                None
                            }
                        }
                    } else {
                        Some(false)
                    };
                    if let Some(ones) = ones {
                        if out.reserved.is_some() {
                            dup(cx);
                        } else {
                            out.reserved = Some((ones, key.span()));
                        }
                    }
                }
                _ => {
                    cx.error_spanned_by(
                        &key,
                        format!(
                            "unknown `bitpack` attribute `{name}` on a record's field; the keys \
                             are `at = N`, `reserved` (or `reserved = ones`) and `default = N`"
                        ),
                    );
                    if meta.input.peek(syn::Token![=]) {
                        let _: Expr = meta.value()?.parse()?;
                    }
                }
            }
            Ok(())
        });
        if let Err(err) = result {
            cx.syn_error(err);
        }
    }
    out
}

/// Reports `#[bitwidth]` and `#[bitpack]` on a field or variant, where they
/// mean nothing.
/// Reads the attributes of an enum's variant: `#[bitpack(fallback)]` (the
/// variant every unused code decodes to) is the one key; its span, if
/// given. `DeviceCopy` reads past the key (both derives see the same
/// variants) and rejects only `#[bitwidth]`.
pub fn variant(cx: &Ctxt, attrs: &[Attribute], derive: Derive) -> Option<Span> {
    let mut fallback = None;
    for attr in attrs {
        if attr.path().is_ident("bitwidth") {
            cx.error_spanned_by(
                attr.path(),
                "`#[bitwidth]` is not allowed on a variant; an enum's width follows from its \
                 variants",
            );
            continue;
        }
        if !attr.path().is_ident("bitpack") || derive == Derive::DeviceCopy {
            continue;
        }
        let Meta::List(list) = &attr.meta else {
            cx.error_spanned_by(attr.path(), "expected `#[bitpack(fallback)]` on a variant");
            continue;
        };
        let result = list.parse_nested_meta(|meta| {
            if meta.path.is_ident("fallback") && meta.input.is_empty() {
                if fallback.is_some() {
                    cx.error_spanned_by(&meta.path, "duplicate `fallback`");
                } else {
                    fallback = Some(meta.path.span());
                }
                Ok(())
            } else {
                let name = meta.path.to_token_stream().to_string().replace(' ', "");
                if name == "fallback" {
                    return Err(meta.error(
                        "`fallback` takes no value: write `#[bitpack(fallback)]` on the variant",
                    ));
                }
                Err(meta.error(format!(
                    "unknown key `{name}` on a variant; the one key there is `fallback` (the \
                     variant every unused code decodes to), which takes no value; the type's \
                     keys (`crate`, `record`, ...) go on the type, next to `#[derive(...)]`"
                )))
            }
        });
        if let Err(err) = result {
            cx.syn_error(err);
        }
    }
    fallback
}

pub fn reject_inner(cx: &Ctxt, attrs: &[Attribute], what: &str) {
    for attr in attrs {
        for name in ["bitwidth", "bitpack"] {
            if attr.path().is_ident(name) {
                cx.error_spanned_by(
                    attr.path(),
                    format!(
                        "`#[{name}]` is not allowed on a {what}; put it on the type, next to \
                         `#[derive(...)]`"
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn parse(item: syn::DeriveInput, derive: Derive) -> (Container, Vec<String>) {
        let cx = Ctxt::new();
        let c = container(&cx, &item.attrs, derive);
        let errors: Vec<syn::Error> = cx.check().err().into_iter().flatten().collect();
        (c, errors.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn reads_crate_and_bitwidth() {
        let (c, errors) = parse(
            parse_quote! {
                #[bitpack(crate = "my_crate::bitpack")]
                #[bitwidth(6)]
                struct S(u8);
            },
            Derive::BitElement,
        );
        assert!(errors.is_empty(), "{errors:?}");
        let path = c.krate.unwrap();
        assert_eq!(path.to_token_stream().to_string(), "my_crate :: bitpack");
        assert_eq!(c.bitwidth.unwrap().value, 6);
    }

    #[test]
    fn device_copy_ignores_bitwidth() {
        let (c, errors) = parse(
            parse_quote! { #[bitwidth(x)] struct S(u8); },
            Derive::DeviceCopy,
        );
        assert!(errors.is_empty());
        assert!(c.bitwidth.is_none());
    }

    #[test]
    fn collects_every_attribute_error() {
        let (c, errors) = parse(
            parse_quote! {
                #[bitpack(crate = "::a", krate = "b", crate = "::c")]
                #[bitpack]
                #[bitwidth(N)]
                #[bitwidth = 4]
                #[bitwidth]
                #[bitwidth(3)]
                #[bitwidth(5)]
                #[bitpack(crate = 7)]
                #[bitpack(crate = "not a path")]
                struct S(u8);
            },
            Derive::BitElement,
        );
        assert_eq!(c.krate.unwrap().to_token_stream().to_string(), ":: a");
        assert_eq!(c.bitwidth.unwrap().value, 3);
        let expect = [
            "unknown `bitpack` attribute `krate`",
            "duplicate `crate` key",
            "expected `#[bitpack(crate = \"path\")]`",
            "the width must be an integer literal",
            "write the width in parentheses: `#[bitwidth(4)]`",
            "`#[bitwidth]` needs the number of value bits",
            "duplicate `#[bitwidth]`: the width is already `3`",
            "must be a string literal",
            "is not a path",
        ];
        assert_eq!(errors.len(), expect.len(), "{errors:#?}");
        for (got, want) in errors.iter().zip(expect) {
            assert!(got.contains(want), "{got:?} should contain {want:?}");
        }
    }

    #[test]
    fn rejects_helper_attributes_on_fields() {
        let item: syn::DeriveInput = parse_quote! {
            struct S { #[bitwidth(3)] #[bitpack(crate = "x")] #[doc = "ok"] a: u8 }
        };
        let syn::Data::Struct(data) = item.data else {
            unreachable!()
        };
        let cx = Ctxt::new();
        for field in &data.fields {
            reject_inner(&cx, &field.attrs, "field");
        }
        let errors: Vec<syn::Error> = cx.check().unwrap_err().into_iter().collect();
        assert_eq!(errors.len(), 2);
        assert!(
            errors[0]
                .to_string()
                .contains("`#[bitwidth]` is not allowed on a field")
        );
    }
}
