//! View and reduction benchmarks, each group measured beside its baselines
//! in one run.
//!
//! Groups are named `views/<what>` with one `BenchmarkId` per parameter
//! (width, stride or shape). Functions: `dense` and `word_aligned` (the
//! library call on each layout), and the baselines `naive_get` (a loop of
//! per-element `get` calls on the same packed array) and `unpacked_u8` /
//! `unpacked_u64` (the same loop over an unpacked `Vec<u8>` / `Vec<u64>` of
//! the values, which is what the packed kernels compete with).
//!
//! - `views/strided_sum_5bit`: a 5-bit array of `3 * 65,536` values, the sum
//!   of a 1-d view stepping by the stride (65,536 values for stride 3, the
//!   seed's workload).
//! - `views/axis_sum_5bit`: axis sums of 65,536 5-bit values in 2-d shapes,
//!   into a caller-owned `u64` buffer.
//! - `views/sum_65536`, `views/scan_65536`: whole sums and unpacking of
//!   65,536 values, widths 1..=8, dense against word-aligned.
//! - `views/dispatch_65536`, `views/dispatch_64`: the run-time-width array
//!   (`DynNarrowArray`, one table lookup per call) against the typed array
//!   (`NarrowArray<uN>`) and the kernel called directly.
//! - `views/borrowed_65536`: over bytes owned elsewhere, one value at a
//!   time: `ref_get` and `ref_iter` (`NarrowRef`), `mut_set` (`NarrowMut`),
//!   against `array_get` and `array_set` (the same calls on a `NarrowArray`
//!   of the same values); and in bulk over bytes one past an 8-byte
//!   boundary: `ref_sum`, `ref_unpack` (`NarrowRef`) and `mut_pack`
//!   (`NarrowMut`) against `array_sum`, `array_unpack` and `array_pack`.
//!
//! Run: `cargo bench -p bitpack-bench --bench views`, then
//! `python3 scripts/bench_report.py --section views` rewrites the "Views and
//! reductions" section of `BENCHMARKS.md`.

use std::hint::black_box;
use std::time::Duration;

use arbitrary_int::u12;
use arbitrary_int::{u1, u2, u3, u4, u5, u6, u7};
use bitpack::{
    BitElement, Dense, DynNarrowArray, NarrowArray, NarrowMut, NarrowRef, Packing, WordAligned,
};
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, measurement::WallTime};

const N: usize = 65_536;

/// xorshift64*: deterministic pseudo-random data.
fn rng_fill(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        })
        .collect()
}

fn mask(w: u32) -> u64 {
    if w >= 64 { u64::MAX } else { (1 << w) - 1 }
}

/// `n` random values of `w` bits, as bytes (`w <= 8`).
fn bytes(n: usize, w: u32, seed: u64) -> Vec<u8> {
    rng_fill(n, seed)
        .into_iter()
        .map(|x| (x & mask(w)) as u8)
        .collect()
}

fn typed<T: BitElement>(raw: &[u8]) -> Vec<T> {
    raw.iter()
        .map(|&b| T::from_raw_bits(bitpack::Unsigned::from_u128_truncate(b.into())))
        .collect()
}

fn group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.warm_up_time(Duration::from_millis(200));
    g.measurement_time(Duration::from_millis(700));
    g.sample_size(15);
    g
}

fn strided_sum(c: &mut Criterion) {
    let mut g = group(c, "views/strided_sum_5bit");
    let raw = bytes(3 * N, 5, 1);
    let values: Vec<u5> = typed(&raw);
    let dense = NarrowArray::from_slice(&values);
    let aligned = NarrowArray::<u5, WordAligned>::from_slice_in(&values);
    for stride in [2isize, 3, 5, 13, 100, -3] {
        let id = |f: &str| BenchmarkId::new(f, stride);
        let (count, offset) = if stride > 0 {
            ((3 * N - 1) / stride as usize + 1, 0)
        } else {
            ((3 * N - 1) / stride.unsigned_abs() + 1, 3 * N as isize - 1)
        };
        let dv = dense.view_strided(&[count], &[stride], offset).unwrap();
        let av = aligned.view_strided(&[count], &[stride], offset).unwrap();
        g.bench_function(id("dense"), |b| b.iter(|| black_box(&dv).sum()));
        g.bench_function(id("word_aligned"), |b| b.iter(|| black_box(&av).sum()));
        g.bench_function(id("naive_get"), |b| {
            b.iter(|| {
                let a = black_box(&dense);
                (0..count)
                    .map(|k| {
                        u64::from(
                            a.get((offset + k as isize * stride) as usize)
                                .unwrap()
                                .value(),
                        )
                    })
                    .sum::<u64>()
            })
        });
        g.bench_function(id("unpacked_u8"), |b| {
            b.iter(|| {
                let r = black_box(&raw);
                if stride > 0 {
                    r.iter()
                        .step_by(stride as usize)
                        .map(|&x| u64::from(x))
                        .sum::<u64>()
                } else {
                    r.iter()
                        .rev()
                        .step_by(stride.unsigned_abs())
                        .map(|&x| u64::from(x))
                        .sum::<u64>()
                }
            })
        });
    }
    g.finish();
}

fn axis_sum(c: &mut Criterion) {
    let mut g = group(c, "views/axis_sum_5bit");
    let raw = bytes(N, 5, 2);
    let values: Vec<u5> = typed(&raw);
    for (rows, cols) in [(256usize, 256usize), (16_384, 4), (4, 16_384)] {
        let mut dense = NarrowArray::from_slice(&values);
        dense.reshape(&[rows, cols]).unwrap();
        let aligned = dense.to_layout::<WordAligned>();
        for axis in [0usize, 1] {
            let id = |f: &str| BenchmarkId::new(f, format!("{rows}x{cols}/axis{axis}"));
            let n_out = if axis == 0 { cols } else { rows };
            let mut out = vec![0u64; n_out];
            g.bench_function(id("dense"), |b| {
                b.iter(|| {
                    dense
                        .view()
                        .sum_axes_into(&[axis], black_box(&mut out))
                        .unwrap()
                })
            });
            g.bench_function(id("word_aligned"), |b| {
                b.iter(|| {
                    aligned
                        .view()
                        .sum_axes_into(&[axis], black_box(&mut out))
                        .unwrap()
                })
            });
            g.bench_function(id("naive_get"), |b| {
                b.iter(|| {
                    let v = black_box(&dense).view();
                    out.fill(0);
                    for r in 0..rows {
                        for c in 0..cols {
                            let x = u64::from(v.get(&[r, c]).unwrap().value());
                            out[if axis == 0 { c } else { r }] += x;
                        }
                    }
                })
            });
            g.bench_function(id("unpacked_u8"), |b| {
                b.iter(|| {
                    let r8 = black_box(&raw);
                    out.fill(0);
                    if axis == 0 {
                        for row in r8.chunks_exact(cols) {
                            for (o, &x) in out.iter_mut().zip(row) {
                                *o += u64::from(x);
                            }
                        }
                    } else {
                        for (o, row) in out.iter_mut().zip(r8.chunks_exact(cols)) {
                            *o = row.iter().map(|&x| u64::from(x)).sum();
                        }
                    }
                })
            });
        }
    }
    g.finish();
}

/// Whole sums of one width: both layouts and the baselines.
fn sum_width<T: bitpack::UnsignedElement>(g: &mut BenchmarkGroup<'_, WallTime>, w: u32) {
    let raw = bytes(N, w, u64::from(w));
    let values: Vec<T> = typed(&raw);
    let dense = NarrowArray::from_slice(&values);
    let aligned = NarrowArray::<T, WordAligned>::from_slice_in(&values);
    g.bench_function(BenchmarkId::new("dense", w), |b| {
        b.iter(|| black_box(&dense).sum())
    });
    g.bench_function(BenchmarkId::new("word_aligned", w), |b| {
        b.iter(|| black_box(&aligned).sum())
    });
    g.bench_function(BenchmarkId::new("naive_get", w), |b| {
        b.iter(|| {
            let a = black_box(&dense);
            (0..N)
                .map(|i| bitpack::Unsigned::to_u128(a.get(i).unwrap().raw_bits()) as u64)
                .sum::<u64>()
        })
    });
    g.bench_function(BenchmarkId::new("unpacked_u8", w), |b| {
        b.iter(|| black_box(&raw).iter().map(|&x| u64::from(x)).sum::<u64>())
    });
}

/// Scans (unpacking every value) of one width: both layouts and the
/// baselines (a `get` loop, and copying the unpacked bytes).
fn scan_width<T: bitpack::UnsignedElement>(g: &mut BenchmarkGroup<'_, WallTime>, w: u32) {
    let raw = bytes(N, w, u64::from(w));
    let values: Vec<T> = typed(&raw);
    let dense = NarrowArray::from_slice(&values);
    let aligned = NarrowArray::<T, WordAligned>::from_slice_in(&values);
    let mut out = values.clone();
    g.bench_function(BenchmarkId::new("dense", w), |b| {
        b.iter(|| black_box(&dense).unpack_into(black_box(&mut out)).unwrap())
    });
    g.bench_function(BenchmarkId::new("word_aligned", w), |b| {
        b.iter(|| {
            black_box(&aligned)
                .unpack_into(black_box(&mut out))
                .unwrap()
        })
    });
    g.bench_function(BenchmarkId::new("naive_get", w), |b| {
        b.iter(|| {
            let a = black_box(&dense);
            for (i, o) in out.iter_mut().enumerate() {
                *o = a.get(i).unwrap();
            }
        })
    });
    let mut copy = vec![0u8; N];
    g.bench_function(BenchmarkId::new("unpacked_u8", w), |b| {
        b.iter(|| black_box(&mut copy).copy_from_slice(black_box(&raw)))
    });
}

/// Runs `$f::<uN>(group, N)` for the widths 1..=8.
macro_rules! widths_1_to_8 {
    ($f:ident, $g:expr) => {
        $f::<u1>($g, 1);
        $f::<u2>($g, 2);
        $f::<u3>($g, 3);
        $f::<u4>($g, 4);
        $f::<u5>($g, 5);
        $f::<u6>($g, 6);
        $f::<u7>($g, 7);
        $f::<u8>($g, 8);
    };
}

fn sums_and_scans(c: &mut Criterion) {
    let mut g = group(c, "views/sum_65536");
    widths_1_to_8!(sum_width, &mut g);
    g.finish();
    let mut g = group(c, "views/scan_65536");
    widths_1_to_8!(scan_width, &mut g);
    g.finish();
}

/// The run-time-width array against the typed array and the kernel, for
/// one width, at `n` values.
fn dispatch_width<T: bitpack::UnsignedElement, L: Packing>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    w: u32,
    n: usize,
    tag: &str,
) {
    let raw = bytes(n, w, 7);
    let values: Vec<T> = typed(&raw);
    let wide: Vec<u64> = raw.iter().map(|&x| u64::from(x)).collect();
    let a = NarrowArray::<T, L>::from_slice_in(&values);
    let d = DynNarrowArray::<L>::from_slice_in(w, &wide).unwrap();
    let id = |f: &str| BenchmarkId::new(format!("{f}{tag}"), w);
    g.bench_function(id("dyn_sum"), |b| b.iter(|| black_box(&d).sum()));
    g.bench_function(id("typed_sum"), |b| b.iter(|| black_box(&a).sum()));
    if !L::WORD_ALIGNED {
        g.bench_function(id("kernel_sum"), |b| {
            b.iter(|| bitpack::kernels::sum(w, black_box(a.as_words()), 0, n).unwrap())
        });
    }
    let mut out = vec![0u64; n];
    g.bench_function(id("dyn_unpack"), |b| {
        b.iter(|| black_box(&d).unpack_into(black_box(&mut out)).unwrap())
    });
    g.bench_function(id("unpacked_u64"), |b| {
        b.iter(|| black_box(&wide).iter().sum::<u64>())
    });
}

fn dispatch(c: &mut Criterion) {
    for n in [N, 64] {
        let mut g = group(c, &format!("views/dispatch_{n}"));
        dispatch_width::<u3, Dense>(&mut g, 3, n, "");
        dispatch_width::<u5, Dense>(&mut g, 5, n, "");
        dispatch_width::<u8, Dense>(&mut g, 8, n, "");
        dispatch_width::<u5, WordAligned>(&mut g, 5, n, "_aligned");
        g.finish();
    }
}

/// One value at a time through `NarrowRef`/`NarrowMut` against the same
/// calls on a `NarrowArray`, for one width.
fn borrowed_width<T: bitpack::UnsignedElement>(g: &mut BenchmarkGroup<'_, WallTime>, w: u32)
where
    u64: From<T::Raw>,
{
    let values: Vec<T> = rng_fill(N, 11)
        .into_iter()
        .map(|x| T::from_raw_bits(bitpack::Unsigned::from_u128_truncate((x & mask(w)).into())))
        .collect();
    let a = NarrowArray::<T>::from_slice(&values);
    let bytes = a.as_bytes().to_vec();
    let r = NarrowRef::<T>::from_bytes(&bytes, N).unwrap();
    let id = |f: &str| BenchmarkId::new(f, w);
    g.bench_function(id("ref_get"), |b| {
        b.iter(|| {
            let r = black_box(&r);
            (0..N)
                .map(|i| u64::from(r.get(i).unwrap().raw_bits()))
                .sum::<u64>()
        })
    });
    g.bench_function(id("ref_iter"), |b| {
        b.iter(|| {
            black_box(&r)
                .iter()
                .map(|x| u64::from(x.raw_bits()))
                .sum::<u64>()
        })
    });
    g.bench_function(id("array_get"), |b| {
        b.iter(|| {
            let a = black_box(&a);
            (0..N)
                .map(|i| u64::from(a.get(i).unwrap().raw_bits()))
                .sum::<u64>()
        })
    });
    let mut out = bytes.clone();
    g.bench_function(id("mut_set"), |b| {
        b.iter(|| {
            let mut m = NarrowMut::<T>::from_bytes(black_box(&mut out), N).unwrap();
            for (i, &v) in values.iter().enumerate() {
                m.set(i, v).unwrap();
            }
        })
    });
    let mut owned = a.clone();
    g.bench_function(id("array_set"), |b| {
        b.iter(|| {
            let o = black_box(&mut owned);
            for (i, &v) in values.iter().enumerate() {
                o.set(i, v).unwrap();
            }
        })
    });

    // The bulk calls over bytes one past an 8-byte boundary (the word
    // kernels run on the aligned words inside them in place, the few values
    // around them through a stack buffer), beside the same calls on the
    // `NarrowArray`.
    let stream = a.as_bytes();
    let mut words = vec![0u64; stream.len().div_ceil(8) + 2];
    let odd = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut words)[1..1 + stream.len()];
    odd.copy_from_slice(stream);
    let r = NarrowRef::<T>::from_bytes(odd, N).unwrap();
    g.bench_function(id("ref_sum"), |b| b.iter(|| black_box(&r).sum()));
    g.bench_function(id("array_sum"), |b| b.iter(|| black_box(&a).sum()));
    let mut back = values.clone();
    g.bench_function(id("ref_unpack"), |b| {
        b.iter(|| r.unpack_into(black_box(&mut back)).unwrap())
    });
    g.bench_function(id("array_unpack"), |b| {
        b.iter(|| a.unpack_into(black_box(&mut back)).unwrap())
    });
    let mut m = NarrowMut::<T>::from_bytes(odd, N).unwrap();
    g.bench_function(id("mut_pack"), |b| {
        b.iter(|| m.pack_from(black_box(&values)).unwrap())
    });
    g.bench_function(id("array_pack"), |b| {
        b.iter(|| owned.pack_from(black_box(&values)).unwrap())
    });
}

fn borrowed(c: &mut Criterion) {
    let mut g = group(c, "views/borrowed_65536");
    borrowed_width::<u3>(&mut g, 3);
    borrowed_width::<u4>(&mut g, 4);
    borrowed_width::<u5>(&mut g, 5);
    borrowed_width::<u12>(&mut g, 12);
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args().without_plots();
    strided_sum(&mut c);
    axis_sum(&mut c);
    sums_and_scans(&mut c);
    dispatch(&mut c);
    borrowed(&mut c);
    c.final_summary();
}
