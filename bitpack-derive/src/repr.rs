//! The `#[repr(...)]` of the input, reduced to the hints the derives care
//! about, each with the span of the token that wrote it.
//!
//! Malformed or unknown hints are left to rustc, which reports them itself; a
//! `Repr` only ever holds hints that rustc accepts on some item.

use proc_macro2::Span;
use syn::{Attribute, LitInt, Token, parenthesized};

/// Which of the representations `Rust`, `C` and `transparent` a `repr`
/// names ("The Rust Reference", Type layout: "Representations"); the
/// primitive ones (`repr(u8)` ..) are an [`IntRepr`], which an enum may
/// combine with `C`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReprKind {
    /// `repr(Rust)`, written out.
    Rust,
    /// `repr(C)`.
    C,
    /// `repr(transparent)`.
    Transparent,
}

impl ReprKind {
    /// The name as written in `#[repr(...)]`.
    pub fn name(self) -> &'static str {
        match self {
            ReprKind::Rust => "Rust",
            ReprKind::C => "C",
            ReprKind::Transparent => "transparent",
        }
    }
}

/// A primitive integer representation, `repr(u8)` .. `repr(isize)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntRepr {
    U8,
    U16,
    U32,
    U64,
    U128,
    Usize,
    I8,
    I16,
    I32,
    I64,
    I128,
    Isize,
}

impl IntRepr {
    fn from_name(name: &str) -> Option<IntRepr> {
        Some(match name {
            "u8" => IntRepr::U8,
            "u16" => IntRepr::U16,
            "u32" => IntRepr::U32,
            "u64" => IntRepr::U64,
            "u128" => IntRepr::U128,
            "usize" => IntRepr::Usize,
            "i8" => IntRepr::I8,
            "i16" => IntRepr::I16,
            "i32" => IntRepr::I32,
            "i64" => IntRepr::I64,
            "i128" => IntRepr::I128,
            "isize" => IntRepr::Isize,
            _ => return None,
        })
    }

    /// The unsigned integer of the same size, when that size does not depend
    /// on the target (`None` for `usize`/`isize`).
    pub fn unsigned_name(self) -> Option<&'static str> {
        match self {
            IntRepr::U8 | IntRepr::I8 => Some("u8"),
            IntRepr::U16 | IntRepr::I16 => Some("u16"),
            IntRepr::U32 | IntRepr::I32 => Some("u32"),
            IntRepr::U64 | IntRepr::I64 => Some("u64"),
            IntRepr::U128 | IntRepr::I128 => Some("u128"),
            IntRepr::Usize | IntRepr::Isize => None,
        }
    }
}

/// The `repr` hints of an item.
#[derive(Debug, Default)]
pub struct Repr {
    /// `C`, `transparent` or `Rust`, if one was written (the first one).
    pub kind: Option<(ReprKind, Span)>,
    /// A primitive integer representation, if one was written.
    pub int: Option<(IntRepr, Span)>,
    /// `packed` or `packed(N)`.
    pub packed: Option<Span>,
    /// `align(N)`.
    pub align: Option<Span>,
}

impl Repr {
    /// Collects the hints of every `#[repr(...)]` attribute.
    pub fn from_attrs(attrs: &[Attribute]) -> Repr {
        let mut repr = Repr::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("repr")) {
            // A malformed `repr` is rustc's to report; keep what parsed.
            let _ = attr.parse_nested_meta(|meta| {
                let span = meta
                    .path
                    .segments
                    .first()
                    .map_or_else(Span::call_site, |s| s.ident.span());
                let name = meta
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                let has_args = meta.input.peek(syn::token::Paren);
                if has_args {
                    let content;
                    parenthesized!(content in meta.input);
                    let _: Option<LitInt> = content.parse().ok();
                    let _: Option<Token![,]> = content.parse().ok();
                }
                match (name.as_str(), has_args) {
                    ("C", false) => set(&mut repr.kind, (ReprKind::C, span)),
                    ("transparent", false) => set(&mut repr.kind, (ReprKind::Transparent, span)),
                    ("Rust", false) => set(&mut repr.kind, (ReprKind::Rust, span)),
                    ("packed", _) => set(&mut repr.packed, span),
                    ("align", true) => set(&mut repr.align, span),
                    (other, false) => {
                        if let Some(int) = IntRepr::from_name(other) {
                            set(&mut repr.int, (int, span));
                        }
                    }
                    _ => {}
                }
                Ok(())
            });
        }
        repr
    }

    /// The representation named, if any.
    #[cfg(test)]
    pub fn kind(&self) -> Option<ReprKind> {
        self.kind.map(|(kind, _)| kind)
    }
}

fn set<T>(slot: &mut Option<T>, value: T) {
    if slot.is_none() {
        *slot = Some(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn repr(item: syn::DeriveInput) -> Repr {
        Repr::from_attrs(&item.attrs)
    }

    #[test]
    fn reads_every_hint_across_attributes() {
        let r = repr(parse_quote! {
            #[repr(C, packed(2))]
            #[repr(align(8))]
            struct S;
        });
        assert_eq!(r.kind(), Some(ReprKind::C));
        assert!(r.packed.is_some());
        assert!(r.align.is_some());
        assert!(r.int.is_none());
    }

    #[test]
    fn reads_integer_reprs() {
        for (name, unsigned) in [
            ("u8", Some("u8")),
            ("i16", Some("u16")),
            ("u32", Some("u32")),
            ("i64", Some("u64")),
            ("u128", Some("u128")),
            ("isize", None),
        ] {
            let ident = syn::Ident::new(name, Span::call_site());
            let r = repr(parse_quote! { #[repr(C, #ident)] enum E { A } });
            let (int, _) = r.int.expect(name);
            assert_eq!(int.unsigned_name(), unsigned, "{name}");
            assert_eq!(r.kind(), Some(ReprKind::C));
        }
    }

    #[test]
    fn no_repr_and_unknown_hints_give_nothing() {
        let r = repr(parse_quote! { #[repr(simd)] #[derive(Clone)] struct S; });
        assert!(r.kind.is_none() && r.int.is_none() && r.packed.is_none());
        let r = repr(parse_quote! { #[repr(Rust)] struct S; });
        assert_eq!(r.kind(), Some(ReprKind::Rust));
        let r = repr(parse_quote! { #[repr(transparent)] struct S(u8); });
        assert_eq!(r.kind(), Some(ReprKind::Transparent));
    }
}
