//! The `cuda` feature: kernel choice and names (checked without a GPU), the
//! clear error without a driver or device, and, where a GPU is present,
//! every device result against the host's bits, through the calls on
//! device memory (`*_into`) and the host conveniences, bad sizes rejected,
//! a chain on a stream of the caller's, and a stream capture. Without a GPU
//! the device checks print why they were skipped; with
//! `BITPACK_REQUIRE_GPU=1` they fail instead.
//!
//! The PTX is embedded in the library, so the test binary
//! (`cargo test -p bitpacked --features cuda --test cuda --no-run`) runs on
//! a GPU machine by itself.
#![cfg(feature = "cuda")]

use std::sync::Arc;

use arbitrary_int::{u3, u5, u12, u27, u33};
use bitpack::cuda::{DeviceMxArray, DeviceNarrowArray, DeviceNvfp4Array, Gpu, load_ptx};
use bitpack::formats::{
    E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, MiniFloat, Mode, MxArray, MxElement, MxOptions, Nvfp4Array,
    Nvfp4Blocks, Nvfp4Options, Rounding, ScaleRule, TinyScale,
};
use bitpack::{BitElement, Error, LengthOf, NarrowArray, Unsigned};
use cudarc::driver::{CudaContext, CudaSlice, sys};

/// The device, or `None` with the reason printed; a failure instead when
/// `BITPACK_REQUIRE_GPU=1`.
fn gpu() -> Option<Gpu> {
    match Gpu::new(0) {
        Ok(g) => Some(g),
        Err(e) => {
            assert!(
                std::env::var("BITPACK_REQUIRE_GPU").as_deref() != Ok("1"),
                "BITPACK_REQUIRE_GPU=1 but no usable GPU: {e}"
            );
            eprintln!("skipped: no usable GPU ({e}); the device checks did not run");
            assert!(matches!(e, Error::Device { .. }), "{e:?}");
            None
        }
    }
}

const TARGETS: [&str; 5] = ["sm_120a", "sm_100a", "sm_90", "sm_89", "sm_80"];

#[test]
fn the_best_committed_build_is_chosen() {
    assert_eq!(Gpu::target_for((12, 0)), Some("sm_120a"));
    assert_eq!(Gpu::target_for((12, 1)), Some("sm_90")); // sm_120a runs on 12.0 only
    assert_eq!(Gpu::target_for((10, 0)), Some("sm_100a"));
    assert_eq!(Gpu::target_for((10, 3)), Some("sm_90")); // sm_100a runs on 10.0 only
    assert_eq!(Gpu::target_for((9, 0)), Some("sm_90"));
    assert_eq!(Gpu::target_for((8, 9)), Some("sm_89"));
    assert_eq!(Gpu::target_for((8, 6)), Some("sm_80"));
    assert_eq!(Gpu::target_for((8, 0)), Some("sm_80"));
    assert_eq!(Gpu::target_for((7, 5)), None);
    assert_eq!(
        Gpu::targets_for((12, 0)),
        ["sm_120a", "sm_90", "sm_89", "sm_80"]
    );
    assert_eq!(
        Gpu::targets_for((10, 0)),
        ["sm_100a", "sm_90", "sm_89", "sm_80"]
    );
    assert_eq!(Gpu::targets_for((9, 0)), ["sm_90", "sm_89", "sm_80"]);
    assert!(Gpu::targets_for((7, 0)).is_empty());
    for t in TARGETS {
        let text = Gpu::ptx(t).unwrap();
        assert!(text.contains(&format!(".target {t}\n")), "{t}");
    }
    assert_eq!(Gpu::ptx("sm_70"), None);
    // The list is the one of bitpack/ptx/TARGETS, in its order.
    let listed: Vec<&str> = include_str!("../ptx/TARGETS")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(listed, TARGETS);
}

#[test]
fn driver_codes_are_named() {
    assert_eq!(
        bitpack::cuda::error_name(218),
        Some("CUDA_ERROR_INVALID_PTX")
    );
    assert_eq!(
        bitpack::cuda::error_name(222),
        Some("CUDA_ERROR_UNSUPPORTED_PTX_VERSION")
    );
    assert_eq!(
        bitpack::cuda::error_name(209),
        Some("CUDA_ERROR_NO_BINARY_FOR_GPU")
    );
    assert_eq!(
        bitpack::cuda::error_message(2),
        Some("out of device memory")
    );
    assert_eq!(bitpack::cuda::error_name(4242), None);
}

#[test]
fn every_kernel_the_launcher_names_is_in_the_ptx() {
    let entries = include_str!("../ptx/ENTRIES");
    let has = |n: &str| entries.lines().any(|l| l == n);
    for w in 1..=8 {
        assert!(has(&format!("unpack_u8_w{w}")) && has(&format!("pack_u8_w{w}")));
    }
    for w in 9..=32 {
        assert!(has(&format!("pack_u32_w{w}")));
        let u = if w <= 16 { 16 } else { 32 };
        assert!(has(&format!("unpack_u{u}_w{w}")), "{w}");
    }
    for w in 1..=32 {
        assert!(has(&format!("sum_w{w}")));
    }
    assert!(has("sum_partials"));
    for f in ["e2m1", "e2m3", "e3m2", "e4m3", "e5m2", "e8m0"] {
        for s in [
            "encode_{f}_nearest",
            "encode_{f}_satfinite",
            "decode_{f}_f32",
        ] {
            assert!(has(&s.replace("{f}", f)), "{s} {f}");
        }
    }
    for f in ["e2m1", "e2m3", "e3m2", "e4m3", "e5m2"] {
        assert!(has(&format!("decode_{f}_f16")) && has(&format!("decode_{f}_bf16")));
        for k in ["quantize", "dequantize"] {
            assert!(has(&format!("mx_{k}_{f}")), "mx_{k}_{f}");
        }
        for i in ["f16", "bf16"] {
            assert!(has(&format!("mx_quantize_{f}_{i}")), "mx_quantize_{f}_{i}");
        }
    }
    for e in [
        "nvfp4_quantize",
        "nvfp4_quantize_f16",
        "nvfp4_quantize_bf16",
        "nvfp4_dequantize",
        "amax_partials",
    ] {
        assert!(has(e), "{e}");
    }
    // The embedded text of each build has every listed entry.
    for t in TARGETS {
        for e in entries.lines() {
            assert!(
                Gpu::ptx(t).unwrap().contains(&format!(".entry {e}(")),
                "{t} {e}"
            );
        }
    }
}

#[test]
fn without_a_device_every_call_is_a_clear_error() {
    match Gpu::new(0) {
        Err(e) => {
            let msg = e.to_string();
            assert!(matches!(e, Error::Device { .. }), "{e:?}");
            assert!(msg.contains("CUDA"), "{msg}");
            eprintln!("skipped the device checks: {msg}");
        }
        Ok(g) => eprintln!(
            "GPU present: compute capability {:?}, {}",
            g.compute_capability(),
            g.target()
        ),
    }
    // A device index that no machine has.
    let e = Gpu::new(1 << 20).unwrap_err();
    assert!(matches!(e, Error::Device { .. }), "{e:?}");
}

/// Pseudo-random `f32`s over every class: normals of many magnitudes,
/// subnormals, zeros, infinities and NaNs.
fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let bits = (s >> 32) as u32;
            match bits % 8 {
                // Mostly the formats' own range: exponents -12..=20.
                0..=5 => f32::from_bits((bits & 0x807f_ffff) | ((115 + (bits >> 8) % 33) << 23)),
                _ => f32::from_bits(bits),
            }
        })
        .collect()
}

/// Pseudo-random raw values of `T`.
fn values<T: BitElement>(n: usize, seed: u64) -> Vec<T>
where
    T::Raw: Unsigned,
{
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            T::from_raw_bits(<T::Raw as Unsigned>::from_u128_truncate((s >> 17) as u128))
        })
        .collect()
}

/// Sizes with every kind of tail: empty, under one word, around word and
/// block edges, many CTAs.
const SIZES: [usize; 9] = [0, 1, 31, 63, 64, 65, 1000, 4096, (1 << 20) + 7];

fn bits_eq(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

/// Pack, unpack, sum, upload and download of `n` values of an unsigned
/// `T`, through the host conveniences and the `*_into` calls.
fn check_unsigned<T>(g: &Gpu, n: usize)
where
    T: bitpack::UnsignedElement + PartialEq + core::fmt::Debug,
    T::Raw: Unsigned,
{
    let v: Vec<T> = values(n, n as u64 * 31 + T::BITS as u64);
    let host = NarrowArray::from_slice(&v);
    let want: u128 = v.iter().map(|x| x.raw_bits().to_u128()).sum();
    let d = g.pack(&v).unwrap();
    assert_eq!(g.download(&d).unwrap(), host, "pack {} {n}", T::BITS);
    assert_eq!(g.unpack(&d).unwrap(), v, "unpack {} {n}", T::BITS);
    assert_eq!(g.sum(&d).unwrap(), want, "sum {} {n}", T::BITS);
    let up = g.upload(&host).unwrap();
    assert_eq!(up.len(), n);
    assert_eq!(g.unpack(&up).unwrap(), v);
    assert_eq!(g.sum(&up).unwrap(), want);
    // The calls on device memory: the sum into a buffer of the caller's.
    let mut scratch = g.alloc::<u64>(g.sum_scratch_len::<T>(n)).unwrap();
    let mut total = g.alloc::<u64>(1).unwrap();
    let k = scratch.len();
    g.sum_into(&up, &mut scratch.slice_mut(..k), &mut total.slice_mut(..))
        .unwrap();
    assert_eq!(g.stream().clone_dtoh(&total).unwrap()[0] as u128, want);
}

/// The raw-lane `*_into` calls for `T` of up to 8 bits (`u8` lanes).
fn check_u8_lanes<T>(g: &Gpu, n: usize)
where
    T: BitElement + PartialEq + core::fmt::Debug,
    T::Raw: Unsigned,
{
    let v: Vec<T> = values(n, n as u64 + 5);
    let raw: Vec<u8> = v.iter().map(|x| x.raw_bits().to_u128() as u8).collect();
    let src = g.stream().clone_htod(&pad(&raw)).unwrap();
    let mut out = g.alloc_narrow::<T>(n).unwrap();
    g.pack_into(&src.slice(..n), &mut out).unwrap();
    assert_eq!(g.download(&out).unwrap(), NarrowArray::from_slice(&v));
    let mut back = g.alloc::<u8>(n).unwrap();
    g.unpack_into(&out, &mut back.slice_mut(..n)).unwrap();
    assert_eq!(&g.stream().clone_dtoh(&back).unwrap()[..n], &raw[..]);
}

/// `v`, or one value for an empty `v` (a device buffer has at least one).
fn pad<T: Copy + Default>(v: &[T]) -> Vec<T> {
    if v.is_empty() {
        vec![T::default()]
    } else {
        v.to_vec()
    }
}

fn check_format<F: MiniFloat>(g: &Gpu, n: usize) {
    let x = data(n, n as u64 + F::BITS as u64);
    let dx = g.stream().clone_htod(&pad(&x)).unwrap();
    for mode in [Mode::Nearest, Mode::SatFinite] {
        let host = bitpack::formats::encode::<F>(&x, mode);
        let d = g.encode::<F>(&x, mode).unwrap();
        assert_eq!(
            g.download(&d).unwrap().as_bytes(),
            host.as_bytes(),
            "{:?} {n} {mode:?}",
            F::FORMAT
        );
        let mut into = g.alloc_narrow::<F>(n).unwrap();
        g.encode_into(&dx.slice(..n), mode, &mut into).unwrap();
        assert_eq!(g.download(&into).unwrap().as_bytes(), host.as_bytes());
        let want = bitpack::formats::decode(&host);
        assert!(bits_eq(&g.decode(&d).unwrap(), &want), "decode {n}");
        let mut y = g.alloc::<f32>(n).unwrap();
        g.decode_into(&into, &mut y.slice_mut(..n)).unwrap();
        assert!(bits_eq(&g.stream().clone_dtoh(&y).unwrap()[..n], &want));
        if F::FORMAT != bitpack::formats::FloatFormat::E8M0 {
            // f16 and bf16 sources, spread over every bit pattern: the
            // codes of the same values as f32.
            let bits: Vec<u16> = (0..n as u32)
                .map(|i| (i.wrapping_mul(40503) >> 3) as u16)
                .collect();
            let xh: Vec<half::f16> = bits.iter().map(|&b| half::f16::from_bits(b)).collect();
            let xb: Vec<half::bf16> = bits.iter().map(|&b| half::bf16::from_bits(b)).collect();
            let wh = bitpack::formats::encode::<F>(
                &xh.iter().map(|v| v.to_f32()).collect::<Vec<_>>(),
                mode,
            );
            let wb = bitpack::formats::encode::<F>(
                &xb.iter().map(|v| v.to_f32()).collect::<Vec<_>>(),
                mode,
            );
            let dh = g.stream().clone_htod(&pad(&xh)).unwrap();
            let db = g.stream().clone_htod(&pad(&xb)).unwrap();
            let mut out = g.alloc_narrow::<F>(n).unwrap();
            g.encode_into(&dh.slice(..n), mode, &mut out).unwrap();
            assert_eq!(
                g.download(&out).unwrap().as_bytes(),
                wh.as_bytes(),
                "f16 {n} {mode:?}"
            );
            g.encode_into(&db.slice(..n), mode, &mut out).unwrap();
            assert_eq!(
                g.download(&out).unwrap().as_bytes(),
                wb.as_bytes(),
                "bf16 {n} {mode:?}"
            );
            let h = g.decode_f16(&d).unwrap();
            assert_eq!(h.len(), n);
            assert!(
                h.iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_f32().to_bits() == b.to_bits() || b.is_nan())
            );
            let h = g.decode_bf16(&d).unwrap();
            assert_eq!(h.len(), n);
            assert!(
                h.iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_f32().to_bits() == b.to_bits() || b.is_nan())
            );
        } else {
            assert!(matches!(g.decode_f16(&d), Err(Error::Invalid(_))));
            assert!(matches!(g.decode_bf16(&d), Err(Error::Invalid(_))));
        }
    }
}

#[test]
fn device_results_equal_the_host_bits() {
    let Some(g) = gpu() else { return };
    for n in SIZES {
        check_unsigned::<bool>(&g, n);
        check_unsigned::<u3>(&g, n);
        check_unsigned::<u5>(&g, n);
        check_unsigned::<u8>(&g, n);
        check_unsigned::<u12>(&g, n);
        check_unsigned::<u16>(&g, n);
        check_unsigned::<u27>(&g, n);
        check_unsigned::<u32>(&g, n);
        check_u8_lanes::<u3>(&g, n);
        check_u8_lanes::<E2M1>(&g, n);
        check_format::<E2M1>(&g, n);
        check_format::<E2M3>(&g, n);
        check_format::<E3M2>(&g, n);
        check_format::<E4M3>(&g, n);
        check_format::<E5M2>(&g, n);
        check_format::<E8M0>(&g, n);
    }
}

fn check_mx<F: MxElement>(g: &Gpu, x: &[f32], shape: &[usize]) {
    let rules = [
        ScaleRule::Floor,
        ScaleRule::Ceil,
        ScaleRule::Even,
        ScaleRule::RCeil,
    ];
    let dx = g.stream().clone_htod(&pad(x)).unwrap();
    for axis in 0..shape.len() {
        for (k, rule) in rules.into_iter().enumerate() {
            let rounding = if k % 2 == 0 {
                Rounding::Nearest
            } else {
                Rounding::Stochastic { seed: k as u64 }
            };
            let opts = MxOptions {
                scale: rule,
                axis: Some(axis),
                rounding,
            };
            let host = MxArray::<F>::quantize_with(x, shape, &opts).unwrap();
            let d = g.mx_quantize::<F>(x, shape, &opts).unwrap();
            let back = g.download_mx(&d).unwrap();
            assert_eq!(
                back.values().as_bytes(),
                host.values().as_bytes(),
                "{shape:?} {opts:?}"
            );
            assert_eq!(
                back.scales().as_bytes(),
                host.scales().as_bytes(),
                "{shape:?} {opts:?}"
            );
            assert!(bits_eq(&g.mx_dequantize(&d).unwrap(), &host.dequantize()));
            let up = g.upload_mx(&host).unwrap();
            assert!(bits_eq(&g.mx_dequantize(&up).unwrap(), &host.dequantize()));
            // Into an array of the caller's, axis from it.
            let mut out: DeviceMxArray<F> = g.alloc_mx(shape, axis).unwrap();
            let opts = MxOptions { axis: None, ..opts };
            g.mx_quantize_into(&dx.slice(..x.len()), &opts, &mut out)
                .unwrap();
            let back = g.download_mx(&out).unwrap();
            assert_eq!(back.values().as_bytes(), host.values().as_bytes());
            assert_eq!(back.scales().as_bytes(), host.scales().as_bytes());
            let mut y = g.alloc::<f32>(x.len()).unwrap();
            g.mx_dequantize_into(&out, &mut y.slice_mut(..x.len()))
                .unwrap();
            let y = g.stream().clone_dtoh(&y).unwrap();
            assert!(bits_eq(&y[..x.len()], &host.dequantize()));
        }
    }
}

fn check_nvfp4(g: &Gpu, x: &[f32], shape: &[usize]) {
    let dx = g.stream().clone_htod(&pad(x)).unwrap();
    for (k, blocks) in [Nvfp4Blocks::Rows, Nvfp4Blocks::Tiles16x16]
        .into_iter()
        .enumerate()
    {
        for (t, tiny) in [TinyScale::Flush, TinyScale::Smallest, TinyScale::MinNormal]
            .into_iter()
            .enumerate()
        {
            let opts = Nvfp4Options {
                blocks,
                tensor_scale: if t == 2 { Some(0.01) } else { None },
                tiny,
                rounding: if (k + t) % 2 == 0 {
                    Rounding::Nearest
                } else {
                    Rounding::Stochastic { seed: 7 }
                },
            };
            let host = Nvfp4Array::quantize_with(x, shape, &opts).unwrap();
            let d = g.nvfp4_quantize(x, shape, &opts).unwrap();
            assert_eq!(d.tensor_scale().to_bits(), host.tensor_scale().to_bits());
            let back = g.download_nvfp4(&d).unwrap();
            assert_eq!(
                back.values().as_bytes(),
                host.values().as_bytes(),
                "{shape:?} {opts:?}"
            );
            assert_eq!(
                back.scales().as_bytes(),
                host.scales().as_bytes(),
                "{shape:?} {opts:?}"
            );
            assert!(bits_eq(
                &g.nvfp4_dequantize(&d).unwrap(),
                &host.dequantize()
            ));
            let up = g.upload_nvfp4(&host).unwrap();
            assert!(bits_eq(
                &g.nvfp4_dequantize(&up).unwrap(),
                &host.dequantize()
            ));
            let mut out: DeviceNvfp4Array = g.alloc_nvfp4(shape).unwrap();
            g.nvfp4_quantize_into(&dx.slice(..x.len()), &opts, &mut out)
                .unwrap();
            assert_eq!(out.tensor_scale().to_bits(), host.tensor_scale().to_bits());
            let back = g.download_nvfp4(&out).unwrap();
            assert_eq!(back.values().as_bytes(), host.values().as_bytes());
            assert_eq!(back.scales().as_bytes(), host.scales().as_bytes());
            let mut y = g.alloc::<f32>(x.len()).unwrap();
            g.nvfp4_dequantize_into(&out, &mut y.slice_mut(..x.len()))
                .unwrap();
            let y = g.stream().clone_dtoh(&y).unwrap();
            assert!(bits_eq(&y[..x.len()], &host.dequantize()));
        }
    }
}

#[test]
fn device_block_scaling_equals_the_host_bits() {
    let Some(g) = gpu() else { return };
    for shape in [
        vec![0usize],
        vec![1],
        vec![31],
        vec![3, 40],
        vec![5, 7, 33],
        vec![17, 48],
        vec![64, 4096],
    ] {
        let n: usize = shape.iter().product();
        let x = data(n, n as u64 + 3);
        check_mx::<E2M1>(&g, &x, &shape);
        check_mx::<E2M3>(&g, &x, &shape);
        check_mx::<E3M2>(&g, &x, &shape);
        check_mx::<E4M3>(&g, &x, &shape);
        check_mx::<E5M2>(&g, &x, &shape);
        check_nvfp4(&g, &x, &shape);
    }
    // All zeros: tensor scale 1; no finite value: the host's error.
    let zeros = g.nvfp4_quantize(&[0.0; 40], &[40], &Nvfp4Options::default());
    assert_eq!(zeros.unwrap().tensor_scale(), 1.0);
    let e = g.nvfp4_quantize(&[f32::NAN; 40], &[40], &Nvfp4Options::default());
    let h = Nvfp4Array::quantize_with(&[f32::NAN; 40], &[40], &Nvfp4Options::default());
    assert_eq!(e.unwrap_err(), h.unwrap_err());
    // Bad shapes and options are the host's errors.
    assert_eq!(
        g.mx_quantize::<E2M1>(&[1.0; 4], &[3], &MxOptions::default())
            .unwrap_err(),
        Error::Shape {
            elements: Some(3),
            len: 4
        }
    );
    let opts = MxOptions {
        axis: Some(2),
        ..MxOptions::default()
    };
    assert_eq!(
        g.mx_quantize::<E2M1>(&[1.0; 4], &[2, 2], &opts)
            .unwrap_err(),
        Error::Axis { axis: 2, ndim: 2 }
    );
    let opts = Nvfp4Options {
        tensor_scale: Some(f32::NAN),
        ..Nvfp4Options::default()
    };
    assert!(matches!(
        g.nvfp4_quantize(&[1.0; 4], &[4], &opts),
        Err(Error::Invalid(_))
    ));
}

#[test]
fn bad_sizes_are_rejected_with_the_numbers() {
    let Some(g) = gpu() else { return };
    let s = g.stream().clone();
    // A word buffer too short for the values.
    let words: CudaSlice<u64> = s.alloc_zeros(2).unwrap();
    let e = DeviceNarrowArray::<u5>::from_words(words, 26).unwrap_err();
    assert_eq!(
        e,
        Error::TooFewWords {
            needed: 3,
            actual: 2
        }
    );
    let words: CudaSlice<u64> = s.alloc_zeros(3).unwrap();
    let ok = DeviceNarrowArray::<u5>::from_words(words, 25).unwrap();
    assert_eq!((ok.len(), ok.words_len(), ok.words().len()), (25, 2, 3));
    assert_eq!(ok.as_view().len(), 2);
    // Pack: the source length, the raw type, the width.
    let src = s.clone_htod(&vec![1u8; 10]).unwrap();
    let mut out = g.alloc_narrow::<u5>(9).unwrap();
    assert_eq!(
        g.pack_into(&src.slice(..), &mut out).unwrap_err(),
        Error::Length {
            of: LengthOf::PackSource,
            expected: 9,
            actual: 10
        }
    );
    let src32 = s.clone_htod(&vec![1u32; 9]).unwrap();
    assert!(matches!(
        g.pack_into(&src32.slice(..), &mut out),
        Err(Error::Invalid(_))
    ));
    let wide = vec![u33::new(1); 4];
    assert_eq!(
        g.pack(&wide).unwrap_err(),
        Error::Width { width: 33, max: 32 }
    );
    // Unpack: the output length and type.
    let mut raw = g.alloc::<u8>(10).unwrap();
    assert_eq!(
        g.unpack_into(&out, &mut raw.slice_mut(..)).unwrap_err(),
        Error::Length {
            of: LengthOf::UnpackOutput,
            expected: 9,
            actual: 10
        }
    );
    let mut raw16 = g.alloc::<u16>(9).unwrap();
    assert!(matches!(
        g.unpack_into(&out, &mut raw16.slice_mut(..)),
        Err(Error::Invalid(_))
    ));
    // Sum: the output, the scratch, the overflow.
    let mut scratch = g.alloc::<u64>(64).unwrap();
    let mut two = g.alloc::<u64>(2).unwrap();
    assert_eq!(
        g.sum_into(&out, &mut scratch.slice_mut(..), &mut two.slice_mut(..))
            .unwrap_err(),
        Error::Length {
            of: LengthOf::AxisSumOutput,
            expected: 1,
            actual: 2
        }
    );
    let big = g.alloc_narrow::<u5>(100_000).unwrap();
    let needed = g.sum_scratch_len::<u5>(100_000);
    assert!(needed > 1);
    let mut scratch = g.alloc::<u64>(needed).unwrap();
    let mut one = g.alloc::<u64>(1).unwrap();
    assert_eq!(
        g.sum_into(
            &big,
            &mut scratch.slice_mut(..needed - 1),
            &mut one.slice_mut(..)
        )
        .unwrap_err(),
        Error::TooFewWords {
            needed,
            actual: needed - 1
        }
    );
    // Encode and decode: lengths, types, formats.
    let x = s.clone_htod(&vec![1.0f32; 8]).unwrap();
    let mut fp4 = g.alloc_narrow::<E2M1>(7).unwrap();
    assert_eq!(
        g.encode_into(&x.slice(..), Mode::Nearest, &mut fp4)
            .unwrap_err(),
        Error::Length {
            of: LengthOf::EncodeInput,
            expected: 7,
            actual: 8
        }
    );
    let xh = s.clone_htod(&vec![half::f16::ONE; 7]).unwrap();
    let mut e8m0 = g.alloc_narrow::<E8M0>(7).unwrap();
    assert!(matches!(
        g.encode_into(&xh.slice(..), Mode::Nearest, &mut e8m0),
        Err(Error::Invalid(_))
    ));
    let xu = s.clone_htod(&[1u32; 7]).unwrap();
    assert!(matches!(
        g.encode_into(&xu.slice(..), Mode::Nearest, &mut fp4),
        Err(Error::Invalid(_))
    ));
    let mut y = g.alloc::<f32>(8).unwrap();
    assert_eq!(
        g.decode_into(&fp4, &mut y.slice_mut(..)).unwrap_err(),
        Error::Length {
            of: LengthOf::DecodeOutput,
            expected: 7,
            actual: 8
        }
    );
    let mut yu = g.alloc::<u32>(7).unwrap();
    assert!(matches!(
        g.decode_into(&fp4, &mut yu.slice_mut(..)),
        Err(Error::Invalid(_))
    ));
    let e8 = g.alloc_narrow::<E8M0>(7).unwrap();
    let mut yh = g.alloc::<half::f16>(7).unwrap();
    assert!(matches!(
        g.decode_into(&e8, &mut yh.slice_mut(..)),
        Err(Error::Invalid(_))
    ));
    // Block-scaled arrays: shapes, axes, scales, the tensor scale.
    // More scale bytes than blocks are allowed (and left alone).
    let v = g.alloc_narrow::<E2M1>(80).unwrap();
    let sc = g.alloc::<u8>(5).unwrap();
    assert_eq!(
        DeviceMxArray::from_parts(v, sc, &[2, 40], 1)
            .unwrap()
            .scales_len(),
        4
    );
    let v = g.alloc_narrow::<E2M1>(80).unwrap();
    let sc = g.alloc::<u8>(3).unwrap();
    assert_eq!(
        DeviceMxArray::from_parts(v, sc, &[2, 40], 1).unwrap_err(),
        Error::Length {
            of: LengthOf::BlockScales {
                scheme: "MX",
                block: 32
            },
            expected: 4,
            actual: 3
        }
    );
    let v = g.alloc_narrow::<E2M1>(80).unwrap();
    let sc = g.alloc::<u8>(4).unwrap();
    assert_eq!(
        DeviceMxArray::from_parts(v, sc, &[2, 41], 1).unwrap_err(),
        Error::Shape {
            elements: Some(82),
            len: 80
        }
    );
    let v = g.alloc_narrow::<E2M1>(80).unwrap();
    let sc = g.alloc::<u8>(4).unwrap();
    assert_eq!(
        DeviceMxArray::from_parts(v, sc, &[2, 40], 2).unwrap_err(),
        Error::Axis { axis: 2, ndim: 2 }
    );
    assert_eq!(
        g.alloc_mx::<E2M1>(&[2, 40], 3).unwrap_err(),
        Error::Axis { axis: 3, ndim: 2 }
    );
    let mut mx = g.alloc_mx::<E2M1>(&[2, 40], 1).unwrap();
    assert_eq!(mx.scales_len(), 4);
    let opts = MxOptions {
        axis: Some(0),
        ..MxOptions::default()
    };
    let x80 = s.clone_htod(&vec![1.0f32; 80]).unwrap();
    assert!(matches!(
        g.mx_quantize_into(&x80.slice(..), &opts, &mut mx),
        Err(Error::Invalid(_))
    ));
    assert_eq!(
        g.mx_quantize_into(&x80.slice(..79), &MxOptions::default(), &mut mx)
            .unwrap_err(),
        Error::Length {
            of: LengthOf::EncodeInput,
            expected: 80,
            actual: 79
        }
    );
    let mut y = g.alloc::<f32>(81).unwrap();
    assert_eq!(
        g.mx_dequantize_into(&mx, &mut y.slice_mut(..)).unwrap_err(),
        Error::Length {
            of: LengthOf::DequantizeOutput,
            expected: 80,
            actual: 81
        }
    );
    let v = g.alloc_narrow::<E2M1>(80).unwrap();
    let sc = g.alloc::<u8>(10).unwrap();
    assert!(matches!(
        DeviceNvfp4Array::from_parts(v, sc, &[2, 40], 0.0),
        Err(Error::Invalid(_))
    ));
    let v = g.alloc_narrow::<E2M1>(80).unwrap();
    let sc = g.alloc::<u8>(5).unwrap();
    assert_eq!(
        DeviceNvfp4Array::from_parts(v, sc, &[2, 40], 1.0).unwrap_err(),
        Error::Length {
            of: LengthOf::BlockScales {
                scheme: "NVFP4",
                block: 16
            },
            expected: 6,
            actual: 5
        }
    );
    let mut nv = g.alloc_nvfp4(&[2, 40]).unwrap();
    assert_eq!(nv.scales_len(), 6);
    assert_eq!(
        g.nvfp4_quantize_into(&x80.slice(..79), &Nvfp4Options::default(), &mut nv)
            .unwrap_err(),
        Error::Length {
            of: LengthOf::EncodeInput,
            expected: 80,
            actual: 79
        }
    );
}

/// A stream of the caller's, device memory throughout, one wait at the
/// end: FP8 encode, the sum of the codes, decode, MX quantize.
#[test]
fn a_chain_on_device_memory_on_a_user_stream() {
    let Some(g0) = gpu() else { return };
    let stream = g0.context().new_stream().unwrap();
    let g = g0.with_stream(stream.clone()).unwrap();
    assert!(Arc::ptr_eq(g.stream(), &stream));
    assert_eq!(g.target(), g0.target());

    let shape = [48usize, 96];
    let n = shape[0] * shape[1];
    let host = data(n, 11);
    let x = stream.clone_htod(&host).unwrap();
    let mut fp8 = g.alloc_narrow::<E4M3>(n).unwrap();
    g.encode_into(&x.as_view(), Mode::SatFinite, &mut fp8)
        .unwrap();
    let mut y = g.alloc::<f32>(n).unwrap();
    g.decode_into(&fp8, &mut y.as_view_mut()).unwrap();
    let mut mx = g.alloc_mx::<E2M1>(&shape, 1).unwrap();
    let opts = MxOptions {
        scale: ScaleRule::RCeil,
        ..MxOptions::default()
    };
    g.mx_quantize_into(&y.as_view(), &opts, &mut mx).unwrap();
    // The FP8 codes as bytes, summed on the device.
    let codes = DeviceNarrowArray::<u8>::from_words(fp8.into_words(), n).unwrap();
    let mut scratch = g.alloc::<u64>(g.sum_scratch_len::<u8>(n)).unwrap();
    let mut total = g.alloc::<u64>(1).unwrap();
    g.sum_into(&codes, &mut scratch.as_view_mut(), &mut total.as_view_mut())
        .unwrap();

    let back = g.download_mx(&mx).unwrap();
    let sum = stream.clone_dtoh(&total).unwrap()[0];

    let fp8_host = bitpack::formats::encode::<E4M3>(&host, Mode::SatFinite);
    let want = MxArray::<E2M1>::quantize_with(&bitpack::formats::decode(&fp8_host), &shape, &opts)
        .unwrap();
    assert_eq!(back.values().as_bytes(), want.values().as_bytes());
    assert_eq!(back.scales().as_bytes(), want.scales().as_bytes());
    let want_sum: u64 = fp8_host.as_bytes().iter().map(|&b| b as u64).sum();
    assert_eq!(sum, want_sum);

    // Back to the default stream: the same kernels.
    let g1 = g.with_stream(g0.stream().clone()).unwrap();
    assert!(Arc::ptr_eq(g1.stream(), g0.stream()));
}

/// The capturable calls run inside a CUDA graph: captured once, launched
/// twice, the results the host's.
#[test]
fn the_device_calls_capture_into_a_graph() {
    let Some(g0) = gpu() else { return };
    // This test's context object (`Gpu::new` makes one per call) tracks no
    // buffer uses: a launch inside a capture must not wait on an event
    // recorded before it. The buffers are used on one stream only.
    let ctx = g0.context().clone();
    // SAFETY: every buffer below is made after this call and used on
    // `stream` alone, so no cross-stream order is left to the events.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream().unwrap();
    let g = g0.with_stream(stream.clone()).unwrap();
    let n = 5000;
    let host = data(n, 5);
    let x = stream.clone_htod(&host).unwrap();
    let mut fp4 = g.alloc_narrow::<E2M1>(n).unwrap();
    let mut y = g.alloc::<f32>(n).unwrap();
    let mut nv = g.alloc_nvfp4(&[n]).unwrap();
    let opts = Nvfp4Options {
        tensor_scale: Some(0.25),
        ..Nvfp4Options::default()
    };
    // Once outside the capture, so that every kernel is loaded first.
    g.encode_into(&x.as_view(), Mode::Nearest, &mut fp4)
        .unwrap();
    g.decode_into(&fp4, &mut y.as_view_mut()).unwrap();
    g.nvfp4_quantize_into(&y.as_view(), &opts, &mut nv).unwrap();
    stream.synchronize().unwrap();
    stream
        .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
        .unwrap();
    let r1 = g.encode_into(&x.as_view(), Mode::Nearest, &mut fp4);
    let r2 = g.decode_into(&fp4, &mut y.as_view_mut());
    let r3 = g.nvfp4_quantize_into(&y.as_view(), &opts, &mut nv);
    let graph = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))
        .unwrap()
        .expect("a graph");
    r1.unwrap();
    r2.unwrap();
    r3.unwrap();
    graph.launch().unwrap();
    graph.launch().unwrap();
    let q = g.download_nvfp4(&nv).unwrap();
    let fp4_host = bitpack::formats::encode::<E2M1>(&host, Mode::Nearest);
    assert_eq!(g.download(&fp4).unwrap(), fp4_host);
    let want =
        Nvfp4Array::quantize_with(&bitpack::formats::decode(&fp4_host), &[n], &opts).unwrap();
    assert_eq!(q.values().as_bytes(), want.values().as_bytes());
    assert_eq!(q.scales().as_bytes(), want.scales().as_bytes());
}

/// Loading PTX of one's own: a corrupted text is an error with the
/// driver's name and the JIT log; good text loads.
#[test]
fn a_corrupted_ptx_is_a_named_error_with_the_jit_log() {
    let Some(g) = gpu() else { return };
    let ctx: &Arc<CudaContext> = g.context();
    let good = Gpu::ptx(g.target()).unwrap();
    let m = load_ptx(ctx, good).unwrap();
    assert!(m.load_function("sum_partials").is_ok());
    let bad = good.replacen(".entry sum_partials(", ".entry sum_partials(((", 1);
    let e = load_ptx(ctx, &bad).unwrap_err();
    eprintln!("{e}");
    let Error::Device { call, code } = e else {
        panic!("{e:?}")
    };
    assert_eq!(code, Some(218), "{call}");
    assert!(call.contains("CUDA_ERROR_INVALID_PTX"), "{call}");
    assert!(call.contains("JIT error log"), "{call}");
    // An ISA version no driver has.
    let future = good.replacen(".version ", ".version 99.9 // ", 1);
    let e = load_ptx(ctx, &future).unwrap_err();
    eprintln!("{e}");
    let Error::Device { call, code } = e else {
        panic!("{e:?}")
    };
    assert!(matches!(code, Some(209 | 218 | 222)), "{code:?} {call}");
    assert!(matches!(load_ptx(ctx, "\0"), Err(Error::Invalid(_))));
}
