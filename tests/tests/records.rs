//! Packed records (`#[derive(BitElement)] #[bitpack(record)]`) against a
//! bit-by-bit reference of their layout: field `k` at the sum of the widths
//! before it (or at its `at`), records LSB-first in index order in a packed
//! array. Covers `raw_bits`, `from_raw_bits`, `try_from_raw_bits`, the
//! packed form's field access, arrays, views, columns and field sums, the
//! reserved fields and gaps, and each row of the comparison table in the
//! derive's docs (`table_*` tests).

#![allow(
    clippy::unusual_byte_groupings,
    reason = "binary literals are grouped by record field, not by nibble"
)]

use arbitrary_int::{i6, u2, u3, u4, u5, u6};
use bitpack::{
    BitElement, DeviceCopy, E2M1, Error, Field, NArray, NarrowArray, Packed, Record, WordAligned,
};
use proptest::prelude::*;
use static_assertions::assert_type_eq_all;

// ---- the records of the issue ----

#[derive(Clone, Copy, Debug, Default, PartialEq, BitElement)]
#[bitpack(record)]
struct Fp8Parts {
    man: u3,
    exp: u4,
    sign: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(u8)]
enum Kind {
    Ident,
    Number,
    Str,
    Op,
    Open,
    Close,
    Comma,
    End,
}

/// A token of a lexer, 15 bits.
#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[bitpack(record)]
struct Token {
    /// What the token is.
    kind: Kind,
    /// Its length in bytes.
    len: u5,
    /// Its distance from the previous token.
    delta: i6,
    flag: bool,
}

/// A record nesting a record and an `E2M1`: 8 + 4 + 3 = 15 bits.
#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[bitpack(record)]
struct Cell {
    parts: Fp8Parts,
    code: E2M1,
    tag: u3,
}

const FP8_WIDTHS: [u32; 3] = [3, 4, 1];
const TOKEN_WIDTHS: [u32; 4] = [3, 5, 6, 1];
const CELL_WIDTHS: [u32; 3] = [8, 4, 3];

// ---- the reference: one bit at a time ----

/// The record bits of `codes`, field `k` at the sum of the widths before it.
fn ref_pack(codes: &[u128], widths: &[u32]) -> u128 {
    let mut out = 0u128;
    let mut pos = 0;
    for (&c, &w) in codes.iter().zip(widths) {
        for b in 0..w {
            if (c >> b) & 1 == 1 {
                out |= 1 << (pos + b);
            }
        }
        pos += w;
    }
    out
}

/// The field codes of the record bits `raw`.
fn ref_unpack(raw: u128, widths: &[u32]) -> Vec<u128> {
    let mut pos = 0;
    widths
        .iter()
        .map(|&w| {
            let mut c = 0u128;
            for b in 0..w {
                c |= ((raw >> (pos + b)) & 1) << b;
            }
            pos += w;
            c
        })
        .collect()
}

/// The dense byte stream of records of `bits` bits, one bit at a time.
fn ref_stream(raws: &[u128], bits: u32) -> Vec<u8> {
    let total = raws.len() * bits as usize;
    let mut out = vec![0u8; total.div_ceil(8)];
    for (i, &r) in raws.iter().enumerate() {
        for b in 0..bits as usize {
            if (r >> b) & 1 == 1 {
                let at = i * bits as usize + b;
                out[at / 8] |= 1 << (at % 8);
            }
        }
    }
    out
}

fn mask(bits: u32) -> u128 {
    if bits == 128 {
        u128::MAX
    } else {
        (1 << bits) - 1
    }
}

/// A value of a field type from its code (the field type's own
/// `from_raw_bits`, tested on its own elsewhere).
fn of<F: BitElement>(code: u128) -> F {
    F::from_raw_bits(bitpack::Unsigned::from_u128_truncate(code))
}

fn code<F: BitElement>(v: F) -> u128 {
    bitpack::Unsigned::to_u128(v.raw_bits())
}

fn token(c: &[u128]) -> Token {
    Token {
        kind: of(c[0]),
        len: of(c[1]),
        delta: of(c[2]),
        flag: of(c[3]),
    }
}

fn fp8(c: &[u128]) -> Fp8Parts {
    Fp8Parts {
        man: of(c[0]),
        exp: of(c[1]),
        sign: of(c[2]),
    }
}

fn cell(c: &[u128]) -> Cell {
    Cell {
        parts: of(c[0]),
        code: of(c[1]),
        tag: of(c[2]),
    }
}

fn codes_for(widths: &'static [u32]) -> impl Strategy<Value = Vec<u128>> {
    widths
        .iter()
        .map(|&w| (0..=mask(w)).boxed())
        .collect::<Vec<_>>()
}

#[test]
fn widths_and_carriers() {
    assert_eq!(Fp8Parts::BITS, 8);
    assert_eq!(Token::BITS, 15);
    assert_eq!(Cell::BITS, 15);
    assert_type_eq_all!(<Fp8Parts as BitElement>::Raw, u8);
    assert_type_eq_all!(<Token as BitElement>::Raw, u16);
    assert_type_eq_all!(<Cell as BitElement>::Raw, u16);
    let offsets: Vec<(u32, u32)> = [
        Token::KIND.offset(),
        Token::LEN.offset(),
        Token::DELTA.offset(),
        Token::FLAG.offset(),
    ]
    .into_iter()
    .zip([
        Token::KIND.width(),
        Token::LEN.width(),
        Token::DELTA.width(),
        Token::FLAG.width(),
    ])
    .collect();
    assert_eq!(offsets, [(0, 3), (3, 5), (8, 6), (14, 1)]);
    assert_eq!(Cell::TAG.offset(), 12);
    let names: Vec<&str> = Token::FIELDS.iter().map(|f| f.name).collect();
    assert_eq!(names, ["kind", "len", "delta", "flag"]);
    assert_eq!(<Token as Record>::NAME, "Token");
}

#[test]
fn full_byte_aggregates_are_unchanged() {
    #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
    #[repr(C)]
    struct Rgb {
        r: u8,
        g: u8,
        b: u8,
    }
    assert_eq!(Rgb::BITS, 24);
    assert_type_eq_all!(<Rgb as BitElement>::Raw, u32);
    assert_eq!(Rgb { r: 1, g: 2, b: 3 }.raw_bits(), 0x03_02_01);
    // The same fields as a record: the same bits (byte fields fill their
    // bytes), but no `repr` needed and field constants given.
    #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
    #[bitpack(record)]
    struct RgbRecord {
        r: u8,
        g: u8,
        b: u8,
    }
    assert_eq!(RgbRecord::BITS, 24);
    assert_type_eq_all!(<RgbRecord as BitElement>::Raw, u32);
    assert_eq!(RgbRecord { r: 1, g: 2, b: 3 }.raw_bits(), 0x03_02_01);
    assert_eq!(RgbRecord::B.offset(), 16);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn fp8_parts_against_the_reference(c in codes_for(&FP8_WIDTHS), junk in any::<u8>()) {
        let v = fp8(&c);
        let raw = ref_pack(&c, &FP8_WIDTHS);
        prop_assert_eq!(u128::from(v.raw_bits()), raw);
        prop_assert_eq!(Fp8Parts::from_raw_bits(raw as u8), v);
        prop_assert_eq!(Fp8Parts::try_from_raw_bits(raw as u8), Ok(v));
        let r = junk;
        let back = Fp8Parts::from_raw_bits(r);
        prop_assert_eq!(
            vec![code(back.man), code(back.exp), code(back.sign)],
            ref_unpack(u128::from(r), &FP8_WIDTHS)
        );
        let p = Packed::new(v);
        prop_assert_eq!(code(p.get(Fp8Parts::MAN)), c[0]);
        prop_assert_eq!(code(p.get(Fp8Parts::EXP)), c[1]);
        prop_assert_eq!(code(p.get(Fp8Parts::SIGN)), c[2]);
        prop_assert_eq!(Fp8Parts::EXP.code(raw), c[1]);
    }

    #[test]
    fn token_against_the_reference(
        c in codes_for(&TOKEN_WIDTHS),
        d in codes_for(&TOKEN_WIDTHS),
        high in any::<bool>(),
    ) {
        let v = token(&c);
        let raw = ref_pack(&c, &TOKEN_WIDTHS);
        prop_assert_eq!(u128::from(v.raw_bits()), raw);
        // Bits above BITS are ignored.
        let with_high = raw as u16 | (u16::from(high) << 15);
        prop_assert_eq!(Token::from_raw_bits(with_high), v);
        prop_assert_eq!(Token::try_from_raw_bits(with_high), Ok(v));
        // get, set and with on the packed form, field by field.
        let mut p = Packed::new(v);
        prop_assert_eq!(p.get(Token::KIND), v.kind);
        prop_assert_eq!(p.get(Token::LEN), v.len);
        prop_assert_eq!(p.get(Token::DELTA), v.delta);
        prop_assert_eq!(p.get(Token::FLAG), v.flag);
        let w = token(&d);
        p.set(Token::LEN, w.len);
        let mut expect = c.clone();
        expect[1] = d[1];
        prop_assert_eq!(u128::from(p.raw()), ref_pack(&expect, &TOKEN_WIDTHS));
        let q = p.with(Token::DELTA, w.delta).with(Token::KIND, w.kind);
        expect[2] = d[2];
        expect[0] = d[0];
        prop_assert_eq!(u128::from(q.raw()), ref_pack(&expect, &TOKEN_WIDTHS));
        prop_assert_eq!(q.unpack(), token(&expect));
        // The const code paths agree.
        prop_assert_eq!(Token::DELTA.code(raw), c[2]);
        prop_assert_eq!(
            Token::FLAG.with_code(raw, d[3]),
            ref_pack(&[c[0], c[1], c[2], d[3]], &TOKEN_WIDTHS)
        );
    }

    #[test]
    fn nested_cell_against_the_reference(c in codes_for(&CELL_WIDTHS), r in any::<u16>()) {
        let v = cell(&c);
        let raw = ref_pack(&c, &CELL_WIDTHS);
        prop_assert_eq!(u128::from(v.raw_bits()), raw);
        prop_assert_eq!(Cell::from_raw_bits(raw as u16), v);
        prop_assert_eq!(Cell::try_from_raw_bits(raw as u16), Ok(v));
        let back = Cell::from_raw_bits(r);
        prop_assert_eq!(
            vec![code(back.parts), code(back.code), code(back.tag)],
            ref_unpack(u128::from(r), &CELL_WIDTHS)
        );
        // The nested record's fields, through the outer record's bits.
        let inner = ref_unpack(c[0], &FP8_WIDTHS);
        let p = Packed::new(v);
        prop_assert_eq!(code(p.get(Cell::PARTS).exp), inner[1]);
        prop_assert_eq!(p.get(Cell::CODE), v.code);
    }

    #[test]
    fn arrays_views_and_columns(
        records in prop::collection::vec(codes_for(&TOKEN_WIDTHS), 0..300),
        replace in codes_for(&TOKEN_WIDTHS),
        at in any::<prop::sample::Index>(),
        step in 1isize..7,
    ) {
        let tokens: Vec<Token> = records.iter().map(|c| token(c)).collect();
        let raws: Vec<u128> = records.iter().map(|c| ref_pack(c, &TOKEN_WIDTHS)).collect();
        let mut a = NarrowArray::from_slice(&tokens);
        prop_assert_eq!(a.as_bytes(), &ref_stream(&raws, 15)[..]);
        for (i, t) in tokens.iter().enumerate() {
            prop_assert_eq!(a.get(i), Some(*t));
        }
        // Columns and sums, against the reference codes.
        let column = |k: usize| -> Vec<u128> { records.iter().map(|c| c[k]).collect() };
        let lens = a.field(Token::LEN);
        prop_assert_eq!(lens.len(), tokens.len());
        prop_assert_eq!(lens.to_vec().into_iter().map(code).collect::<Vec<_>>(), column(1));
        prop_assert_eq!(
            a.field(Token::DELTA).to_vec().into_iter().map(code).collect::<Vec<_>>(),
            column(2)
        );
        prop_assert_eq!(
            a.field(Token::KIND).to_vec().into_iter().map(code).collect::<Vec<_>>(),
            column(0)
        );
        prop_assert_eq!(a.field_sum(Token::LEN), column(1).iter().sum::<u128>());
        prop_assert_eq!(a.field_sum(Token::FLAG), column(3).iter().sum::<u128>());
        // Views: strided and reversed.
        let v = a.view().step_by(0, step).unwrap();
        let picked: Vec<u128> = column(1).into_iter().step_by(step as usize).collect();
        prop_assert_eq!(
            v.field(Token::LEN).to_vec().into_iter().map(code).collect::<Vec<_>>(),
            picked.clone()
        );
        prop_assert_eq!(v.field_sum(Token::LEN), picked.iter().sum::<u128>());
        let rev: Vec<u128> = column(2).into_iter().rev().collect();
        prop_assert_eq!(
            a.view().reversed(0).unwrap().field(Token::DELTA).to_vec().into_iter().map(code).collect::<Vec<_>>(),
            rev
        );
        // The word-aligned layout gives the same columns.
        let w = NarrowArray::<Token, WordAligned>::from_slice_in(&tokens);
        prop_assert_eq!(w.field(Token::DELTA).to_vec(), a.field(Token::DELTA).to_vec());
        prop_assert_eq!(w.field_sum(Token::LEN), a.field_sum(Token::LEN));
        if !tokens.is_empty() {
            // set one record.
            let i = at.index(tokens.len());
            let mut raws2 = raws.clone();
            a.set(i, token(&replace)).unwrap();
            raws2[i] = ref_pack(&replace, &TOKEN_WIDTHS);
            prop_assert_eq!(a.as_bytes(), &ref_stream(&raws2, 15)[..]);
            // scatter a column back: the reversed lens.
            let new_lens: Vec<u5> = a.field(Token::LEN).to_vec().into_iter().rev().collect();
            let mut w2 = w.clone();
            a.set_field(Token::LEN, &NarrowArray::from_slice(&new_lens)).unwrap();
            w2.set_field(Token::LEN, &NarrowArray::from_slice(&new_lens)).unwrap();
            let raws3: Vec<u128> = raws2
                .iter()
                .zip(&new_lens)
                .map(|(&r, &l)| {
                    let mut c = ref_unpack(r, &TOKEN_WIDTHS);
                    c[1] = code(l);
                    ref_pack(&c, &TOKEN_WIDTHS)
                })
                .collect();
            prop_assert_eq!(a.as_bytes(), &ref_stream(&raws3, 15)[..]);
            prop_assert_eq!(w2.field(Token::LEN).to_vec(), new_lens);
            prop_assert_eq!(w2.field(Token::KIND).to_vec(), w.field(Token::KIND).to_vec());
        }
    }
}

#[test]
fn a_million_tokens_are_15_bits_each() {
    let tokens: Vec<Token> = (0..1_000_000u32)
        .map(|i| {
            token(&[
                u128::from(i % 8),
                u128::from(i % 32),
                u128::from(i % 64),
                u128::from(i % 2),
            ])
        })
        .collect();
    let a = NarrowArray::from_slice(&tokens);
    assert_eq!(a.as_bytes().len(), 15 * 1_000_000 / 8);
    let want: u128 = (0..1_000_000u128).map(|i| i % 32).sum();
    assert_eq!(a.field_sum(Token::LEN), want);
}

#[test]
fn set_field_checks_the_length_first() {
    let mut a = NarrowArray::from_slice(&[Fp8Parts::default(); 4]);
    let before = a.as_bytes().to_vec();
    let err = a
        .set_field(Fp8Parts::EXP, &NarrowArray::from_slice(&[u4::new(1); 3]))
        .unwrap_err();
    assert_eq!(err.to_string(), "the column holds 3 values for 4 records");
    assert_eq!(a.as_bytes(), before);
}

#[test]
fn multi_dimensional_columns_keep_the_shape() {
    let mut a: NarrowArray<Fp8Parts> = (0..12u8)
        .map(|i| fp8(&[u128::from(i % 8), u128::from(i), 0]))
        .collect();
    a.reshape(&[3, 4]).unwrap();
    let exp = a.field(Fp8Parts::EXP);
    assert_eq!(exp.shape(), [3, 4]);
    let col = a.view().transpose().field(Fp8Parts::EXP);
    assert_eq!(col.shape(), [4, 3]);
    assert_eq!(col.get(1), Some(u4::new(4)));
    let axis = a.view().select(1, 2).unwrap();
    assert_eq!(axis.field_sum(Fp8Parts::EXP), 2 + 6 + 10);
}

// ---- reserved fields, explicit placement, gaps ----

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[bitpack(record)]
struct Header {
    version: u2,
    #[bitpack(reserved)]
    _pad: u6,
    length: u8,
}

/// Bits 0..3 `a`, 3..5 a gap, 5..9 `b`, 9..11 reserved ones.
#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[bitpack(record, default)]
struct Spaced {
    a: u3,
    #[bitpack(at = 5, default = 9)]
    b: u4,
    #[bitpack(reserved = ones)]
    c: u2,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[bitpack(record)]
struct Outer {
    flag: bool,
    header: Header,
}

#[test]
fn reserved_fields_and_gaps_have_no_setters_and_fixed_bits() {
    assert_eq!(Header::BITS, 16);
    assert_eq!(Spaced::BITS, 11);
    assert_eq!(Spaced::B.offset(), 5);
    assert_eq!(Spaced::FIELDS[2].reserved, Some(true));
    assert_eq!(Header::FIELDS[1].reserved, Some(false));
    // Default: the reserved ones, `default = 9`, the others' defaults.
    let d = Spaced::default();
    assert_eq!(d.raw_bits(), 0b11_1001_00_000);
    assert_eq!(Spaced::try_from_raw_bits(d.raw_bits()), Ok(d));
}

proptest! {
    #[test]
    fn spaced_checks_against_the_reference(r in 0u16..1 << 11, high in 0u16..32) {
        let raw = r | (high << 11);
        let a = u128::from(r & 0b111);
        let gap = u128::from((r >> 3) & 0b11);
        let b = u128::from((r >> 5) & 0b1111);
        let c = u128::from((r >> 9) & 0b11);
        // Total: every field as the reference reads it, the gap ignored.
        let v = Spaced::from_raw_bits(raw);
        prop_assert_eq!((code(v.a), code(v.b), code(v.c)), (a, b, c));
        prop_assert_eq!(u128::from(v.raw_bits()), u128::from(r) & !0b11_000);
        let want = if c != 0b11 {
            Err(Error::RecordField {
                record: "Spaced",
                field: "c",
                offset: 9,
                bits: 2,
                code: c,
                rule: "all ones",
            })
        } else if gap != 0 {
            Err(Error::RecordField {
                record: "Spaced",
                field: "(gap)",
                offset: 3,
                bits: 2,
                code: gap,
                rule: "all zeros",
            })
        } else {
            Ok(v)
        };
        prop_assert_eq!(Spaced::try_from_raw_bits(raw), want);
    }

    #[test]
    fn nested_reserved_bits_are_checked(r in any::<u32>()) {
        let r = r & mask(17) as u32;
        let pad = u128::from((r >> 3) & 0b11_1111);
        let got = Outer::try_from_raw_bits(r);
        if pad == 0 {
            prop_assert_eq!(got, Ok(Outer::from_raw_bits(r)));
        } else {
            prop_assert_eq!(got, Err(Error::RecordField {
                record: "Header",
                field: "_pad",
                offset: 2,
                bits: 6,
                code: pad,
                rule: "all zeros",
            }));
        }
    }
}

#[test]
fn record_errors_read_well() {
    let e = Spaced::try_from_raw_bits(0b11_0000_01_000).unwrap_err();
    assert_eq!(
        e.to_string(),
        "record `Spaced`: the gap at bits 3..5 holds 0b1 (1), must be all zeros"
    );
    let e = Spaced::try_from_raw_bits(0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "record `Spaced`: reserved field `c` (bits 9..11) holds 0b0 (0), must be all ones"
    );
    assert!(Packed::<Spaced>::try_from_raw(0).is_err());
    assert!(Packed::<Spaced>::try_from_raw(0b11_0000_00_000).is_ok());
}

// ---- Debug, Binary, const, device, DLPack ----

#[test]
fn debug_and_binary() {
    let t = token(&[2, 7, 0b111111, 1]);
    assert_eq!(
        format!("{t:?}"),
        "Token { kind: Str, len: 7, delta: -1, flag: true }"
    );
    let p = Packed::new(t);
    assert_eq!(format!("{p:b}"), "111111100111010");
    assert_eq!(format!("{p:#b}"), "0b111111100111010");
    assert_eq!(format!("{p:x}"), "7f3a");
    assert_eq!(
        format!("{p:?}"),
        "Packed(0x7f3a: Token { kind: Str, len: 7, delta: -1, flag: true })"
    );
    assert_eq!(format!("{:?}", Token::LEN), "Field(bits 3..8)");
}

const LEN: Field<Token, u5> = Token::LEN;
const LEN_END: u32 = LEN.end();
const FROM_CONST: u128 = Token::LEN.with_code(0, 21);
static_assertions::const_assert_eq!(LEN_END, 8);
static_assertions::const_assert_eq!(FROM_CONST, 21 << 3);

fn widest_field<R: BitElement, F: BitElement>(fields: &[Field<R, F>]) -> u32 {
    fields.iter().map(|f| f.width()).max().unwrap_or(0)
}

#[test]
fn fields_in_const_and_generic_code() {
    assert_eq!(Token::LEN.code(FROM_CONST), 21);
    assert_eq!(widest_field(&[Fp8Parts::MAN, Fp8Parts::MAN]), 3);
    assert_eq!(Token::DELTA.mask(), 0b111111 << 8);
}

/// A record for a kernel argument: `repr(C)` for `DeviceCopy`.
#[derive(Clone, Copy, Debug, PartialEq, BitElement, DeviceCopy)]
#[repr(C)]
#[bitpack(record)]
struct DeviceRecord {
    lo: u3,
    #[bitpack(at = 4)]
    hi: u4,
}

fn device_copy<T: DeviceCopy>(_: &T) -> usize {
    core::mem::size_of::<T>()
}

#[test]
fn records_go_to_the_device() {
    let r = DeviceRecord {
        lo: u3::new(5),
        hi: u4::new(9),
    };
    assert_eq!(r.raw_bits(), 0x95);
    assert_eq!(device_copy(&r), 2);
    assert_eq!(device_copy(&Packed::new(r)), 1);
    assert_eq!(device_copy(&Packed::new(token(&[1, 2, 3, 0]))), 2);
    // Records in the value layout: four tokens in 60 bits, one u64.
    let lanes = NArray::<Token, 4>::new([token(&[1, 2, 3, 0]); 4]);
    let one = ref_pack(&[1, 2, 3, 0], &TOKEN_WIDTHS);
    let want = (0..4).fold(0u128, |acc, i| acc | one << (15 * i));
    assert_eq!(u128::from(lanes.raw_bits()), want);
}

#[cfg(feature = "dlpack")]
#[test]
fn records_export_to_dlpack_as_their_carrier_bits() {
    use bitpack::dlpack::{DlpackElement, DlpackTensor, code};
    assert_eq!(<Token as DlpackElement>::DTYPE.code, code::UINT);
    assert_eq!(<Token as DlpackElement>::DTYPE.bits, 15);
    let tokens = [token(&[1, 2, 3, 0]), token(&[7, 31, 63, 1])];
    let a = NarrowArray::from_slice(&tokens);
    let bytes = a.as_bytes().to_vec();
    let t = DlpackTensor::from_narrow_array(a);
    assert_eq!(t.shape(), [2]);
    assert_eq!((t.dtype().code, t.dtype().bits), (code::UINT, 15));
    let back = t.as_narrow_ref::<Token>().unwrap();
    assert_eq!(back.to_vec(), tokens);
    assert_eq!(back.as_bytes(), bytes);
}

// ---- the comparison table of the derive's docs, one test per row ----

/// Bit order: first field in the lowest bits (bilge, bitfield-struct and
/// modular-bitfield agree; PackedStructs.jl does not).
#[test]
fn table_bit_order() {
    let v = fp8(&[0b101, 0, 0]);
    assert_eq!(v.raw_bits(), 0b101);
    let v = fp8(&[0, 0, 1]);
    assert_eq!(v.raw_bits(), 0b1000_0000);
}

/// Widths: any field width 1..=128, any total up to 128, odd totals
/// allowed (15 bits is 15 bits in an array, not 16).
#[test]
fn table_widths() {
    #[derive(Clone, Copy, BitElement)]
    #[bitpack(record)]
    struct Wide {
        a: arbitrary_int::u100,
        b: u6,
        c: arbitrary_int::u22,
    }
    assert_eq!(Wide::BITS, 128);
    assert_type_eq_all!(<Wide as BitElement>::Raw, u128);
    // An `NArray` field: three 2-bit lanes, 6 bits, lane 0 lowest.
    #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
    #[bitpack(record)]
    struct WithLanes {
        lanes: NArray<u2, 3>,
        tail: u3,
    }
    assert_eq!(WithLanes::BITS, 9);
    let v = WithLanes {
        lanes: NArray::new([u2::new(1), u2::new(2), u2::new(3)]),
        tail: u3::new(5),
    };
    assert_eq!(v.raw_bits(), 0b101_11_10_01);
    assert_eq!(WithLanes::from_raw_bits(v.raw_bits()), v);
    assert_eq!(
        Packed::new(v).get(WithLanes::LANES).to_array()[2],
        u2::new(3)
    );
    let a = NarrowArray::from_slice(&[token(&[1, 2, 3, 0]); 8]);
    assert_eq!(a.as_bytes().len(), 15);
}

/// Enums: a fieldless enum of 2^k variants is a k-bit field, every code a
/// variant; an enum with unused codes names a fallback variant, which they
/// decode to, so `from_raw_bits` is total either way.
#[test]
fn table_enums() {
    for k in 0..8u128 {
        let t = token(&[k, 0, 0, 0]);
        assert_eq!(code(t.kind), k);
        assert_eq!(Token::from_raw_bits(k as u16).kind, t.kind);
    }
    #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
    #[repr(u8)]
    enum Op {
        Add,
        Sub,
        Mul,
        Div,
        Neg,
        #[bitpack(fallback)]
        Invalid,
    }
    #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
    #[bitpack(record)]
    struct Instr {
        op: Op,
        reg: u4,
    }
    assert_eq!(Op::BITS, 3); // 6 variants: codes 6 and 7 are unused
    assert_eq!(Instr::BITS, 7);
    assert_eq!(Instr::from_raw_bits(0b0101_010).op, Op::Mul);
    assert_eq!(Instr::from_raw_bits(0b0101_111).op, Op::Invalid);
    assert_eq!(
        Instr::try_from_raw_bits(0b0101_110).unwrap().op,
        Op::Invalid
    );
    assert_eq!(Instr::from_raw_bits(0b0101_111).reg, u4::new(5));
    #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
    #[repr(u8)]
    enum Sparse {
        A = 0,
        B = 5,
        #[bitpack(fallback)]
        Other = 7,
    }
    assert_eq!(Sparse::BITS, 3);
    assert_eq!(Sparse::from_raw_bits(5), Sparse::B);
    assert_eq!(Sparse::from_raw_bits(3), Sparse::Other);
}

/// Reserved fields: not settable (no field constant), fixed bits checked
/// by `try_from_raw_bits`, set by the `Default` of `#[bitpack(default)]`.
#[test]
fn table_reserved() {
    assert_eq!(Header::FIELDS.len(), 3);
    assert!(Header::try_from_raw_bits(0b100).is_err());
    assert_eq!(Spaced::default().c, u2::new(3));
    let _: Field<Header, u8> = Header::LENGTH; // `Header::_PAD` does not exist
    let _ = u6::new(0);
}

/// Const accessors: offsets, widths, masks and code reads/writes are
/// `const fn`s.
#[test]
fn table_const_accessors() {
    const MASK: u128 = Token::DELTA.mask();
    const CODE: u128 = Token::DELTA.code(MASK);
    assert_eq!(CODE, 63);
}

/// Arrays: records pack densely into `NarrowArray`, 15 bits each.
#[test]
fn table_arrays() {
    let a = NarrowArray::from_slice(&[token(&[7, 31, 63, 1]); 3]);
    assert_eq!(a.as_bytes(), ref_stream(&[mask(15); 3], 15));
}

/// Views: strided views of records and their columns.
#[test]
fn table_views() {
    let a: NarrowArray<Token> = (0..10u128).map(|i| token(&[0, i, 0, 0])).collect();
    let odd = a.view().slice(0, 1..10).unwrap().step_by(0, 2).unwrap();
    assert_eq!(odd.field_sum(Token::LEN), 1 + 3 + 5 + 7 + 9);
    let mut a = a;
    let mut even = a.view_mut().step_by(0, 2).unwrap();
    even.set_field(Token::LEN, &NarrowArray::from_slice(&[u5::new(0); 5]))
        .unwrap();
    assert_eq!(a.field_sum(Token::LEN), 1 + 3 + 5 + 7 + 9);
}

/// GPU: records are `DeviceCopy` where they are `repr(C)`, their packed form
/// always; the derive's code is `no_std` (`cargo build -p bitpacked
/// --no-default-features` builds the doctests' records too).
#[test]
fn table_gpu() {
    assert_eq!(device_copy(&Packed::new(fp8(&[1, 2, 1]))), 1);
}

#[cfg(feature = "arrow")]
#[test]
fn records_export_to_arrow_as_a_struct_of_field_codes() {
    use arrow_array::{Array, BooleanArray, UInt8Array};
    let records: Vec<Vec<u128>> = (0..100u128)
        .map(|i| vec![i % 8, (i * 7) % 32, (i * 13) % 64, i % 3 % 2])
        .collect();
    let tokens: Vec<Token> = records.iter().map(|c| token(c)).collect();
    let s = NarrowArray::from_slice(&tokens).to_struct_array().unwrap();
    assert_eq!(s.column_names(), ["kind", "len", "delta", "flag"]);
    assert_eq!(s.len(), 100);
    for k in 0..4 {
        let col = s.column(k).as_any().downcast_ref::<UInt8Array>().unwrap();
        let want: Vec<u8> = records.iter().map(|c| c[k] as u8).collect();
        assert_eq!(col.values().to_vec(), want, "field {k}");
    }
    assert!(
        s.column(3)
            .as_any()
            .downcast_ref::<BooleanArray>()
            .is_none()
    );
    // Reserved fields are left out; a field over 64 bits is an error.
    let h = NarrowArray::from_slice(&[Header::from_raw_bits(0x2A01)]);
    assert_eq!(
        h.to_struct_array().unwrap().column_names(),
        ["version", "length"]
    );
    #[derive(Clone, Copy, BitElement)]
    #[bitpack(record)]
    struct Wide {
        a: arbitrary_int::u65,
        b: bool,
    }
    let w = NarrowArray::from_slice(&[Wide {
        a: arbitrary_int::u65::new(1),
        b: true,
    }]);
    assert_eq!(
        w.to_struct_array().unwrap_err(),
        Error::Width { width: 65, max: 64 }
    );
}

// ---- wider records: the `u64` and `u128` lanes of the column paths ----

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[bitpack(record)]
struct Mid {
    a: arbitrary_int::u13,
    b: arbitrary_int::u20,
    c: bool,
    d: u6,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[bitpack(record)]
struct Big {
    a: arbitrary_int::u100,
    b: u6,
    c: arbitrary_int::u22,
}

const MID_WIDTHS: [u32; 4] = [13, 20, 1, 6];
const BIG_WIDTHS: [u32; 3] = [100, 6, 22];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn wide_record_columns_against_the_reference(
        mids in prop::collection::vec(codes_for(&MID_WIDTHS), 0..1100),
        bigs in prop::collection::vec(codes_for(&BIG_WIDTHS), 0..80),
        step in 1isize..5,
    ) {
        assert_eq!((Mid::BITS, Big::BITS), (40, 128));
        let m: Vec<Mid> = mids.iter().map(|c| Mid { a: of(c[0]), b: of(c[1]), c: of(c[2]), d: of(c[3]) }).collect();
        let raws: Vec<u128> = mids.iter().map(|c| ref_pack(c, &MID_WIDTHS)).collect();
        let a = NarrowArray::from_slice(&m);
        prop_assert_eq!(a.as_bytes(), &ref_stream(&raws, 40)[..]);
        let col = |k: usize| -> Vec<u128> { mids.iter().map(|c| c[k]).collect() };
        prop_assert_eq!(a.field(Mid::B).to_vec().into_iter().map(code).collect::<Vec<_>>(), col(1));
        prop_assert_eq!(a.field_sum(Mid::B), col(1).iter().sum::<u128>());
        prop_assert_eq!(a.field_sum(Mid::D), col(3).iter().sum::<u128>());
        let strided: Vec<u128> = col(0).into_iter().step_by(step as usize).collect();
        prop_assert_eq!(
            a.view().step_by(0, step).unwrap().field(Mid::A).to_vec().into_iter().map(code).collect::<Vec<_>>(),
            strided
        );
        let w = NarrowArray::<Mid, WordAligned>::from_slice_in(&m);
        prop_assert_eq!(w.field_sum(Mid::B), a.field_sum(Mid::B));
        // Write a column back: every `c` flipped.
        let flipped: Vec<bool> = m.iter().map(|r| !r.c).collect();
        let mut a2 = a.clone();
        a2.set_field(Mid::C, &NarrowArray::from_slice(&flipped)).unwrap();
        let want: Vec<u128> = mids
            .iter()
            .map(|c| ref_pack(&[c[0], c[1], 1 - c[2], c[3]], &MID_WIDTHS))
            .collect();
        prop_assert_eq!(a2.as_bytes(), &ref_stream(&want, 40)[..]);

        let b: Vec<Big> = bigs.iter().map(|c| Big { a: of(c[0]), b: of(c[1]), c: of(c[2]) }).collect();
        let braws: Vec<u128> = bigs.iter().map(|c| ref_pack(c, &BIG_WIDTHS)).collect();
        let mut ba = NarrowArray::from_slice(&b);
        prop_assert_eq!(ba.as_bytes(), &ref_stream(&braws, 128)[..]);
        let bcol = |k: usize| -> Vec<u128> { bigs.iter().map(|c| c[k]).collect() };
        prop_assert_eq!(ba.field(Big::A).to_vec().into_iter().map(code).collect::<Vec<_>>(), bcol(0));
        prop_assert_eq!(ba.field_sum(Big::C), bcol(2).iter().sum::<u128>());
        let zeros = NarrowArray::from_slice(&vec![u6::new(0); b.len()]);
        ba.set_field(Big::B, &zeros).unwrap();
        let bwant: Vec<u128> = bigs.iter().map(|c| ref_pack(&[c[0], 0, c[2]], &BIG_WIDTHS)).collect();
        prop_assert_eq!(ba.as_bytes(), &ref_stream(&bwant, 128)[..]);
    }
}

#[test]
fn field_sums_of_broadcast_views_are_bounded_by_the_records_stored() {
    let a: NarrowArray<Fp8Parts> = (0..4u128).map(|i| fp8(&[0, i + 1, 0])).collect();
    // Element 2 (`exp` = 3) seen usize::MAX times: one read, one multiply.
    let wide = a.view_strided(&[usize::MAX], &[0], 2).unwrap();
    assert_eq!(wide.field_sum(Fp8Parts::EXP), 3 * usize::MAX as u128);
    // An outer broadcast axis over a reversed row.
    let grid = a.view_strided(&[1 << 40, 4], &[0, -1], 3).unwrap();
    assert_eq!(grid.field_sum(Fp8Parts::EXP), 10 << 40);
    assert_eq!(
        grid.select(0, 7).unwrap().field(Fp8Parts::EXP).to_vec(),
        [4, 3, 2, 1].map(u4::new)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn view_column_writes_against_the_reference(
        records in prop::collection::vec(codes_for(&TOKEN_WIDTHS), 1..1500),
        step in 1isize..4,
        reverse in any::<bool>(),
        seed in any::<u8>(),
    ) {
        let tokens: Vec<Token> = records.iter().map(|c| token(c)).collect();
        let mut a = NarrowArray::from_slice(&tokens);
        let mut v = a.view_mut().step_by(0, step).unwrap();
        if reverse {
            v = v.reversed(0).unwrap();
        }
        // The indices the view reaches, in its logical order.
        let mut picked: Vec<usize> = (0..records.len()).step_by(step as usize).collect();
        if reverse {
            picked.reverse();
        }
        let col: Vec<i6> = (0..picked.len())
            .map(|k| of::<i6>(u128::from(seed).wrapping_add(k as u128 * 7) % 64))
            .collect();
        prop_assert_eq!(v.field(Token::DELTA).len(), picked.len());
        v.set_field(Token::DELTA, &NarrowArray::from_slice(&col)).unwrap();
        prop_assert!(v.set_field(Token::DELTA, &NarrowArray::from_slice(&col[1..])).is_err());
        let mut want = records.clone();
        for (k, &i) in picked.iter().enumerate() {
            want[i][2] = code(col[k]);
        }
        let raws: Vec<u128> = want.iter().map(|c| ref_pack(c, &TOKEN_WIDTHS)).collect();
        prop_assert_eq!(a.as_bytes(), &ref_stream(&raws, 15)[..]);
    }
}

#[test]
fn a_broadcast_view_keeps_the_last_code_written() {
    let mut a = NarrowArray::from_slice(&[fp8(&[1, 2, 1]), fp8(&[3, 4, 0])]);
    let mut v = a.view_strided_mut(&[3], &[0], 1).unwrap();
    v.set_field(
        Fp8Parts::EXP,
        &NarrowArray::from_slice(&[u4::new(7), u4::new(8), u4::new(9)]),
    )
    .unwrap();
    assert_eq!(a.to_vec(), [fp8(&[1, 2, 1]), fp8(&[3, 9, 0])]);
}
