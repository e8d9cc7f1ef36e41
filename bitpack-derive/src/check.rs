//! The checks that need no type information.
//!
//! Every check reports into a [`Ctxt`] instead of returning at the first
//! problem, so one compile shows every mistake, each spanned on the token that
//! caused it. Checks that need type information (field widths of non-primitive
//! types, padding, trait bounds) are emitted as code for rustc to prove; see
//! `expand/`.

use crate::ast::{Data, Field, Input, Variant};
use crate::ctxt::Ctxt;
use crate::repr::{IntRepr, ReprKind};
use quote::ToTokens;
use syn::{Expr, GenericParam, Ident, Lit, LitInt, Type, UnOp};

/// What a `#[derive(BitElement)]` input is, once checked.
pub enum Form<'a> {
    /// `#[repr(transparent)] #[bitwidth(N)]` over one field.
    Narrow {
        width: u32,
        lit: &'a LitInt,
        field: &'a Field<'a>,
    },
    /// `#[repr(transparent)]` over one element, no `bitwidth`: the field's
    /// element, as is.
    Transparent { field: &'a Field<'a> },
    /// `#[repr(C)]`, no `bitwidth`: all of its bytes.
    Aggregate { fields: &'a [Field<'a>] },
    /// `#[bitpack(record)]`: narrow fields packed LSB-first in declaration
    /// order.
    Record {
        fields: &'a [Field<'a>],
        /// `#[bitpack(default)]`: emit `Default`.
        default: bool,
    },
    /// A fieldless enum of `bits` bits: discriminants exactly `0..2^bits`,
    /// or, with a fallback variant, distinct discriminants below `2^bits`
    /// and the fallback for every code no variant has.
    Enum {
        bits: u32,
        int: IntRepr,
        /// `(code, variant)` for every code but those `otherwise` takes, in
        /// code order.
        arms: Vec<(u128, &'a Ident)>,
        /// The variant of every other code: the last code's variant, or the
        /// fallback.
        otherwise: &'a Ident,
    },
}

/// The width of a primitive `BitElement` named by a bare path (`u8`, `bool`,
/// ...), if `ty` is one.
pub fn known_bits(ty: &Type) -> Option<u32> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let ident = path.path.get_ident()?;
    Some(match ident.to_string().as_str() {
        "bool" => 1,
        "u8" | "i8" => 8,
        "u16" | "i16" => 16,
        "u32" | "i32" | "f32" => 32,
        "u64" | "i64" | "f64" => 64,
        "u128" | "i128" => 128,
        _ => return None,
    })
}

fn reject_lifetimes(cx: &Ctxt, input: &Input<'_>, trait_name: &str) {
    for param in &input.generics.params {
        if let GenericParam::Lifetime(lt) = param {
            cx.error_spanned_by(
                &lt.lifetime,
                format!(
                    "`{}`: a `{trait_name}` type is `'static` (its values are copied as bits, \
                     not borrowed), so it cannot have lifetime parameters; remove `{}`",
                    lt.lifetime, lt.lifetime
                ),
            );
        }
    }
}

fn reject_type_params(cx: &Ctxt, input: &Input<'_>, why: &str) {
    for param in &input.generics.params {
        let ident = match param {
            GenericParam::Type(t) => &t.ident,
            GenericParam::Const(c) => &c.ident,
            GenericParam::Lifetime(_) => continue,
        };
        cx.error_spanned_by(ident, format!("generic parameter `{ident}`: {why}"));
    }
}

/// Checks a `#[derive(BitElement)]` input and says which form it is. `None`
/// when the form could not be decided; errors are in `cx` either way.
pub fn bit_element<'a>(cx: &Ctxt, input: &'a Input<'a>) -> Option<Form<'a>> {
    reject_lifetimes(cx, input, "BitElement");
    reject_pointers(cx, input);
    if let (Some(span), Data::Enum(_) | Data::Union(_)) = (input.attrs.record, &input.data) {
        cx.error_at(
            span,
            "`#[bitpack(record)]` applies to a struct: a record's fields are all present at \
             once, packed side by side",
        );
        return None;
    }
    match &input.data {
        Data::Union(_) => {
            cx.error_at(
                input.keyword,
                "a union cannot derive `BitElement`: its bits do not say which field is live, so \
                 `raw_bits` could not read them; use a struct, or a fieldless enum for a choice \
                 of values",
            );
            None
        }
        Data::Enum(variants) => bit_element_enum(cx, input, variants),
        Data::Struct(fields) => bit_element_struct(cx, input, fields),
    }
}

/// A raw pointer field, named here: its type is `Copy` and `'static` like a
/// value's, but an element's bits are its value (and a `BitElement` is
/// `Send` and `Sync`, which a pointer is not, so the type system's own
/// errors would be about threads).
fn reject_pointers(cx: &Ctxt, input: &Input<'_>) {
    let Data::Struct(fields) = &input.data else {
        return;
    };
    for field in fields {
        if let Type::Ptr(ptr) = field.ty {
            cx.error_spanned_by(
                ptr,
                format!(
                    "field {} is a raw pointer (`{}`): its bits are an address, which means \
                     nothing once packed or sent to a device, so it cannot be part of a \
                     `BitElement`; store the value itself, or an index",
                    field.describe(),
                    field.type_name(),
                ),
            );
        }
    }
}

fn bit_element_struct<'a>(
    cx: &Ctxt,
    input: &'a Input<'a>,
    fields: &'a [Field<'a>],
) -> Option<Form<'a>> {
    let name = input.ident;
    let kind = input.repr.kind;
    if input.attrs.record.is_some() {
        return bit_element_record(cx, input, fields);
    }
    if let Some(span) = input.attrs.default {
        cx.error_at(
            span,
            "`#[bitpack(default)]` applies to a record (`#[bitpack(record)]`); for another \
             element, write `#[derive(Default)]`",
        );
    }
    if let Some(bw) = &input.attrs.bitwidth {
        if let Some((ReprKind::C, _)) = kind {
            cx.error_at(
                bw.key,
                format!(
                    "`#[bitwidth]` does not apply to a `#[repr(C)]` aggregate, which packs all of \
                     its bytes (`{name}` is 8 bits per byte of its size); remove `#[bitwidth]`, or \
                     make `{name}` a one-field `#[repr(transparent)]` narrow newtype"
                ),
            );
            return None;
        }
        // The narrow newtype.
        match kind {
            Some((ReprKind::Transparent, _)) => {}
            Some((other, span)) => cx.error_at(
                span,
                format!(
                    "a narrow newtype (`#[bitwidth]`) needs `#[repr(transparent)]`, not \
                     `#[repr({})]`: it must have exactly its field's layout",
                    other.name()
                ),
            ),
            None => cx.error_spanned_by(
                name,
                format!(
                    "`{name}` has `#[bitwidth({})]` but no `#[repr(transparent)]`; a narrow \
                     newtype must have exactly its field's layout: add `#[repr(transparent)]`",
                    bw.lit
                ),
            ),
        }
        let field = one_field(cx, name, fields, "a narrow newtype (`#[bitwidth]`)");
        let width = match bw.value {
            0 => {
                cx.error_spanned_by(
                    &bw.lit,
                    "`#[bitwidth(0)]`: an element needs at least one value bit; the width must be \
                     1..=128",
                );
                None
            }
            w if w > 128 => {
                cx.error_spanned_by(
                    &bw.lit,
                    format!(
                        "`#[bitwidth({})]` is above 128, the width of the widest `Raw` (`u128`); \
                         the width must be 1..=128",
                        bw.lit
                    ),
                );
                None
            }
            w => Some(w as u32),
        };
        let (field, width) = (field?, width?);
        // A field spelled like a primitive gets its message here; the spelling
        // may be an alias (`type u8 = bool;`), so the expansion checks the
        // field's `BITS` through the type system in every case.
        if let Some(bits) = known_bits(field.ty)
            && width > bits
        {
            cx.error_spanned_by(
                &bw.lit,
                format!(
                    "`#[bitwidth({})]` does not fit in the field's `{}` ({}); the width must be \
                     1..={bits}, or the field a wider type",
                    bw.lit,
                    field.type_name(),
                    plural(bits, "bit")
                ),
            );
            return None;
        }
        return Some(Form::Narrow {
            width,
            lit: &bw.lit,
            field,
        });
    }
    match kind {
        Some((ReprKind::Transparent, _)) => {
            let field = one_field(cx, name, fields, "a `#[repr(transparent)]` `BitElement`")?;
            Some(Form::Transparent { field })
        }
        Some((ReprKind::C, _)) => {
            reject_type_params(
                cx,
                input,
                "a `#[repr(C)]` aggregate cannot be generic: its `Raw` is picked from its size, \
                 which stable Rust cannot compute from generic parameters; use concrete field \
                 types, or a `#[repr(transparent)]` wrapper over one generic field",
            );
            if fields.is_empty() {
                cx.error_spanned_by(
                    name,
                    format!(
                        "`{name}` has no fields, so it has no bits to pack; a `BitElement` has \
                         1..=128 value bits"
                    ),
                );
            }
            Some(Form::Aggregate { fields })
        }
        Some((ReprKind::Rust, span)) => {
            cx.error_at(
                span,
                "`#[repr(Rust)]` leaves the field layout to the compiler; a `BitElement` struct \
                 needs `#[repr(C)]` (packs all of its bytes, fields at fixed offsets) or \
                 `#[repr(transparent)]` (wraps one element)",
            );
            None
        }
        None => {
            if let Some(span) = input.repr.packed {
                cx.error_at(
                    span,
                    "`#[repr(packed)]` alone leaves the field order to the compiler; write \
                     `#[repr(C, packed)]`",
                );
            } else {
                cx.error_spanned_by(
                    name,
                    format!(
                        "`{name}` needs a `#[repr]` to derive `BitElement`: add `#[repr(C)]` to \
                         pack all of its bytes, `#[repr(transparent)]` to wrap one element, or \
                         `#[repr(transparent)] #[bitwidth(N)]` for an N-bit newtype"
                    ),
                );
            }
            None
        }
    }
}

/// Checks a `#[bitpack(record)]` struct: what can be told from the tokens.
/// Field widths, overlaps and the 128-bit limit need the fields' `BITS` and
/// are constant assertions in the expansion.
fn bit_element_record<'a>(
    cx: &Ctxt,
    input: &'a Input<'a>,
    fields: &'a [Field<'a>],
) -> Option<Form<'a>> {
    let name = input.ident;
    if let Some(bw) = &input.attrs.bitwidth {
        cx.error_at(
            bw.key,
            format!(
                "`#[bitwidth]` does not apply to a record: `{name}`'s width is the sum of its \
                 fields' widths; remove `#[bitwidth]`, or give a field a narrower type"
            ),
        );
    }
    if let Some((ReprKind::Transparent, span)) = input.repr.kind {
        cx.error_at(
            span,
            "a record packs its fields by width, not by its memory layout, so \
             `#[repr(transparent)]` means nothing to it; remove it (`#[repr(C)]` is fine, for \
             `DeviceCopy`)",
        );
    }
    reject_type_params(
        cx,
        input,
        "a record cannot be generic: its width (the sum of its fields' widths) picks its `Raw` \
         and its field offsets, which stable Rust cannot compute from a parameter; use \
         concrete field types",
    );
    if fields.is_empty() {
        cx.error_spanned_by(
            name,
            format!(
                "`{name}` has no fields, so it has no bits to pack; a record has 1..=128 bits of \
                 fields"
            ),
        );
        return None;
    }
    let mut last_at: Option<(u32, &Field<'_>)> = None;
    for field in fields {
        let attrs = &field.attrs;
        if let Some((at, lit)) = &attrs.at {
            if let Some((prev, prev_field)) = last_at
                && *at <= prev
            {
                cx.error_spanned_by(
                    lit,
                    format!(
                        "`at = {at}` places field {} at or below field {} (`at = {prev}`); a \
                         record's fields sit in declaration order, each above the one before",
                        field.describe(),
                        prev_field.describe()
                    ),
                );
            }
            last_at = Some((*at, field));
        }
        match (attrs.reserved, &attrs.default) {
            (Some((false, _)), Some((v, lit))) if *v != 0 => cx.error_spanned_by(
                lit,
                format!(
                    "`default = {lit}` on reserved field {}: a reserved field always holds its \
                     fixed bits (`reserved`: all zeros); remove `default`",
                    field.describe()
                ),
            ),
            (Some((true, _)), Some((_, lit))) => cx.error_spanned_by(
                lit,
                format!(
                    "`default = {lit}` on reserved field {}: a reserved field always holds its \
                     fixed bits (`reserved = ones`: all ones); remove `default`",
                    field.describe()
                ),
            ),
            _ => {}
        }
    }
    Some(Form::Record {
        fields,
        default: input.attrs.default.is_some(),
    })
}

fn one_field<'a>(
    cx: &Ctxt,
    name: &Ident,
    fields: &'a [Field<'a>],
    what: &str,
) -> Option<&'a Field<'a>> {
    match fields {
        [field] => Some(field),
        [] => {
            cx.error_spanned_by(
                name,
                format!(
                    "`{name}` has no field; {what} wraps exactly one field that holds its bits, \
                     e.g. `struct {name}(u8);`"
                ),
            );
            None
        }
        [_, rest @ ..] => {
            for extra in rest {
                let at: &dyn ToTokens = match &extra.member {
                    syn::Member::Named(ident) => ident,
                    syn::Member::Unnamed(_) => extra.ty,
                };
                cx.error_spanned_by(
                    at,
                    format!(
                        "{what} has exactly one field, but `{name}` has {}; field {} is one too \
                         many (for several fields, use `#[repr(C)]` without `#[bitwidth]`)",
                        fields.len(),
                        extra.describe()
                    ),
                );
            }
            None
        }
    }
}

/// A discriminant as written: a value, or unknown (already reported).
fn discriminant(cx: &Ctxt, expr: &Expr) -> Option<i128> {
    let (negative, inner) = match expr {
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => (true, &*u.expr),
        other => (false, other),
    };
    if let Expr::Lit(syn::ExprLit {
        lit: Lit::Int(lit), ..
    }) = inner
        && let Ok(v) = lit.base10_parse::<i128>()
    {
        return Some(if negative { -v } else { v });
    }
    cx.error_spanned_by(
        expr,
        format!(
            "discriminant `{}` is not an integer literal; a `BitElement` enum's discriminants \
             are read as written (constants and expressions are not evaluated): write the number",
            expr.to_token_stream()
        ),
    );
    None
}

fn plural(n: u32, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn list(values: &[u128]) -> String {
    let shown: Vec<String> = values.iter().take(8).map(u128::to_string).collect();
    let more = if values.len() > 8 {
        format!(", ... ({} in all)", values.len())
    } else {
        String::new()
    };
    format!("{}{more}", shown.join(", "))
}

fn bit_element_enum<'a>(
    cx: &Ctxt,
    input: &'a Input<'a>,
    variants: &'a [Variant<'a>],
) -> Option<Form<'a>> {
    let name = input.ident;
    if let Some(bw) = &input.attrs.bitwidth {
        cx.error_at(
            bw.key,
            "`#[bitwidth]` does not apply to an enum: an enum with discriminants 0..2^k is k bits \
             wide; remove `#[bitwidth]`",
        );
    }
    if let Some(span) = input.attrs.non_exhaustive {
        cx.error_at(
            span,
            "a `#[non_exhaustive]` enum cannot be a `BitElement`: every k-bit pattern must name a \
             variant, and a new variant would change the width; remove `#[non_exhaustive]`",
        );
    }
    reject_type_params(cx, input, "a `BitElement` enum cannot be generic");

    let int = match (input.repr.int, input.repr.kind) {
        (Some((int, _)), _) => Some(int),
        (None, Some((ReprKind::C, span))) => {
            cx.error_at(
                span,
                "`#[repr(C)]` alone gives an enum the size of a C `int`, which depends on the \
                 target; a `BitElement` enum needs an explicit integer repr such as `#[repr(u8)]`",
            );
            None
        }
        (None, Some((other, span))) => {
            cx.error_at(
                span,
                format!(
                    "`#[repr({})]` does not fix the size of an enum; a `BitElement` enum needs an \
                     explicit integer repr such as `#[repr(u8)]`",
                    other.name()
                ),
            );
            None
        }
        (None, None) => {
            cx.error_spanned_by(
                name,
                format!(
                    "`{name}` needs an explicit integer repr to derive `BitElement`: add \
                     `#[repr(u8)]` (its `Raw` is the unsigned integer of the repr's size)"
                ),
            );
            None
        }
    };

    // Discriminants, as the compiler assigns them.
    let mut values: Vec<(usize, Option<i128>)> = Vec::with_capacity(variants.len());
    let mut next = Some(0i128);
    let mut fieldless = true;
    for (i, v) in variants.iter().enumerate() {
        if !v.fields.is_empty() {
            fieldless = false;
            cx.error_spanned_by(
                v.fields,
                format!(
                    "variant `{}` carries data; a `BitElement` enum must be fieldless, so that \
                     each k-bit pattern names one variant (put data in a `#[repr(C)]` struct \
                     instead)",
                    v.ident
                ),
            );
        }
        let value = match v.discriminant {
            Some(expr) => discriminant(cx, expr),
            None => next,
        };
        next = value.and_then(|x| x.checked_add(1));
        values.push((i, value));
    }

    let n = variants.len();
    if n == 0 {
        cx.error_spanned_by(
            name,
            format!(
                "`{name}` has no variants, so it has no values; a `BitElement` enum needs 2^k \
                 variants (2, 4, 8, ...) with discriminants 0..2^k"
            ),
        );
        return None;
    }
    if n == 1 {
        cx.error_spanned_by(
            name,
            format!(
                "`{name}` has one variant, which would be 0 bits wide; a `BitElement` enum needs \
                 2^k variants with k >= 1 (2, 4, 8, ...) and discriminants 0..2^k"
            ),
        );
        return None;
    }
    if values.iter().any(|(_, v)| v.is_none()) {
        return None;
    }
    let at = |i: usize| -> Box<dyn ToTokens + 'a> {
        match variants[i].discriminant {
            Some(expr) => Box::new(expr),
            None => Box::new(variants[i].ident),
        }
    };

    let mut ok = true;
    let mut seen: std::collections::BTreeMap<i128, usize> = Default::default();
    for &(i, v) in &values {
        let v = v.expect("checked above");
        if let Some(&first) = seen.get(&v) {
            ok = false;
            cx.error_spanned_by(
                at(i),
                format!(
                    "discriminant {v} of `{}` is also the discriminant of `{}`; a `BitElement` \
                     enum's discriminants must be exactly 0..2^k, each once",
                    variants[i].ident, variants[first].ident
                ),
            );
        } else {
            seen.insert(v, i);
        }
    }
    let fallbacks: Vec<usize> = (0..n).filter(|&i| variants[i].fallback.is_some()).collect();
    if let [first, second, ..] = fallbacks[..] {
        ok = false;
        cx.error_at(
            variants[second].fallback.expect("filtered above"),
            format!(
                "`{}` and `{}` are both marked `fallback`; an enum has at most one fallback \
                 variant",
                variants[first].ident, variants[second].ident
            ),
        );
    }
    if let Some(&f) = fallbacks.first() {
        return fallback_enum(cx, input, variants, &values, f, ok && fieldless, int);
    }
    let target = n.next_power_of_two() as i128;
    let missing: Vec<u128> = (0..target)
        .filter(|x| !seen.contains_key(x))
        .map(|x| x as u128)
        .collect();
    if !n.is_power_of_two() {
        ok = false;
        let k = target.trailing_zeros();
        let below = n.next_power_of_two() / 2;
        cx.error_spanned_by(
            name,
            format!(
                "`{name}` has {n} variants; a `BitElement` enum needs a power-of-two count (2, \
                 4, 8, ...) with discriminants exactly 0..2^k, so that every k-bit pattern is a \
                 variant: add variants for {} (to make {target}, {}) or remove {}, or mark one \
                 variant `#[bitpack(fallback)]` to decode the unused {} to it",
                list(&missing),
                plural(k, "bit"),
                n - below,
                if missing.len() == 1 { "code" } else { "codes" }
            ),
        );
    } else {
        for &(i, v) in &values {
            let v = v.expect("checked above");
            if !(0..target).contains(&v) {
                ok = false;
                cx.error_spanned_by(
                    at(i),
                    format!(
                        "discriminant {v} of `{}` is outside 0..{target}: `{name}` has {n} \
                         variants, so its discriminants must be exactly 0..{target} ({}); \
                         missing: {}",
                        variants[i].ident,
                        plural(target.trailing_zeros(), "bit"),
                        list(&missing)
                    ),
                );
            }
        }
    }
    if !ok || !fieldless {
        return None;
    }
    let mut by_code = vec![variants[0].ident; n];
    for &(i, v) in &values {
        by_code[v.expect("checked above") as usize] = variants[i].ident;
    }
    let otherwise = by_code.pop().expect("an enum form has 2^k >= 2 variants");
    Some(Form::Enum {
        bits: n.trailing_zeros(),
        int: int?,
        arms: by_code
            .into_iter()
            .enumerate()
            .map(|(c, v)| (c as u128, v))
            .collect(),
        otherwise,
    })
}

/// The form of an enum with the fallback variant `f`: its width is that of
/// the largest discriminant (at least one bit per variant count), every
/// discriminant non-negative and distinct (checked by the caller: `ok`),
/// and at least one code unused, which the fallback then stands for.
fn fallback_enum<'a>(
    cx: &Ctxt,
    input: &'a Input<'a>,
    variants: &'a [Variant<'a>],
    values: &[(usize, Option<i128>)],
    f: usize,
    ok: bool,
    int: Option<IntRepr>,
) -> Option<Form<'a>> {
    let name = input.ident;
    let n = variants.len();
    let mut ok = ok;
    for &(i, v) in values {
        let v = v.expect("checked by the caller");
        if v < 0 {
            ok = false;
            cx.error_spanned_by(
                variants[i].discriminant.map_or_else(
                    || variants[i].ident.to_token_stream(),
                    ToTokens::to_token_stream,
                ),
                format!(
                    "discriminant {v} of `{}` is negative; a `BitElement` enum's codes are its \
                     discriminants, 0 and up",
                    variants[i].ident
                ),
            );
        }
    }
    if !ok {
        return None;
    }
    let top = values
        .iter()
        .map(|&(_, v)| v.expect("checked by the caller") as u128)
        .max()
        .expect("at least two variants")
        .max(n as u128 - 1);
    let bits = 128 - top.leading_zeros();
    if bits > 64 {
        cx.error_spanned_by(
            name,
            format!(
                "`{name}`'s largest discriminant {top} needs {bits} bits; a `BitElement` enum \
                 with a fallback is at most 64 bits wide"
            ),
        );
        return None;
    }
    let codes = 1u128 << bits;
    if codes == n as u128 {
        cx.error_at(
            variants[f].fallback.expect("the fallback variant"),
            format!(
                "every {}-bit code of `{name}` already names a variant, so `{}` would never be \
                 decoded from an unused code; remove `#[bitpack(fallback)]`",
                bits, variants[f].ident
            ),
        );
        return None;
    }
    let mut arms: Vec<(u128, &Ident)> = values
        .iter()
        .filter(|&&(i, _)| i != f)
        .map(|&(i, v)| (v.expect("checked by the caller") as u128, variants[i].ident))
        .collect();
    arms.sort_by_key(|&(c, _)| c);
    Some(Form::Enum {
        bits,
        int: int?,
        arms,
        otherwise: variants[f].ident,
    })
}

/// Checks a `#[derive(DeviceCopy)]` input: a layout other compilers can
/// rely on. Field bounds are left to rustc.
pub fn device_copy(cx: &Ctxt, input: &Input<'_>) {
    reject_lifetimes(cx, input, "DeviceCopy");
    let name = input.ident;
    let kind = input.repr.kind;
    match &input.data {
        Data::Struct(_) | Data::Union(_) => match kind {
            Some((ReprKind::C | ReprKind::Transparent, _)) => {}
            Some((ReprKind::Rust, span)) => cx.error_at(
                span,
                "`#[repr(Rust)]` leaves the layout to the compiler, so a device program compiled \
                 elsewhere cannot rely on it; `DeviceCopy` needs `#[repr(C)]` or \
                 `#[repr(transparent)]`",
            ),
            None => match input.repr.packed {
                Some(span) => cx.error_at(
                    span,
                    "`#[repr(packed)]` alone leaves the field order to the compiler; write \
                     `#[repr(C, packed)]`",
                ),
                None => cx.error_spanned_by(
                    name,
                    format!(
                        "`{name}` needs a fixed layout to derive `DeviceCopy`: add `#[repr(C)]` \
                         (or `#[repr(transparent)]` for a one-field wrapper), so that a device \
                         program sees the same fields at the same offsets"
                    ),
                ),
            },
        },
        Data::Enum(_) => {
            if input.repr.int.is_none() {
                let fix = "a `DeviceCopy` enum needs an explicit integer repr such as \
                           `#[repr(u8)]` (optionally with `C`), which fixes the tag's size";
                match kind {
                    Some((ReprKind::C, span)) => cx.error_at(
                        span,
                        format!(
                            "`#[repr(C)]` alone gives the tag the size of a C `int`, which \
                             depends on the target; {fix}"
                        ),
                    ),
                    Some((other, span)) => cx.error_at(
                        span,
                        format!("`#[repr({})]` does not fix the tag; {fix}", other.name()),
                    ),
                    None => cx.error_spanned_by(name, format!("`{name}` has no repr; {fix}")),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::Derive;
    use syn::{DeriveInput, parse_quote};

    fn errors_of(input: DeriveInput) -> Vec<String> {
        let cx = Ctxt::new();
        let parsed = Input::from_syn(&cx, &input, Derive::BitElement);
        let _ = bit_element(&cx, &parsed);
        cx.check()
            .err()
            .into_iter()
            .flatten()
            .map(|err| err.to_string())
            .collect()
    }

    fn form_of(input: DeriveInput, f: impl FnOnce(&Form<'_>)) {
        let cx = Ctxt::new();
        let parsed = Input::from_syn(&cx, &input, Derive::BitElement);
        let form = bit_element(&cx, &parsed).expect("a form");
        f(&form);
        let errors: Vec<syn::Error> = cx.check().err().into_iter().flatten().collect();
        assert!(
            errors.is_empty(),
            "{:?}",
            errors.iter().map(ToString::to_string).collect::<Vec<_>>()
        );
    }

    #[track_caller]
    fn assert_one(errors: &[String], want: &str) {
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert!(
            errors[0].contains(want),
            "{:?} should contain {want:?}",
            errors[0]
        );
    }

    #[test]
    fn enum_arms_follow_discriminants() {
        form_of(
            parse_quote! { #[repr(u8)] enum E { C = 2, A = 0, D = 3, B = 1 } },
            |form| {
                let Form::Enum { bits, arms, .. } = form else {
                    panic!("not an enum form")
                };
                assert_eq!(*bits, 2);
                let names: Vec<String> = arms.iter().map(|(_, v)| v.to_string()).collect();
                assert_eq!(names, ["A", "B", "C"]);
                assert!(arms.iter().enumerate().all(|(k, &(c, _))| c == k as u128));
            },
        );
        // Implicit discriminants continue from the previous one.
        form_of(
            parse_quote! { #[repr(i16)] enum E { B = 1, C, D, A = 0, E = 4, F, G, H } },
            |form| {
                let Form::Enum {
                    bits,
                    arms,
                    otherwise,
                    ..
                } = form
                else {
                    panic!("not an enum form")
                };
                assert_eq!(*bits, 3);
                let names: Vec<String> = arms.iter().map(|(_, v)| v.to_string()).collect();
                assert_eq!(names, ["A", "B", "C", "D", "E", "F", "G"]);
                assert_eq!(otherwise.to_string(), "H");
            },
        );
    }

    #[test]
    fn enum_errors_name_the_numbers() {
        assert_one(
            &errors_of(parse_quote! { #[repr(u8)] enum E { A, B, C } }),
            "has 3 variants",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(u8)] enum E { A, B, D = 3 } }),
            "add variants for 2 (to make 4, 2 bits) or remove 1",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(u8)] enum E { A, B, C, D = 5 } }),
            "discriminant 5 of `D` is outside 0..4",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(u8)] enum E { A = -1, B } }),
            "discriminant -1 of `A` is outside 0..2",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(u8)] enum E { A, B = 0 } }),
            "discriminant 0 of `B` is also the discriminant of `A`",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(u8)] enum E { A } }),
            "one variant",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(u8)] enum E {} }),
            "no variants",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(u8)] enum E { A = X, B } }),
            "discriminant `X` is not an integer literal",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(u8)] enum E { A(u8), B } }),
            "carries data",
        );
        assert_one(
            &errors_of(parse_quote! { enum E { A, B } }),
            "explicit integer repr",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(C)] enum E { A, B } }),
            "size of a C `int`",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(u8)] #[non_exhaustive] enum E { A, B } }),
            "`#[non_exhaustive]`",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(u8)] #[bitwidth(2)] enum E { A, B } }),
            "does not apply to an enum",
        );
    }

    #[test]
    fn all_errors_are_collected() {
        let errors = errors_of(parse_quote! {
            #[repr(Rust)]
            #[bitwidth(0)]
            #[bitpack(cratte = "x")]
            struct S<'a>(u8, &'a u8);
        });
        // unknown key, lifetime, repr(Rust) on a newtype, two fields, width 0
        assert_eq!(errors.len(), 5, "{errors:#?}");
        assert_one(
            &errors_of(
                parse_quote! { #[repr(C)] #[bitwidth(24)] struct S { r: u8, g: u8, b: u8 } },
            ),
            "does not apply to a `#[repr(C)]` aggregate",
        );
    }

    #[test]
    fn raw_pointer_fields_are_named() {
        assert_one(
            &errors_of(parse_quote! { #[repr(C)] struct N { v: u64, next: *const N } }),
            "field `next` is a raw pointer (`*const N`)",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(transparent)] struct P(*mut u8); }),
            "field `0` is a raw pointer (`*mut u8`)",
        );
        // A struct without one has no such error.
        assert!(errors_of(parse_quote! { #[repr(C)] struct V { v: u64 } }).is_empty());
    }

    #[test]
    fn narrow_newtype_widths() {
        form_of(
            parse_quote! { #[repr(transparent)] #[bitwidth(4)] struct F(u8); },
            |form| {
                let Form::Narrow { width, .. } = form else {
                    panic!("not narrow")
                };
                assert_eq!(*width, 4);
            },
        );
        form_of(
            parse_quote! { #[repr(transparent)] #[bitwidth(128)] struct F { x: Inner } },
            |form| {
                let Form::Narrow { width, .. } = form else {
                    panic!("not narrow")
                };
                assert_eq!(*width, 128);
            },
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(transparent)] #[bitwidth(9)] struct F(u8); }),
            "`#[bitwidth(9)]` does not fit in the field's `u8` (8 bits); the width must be 1..=8",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(transparent)] #[bitwidth(2)] struct F(bool); }),
            "(1 bit)",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(transparent)] #[bitwidth(129)] struct F(u128); }),
            "above 128",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(transparent)] #[bitwidth(0)] struct F(u8); }),
            "bitwidth(0)",
        );
        assert_one(
            &errors_of(parse_quote! { #[bitwidth(3)] struct F(u8); }),
            "no `#[repr(transparent)]`",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(transparent)] #[bitwidth(3)] struct F(u8, u8); }),
            "has exactly one field, but `F` has 2",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(transparent)] #[bitwidth(3)] struct F; }),
            "has no field",
        );
    }

    #[test]
    fn struct_layouts() {
        form_of(
            parse_quote! { #[repr(C)] struct Rgb { r: u8, g: u8, b: u8 } },
            |form| {
                assert!(matches!(form, Form::Aggregate { fields } if fields.len() == 3));
            },
        );
        form_of(
            parse_quote! { #[repr(transparent)] struct W<T>(T); },
            |form| {
                assert!(matches!(form, Form::Transparent { .. }));
            },
        );
        assert_one(
            &errors_of(parse_quote! { struct S(u8); }),
            "needs a `#[repr]`",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(Rust)] struct S(u8); }),
            "`#[repr(Rust)]`",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(packed)] struct S(u8); }),
            "`#[repr(C, packed)]`",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(C)] struct S<T>(T); }),
            "cannot be generic",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(C)] struct S {} }),
            "has no fields",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(C)] union U { a: u8 } }),
            "a union cannot",
        );
    }

    #[test]
    fn device_copy_layouts() {
        let errs = |input: DeriveInput| {
            let cx = Ctxt::new();
            let parsed = Input::from_syn(&cx, &input, Derive::DeviceCopy);
            device_copy(&cx, &parsed);
            cx.check()
                .err()
                .into_iter()
                .flatten()
                .map(|err| err.to_string())
                .collect::<Vec<_>>()
        };
        assert!(errs(parse_quote! { #[repr(C)] struct S { a: u8, b: u32 } }).is_empty());
        assert!(errs(parse_quote! { #[repr(C)] union U { a: u8, b: u32 } }).is_empty());
        assert!(errs(parse_quote! { #[repr(u8)] enum E { A(u32), B } }).is_empty());
        assert!(errs(parse_quote! { #[repr(C, u16)] enum E { A(f32), B } }).is_empty());
        assert_one(
            &errs(parse_quote! { struct S(u8); }),
            "needs a fixed layout",
        );
        assert_one(
            &errs(parse_quote! { #[repr(Rust)] struct S(u8); }),
            "`#[repr(Rust)]`",
        );
        assert_one(
            &errs(parse_quote! { #[repr(C)] enum E { A } }),
            "size of a C `int`",
        );
        assert_one(&errs(parse_quote! { enum E { A } }), "has no repr");
        assert_one(
            &errs(parse_quote! { #[repr(C)] struct S<'a>(&'a u8); }),
            "lifetime",
        );
    }

    #[test]
    fn record_errors_name_the_field_and_the_key() {
        form_of(
            parse_quote! { #[bitpack(record)] struct T { a: u3, #[bitpack(at = 5)] b: Kind } },
            |form| {
                assert!(
                    matches!(form, Form::Record { fields, default: false } if fields.len() == 2)
                )
            },
        );
        form_of(
            parse_quote! { #[repr(C)] #[bitpack(record, default)] struct T(u3, bool); },
            |form| assert!(matches!(form, Form::Record { default: true, .. })),
        );
        assert_one(
            &errors_of(
                parse_quote! { #[bitpack(record)] struct T { #[bitpack(at = 8)] a: u3, #[bitpack(at = 3)] b: u3 } },
            ),
            "`at = 3` places field `b` at or below field `a` (`at = 8`)",
        );
        assert_one(
            &errors_of(parse_quote! { #[bitpack(record)] struct T { #[bitpack(at = 128)] a: u3 } }),
            "`at = 128` is past the last bit of a record",
        );
        assert_one(
            &errors_of(
                parse_quote! { #[bitpack(record)] struct T { #[bitpack(reserved, default = 1)] a: u3 } },
            ),
            "`default = 1` on reserved field `a`",
        );
        assert!(
            errors_of(parse_quote! { #[bitpack(record)] struct T { #[bitpack(reserved, default = 0)] a: u3 } })
                .is_empty()
        );
        assert_one(
            &errors_of(
                parse_quote! { #[bitpack(record)] struct T { #[bitpack(reserved = ones, default = 7)] a: u3 } },
            ),
            "(`reserved = ones`: all ones)",
        );
        assert_one(
            &errors_of(
                parse_quote! { #[bitpack(record)] struct T { #[bitpack(reserved = maybe)] a: u3 } },
            ),
            "`reserved = maybe`",
        );
        assert_one(
            &errors_of(
                parse_quote! { #[bitpack(record)] struct T { #[bitpack(offset = 3)] a: u3 } },
            ),
            "unknown `bitpack` attribute `offset` on a record's field",
        );
        assert_one(
            &errors_of(parse_quote! { #[bitpack(record)] struct T { #[bitwidth(3)] a: u8 } }),
            "`#[bitwidth]` is not allowed on a record's field",
        );
        assert_one(
            &errors_of(parse_quote! { #[bitpack(record)] struct T<X> { a: X } }),
            "a record cannot be generic",
        );
        assert_one(
            &errors_of(parse_quote! { #[bitpack(record)] struct T {} }),
            "has no fields",
        );
        assert_one(
            &errors_of(parse_quote! { #[bitpack(record)] #[bitwidth(8)] struct T { a: u3 } }),
            "`#[bitwidth]` does not apply to a record",
        );
        assert_one(
            &errors_of(parse_quote! { #[bitpack(record)] #[repr(u8)] enum E { A, B } }),
            "`#[bitpack(record)]` applies to a struct",
        );
        assert_one(
            &errors_of(parse_quote! { #[bitpack(default)] #[repr(C)] struct S { a: u8 } }),
            "`#[bitpack(default)]` applies to a record",
        );
        assert_one(
            &errors_of(parse_quote! { #[bitpack(record, record)] struct T { a: u3 } }),
            "duplicate `record` key",
        );
        assert_one(
            &errors_of(parse_quote! { #[repr(C)] struct S { #[bitpack(at = 3)] a: u8 } }),
            "`#[bitpack]` is not allowed on a field",
        );
    }
}
