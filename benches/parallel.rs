//! The `rayon` feature: each bulk call on one thread beside the same call
//! split across the pool's threads, at 64 M values (`large`), and the
//! threshold sweep (`threshold`): the cheapest calls at 2^14..2^22 values,
//! one thread beside a forced split, to see where the split starts to pay.
//!
//! Run: `cargo bench -p bitpack-bench --features rayon --bench parallel`
//! (`-- large` or `-- threshold` for one group); the medians and ratios are
//! in the "All cores" section of `BENCHMARKS.md`.

use std::hint::black_box;
use std::time::Duration;

use bitpack::__with_parallel_threshold as with_threshold;
use bitpack::arbitrary_int::u4;
use bitpack::formats::{self, E2M1, E4M3, Mode, MxArray, MxOptions, Nvfp4Array, Nvfp4Options};
use bitpack::{NarrowArray, NarrowMut, NarrowRef};
use criterion::{BenchmarkId, Criterion, Throughput};

/// 64 M values: 256 MB of `f32`.
const LARGE: usize = 1 << 26;

/// xorshift64*: `f32` data over a few binades, both signs.
fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
            let m = (r >> 40) as f32 / (1u64 << 24) as f32;
            let v = (1.0 + m) * 2f32.powi(((r >> 8) & 15) as i32 - 8);
            if r & 1 == 1 { -v } else { v }
        })
        .collect()
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args()
}

/// Runs `f` on one thread (`one`) and split (`rayon`, the default
/// threshold and pieces).
fn both(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    mut f: impl FnMut(),
) {
    g.bench_function(BenchmarkId::new(name, "one"), |b| {
        b.iter(|| with_threshold(usize::MAX, 1, &mut f))
    });
    g.bench_function(BenchmarkId::new(name, "rayon"), |b| b.iter(&mut f));
}

fn large(c: &mut Criterion) {
    let n = LARGE;
    let src = data(n, 1);
    let shape = [8192, n / 8192];
    let mut g = c.benchmark_group("large");
    g.throughput(Throughput::Elements(n as u64));
    let mut e2m1 = NarrowArray::<E2M1>::zeroed(n);
    let mut e4m3 = NarrowArray::<E4M3>::zeroed(n);
    both(&mut g, "encode_e2m1", || {
        formats::encode_into(black_box(&src), Mode::Nearest, &mut e2m1).unwrap()
    });
    both(&mut g, "encode_e4m3", || {
        formats::encode_into(black_box(&src), Mode::Nearest, &mut e4m3).unwrap()
    });
    let mut out = vec![0f32; n];
    both(&mut g, "decode_e2m1", || {
        formats::decode_into(black_box(&e2m1), &mut out).unwrap()
    });
    both(&mut g, "decode_e4m3", || {
        formats::decode_into(black_box(&e4m3), &mut out).unwrap()
    });
    both(&mut g, "mx_quantize_e2m1", || {
        black_box(MxArray::<E2M1>::quantize(black_box(&src), &shape).unwrap());
    });
    both(&mut g, "mx_quantize_e4m3", || {
        black_box(MxArray::<E4M3>::quantize(black_box(&src), &shape).unwrap());
    });
    both(&mut g, "nvfp4_quantize", || {
        black_box(Nvfp4Array::quantize(black_box(&src), &shape).unwrap());
    });
    // The same quantizations into arrays that already exist (`requantize`):
    // no allocation, no first writes of fresh memory.
    let mut mx2 = MxArray::<E2M1>::quantize(&src, &shape).unwrap();
    let mut mx4 = MxArray::<E4M3>::quantize(&src, &shape).unwrap();
    let mut nv = Nvfp4Array::quantize(&src, &shape).unwrap();
    let (mx_opts, nv_opts) = (MxOptions::default(), Nvfp4Options::default());
    both(&mut g, "mx_requantize_e2m1", || {
        mx2.requantize(black_box(&src), &mx_opts).unwrap()
    });
    both(&mut g, "mx_requantize_e4m3", || {
        mx4.requantize(black_box(&src), &mx_opts).unwrap()
    });
    both(&mut g, "nvfp4_requantize", || {
        nv.requantize(black_box(&src), &nv_opts).unwrap()
    });
    drop((mx2, mx4, nv));
    let mx = MxArray::<E2M1>::quantize(&src, &shape).unwrap();
    both(&mut g, "mx_dequantize_e2m1", || {
        mx.dequantize_into(&mut out).unwrap()
    });
    let nv = Nvfp4Array::quantize(&src, &shape).unwrap();
    both(&mut g, "nvfp4_dequantize", || {
        nv.dequantize_into(&mut out).unwrap()
    });
    drop((mx, nv, out, src));
    let ints: Vec<u4> = (0..n).map(|i| u4::new((i * 7 % 16) as u8)).collect();
    let packed = NarrowArray::<u4>::from_slice(&ints);
    both(&mut g, "sum_u4", || {
        black_box(packed.sum());
    });
    // Unpack into and pack from a slice of `u4` (a byte each) that exists.
    let mut back = vec![u4::new(0); n];
    both(&mut g, "unpack_u4", || {
        packed.unpack_into(black_box(&mut back)).unwrap()
    });
    let mut repacked = NarrowArray::<u4>::zeroed(n);
    both(&mut g, "pack_u4", || {
        repacked.pack_from(black_box(&ints)).unwrap()
    });
    drop(repacked);
    // A strided view's sum: 8192 rows less their first and last values.
    let mut shaped = packed.clone();
    shaped.reshape(&[8192, n / 8192]).unwrap();
    let inner = shaped.view().slice(1, 1..n / 8192 - 1).unwrap();
    both(&mut g, "view_sum_u4", || {
        black_box(black_box(&inner).sum());
    });
    // Its copy into a slice that exists.
    let mut rows = vec![u4::new(0); inner.len()];
    both(&mut g, "view_unpack_u4", || {
        inner.unpack_into(black_box(&mut rows)).unwrap()
    });
    // The borrowed arrays over bytes one past a word (`NarrowRef::sum`,
    // `unpack_into`, `NarrowMut::pack_from`): the aligned words inside the
    // bytes in place, the values around them through a stack buffer.
    let mut bytes = vec![0u8; packed.as_bytes().len() + 1];
    bytes[1..].copy_from_slice(packed.as_bytes());
    let view = NarrowRef::<u4>::from_bytes(&bytes[1..], n).unwrap();
    both(&mut g, "ref_sum_u4", || {
        black_box(black_box(&view).sum());
    });
    both(&mut g, "ref_unpack_u4", || {
        view.unpack_into(black_box(&mut back)).unwrap()
    });
    let mut target = bytes.clone();
    let mut m = NarrowMut::<u4>::from_bytes(&mut target[1..], n).unwrap();
    both(&mut g, "mut_pack_u4", || {
        m.pack_from(black_box(&ints)).unwrap()
    });
    g.finish();
}

/// One thread beside a split into 8 pieces (what 2 threads get by default)
/// at 2^14, 2^16, .., 2^22 values.
fn threshold(c: &mut Criterion) {
    let mut g = c.benchmark_group("threshold");
    g.measurement_time(Duration::from_secs(1));
    g.warm_up_time(Duration::from_millis(200));
    for log in (14..=22).step_by(2) {
        let n = 1usize << log;
        g.throughput(Throughput::Elements(n as u64));
        let src = data(n, 2);
        let mut a = NarrowArray::<E2M1>::zeroed(n);
        let mut out = vec![0f32; n];
        let ints: Vec<u4> = (0..n).map(|i| u4::new((i % 16) as u8)).collect();
        let packed = NarrowArray::<u4>::from_slice(&ints);
        let mut ints_out = vec![u4::new(0); n];
        let mut repacked = NarrowArray::<u4>::zeroed(n);
        for (split, pieces, threshold) in [("one", 1, usize::MAX), ("split", 8, 0)] {
            let id = |what: &str| BenchmarkId::new(format!("{what}/{split}"), n);
            g.bench_function(id("encode_e2m1"), |b| {
                b.iter(|| {
                    with_threshold(threshold, pieces, || {
                        formats::encode_into(black_box(&src), Mode::Nearest, &mut a).unwrap()
                    })
                })
            });
            g.bench_function(id("decode_e2m1"), |b| {
                b.iter(|| {
                    with_threshold(threshold, pieces, || {
                        formats::decode_into(&a, &mut out).unwrap()
                    })
                })
            });
            g.bench_function(id("sum_u4"), |b| {
                b.iter(|| with_threshold(threshold, pieces, || black_box(packed.sum())))
            });
            g.bench_function(id("unpack_u4"), |b| {
                b.iter(|| {
                    with_threshold(threshold, pieces, || {
                        packed.unpack_into(black_box(&mut ints_out)).unwrap()
                    })
                })
            });
            g.bench_function(id("pack_u4"), |b| {
                b.iter(|| {
                    with_threshold(threshold, pieces, || {
                        repacked.pack_from(black_box(&ints)).unwrap()
                    })
                })
            });
        }
    }
    g.finish();
}

criterion::criterion_group! {
    name = benches;
    config = config();
    targets = large, threshold
}
criterion::criterion_main!(benches);
