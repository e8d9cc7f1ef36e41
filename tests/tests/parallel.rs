//! The `rayon` feature: every bulk call that splits across threads gives
//! the bits of the one-thread call. Each case runs twice, once with the
//! threshold out of reach (one piece on this thread) and once with it at
//! zero and the work cut into 7 or 3 pieces (`__with_parallel_threshold`,
//! which also splits in a pool of one thread), at lengths around the cut
//! grain (512 values) and the blocks, odd lengths, and every width 1..=64
//! for sums; stochastic rounding included (its random bits
//! come from the value's index, whichever piece encodes it).

use arbitrary_int::*;
use bitpack::formats::{
    self, E2M1, E2M3, E3M2, E4M3, E5M2, Encoder, MiniFloat, Mode, MxArray, MxElement, MxOptions,
    Nvfp4Array, Nvfp4Blocks, Nvfp4Options, Rounding,
};
use bitpack::{__with_parallel_threshold, Dense, DynNarrowArray, NarrowArray, Packing, Unsigned};
use bitpack::{UnsignedElement, WordAligned};
use proptest::prelude::*;

/// `f` on one thread, then split into 7 and into 3 pieces: all equal.
fn same<R: PartialEq + core::fmt::Debug>(what: &str, mut f: impl FnMut() -> R) -> R {
    let one = __with_parallel_threshold(usize::MAX, 1, &mut f);
    for pieces in [7, 3] {
        let split = __with_parallel_threshold(0, pieces, &mut f);
        assert_eq!(one, split, "{what}: {pieces} pieces");
    }
    one
}

/// Lengths around the cut grain, odd ones, and a few blocks.
const LENGTHS: [usize; 12] = [
    0,
    1,
    15,
    31,
    511,
    512,
    513,
    1000,
    1536,
    4097,
    5000,
    9 * 512 + 7,
];

/// Values with every kind of input: zeros, tiny and huge magnitudes,
/// infinities and NaN (one in 97), from a seed.
fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed | 1;
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match i % 97 {
                13 => f32::NAN,
                29 => f32::INFINITY,
                41 => 0.0,
                _ => {
                    let m = (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
                    m * 2f32.powi((x % 40) as i32 - 20)
                }
            }
        })
        .collect()
}

/// Finite values only (for the NVFP4 default tensor scale, which needs one).
fn finite(n: usize, seed: u64) -> Vec<f32> {
    data(n, seed)
        .into_iter()
        .map(|v| if v.is_finite() { v } else { 1.5 })
        .collect()
}

fn floats<F: MiniFloat + core::fmt::Debug>() {
    for n in LENGTHS {
        let src = data(n, n as u64 + 1);
        for mode in [Mode::Nearest, Mode::SatFinite] {
            let bytes = same("encode", || {
                formats::encode::<F>(&src, mode).as_bytes().to_vec()
            });
            let a = formats::encode::<F>(&src, mode);
            assert_eq!(a.as_bytes(), bytes);
            let _ = same("encode_into", || {
                let mut b = NarrowArray::<F>::zeroed(n);
                formats::encode_into(&src, mode, &mut b).map(|()| b.as_bytes().to_vec())
            });
            let back = same("decode", || bits(&formats::decode(&a)));
            let _ = same("decode_into", || {
                let mut out = vec![0f32; n];
                formats::decode_into(&a, &mut out).map(|()| bits(&out))
            });
            assert_eq!(back.len(), n);
            for seed in [0u64, 99] {
                let e = Encoder::new(mode).with_rounding(Rounding::Stochastic { seed });
                same("stochastic f32", || {
                    e.array::<F, f32>(&src).as_bytes().to_vec()
                });
                let wide: Vec<f64> = src.iter().map(|&v| v as f64 * 1.001).collect();
                same("stochastic f64", || {
                    e.array::<F, f64>(&wide).as_bytes().to_vec()
                });
                let nearest = Encoder::new(mode);
                same("nearest f64", || {
                    nearest.array::<F, f64>(&wide).as_bytes().to_vec()
                });
            }
        }
        // Bad input: the same error, with and without the split.
        let mut short = NarrowArray::<F>::zeroed(n + 1);
        let _ = same("encode_into error", || {
            formats::encode_into(&src, Mode::Nearest, &mut short).map_err(|e| e.to_string())
        });
    }
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn float_encode_and_decode_split_bit_for_bit() {
    floats::<E2M1>();
    floats::<E3M2>();
    floats::<E2M3>();
    floats::<E4M3>();
    floats::<E5M2>();
}

/// MX quantize (every axis, both roundings) and dequantize.
fn mx<F: MxElement + core::fmt::Debug>(shape: &[usize], seed: u64) {
    let n = shape.iter().product();
    let src = data(n, seed);
    for axis in 0..shape.len() {
        for rounding in [Rounding::Nearest, Rounding::Stochastic { seed }] {
            let opts = MxOptions {
                axis: Some(axis),
                rounding,
                ..MxOptions::default()
            };
            let q = same("MX quantize", || {
                MxArray::<F>::quantize_with(&src, shape, &opts).map(|q| {
                    (
                        q.values().as_bytes().to_vec(),
                        q.scales().as_bytes().to_vec(),
                    )
                })
            });
            let q = q.map(|_| MxArray::<F>::quantize_with(&src, shape, &opts).unwrap());
            if let Ok(q) = q {
                same("MX dequantize", || bits(&q.dequantize()));
                // Over another array's bits, split or not: the fresh bits.
                let other = data(n, seed + 1);
                let re = same("MX requantize", || {
                    let mut r = MxArray::<F>::quantize_with(&other, shape, &opts).unwrap();
                    r.requantize(&src, &opts).unwrap();
                    (
                        r.values().as_bytes().to_vec(),
                        r.scales().as_bytes().to_vec(),
                    )
                });
                assert_eq!(re.0, q.values().as_bytes(), "MX requantize");
                assert_eq!(re.1, q.scales().as_bytes(), "MX requantize");
            }
        }
    }
}

#[test]
fn mx_quantize_and_dequantize_split_bit_for_bit() {
    for shape in [
        &[0][..],
        &[5000],
        &[9 * 512 + 7],
        &[40, 100],
        &[3, 70, 33],
        &[2, 1030],
        &[1, 4097],
        &[257, 3],
        &[64, 64],
    ] {
        let seed = shape.iter().sum::<usize>() as u64;
        mx::<E2M1>(shape, seed);
        mx::<E4M3>(shape, seed);
        mx::<E3M2>(shape, seed);
    }
}

#[test]
fn nvfp4_quantize_and_dequantize_split_bit_for_bit() {
    for shape in [
        &[0][..],
        &[5000],
        &[9 * 512 + 7],
        &[40, 100],
        &[3, 37, 33],
        &[2, 1030],
        &[16, 4096],
        &[257, 3],
    ] {
        let n = shape.iter().product();
        for src in [finite(n, n as u64), data(n, 3)] {
            for blocks in [Nvfp4Blocks::Rows, Nvfp4Blocks::Tiles16x16] {
                for tensor_scale in [None, Some(0.01)] {
                    for rounding in [Rounding::Nearest, Rounding::Stochastic { seed: 5 }] {
                        let opts = Nvfp4Options {
                            blocks,
                            tensor_scale,
                            rounding,
                            ..Nvfp4Options::default()
                        };
                        let q = same("NVFP4 quantize", || {
                            Nvfp4Array::quantize_with(&src, shape, &opts)
                                .map(|q| {
                                    let v = q.values().as_bytes().to_vec();
                                    (v, q.scales().as_bytes().to_vec(), q.tensor_scale())
                                })
                                .map_err(|e| e.to_string())
                        });
                        if let Ok(fresh) = q {
                            let q = Nvfp4Array::quantize_with(&src, shape, &opts).unwrap();
                            same("NVFP4 dequantize", || bits(&q.dequantize()));
                            // Over another array's bits: the fresh bits.
                            let other = finite(n, n as u64 + 1);
                            let re = same("NVFP4 requantize", || {
                                let mut r = Nvfp4Array::quantize(&other, shape).unwrap();
                                r.requantize(&src, &opts).unwrap();
                                let v = r.values().as_bytes().to_vec();
                                (v, r.scales().as_bytes().to_vec(), r.tensor_scale())
                            });
                            assert_eq!(re, fresh, "NVFP4 requantize");
                        }
                    }
                }
            }
        }
    }
    let _ = same("default tensor scale", || {
        Nvfp4Array::default_tensor_scale(&finite(9000, 2)).map(f32::to_bits)
    });
}

/// The other input types through the chunked quantize paths: MX from `f16`
/// and `bf16` (widened to `f32` a chunk at a time, then the AVX2 scale and
/// the fused encode), NVFP4 from `f16` and `f64` (the block core), beside
/// NVFP4 from `f32` whose rows' chunks are cut mid-row (`[3, 1030]`).
#[test]
fn half_and_f64_inputs_split_bit_for_bit() {
    for shape in [&[5000][..], &[3, 1030], &[40, 100], &[257, 3], &[1, 4097]] {
        let n: usize = shape.iter().product();
        let src = data(n, n as u64);
        let h: Vec<half::f16> = src.iter().map(|&x| half::f16::from_f32(x)).collect();
        let b: Vec<half::bf16> = src.iter().map(|&x| half::bf16::from_f32(x)).collect();
        let w: Vec<f64> = src.iter().map(|&x| f64::from(x)).collect();
        let parts = |q: MxArray<E2M1>| {
            (
                q.values().as_bytes().to_vec(),
                q.scales().as_bytes().to_vec(),
            )
        };
        let opts = MxOptions::default();
        let _ = same("MX E2M1 from f16", || {
            MxArray::<E2M1>::quantize_with(&h, shape, &opts).map(parts)
        });
        let _ = same("MX E2M1 from bf16", || {
            MxArray::<E2M1>::quantize_with(&b, shape, &opts).map(parts)
        });
        let _ = same("MX E4M3 from bf16", || {
            MxArray::<E4M3>::quantize_with(&b, shape, &opts).map(|q| {
                (
                    q.values().as_bytes().to_vec(),
                    q.scales().as_bytes().to_vec(),
                )
            })
        });
        let nv = |q: Nvfp4Array| {
            let v = q.values().as_bytes().to_vec();
            (
                v,
                q.scales().as_bytes().to_vec(),
                q.tensor_scale().to_bits(),
            )
        };
        let opts = Nvfp4Options::default();
        let _ = same("NVFP4 from f16", || {
            Nvfp4Array::quantize_with(&h, shape, &opts)
                .map(nv)
                .map_err(|e| e.to_string())
        });
        let _ = same("NVFP4 from f64", || {
            Nvfp4Array::quantize_with(&w, shape, &opts)
                .map(nv)
                .map_err(|e| e.to_string())
        });
        let _ = same("NVFP4 from f32", || {
            Nvfp4Array::quantize_with(&finite(n, 4), shape, &opts)
                .map(nv)
                .map_err(|e| e.to_string())
        });
    }
}

/// `raws` cut to `T`'s width.
fn typed<T: UnsignedElement>(raws: &[u64]) -> Vec<T> {
    raws.iter()
        .map(|&r| T::from_raw_bits(<T::Raw as Unsigned>::from_u128_truncate(r as u128)))
        .collect()
}

/// Sums, packs and unpacks of both layouts.
fn ints<T: UnsignedElement + core::fmt::Debug + PartialEq>(raws: &[u64]) {
    let vals: Vec<T> = typed(raws);
    layout::<T, Dense>(&vals);
    layout::<T, WordAligned>(&vals);
}

fn layout<T: UnsignedElement + core::fmt::Debug + PartialEq, L: Packing>(vals: &[T]) {
    let what = format!("{} bits, {} values", T::BITS, vals.len());
    let arr = NarrowArray::<T, L>::from_slice_in(vals);
    let expect: u128 = vals.iter().map(|v| v.raw_bits().to_u128()).sum();
    assert_eq!(same(&what, || arr.sum()), expect, "{what}");
    // At an odd start of the words, after `extend_from_slice`.
    let mut b = NarrowArray::<T, L>::from_slice_in(&vals[..vals.len().min(3)]);
    b.extend_from_slice(vals);
    let head: u128 = vals[..vals.len().min(3)]
        .iter()
        .map(|v| v.raw_bits().to_u128())
        .sum();
    assert_eq!(same(&what, || b.sum()), expect + head, "{what}");
    packs::<T, L>(&what, vals);
}

/// `from_slice`, `extend_from_slice` (from an odd start), `pack_from`
/// (over other values), `to_vec` and `unpack_into` (over other values); a
/// `NarrowRef`'s `unpack_into` and `sum` over whole words and over bytes one
/// past a word, and a `NarrowMut`'s `pack_from` over both: the same words
/// and values split and whole, and the values put in.
fn packs<T: UnsignedElement + core::fmt::Debug + PartialEq, L: Packing>(what: &str, vals: &[T]) {
    let words = same(what, || {
        NarrowArray::<T, L>::from_slice_in(vals).as_words().to_vec()
    });
    let arr = NarrowArray::<T, L>::from_slice_in(vals);
    assert_eq!(arr.to_vec(), vals, "{what}");
    assert_eq!(same(what, || arr.to_vec()), vals, "{what}");
    let other = |v: &T| T::from_raw_bits(!v.raw_bits());
    let unpacked = same(what, || {
        let mut dst: Vec<T> = vals.iter().map(other).collect();
        arr.unpack_into(&mut dst).unwrap();
        dst
    });
    assert_eq!(unpacked, vals, "{what}");
    let repacked = same(what, || {
        let flipped: Vec<T> = vals.iter().map(other).collect();
        let mut a = NarrowArray::<T, L>::from_slice_in(&flipped);
        a.pack_from(vals).unwrap();
        a.as_words().to_vec()
    });
    assert_eq!(repacked, words, "{what}");
    let head = &vals[..vals.len().min(3)];
    let extended = same(what, || {
        let mut a = NarrowArray::<T, L>::from_slice_in(head);
        a.extend_from_slice(vals);
        a
    });
    assert_eq!(extended.to_vec(), [head, vals].concat(), "{what}");
    if !L::WORD_ALIGNED && cfg!(target_endian = "little") {
        // Whole words' bytes: the view reads them as words, the path that
        // splits.
        let bytes: &[u8] = bytemuck::cast_slice(arr.as_words());
        let view = bitpack::NarrowRef::<T>::from_bytes(bytes, vals.len()).unwrap();
        let unpacked = same(what, || {
            let mut dst: Vec<T> = vals.iter().map(other).collect();
            view.unpack_into(&mut dst).unwrap();
            dst
        });
        assert_eq!(unpacked, vals, "{what}");
        let expect: u128 = vals.iter().map(|v| v.raw_bits().to_u128()).sum();
        assert_eq!(same(what, || view.sum()), expect, "{what}");
        // The same bytes one past a word boundary: the chunked paths.
        let mut odd = vec![0u8; bytes.len() + 1];
        odd[1..].copy_from_slice(bytes);
        let view = bitpack::NarrowRef::<T>::from_bytes(&odd[1..], vals.len()).unwrap();
        assert!(vals.is_empty() || !view.views_borrow(), "{what}");
        let unpacked = same(what, || {
            let mut dst: Vec<T> = vals.iter().map(other).collect();
            view.unpack_into(&mut dst).unwrap();
            dst
        });
        assert_eq!(unpacked, vals, "{what}");
        assert_eq!(same(what, || view.sum()), expect, "{what}");
        // `NarrowMut::pack_from` over other values, on words and one past.
        let flipped: Vec<T> = vals.iter().map(other).collect();
        let flipped = NarrowArray::<T, Dense>::from_slice(&flipped);
        for skew in [0, 1] {
            let packed = same(what, || {
                let mut buf = vec![0u8; bytes.len() + skew];
                buf[skew..].copy_from_slice(bytemuck::cast_slice(flipped.as_words()));
                let mut a =
                    bitpack::NarrowMut::<T>::from_bytes(&mut buf[skew..], vals.len()).unwrap();
                a.pack_from(vals).unwrap();
                buf[skew..].to_vec()
            });
            assert_eq!(packed, bytes, "{what}, {skew} bytes past a word");
        }
    }
}

macro_rules! all_widths {
    ($raws:expr; $($t:ty),*) => {$( ints::<$t>($raws); )*};
}

fn every_width(raws: &[u64]) {
    all_widths!(raws; bool, u2, u3, u4, u5, u6, u7, u8, u9, u10, u11, u12, u13, u14, u15, u16,
        u17, u18, u19, u20, u21, u22, u23, u24, u25, u26, u27, u28, u29, u30, u31, u32,
        u33, u48, u63, u64);
}

/// `n` xorshift words from a seed of `n`.
fn raws(n: usize) -> Vec<u64> {
    let mut x = n as u64 | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

#[test]
fn sums_packs_and_unpacks_split_bit_for_bit_at_every_width() {
    for n in LENGTHS {
        let raws = raws(n);
        every_width(&raws);
        every_width(&vec![u64::MAX; n]);
    }
}

/// `DynNarrowArray` at `width`: `from_slice`, `extend_from_slice` from an
/// odd start, `to_vec`, `unpack_into` and `sum`, split and whole.
fn dyn_layout<L: Packing>(width: u32, raws: &[u64]) {
    let vals: Vec<u64> = raws
        .iter()
        .map(|&r| r & (u64::MAX >> (64 - width)))
        .collect();
    let what = format!("DynNarrowArray, {width} bits, {} values", vals.len());
    let words = same(&what, || {
        DynNarrowArray::<L>::from_slice_in(width, &vals)
            .unwrap()
            .as_words()
            .to_vec()
    });
    let arr = DynNarrowArray::<L>::from_slice_in(width, &vals).unwrap();
    assert_eq!(arr.as_words(), words, "{what}");
    assert_eq!(same(&what, || arr.to_vec()), vals, "{what}");
    let unpacked = same(&what, || {
        let mut dst: Vec<u64> = vals.iter().map(|v| !v).collect();
        arr.unpack_into(&mut dst).unwrap();
        dst
    });
    assert_eq!(unpacked, vals, "{what}");
    let expect: u128 = vals.iter().map(|&v| v as u128).sum();
    assert_eq!(same(&what, || arr.sum()), expect, "{what}");
    let head = &vals[..vals.len().min(3)];
    let extended = same(&what, || {
        let mut a = DynNarrowArray::<L>::from_slice_in(width, head).unwrap();
        a.extend_from_slice(&vals);
        a.as_words().to_vec()
    });
    let whole = DynNarrowArray::<L>::from_slice_in(width, &[head, &vals[..]].concat()).unwrap();
    assert_eq!(extended, whole.as_words(), "{what}");
}

#[test]
fn dyn_arrays_split_bit_for_bit_at_every_width() {
    for n in LENGTHS {
        let raws = raws(n);
        for width in 1..=64 {
            dyn_layout::<Dense>(width, &raws);
            dyn_layout::<WordAligned>(width, &raws);
            dyn_layout::<Dense>(width, &vec![u64::MAX; n]);
        }
    }
}

/// A strided view's `sum` and `unpack_into` (over other values) at `T`'s
/// width over `vals` in a `rows x cols` array: the whole view, its
/// transpose, a column, every other row backwards, a slice, and a broadcast
/// of a column; split and whole, and against the sum of the view's values
/// and its iterator.
fn view_sums<T: UnsignedElement + core::fmt::Debug + PartialEq, L: Packing>(
    vals: &[T],
    cols: usize,
) {
    let rows = vals.len() / cols;
    let mut arr = NarrowArray::<T, L>::from_slice_in(&vals[..rows * cols]);
    arr.reshape(&[rows, cols]).unwrap();
    let what = format!("{} bits, {rows} x {cols}", T::BITS);
    let v = arr.view();
    let sum_of = |v: bitpack::View<'_, T, L>| -> u128 {
        v.to_vec().iter().map(|x| x.raw_bits().to_u128()).sum()
    };
    let mut views = vec![("whole", v), ("transpose", v.transpose())];
    if rows > 0 && cols > 0 {
        views.push(("column", v.select(1, cols / 2).unwrap()));
        views.push(("rows back by 2", v.step_by(0, -2).unwrap()));
        views.push(("slice", v.slice(1, cols / 3..cols).unwrap()));
        let col = cols / 2;
        let bcast = arr.view_strided(&[3, rows], &[0, cols as isize], col as isize);
        views.push(("broadcast", bcast.unwrap()));
    }
    for (name, view) in views {
        let expect = sum_of(view);
        assert_eq!(same(&what, || view.sum()), expect, "{what}: {name}");
        let values: Vec<T> = view.iter().collect();
        let unpacked = same(&what, || {
            let mut dst: Vec<T> = values
                .iter()
                .map(|v| T::from_raw_bits(!v.raw_bits()))
                .collect();
            view.unpack_into(&mut dst).unwrap();
            dst
        });
        assert_eq!(unpacked, values, "{what}: {name}");
        // One slot too many: an error naming both lengths, nothing written.
        let mut long = vec![T::from_raw_bits(<T::Raw as Unsigned>::ZERO); values.len() + 1];
        let err = view.unpack_into(&mut long).unwrap_err();
        assert!(
            matches!(err, bitpack::Error::Length { expected, actual, .. }
                if expected == values.len() && actual == values.len() + 1),
            "{what}: {name}: {err}"
        );
        assert!(
            long.iter()
                .all(|v| v.raw_bits() == <T::Raw as Unsigned>::ZERO)
        );
    }
}

#[test]
fn view_sums_and_unpacks_split_bit_for_bit() {
    for (n, cols) in [
        (0, 1),
        (1, 1),
        (5000, 1),
        (5000, 7),
        (4097, 64),
        (9 * 512 + 7, 512),
    ] {
        let raws = raws(n);
        macro_rules! widths {
            ($($t:ty),*) => {$({
                let vals: Vec<$t> = typed(&raws);
                view_sums::<$t, Dense>(&vals, cols);
                view_sums::<$t, WordAligned>(&vals, cols);
            })*};
        }
        widths!(bool, u3, u5, u8, u13, u33, u64);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn any_length_splits_bit_for_bit(
        raws in proptest::collection::vec(any::<u64>(), 0..3000),
        seed in any::<u64>(),
    ) {
        every_width(&raws);
        let src = data(raws.len(), seed);
        same("E2M1", || formats::encode::<E2M1>(&src, Mode::Nearest).as_bytes().to_vec());
        let e = Encoder::new(Mode::SatFinite).with_rounding(Rounding::Stochastic { seed });
        same("stochastic E4M3", || e.array::<E4M3, f32>(&src).as_bytes().to_vec());
        let cols = (seed % 200) as usize + 1;
        let shape = [raws.len() / cols, cols];
        let src = &src[..shape[0] * cols];
        let _ = same("MX", || {
            MxArray::<E2M1>::quantize(src, &shape).map(|q| q.values().as_bytes().to_vec())
        });
    }
}

/// A real run past the default threshold, on the pool's threads.
#[test]
fn above_the_threshold_by_default() {
    let n = bitpack::PARALLEL_THRESHOLD * 2 + 1000;
    let src = data(n, 8);
    let a = formats::encode::<E2M1>(&src, Mode::Nearest);
    let one = __with_parallel_threshold(usize::MAX, 1, || {
        formats::encode::<E2M1>(&src, Mode::Nearest)
    });
    assert_eq!(a.as_bytes(), one.as_bytes());
    let q = MxArray::<E4M3>::quantize(&src, &[n]).unwrap();
    let q1 = __with_parallel_threshold(usize::MAX, 1, || {
        MxArray::<E4M3>::quantize(&src, &[n]).unwrap()
    });
    assert_eq!(q.values().as_bytes(), q1.values().as_bytes());
    assert_eq!(q.scales().as_bytes(), q1.scales().as_bytes());
    let d = q.dequantize();
    let d1 = __with_parallel_threshold(usize::MAX, 1, || q.dequantize());
    assert_eq!(bits(&d), bits(&d1));
    let ints: Vec<u5> = (0..n).map(|i| u5::new((i % 32) as u8)).collect();
    let arr = NarrowArray::from_slice(&ints);
    assert_eq!(
        arr.sum(),
        ints.iter().map(|v| v.value() as u128).sum::<u128>()
    );
    assert_eq!(arr.to_vec(), ints);
}
