//! Kernel benchmarks, each group measured beside its baselines in one run.
//!
//! Groups are named `<kernel>/<values>` with one `BenchmarkId` per width:
//! `kernel` is the public dispatching function (the variant the tables pick
//! on this CPU), `portable` the same call with the x86 variants switched off,
//! `bmi2` the BMI2 variant where one exists, and the baselines: `naive` (a
//! bit-at-a-time loop), `read_floor`/`write_floor`/`memcpy` (reading,
//! writing or copying the same number of bytes: the physical floor),
//! `bitpacker1x`/`bitpacker8x` (the `bitpacking` crate on the same values),
//! `per_element` (a scalar per-element conversion loop) and `half_*` (the
//! `half` crate's slice conversions of as many values). `clock/add_chain`
//! measures the core clock (8 dependent adds per loop iteration), so that
//! `scripts/bench_report.py` can turn times into cycles.
//!
//! Run: `cargo bench -p bitpack --bench kernels`, then
//! `python3 scripts/bench_report.py` writes `BENCHMARKS.md`.

use std::hint::black_box;
use std::time::Duration;

use bitpack::kernels;
use bitpacking::{BitPacker, BitPacker1x, BitPacker8x};
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, measurement::WallTime};
use half::f16;
use half::slice::HalfFloatSliceExt;

const SMALL: usize = 65_536;
const LARGE: usize = 64 << 20;

// ---------------------------------------------------------------------------
// data and baselines
// ---------------------------------------------------------------------------

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

/// `n` random values of `w` bits.
fn values<T: TryFrom<u64>>(n: usize, w: u32, seed: u64) -> Vec<T> {
    rng_fill(n, seed)
        .into_iter()
        .map(|x| T::try_from(x & mask(w)).ok().expect("value fits"))
        .collect()
}

/// A packed stream of `n` random `w`-bit values.
fn stream(n: usize, w: u32, seed: u64) -> Vec<u64> {
    let v: Vec<u64> = values(n, w, seed);
    let mut words = vec![0u64; kernels::words_for(w, n)];
    kernels::pack(w, &v, &mut words, 0).expect("sizes match");
    words
}

/// The bytes of `v` as 64-bit words (for the read floor of an input).
fn as_words<T: bytemuck::Pod>(v: &[T]) -> Vec<u64> {
    let bytes: &[u8] = bytemuck::cast_slice(v);
    bytes
        .chunks(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

fn naive_get(words: &[u64], i: usize, w: u32) -> u64 {
    let mut v = 0;
    for b in 0..w as usize {
        let bit = i * w as usize + b;
        v |= ((words[bit / 64] >> (bit % 64)) & 1) << b;
    }
    v
}

fn naive_set(words: &mut [u64], i: usize, w: u32, v: u64) {
    for b in 0..w as usize {
        let bit = i * w as usize + b;
        let m = 1u64 << (bit % 64);
        if (v >> b) & 1 == 1 {
            words[bit / 64] |= m;
        } else {
            words[bit / 64] &= !m;
        }
    }
}

/// Reads every word once (the read floor): an add reduction compiled for
/// AVX2, which LLVM vectorizes to 4 x 256-bit loads per iteration.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn read_floor_avx2(words: &[u64]) -> u64 {
    words.iter().fold(0u64, |a, &x| a.wrapping_add(x))
}

fn read_floor(words: &[u64]) -> u64 {
    assert!(std::is_x86_feature_detected!("avx2"));
    // SAFETY: AVX2 was detected on the line above.
    unsafe { read_floor_avx2(words) }
}

/// `iters` loop iterations of 8 dependent adds: 8 cycles each.
fn add_chain(iters: u64) -> u64 {
    let mut x = 0u64;
    let mut n = iters;
    // SAFETY: the assembly only updates the two registers it names, touches
    // no memory and leaves the flags clobbered, which `asm!` assumes by
    // default.
    unsafe {
        std::arch::asm!(
            "2:",
            "add {x}, 1", "add {x}, 1", "add {x}, 1", "add {x}, 1",
            "add {x}, 1", "add {x}, 1", "add {x}, 1", "add {x}, 1",
            "dec {n}",
            "jnz 2b",
            x = inout(reg) x,
            n = inout(reg) n,
            options(nomem, nostack),
        );
    }
    black_box(n);
    x
}

// ---------------------------------------------------------------------------
// bench-local formats: decode by fields, branch-free round-to-nearest-even
// ---------------------------------------------------------------------------

/// Value of an ExMy code (finite formats, no infinities; `nan_code` the
/// all-ones magnitude where the format has a NaN).
fn exmy_to_f32(code: u32, e: u32, m: u32, nan: bool) -> f32 {
    let bias = (1i32 << (e - 1)) - 1;
    let sign = if code >> (e + m) & 1 == 1 { -1.0 } else { 1.0 };
    let exp = (code >> m) & ((1 << e) - 1);
    let man = code & ((1 << m) - 1);
    if nan && exp == (1 << e) - 1 && man == (1 << m) - 1 {
        return f32::NAN;
    }
    let mag = if exp == 0 {
        man as f32 * 2f32.powi(1 - bias - m as i32)
    } else {
        (1.0 + man as f32 / (1 << m) as f32) * 2f32.powi(exp as i32 - bias)
    };
    sign * mag
}

/// The value of an ExMy code without branches (so a loop of it vectorizes)
/// and without arithmetic on `f32` subnormals (which takes a slow path on
/// x86): normal codes rebias the exponent field in the integer bits;
/// subnormal codes are `2^(1 - bias) * (1 + m / 2^M) - 2^(1 - bias)`, exact
/// by Sterbenz; `NAN` says the format has a NaN at the all-ones magnitude.
#[inline(always)]
fn exmy_to_f32_fast<const E: u32, const M: u32, const NAN: bool>(code: u8) -> f32 {
    let bias = (1u32 << (E - 1)) - 1;
    let c = code as u32;
    let mag = c & ((1 << (E + M)) - 1);
    let bits = (mag << (23 - M)) + ((127 - bias) << 23);
    let min_normal = f32::from_bits((127 + 1 - bias) << 23);
    let sub = f32::from_bits(bits + (1 << 23)) - min_normal;
    let v = if mag >> M == 0 {
        sub
    } else {
        f32::from_bits(bits)
    };
    let v = f32::from_bits(v.to_bits() | (c >> (E + M)) << 31);
    if NAN && mag == (1 << (E + M)) - 1 {
        f32::NAN
    } else {
        v
    }
}

/// Round to nearest, ties to even, to an ExMy code (`E`, `M` the field
/// widths, `MAXC` the largest finite magnitude code, `NANC` the NaN magnitude
/// code or `MAXC` to saturate), without branches so a loop of it vectorizes.
#[inline(always)]
fn exmy_from_f32<const E: u32, const M: u32, const MAXC: u32, const NANC: u32>(x: f32) -> u8 {
    let bias = (1u32 << (E - 1)) - 1;
    let bits = x.to_bits();
    let sign = (bits >> 31) << (E + M);
    let a = bits & 0x7fff_ffff;
    // Normal range: round the mantissa to M bits on the integer bits.
    let shift = 23 - M;
    let r = a + ((1 << (shift - 1)) - 1) + ((a >> shift) & 1);
    let normal = (r >> shift).wrapping_sub((127 - bias) << M);
    // Subnormal range: adding 2^(23 + 1 - bias - M) rounds to the quantum.
    let magic = f32::from_bits((127 + 23 + 1 - bias - M) << 23);
    let sub = (f32::from_bits(a) + magic).to_bits() - magic.to_bits();
    let min_normal = (127 + 1 - bias) << 23;
    let mag = if a < min_normal { sub } else { normal };
    let mag = if mag > MAXC { NANC } else { mag };
    let mag = if a > 0x7f80_0000 { NANC } else { mag };
    (sign | mag) as u8
}

fn e2m1_from_f32(x: f32) -> u8 {
    exmy_from_f32::<2, 1, 7, 7>(x)
}

fn e4m3_from_f32(x: f32) -> u8 {
    exmy_from_f32::<4, 3, 0x7e, 0x7f>(x)
}

// ---------------------------------------------------------------------------
// groups
// ---------------------------------------------------------------------------

fn small_group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.warm_up_time(Duration::from_millis(300));
    g.measurement_time(Duration::from_millis(1000));
    g.sample_size(20);
    g
}

fn large_group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.warm_up_time(Duration::from_millis(300));
    g.measurement_time(Duration::from_millis(1500));
    g.sample_size(10);
    g
}

/// Runs `f` with the x86 variants limited to `mask` (0: portable only).
fn with_features<R>(mask: u8, f: impl FnOnce() -> R) -> R {
    kernels::__limit_features(mask);
    let r = f();
    kernels::__limit_features(0xff);
    r
}

/// The internal feature bits of AVX2 and BMI2 (see `kernels::x86`).
const AVX2: u8 = 1;
const BMI2: u8 = 2;

fn clock(c: &mut Criterion) {
    let mut g = small_group(c, "clock");
    g.bench_function("add_chain", |b| b.iter(|| add_chain(black_box(1 << 16))));
    g.finish();
}

fn sum(c: &mut Criterion) {
    let n = SMALL;
    let mut g = small_group(c, "sum/65536");
    g.throughput(Throughput::Elements(n as u64));
    for w in (1..=8).chain([12, 16, 32]) {
        let words = stream(n, w, w as u64);
        g.bench_with_input(BenchmarkId::new("kernel", w), &words, |b, s| {
            b.iter(|| kernels::sum(w, black_box(s), 0, n).unwrap())
        });
        with_features(0, || {
            g.bench_with_input(BenchmarkId::new("portable", w), &words, |b, s| {
                b.iter(|| kernels::sum(w, black_box(s), 0, n).unwrap())
            })
        });
        g.bench_with_input(BenchmarkId::new("read_floor", w), &words, |b, s| {
            b.iter(|| read_floor(black_box(s)))
        });
        if w == 1 {
            with_features(AVX2, || {
                g.bench_with_input(BenchmarkId::new("avx2", w), &words, |b, s| {
                    b.iter(|| kernels::sum(w, black_box(s), 0, n).unwrap())
                })
            });
        }
        if w <= 8 {
            g.bench_with_input(BenchmarkId::new("naive", w), &words, |b, s| {
                b.iter(|| {
                    let w = black_box(w);
                    (0..n).map(|i| naive_get(s, i, w)).sum::<u64>()
                })
            });
        }
    }
    g.finish();

    let n = LARGE;
    let mut g = large_group(c, "sum/67108864");
    g.throughput(Throughput::Elements(n as u64));
    for w in 1..=8 {
        let words = stream(n, w, w as u64);
        g.bench_with_input(BenchmarkId::new("kernel", w), &words, |b, s| {
            b.iter(|| kernels::sum(w, black_box(s), 0, n).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("read_floor", w), &words, |b, s| {
            b.iter(|| read_floor(black_box(s)))
        });
    }
    g.finish();
}

fn unpack_u8(c: &mut Criterion) {
    let n = SMALL;
    let mut g = small_group(c, "unpack_u8/65536");
    g.throughput(Throughput::Elements(n as u64));
    let mut out = vec![0u8; n];
    for w in 1..=8 {
        let words = stream(n, w, w as u64);
        g.bench_with_input(BenchmarkId::new("kernel", w), &words, |b, s| {
            b.iter(|| kernels::unpack(w, black_box(s), 0, &mut out).unwrap())
        });
        with_features(0, || {
            g.bench_with_input(BenchmarkId::new("portable", w), &words, |b, s| {
                b.iter(|| kernels::unpack(w, black_box(s), 0, &mut out).unwrap())
            })
        });
        if w < 8 {
            with_features(BMI2, || {
                g.bench_with_input(BenchmarkId::new("bmi2", w), &words, |b, s| {
                    b.iter(|| kernels::unpack(w, black_box(s), 0, &mut out).unwrap())
                })
            });
        }
        g.bench_with_input(BenchmarkId::new("write_floor", w), &words, |b, _| {
            b.iter(|| black_box(&mut out[..]).fill(0))
        });
        g.bench_with_input(BenchmarkId::new("naive", w), &words, |b, s| {
            b.iter(|| {
                let w = black_box(w);
                for (i, o) in out.iter_mut().enumerate() {
                    *o = naive_get(s, i, w) as u8;
                }
            })
        });
    }
    g.finish();

    let n = LARGE;
    let mut g = large_group(c, "unpack_u8/67108864");
    g.throughput(Throughput::Elements(n as u64));
    let mut out = vec![0u8; n];
    for w in 1..=8 {
        let words = stream(n, w, w as u64);
        g.bench_with_input(BenchmarkId::new("kernel", w), &words, |b, s| {
            b.iter(|| kernels::unpack(w, black_box(s), 0, &mut out).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("write_floor", w), &words, |b, _| {
            b.iter(|| black_box(&mut out[..]).fill(0))
        });
    }
    g.finish();
}

const U32_WIDTHS: [u32; 15] = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 28, 31];

fn unpack_u32(c: &mut Criterion) {
    let n = SMALL;
    let mut g = small_group(c, "unpack_u32/65536");
    g.throughput(Throughput::Elements(n as u64));
    let mut out = vec![0u32; n];
    for w in U32_WIDTHS {
        let words = stream(n, w, w as u64);
        let vals: Vec<u32> = values(n, w, w as u64);
        g.bench_with_input(BenchmarkId::new("kernel", w), &words, |b, s| {
            b.iter(|| kernels::unpack(w, black_box(s), 0, &mut out).unwrap())
        });
        with_features(0, || {
            g.bench_with_input(BenchmarkId::new("portable", w), &words, |b, s| {
                b.iter(|| kernels::unpack(w, black_box(s), 0, &mut out).unwrap())
            })
        });
        g.bench_with_input(BenchmarkId::new("write_floor", w), &words, |b, _| {
            b.iter(|| black_box(&mut out[..]).fill(0))
        });
        let bp1 = BitPacker1x::new();
        let mut packed1 = vec![0u8; n * 4];
        let mut len1 = 0;
        for (blk, v) in vals.chunks(BitPacker1x::BLOCK_LEN).enumerate() {
            len1 += bp1.compress(v, &mut packed1[blk * 4 * w as usize..], w as u8);
        }
        g.bench_with_input(BenchmarkId::new("bitpacker1x", w), &packed1, |b, p| {
            b.iter(|| {
                let step = 4 * w as usize;
                for (blk, o) in out.chunks_mut(BitPacker1x::BLOCK_LEN).enumerate() {
                    bp1.decompress(&black_box(p)[blk * step..], o, w as u8);
                }
            })
        });
        let bp8 = BitPacker8x::new();
        let mut packed8 = vec![0u8; n * 4];
        let step8 = BitPacker8x::BLOCK_LEN * w as usize / 8;
        for (blk, v) in vals.chunks(BitPacker8x::BLOCK_LEN).enumerate() {
            bp8.compress(v, &mut packed8[blk * step8..], w as u8);
        }
        assert_eq!(len1, n * w as usize / 8);
        g.bench_with_input(BenchmarkId::new("bitpacker8x", w), &packed8, |b, p| {
            b.iter(|| {
                for (blk, o) in out.chunks_mut(BitPacker8x::BLOCK_LEN).enumerate() {
                    bp8.decompress(&black_box(p)[blk * step8..], o, w as u8);
                }
            })
        });
        // Same values, same bytes: BitPacker1x's layout is the dense stream.
        let mut check = vec![0u32; n];
        kernels::unpack(w, &words, 0, &mut check).unwrap();
        assert_eq!(check, vals);
    }
    g.finish();
}

fn pack_u8(c: &mut Criterion) {
    let n = SMALL;
    let mut g = small_group(c, "pack_u8/65536");
    g.throughput(Throughput::Elements(n as u64));
    for w in 1..=8 {
        let vals: Vec<u8> = values(n, w, w as u64);
        let mut words = vec![0u64; kernels::words_for(w, n)];
        let packed_bytes = n * w as usize / 8;
        let copy_src = vec![0x5au8; packed_bytes];
        let mut copy_dst = vec![0u8; packed_bytes];
        g.bench_with_input(BenchmarkId::new("kernel", w), &vals, |b, v| {
            b.iter(|| kernels::pack(w, black_box(v), &mut words, 0).unwrap())
        });
        with_features(0, || {
            g.bench_with_input(BenchmarkId::new("portable", w), &vals, |b, v| {
                b.iter(|| kernels::pack(w, black_box(v), &mut words, 0).unwrap())
            })
        });
        if w < 8 {
            with_features(BMI2, || {
                g.bench_with_input(BenchmarkId::new("bmi2", w), &vals, |b, v| {
                    b.iter(|| kernels::pack(w, black_box(v), &mut words, 0).unwrap())
                })
            });
        }
        g.bench_with_input(BenchmarkId::new("memcpy", w), &copy_src, |b, s| {
            b.iter(|| copy_dst.copy_from_slice(black_box(s)))
        });
        let input = as_words(&vals);
        g.bench_with_input(BenchmarkId::new("read_input", w), &input, |b, s| {
            b.iter(|| read_floor(black_box(s)))
        });
        g.bench_with_input(BenchmarkId::new("naive", w), &vals, |b, v| {
            b.iter(|| {
                let w = black_box(w);
                for (i, &x) in v.iter().enumerate() {
                    naive_set(&mut words, i, w, x as u64);
                }
            })
        });
    }
    g.finish();

    let n = LARGE;
    let mut g = large_group(c, "pack_u8/67108864");
    g.throughput(Throughput::Elements(n as u64));
    for w in 1..=8 {
        let vals: Vec<u8> = values(n, w, w as u64);
        let mut words = vec![0u64; kernels::words_for(w, n)];
        let packed_bytes = n * w as usize / 8;
        let copy_src = vec![0x5au8; packed_bytes];
        let mut copy_dst = vec![0u8; packed_bytes];
        g.bench_with_input(BenchmarkId::new("kernel", w), &vals, |b, v| {
            b.iter(|| kernels::pack(w, black_box(v), &mut words, 0).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("memcpy", w), &copy_src, |b, s| {
            b.iter(|| copy_dst.copy_from_slice(black_box(s)))
        });
    }
    g.finish();
}

fn pack_u32(c: &mut Criterion) {
    let n = SMALL;
    let mut g = small_group(c, "pack_u32/65536");
    g.throughput(Throughput::Elements(n as u64));
    for w in U32_WIDTHS {
        let vals: Vec<u32> = values(n, w, w as u64);
        let mut words = vec![0u64; kernels::words_for(w, n)];
        let packed_bytes = n * w as usize / 8;
        let copy_src = vec![0x5au8; packed_bytes];
        let mut copy_dst = vec![0u8; packed_bytes];
        g.bench_with_input(BenchmarkId::new("kernel", w), &vals, |b, v| {
            b.iter(|| kernels::pack(w, black_box(v), &mut words, 0).unwrap())
        });
        with_features(0, || {
            g.bench_with_input(BenchmarkId::new("portable", w), &vals, |b, v| {
                b.iter(|| kernels::pack(w, black_box(v), &mut words, 0).unwrap())
            })
        });
        g.bench_with_input(BenchmarkId::new("memcpy", w), &copy_src, |b, s| {
            b.iter(|| copy_dst.copy_from_slice(black_box(s)))
        });
        let input = as_words(&vals);
        g.bench_with_input(BenchmarkId::new("read_input", w), &input, |b, s| {
            b.iter(|| read_floor(black_box(s)))
        });
        let mut out = vec![0u8; n * 4];
        let bp1 = BitPacker1x::new();
        g.bench_with_input(BenchmarkId::new("bitpacker1x", w), &vals, |b, v| {
            b.iter(|| {
                let step = 4 * w as usize;
                for (blk, x) in black_box(v).chunks(BitPacker1x::BLOCK_LEN).enumerate() {
                    bp1.compress(x, &mut out[blk * step..], w as u8);
                }
            })
        });
        let bp8 = BitPacker8x::new();
        g.bench_with_input(BenchmarkId::new("bitpacker8x", w), &vals, |b, v| {
            b.iter(|| {
                let step = BitPacker8x::BLOCK_LEN * w as usize / 8;
                for (blk, x) in black_box(v).chunks(BitPacker8x::BLOCK_LEN).enumerate() {
                    bp8.compress(x, &mut out[blk * step..], w as u8);
                }
            })
        });
        // Same values, same bytes: BitPacker1x writes the dense stream.
        kernels::pack(w, &vals, &mut words, 0).unwrap();
        for (blk, x) in vals.chunks(BitPacker1x::BLOCK_LEN).enumerate() {
            bp1.compress(x, &mut out[blk * 4 * w as usize..], w as u8);
        }
        let ours: &[u8] = bytemuck::cast_slice(&words);
        assert_eq!(&ours[..packed_bytes], &out[..packed_bytes]);
    }
    g.finish();
}

/// `(name, width, E, M, has NaN)` of the decoded formats.
const FORMATS: [(&str, u32, u32, u32, bool); 3] = [
    ("e2m1", 4, 2, 1, false),
    ("e2m3", 6, 2, 3, false),
    ("e4m3", 8, 4, 3, true),
];

fn decode(c: &mut Criterion) {
    for (n, name) in [(SMALL, "decode_f32/65536"), (LARGE, "decode_f32/67108864")] {
        let mut g = if n == SMALL {
            small_group(c, name)
        } else {
            large_group(c, name)
        };
        g.throughput(Throughput::Elements(n as u64));
        let mut out = vec![0f32; n];
        for (fmt, w, e, m, nan) in FORMATS {
            if n == LARGE && w == 6 {
                continue;
            }
            let table: Vec<f32> = (0..1u32 << w).map(|c| exmy_to_f32(c, e, m, nan)).collect();
            let words = stream(n, w, w as u64);
            g.bench_with_input(BenchmarkId::new("kernel", fmt), &words, |b, s| {
                b.iter(|| kernels::decode(w, &table, black_box(s), 0, &mut out).unwrap())
            });
            g.bench_with_input(BenchmarkId::new("write_floor", fmt), &words, |b, _| {
                b.iter(|| black_box(&mut out[..]).fill(0.0))
            });
            macro_rules! map {
                ($e:literal, $m:literal, $nan:literal) => {
                    g.bench_with_input(BenchmarkId::new("map", fmt), &words, |b, s| {
                        b.iter(|| {
                            let f = exmy_to_f32_fast::<$e, $m, $nan>;
                            kernels::decode_with(w, f, black_box(s), 0, &mut out).unwrap()
                        })
                    })
                };
            }
            match fmt {
                "e2m1" => map!(2, 1, false),
                "e2m3" => map!(2, 3, false),
                _ => map!(4, 3, true),
            };
            // The branch-free decode agrees with the table.
            let mut a = vec![0f32; 4096];
            let mut t = vec![0f32; 4096];
            kernels::decode(w, &table, &words, 0, &mut t).unwrap();
            match fmt {
                "e2m1" => {
                    kernels::decode_with(w, exmy_to_f32_fast::<2, 1, false>, &words, 0, &mut a)
                }
                "e2m3" => {
                    kernels::decode_with(w, exmy_to_f32_fast::<2, 3, false>, &words, 0, &mut a)
                }
                _ => kernels::decode_with(w, exmy_to_f32_fast::<4, 3, true>, &words, 0, &mut a),
            }
            .unwrap();
            for (x, y) in a.iter().zip(&t) {
                assert!(x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
            }
            if n == SMALL {
                with_features(0, || {
                    g.bench_with_input(BenchmarkId::new("portable", fmt), &words, |b, s| {
                        b.iter(|| kernels::decode(w, &table, black_box(s), 0, &mut out).unwrap())
                    })
                });
                g.bench_with_input(BenchmarkId::new("per_element", fmt), &words, |b, s| {
                    b.iter(|| {
                        for (i, o) in out.iter_mut().enumerate() {
                            let bit = i * w as usize;
                            let x = (s[bit / 64] >> (bit % 64)) as u32 & (mask(w) as u32);
                            *o = exmy_to_f32(x, e, m, nan);
                        }
                    })
                });
                let halves: Vec<f16> = (0..n).map(|i| f16::from_f32(i as f32)).collect();
                g.bench_with_input(BenchmarkId::new("half_f16_to_f32", fmt), &halves, |b, h| {
                    b.iter(|| black_box(h).convert_to_f32_slice(&mut out))
                });
            }
        }
        g.finish();
    }
}

fn encode(c: &mut Criterion) {
    let n = SMALL;
    let mut g = small_group(c, "encode_f32/65536");
    g.throughput(Throughput::Elements(n as u64));
    let src: Vec<f32> = rng_fill(n, 99)
        .into_iter()
        .map(|x| ((x >> 11) as f64 / (1u64 << 53) as f64 * 16.0 - 8.0) as f32)
        .collect();
    let mut halves = vec![f16::ZERO; n];
    for (fmt, w, f) in [
        ("e2m1", 4u32, e2m1_from_f32 as fn(f32) -> u8),
        ("e4m3", 8, e4m3_from_f32),
    ] {
        let mut words = vec![0u64; kernels::words_for(w, n)];
        macro_rules! run {
            ($id:expr, $mask:expr, $f:expr) => {
                with_features($mask, || {
                    g.bench_with_input(BenchmarkId::new($id, fmt), &src, |b, s| {
                        b.iter(|| kernels::encode(w, black_box(s), $f, &mut words, 0).unwrap())
                    })
                });
            };
        }
        if w == 4 {
            run!("kernel", 0xff, e2m1_from_f32);
            run!("portable", 0, e2m1_from_f32);
        } else {
            run!("kernel", 0xff, e4m3_from_f32);
            run!("portable", 0, e4m3_from_f32);
        }
        g.bench_with_input(BenchmarkId::new("per_element", fmt), &src, |b, s| {
            b.iter(|| {
                for (i, &x) in black_box(s).iter().enumerate() {
                    let bit = i * w as usize;
                    let (k, sh) = (bit / 64, bit % 64);
                    words[k] = (words[k] & !(mask(w) << sh)) | ((f(x) as u64) << sh);
                }
            })
        });
        g.bench_with_input(BenchmarkId::new("half_f32_to_f16", fmt), &src, |b, s| {
            b.iter(|| halves.convert_from_f32_slice(black_box(s)))
        });
    }
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args().without_plots();
    clock(&mut c);
    sum(&mut c);
    unpack_u8(&mut c);
    unpack_u32(&mut c);
    pack_u8(&mut c);
    pack_u32(&mut c);
    decode(&mut c);
    encode(&mut c);
    c.final_summary();
}
