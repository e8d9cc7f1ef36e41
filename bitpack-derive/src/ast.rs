//! The derive input, reduced to what the derives need, keeping the original
//! tokens (field types, discriminants) so that generated code and errors
//! carry the user's spans.

use crate::attr::{self, Derive};
use crate::ctxt::Ctxt;
use crate::repr::Repr;
use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Attribute, DeriveInput, Expr, Generics, Ident, Member, Type, Visibility};

/// A parsed derive input.
pub struct Input<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub data: Data<'a>,
    pub attrs: attr::Container,
    pub repr: Repr,
    /// The `struct`, `enum` or `union` keyword.
    pub keyword: Span,
}

/// The body of the input.
pub enum Data<'a> {
    Struct(Vec<Field<'a>>),
    Enum(Vec<Variant<'a>>),
    Union(Vec<Field<'a>>),
}

/// A field of a struct, union or enum variant.
pub struct Field<'a> {
    /// `name` or `0`, with the span of the name (or of the type, for a
    /// tuple field).
    pub member: Member,
    pub ty: &'a Type,
    /// The field's visibility (a record's field constant gets it).
    pub vis: &'a Visibility,
    /// Its `#[doc]` attributes (a record's field constant gets them).
    pub docs: Vec<&'a Attribute>,
    /// Its `#[bitpack(...)]` keys, read only in a `#[bitpack(record)]`.
    pub attrs: attr::FieldAttrs,
}

impl Field<'_> {
    /// How error messages name the field: `` `name` `` or `` `0` ``.
    pub fn describe(&self) -> String {
        match &self.member {
            Member::Named(ident) => format!("`{ident}`"),
            Member::Unnamed(index) => format!("`{}`", index.index),
        }
    }

    /// The field type as written, for messages.
    pub fn type_name(&self) -> String {
        type_name(self.ty)
    }
}

/// The field type as written, without the spaces that token printing adds.
pub fn type_name(ty: &Type) -> String {
    let text = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ' ' {
            let next = chars.peek().copied();
            let prev = out.chars().last();
            let glue = |ch: Option<char>| {
                matches!(
                    ch,
                    Some('<' | '>' | ':' | '(' | ')' | '[' | ']' | '&' | '*' | ',' | ';')
                )
            };
            let keep =
                matches!(prev, Some(',' | ';')) || (matches!(next, Some('=')) && prev != Some('<'));
            if (glue(next) || glue(prev)) && !keep {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// A variant of an enum.
pub struct Variant<'a> {
    pub ident: &'a Ident,
    /// `#[bitpack(fallback)]`: the variant every unused code decodes to.
    pub fallback: Option<proc_macro2::Span>,
    pub fields: &'a syn::Fields,
    pub discriminant: Option<&'a Expr>,
}

impl<'a> Input<'a> {
    /// Reads the input; attribute errors go to `cx`.
    pub fn from_syn(cx: &Ctxt, input: &'a DeriveInput, derive: Derive) -> Input<'a> {
        let attrs = attr::container(cx, &input.attrs, derive);
        let repr = Repr::from_attrs(&input.attrs);
        // A record's fields carry `#[bitpack(...)]` keys; the `BitElement`
        // derive reports their errors, `DeviceCopy` reads past them.
        let record = match (attrs.record.is_some(), derive) {
            (false, _) => FieldKeys::Rejected,
            (true, Derive::BitElement) => FieldKeys::Record,
            (true, Derive::DeviceCopy) => FieldKeys::Ignored,
        };
        let (data, keyword) = match &input.data {
            syn::Data::Struct(data) => (
                Data::Struct(fields(cx, data.fields.iter(), record)),
                data.struct_token.span,
            ),
            syn::Data::Union(data) => (
                Data::Union(fields(cx, data.fields.named.iter(), record)),
                data.union_token.span,
            ),
            syn::Data::Enum(data) => {
                let variants = data
                    .variants
                    .iter()
                    .map(|v| {
                        let fallback = attr::variant(cx, &v.attrs, derive);
                        for f in &v.fields {
                            attr::reject_inner(cx, &f.attrs, "field");
                        }
                        Variant {
                            ident: &v.ident,
                            fallback,
                            fields: &v.fields,
                            discriminant: v.discriminant.as_ref().map(|(_, e)| e),
                        }
                    })
                    .collect();
                (Data::Enum(variants), data.enum_token.span)
            }
        };
        Input {
            ident: &input.ident,
            generics: &input.generics,
            data,
            attrs,
            repr,
            keyword,
        }
    }

    /// Every field of every struct, union or variant.
    pub fn all_field_types(&self) -> Vec<&'a Type> {
        match &self.data {
            Data::Struct(fields) | Data::Union(fields) => fields.iter().map(|f| f.ty).collect(),
            Data::Enum(variants) => variants
                .iter()
                .flat_map(|v| v.fields.iter().map(|f| &f.ty))
                .collect(),
        }
    }
}

/// What the `#[bitpack(...)]` attributes of fields are.
#[derive(Clone, Copy)]
enum FieldKeys {
    /// Not a record: an error.
    Rejected,
    /// A record's field keys, read and checked.
    Record,
    /// Read by the other derive: skipped.
    Ignored,
}

fn fields<'a>(
    cx: &Ctxt,
    fields: impl Iterator<Item = &'a syn::Field>,
    keys: FieldKeys,
) -> Vec<Field<'a>> {
    fields
        .enumerate()
        .map(|(i, f)| {
            let attrs = match keys {
                FieldKeys::Rejected => {
                    attr::reject_inner(cx, &f.attrs, "field");
                    attr::FieldAttrs::default()
                }
                FieldKeys::Record => attr::record_field(cx, &f.attrs),
                FieldKeys::Ignored => attr::FieldAttrs::default(),
            };
            let docs = f
                .attrs
                .iter()
                .filter(|a| a.path().is_ident("doc"))
                .collect();
            let member = match &f.ident {
                Some(ident) => Member::Named(ident.clone()),
                None => Member::Unnamed(syn::Index {
                    index: i as u32,
                    span: f.ty.span(),
                }),
            };
            Field {
                member,
                ty: &f.ty,
                vis: &f.vis,
                docs,
                attrs,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn type_names_read_as_written() {
        let cases: [(Type, &str); 6] = [
            (parse_quote!(u8), "u8"),
            (parse_quote!(Vec<u8>), "Vec<u8>"),
            (parse_quote!(&'static str), "&'static str"),
            (parse_quote!(*const u8), "*const u8"),
            (parse_quote!([u8; 3]), "[u8; 3]"),
            (
                parse_quote!(std::collections::HashMap<u8, u16>),
                "std::collections::HashMap<u8, u16>",
            ),
        ];
        for (ty, want) in cases {
            assert_eq!(type_name(&ty), want);
        }
    }

    #[test]
    fn reads_fields_and_variants() {
        let input: DeriveInput = parse_quote! {
            #[repr(u8)]
            enum E { A, B = 3, C(u8) }
        };
        let cx = Ctxt::new();
        let parsed = Input::from_syn(&cx, &input, Derive::BitElement);
        assert!(cx.check().is_ok());
        let Data::Enum(variants) = &parsed.data else {
            panic!("not an enum")
        };
        assert_eq!(variants.len(), 3);
        assert!(variants[0].discriminant.is_none());
        assert!(variants[1].discriminant.is_some());
        assert_eq!(parsed.all_field_types().len(), 1);

        let input: DeriveInput = parse_quote! { struct T(u8, u16); };
        let cx = Ctxt::new();
        let parsed = Input::from_syn(&cx, &input, Derive::BitElement);
        let Data::Struct(fields) = &parsed.data else {
            panic!("not a struct")
        };
        assert_eq!(fields[1].describe(), "`1`");
        assert_eq!(fields[1].type_name(), "u16");
        assert!(cx.check().is_ok());
    }
}
