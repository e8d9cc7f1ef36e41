//! Sum variants: POPCNT and AVX-512 VPOPCNTDQ (1 bit), bit counts in place
//! by carry-save adders (AVX-512 VPOPCNTDQ: 2 to 6 bits; AVX2: 1 and 2
//! bits), byte sums (AVX2 and AVX-512 BW: 1, 2, 4, 8 bits), and the split
//! digit fold (AVX2 and AVX-512 VBMI: 3, 5, 6, 7 bits), and the wide sums
//! (AVX2 and AVX-512 F: 16, 32, 64 bits), and the spread sums (AVX2 and
//! AVX-512 VBMI: 9 to 25 bits); see the module docs of `kernels`.

use core::arch::x86_64::*;

use super::simd::*;
use super::unpack::{
    low_base, u32_window, unpack_u32_bcast, unpack_u32_consts, unpack_u32_consts512,
};

// ---------------------------------------------------------------------------
// sum, W in 1..=8
// ---------------------------------------------------------------------------

/// A sum of `n` values of `W` bits from `offset` in the [`frame`]: the
/// portable sum takes the head and the tail, and `middle(bytes, at)` adds
/// the steps `at` of `per` values, each reading at most the `span` bytes
/// from its start (`back` bytes before its first value's byte) of the
/// stream `bytes`, which [`Steps::new`] asserts are inside it. With
/// `on_line` (the 64-byte steps of the AVX-512 byte sums and `vpopcntq`)
/// the head reaches the stream's first 64-byte line ([`line_lead`]).
#[inline(always)]
fn sum_frame<const W: u32>(
    words: &[u64],
    offset: usize,
    n: usize,
    (per, span, back): (usize, usize, usize),
    on_line: bool,
    middle: impl FnOnce(&[u8], Steps<W>) -> u128,
) -> u128 {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let lead = if on_line {
        line_lead::<W>(bytes, offset, n)
    } else {
        0
    };
    let mut at = Steps::<W>::new(offset + lead, n - lead, per, span, back, bytes.len(), None);
    // The lead's values join the head, which the portable sum takes.
    at.head += lead;
    let mut total = 0;
    frame(
        &mut total,
        (at, n),
        |total, r| *total += scalar::sum::<W>(words, offset + r.start, r.len()),
        |total, at| *total += middle(bytes, at),
    );
    total
}

/// The values before the first 64-byte line of the stream's bytes in a
/// sum of `n` values from `offset`, for the sums whose steps start on any
/// byte and advance by 64 bytes (`W` divides 64: the AVX-512 byte sums,
/// `vpopcntq` and the wide sums; a stream of `u64` words starts on 8 bytes,
/// so a line does on a value at 16, 32 and 64 bits), so that every step's
/// load is on a line: 16 bytes past a
/// line, as the system allocator returns large buffers, each would cross
/// two (measured on AMD Zen 4 at 65,536 values: 0.90x the time at 1 bit,
/// 0.93x at 8 bits). The AVX2 byte sums, whose 32-byte loads cross a line
/// every other step, measured 1.03-1.05x the time with this head at 1 and
/// 2 bits (their steps wait on their instructions, not their loads, and
/// the head's portable sum costs more than the split loads), and keep the
/// shortest head. 0 for other widths, and for calls shorter than
/// [`LINE_HEAD_MIN`], whose head the portable sum would spend more on.
#[inline(always)]
fn line_lead<const W: u32>(bytes: &[u8], offset: usize, n: usize) -> usize {
    let w = W as usize;
    if !64usize.is_multiple_of(w) || n < LINE_HEAD_MIN {
        return 0;
    }
    (first_line(bytes, (offset * w).div_ceil(8)) * 8 / w - offset).min(n)
}

/// The first byte at or after byte `b` of `bytes` that starts a 64-byte
/// line.
#[inline(always)]
fn first_line(bytes: &[u8], b: usize) -> usize {
    b + (64 - (bytes.as_ptr().addr() + b) % 64) % 64
}

/// Horizontal sum of the four 64-bit lanes.
#[inline(always)]
fn hsum4(v: __m256i) -> u128 {
    lane_total(&bytemuck::cast::<__m256i, [u8; 32]>(v), 8)
}

/// The sum of a vector's unsigned lanes of `size` bytes (4 or 8), from
/// its bytes.
#[inline(always)]
fn lane_total(bytes: &[u8], size: usize) -> u128 {
    bytes
        .chunks_exact(size)
        .map(|c| {
            let mut x = [0u8; 8];
            x[..size].copy_from_slice(c);
            u128::from(u64::from_le_bytes(x))
        })
        .sum()
}

/// Sum of one-bit elements: `popcnt` over the words.
///
/// # Safety
///
/// The CPU must support POPCNT.
#[target_feature(enable = "popcnt")]
pub(crate) unsafe fn sum_popcnt<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    scalar::popcount_range(words, offset, n) as u128
}

/// Field sums of a nibble, repeated to `N` bytes: 4 one-bit fields
/// (`w == 1`) or 2 two-bit fields.
const fn nibble_sums<const N: usize>(w: u32) -> [u8; N] {
    let mut t = [0u8; N];
    let mut i = 0;
    while i < N {
        let n = (i % 16) as u8;
        t[i] = if w == 1 {
            n.count_ones() as u8
        } else {
            (n & 3) + (n >> 2)
        };
        i += 1;
    }
    t
}

/// The byte sums ([`sum_bytes_avx2`], [`sum_bytes_avx512`]) in the
/// [`sum_frame`], one body for both vector widths: `$load(bytes, at)` loads
/// a step; each byte's field sum is two `pshufb` lookups (`$shuffle`) of its
/// nibbles' field sums in `$lut` (`W <= 2`; Mula's popcount for one bit) or
/// the sum of its nibbles (`W == 4`); byte sums accumulate in 8-bit lanes
/// for as many steps as cannot overflow, and `vpsadbw` (`$sad`) adds each
/// 8 bytes into a 64-bit lane (each step's own for `W == 8`), whose sum
/// `$lanes` gives.
macro_rules! byte_sum {
    (
        ($words:expr, $offset:expr, $n:expr), $vbytes:literal, $load:ident,
        $lut:expr, $lanes:ident, [$set1_8:ident, $zero:ident, $and:ident, $srli:ident,
        $shuffle:ident, $add8:ident, $add64:ident, $sad:ident]
    ) => {{
        let w = W as usize;
        let geometry = (8 * $vbytes / w, $vbytes, 0);
        let (m4, lut, zero) = ($set1_8(0x0f), $lut, $zero());
        // Largest byte sum one step adds, and how many steps a byte holds.
        let per_byte: usize = if W == 8 {
            255
        } else {
            (8 / w) * ((1 << w) - 1)
        };
        let batch = (255 / per_byte).max(1);
        sum_frame::<W>($words, $offset, $n, geometry, $vbytes == 64, |bytes, at| {
            let mut acc = zero;
            if W == 8 {
                // Bytes are the fields: one `vpsadbw` a step.
                at.each(|b, _| {
                    // SAFETY: `b + $vbytes <= bytes.len()` (`sum_frame`).
                    acc = $add64(acc, $sad(unsafe { $load(bytes, b) }, zero));
                });
                return $lanes(acc);
            }
            let mut s = 0;
            while s < at.steps {
                let end = (s + batch).min(at.steps);
                let mut bsum = zero;
                while s < end {
                    // SAFETY: `s < at.steps`, so the load ends inside
                    // `bytes` (`sum_frame`).
                    let v = unsafe { $load(bytes, at.first + $vbytes * s) };
                    let lo = $and(v, m4);
                    let hi = $and($srli::<4>(v), m4);
                    let v = match W {
                        1 | 2 => $add8($shuffle(lut, lo), $shuffle(lut, hi)),
                        _ => $add8(lo, hi),
                    };
                    bsum = $add8(bsum, v);
                    s += 1;
                }
                acc = $add64(acc, $sad(bsum, zero));
            }
            $lanes(acc)
        })
    }};
}

/// Sum of `W`-bit elements for `W` in {1, 2, 4, 8}, where no element crosses
/// a byte: each byte's field sum is two `pshufb` lookups of its nibbles'
/// field sums (`W <= 2`; Mula's popcount for one bit) or the sum of its
/// nibbles (`W == 4`); byte sums accumulate in 8-bit lanes for as many steps
/// as cannot overflow, and `vpsadbw` adds each 8 bytes into a 64-bit lane.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn sum_bytes_avx2<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    byte_sum! {
        (words, offset, n), 32, load32, v256(const { nibble_sums::<32>(W) }), hsum4,
        [
            _mm256_set1_epi8, _mm256_setzero_si256, _mm256_and_si256, _mm256_srli_epi16,
            _mm256_shuffle_epi8, _mm256_add_epi8, _mm256_add_epi64, _mm256_sad_epu8
        ]
    }
}

/// A carry-save adder of three vectors, bit by bit, in AVX2's two-input
/// logic: `(carry, sum)`, the majority and the parity of each bit's three
/// inputs (five instructions; `csa` below takes two `vpternlogq`). The
/// sum is one `vpxor` from `c` and the carry two, so a level carried from
/// adder to adder goes in as `c`.
#[target_feature(enable = "avx2")]
#[inline]
fn csa_avx2(a: __m256i, b: __m256i, c: __m256i) -> (__m256i, __m256i) {
    let u = _mm256_xor_si256(a, b);
    (
        _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(u, c)),
        _mm256_xor_si256(u, c),
    )
}

/// Sum of `W`-bit elements for `W` in {1, 2} by a carry-save count of the
/// stream's bits (Harley-Seal, as in Mula, Kurz and Lemire's AVX2
/// popcount): a step is 16 vectors of 32 bytes, which a tree of 15
/// carry-save adders ([`csa_avx2`]) folds into the ones, twos, fours and
/// eights carried over from the steps before and one vector of sixteens.
/// The tree is linear in each bit's count, so the sum of the fields is
/// `16 f(sixteens) + 8 f(eights) + 4 f(fours) + 2 f(twos) + f(ones)`, with
/// `f` the field sum of a vector ([`sum_bytes_avx2`]'s: two `vpshufb` of
/// its nibbles' field sums and a `vpsadbw`), once a step for the sixteens
/// and once at the end for the rest. About 5.2 vector instructions per 32
/// bytes where the byte sum takes 7, three of them shuffles. The values
/// before and after the steps (up to 511 bytes of them) take
/// [`sum_bytes_avx2`].
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn sum_csa_avx2<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    const { assert!(W == 1 || W == 2) };
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let at = Steps::<W>::new(offset, n, 4096 / W as usize, 512, 0, bytes.len(), None);
    let (m4, lut, zero) = (
        _mm256_set1_epi8(0x0f),
        v256(const { nibble_sums::<32>(W) }),
        _mm256_setzero_si256(),
    );
    // The field sums of `v` in its four 64-bit lanes.
    let fields = |v: __m256i| {
        let lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(v, m4));
        let hi = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16::<4>(v), m4));
        _mm256_sad_epu8(_mm256_add_epi8(lo, hi), zero)
    };
    let mut total = 0;
    frame(
        &mut total,
        (at, n),
        // SAFETY: the CPU supports AVX2 (this function's precondition).
        |total, r| *total += unsafe { sum_bytes_avx2::<W>(words, offset + r.start, r.len()) },
        |total, at| {
            let [mut ones, mut twos, mut fours, mut eights, mut sixteens] = [zero; 5];
            at.each(|b, _| {
                // SAFETY: `b + 512 <= bytes.len()` (`Steps::new`), so each
                // of the 16 loads ends inside `bytes`.
                let v = |k: usize| unsafe { load32(bytes, b + 32 * k) };
                let pair = |k: usize, ones: &mut __m256i| {
                    let (t1, o) = csa_avx2(v(k), v(k + 1), *ones);
                    let (t2, o) = csa_avx2(v(k + 2), v(k + 3), o);
                    *ones = o;
                    (t1, t2)
                };
                let fours_of = |k: usize, ones: &mut __m256i, twos: &mut __m256i| {
                    let (a1, a2) = pair(k, ones);
                    let (f1, t) = csa_avx2(a1, a2, *twos);
                    let (b1, b2) = pair(k + 4, ones);
                    let (f2, t) = csa_avx2(b1, b2, t);
                    *twos = t;
                    (f1, f2)
                };
                let (f1, f2) = fours_of(0, &mut ones, &mut twos);
                let (e1, f) = csa_avx2(f1, f2, fours);
                let (f1, f2) = fours_of(8, &mut ones, &mut twos);
                let (e2, f) = csa_avx2(f1, f2, f);
                fours = f;
                let (s, e) = csa_avx2(e1, e2, eights);
                eights = e;
                sixteens = _mm256_add_epi64(sixteens, fields(s));
            });
            // Each level's field sums, weighed by it, in 64-bit lanes
            // (a lane holds part of the stream's sum, far below 2^64).
            let levels = [
                _mm256_slli_epi64::<4>(sixteens),
                _mm256_slli_epi64::<3>(fields(eights)),
                _mm256_slli_epi64::<2>(fields(fours)),
                _mm256_slli_epi64::<1>(fields(twos)),
                fields(ones),
            ];
            *total += hsum4(levels.into_iter().fold(zero, |a, v| _mm256_add_epi64(a, v)));
        },
    );
    total
}

/// Groups of 8 elements (`W` bytes) per 64-bit lane in [`sum_fold_avx2`].
const fn groups_per_lane(w: u32) -> usize {
    (8 / w) as usize
}

/// `pshufb` control for [`sum_fold_avx2`]: qword `q` of each half receives
/// `K = 8 / W` consecutive 8-element groups at its bottom (the half's groups
/// start at byte `16 - 2KW` of the low half and byte 0 of the high half, see
/// [`low_base`]); the rest is zero.
const fn sum_shuffle(w: u32) -> [u8; 32] {
    let kw = groups_per_lane(w) * w as usize;
    let mut c = [0x80u8; 32];
    let mut h = 0;
    while h < 2 {
        let base = if h == 0 { low_base(2 * kw) } else { 0 };
        let mut q = 0;
        while q < 2 {
            let mut t = 0;
            while t < kw {
                c[16 * h + 8 * q + t] = (base + q * kw + t) as u8;
                t += 1;
            }
            q += 1;
        }
        h += 1;
    }
    c
}

/// The step loop of the digit-fold sums ([`sum_fold_avx2`],
/// [`sum_fold_avx512`]), one body for both vector widths: `$lanes(s)` is
/// step `s`'s lanes (whole fields below bit `8KW` of each 64-bit lane),
/// `$odd` the odd fields' mask and `$m4` the `4W`-bit slots' one, and the
/// ops are the width's 64-bit add and subtract, `and`, 64-bit right shift by
/// a count, and splat. The value is the 64-bit lanes' sum vector.
macro_rules! fold_steps {
    (
        $steps:expr, $lanes:expr, $odd:expr, $m4:expr, $zero:expr,
        [$add:ident, $sub:ident, $and:ident, $srl:ident, $splat:ident]
    ) => {{
        let (steps, lanes_of, odd, m4, zero) = ($steps, $lanes, $odd, $m4, $zero);
        // The sum of the `s`-bit slots of each 64-bit lane (see
        // `scalar::hsum`).
        let hsum_lanes = |mut x, mut s: u32| {
            while s < 64 {
                let m = $splat(rep_mask(s, 2 * s));
                x = $add($and(x, m), $and($srl(x, count(s)), m));
                s *= 2;
            }
            x
        };
        // Pairs of `2W`-bit slots added into the `4W`-bit slots.
        let fold = |x| $add($and(x, m4), $and($srl(x, count(2 * W)), m4));
        // Steps per combine: a `2W`-bit slot of the even or the odd fields
        // gains at most `2^W - 1` a step. Combines per reduction of the
        // `4W`-bit slots, which gain at most `4 (2^(2W) - 1)` a combine.
        let r1 = (mask64(2 * W) / mask64(W)) as usize;
        let r2 = (mask64(4 * W) / (4 * mask64(2 * W))).min(1 << 20) as usize;
        let mut lanes = zero;
        let mut acc2 = zero;
        let mut combines = 0;
        let mut s = 0;
        while s < steps {
            let end = (s + r1).min(steps);
            let mut all = zero;
            let mut odds = zero;
            while s < end {
                let v = lanes_of(s);
                all = $add(all, v);
                odds = $add(odds, $and(v, odd));
                s += 1;
            }
            // `all` may have wrapped, but `all - odds`, the even slots, did
            // not.
            let evens = $sub(all, odds);
            let odds = $srl(odds, count(W));
            acc2 = $add(acc2, $add(fold(evens), fold(odds)));
            combines += 1;
            if combines == r2 {
                lanes = $add(lanes, hsum_lanes(acc2, 4 * W));
                acc2 = zero;
                combines = 0;
            }
        }
        $add(lanes, hsum_lanes(acc2, 4 * W))
    }};
}

/// Sum of `W`-bit elements for `W` in {3, 5, 6, 7} by in-word digit folding.
///
/// `pshufb` gives each 64-bit lane `K = 8 / W` whole 8-element groups at its
/// bottom (32K elements per step from one 32-byte load), so every lane
/// holds whole fields at bits `0, W, 2W, ...` below bit `8KW`. Then the fold
/// `(v & even) + ((v & odd) >> W)`, which would leave pair sums in `2W`-bit
/// slots, is split across the steps: a step only adds `v` and `v & odd` into
/// two accumulators, and every `2^W + 1` steps, before a `2W`-bit slot of
/// either parity could overflow, the even fields are recovered as `all -
/// odd` (exact modulo `2^64`, and their true sum fits), both parities are
/// folded into `4W`-bit slots of a third accumulator, and that one is reduced
/// to 64-bit lanes before it could overflow. Slots stop below bit `8KW`, so
/// nothing is carried out of a lane. A step is one load, one shuffle, one
/// `and` and two adds for `32K` elements.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn sum_fold_avx2<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    let kw = groups_per_lane(W) * W as usize;
    // A step: 4 lanes of K groups, `4KW` bytes from byte `at`, loaded as 32
    // bytes from `at + 2KW - 16`.
    let geometry = (32 * groups_per_lane(W), 32, low_base(2 * kw));
    let shuf = v256(sum_shuffle(W));
    let odd = splat64(rep_mask(W, 2 * W) << W & mask64(8 * kw as u32));
    let m4 = splat64(rep_mask(2 * W, 4 * W));
    sum_frame::<W>(words, offset, n, geometry, false, |bytes, at| {
        let lanes = |s: usize| {
            // SAFETY: `s < at.steps`, so the load ends inside `bytes`
            // (`sum_frame`).
            _mm256_shuffle_epi8(unsafe { load32(bytes, at.first + at.stride() * s) }, shuf)
        };
        let zero = _mm256_setzero_si256();
        let v = fold_steps! {
            at.steps, lanes, odd, m4, zero,
            [_mm256_add_epi64, _mm256_sub_epi64, _mm256_and_si256, _mm256_srl_epi64, splat64]
        };
        hsum4(v)
    })
}

// ---------------------------------------------------------------------------
// sum, W in {3, 5, 6, 7}
// ---------------------------------------------------------------------------

/// `vpermb` control for [`sum_fold_avx512`]: qword `q` receives the `KW`
/// bytes from byte `qKW` of the load (`K = 8 / W` whole groups) at its
/// bottom; the byte mask returned beside it zeroes the rest.
const fn sum_perm(w: u32) -> ([u8; 64], u64) {
    let kw = groups_per_lane(w) * w as usize;
    let mut c = [0u8; 64];
    let mut keep = 0u64;
    let mut q = 0;
    while q < 8 {
        let mut t = 0;
        while t < kw {
            c[8 * q + t] = (q * kw + t) as u8;
            keep |= 1 << (8 * q + t);
            t += 1;
        }
        q += 1;
    }
    (c, keep)
}

/// Sum of `W`-bit elements for `W` in {3, 5, 6, 7} by in-word digit
/// folding, as `sum_fold_avx2` does it, on eight 64-bit lanes: a zero-masking
/// `vpermb` gives each lane `K = 8 / W` whole groups at its bottom (`64K`
/// elements per step from one 64-byte load), a step adds the lanes and their
/// odd fields into two accumulators, and every `2^W + 1` steps the even
/// fields (`all - odd`, exact modulo `2^64`) and the odd ones are folded
/// into `4W`-bit slots of a third, reduced to 64-bit lanes before it could
/// overflow.
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn sum_fold_avx512<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    let kw = groups_per_lane(W) * W as usize;
    let (perm, keep) = sum_perm(W);
    let perm = v512(perm);
    let odd = splat64x8(rep_mask(W, 2 * W) << W & mask64(8 * kw as u32));
    let m4 = splat64x8(rep_mask(2 * W, 4 * W));
    let geometry = (64 * groups_per_lane(W), 64, 0);
    sum_frame::<W>(words, offset, n, geometry, false, |bytes, at| {
        let lanes = |s: usize| {
            // SAFETY: `s < at.steps`, so the load ends inside `bytes`
            // (`sum_frame`).
            let v = unsafe { load64(bytes, at.first + at.stride() * s) };
            _mm512_maskz_permutexvar_epi8(keep, perm, v)
        };
        let zero = _mm512_setzero_si512();
        let v = fold_steps! {
            at.steps, lanes, odd, m4, zero,
            [_mm512_add_epi64, _mm512_sub_epi64, _mm512_and_si512, _mm512_srl_epi64, splat64x8]
        };
        lanes_sum(v)
    })
}

// ---------------------------------------------------------------------------
// sum, W in {1, 2, 4, 8}
// ---------------------------------------------------------------------------

/// Sum of one-bit elements: `vpopcntq` counts each 64-bit lane of a 64-byte
/// load and the counts accumulate in 64-bit lanes.
///
/// # Safety
///
/// The CPU must support AVX-512 F and VPOPCNTDQ.
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
pub(crate) unsafe fn sum_popcnt_avx512<const W: u32>(
    words: &[u64],
    offset: usize,
    n: usize,
) -> u128 {
    sum_frame::<W>(
        words,
        offset,
        n,
        (512 / W as usize, 64, 0),
        true,
        |bytes, at| {
            let mut acc = _mm512_setzero_si512();
            at.each(|b, _| {
                // SAFETY: `b + 64 <= bytes.len()` (`sum_frame`).
                let v = unsafe { load64(bytes, b) };
                acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(v));
            });
            lanes_sum(acc)
        },
    )
}

/// Vectors in a step of [`sum_csa_avx512`]: the fewest 64-byte vectors
/// that hold whole `w`-bit values, so that every step's bits have the same
/// places in their values (1 for 2 and 4 bits, 3 for 3 and 6, 5 for 5).
const fn csa_phases(w: u32) -> usize {
    let mut p: usize = 1;
    while !(512 * p).is_multiple_of(w as usize) {
        p += 1;
    }
    p
}

/// Largest `W` and step ([`csa_phases`]) of [`sum_csa_avx512`].
const CSA_W: usize = 6;
const CSA_P: usize = 5;

/// `masks[p][b]`: the bits of vector `p` of a [`sum_csa_avx512`] step that
/// are bit `b` of their `w`-bit value (bit `i` of the vector is bit `512p +
/// i` of the step, whose first value starts at bit 0).
const fn place_masks(w: u32) -> [[[u64; 8]; CSA_W]; CSA_P] {
    let mut m = [[[0u64; 8]; CSA_W]; CSA_P];
    let mut p = 0;
    while p < csa_phases(w) {
        let mut i = 0;
        while i < 512 {
            let b = (512 * p + i) % w as usize;
            m[p][b][i / 64] |= 1 << (i % 64);
            i += 1;
        }
        p += 1;
    }
    m
}

/// A carry-save adder of three vectors, bit by bit: `(carry, sum)`, the
/// majority and the parity of each bit's three inputs (one `vpternlogq`
/// each).
#[target_feature(enable = "avx512f")]
#[inline]
fn csa(a: __m512i, b: __m512i, c: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_ternarylogic_epi64::<0xe8>(a, b, c),
        _mm512_ternarylogic_epi64::<0x96>(a, b, c),
    )
}

/// The longest stream, in bytes, that [`sum_csa_avx512`] sums by its
/// carry-save trees at `w` bits; a longer one, which may come from memory
/// rather than the caches, takes [`sum_from_memory`]: 12 MiB, and 8 MiB at
/// 4 bits, whose byte sum is cheaper. Measured on AMD Zen 4 (a 32 MiB L3
/// shared with other machines), the same stream summed again and again
/// (warm, as a benchmark runs it), trees against the fold or byte sum:
///
/// - 2, 3, 5 and 6 bits: the trees took 0.53-0.84x the time from 0.4 to 6
///   MiB (`sum_sizes`), 0.62-0.89x from 8 to 12 MiB in two runs, 0.81-1.03x
///   at 14 MiB, 0.88-2.75x at 16 MiB and 1.07-1.84x at 20 MiB; 1.3-2.6x
///   at 24-48 MiB, where the fold runs at 1.1-1.3x the read floor
///   (`sum/67108864`).
/// - 4 bits: 0.94x at 8 MiB, 1.02x at 10 MiB and 1.14-1.31x from 12 MiB.
///
/// See `BENCHMARKS.md` ("AVX-512 carry-save sums").
pub(crate) const fn csa_max_bytes(w: u32) -> usize {
    if w == 4 { 8 << 20 } else { 12 << 20 }
}

/// [`sum_csa_avx512`]'s sum of a stream longer than [`csa_max_bytes`]: the
/// byte sum at 2 and 4 bits, the digit fold at 3, 5 and 6 (with VBMI's
/// `vpermb` where the CPU has it).
///
/// # Safety
///
/// The CPU must support AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn sum_from_memory<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    if W == 2 || W == 4 {
        // SAFETY: the CPU has AVX-512 F and BW.
        unsafe { sum_bytes_avx512::<W>(words, offset, n) }
    } else if super::features() & super::AVX512_VBMI == super::AVX512_VBMI {
        // SAFETY: VBMI is in the detected features, F and BW are this
        // function's.
        unsafe { sum_fold_avx512::<W>(words, offset, n) }
    } else {
        // SAFETY: AVX-512 F implies AVX2.
        unsafe { sum_fold_avx2::<W>(words, offset, n) }
    }
}

/// Sum of `W`-bit elements for `W` in `2..=6` by counting bits in place: a
/// value's bits have weights `1, 2, ..., 2^(W-1)`, so the sum of a stream
/// is `sum over b of 2^b * (the number of ones at bit b of a value)`, and
/// those counts are popcounts of the stream's bits under the masks of
/// their places ([`place_masks`]). A step is the [`csa_phases`] vectors
/// after which the places repeat; each of its vectors feeds a
/// Harley–Seal tree of carry-save adders (two `vpternlogq` per input
/// vector, bit by bit: the ones, twos, fours and eights of each bit over
/// the steps so far, one set per vector of the step), and every 16 steps
/// the tree's sixteens are counted, one `vpandq` and `vpopcntq` per place
/// (at 4 bits, whose places are a byte's two nibbles, two `vpsadbw`: the
/// bytes' sums `l + 16 h` and the low nibbles' `l`). So a 64-byte load
/// costs about two `vpternlogq` and `3W / 16` more uops, where the byte
/// sums and digit folds take five to eight. Where a step has several
/// vectors (3, 5 and 6 bits), each run of 16 steps goes through the
/// vectors' trees in turn, so that the loads follow the stream and the
/// trees' chains of adders overlap; where it has one (2 and 4 bits), two
/// trees take the runs in turn, since a tree's adders are a chain eight
/// deep a run through its ones, which held back the next run's (16 loads
/// and 30 `vpternlogq` took 1.3x the time of the same in six independent
/// chains, measured on AMD Zen 4). The steps after the last 16 take one
/// more run, padded with zero vectors (counting them one by one cost `3W`
/// uops each, a third of a 65,536-value call at 5 bits); and the trees'
/// levels are counted once at the end, each level's counts over the
/// vectors of a step weighed together.
///
/// A count needs no value boundaries, so the steps start at the first
/// 64-byte line of the stream's bytes inside the call (a load across two
/// lines costs about two), wherever that falls in a value: the places of
/// the steps' bits are then rotated by `r` (bit `8 * start` is place `r`
/// of its value), which only changes which weight each mask's count
/// gets. The whole bytes before the first step are one zero-masked load
/// (the vector before it), those after the last are up to a step of
/// zero-masked loads, and the at most 7 bits at either end that are not a
/// whole byte are added one by one. Short calls take the portable sum,
/// and calls of more than [`csa_max_bytes`] the byte sum or the digit fold
/// ([`sum_from_memory`]).
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VPOPCNTDQ.
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq")]
pub(crate) unsafe fn sum_csa_avx512<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    const {
        let p = csa_phases(W);
        assert!(W >= 2 && W as usize <= CSA_W && (p == 1 || p == 3 || p == 5));
    };
    let (w, phases) = (W as usize, const { csa_phases(W) });
    let step = 64 * phases;
    let bytes: &[u8] = bytemuck::cast_slice(words);
    // The call's bits, its whole bytes, and the first line among them.
    let (s0, e) = (offset * w, (offset + n) * w);
    let (c0, c1) = (s0.div_ceil(8), (e / 8).min(bytes.len()));
    if c1.saturating_sub(c0) > csa_max_bytes(W) {
        // SAFETY: the CPU has AVX-512 F and BW (this function's features).
        return unsafe { sum_from_memory::<W>(words, offset, n) };
    }
    let first = first_line(bytes, c0);
    if c1 < first + step {
        return scalar::sum::<W>(words, offset, n);
    }
    let steps = (c1 - first) / step;
    let last = first + steps * step;
    // Place of bit `8 * first` in its value; the masks' places are
    // relative to it.
    let r = (8 * first - s0) % w;
    let masks = const { place_masks(W) };
    let mask = |p: usize, b: usize| v512_u64(masks[p][b]);
    let zero = _mm512_setzero_si512();
    // The vector `p` of step `s`.
    let load = |s: usize, p: usize| {
        // SAFETY: `s < steps`, so the step's bytes, `first + step * s..`
        // up to `last <= c1 <= bytes.len()`, are inside `bytes`.
        unsafe { load64(bytes, first + step * s + 64 * p) }
    };
    // The bytes `lo..hi` of the 64 before byte `end` (the rest zero);
    // `lo..hi` is inside `bytes`, the 64 bytes may begin before it.
    let masked = |end: usize, lo: usize, hi: usize| {
        debug_assert!(lo + 64 >= end && lo <= hi && hi <= end && hi <= bytes.len());
        let below = |k: usize| if k >= 64 { u64::MAX } else { (1 << k) - 1 };
        let keep = below(hi + 64 - end) & !below(lo + 64 - end);
        let ptr = bytes.as_ptr().wrapping_add(end).wrapping_sub(64);
        // SAFETY: the mask keeps the bytes `lo..hi`, which are inside
        // `bytes`; the others are not accessed (a masked load neither
        // reads nor faults on them).
        unsafe { _mm512_maskz_loadu_epi8(keep, ptr.cast()) }
    };
    let low_nibbles = _mm512_set1_epi8(0x0f);
    // The count of `x`'s bits in each of vector `p`'s places, as 64-bit
    // lanes, added to `acc`. At 4 bits (whose places are a byte's nibbles
    // in every vector, `r` being 0) by two `vpsadbw` instead of four
    // `vpopcntq`: `acc[0]` takes the sums of the bytes, each `l + 16 h` of
    // its nibbles, and `acc[1]` the sums of the low nibbles `l`.
    let tally = |acc: &mut [__m512i; CSA_W], x: __m512i, p: usize| {
        if W == 4 {
            let l = _mm512_sad_epu8(_mm512_and_si512(x, low_nibbles), zero);
            acc[0] = _mm512_add_epi64(acc[0], _mm512_sad_epu8(x, zero));
            acc[1] = _mm512_add_epi64(acc[1], l);
            return;
        }
        for (b, acc) in acc.iter_mut().enumerate().take(w) {
            let c = _mm512_popcnt_epi64(_mm512_and_si512(x, mask(p, b)));
            *acc = _mm512_add_epi64(*acc, c);
        }
    };
    // Per vector of a step: the ones, twos, fours and eights of each bit
    // (and a `second` tree where a step is one vector).
    let mut tree = [[zero; 4]; CSA_P];
    let mut second = [zero; 4];
    let mut sixteens = [zero; CSA_W];
    let mut ones = [zero; CSA_W];
    let whole = steps / 16;
    // The steps after the last 16 take one more run of the trees, their
    // missing vectors zero, where there are whole runs to flush anyway: a
    // count per vector costs `3W` uops, a run about two per vector.
    let rest = steps - 16 * whole;
    // Without a whole run, each step's vectors are counted one by one.
    let trees = whole > 0;
    // Run `t` of vector `p`'s tree `o, tw, f, e`, of its first `have`
    // steps (a macro: as a closure, the trees went through memory).
    macro_rules! run {
        ($p:expr, $t:expr, $have:expr, $o:ident, $tw:ident, $f:ident, $e:ident) => {{
            let (p, t, have) = ($p, $t, $have);
            let x = |k: usize| if k < have { load(16 * t + k, p) } else { zero };
            let mut eights = [zero; 2];
            for (h, eights) in eights.iter_mut().enumerate() {
                let k = 8 * h;
                let (ta, o1) = csa($o, x(k), x(k + 1));
                let (tb, o2) = csa(o1, x(k + 2), x(k + 3));
                let (fa, t1) = csa($tw, ta, tb);
                let (ta, o3) = csa(o2, x(k + 4), x(k + 5));
                let (tb, o4) = csa(o3, x(k + 6), x(k + 7));
                let (fb, t2) = csa(t1, ta, tb);
                let (ea, f1) = csa($f, fa, fb);
                ($o, $tw, $f, *eights) = (o4, t2, f1, ea);
            }
            let (s16, e1) = csa($e, eights[0], eights[1]);
            $e = e1;
            tally(&mut sixteens, s16, p);
        }};
    }
    // Steps of several vectors: each run goes through the vectors' trees
    // in turn, so that the loads go through the stream in order and the
    // trees' chains of adders overlap.
    macro_rules! in_turn {
        ($($p:literal: $o:ident $tw:ident $f:ident $e:ident),*) => {{
            $(let [mut $o, mut $tw, mut $f, mut $e] = tree[$p];)*
            for t in 0..whole {
                $(run!($p, t, 16, $o, $tw, $f, $e);)*
            }
            if rest > 0 {
                $(run!($p, whole, rest, $o, $tw, $f, $e);)*
            }
            $(tree[$p] = [$o, $tw, $f, $e];)*
        }};
    }
    if !trees {
        for s in 0..steps {
            for p in 0..phases {
                tally(&mut ones, load(s, p), p);
            }
        }
    } else if phases == 3 {
        in_turn!(0: o0 tw0 f0 e0, 1: o1 tw1 f1 e1, 2: o2 tw2 f2 e2);
    } else if phases == 5 {
        in_turn!(0: o0 tw0 f0 e0, 1: o1 tw1 f1 e1, 2: o2 tw2 f2 e2, 3: o3 tw3 f3 e3, 4: o4 tw4 f4 e4);
    } else {
        // One vector a step: two trees take the runs in turn (one tree's
        // chain of adders, eight deep a run through its ones, held back
        // the next run's).
        let [mut o, mut tw, mut f, mut e] = tree[0];
        let [mut o2, mut tw2, mut f2, mut e2] = second;
        let mut t = 0;
        while t + 2 <= whole {
            run!(0, t, 16, o, tw, f, e);
            run!(0, t + 1, 16, o2, tw2, f2, e2);
            t += 2;
        }
        if t < whole {
            run!(0, t, 16, o, tw, f, e);
        }
        if rest > 0 {
            run!(0, whole, rest, o2, tw2, f2, e2);
        }
        tree[0] = [o, tw, f, e];
        second = [o2, tw2, f2, e2];
    }
    // The whole bytes before the steps: in the vector before the first,
    // the last of a step (`512 (phases - 1)` bits on from a step's start
    // is place `-512` of it, modulo `W`).
    if c0 < first {
        tally(&mut ones, masked(first, c0, first), phases - 1);
    }
    // The whole bytes after them, by vectors of the next step.
    for p in 0..phases {
        let at = last + 64 * p;
        if at < c1 {
            tally(&mut ones, masked(at + 64, at, c1.min(at + 64)), p);
        }
    }
    // Every count per place, by weight: the trees' levels (1, 2, 4, 8),
    // the sixteens, and the ones counted directly. A lane of a place's
    // counts is at most its bits in the whole stream, so no lane wraps.
    let mut by_place = [zero; CSA_W];
    for (b, v) in by_place.iter_mut().enumerate().take(w) {
        *v = _mm512_add_epi64(_mm512_slli_epi64::<4>(sixteens[b]), ones[b]);
    }
    if trees {
        // Each level's counts over the vectors of a step, then weighed.
        let mut levels = [[zero; CSA_W]; 4];
        for (p, tree) in tree.iter().enumerate().take(phases) {
            for (level, &x) in levels.iter_mut().zip(tree) {
                tally(level, x, p);
            }
        }
        if phases == 1 {
            for (level, &x) in levels.iter_mut().zip(&second) {
                tally(level, x, 0);
            }
        }
        for (l, level) in levels.iter().enumerate() {
            for (v, &c) in by_place.iter_mut().zip(level).take(w) {
                *v = _mm512_add_epi64(*v, _mm512_sll_epi64(c, count(l as u32)));
            }
        }
    }
    let mut total = 0u128;
    if W == 4 {
        // The sums of the bytes `l + 16 h` and of the low nibbles `l`.
        debug_assert_eq!(r, 0);
        let (bytes_sum, lows) = (lanes_sum(by_place[0]), lanes_sum(by_place[1]));
        total += lows + (bytes_sum - lows) / 16;
    } else {
        for (b, &v) in by_place.iter().enumerate().take(w) {
            total += lanes_sum(v) << ((b + r) % w);
        }
    }
    // The bits before the first whole byte and after the last, one by one.
    let bit = |i: usize| u128::from((bytes[i / 8] >> (i % 8)) & 1) << ((i - s0) % w);
    total += (s0..(8 * c0).min(e)).map(bit).sum::<u128>();
    total += ((8 * c1).max(s0)..e).map(bit).sum::<u128>();
    total
}

/// Sum of the eight 64-bit lanes.
#[target_feature(enable = "avx512f")]
#[inline]
fn lanes_sum(v: __m512i) -> u128 {
    lane_total(&bytes512(v), 8)
}

/// The 64 bytes of `v` (`bytemuck` has no `__m512i`).
#[target_feature(enable = "avx512f")]
#[inline]
fn bytes512(v: __m512i) -> [u8; 64] {
    let halves: [[u8; 32]; 2] = [
        bytemuck::cast(_mm512_castsi512_si256(v)),
        bytemuck::cast(_mm512_extracti64x4_epi64::<1>(v)),
    ];
    bytemuck::cast(halves)
}

/// Sum of `W`-bit elements for `W` in {2, 4, 8}, as `sum_bytes_avx2` does
/// it on 64-byte loads: each byte's field sum is two `vpshufb` lookups of
/// its nibbles' field sums (`W == 2`) or the sum of its nibbles (`W == 4`),
/// byte sums accumulate in 8-bit lanes for as many steps as cannot
/// overflow, and `vpsadbw` adds each 8 bytes into a 64-bit lane.
///
/// # Safety
///
/// The CPU must support AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn sum_bytes_avx512<const W: u32>(
    words: &[u64],
    offset: usize,
    n: usize,
) -> u128 {
    byte_sum! {
        (words, offset, n), 64, load64, v512(const { nibble_sums::<64>(W) }), lanes_sum,
        [
            _mm512_set1_epi8, _mm512_setzero_si512, _mm512_and_si512, _mm512_srli_epi16,
            _mm512_shuffle_epi8, _mm512_add_epi8, _mm512_add_epi64, _mm512_sad_epu8
        ]
    }
}

// ---------------------------------------------------------------------------
// sum, W in {16, 32, 64}
// ---------------------------------------------------------------------------

/// The lanes of [`sum_wide_avx2`] and [`sum_wide_avx512`] at `W` bits: each
/// lane (`2W` bits, at most 64) holds a low half `a` and a high half `b` of
/// `S` bits each, half a lane (two values a lane at 16 and 32 bits; at 64
/// bits a value's halves); `(lane bits, the weight of b's sum as a
/// shift)`.
const fn wide_lanes(w: u32) -> (u32, u32) {
    match w {
        16 => (32, 0),
        32 => (64, 0),
        _ => (64, 32),
    }
}

/// The wide sums ([`sum_wide_avx2`], [`sum_wide_avx512`]) in the
/// [`sum_frame`], one body for both vector widths. A step adds its vector
/// into `all` in lanes of `2S` bits (wrapping) and its high halves `b` into
/// `highs`: two adds and a shift, where widening the values would take
/// four. `highs` is exact, and `all` holds `sum a + 2^S sum b` modulo
/// `2^2S`, so `all - (highs << S)` is `sum a`, exact while it fits a lane:
/// at most `2^S` steps a batch (65,536 at 16 bits). Each batch's lanes are
/// added into a `u128`.
macro_rules! wide_sum {
    (
        ($words:expr, $offset:expr, $n:expr), $vbytes:literal, $load:ident, $zero:ident,
        $bytes:expr, [$add32:ident, $add64:ident, $sub32:ident, $sub64:ident, $srli32:ident,
        $srli64:ident, $slli32:ident, $slli64:ident]
    ) => {{
        const { assert!(W == 16 || W == 32 || W == 64) };
        let (lane, weight) = const { wide_lanes(W) };
        let batch: usize = 1 << (lane / 2).min(24);
        // The sum of a vector's lanes of `lane` bits.
        let lanes = |v| -> u128 {
            let b: [u8; $vbytes] = $bytes(v);
            lane_total(&b, lane as usize / 8)
        };
        let geometry = (8 * $vbytes / W as usize, $vbytes, 0);
        sum_frame::<W>($words, $offset, $n, geometry, $vbytes == 64, |bytes, at| {
            let mut total = 0u128;
            let mut i = 0;
            while i < at.steps {
                let end = (i + batch).min(at.steps);
                let (mut all, mut highs) = ($zero(), $zero());
                while i < end {
                    // SAFETY: `i < at.steps`, so the load ends inside
                    // `bytes` (`sum_frame`).
                    let v = unsafe { $load(bytes, at.first + $vbytes * i) };
                    if lane == 32 {
                        all = $add32(all, v);
                        highs = $add32(highs, $srli32::<16>(v));
                    } else {
                        all = $add64(all, v);
                        highs = $add64(highs, $srli64::<32>(v));
                    }
                    i += 1;
                }
                let lows = if lane == 32 {
                    $sub32(all, $slli32::<16>(highs))
                } else {
                    $sub64(all, $slli64::<32>(highs))
                };
                total += lanes(lows) + (lanes(highs) << weight);
            }
            total
        })
    }};
}

/// Sum of `W`-bit elements for `W` in {16, 32, 64}, whose values start on
/// bytes: per 32-byte load one add into lanes of `2W` bits (64 at 64 bits)
/// and one add of the lanes' high halves (see `wide_sum!`), where the
/// portable sum extracts each value.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn sum_wide_avx2<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    wide_sum! {
        (words, offset, n), 32, load32, _mm256_setzero_si256, bytemuck::cast::<__m256i, [u8; 32]>,
        [
            _mm256_add_epi32, _mm256_add_epi64, _mm256_sub_epi32, _mm256_sub_epi64,
            _mm256_srli_epi32, _mm256_srli_epi64, _mm256_slli_epi32, _mm256_slli_epi64
        ]
    }
}

/// [`sum_wide_avx2`] on 64-byte loads, which start on the stream's first
/// 64-byte line ([`line_lead`]).
///
/// # Safety
///
/// The CPU must support AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn sum_wide_avx512<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    wide_sum! {
        (words, offset, n), 64, load64, _mm512_setzero_si512, bytes512,
        [
            _mm512_add_epi32, _mm512_add_epi64, _mm512_sub_epi32, _mm512_sub_epi64,
            _mm512_srli_epi32, _mm512_srli_epi64, _mm512_slli_epi32, _mm512_slli_epi64
        ]
    }
}

// ---------------------------------------------------------------------------
// sum, W in 9..=25
// ---------------------------------------------------------------------------

/// Steps a batch of [`sum_spread_avx2`] and [`sum_spread_avx512`] at `W`
/// bits, and whether a step shifts each value down before it adds: a
/// value gathered into its `u32` lane sits `s` bits up (`s` below 8, the
/// place of its first bit in its first byte), so unshifted it is below
/// `2^(W + 7)` and a lane takes `2^(25 - W)` of them; shifted, `2^(32 - W)`.
/// Up to 16 bits the lanes keep their values unshifted (one instruction a
/// step fewer, batches of 512 steps or more), and each batch's lanes are
/// shifted once: the sum of `v << s` is the sum of `v`, shifted.
const fn spread_batch(w: u32) -> (usize, bool) {
    if w <= 16 {
        (1 << (25 - w), false)
    } else {
        (1 << (32 - w), true)
    }
}

/// The spread sums ([`sum_spread_avx2`], [`sum_spread_avx512`]) in the
/// [`sum_frame`], one body for both vector widths: `$gather(bytes, at)`
/// puts each value of the step at `at` into its `u32` lane, `s` bits up
/// (the bytes of the unpack to `u32`); the lanes are masked to the values'
/// bits (`2^W - 1` shifted by each lane's `s`, the shifts `$sh`), or
/// shifted down first and masked to `W` bits, and added; each batch's lanes, shifted
/// down where they were not, are added into a `u128`.
macro_rules! spread_sum {
    (
        ($words:expr, $offset:expr, $n:expr), ($per:expr, $span:expr), $gather:expr,
        $sh:expr, $vbytes:literal, $bytes:expr,
        [$from_u32:ident, $set1_32:ident, $zero:ident, $and:ident, $srlv:ident, $add32:ident]
    ) => {{
        const { assert!(W >= 9 && W <= 25) };
        let (batch, shift_first) = const { spread_batch(W) };
        let sh = $sh;
        let masks = $from_u32(sh.map(|s| (mask64(W) as u32) << s));
        let (sh, low) = ($from_u32(sh), $set1_32(mask64(W) as i32));
        sum_frame::<W>($words, $offset, $n, ($per, $span, 0), false, |bytes, at| {
            let mut total = 0u128;
            let mut i = 0;
            while i < at.steps {
                let end = (i + batch).min(at.steps);
                let mut acc = $zero();
                while i < end {
                    let g = $gather(bytes, at.first + at.stride() * i);
                    let x = if shift_first {
                        $and($srlv(g, sh), low)
                    } else {
                        $and(g, masks)
                    };
                    acc = $add32(acc, x);
                    i += 1;
                }
                if !shift_first {
                    acc = $srlv(acc, sh);
                }
                let b: [u8; $vbytes] = $bytes(acc);
                total += lane_total(&b, 4);
            }
            total
        })
    }};
}

/// Sum of `W`-bit elements for `W` in `9..=25`, 8 a step: each element's
/// bytes gathered into its dword by `pshufb` from one 16-byte window
/// broadcast to both halves (or each half's own window), as the unpack to
/// `u32` does, then masked and added in `u32` lanes (see `spread_sum!`):
/// three or four instructions a step where the portable sum folds every
/// word.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn sum_spread_avx2<const W: u32>(words: &[u64], offset: usize, n: usize) -> u128 {
    let (c0, _, sh) = const { unpack_u32_consts(W, 0) };
    let ctrl = v256(c0);
    let hi = const { u32_window(W, 1, 0).0 };
    spread_sum! {
        (words, offset, n), (8, hi + 16),
        |bytes: &[u8], at: usize| {
            let v = if unpack_u32_bcast(W) {
                // SAFETY: `at + 16 <= bytes.len()` (`sum_frame`: a step
                // reads its `hi + 16` bytes, `hi` 0 here).
                unsafe { bcast16(bytes, at) }
            } else {
                // SAFETY: `at + hi + 16 <= bytes.len()` (`sum_frame`).
                unsafe { load2(bytes, at, at + hi) }
            };
            _mm256_shuffle_epi8(v, ctrl)
        },
        sh, 32, bytemuck::cast::<__m256i, [u8; 32]>,
        [
            v256_u32, _mm256_set1_epi32, _mm256_setzero_si256, _mm256_and_si256, _mm256_srlv_epi32,
            _mm256_add_epi32
        ]
    }
}

/// [`sum_spread_avx2`] on 64-byte loads, 16 elements a step: one `vpermb`
/// gathers each element's bytes into its dword.
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn sum_spread_avx512<const W: u32>(
    words: &[u64],
    offset: usize,
    n: usize,
) -> u128 {
    let (c0, _, sh) = const { unpack_u32_consts512(W, 0) };
    let ctrl = v512(c0);
    spread_sum! {
        (words, offset, n), (16, 64),
        |bytes: &[u8], at: usize| {
            // SAFETY: `at + 64 <= bytes.len()` (`sum_frame`).
            _mm512_permutexvar_epi8(ctrl, unsafe { load64(bytes, at) })
        },
        sh, 64, bytes512,
        [
            v512_u32, _mm512_set1_epi32, _mm512_setzero_si512, _mm512_and_si512, _mm512_srlv_epi32,
            _mm512_add_epi32
        ]
    }
}
