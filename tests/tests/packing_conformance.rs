//! The reference packing vectors, read from the committed copy in `tests/conformance/`: dense
//! LSB-first sub-byte packing (`subbyte.pack_lsb.tsv`) and numpy
//! `packbits(bitorder='little')` / Arrow bitmaps (`bool.packbits.tsv`), byte
//! for byte, through `NarrowArray` and `NArray`.

use arbitrary_int::*;
use bitpack::{BitElement, Lanes, NArray, NarrowArray};
use bitpack_tests::{hex, hex_bytes, raw, read_tsv, value};

/// One row of `subbyte.pack_lsb.tsv` through every path, for `T` of the
/// row's width.
fn check_row<T: BitElement + PartialEq + core::fmt::Debug>(codes: &[u128], packed: &[u8]) {
    let values: Vec<T> = codes.iter().map(|&c| value::<T>(c)).collect();
    assert_eq!(
        values.iter().map(|&v| raw(v)).collect::<Vec<_>>(),
        codes,
        "codes fit the width"
    );
    let a = NarrowArray::from_slice(&values);
    assert_eq!(a.as_bytes(), packed);
    assert_eq!(a.clone().into_bytes(), packed);
    let b = NarrowArray::<T>::from_bytes(packed, codes.len()).unwrap();
    assert_eq!(b.to_vec(), values);
    let c: NarrowArray<T> = values.iter().copied().collect();
    assert_eq!(c.as_bytes(), packed);
    let mut d = NarrowArray::<T>::new();
    for &v in &values {
        d.push(v);
    }
    assert_eq!(d.as_bytes(), packed);
    // The same bytes as a NarrowArray<u8> when they fill whole bytes.
    if (codes.len() * T::BITS as usize).is_multiple_of(8) {
        #[cfg(target_endian = "little")]
        assert_eq!(a.as_slice_of::<u8>().unwrap(), packed);
        assert_eq!(a.reinterpret::<u8>().unwrap().to_vec(), packed);
    }
}

/// The row as an `NArray<T, N>` (its storage bytes are the packed bytes).
fn check_narray<T, const N: usize>(codes: &[u128], packed: &[u8])
where
    T: Lanes<N> + PartialEq + core::fmt::Debug,
{
    let values: [T; N] = core::array::from_fn(|i| value::<T>(codes[i]));
    let a = NArray::<T, N>::new(values);
    if cfg!(target_endian = "little") {
        assert_eq!(a.as_bytes(), packed);
        assert_eq!(NArray::<T, N>::try_from_bytes(packed).unwrap(), a);
    }
    assert_eq!(a.to_array(), values);
}

/// Calls `check_narray::<$t, N>` for the row's count `N`, for the counts in
/// the file up to 64.
macro_rules! narray_counts {
    ($t:ty, $n:expr, $codes:expr, $packed:expr; $($c:literal)*) => {
        match $n {
            $($c => check_narray::<$t, $c>($codes, $packed),)*
            _ => {}
        }
    };
}

macro_rules! by_width {
    ($bits:expr, $codes:expr, $packed:expr; $($k:literal => $t:ty),*) => {
        match $bits {
            $($k => {
                check_row::<$t>($codes, $packed);
                narray_counts!($t, $codes.len(), $codes, $packed;
                    1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 23 24 25 31 32 33 63 64);
            })*
            other => panic!("unexpected width {other}"),
        }
    };
}

#[test]
fn subbyte_pack_lsb() {
    let (header, rows) = read_tsv("subbyte.pack_lsb.tsv");
    assert_eq!(header, ["bits", "count", "codes_hex", "packed_hex"]);
    let mut seen = [0usize; 8];
    for row in &rows {
        let bits: u32 = row[0].parse().unwrap();
        let count: usize = row[1].parse().unwrap();
        let codes: Vec<u128> = if row[2] == "-" {
            Vec::new()
        } else {
            row[2].split(',').map(hex).collect()
        };
        assert_eq!(codes.len(), count);
        let packed = hex_bytes(&row[3]);
        assert_eq!(packed.len(), (count * bits as usize).div_ceil(8));
        by_width!(bits, &codes, &packed;
            1 => u1, 2 => u2, 3 => u3, 4 => u4, 5 => u5, 6 => u6, 7 => u7);
        if bits == 1 {
            let flags: Vec<bool> = codes.iter().map(|&c| c == 1).collect();
            assert_eq!(NarrowArray::from_slice(&flags).as_bytes(), packed);
        }
        seen[bits as usize] += 1;
    }
    assert!(
        seen[1..].iter().all(|&n| n > 0),
        "every width 1..=7 has rows: {seen:?}"
    );
}

fn check_bools<const N: usize>(flags: &[bool], packed: &[u8])
where
    bool: Lanes<N>,
{
    let a = NArray::<bool, N>::try_from_slice(flags).unwrap();
    if cfg!(target_endian = "little") {
        assert_eq!(a.as_bytes(), packed);
    }
    // Lane i is storage bit i, whatever the storage's word.
    for (i, &f) in flags.iter().enumerate() {
        assert_eq!(bitpack::Storage::get_bits(&a.storage(), i, 1) == 1, f);
        assert_eq!((packed[i / 8] >> (i % 8)) & 1 == 1, f);
    }
}

#[test]
fn bool_packbits_and_arrow_bitmaps() {
    let (header, rows) = read_tsv("bool.packbits.tsv");
    assert_eq!(
        header,
        [
            "length",
            "values",
            "numpy_packbits_little",
            "arrow_bool_buffer"
        ]
    );
    for row in &rows {
        let len: usize = row[0].parse().unwrap();
        let flags: Vec<bool> = if row[1] == "-" {
            Vec::new()
        } else {
            row[1].chars().map(|c| c == '1').collect()
        };
        assert_eq!(flags.len(), len);
        let numpy = hex_bytes(&row[2]);
        let arrow = hex_bytes(&row[3]);
        let a = NarrowArray::from_slice(&flags);
        assert_eq!(a.as_bytes(), numpy, "numpy packbits, length {len}");
        assert_eq!(a.as_bytes(), arrow, "arrow bitmap, length {len}");
        let b = NarrowArray::<bool>::from_bytes(&arrow, len).unwrap();
        assert_eq!(b.to_vec(), flags);
        // Arrow pads buffers with zero bytes: a padded bitmap imports as is.
        let mut padded = arrow.clone();
        padded.resize(64, 0);
        assert_eq!(NarrowArray::<bool>::from_bytes(&padded, len).unwrap(), b);
        macro_rules! narray_lengths {
            ($($n:literal)*) => {
                match len {
                    $($n => check_bools::<$n>(&flags, &numpy),)*
                    _ => {}
                }
            };
        }
        narray_lengths!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28
            29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57
            58 59 60 61 62 63 64);
    }
    assert_eq!(rows.len(), 131);
}
