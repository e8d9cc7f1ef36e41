//! The float and table-decode variants, AVX2 and AVX-512 side by side: the
//! table decode of 1- to 4-bit codes, the decode of unpacked codes by
//! tables of their `f32` high bytes (`vpermi2b` with AVX-512 VBMI,
//! `vpshufb` nibble tables with AVX2) or through `binary16` (F16C,
//! AVX-512 BW), and the round-to-nearest-even encode (one code per byte,
//! or nibble pairs).
//!
//! Each AVX-512 variant is the 512-bit form of its AVX2 sibling (same
//! arithmetic, twice the lanes), with two changes that only AVX-512 allows:
//! compares write mask registers, so a select is one `vpblendm` instead of a
//! two-uop `vpblendvb`; and the table decode gives every 32-bit lane its
//! code with one `vpmultishiftqb` (VBMI) and looks all 16 table entries up
//! with one `vpermd`, where AVX2 needs two permutes and a blend for 4-bit
//! codes (or, for the `f32`s of a 4-bit float format, two `vpshufb` of
//! the two high bytes: `decode_nib_avx2`). The portable element functions (`float/elem.rs`) do the tails.
//!
//! The encodes ask for their input a line in sixteen ahead
//! (`kernels::prefetch_per_kib`), as the block quantizes do: 16 Mi `f32`
//! values from memory encoded to E2M1 in 0.85x the time without it, to E4M3
//! in 0.82x (AVX2 0.90x and 0.84x), the same in cache.

use core::arch::x86_64::*;

use super::simd::*;
use crate::float::MiniFloat;
use crate::float::elem as mf;
use crate::float::elem::NanCodes;

// ---------------------------------------------------------------------------
// table decode to 4-byte outputs
// ---------------------------------------------------------------------------

/// A table decode of `W`-bit codes from value `offset` of `words` into
/// `dst`, in the [`frame`]: `step(bytes, out, at, i)` decodes `per` values
/// into `dst[i..]` (whose bytes are `out`) from the stream bytes `bytes`,
/// reading at most the `span` bytes from `at`.
///
/// `step` may take `i + per <= dst.len()` and `at + span <= bytes.len()`
/// (asserted by [`Steps::new`]).
#[inline(always)]
fn decode_frame<const W: u32>(
    words: &[u64],
    offset: usize,
    table: &[u32],
    dst: &mut [u32],
    (per, span): (usize, usize),
    mut step: impl FnMut(&[u8], &mut [u8], usize, usize),
) {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let n = dst.len();
    let at = Steps::<W>::new(offset, n, per, span, 0, bytes.len(), Hot::of(dst));
    let unpack = |w: &[u64], o: usize, d: &mut [u8]| scalar::unpack::<W, u8>(w, o, d);
    frame(
        dst,
        (at, n),
        |dst, r| scalar::decode_chunks(unpack, words, offset + r.start, table, &mut dst[r]),
        |dst, at| {
            let out: &mut [u8] = bytemuck::cast_slice_mut(dst);
            at.each(|b, i| step(bytes, out, b, i));
        },
    );
}

/// Decodes `W`-bit codes (`W` in `1..=4`) through a table of 4-byte values
/// held in registers: the 8 codes of a group (`W <= 4` bytes) are broadcast
/// to all dwords and shifted into place with `vpsrlvd`, then `vpermd` looks
/// them up (it reads only the low 3 index bits, so the table is repeated to
/// 8 entries for `W < 3`; for `W == 4` two lookups are blended on bit 3).
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn decode_perm_avx2<const W: u32>(
    words: &[u64],
    offset: usize,
    table: &[u32],
    dst: &mut [u32],
) {
    let tmask = (1usize << W) - 1;
    let lo = v256_u32(core::array::from_fn(|k| table[k & tmask]));
    let hi = v256_u32(core::array::from_fn(|k| table[(8 + k) & tmask]));
    let shifts = v256_u32(core::array::from_fn(|j| j as u32 * W));
    decode_frame::<W>(words, offset, table, dst, (8, 4), |bytes, out, at, i| {
        // SAFETY: `at + 4 <= bytes.len()` (`decode_frame`).
        let g = unsafe { read4(bytes, at) };
        let idx = _mm256_srlv_epi32(_mm256_set1_epi32(g as i32), shifts);
        let mut r = _mm256_permutevar8x32_epi32(lo, idx);
        if W == 4 {
            let r1 = _mm256_permutevar8x32_epi32(hi, idx);
            let sel = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(idx));
            r = _mm256_castps_si256(_mm256_blendv_ps(
                _mm256_castsi256_ps(r),
                _mm256_castsi256_ps(r1),
                sel,
            ));
        }
        // SAFETY: `i + 8 <= dst.len()` (`decode_frame`): the 32 bytes
        // written are inside `out`.
        unsafe { store32(out, 4 * i, r) };
    });
}

/// The `vpshufb` order of [`decode_nib_avx2`] within each 128-bit lane of
/// a step's 32 bytes: the lane's even 16-bit words (bytes `0, 1, 4, 5, 8,
/// 9, 12, 13`) into its low half, the odd ones into its high half; a
/// `vpermq` then takes both lanes' even words into the low lane and the
/// odd ones into the high lane. Byte `b` holds codes `2b` and `2b + 1`, so
/// that after the nibbles are interleaved in place (`vpunpck{l,h}bw`) the
/// low lane holds codes `0..4`, `8..12`, `16..20`, `24..28` (and 32 on),
/// which the in-lane unpacks of the lookups' bytes need to write the
/// values in order.
const NIB_ORDER: [u8; 32] = {
    let mut o = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        // Byte `k` of word `w` (`0..4` even words, then `4..8` odd ones).
        let (w, k) = ((i % 16) / 2, i % 2);
        let word = if w < 4 { 2 * w } else { 2 * (w - 4) + 1 };
        o[i] = (2 * word + k) as u8;
        i += 1;
    }
    o
};

/// Decodes 4-bit codes (`W` = 4) through a table of 16 values whose low
/// two bytes are all zero (the `f32`s of a 4-bit float format, E2M1 among
/// them), 64 per step (32 bytes): the bytes are put in order
/// ([`NIB_ORDER`], a `vpshufb` and a `vpermq`), split into their two
/// nibbles, which are interleaved into one code per byte, the values' two
/// high bytes are looked up by `vpshufb`, and `vpunpck{l,h}bw` and
/// `vpunpck{l,h}wd` with zero put them into place: 32 vector instructions
/// and 16 stores for 64 values, where [`decode_perm_avx2`] spends two
/// `vpermd`, a shift and a blend on each 8 (40 and 8). Other tables and
/// widths go to `decode_perm_avx2`.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn decode_nib_avx2<const W: u32>(
    words: &[u64],
    offset: usize,
    table: &[u32],
    dst: &mut [u32],
) {
    if W != 4 || table.len() < 16 || table[..16].iter().any(|&t| t & 0xffff != 0) {
        // SAFETY: the caller's guarantee (AVX2).
        return unsafe { decode_perm_avx2::<W>(words, offset, table, dst) };
    }
    let nib = Nib::new(core::array::from_fn(|k| table[k]));
    // After the head the value index is a multiple of 8, so every step of
    // 64 values starts on a byte: 32 bytes per step.
    decode_frame::<4>(words, offset, table, dst, (64, 32), |bytes, out, at, i| {
        // SAFETY: `at + 32 <= bytes.len()` (`decode_frame`).
        let r = nib.step(unsafe { load32(bytes, at) });
        for (j, r) in r.into_iter().enumerate() {
            // SAFETY: `i + 64 <= dst.len()` (`decode_frame`): the 32
            // bytes at `4 * (i + 8j)` are inside `out`.
            unsafe { store32(out, 4 * (i + 8 * j), r) };
        }
    });
}

/// The step of [`decode_nib_avx2`] (and of the AVX2 scaled E2M1 decode):
/// 64 4-bit codes (32 bytes, code `2b` in byte `b`'s low nibble) to the
/// table's values, in order, eight vectors of 8.
#[derive(Clone, Copy)]
pub(super) struct Nib {
    tl: __m256i,
    th: __m256i,
    order: __m256i,
    nibble: __m256i,
}

impl Nib {
    /// The step for `table`, whose values end in 16 zero bits.
    #[inline(always)]
    pub(super) fn new(table: [u32; 16]) -> Self {
        let half = |s: u32| v256(core::array::from_fn(|k| (table[k % 16] >> s) as u8));
        Nib {
            tl: half(16),
            th: half(24),
            order: v256(NIB_ORDER),
            nibble: v256([0x0f; 32]),
        }
    }

    /// The values of the 64 codes of `v`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn step(&self, v: __m256i) -> [__m256i; 8] {
        let v = _mm256_shuffle_epi8(v, self.order);
        let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(v);
        let lo = _mm256_and_si256(v, self.nibble);
        let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(v), self.nibble);
        let zero = _mm256_setzero_si256();
        // Code `2k` is byte `k`'s low nibble, code `2k + 1` its high one.
        let codes = [_mm256_unpacklo_epi8(lo, hi), _mm256_unpackhi_epi8(lo, hi)];
        let mut r = [zero; 8];
        for (h, c) in codes.into_iter().enumerate() {
            let (lb, hb) = (
                _mm256_shuffle_epi8(self.tl, c),
                _mm256_shuffle_epi8(self.th, c),
            );
            r[4 * h..4 * h + 4].copy_from_slice(&high_halves(lb, hb));
        }
        r
    }
}

/// The `f32`s whose two high bytes are `lb` (bits 16..24) and `hb` (bits
/// 24..32), the low two bytes zero, in the order of the in-lane unpacks:
/// result `q` holds bytes `4q..4q + 4` of each 128-bit lane (low lane
/// first), after `vpunpck{l,h}bw` of the two and `vpunpck{l,h}wd` with
/// zero.
#[target_feature(enable = "avx2")]
#[inline]
fn high_halves(lb: __m256i, hb: __m256i) -> [__m256i; 4] {
    let zero = _mm256_setzero_si256();
    let (wl, wh) = (_mm256_unpacklo_epi8(lb, hb), _mm256_unpackhi_epi8(lb, hb));
    [
        _mm256_unpacklo_epi16(zero, wl),
        _mm256_unpackhi_epi16(zero, wl),
        _mm256_unpacklo_epi16(zero, wh),
        _mm256_unpackhi_epi16(zero, wh),
    ]
}

/// Decodes unpacked codes of a small float format (one per byte) to `f32`
/// through `binary16`, 16 per step: the code's magnitude bits are shifted
/// into a `binary16` code and its sign into bit 15 (16-bit lanes), NaN codes
/// of an all-ones-NaN format become the `binary16` quiet NaN and IEEE NaNs
/// are made canonical, `vcvtph2ps` converts 8 at a time, and a multiply by
/// `2^(15 - bias)` rescales (exact: a power of two, on normal `f32`s). The
/// steps start where `out` is on a 64-byte line, after one step at 0
/// ([`line_steps`]). The format must satisfy `elem::f16_ok`.
///
/// # Safety
///
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(crate) unsafe fn decode_f16c<F: crate::float::MiniFloat>(codes: &[u8], out: &mut [f32]) {
    // SAFETY: the caller's guarantee (AVX2 and F16C).
    unsafe { decode_f16c_body::<F>(codes, out, None) }
}

/// [`decode_f16c`] of whole blocks of `16 * steps_per_block` codes (`codes`
/// holds a whole number of them, and `out` as many values), each block's
/// values then multiplied by its factor (`factors[b]`): the products the
/// decode and a scale pass over its output give, in one pass.
///
/// # Safety
///
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(crate) unsafe fn decode_f16c_scaled<F: crate::float::MiniFloat>(
    codes: &[u8],
    out: &mut [f32],
    factors: &[f32],
    steps_per_block: usize,
) {
    assert!(codes.len() == out.len() && codes.len() == 16 * steps_per_block * factors.len());
    // SAFETY: the caller's guarantee (AVX2 and F16C).
    unsafe { decode_f16c_body::<F>(codes, out, Some((factors, steps_per_block))) }
}

/// The factor of each run of 16 values of a scaled decode whose steps run
/// from value 0 in order ([`decode_f16c_scaled`], [`decode_split_scaled_avx2`],
/// [`decode_table_scaled_avx512`], and per word the AVX2 scaled E2M1 decode):
/// block `b`'s factor for its `per` runs, the block counted, not divided
/// out (a division by the run-time block size per run bounded the scaled
/// decodes).
pub(super) struct Runs16<G> {
    factors: G,
    per: usize,
    current: f32,
    left: usize,
}

impl<'a> Runs16<core::iter::Copied<core::slice::Iter<'a, f32>>> {
    /// The runs of `factors`' blocks, `per` runs each.
    #[inline(always)]
    fn new((factors, per): (&'a [f32], usize)) -> Self {
        Runs16::of(factors.iter().copied(), per)
    }
}

impl<G: Iterator<Item = f32>> Runs16<G> {
    /// The runs of blocks whose factors `factors` yields in order, `per`
    /// runs each (also the AVX2 scaled E2M1 decode's words, one run each,
    /// from their blocks' scale codes).
    #[inline(always)]
    pub(super) fn of(factors: G, per: usize) -> Self {
        Runs16 {
            factors,
            per,
            current: 0.0,
            left: 0,
        }
    }

    /// The next run's factor.
    ///
    /// # Panics
    ///
    /// Past the last block's runs.
    #[inline(always)]
    pub(super) fn next_factor(&mut self) -> f32 {
        if self.left == 0 {
            self.current = self.factors.next().expect("a factor for every block");
            self.left = self.per;
        }
        self.left -= 1;
        self.current
    }
}

/// The values `range` of a decode (`out[i]` from `codes[i]`) by the
/// element function, each times its block's factor in the scaled case
/// (`factors` and the block's 16-value runs, as the scaled bodies take
/// them): the tail after the vector steps.
#[inline]
fn scaled_tail<F: MiniFloat>(
    codes: &[u8],
    out: &mut [f32],
    range: core::ops::Range<usize>,
    factors: Option<(&[f32], usize)>,
) {
    let tail = |c: u8| mf::decode_fast::<F>(c);
    match factors {
        None => scalar::map_values(&tail, &codes[range.clone()], &mut out[range]),
        Some((f, per)) => {
            for i in range {
                out[i] = tail(codes[i]) * f[i / (16 * per)];
            }
        }
    }
}

/// The body of [`decode_f16c`] and [`decode_f16c_scaled`].
///
/// # Safety
///
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
#[inline]
unsafe fn decode_f16c_body<F: crate::float::MiniFloat>(
    codes: &[u8],
    out: &mut [f32],
    factors: Option<(&[f32], usize)>,
) {
    use crate::float::Specials;
    let (e, m) = const { (F::FORMAT.exponent_bits, F::FORMAT.mantissa_bits) };
    let (bias, specials) = const { (F::FORMAT.bias, F::FORMAT.specials) };
    let n = codes.len().min(out.len());
    // Scaled blocks keep their steps on block boundaries.
    let at = match factors {
        None => line_steps(n, 16, (out.as_ptr().addr(), 4)),
        Some(_) => MapSteps::from_start(n, 16),
    };
    let mag_mask = _mm256_set1_epi16(((1u32 << (e + m)) - 1) as i16);
    let sign_bit = _mm256_set1_epi16((1u32 << (e + m)) as i16);
    let shift = count(10 - m);
    let sign_shift = count(15 - (e + m));
    let bit14 = _mm256_set1_epi16(0x4000);
    // The binary16 codes (sign clear) of the format's NaN magnitude and of
    // an IEEE format's infinity, the canonical quiet NaN, and the xor that
    // turns the first into the last.
    let nan_h_bits = ((1u32 << (e + m)) - 1) << (10 - m);
    let no_sign = _mm256_set1_epi16(0x7fff);
    let nan_h = _mm256_set1_epi16(nan_h_bits as i16);
    let nan_fix = _mm256_set1_epi16((nan_h_bits ^ 0x7e00) as i16);
    let inf_h = _mm256_set1_epi16(((((1u32 << e) - 1) << m) << (10 - m)) as i16);
    let qnan = _mm256_set1_epi16(0x7e00);
    let scale = _mm256_set1_ps(f32::from_bits(((127 + 15 - bias) as u32) << 23));
    // 8-bit codes with 2 or more mantissa bits are widened into the high
    // byte of their lane, where the sign already is binary16's, and an
    // arithmetic shift right by `m - 2` puts the magnitude in place (its
    // copies of the sign cleared by `keep`); narrower codes into the low
    // byte.
    let high = e + m == 7 && m >= 2;
    let widen = v256(core::array::from_fn(|k| {
        let (code, hi_byte) = ((k / 2 % 8 + 8 * (k / 16)) as u8, k % 2 == 1);
        if hi_byte == high { code } else { 0x80 }
    }));
    let sra = count(m.saturating_sub(2));
    let keep = _mm256_set1_epi16((0x8000 | (0x7fff >> m.saturating_sub(2))) as i16);
    let out_bytes: &mut [u8] = bytemuck::cast_slice_mut(out);
    let done = at.done();
    assert!(done <= codes.len() && 4 * done <= out_bytes.len());
    let mut runs = factors.map(Runs16::new);
    for p in at.starts() {
        // SAFETY: `p + 16 <= done <= codes.len()` (`MapSteps`, asserted
        // above).
        let v = _mm256_broadcastsi128_si256(unsafe { load16(codes, p) });
        // Code `i` into lane `i`: a `pshufb` of the broadcast codes, which
        // runs on two ports, where `vpmovzxbw` competes with `vcvtph2ps`
        // and `vextracti128` for one (the E4M3 decode measured 1.2x
        // faster for it on AVX2).
        let x = _mm256_shuffle_epi8(v, widen);
        let mut h = if high {
            if m == 2 {
                x
            } else {
                _mm256_and_si256(_mm256_sra_epi16(x, sra), keep)
            }
        } else if e + 10 == 14 {
            // The sign lands on bit 14, one below binary16's: adding bit 14
            // to itself carries it to bit 15 and clears it.
            let y = _mm256_sll_epi16(x, shift);
            _mm256_add_epi16(y, _mm256_and_si256(y, bit14))
        } else {
            let mag = _mm256_and_si256(x, mag_mask);
            let sign = _mm256_sll_epi16(_mm256_and_si256(x, sign_bit), sign_shift);
            _mm256_or_si256(_mm256_sll_epi16(mag, shift), sign)
        };
        match specials {
            Specials::AllOnesNan => {
                // The NaN magnitude's binary16 code becomes the quiet NaN.
                let nan = _mm256_cmpeq_epi16(_mm256_and_si256(h, no_sign), nan_h);
                h = _mm256_xor_si256(h, _mm256_and_si256(nan, nan_fix));
            }
            Specials::Ieee => {
                let nan = _mm256_cmpgt_epi16(_mm256_and_si256(h, no_sign), inf_h);
                let sign = _mm256_andnot_si256(no_sign, h);
                h = _mm256_blendv_epi8(h, _mm256_or_si256(sign, qnan), nan);
            }
            _ => {}
        }
        let lo = _mm256_cvtph_ps(_mm256_castsi256_si128(h));
        let hi = _mm256_cvtph_ps(_mm256_extracti128_si256::<1>(h));
        let (lo, hi) = if bias == 15 {
            (lo, hi)
        } else {
            (_mm256_mul_ps(lo, scale), _mm256_mul_ps(hi, scale))
        };
        let (lo, hi) = match runs.as_mut() {
            Some(runs) => {
                let f = _mm256_set1_ps(runs.next_factor());
                (_mm256_mul_ps(lo, f), _mm256_mul_ps(hi, f))
            }
            None => (lo, hi),
        };
        let (lo, hi) = (_mm256_castps_si256(lo), _mm256_castps_si256(hi));
        // SAFETY: `4 * (p + 16) <= 4 * done <= out_bytes.len()` (as above).
        unsafe { store32(out_bytes, 4 * p, lo) };
        // SAFETY: as above.
        unsafe { store32(out_bytes, 4 * p + 32, hi) };
    }
    scaled_tail::<F>(codes, out, done..n, factors);
}

/// The nibble tables of [`decode_split_avx2`] for a format: each code's
/// `f32` is `[0, 0, lo, hi]` (little-endian bytes), where, with `c` the
/// code (its bits above the format cleared) and `e = c & exp_mask`,
///
/// - `hi = (th[(c & keep) >> hs] + (adjusted ? dh[c & 15] : 0)) | c & sign`,
/// - `lo = tl[c & 15] + (adjusted ? dl[c & 15] : 0)` (bytes, wrapping),
/// - `adjusted` = `e == 0 || e == exp_mask`: zeros and subnormals, and the
///   top binade, which holds the infinities and NaNs (for codes of at most
///   4 bits `exp_mask` is 0: every code).
///
/// A normal code's `f32` high half is its magnitude shifted into place
/// plus the rebias, so its high byte depends on the code's high bits (the
/// sign and the exponent's high bits) and its low byte on the low nibble;
/// the codes that break this (subnormals, infinities, NaNs) are corrected
/// from their low nibble, which tells them apart within their binade. The
/// sign takes an index bit where the high index has room (`keep` covers
/// it, `sign` is 0) and is or-ed in otherwise (E5M2). [`SplitTables::of`]
/// searches the layouts and keeps one only if it reproduces every code's
/// [`code_f32_bits`](mf::code_f32_bits): E4M3, E5M2, E2M3, E3M2 and E2M1
/// pass; E8M0 and the `fnuz` formats (whose NaN is the negative zero) do
/// not.
#[derive(Clone, Copy)]
pub(crate) struct SplitTables {
    th: [u8; 16],
    tl: [u8; 16],
    dh: [u8; 16],
    dl: [u8; 16],
    exp_mask: u8,
    code_mask: u8,
    keep: u8,
    hs: u32,
    sign: u8,
    /// `tl[j] == j << 4` for every `j` (a shift replaces the lookup).
    lo_shift: bool,
}

impl SplitTables {
    /// No tables (the kernel's stand-in for formats it does not take).
    const EMPTY: SplitTables = SplitTables {
        th: [0; 16],
        tl: [0; 16],
        dh: [0; 16],
        dl: [0; 16],
        exp_mask: 0,
        code_mask: 0,
        keep: 0,
        hs: 0,
        sign: 0,
        lo_shift: false,
    };

    /// The tables of `f`, or `None` where no layout decodes it exactly
    /// (see the type): the high index's shift from the smallest that fits
    /// 16 entries up, the sign in the index before the sign or-ed in; for
    /// codes of at most 4 bits, every code corrected (`exp_mask` 0: the
    /// low-nibble tables are then the whole decode).
    pub(crate) const fn of(f: &crate::float::FloatFormat) -> Option<SplitTables> {
        let bits = f.bits();
        if !mf::decode_fast_ok(f) || bits > 8 || f.mantissa_bits > 7 {
            return None;
        }
        let code_mask = ((1u32 << bits) - 1) as u8;
        let exp_mask = (((1u32 << f.exponent_bits) - 1) << f.mantissa_bits) as u8;
        let exp_mask = if bits <= 4 { 0 } else { exp_mask };
        let mut or_sign = 0;
        while or_sign < 2 {
            let sign = if or_sign == 1 {
                if !(f.signed && bits == 8) {
                    return None;
                }
                0x80
            } else {
                0
            };
            let keep = code_mask & !sign;
            let mut hs = 0;
            while hs < 8 {
                if keep >> hs < 16 {
                    let t = SplitTables {
                        exp_mask,
                        code_mask,
                        keep,
                        hs,
                        sign,
                        ..SplitTables::EMPTY
                    };
                    if let Some(t) = t.fill(f) {
                        return Some(t);
                    }
                }
                hs += 1;
            }
            or_sign += 1;
        }
        None
    }

    /// `self`'s layout with its tables filled from `f`'s codes, if they
    /// reproduce every code.
    const fn fill(mut self, f: &crate::float::FloatFormat) -> Option<SplitTables> {
        let codes = 1u32 << f.bits();
        // Which entries of th, tl, dh have been set.
        let mut set = [[false; 16]; 3];
        let mut pass = 0;
        while pass < 3 {
            let mut c = 0;
            while c < codes {
                let b = mf::code_f32_bits(f, c);
                if b & 0xffff != 0 {
                    return None;
                }
                let (hi, lo) = ((b >> 24) as u8 & !self.sign, (b >> 16) as u8);
                let (nh, nl) = (self.high_index(c as u8), (c & 15) as usize);
                let adjusted = self.adjusted(c as u8);
                if pass == 0 && !adjusted {
                    // The uncorrected codes set the base tables...
                    if !set[0][nh] {
                        (self.th[nh], set[0][nh]) = (hi, true);
                    }
                    if !set[1][nl] {
                        (self.tl[nl], set[1][nl]) = (lo, true);
                    }
                } else if pass == 1 && adjusted && !set[2][nl] {
                    // ... the corrected ones their corrections ...
                    self.dh[nl] = hi.wrapping_sub(self.th[nh]);
                    self.dl[nl] = lo.wrapping_sub(self.tl[nl]);
                    set[2][nl] = true;
                } else if pass == 2 && self.bits_of(c as u8) != b {
                    // ... and every code must come out right.
                    return None;
                }
                c += 1;
            }
            pass += 1;
        }
        let mut j = 0;
        self.lo_shift = true;
        while j < 16 {
            self.lo_shift &= self.tl[j] == (j as u8) << 4;
            j += 1;
        }
        Some(self)
    }

    /// The index of code `c` (bits above the format cleared) into `th`.
    const fn high_index(&self, c: u8) -> usize {
        ((c & self.keep) >> self.hs) as usize
    }

    /// Whether code `c` takes the correction (see the type), as the kernel
    /// computes it in one signed compare: `e + (0x80 - exp_mask)` puts the
    /// top binade at -128 and zero at `0x80 - exp_mask`, below the normal
    /// binades, which start one exponent step (`exp_mask & -exp_mask`)
    /// higher ([`adjust_consts`](Self::adjust_consts)).
    const fn adjusted(&self, c: u8) -> bool {
        let (k, thr) = self.adjust_consts();
        ((c & self.exp_mask).wrapping_add(k) as i8) < thr as i8
    }

    /// The addend and the bound of [`adjusted`](Self::adjusted).
    const fn adjust_consts(&self) -> (u8, u8) {
        let k = 0x80u8.wrapping_sub(self.exp_mask);
        (
            k,
            k.wrapping_add(self.exp_mask & self.exp_mask.wrapping_neg()),
        )
    }

    /// The `f32` bits the tables give code `c`, as the kernel computes
    /// them (its bits above the format cleared first).
    const fn bits_of(&self, c: u8) -> u32 {
        let c = c & self.code_mask;
        let nl = (c & 15) as usize;
        let (mut hi, mut lo) = (self.th[self.high_index(c)], self.tl[nl]);
        if self.adjusted(c) {
            hi = hi.wrapping_add(self.dh[nl]);
            lo = lo.wrapping_add(self.dl[nl]);
        }
        ((hi | c & self.sign) as u32) << 24 | (lo as u32) << 16
    }
}

/// Whether [`decode_split_avx2`] decodes `F` exactly ([`SplitTables`]).
pub(crate) const fn split_ok<F: MiniFloat>() -> bool {
    SplitTables::of(&F::FORMAT).is_some()
}

/// The `vpermd` order that puts a step's 32 codes where the in-lane
/// unpacks of [`decode_split_body`] take them: dwords `0, 2, 4, 6` (codes
/// `0..4`, `8..12`, `16..20`, `24..28`) in the low 128-bit lane and `1, 3,
/// 5, 7` in the high one, so that after `vpunpck{l,h}bw` and
/// `vpunpck{l,h}wd` the `q`-th result holds codes `8q..8q + 8` in order.
const SPLIT_ORDER: [u32; 8] = [0, 2, 4, 6, 1, 3, 5, 7];

/// Decodes unpacked codes of a small float format (one per byte) to `f32`
/// by nibble tables, 32 per step, with AVX2 alone: the `f32`'s two high
/// bytes are looked up by `vpshufb` from the code's nibbles and corrected
/// for the zero, subnormal and NaN codes ([`SplitTables`]: a compare or
/// two, a lookup and an add), then interleaved with zero into `f32`s by
/// `vpunpck{l,h}bw` and `vpunpck{l,h}wd`. The steps start where `out` is on
/// a 64-byte line, after one at 0 ([`line_steps`]). The format must
/// satisfy [`split_ok`].
///
/// This is the AVX2 form of [`decode_table_avx512`], whose 128-entry
/// `vpermi2b` lookup AVX2 lacks. On AMD Zen 4 (AVX-512 masked off) it
/// replaces [`decode_f16c`], whose `vcvtph2ps` alone costs about a
/// `memset` of the output there; see `BENCHMARKS.md`.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn decode_split_avx2<F: MiniFloat>(codes: &[u8], out: &mut [f32]) {
    // SAFETY: the caller's guarantee (AVX2).
    unsafe { decode_split_body::<F>(codes, out, None) }
}

/// [`decode_split_avx2`] of whole blocks of `16 * steps_per_block` codes
/// (`codes` holds a whole number of them, and `out` as many values), each
/// block's values then multiplied by its factor (`factors[b]`): the
/// products the decode and a scale pass over its output give, in one pass.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn decode_split_scaled_avx2<F: MiniFloat>(
    codes: &[u8],
    out: &mut [f32],
    factors: &[f32],
    steps_per_block: usize,
) {
    assert!(codes.len() == out.len() && codes.len() == 16 * steps_per_block * factors.len());
    // SAFETY: the caller's guarantee (AVX2).
    unsafe { decode_split_body::<F>(codes, out, Some((factors, steps_per_block))) }
}

/// The body of [`decode_split_avx2`] and [`decode_split_scaled_avx2`].
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn decode_split_body<F: MiniFloat>(
    codes: &[u8],
    out: &mut [f32],
    factors: Option<(&[f32], usize)>,
) {
    assert!(const { split_ok::<F>() }, "a split_ok format");
    // (Empty tables for other formats, so that the function pointers of
    // the variant lists can name it for any format.)
    let t = const {
        match SplitTables::of(&F::FORMAT) {
            Some(t) => t,
            None => SplitTables::EMPTY,
        }
    };
    let bits = const { F::FORMAT.bits() };
    let table = |b: [u8; 16]| _mm256_broadcastsi128_si256(bytemuck::cast(b));
    let (th, tl, dh, dl) = (table(t.th), table(t.tl), table(t.dh), table(t.dl));
    // Hidden from the optimizer, which would otherwise split this one
    // `vpermd` into `vpshufd` and `vpermq` (the E4M3 decode measured 0.89x
    // the time with the `vpermd`).
    let order = core::hint::black_box(v256_u32(SPLIT_ORDER));
    let (k, bound) = t.adjust_consts();
    let (adj_k, adj_bound) = (_mm256_set1_epi8(k as i8), _mm256_set1_epi8(bound as i8));
    let code_mask = _mm256_set1_epi8(t.code_mask as i8);
    let nibble = _mm256_set1_epi8(0x0f);
    let exp_mask = _mm256_set1_epi8(t.exp_mask as i8);
    let high_mask = _mm256_set1_epi8((t.keep >> t.hs) as i8);
    let sign = _mm256_set1_epi8(t.sign as i8);
    let n = codes.len().min(out.len());
    // Scaled blocks keep their steps on block boundaries.
    let at = match factors {
        None => line_steps(n, 32, (out.as_ptr().addr(), 4)),
        Some(_) => MapSteps::from_start(n, 32),
    };
    let out_bytes: &mut [u8] = bytemuck::cast_slice_mut(out);
    let done = at.done();
    assert!(done <= codes.len() && 4 * done <= out_bytes.len());
    // The scaled steps run from value 0 in order, 16 values two quarters.
    let mut runs = factors.map(Runs16::new);
    for p in at.starts() {
        // SAFETY: `p + 32 <= done <= codes.len()` (`MapSteps`, asserted
        // above).
        let c = _mm256_permutevar8x32_epi32(unsafe { load32(codes, p) }, order);
        let c = if bits < 8 {
            _mm256_and_si256(c, code_mask)
        } else {
            c
        };
        let nl = _mm256_and_si256(c, nibble);
        let hb = if t.keep >> t.hs > 0 {
            // `(c & keep) >> hs`: the 16-bit shift's bits from the next
            // byte land above `keep >> hs`, which the mask clears.
            let nh = _mm256_and_si256(_mm256_srl_epi16(c, count(t.hs)), high_mask);
            _mm256_shuffle_epi8(th, nh)
        } else {
            _mm256_set1_epi8(t.th[0] as i8)
        };
        // `nl < 16`: the shift keeps each byte's bits in that byte.
        let lb = if t.lo_shift {
            _mm256_slli_epi16::<4>(nl)
        } else {
            _mm256_shuffle_epi8(tl, nl)
        };
        // The corrections, where a code is corrected (all codes where
        // `exp_mask` is 0).
        let (dhb, dlb) = (_mm256_shuffle_epi8(dh, nl), _mm256_shuffle_epi8(dl, nl));
        let (dhb, dlb) = if t.exp_mask == 0 {
            (dhb, dlb)
        } else {
            // `SplitTables::adjusted`: one add and a signed compare.
            let e = _mm256_add_epi8(_mm256_and_si256(c, exp_mask), adj_k);
            let adj = _mm256_cmpgt_epi8(adj_bound, e);
            (_mm256_and_si256(adj, dhb), _mm256_and_si256(adj, dlb))
        };
        let hb = _mm256_add_epi8(hb, dhb);
        let hb = if t.sign != 0 {
            _mm256_or_si256(hb, _mm256_and_si256(c, sign))
        } else {
            hb
        };
        let lb = _mm256_add_epi8(lb, dlb);
        let quarters = high_halves(lb, hb);
        let mut f = _mm256_setzero_ps();
        for (q, v) in quarters.into_iter().enumerate() {
            let v = match runs.as_mut() {
                Some(runs) => {
                    if q % 2 == 0 {
                        f = _mm256_set1_ps(runs.next_factor());
                    }
                    _mm256_castps_si256(_mm256_mul_ps(_mm256_castsi256_ps(v), f))
                }
                None => v,
            };
            // SAFETY: `4 * (p + 8q + 8) <= 4 * (p + 32) <= 4 * done <=
            // out_bytes.len()` (as above).
            unsafe { store32(out_bytes, 4 * (p + 8 * q), v) };
        }
    }
    scaled_tail::<F>(codes, out, done..n, factors);
}

/// `dst[i]` = the `binary16` value of bits `src[i]` as an `f32` (exact;
/// a NaN quieted, its payload kept, as `half::f16::to_f32` does), 8 per
/// `vcvtph2ps`; the values past the last whole 8 are left to the caller.
/// Returns how many were converted.
///
/// # Safety
///
/// The CPU must support AVX2 and F16C.
#[cfg(feature = "half")]
#[target_feature(enable = "avx2,f16c")]
pub(crate) unsafe fn widen_f16c(src: &[u16], dst: &mut [f32]) -> usize {
    let n = src.len().min(dst.len()) / 8 * 8;
    for (s, d) in src[..n].chunks_exact(8).zip(dst[..n].chunks_exact_mut(8)) {
        let h: [u16; 8] = s.try_into().expect("8 values");
        let v: [f32; 8] = bytemuck::cast(_mm256_cvtph_ps(bytemuck::cast(h)));
        d.copy_from_slice(&v);
    }
    n
}

/// The codes of 8 `f32` lanes (bits in `x`) under the format's
/// round-to-nearest-even encode, exact: the integer rounding, subnormal add
/// and selects of `elem::encode_fast`, written with signed 32-bit
/// compares (the compiler turns the element function's compares into
/// unsigned ones, two instructions each in AVX2), and with the overflow as
/// a `vpminsd` clamp where the format's constants allow (see
/// `float512::encode16`).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn encode8<F: crate::float::MiniFloat, const SAT: bool>(x: __m256i) -> __m256i {
    let k = const { crate::float::elem::EncodeConsts::of(&F::FORMAT, SAT) };
    let (shift, sign_shift, max, over_mag) = (k.shift, k.sign_shift, k.max, k.over_mag);
    let (nan_pos, nan_neg) = (k.nan_pos, k.nan_neg);
    let magic = f32::from_bits(k.magic);
    let c_sign = _mm256_set1_epi32(1 << sign_shift);
    let a = _mm256_and_si256(x, _mm256_set1_epi32(0x7fff_ffff));
    let sign = _mm256_and_si256(_mm256_srl_epi32(x, count(31 - sign_shift)), c_sign);
    let lsb = _mm256_and_si256(_mm256_srl_epi32(a, count(shift)), _mm256_set1_epi32(1));
    let r = _mm256_add_epi32(
        a,
        _mm256_add_epi32(_mm256_set1_epi32((1 << (shift - 1)) - 1), lsb),
    );
    let normal = _mm256_sub_epi32(
        _mm256_srl_epi32(r, count(shift)),
        _mm256_set1_epi32(k.rebias),
    );
    let lifted = _mm256_castsi256_ps(_mm256_max_epi32(a, _mm256_set1_epi32(0x0080_0000)));
    let sub = _mm256_sub_epi32(
        _mm256_castps_si256(_mm256_add_ps(lifted, _mm256_set1_ps(magic))),
        _mm256_set1_epi32(magic.to_bits() as i32),
    );
    let small = _mm256_cmpgt_epi32(_mm256_set1_epi32(k.min_normal), a);
    let mag = _mm256_blendv_epi8(normal, sub, small);
    // An overflow magnitude one above the largest finite one or equal to it
    // is a clamp; NaN and infinity inputs reach it too (their exponent field
    // is all ones), so a NaN code with that magnitude needs no select.
    let clamp = k.clamp;
    let mag = if clamp {
        _mm256_min_epi32(mag, _mm256_set1_epi32(over_mag as i32))
    } else {
        let over = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(max as i32));
        _mm256_blendv_epi8(mag, _mm256_set1_epi32(over_mag as i32), over)
    };
    let nan = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7f80_0000));
    let c_nan_pos = _mm256_set1_epi32(nan_pos as i32);
    if k.nan == NanCodes::Signed {
        // The NaN code is the positive one with the sign or-ed in.
        if clamp && nan_pos == over_mag {
            _mm256_or_si256(mag, sign)
        } else {
            _mm256_or_si256(_mm256_blendv_epi8(mag, c_nan_pos, nan), sign)
        }
    } else if k.nan == NanCodes::Same {
        // One NaN code for both signs.
        _mm256_blendv_epi8(_mm256_or_si256(mag, sign), c_nan_pos, nan)
    } else {
        let code = _mm256_or_si256(mag, sign);
        let neg = _mm256_cmpeq_epi32(sign, c_sign);
        let nan_code = _mm256_blendv_epi8(c_nan_pos, _mm256_set1_epi32(nan_neg as i32), neg);
        _mm256_blendv_epi8(code, nan_code, nan)
    }
}

/// Encodes 32 `f32` (bytes `at..at + 128` of `sb`) to 32 code bytes in
/// element order: four [`encode8`] and one narrowing.
///
/// # Safety
///
/// `at + 128 <= sb.len()`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn encode32<F: crate::float::MiniFloat, const SAT: bool>(sb: &[u8], at: usize) -> __m256i {
    // SAFETY: the caller guarantees the 128 bytes; each load reads 32 of
    // them.
    let c0 = encode8::<F, SAT>(unsafe { load32(sb, at) });
    // SAFETY: as above.
    let c1 = encode8::<F, SAT>(unsafe { load32(sb, at + 32) });
    // SAFETY: as above.
    let c2 = encode8::<F, SAT>(unsafe { load32(sb, at + 64) });
    // SAFETY: as above.
    let c3 = encode8::<F, SAT>(unsafe { load32(sb, at + 96) });
    narrow_u32x32(c0, c1, c2, c3)
}

/// An encode of `src` to one code per byte in the [`frame`] (no head):
/// `step(sb, codes, i)` encodes the `per` values from `src[i]` (whose
/// bytes are `sb`) into `codes[i..]`, and may take `i + per <= src.len()`
/// and `i + per <= codes.len()`; the portable encode takes the tail.
#[inline(always)]
fn encode_frame<F: MiniFloat, const SAT: bool>(
    src: &[f32],
    codes: &mut [u8],
    per: usize,
    mut step: impl FnMut(&[u8], &mut [u8], usize),
) {
    let sb: &[u8] = bytemuck::cast_slice(src);
    let n = src.len().min(codes.len());
    let at = Steps::flat(n, per);
    let tail = |x: f32| mf::encode_fast::<F, SAT>(x);
    frame(
        codes,
        (at, n),
        |codes, r| scalar::map_codes(&tail, &src[r.clone()], &mut codes[r]),
        |codes, at| at.each(|_, i| step(sb, codes, i)),
    );
}

/// `codes[i] = float_elem::encode_fast::<F, SAT>(src[i])` (the format's
/// round-to-nearest-even encode, exact), 32 values per step. The format must
/// satisfy `elem::encode_fast_ok`.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn encode_f32_avx2<F: crate::float::MiniFloat, const SAT: bool>(
    src: &[f32],
    codes: &mut [u8],
) {
    encode_frame::<F, SAT>(src, codes, 32, |sb, codes, i| {
        crate::kernels::prefetch_per_kib::<128>(sb.as_ptr().wrapping_add(4 * i));
        // SAFETY: `i + 32 <= src.len()` (`encode_frame`), so the 128 bytes
        // from byte `4i` are inside `sb`.
        let r = unsafe { encode32::<F, SAT>(sb, 4 * i) };
        // SAFETY: `i + 32 <= codes.len()` (`encode_frame`).
        unsafe { store32(codes, i, r) };
    });
}

/// The portable tail of the 4-bit encodes: `src` to codes two per byte, an
/// odd last code alone in the low nibble.
#[inline(always)]
fn encode4_tail<F: MiniFloat, const SAT: bool>(src: &[f32], out: &mut [u8]) {
    for (i, pair) in src.chunks(2).enumerate() {
        let lo = mf::encode_fast::<F, SAT>(pair[0]) & 0xf;
        let hi = pair
            .get(1)
            .map_or(0, |&x| mf::encode_fast::<F, SAT>(x) & 0xf);
        out[i] = lo | hi << 4;
    }
}

/// Encodes `src` to 4-bit codes of `F` packed two per byte (element `2i` in
/// the low nibble of `out[i]`, an odd tail's last nibble alone in a byte
/// whose high nibble is cleared): [`encode32`] and a `vpmaddubsw` merge of
/// nibble pairs, 32 values (16 bytes) per step. `out.len()` must be
/// `ceil(src.len() / 2)`.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn encode4_f32_avx2<F: crate::float::MiniFloat, const SAT: bool>(
    src: &[f32],
    out: &mut [u8],
) {
    let n = src.len();
    let steps = n / 32;
    let sb: &[u8] = bytemuck::cast_slice(src);
    assert!(128 * steps <= sb.len() && 16 * steps <= out.len());
    for s in 0..steps {
        crate::kernels::prefetch_per_kib::<128>(sb.as_ptr().wrapping_add(128 * s));
        // SAFETY: `128 * steps <= sb.len()` (asserted).
        let c = unsafe { encode32::<F, SAT>(sb, 128 * s) };
        let b = nibble_pairs_avx2(c);
        // SAFETY: `16 * steps <= out.len()` (asserted).
        unsafe { store16(out, 16 * s, b) };
    }
    encode4_tail::<F, SAT>(&src[32 * steps..], &mut out[16 * steps..]);
}

// ---------------------------------------------------------------------------
// AVX-512
// ---------------------------------------------------------------------------

/// `vpmultishiftqb` control for [`decode_perm_avx512`]: byte 0 of 32-bit
/// lane `i` takes the 8 bits from bit `iW` of the step's 64 bits (code `i`
/// in its low `W` bits; `vpermd` reads only the low 4 bits of an index, so
/// the other bytes may hold anything).
const fn decode_shifts(w: u32) -> [u8; 64] {
    let mut c = [0u8; 64];
    let mut i = 0;
    while i < 16 {
        c[4 * i] = (i as u32 * w) as u8;
        i += 1;
    }
    c
}

/// `dst[i] = table[code i]` for `W`-bit codes (`W` in `1..=4`) from value
/// `offset` of the stream, 16 per step: one 8-byte load broadcast to every
/// lane, one `vpmultishiftqb` that moves code `i` to lane `i`, one `vpermd`
/// over the 16-entry table (repeated for `W < 4`) and one 64-byte store.
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn decode_perm_avx512<const W: u32>(
    words: &[u64],
    offset: usize,
    table: &[u32],
    dst: &mut [u32],
) {
    let tmask = (1usize << W) - 1;
    let lut = v512_u32(core::array::from_fn(|k| table[k & tmask]));
    let shifts = v512(decode_shifts(W));
    // After the head the value index is a multiple of 8, so every step of
    // 16 values starts on a byte: `2W` bytes per step.
    decode_frame::<W>(words, offset, table, dst, (16, 8), |bytes, out, at, i| {
        // SAFETY: `at + 8 <= bytes.len()` (`decode_frame`).
        let g = unsafe { read8(bytes, at) };
        let idx = _mm512_multishift_epi64_epi8(shifts, _mm512_set1_epi64(g as i64));
        let r = _mm512_permutexvar_epi32(idx, lut);
        // SAFETY: `i + 16 <= dst.len()` (`decode_frame`): the 64 bytes
        // written are inside `out`.
        unsafe { store64(out, 4 * i, r) };
    });
}

/// `out[i] = float_elem::decode_fast::<F>(codes[i])` through `binary16`,
/// 32 codes per step: the steps of `x86::decode_f16c` on 32 16-bit lanes
/// (NaN fixes as mask blends), two 16-lane `vcvtph2ps` and the rescale,
/// from where `out` is on a 64-byte line after one step at 0
/// ([`line_steps`]). The format must satisfy `elem::f16_ok`.
///
/// # Safety
///
/// The CPU must support AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn decode_f16c_avx512<F: MiniFloat>(codes: &[u8], out: &mut [f32]) {
    use crate::float::Specials;
    let (e, m) = const { (F::FORMAT.exponent_bits, F::FORMAT.mantissa_bits) };
    let (bias, specials) = const { (F::FORMAT.bias, F::FORMAT.specials) };
    let n = codes.len().min(out.len());
    let mag_mask = _mm512_set1_epi16(((1u32 << (e + m)) - 1) as i16);
    let sign_bit = _mm512_set1_epi16((1u32 << (e + m)) as i16);
    let shift = count(10 - m);
    let sign_shift = count(15 - (e + m));
    let bit14 = _mm512_set1_epi16(0x4000);
    // As in `decode_f16c`: the binary16 codes (sign clear) of the format's
    // NaN magnitude and of an IEEE format's infinity, the canonical quiet
    // NaN, and the xor that turns the first into the last.
    let nan_h_bits = ((1u32 << (e + m)) - 1) << (10 - m);
    let no_sign = _mm512_set1_epi16(0x7fff);
    let nan_h = _mm512_set1_epi16(nan_h_bits as i16);
    let nan_fix = _mm512_set1_epi16((nan_h_bits ^ 0x7e00) as i16);
    let inf_h = _mm512_set1_epi16(((((1u32 << e) - 1) << m) << (10 - m)) as i16);
    let qnan = _mm512_set1_epi16(0x7e00);
    let scale = _mm512_set1_ps(f32::from_bits(((127 + 15 - bias) as u32) << 23));
    let at = line_steps(n, 32, (out.as_ptr().addr(), 4));
    let out_bytes: &mut [u8] = bytemuck::cast_slice_mut(out);
    let done = at.done();
    assert!(done <= codes.len() && 4 * done <= out_bytes.len());
    for p in at.starts() {
        // SAFETY: `p + 32 <= done <= codes.len()` (`MapSteps`, asserted
        // above).
        let x = _mm512_cvtepu8_epi16(unsafe { load32(codes, p) });
        let mut h = if e + 10 == 14 {
            // The sign lands on bit 14, one below binary16's: adding bit 14
            // to itself carries it to bit 15 and clears it.
            let y = _mm512_sll_epi16(x, shift);
            _mm512_add_epi16(y, _mm512_and_si512(y, bit14))
        } else {
            let mag = _mm512_and_si512(x, mag_mask);
            let sign = _mm512_sll_epi16(_mm512_and_si512(x, sign_bit), sign_shift);
            _mm512_or_si512(_mm512_sll_epi16(mag, shift), sign)
        };
        match specials {
            Specials::AllOnesNan => {
                let nan = _mm512_cmpeq_epi16_mask(_mm512_and_si512(h, no_sign), nan_h);
                h = _mm512_mask_blend_epi16(nan, h, _mm512_xor_si512(h, nan_fix));
            }
            Specials::Ieee => {
                let nan = _mm512_cmpgt_epi16_mask(_mm512_and_si512(h, no_sign), inf_h);
                let sign = _mm512_andnot_si512(no_sign, h);
                h = _mm512_mask_blend_epi16(nan, h, _mm512_or_si512(sign, qnan));
            }
            _ => {}
        }
        let lo = _mm512_cvtph_ps(_mm512_castsi512_si256(h));
        let hi = _mm512_cvtph_ps(_mm512_extracti64x4_epi64::<1>(h));
        let (lo, hi) = if bias == 15 {
            (lo, hi)
        } else {
            (_mm512_mul_ps(lo, scale), _mm512_mul_ps(hi, scale))
        };
        let (lo, hi) = (_mm512_castps_si512(lo), _mm512_castps_si512(hi));
        // SAFETY: `4 * (p + 32) <= 4 * done <= out_bytes.len()` (as above).
        unsafe { store64(out_bytes, 4 * p, lo) };
        // SAFETY: as above.
        unsafe { store64(out_bytes, 4 * p + 64, hi) };
    }
    let tail = |c: u8| mf::decode_fast::<F>(c);
    scalar::map_values(&tail, &codes[done..n], &mut out[done..n]);
}

/// The two high bytes of the `f32` of each code of `F` (a
/// [`table_ok`](mf::table_ok) format), low bytes then high bytes: entry `i`
/// is code `i` (fewer than 8 bits) or the magnitude `i` (8 bits).
/// Empty for other formats (which the kernels do not take).
const fn decode_tables<F: MiniFloat>() -> ([u8; 128], [u8; 128]) {
    let f = &F::FORMAT;
    let n = if !mf::table_ok(f) {
        0
    } else if f.bits() < 8 {
        1 << f.bits()
    } else {
        128
    };
    let (mut lo, mut hi) = ([0u8; 128], [0u8; 128]);
    let mut i = 0;
    while i < n {
        let b = mf::code_f32_bits(f, i as u32);
        assert!(
            b & 0xffff == 0,
            "a table_ok format's f32 bits end in 16 zeros"
        );
        (lo[i], hi[i]) = ((b >> 16) as u8, (b >> 24) as u8);
        i += 1;
    }
    (lo, hi)
}

/// The `vpermb` order that puts a step's 64 codes where the in-lane
/// unpacks of [`decode_table_body`] take them: byte `16L + 4q + j` is code
/// `16q + 4L + j`, so that after `vpunpck{l,h}bw` and `vpunpck{l,h}wd`
/// (which work within 128-bit lanes) the `q`-th result holds codes `16q..16q
/// + 16` in order.
const fn table_order() -> [u8; 64] {
    let mut o = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        let (l, q, j) = (i / 16, i % 16 / 4, i % 4);
        o[i] = (16 * q + 4 * l + j) as u8;
        i += 1;
    }
    o
}

/// Decodes unpacked codes of a small float format (one per byte) to `f32`
/// by table, 64 per step: every value of these formats has an `f32` whose
/// low two bytes are zero, and its two high bytes are looked up in two
/// 128-entry tables by `vpermi2b` (a code of fewer than 8 bits indexes
/// them whole, bits above the format's cleared; an 8-bit code by its
/// magnitude, its sign bit then or-ed into the high byte by `vpternlogd`),
/// then interleaved into `f32`s by `vpunpck{l,h}bw` and `vpunpck{l,h}wd`
/// with zero. NaN codes, subnormals and zeros are entries like any other,
/// so nothing is patched after. The steps start where `out` is on a
/// 64-byte line, after one at 0 ([`line_steps`]). The format must satisfy
/// `elem::table_ok`.
///
/// On AMD Zen 4 with 65,536 E4M3 codes this measured 3.0 µs against 5.9 µs
/// for [`decode_f16c_avx512`] (whose two `vcvtph2ps` per 16 codes alone
/// cost about as much as a `memset` of the output) and 2.4 µs for the
/// `memset`; see `BENCHMARKS.md`.
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn decode_table_avx512<F: MiniFloat>(codes: &[u8], out: &mut [f32]) {
    // SAFETY: the caller's guarantee (AVX-512 F, BW and VBMI).
    unsafe { decode_table_body::<F>(codes, out, None) }
}

/// [`decode_table_avx512`] of whole blocks of `16 * steps_per_block` codes
/// (`codes` holds a whole number of them, and `out` as many values), each
/// block's values then multiplied by its factor (`factors[b]`): the
/// products the decode and a scale pass over its output give, in one pass.
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn decode_table_scaled_avx512<F: MiniFloat>(
    codes: &[u8],
    out: &mut [f32],
    factors: &[f32],
    steps_per_block: usize,
) {
    assert!(codes.len() == out.len() && codes.len() == 16 * steps_per_block * factors.len());
    // SAFETY: the caller's guarantee (AVX-512 F, BW and VBMI).
    unsafe { decode_table_body::<F>(codes, out, Some((factors, steps_per_block))) }
}

/// The body of [`decode_table_avx512`] and [`decode_table_scaled_avx512`].
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
unsafe fn decode_table_body<F: MiniFloat>(
    codes: &[u8],
    out: &mut [f32],
    factors: Option<(&[f32], usize)>,
) {
    assert!(const { mf::table_ok(&F::FORMAT) }, "a table_ok format");
    let bits = const { F::FORMAT.bits() };
    let (lo, hi) = const { decode_tables::<F>() };
    let half = |t: &[u8; 128], h: usize| {
        let b: [u8; 64] = t[64 * h..64 * h + 64].try_into().expect("64 entries");
        v512(b)
    };
    let (lo0, lo1, hi0, hi1) = (half(&lo, 0), half(&lo, 1), half(&hi, 0), half(&hi, 1));
    let order = v512(const { table_order() });
    let index = _mm512_set1_epi8(if bits < 8 {
        ((1u32 << bits) - 1) as i8
    } else {
        0x7f
    });
    let sign = _mm512_set1_epi8(i8::MIN);
    let zero = _mm512_setzero_si512();
    let n = codes.len().min(out.len());
    // Scaled blocks keep their steps on block boundaries.
    let at = match factors {
        None => line_steps(n, 64, (out.as_ptr().addr(), 4)),
        Some(_) => MapSteps::from_start(n, 64),
    };
    let out_bytes: &mut [u8] = bytemuck::cast_slice_mut(out);
    let done = at.done();
    assert!(done <= codes.len() && 4 * done <= out_bytes.len());
    // The scaled steps run from value 0 in order, 16 values a quarter.
    let mut runs = factors.map(Runs16::new);
    for p in at.starts() {
        // SAFETY: `p + 64 <= done <= codes.len()` (`MapSteps`, asserted
        // above).
        let c = _mm512_permutexvar_epi8(order, unsafe { load64(codes, p) });
        // `vpermi2b` reads the low 7 bits of each index byte; narrower
        // codes are masked to their own bits.
        let i = if bits < 8 {
            _mm512_and_si512(c, index)
        } else {
            c
        };
        let lb = _mm512_permutex2var_epi8(lo0, i, lo1);
        let hb = _mm512_permutex2var_epi8(hi0, i, hi1);
        // `hb | (c & 0x80)`: an 8-bit code's sign.
        let hb = if bits == 8 {
            _mm512_ternarylogic_epi32::<0xF8>(hb, c, sign)
        } else {
            hb
        };
        let (wl, wh) = (_mm512_unpacklo_epi8(lb, hb), _mm512_unpackhi_epi8(lb, hb));
        let quarters = [
            _mm512_unpacklo_epi16(zero, wl),
            _mm512_unpackhi_epi16(zero, wl),
            _mm512_unpacklo_epi16(zero, wh),
            _mm512_unpackhi_epi16(zero, wh),
        ];
        for (q, v) in quarters.into_iter().enumerate() {
            let at = p + 16 * q;
            let v = match runs.as_mut() {
                Some(runs) => _mm512_castps_si512(_mm512_mul_ps(
                    _mm512_castsi512_ps(v),
                    _mm512_set1_ps(runs.next_factor()),
                )),
                None => v,
            };
            // SAFETY: `4 * (at + 16) <= 4 * (p + 64) <= 4 * done <=
            // out_bytes.len()` (as above).
            unsafe { store64(out_bytes, 4 * at, v) };
        }
    }
    scaled_tail::<F>(codes, out, done..n, factors);
}

/// The codes of 16 `f32` lanes (bits in `x`): `x86::encode8` on 16 lanes,
/// its selects as mask blends, with three savings the format's constants
/// allow (each decided at compile time):
///
/// - where the overflow magnitude is the largest finite one or the next
///   (saturating formats, and IEEE-style infinities or all-ones NaNs one
///   above the largest value), one `vpminsd` clamps instead of a compare
///   and a blend;
/// - NaN and infinity inputs take the normal path to a magnitude above
///   every finite one (their exponent field is all ones), so where the NaN
///   code's magnitude is that same clamp, NaNs need no select of their own;
/// - the sign is merged by one `vpternlogd` (`mag | (x >> k) & sign`).
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn encode16<F: MiniFloat, const SAT: bool>(x: __m512i) -> __m512i {
    let k = const { mf::EncodeConsts::of(&F::FORMAT, SAT) };
    let (shift, sign_shift, max, over_mag) = (k.shift, k.sign_shift, k.max, k.over_mag);
    let (nan_pos, nan_neg, clamp) = (k.nan_pos, k.nan_neg, k.clamp);
    let magic = f32::from_bits(k.magic);
    let c_sign = _mm512_set1_epi32(1 << sign_shift);
    let a = _mm512_and_si512(x, _mm512_set1_epi32(0x7fff_ffff));
    // The sign bit, not yet masked: `x >> (31 - sign_shift)`.
    let sign_hi = _mm512_srl_epi32(x, count(31 - sign_shift));
    let with_sign = |mag: __m512i| _mm512_ternarylogic_epi32::<0xF8>(mag, sign_hi, c_sign);
    let lsb = _mm512_and_si512(_mm512_srl_epi32(a, count(shift)), _mm512_set1_epi32(1));
    let r = _mm512_add_epi32(
        a,
        _mm512_add_epi32(_mm512_set1_epi32((1 << (shift - 1)) - 1), lsb),
    );
    let normal = _mm512_sub_epi32(
        _mm512_srl_epi32(r, count(shift)),
        _mm512_set1_epi32(k.rebias),
    );
    let lifted = _mm512_castsi512_ps(_mm512_max_epi32(a, _mm512_set1_epi32(0x0080_0000)));
    let sub = _mm512_sub_epi32(
        _mm512_castps_si512(_mm512_add_ps(lifted, _mm512_set1_ps(magic))),
        _mm512_set1_epi32(magic.to_bits() as i32),
    );
    let small = _mm512_cmpgt_epi32_mask(_mm512_set1_epi32(k.min_normal), a);
    let mag = _mm512_mask_blend_epi32(small, normal, sub);
    let mag = if clamp {
        _mm512_min_epi32(mag, _mm512_set1_epi32(over_mag as i32))
    } else {
        let over = _mm512_cmpgt_epi32_mask(mag, _mm512_set1_epi32(max as i32));
        _mm512_mask_blend_epi32(over, mag, _mm512_set1_epi32(over_mag as i32))
    };
    let c_nan_pos = _mm512_set1_epi32(nan_pos as i32);
    let nan = || _mm512_cmpgt_epi32_mask(a, _mm512_set1_epi32(0x7f80_0000));
    if k.nan == mf::NanCodes::Signed {
        // The NaN code is the positive one with the sign or-ed in.
        if clamp && nan_pos == over_mag {
            // NaNs were clamped to it above.
            with_sign(mag)
        } else {
            with_sign(_mm512_mask_blend_epi32(nan(), mag, c_nan_pos))
        }
    } else if k.nan == mf::NanCodes::Same {
        // One NaN code for both signs.
        _mm512_mask_blend_epi32(nan(), with_sign(mag), c_nan_pos)
    } else {
        let code = with_sign(mag);
        let sign = _mm512_and_si512(sign_hi, c_sign);
        let neg = _mm512_cmpeq_epi32_mask(sign, c_sign);
        let nan_code = _mm512_mask_blend_epi32(neg, c_nan_pos, _mm512_set1_epi32(nan_neg as i32));
        _mm512_mask_blend_epi32(nan(), code, nan_code)
    }
}

/// Encodes 64 `f32` (bytes `at..at + 256` of `sb`) to 64 code bytes in
/// element order: four [`encode16`] and one `avx512::narrow_u32x64`.
///
/// # Safety
///
/// `at + 256 <= sb.len()`, and the CPU supports AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn encode64<F: MiniFloat, const SAT: bool>(sb: &[u8], at: usize) -> __m512i {
    // SAFETY: the caller guarantees the 256 bytes; each load reads 64 of
    // them.
    let c0 = encode16::<F, SAT>(unsafe { load64(sb, at) });
    // SAFETY: as above.
    let c1 = encode16::<F, SAT>(unsafe { load64(sb, at + 64) });
    // SAFETY: as above.
    let c2 = encode16::<F, SAT>(unsafe { load64(sb, at + 128) });
    // SAFETY: as above.
    let c3 = encode16::<F, SAT>(unsafe { load64(sb, at + 192) });
    narrow_u32x64(c0, c1, c2, c3)
}

/// `codes[i] = float_elem::encode_fast::<F, SAT>(src[i])`, 64 values per
/// step. The format must satisfy `elem::encode_fast_ok`.
///
/// # Safety
///
/// The CPU must support AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn encode_f32_avx512<F: MiniFloat, const SAT: bool>(
    src: &[f32],
    codes: &mut [u8],
) {
    encode_frame::<F, SAT>(src, codes, 64, |sb, codes, i| {
        crate::kernels::prefetch_per_kib::<256>(sb.as_ptr().wrapping_add(4 * i));
        // SAFETY: `i + 64 <= src.len()` (`encode_frame`), so the 256 bytes
        // from byte `4i` are inside `sb`.
        let r = unsafe { encode64::<F, SAT>(sb, 4 * i) };
        // SAFETY: `i + 64 <= codes.len()` (`encode_frame`).
        unsafe { store64(codes, i, r) };
    });
}

/// Encodes `src` to 4-bit codes of `F` packed two per byte (element `2i`
/// in the low nibble of `out[i]`, an odd tail's last nibble alone in a byte
/// whose high nibble is cleared): [`encode64`], a `vpmaddubsw` merge of
/// nibble pairs and a `vpmovwb` narrowing, 64 values (32 bytes) per step.
/// `out.len()` must be `ceil(src.len() / 2)`.
///
/// # Safety
///
/// The CPU must support AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn encode4_f32_avx512<F: MiniFloat, const SAT: bool>(
    src: &[f32],
    out: &mut [u8],
) {
    let n = src.len();
    let steps = n / 64;
    let sb: &[u8] = bytemuck::cast_slice(src);
    assert!(256 * steps <= sb.len() && 32 * steps <= out.len());
    for s in 0..steps {
        crate::kernels::prefetch_per_kib::<256>(sb.as_ptr().wrapping_add(256 * s));
        // SAFETY: `256 * steps <= sb.len()` (asserted).
        let c = unsafe { encode64::<F, SAT>(sb, 256 * s) };
        let b = nibble_pairs_avx512(c);
        // SAFETY: `32 * steps <= out.len()` (asserted).
        unsafe { store32(out, 32 * s, b) };
    }
    encode4_tail::<F, SAT>(&src[64 * steps..], &mut out[32 * steps..]);
}

// ---------------------------------------------------------------------------
// stochastic encode
// ---------------------------------------------------------------------------

/// `elem::encode_stochastic_slice::<F, SAT>` compiled for AVX2: the random
/// bits' 64-bit multiplies as three `vpmuludq` each, four lanes a vector.
/// The format must satisfy `elem::encode_fast_ok`.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn stochastic_avx2<F: MiniFloat, const SAT: bool>(
    src: &[f32],
    scale: mf::StochasticScale<'_>,
    seed_first: (u64, u64),
    codes: &mut [u8],
) {
    mf::encode_stochastic_slice::<F, SAT>(src, scale, seed_first, codes)
}

/// `elem::encode_stochastic_slice::<F, SAT>` compiled for AVX-512 (`vpmullq`,
/// eight 64-bit lanes a vector, for the random bits; sixteen 32-bit lanes
/// for the codes). The format must satisfy `elem::encode_fast_ok`.
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW, DQ and VL.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl")]
pub(crate) unsafe fn stochastic_avx512<F: MiniFloat, const SAT: bool>(
    src: &[f32],
    scale: mf::StochasticScale<'_>,
    seed_first: (u64, u64),
    codes: &mut [u8],
) {
    mf::encode_stochastic_slice::<F, SAT>(src, scale, seed_first, codes)
}
