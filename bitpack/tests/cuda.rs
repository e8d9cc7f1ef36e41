//! The `cuda` feature: kernel choice and names (checked without a GPU), the
//! clear error without a driver or device, and, where a GPU is present,
//! every device result against the host's bits. Without a GPU the device
//! checks print why they were skipped.
#![cfg(feature = "cuda")]

use arbitrary_int::{u5, u12, u27};
use bitpack::cuda::Gpu;
use bitpack::formats::{
    E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, MiniFloat, Mode, MxArray, MxElement, MxOptions, Nvfp4Array,
    Nvfp4Blocks, Nvfp4Options, Rounding, ScaleRule, TinyScale,
};
use bitpack::{Error, NarrowArray};

/// The device, or `None` with the reason printed.
fn gpu() -> Option<Gpu> {
    match Gpu::new(0) {
        Ok(g) => Some(g),
        Err(e) => {
            eprintln!("skipped: no usable GPU ({e}); the device checks did not run");
            assert!(matches!(e, Error::Device { .. }), "{e:?}");
            None
        }
    }
}

#[test]
fn the_best_committed_build_is_chosen() {
    assert_eq!(Gpu::target_for((10, 0)), Some("sm_100a"));
    assert_eq!(Gpu::target_for((10, 3)), Some("sm_90")); // sm_100a runs on 10.0 only
    assert_eq!(Gpu::target_for((12, 0)), Some("sm_90"));
    assert_eq!(Gpu::target_for((9, 0)), Some("sm_90"));
    assert_eq!(Gpu::target_for((8, 9)), Some("sm_80"));
    assert_eq!(Gpu::target_for((8, 0)), Some("sm_80"));
    assert_eq!(Gpu::target_for((7, 5)), None);
    for t in ["sm_80", "sm_90", "sm_100a"] {
        let text = Gpu::ptx(t).unwrap();
        assert!(text.contains(&format!(".target {t}\n")), "{t}");
    }
    assert_eq!(Gpu::ptx("sm_70"), None);
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
        for k in ["scales", "encode", "decode"] {
            assert!(has(&format!("mx_{k}_{f}")), "mx_{k}_{f}");
        }
    }
    for e in [
        "nvfp4_scales",
        "nvfp4_encode",
        "nvfp4_decode",
        "amax_partials",
    ] {
        assert!(has(e), "{e}");
    }
    // The embedded text of each build has every listed entry.
    for t in ["sm_80", "sm_90", "sm_100a"] {
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

fn check_format<F: MiniFloat>(g: &Gpu, n: usize) {
    let x = data(n, n as u64 + F::BITS as u64);
    for mode in [Mode::Nearest, Mode::SatFinite] {
        let d = g.encode::<F>(&x, mode).unwrap();
        let host = bitpack::formats::encode::<F>(&x, mode);
        assert_eq!(
            g.download(&d).unwrap().as_bytes(),
            host.as_bytes(),
            "{n} {mode:?}"
        );
        let back = g.decode(&d).unwrap();
        let want = bitpack::formats::decode(&host);
        let same = back
            .iter()
            .zip(&want)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same && back.len() == n, "decode {n}");
        if F::BITS < 8 || F::FORMAT.bias < 100 {
            let h = g.decode_f16(&d).unwrap();
            assert!(
                h.iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_f32().to_bits() == b.to_bits() || b.is_nan())
            );
            let h = g.decode_bf16(&d).unwrap();
            assert!(
                h.iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_f32().to_bits() == b.to_bits() || b.is_nan())
            );
        }
    }
}

#[test]
fn device_results_equal_the_host_bits() {
    let Some(g) = gpu() else { return };
    for n in [0usize, 1, 31, 4096, (1 << 20) + 7] {
        let v: Vec<u5> = (0..n).map(|i| u5::new((i * 7 % 32) as u8)).collect();
        let d = g.pack(&v).unwrap();
        assert_eq!(g.download(&d).unwrap(), NarrowArray::from_slice(&v), "{n}");
        assert_eq!(g.unpack(&d).unwrap(), v);
        assert_eq!(
            g.sum(&d).unwrap(),
            v.iter().map(|x| x.value() as u128).sum::<u128>()
        );
        let v: Vec<u12> = (0..n).map(|i| u12::new((i * 977 % 4096) as u16)).collect();
        let d = g.upload(&NarrowArray::from_slice(&v)).unwrap();
        assert_eq!(g.unpack(&d).unwrap(), v);
        let want: u128 = v.iter().map(|x| x.value() as u128).sum();
        assert_eq!(g.sum(&d).unwrap(), want);
        let v: Vec<u27> = (0..n)
            .map(|i| u27::new((i as u32).wrapping_mul(2654435761) >> 5))
            .collect();
        let d = g.pack(&v).unwrap();
        assert_eq!(g.unpack(&d).unwrap(), v);
        let want: u128 = v.iter().map(|x| x.value() as u128).sum();
        assert_eq!(g.sum(&d).unwrap(), want);
        check_format::<E2M1>(&g, n);
        check_format::<E2M3>(&g, n);
        check_format::<E3M2>(&g, n);
        check_format::<E4M3>(&g, n);
        check_format::<E5M2>(&g, n);
        check_format::<E8M0>(&g, n);
    }
}

fn bits_eq(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

fn check_mx<F: MxElement>(g: &Gpu, x: &[f32], shape: &[usize]) {
    let rules = [
        ScaleRule::Floor,
        ScaleRule::Ceil,
        ScaleRule::Even,
        ScaleRule::RCeil,
    ];
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
        }
    }
}

fn check_nvfp4(g: &Gpu, x: &[f32], shape: &[usize]) {
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
    // Bad shapes and options are the host's errors.
    assert!(
        g.mx_quantize::<E2M1>(&[1.0; 4], &[3], &MxOptions::default())
            .is_err()
    );
    let opts = MxOptions {
        axis: Some(2),
        ..MxOptions::default()
    };
    assert!(g.mx_quantize::<E2M1>(&[1.0; 4], &[2, 2], &opts).is_err());
    let opts = Nvfp4Options {
        tensor_scale: Some(f32::NAN),
        ..Nvfp4Options::default()
    };
    assert!(g.nvfp4_quantize(&[1.0; 4], &[4], &opts).is_err());
}
