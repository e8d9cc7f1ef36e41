//! Every public bulk path with the SIMD variants turned off
//! (`kernels::__limit_features(0)`, which every variant choice of the crate
//! reads), against bit-by-bit references: pack, unpack and sum at every
//! width, strided and axis sums, the word-aligned layout, the run-time
//! width array, float encode/decode, and MX/NVFP4. Each test sets the limit
//! first; this file is its own process, so nothing else runs unlimited.

use arbitrary_int::{u3, u5, u7, u11, u13};
use bitpack::formats::{
    self, E2M1, E4M3, E5M2, E8M0, MiniFloat, Mode, MxArray, MxElement, Nvfp4Array, ScaleRule,
    mx_codes, mx_scale,
};
use bitpack::{Dense, DynNarrowArray, NarrowArray, WordAligned, kernels};
use proptest::prelude::*;

fn portable() {
    kernels::__limit_features(0);
}

/// The dense stream of `vals` (`w` bits each), bit by bit.
fn dense(vals: &[u64], w: u32) -> Vec<u64> {
    let mut words = vec![0u64; (vals.len() * w as usize).div_ceil(64).max(1)];
    for (i, &v) in vals.iter().enumerate() {
        for b in 0..w as usize {
            if (v >> b) & 1 == 1 {
                let k = i * w as usize + b;
                words[k / 64] |= 1 << (k % 64);
            }
        }
    }
    words.iter().map(|w| w.to_le()).collect()
}

fn lcg(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        s >> 7
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn pack_unpack_sum_at_every_width(n in 0usize..700, offset in 0usize..70, seed: u64) {
        portable();
        let mut r = lcg(seed);
        for w in 1..=64u32 {
            let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
            let vals: Vec<u64> = (0..n).map(|_| r() & mask).collect();
            let mut all = vec![0u64; offset];
            all.extend(&vals);
            let want = dense(&all, w);
            let mut words = vec![0u64; want.len()];
            kernels::pack(w, &vals, &mut words, offset).unwrap();
            prop_assert_eq!(&words, &want, "pack w={}", w);
            let mut back = vec![0u64; n];
            kernels::unpack(w, &want, offset, &mut back).unwrap();
            prop_assert_eq!(&back, &vals, "unpack w={}", w);
            let s = kernels::sum(w, &want, offset, n).unwrap();
            prop_assert_eq!(s, vals.iter().map(|&v| v as u128).sum::<u128>(), "sum w={}", w);
            if w <= 8 {
                let v8: Vec<u8> = vals.iter().map(|&v| v as u8).collect();
                let mut b8 = vec![0u8; n];
                kernels::unpack(w, &want, offset, &mut b8).unwrap();
                prop_assert_eq!(&b8, &v8);
                let mut w8 = vec![0u64; want.len()];
                kernels::pack(w, &v8, &mut w8, offset).unwrap();
                prop_assert_eq!(&w8, &want);
            }
            if w <= 32 {
                let v32: Vec<u32> = vals.iter().map(|&v| v as u32).collect();
                let mut b32 = vec![0u32; n];
                kernels::unpack(w, &want, offset, &mut b32).unwrap();
                prop_assert_eq!(&b32, &v32);
            }
        }
    }

    #[test]
    fn containers_views_and_sums(n in 1usize..300, seed: u64, stride in 1usize..5) {
        portable();
        let mut r = lcg(seed);
        fn check<T: bitpack::UnsignedElement + Copy + PartialEq + core::fmt::Debug>(vals: &[T], stride: usize, raw: impl Fn(T) -> u64) -> Result<(), TestCaseError> {
            let a: NarrowArray<T> = vals.iter().copied().collect();
            prop_assert_eq!(a.to_vec(), vals.to_vec());
            let w: NarrowArray<T, WordAligned> = vals.iter().copied().collect();
            prop_assert_eq!(w.to_vec(), vals.to_vec());
            let total: u128 = vals.iter().map(|&v| raw(v) as u128).sum();
            prop_assert_eq!(a.view().sum(), total);
            prop_assert_eq!(w.view().sum(), total);
            // A strided view: every `stride`-th value.
            let m = vals.len().div_ceil(stride);
            let v = a.view_strided(&[m], &[stride as isize], 0).unwrap();
            let want: u128 = vals.iter().step_by(stride).map(|&v| raw(v) as u128).sum();
            prop_assert_eq!(v.sum(), want);
            let vw = w.view_strided(&[m], &[stride as isize], 0).unwrap();
            prop_assert_eq!(vw.sum(), want);
            // Axis sums of a [rows, cols] view.
            let cols = stride + 1;
            let rows = vals.len() / cols;
            if rows > 0 {
                let m2 = a.view_strided(&[rows, cols], &[cols as isize, 1], 0).unwrap();
                let (_, s0) = m2.sum_axes(&[0], false).unwrap();
                let (_, s1) = m2.sum_axes(&[1], false).unwrap();
                for c in 0..cols {
                    let want: u64 = (0..rows).map(|r| raw(vals[r * cols + c])).sum();
                    prop_assert_eq!(s0[c], want);
                }
                for r in 0..rows {
                    let want: u64 = (0..cols).map(|c| raw(vals[r * cols + c])).sum();
                    prop_assert_eq!(s1[r], want);
                }
            }
            Ok(())
        }
        let v3: Vec<u3> = (0..n).map(|_| u3::new((r() & 7) as u8)).collect();
        check(&v3, stride, |v| v.value() as u64)?;
        let v5: Vec<u5> = (0..n).map(|_| u5::new((r() & 31) as u8)).collect();
        check(&v5, stride, |v| v.value() as u64)?;
        let v7: Vec<u7> = (0..n).map(|_| u7::new((r() & 127) as u8)).collect();
        check(&v7, stride, |v| v.value() as u64)?;
        let v8: Vec<u8> = (0..n).map(|_| r() as u8).collect();
        check(&v8, stride, |v| v as u64)?;
        let v11: Vec<u11> = (0..n).map(|_| u11::new((r() & 2047) as u16)).collect();
        check(&v11, stride, |v| v.value() as u64)?;
        let v13: Vec<u13> = (0..n).map(|_| u13::new((r() & 8191) as u16)).collect();
        check(&v13, stride, |v| v.value() as u64)?;
        let v32: Vec<u32> = (0..n).map(|_| r() as u32).collect();
        check(&v32, stride, |v| v as u64)?;
        // The run-time width array, both layouts.
        for width in [3u32, 5, 13, 33, 63] {
            let vals: Vec<u64> = (0..n).map(|_| r() & ((1u64 << width) - 1)).collect();
            let d = DynNarrowArray::<Dense>::from_slice_in(width, &vals).unwrap();
            prop_assert_eq!(d.to_vec(), vals.clone());
            prop_assert_eq!(d.sum(), vals.iter().map(|&v| v as u128).sum::<u128>());
            let a = DynNarrowArray::<WordAligned>::from_slice_in(width, &vals).unwrap();
            prop_assert_eq!(a.to_vec(), vals.clone());
        }
    }

    #[test]
    fn float_encode_decode(xs in prop::collection::vec(any::<f32>(), 0..600)) {
        portable();
        fn check<F: MiniFloat>(xs: &[f32]) -> Result<(), TestCaseError> {
            for mode in [Mode::Nearest, Mode::SatFinite] {
                let packed = formats::encode::<F>(xs, mode);
                let want: Vec<F> = xs.iter().map(|&x| match mode {
                    Mode::Nearest => F::from_f32(x),
                    Mode::SatFinite => F::from_f32_satfinite(x),
                }).collect();
                let got: Vec<u8> = packed.iter().map(|v| v.raw_bits()).collect();
                let codes: Vec<u8> = want.iter().map(|v| v.raw_bits()).collect();
                prop_assert_eq!(got, codes);
                let back = formats::decode(&packed);
                for (b, w) in back.iter().zip(&want) {
                    let r = w.to_f32();
                    prop_assert!(b.to_bits() == r.to_bits() || (b.is_nan() && r.is_nan()));
                }
            }
            Ok(())
        }
        check::<E2M1>(&xs)?;
        check::<E4M3>(&xs)?;
        check::<E5M2>(&xs)?;
        check::<E8M0>(&xs)?;
    }

    #[test]
    fn block_scaling(rows in 1usize..5, cols in 1usize..80, seed: u64) {
        portable();
        let mut r = lcg(seed);
        let x: Vec<f32> = (0..rows * cols).map(|_| (r() % 20001) as f32 / 997.0 - 10.0).collect();
        fn check<F: MxElement>(x: &[f32], rows: usize, cols: usize) -> Result<(), TestCaseError> {
            let q = MxArray::<F>::quantize(x, &[rows, cols]).unwrap();
            let nb = cols.div_ceil(32);
            for row in 0..rows {
                for b in 0..nb {
                    let blk = &x[row * cols + b * 32..row * cols + cols.min(b * 32 + 32)];
                    let s = mx_scale::<F>(formats::block_amax(blk), ScaleRule::Floor);
                    prop_assert_eq!(q.scales().get(row * nb + b).unwrap().to_bits(), s.to_bits());
                    let mut c = vec![0u8; blk.len()];
                    mx_codes::<F, f32>(blk, s, formats::Rounding::Nearest, 0, &mut c);
                    for (k, &c) in c.iter().enumerate() {
                        prop_assert_eq!(q.values().get(row * cols + b * 32 + k).unwrap().raw_bits(), F::from_raw_bits(c).raw_bits());
                    }
                }
            }
            Ok(())
        }
        check::<E2M1>(&x, rows, cols)?;
        check::<E4M3>(&x, rows, cols)?;
        let nv = Nvfp4Array::quantize(&x, &[rows, cols]).unwrap();
        let back = nv.dequantize();
        let st = nv.tensor_scale();
        for (i, b) in back.iter().enumerate() {
            let s = nv.scales().get((i / cols) * cols.div_ceil(16) + (i % cols) / 16).unwrap();
            prop_assert_eq!(b.to_bits(), formats::nvfp4_value(nv.values().get(i).unwrap(), s, st).to_bits());
        }
    }
}
