//! Float-format benchmarks, each group measured beside its baselines in one
//! run: the E8M0 bulk kernels beside the other formats' encode and decode
//! (and beside the scalar rounding routine E8M0 used before it had a
//! kernel), MX and NVFP4 quantization beside a plain encode of the same
//! data, and the wide-input encoders.
//!
//! Run: `cargo bench -p bitpack-bench --bench formats`, then
//! `python3 scripts/bench_report.py --section formats` rewrites the tables of
//! the float-formats section of `BENCHMARKS.md`.

use std::hint::black_box;
use std::time::Duration;

use bitpack::NarrowArray;
use bitpack::formats::{
    self, E2M1, E3M2, E4M3, E5M2, E8M0, Encoder, FloatFormat, Mode, MxArray, MxOptions, Nvfp4Array,
    Nvfp4Blocks, Nvfp4Options, ScaleRule,
};
use criterion::{Criterion, Throughput};

const N: usize = 1 << 20;

/// xorshift64*: deterministic pseudo-random `f32` data, normal-ish
/// magnitudes over a few binades, both signs (and positive only for E8M0,
/// whose inputs are scales).
fn data(n: usize, seed: u64, positive: bool) -> Vec<f32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
            let m = (r >> 40) as f32 / (1u64 << 24) as f32; // [0, 1)
            let e = ((r >> 8) & 15) as i32 - 8;
            let v = (1.0 + m) * 2f32.powi(e);
            if !positive && r & 1 == 1 { -v } else { v }
        })
        .collect()
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args()
}

/// E8M0 encode/decode beside E4M3, E5M2 and E2M1 on the same number of
/// values, and the scalar routine (the E8M0 bulk path before its kernel).
fn e8m0(c: &mut Criterion) {
    let pos = data(N, 1, true);
    let signed = data(N, 1, false);
    let mut g = c.benchmark_group("encode");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("e8m0", |b| {
        b.iter(|| formats::encode::<E8M0>(black_box(&pos), Mode::Nearest))
    });
    g.bench_function("e8m0_routine", |b| {
        b.iter(|| {
            let v: Vec<u8> = black_box(&pos)
                .iter()
                .map(|&x| FloatFormat::E8M0.encode_f32(x, Mode::Nearest) as u8)
                .collect();
            v
        })
    });
    g.bench_function("e4m3", |b| {
        b.iter(|| formats::encode::<E4M3>(black_box(&signed), Mode::Nearest))
    });
    g.bench_function("e5m2", |b| {
        b.iter(|| formats::encode::<E5M2>(black_box(&signed), Mode::Nearest))
    });
    g.bench_function("e2m1", |b| {
        b.iter(|| formats::encode::<E2M1>(black_box(&signed), Mode::Nearest))
    });
    g.finish();

    let s8 = formats::encode::<E8M0>(&pos, Mode::Nearest);
    let e4 = formats::encode::<E4M3>(&signed, Mode::Nearest);
    let e5 = formats::encode::<E5M2>(&signed, Mode::Nearest);
    let e2 = formats::encode::<E2M1>(&signed, Mode::Nearest);
    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("e8m0", |b| b.iter(|| formats::decode(black_box(&s8))));
    g.bench_function("e8m0_routine", |b| {
        b.iter(|| {
            let v: Vec<f32> = black_box(s8.as_bytes())
                .iter()
                .map(|&c| FloatFormat::E8M0.decode_f32(c as u32))
                .collect();
            v
        })
    });
    g.bench_function("e4m3", |b| b.iter(|| formats::decode(black_box(&e4))));
    g.bench_function("e5m2", |b| b.iter(|| formats::decode(black_box(&e5))));
    g.bench_function("e2m1", |b| b.iter(|| formats::decode(black_box(&e2))));
    g.finish();
}

/// `f()` with the AVX-512 variants masked off (the AVX2 build many CPUs
/// run): only the internal bits of AVX2, BMI2, POPCNT and F16C
/// (`kernels::x86`) left to the kernels' dispatch.
#[cfg(target_arch = "x86_64")]
fn masked(f: &mut dyn FnMut()) {
    const NO_AVX512: u32 = 0b1111;
    bitpack::kernels::__limit_features(NO_AVX512);
    f();
    bitpack::kernels::__limit_features(u32::MAX);
}

/// MX and NVFP4 quantization beside a plain encode of the same data into
/// the element format (the floor quantization cannot beat).
fn quantize(c: &mut Criterion) {
    let x = data(N, 2, false);
    let shape = [N / 1024, 1024];
    let mut g = c.benchmark_group("quantize");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("encode_e2m1", |b| {
        b.iter(|| formats::encode::<E2M1>(black_box(&x), Mode::SatFinite))
    });
    g.bench_function("mx_e2m1", |b| {
        b.iter(|| MxArray::<E2M1>::quantize(black_box(&x), &shape).unwrap())
    });
    let rceil = MxOptions {
        scale: ScaleRule::RCeil,
        ..MxOptions::default()
    };
    g.bench_function("mx_e2m1_rceil", |b| {
        b.iter(|| MxArray::<E2M1>::quantize_with(black_box(&x), &shape, &rceil).unwrap())
    });
    let axis0 = MxOptions {
        axis: Some(0),
        ..MxOptions::default()
    };
    g.bench_function("mx_e2m1_axis0", |b| {
        b.iter(|| MxArray::<E2M1>::quantize_with(black_box(&x), &shape, &axis0).unwrap())
    });
    g.bench_function("encode_e4m3", |b| {
        b.iter(|| formats::encode::<E4M3>(black_box(&x), Mode::SatFinite))
    });
    g.bench_function("mx_e4m3", |b| {
        b.iter(|| MxArray::<E4M3>::quantize(black_box(&x), &shape).unwrap())
    });
    // A 6-bit format (MXFP6): its codes are not whole bytes or nibbles.
    g.bench_function("encode_e3m2", |b| {
        b.iter(|| formats::encode::<E3M2>(black_box(&x), Mode::SatFinite))
    });
    g.bench_function("mx_e3m2", |b| {
        b.iter(|| MxArray::<E3M2>::quantize(black_box(&x), &shape).unwrap())
    });
    g.bench_function("nvfp4", |b| {
        b.iter(|| Nvfp4Array::quantize(black_box(&x), &shape).unwrap())
    });
    // A given tensor scale: one pass over the data (the default one reads
    // it twice, its amax first).
    let ts = Nvfp4Array::quantize(&x, &shape).unwrap().tensor_scale();
    g.bench_function("nvfp4_given", |b| {
        b.iter(|| Nvfp4Array::quantize_with_tensor_scale(black_box(&x), &shape, ts).unwrap())
    });
    let tiles = Nvfp4Options {
        blocks: Nvfp4Blocks::Tiles16x16,
        ..Nvfp4Options::default()
    };
    g.bench_function("nvfp4_tiles", |b| {
        b.iter(|| Nvfp4Array::quantize_with(black_box(&x), &shape, &tiles).unwrap())
    });
    let sr = MxOptions {
        rounding: formats::Rounding::Stochastic { seed: 1 },
        ..MxOptions::default()
    };
    g.bench_function("mx_e2m1_stochastic", |b| {
        b.iter(|| MxArray::<E2M1>::quantize_with(black_box(&x), &shape, &sr).unwrap())
    });
    g.bench_function("mx_e4m3_stochastic", |b| {
        b.iter(|| MxArray::<E4M3>::quantize_with(black_box(&x), &shape, &sr).unwrap())
    });
    g.bench_function("nvfp4_stochastic", |b| {
        let o = Nvfp4Options {
            rounding: formats::Rounding::Stochastic { seed: 1 },
            ..Nvfp4Options::default()
        };
        b.iter(|| Nvfp4Array::quantize_with(black_box(&x), &shape, &o).unwrap())
    });
    // The same with the AVX-512 variants masked off (the AVX2 build
    // many CPUs run), where the CPU has AVX-512.
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") {
        g.bench_function("avx2/encode_e2m1", |b| {
            masked(&mut || b.iter(|| formats::encode::<E2M1>(black_box(&x), Mode::SatFinite)))
        });
        g.bench_function("avx2/mx_e2m1", |b| {
            masked(&mut || b.iter(|| MxArray::<E2M1>::quantize(black_box(&x), &shape).unwrap()))
        });
        g.bench_function("avx2/encode_e4m3", |b| {
            masked(&mut || b.iter(|| formats::encode::<E4M3>(black_box(&x), Mode::SatFinite)))
        });
        g.bench_function("avx2/mx_e4m3", |b| {
            masked(&mut || b.iter(|| MxArray::<E4M3>::quantize(black_box(&x), &shape).unwrap()))
        });
        g.bench_function("avx2/nvfp4", |b| {
            masked(&mut || b.iter(|| Nvfp4Array::quantize(black_box(&x), &shape).unwrap()))
        });
        g.bench_function("avx2/nvfp4_given", |b| {
            masked(&mut || {
                b.iter(|| {
                    Nvfp4Array::quantize_with_tensor_scale(black_box(&x), &shape, ts).unwrap()
                })
            })
        });
        g.bench_function("avx2/encode_e3m2", |b| {
            masked(&mut || b.iter(|| formats::encode::<E3M2>(black_box(&x), Mode::SatFinite)))
        });
        g.bench_function("avx2/mx_e3m2", |b| {
            masked(&mut || b.iter(|| MxArray::<E3M2>::quantize(black_box(&x), &shape).unwrap()))
        });
        g.bench_function("avx2/mx_e2m1_stochastic", |b| {
            masked(&mut || {
                b.iter(|| MxArray::<E2M1>::quantize_with(black_box(&x), &shape, &sr).unwrap())
            })
        });
    }
    g.finish();
}

/// The quantize targets at scale: 16 Mi `f32` values (64 MiB, far past
/// every cache) in rows of 1024, MX under Floor and RCeil and NVFP4 with
/// a given and a computed tensor scale, each beside the plain encode of the
/// same values to its element format; and the same with the AVX-512
/// variants masked off.
fn quantize_16m(c: &mut Criterion) {
    const BIG: usize = 1 << 24;
    let x = data(BIG, 5, false);
    let shape = [BIG / 1024, 1024];
    let rceil = MxOptions {
        scale: ScaleRule::RCeil,
        ..MxOptions::default()
    };
    let ts = Nvfp4Array::quantize(&x, &shape).unwrap().tensor_scale();
    let mut g = c.benchmark_group("quantize_16m");
    g.throughput(Throughput::Elements(BIG as u64));
    let runs = |g: &mut criterion::BenchmarkGroup<'_, _>, prefix: &str, mask: bool| {
        let mut run = |name: &str, f: &mut dyn FnMut()| {
            g.bench_function(format!("{prefix}{name}"), |b| {
                #[cfg(target_arch = "x86_64")]
                if mask {
                    return masked(&mut || b.iter(&mut *f));
                }
                let _ = mask;
                b.iter(&mut *f)
            });
        };
        run("encode_e2m1", &mut || {
            black_box(formats::encode::<E2M1>(black_box(&x), Mode::SatFinite));
        });
        run("mx_e2m1", &mut || {
            black_box(MxArray::<E2M1>::quantize(black_box(&x), &shape).unwrap());
        });
        run("mx_e2m1_rceil", &mut || {
            black_box(MxArray::<E2M1>::quantize_with(black_box(&x), &shape, &rceil).unwrap());
        });
        run("encode_e4m3", &mut || {
            black_box(formats::encode::<E4M3>(black_box(&x), Mode::SatFinite));
        });
        run("mx_e4m3", &mut || {
            black_box(MxArray::<E4M3>::quantize(black_box(&x), &shape).unwrap());
        });
        run("mx_e4m3_rceil", &mut || {
            black_box(MxArray::<E4M3>::quantize_with(black_box(&x), &shape, &rceil).unwrap());
        });
        run("nvfp4_given", &mut || {
            black_box(Nvfp4Array::quantize_with_tensor_scale(black_box(&x), &shape, ts).unwrap());
        });
        run("nvfp4", &mut || {
            black_box(Nvfp4Array::quantize(black_box(&x), &shape).unwrap());
        });
    };
    runs(&mut g, "", false);
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") {
        runs(&mut g, "avx2/", true);
    }
    g.finish();
}

/// MX and NVFP4 dequantization beside a plain decode of the same codes
/// (the floor a dequantizer cannot beat: the codes to `f32`, no scales).
fn dequantize(c: &mut Criterion) {
    let x = data(N, 4, false);
    let shape = [N / 1024, 1024];
    let e2 = formats::encode::<E2M1>(&x, Mode::SatFinite);
    let e4 = formats::encode::<E4M3>(&x, Mode::SatFinite);
    let mx2 = MxArray::<E2M1>::quantize(&x, &shape).unwrap();
    let mx4 = MxArray::<E4M3>::quantize(&x, &shape).unwrap();
    let nv = Nvfp4Array::quantize(&x, &shape).unwrap();
    let mut g = c.benchmark_group("dequantize");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("decode_e2m1", |b| {
        b.iter(|| formats::decode(black_box(&e2)))
    });
    g.bench_function("mx_e2m1", |b| b.iter(|| black_box(&mx2).dequantize()));
    g.bench_function("nvfp4", |b| b.iter(|| black_box(&nv).dequantize()));
    g.bench_function("decode_e4m3", |b| {
        b.iter(|| formats::decode(black_box(&e4)))
    });
    g.bench_function("mx_e4m3", |b| b.iter(|| black_box(&mx4).dequantize()));
    // The E2M1 three and the E4M3 pair with the AVX-512 variants masked
    // off (the AVX2 build many CPUs run), where the CPU has AVX-512.
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") {
        g.bench_function("avx2/decode_e2m1", |b| {
            masked(&mut || b.iter(|| formats::decode(black_box(&e2))))
        });
        g.bench_function("avx2/mx_e2m1", |b| {
            masked(&mut || b.iter(|| black_box(&mx2).dequantize()))
        });
        g.bench_function("avx2/nvfp4", |b| {
            masked(&mut || b.iter(|| black_box(&nv).dequantize()))
        });
        g.bench_function("avx2/decode_e4m3", |b| {
            masked(&mut || b.iter(|| formats::decode(black_box(&e4))))
        });
        g.bench_function("avx2/mx_e4m3", |b| {
            masked(&mut || b.iter(|| black_box(&mx4).dequantize()))
        });
    }
    g.finish();
}

/// Encoding from `f64`, `f16` and `bf16` beside `f32`, into E4M3.
fn wide(c: &mut Criterion) {
    let x = data(N, 3, false);
    let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let x16: Vec<half::f16> = x.iter().map(|&v| half::f16::from_f32(v)).collect();
    let xb: Vec<half::bf16> = x.iter().map(|&v| half::bf16::from_f32(v)).collect();
    let e = Encoder::new(Mode::SatFinite);
    let mut g = c.benchmark_group("wide");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("f32", |b| b.iter(|| e.array::<E4M3, f32>(black_box(&x))));
    g.bench_function("f64", |b| b.iter(|| e.array::<E4M3, f64>(black_box(&x64))));
    g.bench_function("f16", |b| {
        b.iter(|| e.array::<E4M3, half::f16>(black_box(&x16)))
    });
    g.bench_function("bf16", |b| {
        b.iter(|| e.array::<E4M3, half::bf16>(black_box(&xb)))
    });
    let s = e.stochastic(5);
    g.bench_function("f32_stochastic", |b| {
        b.iter(|| s.array::<E4M3, f32>(black_box(&x)))
    });
    g.bench_function("bf16_stochastic", |b| {
        b.iter(|| s.array::<E4M3, half::bf16>(black_box(&xb)))
    });
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") {
        g.bench_function("avx2/f32_stochastic", |b| {
            masked(&mut || b.iter(|| s.array::<E4M3, f32>(black_box(&x))))
        });
    }
    g.finish();
    black_box(NarrowArray::<E4M3>::zeroed(1));
}

fn main() {
    let mut c = config();
    e8m0(&mut c);
    quantize(&mut c);
    quantize_16m(&mut c);
    dequantize(&mut c);
    wide(&mut c);
    c.final_summary();
}
