//! `#[derive(BitElement)]`.

use super::common::{
    const_assert, crate_path, first_span, generic_names, mentions, respan, with_bounds, wrap,
};
use crate::ast::{Field, Input, type_name};
use crate::attr::Derive;
use crate::check::{self, Form};
use crate::ctxt::Ctxt;
use crate::fallback;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::{DeriveInput, LitInt};

/// Expands `#[derive(BitElement)]`.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let parsed = Input::from_syn(&cx, input, Derive::BitElement);
    let krate = crate_path(&parsed.attrs);
    let form = check::bit_element(&cx, &parsed);
    let body = match (cx.check(), form) {
        (Ok(()), Some(form)) => expand(&parsed, &krate, &form),
        (result, _) => {
            let mut out = result
                .err()
                .map(|err| err.to_compile_error())
                .unwrap_or_default();
            out.extend(fallback::bit_element(&parsed, &krate));
            out
        }
    };
    wrap(body)
}

fn expand(input: &Input<'_>, krate: &TokenStream, form: &Form<'_>) -> TokenStream {
    let element_trait = quote!(#krate::BitElement);
    let unsigned_trait = quote!(#krate::Unsigned);
    // `::core` itself, never the runtime crate's re-export: a path given
    // with `crate = "..."` may lead to items the user wrote.
    let core = quote!(::core);
    let u32_ = quote!(#core::primitive::u32);
    let u128_ = quote!(#core::primitive::u128);
    let usize_ = quote!(#core::primitive::usize);
    let size_of = quote!(#core::mem::size_of);
    let offset_of = quote!(#core::mem::offset_of);
    let raw = quote!(<Self as #element_trait>::Raw);
    let mask = quote!(<#raw as #unsigned_trait>::low_mask(<Self as #element_trait>::BITS));
    let ident = input.ident;
    let names = generic_names(input.generics);
    // Items beside the `BitElement` impl (a record's field constants, its
    // `Record` impl).
    let mut extra = TokenStream::new();

    // Layout proofs that rustc evaluates even under `cargo check`: free
    // items, so only for types that do not name a generic parameter.
    let mut proofs = TokenStream::new();
    let mut bounded: Vec<&syn::Type> = Vec::new();
    // For a one-field form, the span of every token of the impl's items: an
    // error that the field's type causes anywhere in them is then the same
    // error at the same place, which rustc reports once.
    let mut item_span = None;

    let (bits, raw_ty, raw_bits, from_raw_bits) = match form {
        Form::Narrow { width, lit, field } => {
            let Field {
                member,
                ty: field_ty,
                ..
            } = field;
            item_span = Some(first_span(field_ty));
            let ty = &same_span(field_ty);
            let w = LitInt::new(&width.to_string(), lit.span());
            let msg = format!(
                "`#[bitwidth({width})]` is wider than the field type `{}`: a narrow newtype's \
                 width must be at most its field's `BitElement::BITS`; lower the width or use a \
                 wider field",
                type_name(field_ty)
            );
            let generic = mentions(field_ty, &names);
            let bits = if generic {
                bounded.push(field_ty);
                // Checked when the impl is instantiated (a full build, not
                // `cargo check`): a compile_fail doctest covers it.
                quote_spanned! {lit.span()=>
                    { #core::assert!(#w <= <#ty as #element_trait>::BITS, #msg); #w }
                }
            } else {
                // Always, also for a field spelled like a primitive: the
                // spelling is not the type (`type u8 = bool;`), the field's
                // `BITS` is.
                proofs.extend(const_assert(
                    lit,
                    quote!(#w <= <#ty as #element_trait>::BITS),
                    &msg,
                ));
                quote!(#w)
            };
            (
                bits,
                quote!(<#ty as #element_trait>::Raw),
                quote!(<#ty as #element_trait>::raw_bits(self.#member) & #mask),
                construct(&[(
                    member,
                    quote!(<#ty as #element_trait>::from_raw_bits(__bitpack_raw & #mask)),
                )]),
            )
        }
        Form::Transparent { field } => {
            let Field {
                member,
                ty: field_ty,
                ..
            } = field;
            item_span = Some(first_span(field_ty));
            let ty = &same_span(field_ty);
            if mentions(field_ty, &names) {
                bounded.push(field_ty);
            }
            (
                quote!(<#ty as #element_trait>::BITS),
                quote!(<#ty as #element_trait>::Raw),
                quote!(<#ty as #element_trait>::raw_bits(self.#member)),
                construct(&[(
                    member,
                    quote!(<#ty as #element_trait>::from_raw_bits(__bitpack_raw)),
                )]),
            )
        }
        Form::Aggregate { fields } => {
            for field in fields.iter() {
                let ty = field.ty;
                let ty_same = same_span(ty);
                let msg = format!(
                    "field {} of `{ident}` has type `{}`, which does not fill its bytes: a \
                     `#[repr(C)]` aggregate packs all of its bytes, so each field's \
                     `BitElement::BITS` must be 8 times its size (`bool`, enums and narrow \
                     newtypes have fewer value bits); pack narrow values in a \
                     `#[bitwidth]` newtype or an `NArray` instead",
                    field.describe(),
                    type_name(ty)
                );
                proofs.extend(const_assert(
                    ty,
                    quote!(<#ty_same as #element_trait>::BITS as #usize_ == 8 * #size_of::<#ty>()),
                    &msg,
                ));
            }
            let tys = fields.iter().map(|f| f.ty);
            let padding = format!(
                "`{ident}` has padding: its size is more than the sum of its fields' sizes. A \
                 `#[repr(C)]` aggregate packs all of its bytes, and padding bytes hold no value; \
                 order the fields from the largest alignment to the smallest, or make the padding \
                 an explicit field"
            );
            proofs.extend(const_assert(
                ident,
                quote!(#size_of::<#ident>() == #(#size_of::<#tys>())+*),
                &padding,
            ));
            let too_big = format!(
                "`{ident}` is larger than 16 bytes: a `#[repr(C)]` aggregate packs into one \
                 `BitElement::Raw` word, at most a `u128`; split it into smaller elements"
            );
            proofs.extend(const_assert(
                ident,
                quote!(#size_of::<#ident>() <= 16),
                &too_big,
            ));

            // Each field's share of the two functions carries that field's
            // span, like its assertion above, so that a field that is not a
            // `BitElement` is reported once, at the field.
            let place = fields.iter().map(|f| {
                let (ty, member) = (same_span(f.ty), &f.member);
                respan(
                    quote! {
                        __bitpack_acc |= #krate::__private::place(
                            #unsigned_trait::to_u128(<#ty as #element_trait>::raw_bits(self.#member)),
                            #offset_of!(Self, #member),
                        );
                    },
                    first_span(f.ty),
                )
            });
            let extract: Vec<_> = fields
                .iter()
                .map(|f| {
                    let (ty, member) = (same_span(f.ty), &f.member);
                    let value = respan(
                        quote! {
                            <#ty as #element_trait>::from_raw_bits(
                                <<#ty as #element_trait>::Raw as #unsigned_trait>::from_u128_truncate(
                                    #krate::__private::extract(__bitpack_raw, #offset_of!(Self, #member)),
                                ),
                            )
                        },
                        first_span(f.ty),
                    );
                    (member, value)
                })
                .collect();
            let construct = construct(&extract);
            (
                quote!(#krate::__private::aggregate_bits(#size_of::<Self>())),
                quote! {
                    <#krate::__private::ByteCount<
                        { #krate::__private::aggregate_bytes(#size_of::<#ident>()) },
                    > as #krate::__private::RawFor>::Raw
                },
                quote! {
                    let mut __bitpack_acc: #u128_ = 0;
                    #(#place)*
                    <#raw as #unsigned_trait>::from_u128_truncate(__bitpack_acc) & #mask
                },
                quote! {
                    let __bitpack_raw: #u128_ = #unsigned_trait::to_u128(__bitpack_raw);
                    #construct
                },
            )
        }
        Form::Record { fields, default } => {
            record(input, krate, fields, *default, &mut proofs, &mut extra)
        }
        Form::Enum {
            bits,
            int,
            arms,
            otherwise,
        } => {
            let raw_ty = match int.unsigned_name() {
                Some(name) => {
                    let name = format_ident!("{}", name);
                    quote!(#core::primitive::#name)
                }
                None => quote! {
                    <#krate::__private::ByteCount<{ #size_of::<#usize_>() }> as #krate::__private::RawFor>::Raw
                },
            };
            let mask = Literal::u128_unsuffixed((1u128 << bits) - 1);
            let values = arms.iter().map(|&(c, _)| Literal::u128_unsuffixed(c));
            let rest = arms.iter().map(|&(_, v)| v);
            let last = otherwise;
            (
                {
                    let bits = Literal::u32_unsuffixed(*bits);
                    quote!(#bits)
                },
                raw_ty,
                quote!(<#raw as #unsigned_trait>::from_u128_truncate(self as #u128_)),
                quote! {
                    match <#raw as #unsigned_trait>::to_u128(__bitpack_raw) & #mask {
                        #( #values => Self::#rest, )*
                        _ => Self::#last,
                    }
                },
            )
        }
    };

    let generics = with_bounds(input.generics, bounded, &element_trait);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let lanes = if input.generics.params.is_empty() {
        quote!(#krate::__impl_lanes!(#ident);)
    } else {
        quote!()
    };
    // `BITS` keeps the span of its own expression (the `bitwidth` literal):
    // rustdoc renders an associated constant's value from its span's source
    // text, so respanning it to the field type would show `BITS: u32 = u8`.
    let bits_item = quote! {
        const BITS: #u32_ = #bits;
    };
    let items = quote! {
        type Raw = #raw_ty;

        #[inline(always)]
        fn raw_bits(self) -> #raw {
            #raw_bits
        }

        #[inline(always)]
        fn from_raw_bits(__bitpack_raw: #raw) -> Self {
            #from_raw_bits
        }
    };
    let items = match item_span {
        Some(span) => respan(items, span),
        None => items,
    };
    quote! {
        #proofs

        #[automatically_derived]
        impl #impl_generics #element_trait for #ident #ty_generics #where_clause {
            #bits_item
            #items
        }

        #lanes

        #extra
    }
}

/// A record's share of the expansion: its layout proofs and extra items
/// (into `proofs` and `extra`), and `(bits, raw type, raw_bits body,
/// from_raw_bits body)` for the `BitElement` impl.
fn record(
    input: &Input<'_>,
    krate: &TokenStream,
    fields: &[Field<'_>],
    default: bool,
    proofs: &mut TokenStream,
    extra: &mut TokenStream,
) -> (TokenStream, TokenStream, TokenStream, TokenStream) {
    let ident = input.ident;
    let element_trait = quote!(#krate::BitElement);
    let unsigned_trait = quote!(#krate::Unsigned);
    let private = quote!(#krate::__private);
    let core = quote!(::core);
    let u128_ = quote!(#core::primitive::u128);
    let str_ = quote!(#core::primitive::str);
    let raw = quote!(<Self as #element_trait>::Raw);

    let tys: Vec<TokenStream> = fields.iter().map(|f| same_span(f.ty)).collect();
    let widths: Vec<TokenStream> = tys
        .iter()
        .map(|ty| quote!(<#ty as #element_trait>::BITS))
        .collect();
    // Each field's offset, as an expression of the widths before it (or its
    // `at`): constants rustc folds, spanned on the user's tokens.
    let mut offsets: Vec<TokenStream> = Vec::with_capacity(fields.len());
    for (k, f) in fields.iter().enumerate() {
        let off = match &f.attrs.at {
            Some((v, lit)) => {
                let lit = LitInt::new(&format!("{v}u32"), lit.span());
                quote!(#lit)
            }
            None if k == 0 => quote!(0u32),
            None => {
                let (prev, width) = (&offsets[k - 1], &widths[k - 1]);
                quote!((#prev + #width))
            }
        };
        offsets.push(off);
    }
    let end = {
        let (off, width) = (&offsets[fields.len() - 1], &widths[fields.len() - 1]);
        quote!((#off + #width))
    };

    // Proofs: every field below bit 128, every `at` above the field before
    // it, every `default` within its field.
    for (k, f) in fields.iter().enumerate() {
        let (off, width) = (&offsets[k], &widths[k]);
        let msg = format!(
            "field {} of `{ident}` ends past bit 128: a record packs into one \
             `BitElement::Raw`, at most a `u128`, so its fields' widths add up to at most 128; \
             make the fields narrower or split `{ident}` into two records",
            f.describe()
        );
        proofs.extend(const_assert(
            f.ty,
            quote!(#off > 128 || #off + #width <= 128),
            &msg,
        ));
        if let (Some((at, lit)), true) = (&f.attrs.at, k > 0) {
            let prev = &fields[k - 1];
            let (poff, pwidth) = (&offsets[k - 1], &widths[k - 1]);
            let msg = format!(
                "`at = {at}` overlaps field {} of `{ident}`, which ends above bit {at}: fields \
                 may not share bits; place field {} at or above the end of field {}",
                prev.describe(),
                f.describe(),
                prev.describe()
            );
            proofs.extend(const_assert(lit, quote!(#poff + #pwidth <= #at), &msg));
        }
        if let Some((_, lit)) = &f.attrs.default {
            let v = LitInt::new(&format!("{lit}u128"), lit.span());
            let msg = format!(
                "`default = {lit}` does not fit field {} of `{ident}`: the code must be below \
                 2^BITS of the field's type `{}`",
                f.describe(),
                type_name(f.ty)
            );
            proofs.extend(const_assert(
                lit,
                quote!(#width >= 128 || #v < (1u128 << #width)),
                &msg,
            ));
        }
    }

    let bits = quote!(#private::record_bits(#end));
    let raw_ty = quote! {
        <#private::ByteCount<{ #private::record_bytes(#end) }> as #private::RawFor>::Raw
    };
    let place = fields.iter().zip(&tys).zip(&offsets).map(|((f, ty), off)| {
        let member = &f.member;
        respan(
            quote! {
                __bitpack_acc |= #private::place_bits(
                    #unsigned_trait::to_u128(<#ty as #element_trait>::raw_bits(self.#member)),
                    #off,
                );
            },
            first_span(f.ty),
        )
    });
    let raw_bits = quote! {
        let mut __bitpack_acc: #u128_ = 0;
        #(#place)*
        <#raw as #unsigned_trait>::from_u128_truncate(
            __bitpack_acc & #private::low_bits(<Self as #element_trait>::BITS),
        )
    };
    let field_value = |ty: &TokenStream, off: &TokenStream, bits: TokenStream| {
        quote! {
            <#ty as #element_trait>::from_raw_bits(
                <<#ty as #element_trait>::Raw as #unsigned_trait>::from_u128_truncate(
                    #private::take_bits(#bits, #off),
                ),
            )
        }
    };
    let extract: Vec<_> = fields
        .iter()
        .zip(&tys)
        .zip(&offsets)
        .map(|((f, ty), off)| {
            (
                &f.member,
                respan(
                    field_value(ty, off, quote!(__bitpack_raw)),
                    first_span(f.ty),
                ),
            )
        })
        .collect();
    let construct_fields = construct(&extract);
    let from_raw_bits = quote! {
        let __bitpack_raw: #u128_ = #unsigned_trait::to_u128(__bitpack_raw);
        #construct_fields
    };

    // The field constants, with the field's docs and visibility.
    let consts = fields
        .iter()
        .zip(&tys)
        .zip(&offsets)
        .filter(|((f, _), _)| f.attrs.reserved.is_none())
        .map(|((f, ty), off)| {
            let name = const_name(&f.member);
            let (vis, docs) = (f.vis, &f.docs);
            let what = format!(
                " Where field {} of [`{ident}`] sits in its packed bits: for \
                 `Packed::get`/`set`/`with` and `NarrowArray::field`.",
                f.describe()
            );
            let sep = if docs.is_empty() {
                quote!()
            } else {
                quote!(#[doc = ""])
            };
            // The type and the value at the field's span: a field that is
            // not an element is then reported once, at the field.
            let span = first_span(f.ty);
            let field_ty = respan(quote!(#krate::Field<#ident, #ty>), span);
            let value = respan(quote!(#krate::Field::__new(#off)), span);
            quote! {
                #(#docs)*
                #sep
                #[doc = #what]
                #vis const #name: #field_ty = #value;
            }
        });
    let infos = fields
        .iter()
        .zip(&widths)
        .zip(&offsets)
        .map(|((f, width), off)| {
            let name = match &f.member {
                syn::Member::Named(ident) => ident.unraw().to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            let reserved = match f.attrs.reserved {
                None => quote!(#core::option::Option::None),
                Some((ones, _)) => quote!(#core::option::Option::Some(#ones)),
            };
            quote! {
                #krate::FieldInfo { name: #name, offset: #off, bits: #width, reserved: #reserved }
            }
        });
    let nested = tys
        .iter()
        .zip(&offsets)
        .zip(&widths)
        .map(|((ty, off), width)| {
            quote! {
                (&#private::Probe::<#ty>::NEW).check_nested(
                    #private::take_bits(__bitpack_bits, #off) & #private::low_bits(#width),
                )?;
            }
        });
    let name = ident.to_string();
    extra.extend(quote! {
        #[automatically_derived]
        impl #ident {
            #(#consts)*
        }

        #[automatically_derived]
        impl #krate::Record for #ident {
            const NAME: &'static #str_ = #name;
            const FIELDS: &'static [#krate::FieldInfo] = &[#(#infos),*];

            fn try_from_raw_bits(__bitpack_raw: #raw) -> #krate::Result<Self> {
                let __bitpack_bits: #u128_ = #unsigned_trait::to_u128(__bitpack_raw);
                #private::check_fixed(
                    <Self as #krate::Record>::NAME,
                    <Self as #element_trait>::BITS,
                    <Self as #krate::Record>::FIELDS,
                    __bitpack_bits,
                )?;
                {
                    // Underscore imports bind no name, so nothing here can
                    // change what a field type's path means.
                    #[allow(unused_imports)]
                    use #private::{NestedElement as _, NestedRecord as _};
                    #(#nested)*
                }
                #core::result::Result::Ok(<Self as #element_trait>::from_raw_bits(__bitpack_raw))
            }
        }

        #krate::__impl_record_dlpack!(#ident);
    });
    if default {
        let values: Vec<_> = fields
            .iter()
            .zip(&tys)
            .map(|(f, ty)| {
                let code = match (f.attrs.reserved, &f.attrs.default) {
                    (Some((true, _)), _) => Some(quote!(#u128_::MAX)),
                    (Some((false, _)), _) => Some(quote!(0u128)),
                    (None, Some((_, lit))) => {
                        let v = LitInt::new(&format!("{lit}u128"), lit.span());
                        Some(quote!(#v))
                    }
                    (None, None) => None,
                };
                let value = match code {
                    Some(code) => quote! {
                        <#ty as #element_trait>::from_raw_bits(
                            <<#ty as #element_trait>::Raw as #unsigned_trait>::from_u128_truncate(#code),
                        )
                    },
                    None => quote!(<#ty as #core::default::Default>::default()),
                };
                (&f.member, value)
            })
            .collect();
        let value = construct(&values);
        extra.extend(quote! {
            #[automatically_derived]
            impl #core::default::Default for #ident {
                fn default() -> Self {
                    #value
                }
            }
        });
    }
    (bits, raw_ty, raw_bits, from_raw_bits)
}

/// The name of a record field's constant: the field's name in upper case,
/// `F0`, `F1`, ... for a tuple field.
fn const_name(member: &syn::Member) -> syn::Ident {
    match member {
        syn::Member::Named(ident) => {
            format_ident!(
                "{}",
                ident.unraw().to_string().to_uppercase(),
                span = ident.span()
            )
        }
        syn::Member::Unnamed(i) => format_ident!("F{}", i.index, span = i.span),
    }
}

/// `ty` with every token at the span of its first, so that errors about it
/// from different places in the generated code coincide.
fn same_span(ty: &syn::Type) -> TokenStream {
    respan(quote!(#ty), first_span(ty))
}

/// `Self(a, b)` for a tuple struct, `Self { x: a, y: b }` otherwise: the
/// value of each field, in field order.
fn construct(fields: &[(&syn::Member, TokenStream)]) -> TokenStream {
    let values = fields.iter().map(|(_, value)| value);
    if fields
        .iter()
        .all(|(m, _)| matches!(m, syn::Member::Unnamed(_)))
    {
        quote!(Self( #(#values),* ))
    } else {
        let names = fields.iter().map(|(m, _)| m);
        quote!(Self { #(#names: #values),* })
    }
}
