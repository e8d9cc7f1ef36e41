//! Kernel benchmarks, each group measured beside its baselines in one run.
//!
//! Groups are named `<kernel>/<values>` with one `BenchmarkId` per width:
//! `kernel` is the public dispatching function (the variant the tables pick
//! on this CPU), `portable` the same call with the x86 variants switched off,
//! `bmi2` the BMI2 variant where one exists, `avx2` the call with only the
//! AVX-512 variants switched off (where the CPU has them), and the baselines:
//! `fastlanes` (the `fastlanes` crate on the same values in its own
//! transposed layout; for sums, each block unpacked and summed), `naive` (a
//! bit-at-a-time loop), `read_floor`/`write_floor`/`memcpy` (reading,
//! writing or copying the same number of bytes: the physical floor),
//! `bitpacker1x`/`bitpacker8x` (the `bitpacking` crate on the same values),
//! `per_element` (a scalar per-element conversion loop) and `half_*` (the
//! `half` crate's slice conversions of as many values). `clock/add_chain`
//! (and `clock/add_chain_avx512`, the same with 512-bit adds)
//! measures the core clock (8 dependent register adds per loop iteration), so that
//! `scripts/bench_report.py` can turn times into cycles.
//!
//! The buffers a kernel loads or stores a vector at a time (an unpack's
//! or decode's output, a pack's or encode's input) lie 16 bytes past a
//! 64-byte line ([`Placed`]), where the system allocator puts large buffers.
//!
//! Run: `cargo bench -p bitpack-bench --bench kernels`, then
//! `python3 scripts/bench_report.py --section kernels` writes the kernels
//! section of `BENCHMARKS.md` and the performance summary in the kernels docs.

use std::hint::black_box;
use std::time::Duration;

use bitpack::formats::{self, E2M1, E2M3, E4M3, MiniFloat, Mode};
use bitpack::{NarrowArray, kernels};
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

/// Values in a buffer 16 bytes past a 64-byte line: where the system
/// allocator places large buffers, so where users' buffers usually are.
/// Fixed so that every run measures the same placement: a buffer's place in
/// a line changed the time of the kernels' 64-byte stores by up to 1.5x
/// between runs, before the kernels started their steps on a line.
struct Placed<T> {
    buf: Vec<T>,
    at: usize,
    n: usize,
}

impl<T: Copy + Default> Placed<T> {
    fn new(v: &[T]) -> Self {
        let size = std::mem::size_of::<T>();
        let mut buf = vec![T::default(); v.len() + 64 / size + 1];
        let addr = buf.as_ptr().addr();
        let at = (64 + 16 - addr % 64) % 64 / size;
        assert_eq!(
            (addr + at * size) % 64,
            16,
            "a buffer of {size}-byte values"
        );
        buf[at..at + v.len()].copy_from_slice(v);
        Placed {
            buf,
            at,
            n: v.len(),
        }
    }

    fn zeroed(n: usize) -> Self {
        Self::new(&vec![T::default(); n])
    }
}

impl<T> std::ops::Deref for Placed<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.buf[self.at..self.at + self.n]
    }
}

impl<T> std::ops::DerefMut for Placed<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.buf[self.at..self.at + self.n]
    }
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
/// AVX2, which LLVM vectorizes to 4 x 256-bit loads per iteration, from
/// the words' first 64-byte line on ([`line_split`]; the words before it
/// added one by one), as the kernels that read a stream (sums, packs)
/// start their steps. The benches place their buffers 16 bytes past a
/// line, where every other 32-byte load would cross two lines: on AMD
/// Zen 4 that loop took 1.75-1.8x the time of the same loop on lines with
/// 8 to 28 KiB of words, in the first-level cache, and the same time from
/// 64 KiB on (see `BENCHMARKS.md`).
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn read_floor_avx2(words: &[u64]) -> u64 {
    let fold = |s: &[u64]| s.iter().fold(0u64, |a, &x| a.wrapping_add(x));
    let (head, body) = line_split(words);
    fold(head).wrapping_add(fold(body))
}

fn read_floor(words: &[u64]) -> u64 {
    assert!(std::is_x86_feature_detected!("avx2"));
    // SAFETY: AVX2 was detected on the line above.
    unsafe { read_floor_avx2(words) }
}

/// Reads every input word once and writes every output word once (the
/// floor of a pack, which must do both): per 256 values, the `4 * IN`
/// input words (`IN` the input's bits) folded by `xor` into one 256-bit
/// value, stored into the `4 * W` output words. Both counts are constants,
/// so LLVM unrolls each group into `IN` 256-bit loads and `vpxor`s and `W`
/// 256-bit stores, with no other work.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn read_write_floor_avx2<const IN: usize, const W: usize>(input: &[u64], out: &mut [u64]) {
    for (i, o) in input.chunks_exact(4 * IN).zip(out.chunks_exact_mut(4 * W)) {
        let i: &[[u64; 4]] = bytemuck::cast_slice(i);
        let mut x = i[0];
        for c in &i[1..IN] {
            for k in 0..4 {
                x[k] ^= c[k];
            }
        }
        let o: &mut [[u64; 4]] = bytemuck::cast_slice_mut(o);
        for o in &mut o[..W] {
            *o = x;
        }
    }
}

/// [`read_write_floor_avx2`] of `in_bits`-bit input values (8 or 32) and
/// `w`-bit packed output (`1..=32`), reading the input from its first line
/// on ([`line_split`]), as the packs load: up to 56 bytes fewer read.
fn read_write_floor(input: &[u64], in_bits: usize, out: &mut [u64], w: usize) {
    assert!(std::is_x86_feature_detected!("avx2"));
    let input = line_split(input).1;
    macro_rules! by_width {
        ($in:literal: $($w:literal)*) => {
            match w {
                // SAFETY: AVX2 was detected above.
                $($w => unsafe { read_write_floor_avx2::<$in, $w>(input, out) },)*
                _ => unreachable!("widths 1..=32"),
            }
        };
    }
    if in_bits == 8 {
        by_width!(8: 1 2 3 4 5 6 7 8)
    } else {
        assert_eq!(in_bits, 32);
        by_width!(32: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
    }
}

/// [`read_write_floor_avx2`] of `w`-bit packed input (`1..=8`) and `u8`
/// output: the floor of an unpack to `u8`, which reads the packed bytes
/// and writes a byte per value (`memset` only writes).
fn unpack_u8_floor(input: &[u64], out: &mut [u8], w: u32) {
    assert!(std::is_x86_feature_detected!("avx2"));
    // The output from its first line on ([`from_line`]), as the unpacks
    // store: up to 63 bytes fewer written, none of its stores across two
    // lines.
    let (_, out) = from_line(out);
    let whole = out.len() / 8 * 8;
    let out: &mut [u64] = bytemuck::cast_slice_mut(&mut out[..whole]);
    macro_rules! by_width {
        ($($w:literal)*) => {
            match w {
                // SAFETY: AVX2 was detected above.
                $($w => unsafe { read_write_floor_avx2::<$w, 8>(input, out) },)*
                _ => unreachable!("widths 1..=8"),
            }
        };
    }
    by_width!(1 2 3 4 5 6 7 8)
}

/// `iters` loop iterations of 8 dependent adds: 8 cycles each. The adds
/// take a register operand: cores that fold adds of an immediate at rename
/// (Intel since Golden Cove) run an immediate chain faster than one add per
/// cycle, which would overstate the clock.
fn add_chain(iters: u64) -> u64 {
    let mut x = 0u64;
    let mut n = iters;
    // SAFETY: the assembly only updates the two registers it names, touches
    // no memory and leaves the flags clobbered, which `asm!` assumes by
    // default.
    unsafe {
        std::arch::asm!(
            "2:",
            "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
            "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
            "dec {n}",
            "jnz 2b",
            x = inout(reg) x,
            n = inout(reg) n,
            one = in(reg) 1u64,
            options(nomem, nostack),
        );
    }
    black_box(n);
    x
}

/// [`add_chain`] with 512-bit adds (`vpaddd`, one cycle of latency each):
/// the clock the core runs while it executes AVX-512 instructions, which
/// may be lower than the scalar clock. `None` without AVX-512 F.
fn add_chain_avx512(iters: u64) -> Option<u64> {
    if !std::is_x86_feature_detected!("avx512f") {
        return None;
    }
    let mut n = iters;
    // SAFETY: AVX-512 F was detected above; the assembly only updates the
    // vector and counter registers it names, touches no memory and leaves
    // the flags clobbered, which `asm!` assumes by default.
    unsafe {
        std::arch::asm!(
            "vpxord zmm0, zmm0, zmm0",
            "vpternlogd zmm1, zmm1, zmm1, 0xff",
            "2:",
            "vpaddd zmm0, zmm0, zmm1", "vpaddd zmm0, zmm0, zmm1",
            "vpaddd zmm0, zmm0, zmm1", "vpaddd zmm0, zmm0, zmm1",
            "vpaddd zmm0, zmm0, zmm1", "vpaddd zmm0, zmm0, zmm1",
            "vpaddd zmm0, zmm0, zmm1", "vpaddd zmm0, zmm0, zmm1",
            "dec {n}",
            "jnz 2b",
            n = inout(reg) n,
            out("zmm0") _,
            out("zmm1") _,
            options(nomem, nostack),
        );
    }
    Some(black_box(n))
}

/// The vector instructions whose rate [`vector_ops`] measures: its name
/// in the bench, and whether it needs AVX-512 (F, VPOPCNTDQ).
const VECTOR_OPS: [(&str, bool); 6] = [
    ("vpaddb_ymm", false),
    ("vpshufb_ymm", false),
    ("vpsrlw_ymm", false),
    ("vpsadbw_ymm", false),
    ("vpternlogq_zmm", true),
    ("vpopcntq_zmm", true),
];

/// `iters` loop iterations of 8 independent instructions `op` (a name of
/// [`VECTOR_OPS`]), each register its own chain of one instruction after
/// another: how many of them the core completes a cycle (with
/// [`add_chain`]'s clock), the rates against which the kernels' steps are
/// counted in `BENCHMARKS.md`. `None` where the CPU lacks the instruction.
fn vector_ops(op: &str, iters: u64) -> Option<u64> {
    let avx512 = VECTOR_OPS.iter().find(|o| o.0 == op)?.1;
    let runs = std::is_x86_feature_detected!("avx2")
        && (!avx512
            || std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512vpopcntdq"));
    if !runs {
        return None;
    }
    let mut n = iters;
    // `$op $r0, $r0 $rest` .. `$op $r7, $r7 $rest`, e.g. `vpaddb ymm0,
    // ymm0, ymm8`.
    macro_rules! eight {
        ($op:literal, $r:literal, $rest:literal) => {
            // SAFETY: the CPU has the instruction (checked above); the
            // assembly only updates the vector and counter registers it
            // names, touches no memory and leaves the flags clobbered,
            // which `asm!` assumes by default.
            unsafe {
                std::arch::asm!(
                    "vpxor xmm8, xmm8, xmm8",
                    "2:",
                    concat!($op, " ", $r, "0, ", $r, "0", $rest),
                    concat!($op, " ", $r, "1, ", $r, "1", $rest),
                    concat!($op, " ", $r, "2, ", $r, "2", $rest),
                    concat!($op, " ", $r, "3, ", $r, "3", $rest),
                    concat!($op, " ", $r, "4, ", $r, "4", $rest),
                    concat!($op, " ", $r, "5, ", $r, "5", $rest),
                    concat!($op, " ", $r, "6, ", $r, "6", $rest),
                    concat!($op, " ", $r, "7, ", $r, "7", $rest),
                    "dec {n}",
                    "jnz 2b",
                    "vzeroupper",
                    n = inout(reg) n,
                    out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
                    out("xmm4") _, out("xmm5") _, out("xmm6") _, out("xmm7") _,
                    out("xmm8") _,
                    options(nomem, nostack),
                )
            }
        };
    }
    match op {
        "vpaddb_ymm" => eight!("vpaddb", "ymm", ", ymm8"),
        "vpshufb_ymm" => eight!("vpshufb", "ymm", ", ymm8"),
        "vpsrlw_ymm" => eight!("vpsrlw", "ymm", ", 1"),
        "vpsadbw_ymm" => eight!("vpsadbw", "ymm", ", ymm8"),
        "vpternlogq_zmm" => eight!("vpternlogq", "zmm", ", zmm8, 0x96"),
        "vpopcntq_zmm" => eight!("vpopcntq", "zmm", ""),
        _ => unreachable!("an op of VECTOR_OPS"),
    }
    Some(black_box(n))
}

/// `s` split where its bytes reach a 64-byte line, for a floor that reads
/// from there on, as the kernels' steps that load a stream do
/// ([`read_floor_avx2`]).
fn line_split<T>(s: &[T]) -> (&[T], &[T]) {
    s.split_at(to_line(s))
}

/// How many values of `s` come before its bytes reach a 64-byte line (all
/// of them where none does).
fn to_line<T>(s: &[T]) -> usize {
    s.as_ptr().align_offset(64).min(s.len())
}

/// `s` split where its bytes reach a 64-byte line: the floors below store
/// from there on, as the kernels' steps do (`line_head` in the kernels), so
/// that no 32-byte store of theirs straddles two lines, which on AMD Zen 4
/// costs about 1.4x (see `BENCHMARKS.md`).
fn from_line<T>(s: &mut [T]) -> (&mut [T], &mut [T]) {
    let k = to_line(s);
    s.split_at_mut(k)
}

/// Writes 256 KiB of computed `f32`s with plain AVX2 stores, from the
/// output's first line on ([`from_line`]; the head before it is filled):
/// the floor for a kernel that stores what it computes (`memset` may write
/// whole lines without reading them first, see `BENCHMARKS.md`).
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn store_loop_f32_avx2(out: &mut [f32], k: f32) {
    let (head, body) = from_line(out);
    head.fill(k);
    // Bits computed by an integer add: a `vcvtdq2ps` of the index measured
    // twice `memset`'s time on AMD Zen 4 by itself.
    for (i, x) in body.iter_mut().enumerate() {
        *x = f32::from_bits((i as u32).wrapping_add(k.to_bits()));
    }
}

/// The same for bytes.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn store_loop_u8_avx2(out: &mut [u8], k: u8) {
    let (head, body) = from_line(out);
    head.fill(k);
    for (i, x) in body.iter_mut().enumerate() {
        *x = (i as u8).wrapping_add(k);
    }
}

// ---------------------------------------------------------------------------
// groups
// ---------------------------------------------------------------------------

fn small_group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.warm_up_time(Duration::from_millis(200));
    g.measurement_time(Duration::from_millis(800));
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
fn with_features<R>(mask: u32, f: impl FnOnce() -> R) -> R {
    kernels::__limit_features(mask);
    let r = f();
    kernels::__limit_features(u32::MAX);
    r
}

/// The internal feature bits of BMI2 and POPCNT (see `kernels::x86`).
const BMI2: u32 = 2;
const POPCNT: u32 = 4;
/// AVX2, BMI2, POPCNT and F16C without the AVX-512 bits: the variants a
/// CPU without AVX-512 runs (`avx2` in the groups).
const NO_AVX512: u32 = 15;

/// Whether this CPU has the AVX-512 features of the AVX-512 variants.
fn has_avx512() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vbmi")
}

/// The `fastlanes` crate's layout of `vals` (`w` bits each): its 1024-value
/// transposed blocks, `128 w` bytes each.
fn fastlanes_pack(vals: &[u8], w: u32) -> Vec<u8> {
    use fastlanes::BitPacking;
    let step = 128 * w as usize;
    let mut out = vec![0u8; vals.len() / 1024 * step];
    for (v, o) in vals.chunks_exact(1024).zip(out.chunks_exact_mut(step)) {
        // SAFETY: `v` holds 1024 values and `o` 1024 * w / 8 bytes, the
        // lengths `unchecked_pack` requires; `w <= 8`.
        unsafe { <u8 as BitPacking>::unchecked_pack(w as usize, v, o) };
    }
    out
}

/// Unpacks `fastlanes`' blocks of `w`-bit values into `out` through its
/// width-monomorphized `unpack::<W, B>` (what its `unchecked_unpack` calls
/// after matching the width), one call per 1024 values.
fn fastlanes_unpack(w: u32, packed: &[u8], out: &mut [u8]) {
    use fastlanes::BitPacking;
    macro_rules! at {
        ($($w:literal)+) => {
            match w {
                $($w => {
                    let (blocks, _) = packed.as_chunks::<{ 128 * $w }>();
                    let (outs, _) = out.as_chunks_mut::<1024>();
                    for (b, o) in blocks.iter().zip(outs) {
                        <u8 as BitPacking>::unpack::<$w, { 128 * $w }>(b, o);
                    }
                })+
                _ => unreachable!("width {w}"),
            }
        };
    }
    at!(1 2 3 4 5 6 7 8)
}

/// The sum of `fastlanes`' blocks: each block unpacked into a 1 KiB buffer
/// on the stack and summed (the crate has no sum of packed values).
fn fastlanes_sum(w: u32, packed: &[u8]) -> u64 {
    let step = 128 * w as usize;
    let mut buf = [0u8; 1024];
    packed
        .chunks_exact(step)
        .map(|b| {
            fastlanes_unpack(w, b, &mut buf);
            buf.iter().map(|&x| x as u32).sum::<u32>() as u64
        })
        .sum()
}

fn clock(c: &mut Criterion) {
    let mut g = small_group(c, "clock");
    g.bench_function("add_chain", |b| b.iter(|| add_chain(black_box(1 << 16))));
    for (op, _) in VECTOR_OPS {
        if vector_ops(op, 1).is_some() {
            g.bench_function(op, |b| b.iter(|| vector_ops(op, black_box(1 << 16))));
        }
    }
    if add_chain_avx512(1).is_some() {
        g.bench_function("add_chain_avx512", |b| {
            b.iter(|| add_chain_avx512(black_box(1 << 16)))
        });
    }
    g.finish();
}

/// The sum of the words' values as a slice of `u16`, `u32` or `u64` (`w`
/// 16, 32 or 64), as a caller holding such a slice would write it: an
/// iterator sum, which LLVM vectorizes for the build's target.
fn slice_sum(w: u32, words: &[u64]) -> u128 {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    match w {
        16 => bytemuck::cast_slice::<u8, u16>(bytes)
            .iter()
            .map(|&x| u64::from(x))
            .sum::<u64>()
            .into(),
        32 => bytemuck::cast_slice::<u8, u32>(bytes)
            .iter()
            .map(|&x| u64::from(x))
            .sum::<u64>()
            .into(),
        _ => words.iter().map(|&x| u128::from(x)).sum(),
    }
}

fn sum(c: &mut Criterion) {
    let n = SMALL;
    let mut g = small_group(c, "sum/65536");
    g.throughput(Throughput::Elements(n as u64));
    for w in (1..=8).chain([12, 16, 24, 32, 64]) {
        let words = Placed::new(&stream(n, w, w as u64));
        let words: &[u64] = &words;
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
            with_features(POPCNT, || {
                g.bench_with_input(BenchmarkId::new("popcnt", w), &words, |b, s| {
                    b.iter(|| kernels::sum(w, black_box(s), 0, n).unwrap())
                })
            });
        }
        if has_avx512() {
            with_features(NO_AVX512, || {
                g.bench_with_input(BenchmarkId::new("avx2", w), &words, |b, s| {
                    b.iter(|| kernels::sum(w, black_box(s), 0, n).unwrap())
                })
            });
        }
        if matches!(w, 16 | 32 | 64) {
            let expect = slice_sum(w, words);
            assert_eq!(kernels::sum(w, words, 0, n).unwrap(), expect);
            g.bench_with_input(BenchmarkId::new("slice", w), &words, |b, s| {
                b.iter(|| slice_sum(w, black_box(s)))
            });
        }
        if w <= 8 {
            let vals: Vec<u8> = values(n, w, w as u64);
            let expect: u64 = vals.iter().map(|&x| x as u64).sum();
            assert_eq!(kernels::sum(w, words, 0, n).unwrap(), expect as u128);
            let fl = fastlanes_pack(&vals, w);
            assert_eq!(fastlanes_sum(w, &fl), expect);
            g.bench_with_input(BenchmarkId::new("fastlanes", w), &fl, |b, p| {
                b.iter(|| fastlanes_sum(w, black_box(p)))
            });
            // BitPacker8x: each 256-value block decompressed into a stack
            // buffer and summed (the crate has no sum either).
            let bp8 = BitPacker8x::new();
            let vals32: Vec<u32> = vals.iter().map(|&x| x as u32).collect();
            let step8 = BitPacker8x::BLOCK_LEN * w as usize / 8;
            let mut packed8 = vec![0u8; n * w as usize / 8];
            for (blk, v) in vals32.chunks(BitPacker8x::BLOCK_LEN).enumerate() {
                bp8.compress(v, &mut packed8[blk * step8..], w as u8);
            }
            let bp8_sum = |p: &[u8]| {
                let mut buf = [0u32; BitPacker8x::BLOCK_LEN];
                p.chunks_exact(step8)
                    .map(|blk| {
                        bp8.decompress(blk, &mut buf, w as u8);
                        buf.iter().map(|&x| x as u64).sum::<u64>()
                    })
                    .sum::<u64>()
            };
            assert_eq!(bp8_sum(&packed8), expect);
            g.bench_with_input(BenchmarkId::new("bitpacker8x", w), &packed8, |b, p| {
                b.iter(|| bp8_sum(black_box(p)))
            });
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

/// The 7-bit AVX-512 sum's step taken apart (PART 0: the step of
/// `sum_fold_avx512::<7>` without its periodic fold: a zero-masked `vpermb`
/// of a 64-byte load at a 56-byte stride, the lanes' add, the odd fields'
/// `and` and add; 1: the same without the `vpermb`; 2: the `vpermb` alone,
/// kept by one `xor`), over `steps` steps of `bytes`.
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn sum7_parts<const PART: u32>(bytes: &[u8], steps: usize) -> [u64; 8] {
    use std::arch::x86_64::*;
    let idx: [u8; 64] = std::array::from_fn(|i| (i / 8 * 7 + i % 8) as u8);
    // SAFETY: `idx` is 64 bytes.
    let perm = black_box(unsafe { _mm512_loadu_si512(idx.as_ptr().cast()) });
    let keep = black_box(0x7f7f_7f7f_7f7f_7f7fu64);
    let odd = _mm512_set1_epi64(0x00fe_01fc_03f8_07f0);
    let (mut all, mut odds) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    for s in 0..steps {
        let at = bytes[56 * s..56 * s + 64].as_ptr();
        // SAFETY: the 64 bytes from `at` are inside `bytes`.
        let v = unsafe { _mm512_loadu_si512(at.cast()) };
        let v = if PART == 1 {
            v
        } else {
            _mm512_maskz_permutexvar_epi8(keep, perm, v)
        };
        if PART == 2 {
            all = _mm512_xor_si512(all, v);
        } else {
            all = _mm512_add_epi64(all, v);
            odds = _mm512_add_epi64(odds, _mm512_and_si512(v, odd));
        }
    }
    let (mut out, sum) = ([0u64; 8], _mm512_add_epi64(all, odds));
    let to = out.as_mut_ptr();
    // SAFETY: `out` is 64 bytes.
    unsafe { _mm512_storeu_si512(to.cast(), sum) };
    out
}

/// The 5-bit AVX2 sum's step taken apart (PART 0: the step of
/// `sum_fold_avx2::<5>` without its periodic fold: a `pshufb` of a 32-byte
/// load at a 20-byte stride giving each 64-bit lane one 5-byte group, the
/// lanes' add, the odd fields' `and` and add; 1: the same without the
/// `pshufb`; 2: the step of PART 0 at a 32-byte stride, so that no load
/// crosses a 32-byte boundary), over `steps` steps of `bytes`.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn sum5_parts<const PART: u32>(bytes: &[u8], steps: usize) -> [u64; 4] {
    use std::arch::x86_64::*;
    // Lane `L` of each half: bytes `5L..5L + 5` of the half.
    let ctrl: [u8; 32] = std::array::from_fn(|i| {
        let j = i % 16;
        if j % 8 < 5 {
            (j / 8 * 5 + j % 8) as u8
        } else {
            0x80
        }
    });
    // SAFETY: `ctrl` is 32 bytes.
    let shuf = black_box(unsafe { _mm256_loadu_si256(ctrl.as_ptr().cast()) });
    let odd = _mm256_set1_epi64x(0x3e0_7c0f_83e0);
    let stride = if PART == 2 { 32 } else { 20 };
    // Checked once, so that the loop has no more scalar work than the
    // kernel's.
    assert!(steps == 0 || stride * (steps - 1) + 32 <= bytes.len());
    let (mut all, mut odds) = (_mm256_setzero_si256(), _mm256_setzero_si256());
    for s in 0..steps {
        let at = bytes.as_ptr().wrapping_add(stride * s);
        // SAFETY: the 32 bytes from `at`, `stride * s` bytes into `bytes`,
        // are inside it (the assert above).
        let v = unsafe { _mm256_loadu_si256(at.cast()) };
        let v = if PART == 1 {
            v
        } else {
            _mm256_shuffle_epi8(v, shuf)
        };
        all = _mm256_add_epi64(all, v);
        odds = _mm256_add_epi64(odds, _mm256_and_si256(v, odd));
    }
    let (mut out, sum) = ([0u64; 4], _mm256_add_epi64(all, odds));
    let to = out.as_mut_ptr();
    // SAFETY: `out` is 32 bytes.
    unsafe { _mm256_storeu_si256(to.cast(), sum) };
    out
}

/// `sum_parts/5`: what the 5-bit AVX2 sum's instructions cost on this core
/// ([`sum5_parts`]), beside the AVX2 kernel (the AVX-512 variants switched
/// off) and the read floor of the same bytes, at 32,768 values (20 KiB, in
/// L1) and 65,536 (40 KiB, the `sum/65536` stream). Run only where the CPU
/// has AVX2.
fn sum_parts_avx2(c: &mut Criterion) {
    if !std::is_x86_feature_detected!("avx2") {
        return;
    }
    let mut g = small_group(c, "sum_parts/5");
    for n in [SMALL / 2, SMALL] {
        let words = stream(n, 5, 5);
        let steps = n / 32;
        // Room for the 32-byte stride of PART 2.
        let bytes: Vec<u8> = (0..32 * steps + 32).map(|i| (i * 37) as u8).collect();
        g.throughput(Throughput::Elements(n as u64));
        with_features(NO_AVX512, || {
            g.bench_with_input(BenchmarkId::new("kernel", n), &words, |b, s| {
                b.iter(|| kernels::sum(5, black_box(s), 0, n).unwrap())
            })
        });
        g.bench_with_input(BenchmarkId::new("read_floor", n), &words, |b, s| {
            b.iter(|| read_floor(black_box(s)))
        });
        g.bench_with_input(BenchmarkId::new("step", n), &bytes, |b, s| {
            // SAFETY: AVX2 was detected above.
            b.iter(|| unsafe { sum5_parts::<0>(black_box(s), steps) })
        });
        g.bench_with_input(BenchmarkId::new("no_shuffle", n), &bytes, |b, s| {
            // SAFETY: as above.
            b.iter(|| unsafe { sum5_parts::<1>(black_box(s), steps) })
        });
        g.bench_with_input(BenchmarkId::new("stride_32", n), &bytes, |b, s| {
            // SAFETY: as above.
            b.iter(|| unsafe { sum5_parts::<2>(black_box(s), steps) })
        });
    }
    g.finish();
}

/// `sum_parts/7`: what the 7-bit sum's instructions cost on this core
/// ([`sum7_parts`]), beside the kernel and the read floor of the same
/// bytes, at 32,768 values (28 KiB, in L1) and 65,536 (56 KiB, the
/// `sum/65536` stream, past a 48-KiB L1). Run only where the CPU has
/// AVX-512 VBMI.
fn sum_parts(c: &mut Criterion) {
    if !(has_avx512() && std::is_x86_feature_detected!("avx512vbmi")) {
        return;
    }
    let mut g = small_group(c, "sum_parts/7");
    for n in [SMALL / 2, SMALL] {
        let words = stream(n + 64, 7, 7);
        let bytes: &[u8] = bytemuck::cast_slice(&words);
        let steps = n / 64;
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("kernel", n), &words, |b, s| {
            b.iter(|| kernels::sum(7, black_box(s), 0, n).unwrap())
        });
        let floor = words[..n * 7 / 64].to_vec();
        g.bench_with_input(BenchmarkId::new("read_floor", n), &floor, |b, s| {
            b.iter(|| read_floor(black_box(s)))
        });
        g.bench_with_input(BenchmarkId::new("step", n), bytes, |b, s| {
            // SAFETY: AVX-512 F, BW and VBMI were detected above.
            b.iter(|| unsafe { sum7_parts::<0>(black_box(s), steps) })
        });
        g.bench_with_input(BenchmarkId::new("no_permute", n), bytes, |b, s| {
            // SAFETY: as above.
            b.iter(|| unsafe { sum7_parts::<1>(black_box(s), steps) })
        });
        g.bench_with_input(BenchmarkId::new("permute_only", n), bytes, |b, s| {
            // SAFETY: as above.
            b.iter(|| unsafe { sum7_parts::<2>(black_box(s), steps) })
        });
    }
    g.finish();
}

fn unpack_u8(c: &mut Criterion) {
    let n = SMALL;
    let mut g = small_group(c, "unpack_u8/65536");
    g.throughput(Throughput::Elements(n as u64));
    let mut out = Placed::<u8>::zeroed(n);
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
            if has_avx512() {
                with_features(NO_AVX512, || {
                    g.bench_with_input(BenchmarkId::new("avx2", w), &words, |b, s| {
                        b.iter(|| kernels::unpack(w, black_box(s), 0, &mut out).unwrap())
                    })
                });
            }
        }
        // The same values in fastlanes' own layout, unpacked by fastlanes.
        let vals: Vec<u8> = values(n, w, w as u64);
        let fl = fastlanes_pack(&vals, w);
        fastlanes_unpack(w, &fl, &mut out);
        assert_eq!(out[..], vals[..]);
        g.bench_with_input(BenchmarkId::new("fastlanes", w), &fl, |b, p| {
            b.iter(|| fastlanes_unpack(w, black_box(p), &mut out))
        });
        g.bench_with_input(BenchmarkId::new("write_floor", w), &words, |b, _| {
            b.iter(|| black_box(&mut out[..]).fill(0))
        });
        g.bench_with_input(BenchmarkId::new("store_loop", w), &words, |b, _| {
            assert!(std::is_x86_feature_detected!("avx2"));
            // SAFETY: AVX2 was detected on the line above.
            b.iter(|| unsafe { store_loop_u8_avx2(black_box(&mut out[..]), 1) })
        });
        g.bench_with_input(BenchmarkId::new("read_write", w), &words, |b, s| {
            b.iter(|| unpack_u8_floor(black_box(s), &mut out, w))
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
    let mut out = Placed::<u8>::zeroed(n);
    for w in 1..=8 {
        let words = stream(n, w, w as u64);
        g.bench_with_input(BenchmarkId::new("kernel", w), &words, |b, s| {
            b.iter(|| kernels::unpack(w, black_box(s), 0, &mut out).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("write_floor", w), &words, |b, _| {
            b.iter(|| black_box(&mut out[..]).fill(0))
        });
        // `memset` of ones: past the caches a fill with zeros can run
        // about twice as fast as one with other bytes (see `BENCHMARKS.md`).
        g.bench_with_input(BenchmarkId::new("fill_ones", w), &words, |b, _| {
            b.iter(|| black_box(&mut out[..]).fill(1))
        });
    }
    g.finish();
}

const U32_WIDTHS: [u32; 15] = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 28, 31];

/// Every width of a `u32` (`kernel`, `avx2`, `write_floor` and
/// `bitpacker8x` at each; `portable` and `bitpacker1x` at [`U32_WIDTHS`],
/// to keep the group's run time down).
fn unpack_u32(c: &mut Criterion) {
    let n = SMALL;
    let mut g = small_group(c, "unpack_u32/65536");
    g.throughput(Throughput::Elements(n as u64));
    let mut out = Placed::<u32>::zeroed(n);
    for w in 1..=32 {
        let sampled = U32_WIDTHS.contains(&w);
        let words = stream(n, w, w as u64);
        let vals: Vec<u32> = values(n, w, w as u64);
        g.bench_with_input(BenchmarkId::new("kernel", w), &words, |b, s| {
            b.iter(|| kernels::unpack(w, black_box(s), 0, &mut out).unwrap())
        });
        if w < 32 && has_avx512() {
            with_features(NO_AVX512, || {
                g.bench_with_input(BenchmarkId::new("avx2", w), &words, |b, s| {
                    b.iter(|| kernels::unpack(w, black_box(s), 0, &mut out).unwrap())
                })
            });
        }
        if sampled {
            with_features(0, || {
                g.bench_with_input(BenchmarkId::new("portable", w), &words, |b, s| {
                    b.iter(|| kernels::unpack(w, black_box(s), 0, &mut out).unwrap())
                })
            });
        }
        g.bench_with_input(BenchmarkId::new("write_floor", w), &words, |b, _| {
            b.iter(|| black_box(&mut out[..]).fill(0))
        });
        let bp1 = BitPacker1x::new();
        let mut packed1 = vec![0u8; n * 4];
        let mut len1 = 0;
        for (blk, v) in vals.chunks(BitPacker1x::BLOCK_LEN).enumerate() {
            len1 += bp1.compress(v, &mut packed1[blk * 4 * w as usize..], w as u8);
        }
        if sampled {
            g.bench_with_input(BenchmarkId::new("bitpacker1x", w), &packed1, |b, p| {
                b.iter(|| {
                    let step = 4 * w as usize;
                    for (blk, o) in out.chunks_mut(BitPacker1x::BLOCK_LEN).enumerate() {
                        bp1.decompress(&black_box(p)[blk * step..], o, w as u8);
                    }
                })
            });
        }
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
        let vals = Placed::new(&values::<u8>(n, w, w as u64));
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
            with_features(NO_AVX512, || {
                g.bench_with_input(BenchmarkId::new("avx2", w), &vals, |b, v| {
                    b.iter(|| kernels::pack(w, black_box(v), &mut words, 0).unwrap())
                })
            });
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
        let mut out = vec![0u64; n * w as usize / 64];
        g.bench_with_input(BenchmarkId::new("read_write", w), &input, |b, s| {
            b.iter(|| read_write_floor(black_box(s), 8, &mut out, w as usize))
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
        let input = as_words(&vals);
        let mut out = vec![0u64; n * w as usize / 64];
        g.bench_with_input(BenchmarkId::new("read_write", w), &input, |b, s| {
            b.iter(|| read_write_floor(black_box(s), 8, &mut out, w as usize))
        });
    }
    g.finish();
}

fn pack_u32(c: &mut Criterion) {
    let n = SMALL;
    let mut g = small_group(c, "pack_u32/65536");
    g.throughput(Throughput::Elements(n as u64));
    for w in 1..=32 {
        let vals = Placed::new(&values::<u32>(n, w, w as u64));
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
        if w < 32 {
            with_features(NO_AVX512, || {
                g.bench_with_input(BenchmarkId::new("avx2", w), &vals, |b, v| {
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
        let mut floor_out = vec![0u64; n * w as usize / 64];
        g.bench_with_input(BenchmarkId::new("read_write", w), &input, |b, s| {
            b.iter(|| read_write_floor(black_box(s), 32, &mut floor_out, w as usize))
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

/// Decode groups for one format: the crate's bulk decode of a packed array
/// (`kernel`), the generic table kernel (`table`), the portable path, a
/// scalar per-element loop, the floors and the `half` crate's `f16` to
/// `f32` slice conversion of as many values.
fn decode_format<F: MiniFloat>(g: &mut BenchmarkGroup<'_, WallTime>, name: &str, n: usize) {
    let w = F::BITS;
    let src: Vec<f32> = rng_fill(n, 7)
        .into_iter()
        .map(|x| ((x >> 11) as f64 / (1u64 << 53) as f64 * 16.0 - 8.0) as f32)
        .collect();
    let a = formats::encode::<F>(&src, Mode::Nearest);
    let table: Vec<f32> = (0..1u32 << w).map(|c| F::FORMAT.decode_f32(c)).collect();
    let mut out = Placed::<f32>::zeroed(n);
    g.bench_with_input(BenchmarkId::new("kernel", name), &a, |b, a| {
        b.iter(|| formats::decode_into(black_box(a), &mut out).unwrap())
    });
    g.bench_with_input(BenchmarkId::new("write_floor", name), &a, |b, _| {
        b.iter(|| black_box(&mut out[..]).fill(0.0))
    });
    g.bench_with_input(BenchmarkId::new("store_loop", name), &a, |b, _| {
        assert!(std::is_x86_feature_detected!("avx2"));
        // SAFETY: AVX2 was detected on the line above.
        b.iter(|| unsafe { store_loop_f32_avx2(black_box(&mut out[..]), 1.0) })
    });
    if n == LARGE {
        // `memset` of other bytes than zero: past the caches a fill with
        // zeros can run about twice as fast (see `BENCHMARKS.md`), and a
        // decode writes other bytes.
        g.bench_with_input(BenchmarkId::new("fill_ones", name), &a, |b, _| {
            b.iter(|| black_box(&mut out[..]).fill(1.0))
        });
    }
    if n == SMALL {
        g.bench_with_input(BenchmarkId::new("table", name), &a, |b, a| {
            b.iter(|| kernels::decode(w, &table, black_box(a.as_words()), 0, &mut out).unwrap())
        });
        with_features(0, || {
            g.bench_with_input(BenchmarkId::new("portable", name), &a, |b, a| {
                b.iter(|| formats::decode_into(black_box(a), &mut out).unwrap())
            })
        });
        if has_avx512() {
            with_features(NO_AVX512, || {
                g.bench_with_input(BenchmarkId::new("avx2", name), &a, |b, a| {
                    b.iter(|| formats::decode_into(black_box(a), &mut out).unwrap())
                })
            });
        }
        g.bench_with_input(BenchmarkId::new("per_element", name), &a, |b, a| {
            b.iter(|| {
                let s = black_box(a.as_words());
                for (i, o) in out.iter_mut().enumerate() {
                    let code = naive_get(s, i, w) as u8;
                    *o = F::from_raw_bits(code).to_f32();
                }
            })
        });
        let halves: Vec<f16> = src.iter().map(|&x| f16::from_f32(x)).collect();
        g.bench_with_input(
            BenchmarkId::new("half_f16_to_f32", name),
            &halves,
            |b, h| b.iter(|| black_box(h).convert_to_f32_slice(&mut out)),
        );
    }
    // The bulk decode agrees with the format's own per-value decode.
    let mut check = vec![0f32; n.min(4096)];
    formats::decode_into(
        &formats::encode::<F>(&src[..check.len()], Mode::Nearest),
        &mut check,
    )
    .unwrap();
    for (i, x) in check.iter().enumerate() {
        let y = a.get(i).unwrap().to_f32();
        assert!(x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
    }
}

fn decode(c: &mut Criterion) {
    let mut g = small_group(c, "decode_f32/65536");
    g.throughput(Throughput::Elements(SMALL as u64));
    decode_format::<E2M1>(&mut g, "e2m1", SMALL);
    decode_format::<E2M3>(&mut g, "e2m3", SMALL);
    decode_format::<E4M3>(&mut g, "e4m3", SMALL);
    g.finish();
    let mut g = large_group(c, "decode_f32/67108864");
    g.throughput(Throughput::Elements(LARGE as u64));
    decode_format::<E2M1>(&mut g, "e2m1", LARGE);
    decode_format::<E4M3>(&mut g, "e4m3", LARGE);
    g.finish();
}

/// Encode group for one format: the crate's bulk encode into a packed array
/// (`kernel`, round to nearest even), the portable path, a scalar
/// per-element loop (the crate's rounding routine per value, then its bits
/// written) and the `half` crate's `f32` to `f16` slice conversion.
fn encode_format<F: MiniFloat>(g: &mut BenchmarkGroup<'_, WallTime>, name: &str, n: usize) {
    let w = F::BITS;
    let src: Vec<f32> = rng_fill(n, 99)
        .into_iter()
        .map(|x| ((x >> 11) as f64 / (1u64 << 53) as f64 * 16.0 - 8.0) as f32)
        .collect();
    let src = Placed::new(&src);
    let mut a = NarrowArray::<F>::zeroed(n);
    g.bench_with_input(BenchmarkId::new("kernel", name), &src, |b, s| {
        b.iter(|| formats::encode_into(black_box(s), Mode::Nearest, &mut a).unwrap())
    });
    with_features(0, || {
        g.bench_with_input(BenchmarkId::new("portable", name), &src, |b, s| {
            b.iter(|| formats::encode_into(black_box(s), Mode::Nearest, &mut a).unwrap())
        })
    });
    if has_avx512() {
        with_features(NO_AVX512, || {
            g.bench_with_input(BenchmarkId::new("avx2", name), &src, |b, s| {
                b.iter(|| formats::encode_into(black_box(s), Mode::Nearest, &mut a).unwrap())
            })
        });
    }
    let mut words = vec![0u64; kernels::words_for(w, n)];
    let per_element = |s: &[f32], words: &mut [u64]| {
        for (i, &x) in s.iter().enumerate() {
            let code = F::FORMAT.encode_f32(x, Mode::Nearest) as u64;
            let bit = i * w as usize;
            let (k, sh) = (bit / 64, bit % 64);
            words[k] = (words[k] & !(mask(w) << sh)) | (code << sh);
        }
    };
    g.bench_with_input(BenchmarkId::new("per_element", name), &src, |b, s| {
        b.iter(|| per_element(black_box(s), &mut words))
    });
    // Written here too, so that the check below holds when a filter skips
    // the benchmark above.
    per_element(&src, &mut words);
    let mut halves = vec![f16::ZERO; n];
    g.bench_with_input(BenchmarkId::new("half_f32_to_f16", name), &src, |b, s| {
        b.iter(|| halves.convert_from_f32_slice(black_box(s)))
    });
    // The bulk encode agrees with the per-element loop.
    formats::encode_into(&src, Mode::Nearest, &mut a).unwrap();
    let ours: &[u8] = bytemuck::cast_slice(a.as_words());
    let theirs: &[u8] = bytemuck::cast_slice(&words);
    let len = (n * w as usize).div_ceil(8);
    assert_eq!(&ours[..len], &theirs[..len]);
}

fn encode(c: &mut Criterion) {
    let mut g = small_group(c, "encode_f32/65536");
    g.throughput(Throughput::Elements(SMALL as u64));
    encode_format::<E2M1>(&mut g, "e2m1", SMALL);
    encode_format::<E4M3>(&mut g, "e4m3", SMALL);
    g.finish();
}

/// `sum_sizes/W`: the 3-, 5- and 6-bit sums from the caches to memory,
/// `kernel` beside the kernel without VPOPCNTDQ (`no_popcnt`: the AVX-512
/// digit fold where `kernel` counts in place by carry-save trees), by
/// number of values: 1 Mi and 4 Mi (0.4-3 MiB, in L2 or L3), 16 Mi (6-12
/// MiB) and a 12 MiB stream (the longest the carry-save sum takes by its
/// trees before it hands over to the fold, `csa_max_bytes`). Run only where
/// the CPU has AVX-512 VPOPCNTDQ and VBMI.
fn sum_sizes(c: &mut Criterion) {
    if !(has_avx512() && std::is_x86_feature_detected!("avx512vpopcntdq")) {
        return;
    }
    // The internal feature bit of VPOPCNTDQ (see `kernels::x86`).
    const NO_POPCNT: u32 = !256;
    for w in [3u32, 5, 6] {
        let mut g = large_group(c, &format!("sum_sizes/{w}"));
        let mut sizes = vec![
            1usize << 20,
            4 << 20,
            16 << 20,
            (12 << 23) / w as usize / 64 * 64,
        ];
        sizes.dedup();
        for n in sizes {
            let words = stream(n, w, w as u64);
            g.throughput(Throughput::Elements(n as u64));
            g.bench_with_input(BenchmarkId::new("kernel", n), &words, |b, s| {
                b.iter(|| kernels::sum(w, black_box(s), 0, n).unwrap())
            });
            with_features(NO_POPCNT, || {
                g.bench_with_input(BenchmarkId::new("no_popcnt", n), &words, |b, s| {
                    b.iter(|| kernels::sum(w, black_box(s), 0, n).unwrap())
                })
            });
        }
        g.finish();
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args().without_plots();
    clock(&mut c);
    sum(&mut c);
    sum_parts(&mut c);
    sum_parts_avx2(&mut c);
    sum_sizes(&mut c);
    unpack_u8(&mut c);
    unpack_u32(&mut c);
    pack_u8(&mut c);
    pack_u32(&mut c);
    decode(&mut c);
    encode(&mut c);
    c.final_summary();
}
