//! Sum variants: POPCNT and AVX-512 VPOPCNTDQ (1 bit), byte sums (AVX2 and
//! AVX-512 BW: 1, 2, 4, 8 bits), and the split digit fold (AVX2 and AVX-512
//! VBMI: 3, 5, 6, 7 bits); see the module docs of `kernels`.

use core::arch::x86_64::*;

use super::simd::*;
use super::unpack::{low_base, skip_steps};

// ---------------------------------------------------------------------------
// sum, W in 1..=8
// ---------------------------------------------------------------------------

/// Horizontal sum of the four 64-bit lanes.
#[inline(always)]
fn hsum4(v: __m256i) -> u128 {
    let l: [u64; 4] = bytemuck::cast(v);
    l.iter().map(|&x| x as u128).sum()
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
    let head = head8(offset, n);
    let mut total = scalar::sum::<W>(words, offset, head);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let w = W as usize;
    let per_step = 256 / w;
    let first = (offset + head) * w / 8;
    let steps = steps_within(first, 32, 32, bytes.len(), (n - head) / per_step);
    assert!(steps == 0 || first + 32 * steps <= bytes.len());
    // Largest byte sum one step adds, and how many steps a byte holds.
    let per_byte: usize = if W == 8 {
        255
    } else {
        (8 / w) * ((1 << w) - 1)
    };
    let batch = (255 / per_byte).max(1);
    let m4 = _mm256_set1_epi8(0x0f);
    // Field sums of a nibble: 4 one-bit fields or 2 two-bit fields.
    let lut = v256(core::array::from_fn(|i| {
        let n = (i % 16) as u8;
        if W == 1 {
            n.count_ones() as u8
        } else {
            (n & 3) + (n >> 2)
        }
    }));
    let zero = _mm256_setzero_si256();
    let mut acc = zero;
    let mut s = 0;
    while s < steps {
        let end = (s + batch).min(steps);
        let mut bsum = zero;
        while s < end {
            // SAFETY: `s < steps`, so `first + 32 * s + 32 <= bytes.len()`
            // (asserted above).
            let mut v = unsafe { load32(bytes, first + 32 * s) };
            if W <= 2 {
                // A nibble's field sum by table (Mula's popcount for one
                // bit): two lookups per byte.
                let lo = _mm256_and_si256(v, m4);
                let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(v), m4);
                v = _mm256_add_epi8(_mm256_shuffle_epi8(lut, lo), _mm256_shuffle_epi8(lut, hi));
            } else if W == 4 {
                v = _mm256_add_epi8(
                    _mm256_and_si256(v, m4),
                    _mm256_and_si256(_mm256_srli_epi16::<4>(v), m4),
                );
            }
            if W == 8 {
                acc = _mm256_add_epi64(acc, _mm256_sad_epu8(v, zero));
            } else {
                bsum = _mm256_add_epi8(bsum, v);
            }
            s += 1;
        }
        if W != 8 {
            acc = _mm256_add_epi64(acc, _mm256_sad_epu8(bsum, zero));
        }
    }
    total += hsum4(acc);
    let done = head + steps * per_step;
    total + scalar::sum::<W>(words, offset + done, n - done)
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

/// Sum of the `s`-bit slots of each 64-bit lane (see `scalar::hsum`).
#[target_feature(enable = "avx2")]
#[inline]
fn hsum_lanes(mut x: __m256i, mut s: u32) -> __m256i {
    while s < 64 {
        let m = splat64(rep_mask(s, 2 * s));
        x = _mm256_add_epi64(
            _mm256_and_si256(x, m),
            _mm256_and_si256(_mm256_srl_epi64(x, count(s)), m),
        );
        s *= 2;
    }
    x
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
    let head = head8(offset, n);
    let mut total = scalar::sum::<W>(words, offset, head);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let w = W as usize;
    let kw = groups_per_lane(W) * w;
    // A step: 4 lanes of K groups, `4KW` bytes from byte `at`, loaded as 32
    // bytes from `at + 2KW - 16`.
    let per_step = 32 * groups_per_lane(W);
    let back = low_base(2 * kw);
    let g0 = (offset + head) / 8 * w;
    let skip = skip_steps(g0, 4 * kw, back).min((n - head) / per_step);
    total += scalar::sum::<W>(words, offset + head, per_step * skip);
    let head = head + per_step * skip;
    let (first, steps) = match (g0 + 4 * kw * skip).checked_sub(back) {
        Some(f) => (
            f,
            steps_within(f, 4 * kw, 32, bytes.len(), (n - head) / per_step),
        ),
        None => (0, 0),
    };
    assert!(steps == 0 || first + (steps - 1) * 4 * kw + 32 <= bytes.len());
    let shuf = v256(sum_shuffle(W));
    let fields = mask64(8 * kw as u32);
    let odd = splat64(rep_mask(W, 2 * W) << W & fields);
    let m4 = splat64(rep_mask(2 * W, 4 * W));
    // Steps per combine: a `2W`-bit slot of the even or the odd fields gains
    // at most `2^W - 1` a step. Combines per reduction of the `4W`-bit slots,
    // which gain at most `4 (2^(2W) - 1)` a combine.
    let r1 = (mask64(2 * W) / mask64(W)) as usize;
    let r2 = (mask64(4 * W) / (4 * mask64(2 * W))).min(1 << 20) as usize;
    let zero = _mm256_setzero_si256();
    let mut lanes = zero;
    let mut acc2 = zero;
    let mut combines = 0;
    let mut s = 0;
    while s < steps {
        let end = (s + r1).min(steps);
        let mut all = zero;
        let mut odds = zero;
        while s < end {
            // SAFETY: `s < steps`, so the load ends inside `bytes` (asserted
            // above).
            let v = _mm256_shuffle_epi8(unsafe { load32(bytes, first + 4 * kw * s) }, shuf);
            all = _mm256_add_epi64(all, v);
            odds = _mm256_add_epi64(odds, _mm256_and_si256(v, odd));
            s += 1;
        }
        // `all` may have wrapped, but `all - odds`, the even slots, did not.
        let evens = _mm256_sub_epi64(all, odds);
        let odds = _mm256_srl_epi64(odds, count(W));
        let fold = |x: __m256i| {
            _mm256_add_epi64(
                _mm256_and_si256(x, m4),
                _mm256_and_si256(_mm256_srl_epi64(x, count(2 * W)), m4),
            )
        };
        acc2 = _mm256_add_epi64(acc2, _mm256_add_epi64(fold(evens), fold(odds)));
        combines += 1;
        if combines == r2 {
            lanes = _mm256_add_epi64(lanes, hsum_lanes(acc2, 4 * W));
            acc2 = zero;
            combines = 0;
        }
    }
    lanes = _mm256_add_epi64(lanes, hsum_lanes(acc2, 4 * W));
    total += hsum4(lanes);
    let done = head + steps * per_step;
    total + scalar::sum::<W>(words, offset + done, n - done)
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

/// Sum of the `s`-bit slots of each 64-bit lane (see `scalar::hsum`).
#[target_feature(enable = "avx512f")]
#[inline]
fn hsum_lanes512(mut x: __m512i, mut s: u32) -> __m512i {
    while s < 64 {
        let m = splat64x8(rep_mask(s, 2 * s));
        x = _mm512_add_epi64(
            _mm512_and_si512(x, m),
            _mm512_and_si512(_mm512_srl_epi64(x, count(s)), m),
        );
        s *= 2;
    }
    x
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
    let head = head8(offset, n);
    let mut total = scalar::sum::<W>(words, offset, head);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let w = W as usize;
    let kw = groups_per_lane(W) * w;
    let per_step = 64 * groups_per_lane(W);
    let first = (offset + head) / 8 * w;
    let steps = steps_within(first, 8 * kw, 64, bytes.len(), (n - head) / per_step);
    assert!(steps == 0 || first + (steps - 1) * 8 * kw + 64 <= bytes.len());
    let (perm, keep) = sum_perm(W);
    let perm = v512(perm);
    let odd = splat64x8(rep_mask(W, 2 * W) << W & mask64(8 * kw as u32));
    let m4 = splat64x8(rep_mask(2 * W, 4 * W));
    // As in `sum_fold_avx2`: steps per combine (a `2W`-bit slot of either
    // parity gains at most `2^W - 1` a step) and combines per reduction of
    // the `4W`-bit slots (each gains at most `4 (2^(2W) - 1)` a combine).
    let r1 = (mask64(2 * W) / mask64(W)) as usize;
    let r2 = (mask64(4 * W) / (4 * mask64(2 * W))).min(1 << 20) as usize;
    let zero = _mm512_setzero_si512();
    let mut lanes = zero;
    let mut acc2 = zero;
    let mut combines = 0;
    let mut s = 0;
    while s < steps {
        let end = (s + r1).min(steps);
        let mut all = zero;
        let mut odds = zero;
        while s < end {
            // SAFETY: `s < steps`, so the load ends inside `bytes` (asserted
            // above).
            let v = unsafe { load64(bytes, first + 8 * kw * s) };
            let v = _mm512_maskz_permutexvar_epi8(keep, perm, v);
            all = _mm512_add_epi64(all, v);
            odds = _mm512_add_epi64(odds, _mm512_and_si512(v, odd));
            s += 1;
        }
        let evens = _mm512_sub_epi64(all, odds);
        let odds = _mm512_srl_epi64(odds, count(W));
        let fold = |x: __m512i| {
            _mm512_add_epi64(
                _mm512_and_si512(x, m4),
                _mm512_and_si512(_mm512_srl_epi64(x, count(2 * W)), m4),
            )
        };
        acc2 = _mm512_add_epi64(acc2, _mm512_add_epi64(fold(evens), fold(odds)));
        combines += 1;
        if combines == r2 {
            lanes = _mm512_add_epi64(lanes, hsum_lanes512(acc2, 4 * W));
            acc2 = zero;
            combines = 0;
        }
    }
    lanes = _mm512_add_epi64(lanes, hsum_lanes512(acc2, 4 * W));
    total += lanes_sum(lanes);
    let done = head + steps * per_step;
    total + scalar::sum::<W>(words, offset + done, n - done)
}

// ---------------------------------------------------------------------------
// sum, W in {1, 2, 4, 8}
// ---------------------------------------------------------------------------

/// A sum of `n` values of `W` bits from `offset` whose byte-aligned middle
/// `middle(bytes, first, steps)` adds in `steps` 64-byte steps from byte
/// `first` (`512 / W` values each; `first + 64 * steps <= bytes.len()`,
/// asserted here); the head and the tail go to the portable sum.
#[inline(always)]
fn sum_by_steps64<const W: u32>(
    words: &[u64],
    offset: usize,
    n: usize,
    middle: impl FnOnce(&[u8], usize, usize) -> u128,
) -> u128 {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let per_step = 512 / W as usize;
    let head = head8(offset, n);
    let first = (offset + head) * W as usize / 8;
    let steps = steps_within(first, 64, 64, bytes.len(), (n - head) / per_step);
    assert!(steps == 0 || first + 64 * steps <= bytes.len());
    let done = head + steps * per_step;
    scalar::sum::<W>(words, offset, head)
        + middle(bytes, first, steps)
        + scalar::sum::<W>(words, offset + done, n - done)
}

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
    sum_by_steps64::<W>(words, offset, n, |bytes, first, steps| {
        let mut acc = _mm512_setzero_si512();
        for s in 0..steps {
            // SAFETY: `s < steps`, so `first + 64 s + 64 <= bytes.len()`
            // (asserted by `sum_by_steps64`).
            let v = unsafe { load64(bytes, first + 64 * s) };
            acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(v));
        }
        lanes_sum(acc)
    })
}

/// Sum of the eight 64-bit lanes.
#[target_feature(enable = "avx512f")]
#[inline]
fn lanes_sum(v: __m512i) -> u128 {
    let halves: [[u64; 4]; 2] = [
        bytemuck::cast(_mm512_castsi512_si256(v)),
        bytemuck::cast(_mm512_extracti64x4_epi64::<1>(v)),
    ];
    halves.as_flattened().iter().map(|&x| x as u128).sum()
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
    sum_by_steps64::<W>(words, offset, n, |bytes, first, steps| {
        let w = W as usize;
        // Largest byte sum one step adds, and how many steps a byte holds.
        let per_byte: usize = if W == 8 {
            255
        } else {
            (8 / w) * ((1 << w) - 1)
        };
        let batch = (255 / per_byte).max(1);
        let m4 = _mm512_set1_epi8(0x0f);
        // Field sums of a nibble: 2 two-bit fields.
        let lut = v512(core::array::from_fn(|i| {
            let n = (i % 16) as u8;
            (n & 3) + (n >> 2)
        }));
        let zero = _mm512_setzero_si512();
        let mut acc = zero;
        let mut s = 0;
        while s < steps {
            let end = (s + batch).min(steps);
            let mut bsum = zero;
            while s < end {
                // SAFETY: `s < steps`, so `first + 64 s + 64 <= bytes.len()`
                // (asserted by `sum_by_steps64`).
                let mut v = unsafe { load64(bytes, first + 64 * s) };
                let lo = _mm512_and_si512(v, m4);
                let hi = _mm512_and_si512(_mm512_srli_epi16::<4>(v), m4);
                if W == 2 {
                    v = _mm512_add_epi8(_mm512_shuffle_epi8(lut, lo), _mm512_shuffle_epi8(lut, hi));
                } else if W == 4 {
                    v = _mm512_add_epi8(lo, hi);
                }
                if W == 8 {
                    acc = _mm512_add_epi64(acc, _mm512_sad_epu8(v, zero));
                } else {
                    bsum = _mm512_add_epi8(bsum, v);
                }
                s += 1;
            }
            if W != 8 {
                acc = _mm512_add_epi64(acc, _mm512_sad_epu8(bsum, zero));
            }
        }
        lanes_sum(acc)
    })
}
