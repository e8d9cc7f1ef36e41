//! Every `#[derive(BitElement)]` form against a reference model of its bits:
//! `BITS`, `Raw` (by type), masking in `raw_bits`, truncation in
//! `from_raw_bits`, and round trips on every pattern up to 16 bits and
//! random patterns above; plus the default storage (`Lanes`) the derive
//! gives non-generic types.

use bitpack::{BitElement, Lanes};
use bitpack_tests::element::{Model, check, mask};
use proptest::prelude::*;
use static_assertions::assert_type_eq_all;

// ---- narrow newtypes ----

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
struct Float4(u8);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(6)]
struct Float6(u8);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(12)]
struct Fixed12 {
    bits: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(3)]
struct Low3OfFloat4(Float4);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(5)]
struct Low5OfU7(arbitrary_int::u7);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(6)]
struct Low6OfI8(i8);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(100)]
struct Wide100(u128);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(20)]
struct Odd20(u32);

assert_type_eq_all!(<Float4 as BitElement>::Raw, u8);
assert_type_eq_all!(<Fixed12 as BitElement>::Raw, u16);
assert_type_eq_all!(<Low3OfFloat4 as BitElement>::Raw, u8);
assert_type_eq_all!(<Low5OfU7 as BitElement>::Raw, u8);
assert_type_eq_all!(<Low6OfI8 as BitElement>::Raw, u8);
assert_type_eq_all!(<Wide100 as BitElement>::Raw, u128);
assert_type_eq_all!(<Odd20 as BitElement>::Raw, u32);

#[test]
fn narrow_newtypes() {
    check(Model::<Float4> {
        bits: 4,
        to_bits: |x| (x.0 & 0xF).into(),
        from_bits: |b| Float4(b as u8),
    });
    check(Model::<Float6> {
        bits: 6,
        to_bits: |x| (x.0 & 0x3F).into(),
        from_bits: |b| Float6(b as u8),
    });
    check(Model::<Fixed12> {
        bits: 12,
        to_bits: |x| (x.bits & 0xFFF).into(),
        from_bits: |b| Fixed12 { bits: b as u16 },
    });
    check(Model::<Low3OfFloat4> {
        bits: 3,
        to_bits: |x| (x.0.0 & 0b111).into(),
        from_bits: |b| Low3OfFloat4(Float4(b as u8)),
    });
    check(Model::<Low5OfU7> {
        bits: 5,
        to_bits: |x| (x.0.value() & 0x1F).into(),
        from_bits: |b| Low5OfU7(arbitrary_int::u7::new(b as u8)),
    });
    check(Model::<Low6OfI8> {
        bits: 6,
        to_bits: |x| (x.0 as u8 & 0x3F).into(),
        from_bits: |b| Low6OfI8(b as u8 as i8),
    });
    check(Model::<Wide100> {
        bits: 100,
        to_bits: |x| x.0 & mask(100),
        from_bits: Wide100,
    });
    check(Model::<Odd20> {
        bits: 20,
        to_bits: |x| (x.0 & 0xF_FFFF).into(),
        from_bits: |b| Odd20(b as u32),
    });
}

#[test]
fn narrow_newtypes_clear_the_bits_their_field_holds_above_the_width() {
    // A narrow newtype's field may hold any value; raw_bits keeps the low bits.
    for v in 0..=u8::MAX {
        assert_eq!(Float4(v).raw_bits(), v & 0xF, "Float4({v:#x})");
        assert_eq!(Float6(v).raw_bits(), v & 0x3F, "Float6({v:#x})");
        assert_eq!(
            Low3OfFloat4(Float4(v)).raw_bits(),
            v & 0b111,
            "Low3OfFloat4({v:#x})"
        );
        assert_eq!(Low6OfI8(v as i8).raw_bits(), v & 0x3F, "Low6OfI8({v:#x})");
    }
    for v in 0..=u16::MAX {
        assert_eq!(Fixed12 { bits: v }.raw_bits(), v & 0xFFF, "Fixed12({v:#x})");
    }
}

proptest! {
    #[test]
    fn wide_newtypes_clear_high_field_bits(v: u128, w: u32) {
        prop_assert_eq!(Wide100(v).raw_bits(), v & mask(100));
        prop_assert_eq!(Odd20(w).raw_bits(), w & 0xF_FFFF);
        // from_raw_bits stores the masked bits in the field.
        prop_assert_eq!(Wide100::from_raw_bits(v).0, v & mask(100));
        prop_assert_eq!(Odd20::from_raw_bits(w).0, w & 0xF_FFFF);
    }
}

// ---- repr(transparent) wrappers ----

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
struct Meters(f32);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
struct Flag {
    set: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
struct Scaled(Float6);

assert_type_eq_all!(<Meters as BitElement>::Raw, u32);
assert_type_eq_all!(<Flag as BitElement>::Raw, u8);
assert_type_eq_all!(<Scaled as BitElement>::Raw, u8);

#[test]
fn transparent_wrappers_are_their_field() {
    check(Model::<Meters> {
        bits: 32,
        to_bits: |x| x.0.to_bits().into(),
        from_bits: |b| Meters(f32::from_bits(b as u32)),
    });
    check(Model::<Flag> {
        bits: 1,
        to_bits: |x| x.set.into(),
        from_bits: |b| Flag { set: b == 1 },
    });
    check(Model::<Scaled> {
        bits: 6,
        to_bits: |x| (x.0.0 & 0x3F).into(),
        from_bits: |b| Scaled(Float6(b as u8)),
    });
}

// ---- full-bytes aggregates ----

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Rgb {
    r: u8,
    g: u8,
    b: u8,
}

/// Mixed widths, largest alignment first: no padding (`u8, u16, u8` would
/// have two padding bytes and is a compile error; see `ui-tests`).
#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Mixed(u16, u8, u8);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Complex {
    re: f32,
    im: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Pixel {
    color: Rgb,
    alpha: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C, packed)]
struct Packed {
    tag: u8,
    value: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Triple(u16, u16, i16);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Widest {
    lo: u64,
    hi: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Halves(half::f16, half::bf16);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(C)]
struct Single(u16);

assert_type_eq_all!(<Rgb as BitElement>::Raw, u32);
assert_type_eq_all!(<Mixed as BitElement>::Raw, u32);
assert_type_eq_all!(<Complex as BitElement>::Raw, u64);
assert_type_eq_all!(<Pixel as BitElement>::Raw, u32);
assert_type_eq_all!(<Packed as BitElement>::Raw, u64);
assert_type_eq_all!(<Triple as BitElement>::Raw, u64);
assert_type_eq_all!(<Widest as BitElement>::Raw, u128);
assert_type_eq_all!(<Halves as BitElement>::Raw, u32);
assert_type_eq_all!(<Single as BitElement>::Raw, u16);

/// Byte `i` of `b`.
fn byte(b: u128, i: u32) -> u8 {
    (b >> (8 * i)) as u8
}

#[test]
fn aggregates_pack_their_fields_first_field_lowest() {
    check(Model::<Rgb> {
        bits: 24,
        to_bits: |x| u128::from(x.r) | u128::from(x.g) << 8 | u128::from(x.b) << 16,
        from_bits: |b| Rgb {
            r: byte(b, 0),
            g: byte(b, 1),
            b: byte(b, 2),
        },
    });
    check(Model::<Mixed> {
        bits: 32,
        to_bits: |x| u128::from(x.0) | u128::from(x.1) << 16 | u128::from(x.2) << 24,
        from_bits: |b| Mixed(b as u16, byte(b, 2), byte(b, 3)),
    });
    check(Model::<Complex> {
        bits: 64,
        to_bits: |x| u128::from(x.re.to_bits()) | u128::from(x.im.to_bits()) << 32,
        from_bits: |b| Complex {
            re: f32::from_bits(b as u32),
            im: f32::from_bits((b >> 32) as u32),
        },
    });
    check(Model::<Pixel> {
        bits: 32,
        to_bits: |x| {
            u128::from(x.color.r)
                | u128::from(x.color.g) << 8
                | u128::from(x.color.b) << 16
                | u128::from(x.alpha) << 24
        },
        from_bits: |b| Pixel {
            color: Rgb {
                r: byte(b, 0),
                g: byte(b, 1),
                b: byte(b, 2),
            },
            alpha: byte(b, 3),
        },
    });
    check(Model::<Packed> {
        bits: 40,
        to_bits: |x| {
            let (tag, value) = (x.tag, x.value);
            u128::from(tag) | u128::from(value) << 8
        },
        from_bits: |b| Packed {
            tag: byte(b, 0),
            value: (b >> 8) as u32,
        },
    });
    check(Model::<Triple> {
        bits: 48,
        to_bits: |x| u128::from(x.0) | u128::from(x.1) << 16 | u128::from(x.2 as u16) << 32,
        from_bits: |b| Triple(b as u16, (b >> 16) as u16, (b >> 32) as u16 as i16),
    });
    check(Model::<Widest> {
        bits: 128,
        to_bits: |x| u128::from(x.lo) | u128::from(x.hi as u64) << 64,
        from_bits: |b| Widest {
            lo: b as u64,
            hi: (b >> 64) as u64 as i64,
        },
    });
    check(Model::<Halves> {
        bits: 32,
        to_bits: |x| u128::from(x.0.to_bits()) | u128::from(x.1.to_bits()) << 16,
        from_bits: |b| {
            Halves(
                half::f16::from_bits(b as u16),
                half::bf16::from_bits((b >> 16) as u16),
            )
        },
    });
    check(Model::<Single> {
        bits: 16,
        to_bits: |x| x.0.into(),
        from_bits: |b| Single(b as u16),
    });
}

#[test]
fn rgb_puts_r_in_the_low_byte() {
    assert_eq!(Rgb { r: 1, g: 2, b: 3 }.raw_bits(), 0x03_02_01);
    assert_eq!(Rgb::from_raw_bits(0xAA_03_02_01), Rgb { r: 1, g: 2, b: 3 });
}

// ---- fieldless enums ----

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(u8)]
enum Bit {
    Zero,
    One,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(u8)]
enum Shuffled {
    C = 2,
    A = 0,
    D = 3,
    B = 1,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(i16)]
enum Octal {
    B = 1,
    C,
    D,
    A = 0,
    H = 7,
    E = 4,
    F,
    G,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(u32)]
enum Hex {
    H0 = 15,
    H1 = 14,
    H2 = 13,
    H3 = 12,
    H4 = 11,
    H5 = 10,
    H6 = 9,
    H7 = 8,
    H8 = 7,
    H9 = 6,
    HA = 5,
    HB = 4,
    HC = 3,
    HD = 2,
    HE = 1,
    HF = 0,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(usize)]
enum Pointer {
    A,
    B,
}

assert_type_eq_all!(<Bit as BitElement>::Raw, u8);
assert_type_eq_all!(<Shuffled as BitElement>::Raw, u8);
assert_type_eq_all!(<Octal as BitElement>::Raw, u16);
assert_type_eq_all!(<Hex as BitElement>::Raw, u32);
#[cfg(target_pointer_width = "64")]
assert_type_eq_all!(<Pointer as BitElement>::Raw, u64);

#[test]
fn enums_are_their_discriminants() {
    const SHUFFLED: [Shuffled; 4] = [Shuffled::A, Shuffled::B, Shuffled::C, Shuffled::D];
    const OCTAL: [Octal; 8] = [
        Octal::A,
        Octal::B,
        Octal::C,
        Octal::D,
        Octal::E,
        Octal::F,
        Octal::G,
        Octal::H,
    ];
    const HEX: [Hex; 16] = [
        Hex::HF,
        Hex::HE,
        Hex::HD,
        Hex::HC,
        Hex::HB,
        Hex::HA,
        Hex::H9,
        Hex::H8,
        Hex::H7,
        Hex::H6,
        Hex::H5,
        Hex::H4,
        Hex::H3,
        Hex::H2,
        Hex::H1,
        Hex::H0,
    ];
    check(Model::<Bit> {
        bits: 1,
        to_bits: |x| x as u128,
        from_bits: |b| [Bit::Zero, Bit::One][b as usize],
    });
    check(Model::<Shuffled> {
        bits: 2,
        to_bits: |x| x as u128,
        from_bits: |b| SHUFFLED[b as usize],
    });
    check(Model::<Octal> {
        bits: 3,
        to_bits: |x| x as u128,
        from_bits: |b| OCTAL[b as usize],
    });
    check(Model::<Hex> {
        bits: 4,
        to_bits: |x| x as u128,
        from_bits: |b| HEX[b as usize],
    });
    check(Model::<Pointer> {
        bits: 1,
        to_bits: |x| x as u128,
        from_bits: |b| [Pointer::A, Pointer::B][b as usize],
    });
}

// ---- enums with a fallback variant ----

/// Five kinds in 3 bits: codes 5, 6 and 7 are unused and decode to `Other`.
#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(u8)]
enum Kind {
    Word,
    Number,
    Space,
    #[bitpack(fallback)]
    Other,
    Punct,
}

/// Sparse discriminants: the width is that of the largest (9: 4 bits).
#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(u16)]
enum Sparse {
    #[bitpack(fallback)]
    Unknown = 2,
    Low = 0,
    High = 9,
}

/// The variant a code decodes to, by the rule: the variant with that
/// discriminant, else the fallback.
fn kind_of(code: u128) -> Kind {
    match code {
        0 => Kind::Word,
        1 => Kind::Number,
        2 => Kind::Space,
        3 => Kind::Other,
        4 => Kind::Punct,
        _ => Kind::Other,
    }
}

fn sparse_of(code: u128) -> Sparse {
    match code {
        0 => Sparse::Low,
        9 => Sparse::High,
        _ => Sparse::Unknown,
    }
}

#[test]
fn fallback_enums_decode_unused_codes_to_the_fallback() {
    assert_eq!(Kind::BITS, 3);
    assert_eq!(Sparse::BITS, 4);
    assert_type_eq_all!(<Kind as BitElement>::Raw, u8);
    assert_type_eq_all!(<Sparse as BitElement>::Raw, u16);
    // Every raw pattern, bits above BITS included.
    for raw in 0..=u8::MAX {
        let want = kind_of(u128::from(raw) & 7);
        assert_eq!(Kind::from_raw_bits(raw), want, "Kind from {raw:#x}");
    }
    for raw in (0..=u16::MAX).step_by(7).chain([9, 0x19, 0xfff9, 2, 15]) {
        let want = sparse_of(u128::from(raw) & 15);
        assert_eq!(Sparse::from_raw_bits(raw), want, "Sparse from {raw:#x}");
    }
    // A variant's bits are its discriminant, and they round-trip.
    for (v, d) in [
        (Kind::Word, 0),
        (Kind::Number, 1),
        (Kind::Space, 2),
        (Kind::Other, 3),
        (Kind::Punct, 4),
    ] {
        assert_eq!(v.raw_bits(), d);
        assert_eq!(Kind::from_raw_bits(d), v);
    }
    for (v, d) in [(Sparse::Low, 0), (Sparse::Unknown, 2), (Sparse::High, 9)] {
        assert_eq!(v.raw_bits(), d);
        assert_eq!(Sparse::from_raw_bits(d), v);
    }
}

/// A record holding a fallback enum: its unused codes are values of the
/// field, so the record takes them too.
#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[bitpack(record)]
struct Tok {
    kind: Kind,
    len: bitpack::arbitrary_int::u5,
}

#[test]
fn records_take_a_fallback_enum_field() {
    use bitpack::Record;
    use bitpack::arbitrary_int::u5;
    assert_eq!(Tok::BITS, 8);
    for raw in 0..=u8::MAX {
        let want = Tok {
            kind: kind_of(u128::from(raw & 7)),
            len: u5::new(raw >> 3),
        };
        assert_eq!(Tok::from_raw_bits(raw), want, "{raw:#010b}");
        assert_eq!(Tok::try_from_raw_bits(raw).unwrap(), want, "{raw:#010b}");
        assert_eq!(Tok::KIND.get(raw), want.kind);
    }
}

proptest! {
    #[test]
    fn fallback_enums_pack_dense(codes in proptest::collection::vec(0u8..8, 0..300)) {
        let kinds: Vec<Kind> = codes.iter().map(|&c| kind_of(u128::from(c))).collect();
        let a = bitpack::NarrowArray::from_slice(&kinds);
        prop_assert_eq!(a.as_bytes().len(), (3 * kinds.len()).div_ceil(8));
        prop_assert_eq!(a.to_vec(), kinds.clone());
        // Bit k of the stream is bit k % 3 of value k / 3's discriminant.
        let bytes = a.as_bytes();
        for (i, &k) in kinds.iter().enumerate() {
            let mut code = 0u8;
            for b in 0..3 {
                let bit = 3 * i + b;
                code |= ((bytes[bit / 8] >> (bit % 8)) & 1) << b;
            }
            prop_assert_eq!(code, k as u8);
        }
        // Unused codes written into the stream read back as the fallback.
        let stream = bitpack::NarrowArray::<Kind>::from_bytes(
            &codes.chunks(8).flat_map(|c| {
                let mut w = 0u32;
                for (j, &x) in c.iter().enumerate() {
                    w |= u32::from(x) << (3 * j);
                }
                w.to_le_bytes()[..3].to_vec()
            }).collect::<Vec<u8>>(),
            codes.len(),
        ).unwrap();
        prop_assert_eq!(stream.to_vec(), kinds);
    }
}

// ---- generic forms ----

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(3)]
struct Low3<T>(T);

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(transparent)]
struct Wrapper<T: Copy>(T);

assert_type_eq_all!(<Low3<u8> as BitElement>::Raw, u8);
assert_type_eq_all!(<Low3<u64> as BitElement>::Raw, u64);
assert_type_eq_all!(<Low3<arbitrary_int::u20> as BitElement>::Raw, u32);
assert_type_eq_all!(<Wrapper<bool> as BitElement>::Raw, u8);
assert_type_eq_all!(<Wrapper<Rgb> as BitElement>::Raw, u32);

#[test]
fn generic_forms() {
    check(Model::<Low3<u8>> {
        bits: 3,
        to_bits: |x| (x.0 & 7).into(),
        from_bits: |b| Low3(b as u8),
    });
    check(Model::<Low3<i16>> {
        bits: 3,
        to_bits: |x| (x.0 & 7) as u128,
        from_bits: |b| Low3(b as i16),
    });
    check(Model::<Low3<Float4>> {
        bits: 3,
        to_bits: |x| (x.0.0 & 7).into(),
        from_bits: |b| Low3(Float4(b as u8)),
    });
    check(Model::<Wrapper<bool>> {
        bits: 1,
        to_bits: |x| x.0.into(),
        from_bits: |b| Wrapper(b == 1),
    });
    check(Model::<Wrapper<u64>> {
        bits: 64,
        to_bits: |x| x.0.into(),
        from_bits: |b| Wrapper(b as u64),
    });
    check(Model::<Wrapper<Float6>> {
        bits: 6,
        to_bits: |x| (x.0.0 & 0x3F).into(),
        from_bits: |b| Wrapper(Float6(b as u8)),
    });
    check(Model::<Wrapper<Rgb>> {
        bits: 24,
        to_bits: |x| u128::from(x.0.r) | u128::from(x.0.g) << 8 | u128::from(x.0.b) << 16,
        from_bits: |b| {
            Wrapper(Rgb {
                r: byte(b, 0),
                g: byte(b, 1),
                b: byte(b, 2),
            })
        },
    });
    for v in 0..=u16::MAX {
        assert_eq!(Low3(v).raw_bits(), v & 7);
    }
}

// ---- default storage ----

// The storage rule over N * BITS bits: 1, 2, 4, 8, 16 bytes are integers,
// other counts arrays of the widest dividing word.
assert_type_eq_all!(<Float4 as Lanes<1>>::Storage, u8);
assert_type_eq_all!(<Float4 as Lanes<2>>::Storage, u8);
assert_type_eq_all!(<Float4 as Lanes<3>>::Storage, u16);
assert_type_eq_all!(<Float4 as Lanes<8>>::Storage, u32);
assert_type_eq_all!(<Float4 as Lanes<64>>::Storage, [u128; 2]);
assert_type_eq_all!(<Float6 as Lanes<4>>::Storage, [u8; 3]);
assert_type_eq_all!(<Float6 as Lanes<8>>::Storage, [u16; 3]);
assert_type_eq_all!(<Fixed12 as Lanes<2>>::Storage, [u8; 3]);
assert_type_eq_all!(<Rgb as Lanes<1>>::Storage, [u8; 3]);
assert_type_eq_all!(<Rgb as Lanes<2>>::Storage, [u16; 3]);
assert_type_eq_all!(<Rgb as Lanes<4>>::Storage, [u32; 3]);
assert_type_eq_all!(<Packed as Lanes<1>>::Storage, [u8; 5]);
assert_type_eq_all!(<Shuffled as Lanes<4>>::Storage, u8);
assert_type_eq_all!(<Bit as Lanes<9>>::Storage, u16);
assert_type_eq_all!(<Octal as Lanes<8>>::Storage, [u8; 3]);
assert_type_eq_all!(<Meters as Lanes<3>>::Storage, [u32; 3]);
assert_type_eq_all!(<Wide100 as Lanes<2>>::Storage, [u8; 25]);
assert_type_eq_all!(<Widest as Lanes<64>>::Storage, [u128; 64]);

#[test]
fn default_storage_holds_exactly_the_lanes_bytes() {
    fn bytes<T: Lanes<N>, const N: usize>() -> usize {
        core::mem::size_of::<<T as Lanes<N>>::Storage>()
    }
    assert_eq!(bytes::<Float4, 8>(), 4);
    assert_eq!(bytes::<Float6, 4>(), 3);
    assert_eq!(bytes::<Float6, 5>(), 4); // 30 bits
    assert_eq!(bytes::<Odd20, 3>(), 8); // 60 bits
    assert_eq!(bytes::<Low5OfU7, 64>(), 40);
    assert_eq!(bytes::<Hex, 3>(), 2); // 12 bits
}
