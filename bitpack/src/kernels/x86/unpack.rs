//! Unpack variants: to `u8` (AVX2, BMI2 and AVX-512 VBMI, 1..=7 bits), to
//! `u32` (AVX2 and AVX-512 VBMI, 1..=31 bits), and the word-aligned layout's
//! AVX2 and BMI2 builds.
//!
//! The AVX-512 variants use `vpermb` (`_mm512_permutexvar_epi8`), which
//! moves any byte of a 64-byte load to any byte of the result, so a step
//! needs no alignment trick to give each lane its group (the AVX2 variants
//! place their loads so that `pshufb`, confined to 128-bit halves, reaches
//! the bytes), and `vpmultishiftqb` (`_mm512_multishift_epi64_epi8`), which
//! cuts eight 8-bit fields at any bit offsets out of each 64-bit lane.

use core::arch::x86_64::*;

use super::simd::*;

// ---------------------------------------------------------------------------
// unpack to u8, W in 1..=7
// ---------------------------------------------------------------------------

/// Where two groups `2W` bytes apart land in one 32-byte load: loading at
/// `at + 2W - 16` puts the group at `at` at byte `16 - 2W` of the low half
/// and the group at `at + 2W` at byte 0 of the high half, so no lane-crossing
/// shuffle (`vinserti128`, or a `vbroadcasti128`, which is one on this core)
/// is needed to give each half its own group.
pub(super) const fn low_base(two_groups: usize) -> usize {
    16 - two_groups
}

/// An unpack of `W`-bit values from value `offset` of `words` into `dst`,
/// in the [`frame`]: `step(bytes, dst, at, i, bit)` unpacks `per` values
/// into `dst[i..]` from the stream bytes `bytes`, the first at bit `bit` of
/// byte `at + back`, reading at most the `span` bytes from `at` (the first
/// of them `back` bytes before the step's first value's byte). `bit` is 0,
/// or 4 where `half` allows steps to start there (see [`line_head`]); it is
/// the same for every step of a call.
///
/// `step` may take `i + per <= dst.len()` and `at + span <= bytes.len()`
/// (asserted by [`Steps::new`]).
#[inline(always)]
fn unpack_frame<const W: u32, U: scalar::Lane>(
    words: &[u64],
    offset: usize,
    dst: &mut [U],
    (per, span, back): (usize, usize, usize),
    half: bool,
    mut step: impl FnMut(&[u8], &mut [U], usize, usize, u32),
) {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let n = dst.len();
    let hot = if half { Hot::half(dst) } else { Hot::of(dst) };
    let at = Steps::<W>::new(offset, n, per, span, back, bytes.len(), hot);
    let bit = at.bit;
    frame(
        dst,
        (at, n),
        |dst, r| scalar::unpack::<W, U>(words, offset + r.start, &mut dst[r]),
        |dst, at| at.each(|b, i| step(bytes, dst, b, i, bit)),
    );
}

/// `pshufb` controls and multipliers for [`unpack_u8_avx2`]: 16-bit lane
/// `j` of a half gathers the two bytes holding element `2j` (the even
/// control) or `2j + 1` (the odd one) of the half's 16 elements (from byte
/// `16 - 2W` of the low half, byte 0 of the high half). An element that
/// starts on a byte boundary takes that byte as the high byte (low byte
/// zero), so that its place `s` in the lane is 1..=8: the even lanes'
/// multiplier `2^(16 - s)` (`vpmulhuw`) shifts it right by `s`, to bit 0,
/// the odd lanes' `2^(8 - s)` (`vpmullw`) left by `8 - s`, to bit 8.
const fn unpack_u8_pairs(w: u32) -> ([u8; 32], [u8; 32], [u16; 16], [u16; 16]) {
    let (mut even, mut odd) = ([0u8; 32], [0u8; 32]);
    let (mut to_low, mut to_high) = ([0u16; 16], [0u16; 16]);
    let mut h = 0;
    while h < 2 {
        let base = if h == 0 { low_base(2 * w as usize) } else { 0 };
        let mut e = 0;
        while e < 16 {
            let bit = e * w as usize;
            let (b, s) = (base + bit / 8, bit % 8);
            let (lo, hi, s) = if s == 0 {
                (0x80, b as u8, 8)
            } else {
                (b as u8, b as u8 + 1, s)
            };
            let lane = 8 * h + e / 2;
            if e % 2 == 0 {
                (even[2 * lane], even[2 * lane + 1]) = (lo, hi);
                to_low[lane] = 1 << (16 - s);
            } else {
                (odd[2 * lane], odd[2 * lane + 1]) = (lo, hi);
                to_high[lane] = 1 << (8 - s);
            }
            e += 1;
        }
        h += 1;
    }
    (even, odd, to_low, to_high)
}

/// A 16-bit multiply as written, `$name(a, b)`: `$insn` under the
/// intrinsic `$intrinsic`'s name and meaning.
///
/// Through the intrinsics, LLVM rewrites both multiplies of
/// [`unpack_u8_avx2`] by the constants it sees: the `vpmulhuw` of an earlier
/// version (a mask and `vpackuswb` after it) became zero-extended 32-bit
/// halves, two multiplies, `vpackusdw` and `vpermq`, which measured twice as
/// slow, and the `vpmullw` of 6 bits (multipliers 4 and 64 alternating)
/// became two shifts and a `vpblendw`, three instructions for one (the 6-bit
/// unpack measured 1.17x the 5-bit one). The instruction as written cannot
/// be rewritten so.
///
/// Miri cannot run `asm!`; under Miri the intrinsic stands in for it (the
/// same instruction, the same result), so that Miri checks every memory
/// access of the kernels around it.
macro_rules! mul16 {
    ($name:ident, $insn:literal, $intrinsic:ident) => {
        #[cfg(not(miri))]
        #[target_feature(enable = "avx2")]
        #[inline]
        fn $name(a: __m256i, b: __m256i) -> __m256i {
            let r: __m256i;
            // SAFETY: the instruction reads the two named vector registers
            // and writes the third, touches no memory, stack or flags, and
            // needs only AVX2, which this function enables.
            unsafe {
                core::arch::asm!(
                    concat!($insn, " {r}, {a}, {b}"),
                    r = lateout(ymm_reg) r,
                    a = in(ymm_reg) a,
                    b = in(ymm_reg) b,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            r
        }

        /// The intrinsic, for Miri (see [`mul16`]).
        #[cfg(miri)]
        #[target_feature(enable = "avx2")]
        #[inline]
        fn $name(a: __m256i, b: __m256i) -> __m256i {
            $intrinsic(a, b)
        }
    };
}

mul16!(mulhi_epu16, "vpmulhuw", _mm256_mulhi_epu16);
mul16!(mullo_epi16, "vpmullw", _mm256_mullo_epi16);

/// Unpacks `W`-bit elements (`W` in `1..=7`) to bytes, 32 per step.
///
/// One 32-byte load at `at + 2W - 16` holds a step's 32 elements (`4W`
/// bytes from byte `at`): elements 0..16 in the low half (from its byte
/// `16 - 2W`), 16..32 in the high half (from its byte 0), so that no
/// lane-crossing shuffle is needed. `pshufb` gathers the even elements'
/// two bytes into the 16-bit lanes of one vector and the odd elements' into
/// another; `vpmulhuw` shifts each even lane right to bit 0 and `vpmullw`
/// each odd lane left to bit 8, by its own amount; two masks and an `or`
/// join them into 32 bytes in element order: one load, two `pshufb`, two
/// multiplies, two masks, one `or` and one store per 32 elements.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unpack_u8_avx2<const W: u32>(words: &[u64], offset: usize, dst: &mut [u8]) {
    let (even, odd, to_low, to_high) = const { unpack_u8_pairs(W) };
    let (even, odd) = (v256(even), v256(odd));
    let (to_low, to_high) = (v256_u16(to_low), v256_u16(to_high));
    let low = _mm256_set1_epi16(mask64(W) as i16);
    let high = _mm256_set1_epi16((mask64(W) << 8) as i16);
    // A step loads bytes `at..at + 32`, from `low_base(2w)` bytes before
    // its first element's byte.
    let geometry = (32, 32, low_base(2 * W as usize));
    unpack_frame::<W, u8>(
        words,
        offset,
        dst,
        geometry,
        false,
        |bytes, dst, at, i, _| {
            // SAFETY: `at + 32 <= bytes.len()` (`unpack_frame`).
            let v = unsafe { load32(bytes, at) };
            let a = _mm256_and_si256(mulhi_epu16(_mm256_shuffle_epi8(v, even), to_low), low);
            let b = mullo_epi16(_mm256_shuffle_epi8(v, odd), to_high);
            let r = _mm256_or_si256(a, _mm256_and_si256(b, high));
            // SAFETY: `i + 32 <= dst.len()` (`unpack_frame`).
            unsafe { store32(dst, i, r) };
        },
    );
}

/// Unpacks `W`-bit elements, `W` in {1, 2, 4} (whole elements in each
/// byte), to bytes with AVX2 and no multiply: where [`unpack_u8_avx2`]
/// spends seven vector instructions on 32 elements at every width, this
/// takes 4 (`W` = 1, 2) or 3 (`W` = 4).
///
/// - `W` = 1, 32 elements a step: the step's 4 bytes are broadcast (one
///   `vpbroadcastd` load), `pshufb` copies byte `k` to elements `8k..8k +
///   8`, an `and` with each element's bit and a compare with it give `0xff`
///   or 0, and `vpabsb` makes that 1 or 0.
/// - `W` = 2 and 4, `256 / W` elements a step from one 32-byte load: an
///   `and` and a shift with an `and` split each byte into its even and odd
///   fields (4-bit fields: the elements; 2-bit fields: two elements a
///   nibble), `vpunpck{l,h}bw` interleave them byte by byte (4 bits: the
///   elements in order; 2 bits: 16-bit lanes holding four elements in two
///   nibble pairs, split once more and interleaved by `vpunpck{l,h}wd`).
///   The unpacks work within 128-bit halves, so the load is permuted once
///   first (`vpermq`, `vpermd`) for the halves of each result to be
///   consecutive.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unpack_u8_avx2_split<const W: u32>(
    words: &[u64],
    offset: usize,
    dst: &mut [u8],
) {
    const { assert!(W == 1 || W == 2 || W == 4) };
    if W == 1 {
        // Byte k of the 4 goes to the 8 elements 8k..8k + 8.
        let spread = v256(core::array::from_fn(|i| (i / 8) as u8));
        let bit = v256(core::array::from_fn(|i| 1 << (i % 8)));
        unpack_frame::<1, u8>(
            words,
            offset,
            dst,
            (32, 4, 0),
            false,
            |bytes, dst, at, i, _| {
                // SAFETY: `at + 4 <= bytes.len()` (`unpack_frame`).
                let v = _mm256_set1_epi32(unsafe { read4(bytes, at) } as i32);
                let set = _mm256_and_si256(_mm256_shuffle_epi8(v, spread), bit);
                let r = _mm256_abs_epi8(_mm256_cmpeq_epi8(set, bit));
                // SAFETY: `i + 32 <= dst.len()` (`unpack_frame`).
                unsafe { store32(dst, i, r) };
            },
        );
        return;
    }
    let low4 = _mm256_set1_epi8(0x0f);
    let pairs = _mm256_set1_epi8(0x33);
    let order = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    let per = 256 / W as usize;
    unpack_frame::<W, u8>(
        words,
        offset,
        dst,
        (per, 32, 0),
        false,
        |bytes, dst, at, i, _| {
            // SAFETY: `at + 32 <= bytes.len()` (`unpack_frame`).
            let v = unsafe { load32(bytes, at) };
            if W == 4 {
                // Halves: bytes 0-7 and 16-23 | 8-15 and 24-31, so that the
                // low unpack gives elements 0..32 and the high one 32..64.
                let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(v);
                let even = _mm256_and_si256(v, low4);
                let odd = _mm256_and_si256(_mm256_srli_epi16::<4>(v), low4);
                let r0 = _mm256_unpacklo_epi8(even, odd);
                let r1 = _mm256_unpackhi_epi8(even, odd);
                // SAFETY: `i + 64 <= dst.len()` (`unpack_frame`).
                unsafe { store32(dst, i, r0) };
                // SAFETY: as above.
                unsafe { store32(dst, i + 32, r1) };
            } else {
                // Halves: dwords 0, 2, 4, 6 | 1, 3, 5, 7 (`order`): result
                // `r` takes dword `r` of each half, bytes 8r..8r + 4 |
                // 8r + 4..8r + 8.
                let v = _mm256_permutevar8x32_epi32(v, order);
                // Elements 0 and 2 of each byte in its nibbles, 1 and 3.
                let even = _mm256_and_si256(v, pairs);
                let odd = _mm256_and_si256(_mm256_srli_epi16::<2>(v), pairs);
                // 16-bit lanes: element 0 | 2 << 4 | 1 << 8 | 3 << 12.
                for (k, x) in [
                    _mm256_unpacklo_epi8(even, odd),
                    _mm256_unpackhi_epi8(even, odd),
                ]
                .into_iter()
                .enumerate()
                {
                    let a = _mm256_and_si256(x, low4);
                    let b = _mm256_and_si256(_mm256_srli_epi16::<4>(x), low4);
                    let r0 = _mm256_unpacklo_epi16(a, b);
                    let r1 = _mm256_unpackhi_epi16(a, b);
                    // SAFETY: `i + 128 <= dst.len()` (`unpack_frame`),
                    // `k <= 1`.
                    unsafe { store32(dst, i + 64 * k, r0) };
                    // SAFETY: as above.
                    unsafe { store32(dst, i + 64 * k + 32, r1) };
                }
            }
        },
    );
}

/// Unpacks `W`-bit elements (`W` in `1..=7`) to bytes with BMI2: one `pdep`
/// spreads an 8-element group (`W` bytes) over 8 bytes.
///
/// # Safety
///
/// The CPU must support BMI2.
#[target_feature(enable = "bmi2")]
pub(crate) unsafe fn unpack_u8_bmi2<const W: u32>(words: &[u64], offset: usize, dst: &mut [u8]) {
    let dep = rep_mask(W, 8);
    unpack_frame::<W, u8>(
        words,
        offset,
        dst,
        (8, 8, 0),
        false,
        |bytes, dst, at, i, _| {
            // SAFETY: `at + 8 <= bytes.len()` (`unpack_frame`).
            let v = _pdep_u64(unsafe { read8(bytes, at) }, dep);
            // SAFETY: `i + 8 <= dst.len()` (`unpack_frame`).
            unsafe { write_le(dst, i, v) };
        },
    );
}

// ---------------------------------------------------------------------------
// unpack to u32, W in 1..=31
// ---------------------------------------------------------------------------

/// Whether [`unpack_u32_avx2`] reads a whole 8-element group from one
/// 16-byte window broadcast to both halves: element 7's 4 bytes must lie in
/// the window.
pub(super) const fn unpack_u32_bcast(w: u32) -> bool {
    w <= 14
}

/// Byte where half `h`'s window starts (4 elements per half) and the bit of
/// that byte where its first element starts, for a group whose first
/// element starts at bit `start` (0 or 4) of the step's first byte.
pub(super) const fn u32_window(w: u32, h: usize, start: usize) -> (usize, usize) {
    if unpack_u32_bcast(w) {
        (0, start)
    } else {
        let bit = start + 4 * h * w as usize;
        (bit / 8, bit % 8)
    }
}

/// `pshufb` controls and shifts for [`unpack_u32_avx2`], for a group whose
/// first element starts at bit `start` (0 or 4) of the step's first byte:
/// dword `j` of half `h` gathers bytes `k..k + 4` of its window (`k + 4..k +
/// 8` for the second control, used when `W > 25`), `k` the byte of the
/// element's first bit; it then shifts right by the bit's position in that
/// byte. (With `start` 4 a window still holds its elements: `4 + 8W <= 116`
/// bits for a broadcast one, and a window's phase is 4 only where the
/// other's is 0, so `4 + 4W <= 128` bits.)
pub(super) const fn unpack_u32_consts(w: u32, start: usize) -> ([u8; 32], [u8; 32], [u32; 8]) {
    let (mut c0, mut c1, mut sh) = ([0x80u8; 32], [0x80u8; 32], [0u32; 8]);
    let mut h = 0;
    while h < 2 {
        let (_, phase) = u32_window(w, h, start);
        let first = if unpack_u32_bcast(w) { 4 * h } else { 0 };
        let mut j = 0;
        while j < 4 {
            let bit = phase + (first + j) * w as usize;
            let (b, s) = (bit / 8, bit % 8);
            let mut t = 0;
            while t < 4 {
                if b + t < 16 {
                    c0[16 * h + 4 * j + t] = (b + t) as u8;
                }
                if b + 4 + t < 16 {
                    c1[16 * h + 4 * j + t] = (b + 4 + t) as u8;
                }
                t += 1;
            }
            sh[4 * h + j] = s as u32;
            j += 1;
        }
        h += 1;
    }
    (c0, c1, sh)
}

/// Unpacks `W`-bit elements (`W` in `1..=31`) to `u32`, 8 per step: an
/// 8-element group (`W` bytes) is loaded into both 128-bit halves (one
/// broadcast window for `W <= 14`, else each half's own window), `pshufb`
/// gathers each element's bytes into its dword, `vpsrlvd` shifts each dword
/// by its own amount and a mask keeps `W` bits (for `W > 25` an element can
/// span 5 bytes, so a second gather is shifted left and or-ed in). Steps
/// may start at bit 4 of a byte (where no byte boundary puts the stores on
/// a line: see [`line_head`]), with controls and shifts of their own.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unpack_u32_avx2<const W: u32>(words: &[u64], offset: usize, dst: &mut [u32]) {
    // Per start bit: the controls, the shifts, and the high window's byte.
    let consts = |start| {
        let (c0, c1, sh) = unpack_u32_consts(W, start);
        let (c0, c1, sh) = (v256(c0), v256(c1), v256_u32(sh));
        let sh_hi = _mm256_sub_epi32(_mm256_set1_epi32(32), sh);
        (c0, c1, sh, sh_hi, u32_window(W, 1, start).0)
    };
    let (even, odd) = (consts(0), consts(4));
    let mask = _mm256_set1_epi32(mask64(W) as i32);
    let span = even.4.max(odd.4) + 16;
    unpack_frame::<W, u32>(
        words,
        offset,
        dst,
        (8, span, 0),
        true,
        |bytes, dst, at, i, bit| {
            let (c0, c1, sh, sh_hi, hi_off) = if bit == 0 { even } else { odd };
            let v = if unpack_u32_bcast(W) {
                // SAFETY: `at + 16 <= bytes.len()` (`unpack_frame`).
                unsafe { bcast16(bytes, at) }
            } else {
                // SAFETY: `at + hi_off + 16 <= bytes.len()` (`unpack_frame`).
                unsafe { load2(bytes, at, at + hi_off) }
            };
            let mut r = _mm256_srlv_epi32(_mm256_shuffle_epi8(v, c0), sh);
            if W > 25 {
                r = _mm256_or_si256(r, _mm256_sllv_epi32(_mm256_shuffle_epi8(v, c1), sh_hi));
            }
            let r = _mm256_and_si256(r, mask);
            // SAFETY: `i + 8 <= dst.len()` (`unpack_frame`), so the 32 bytes
            // from byte `4i` of `dst` are inside it.
            unsafe { store32(bytemuck::cast_slice_mut(dst), 4 * i, r) };
        },
    );
}

// ---------------------------------------------------------------------------
// unpack to u8, W in 1..=7
// ---------------------------------------------------------------------------

/// The `vpermb` and `vpmultishiftqb` controls of [`unpack_u8_avx512`]:
/// qword `g` receives the 8 bytes from byte `gW` of the load (its 8-element
/// group at bit 0, the rest ignored), and then byte `j` of each qword takes
/// the 8 bits from bit `jW`, element `j` of the group in its low `W` bits.
const fn unpack_u8_ctrl(w: u32) -> ([u8; 64], [u8; 64]) {
    let w = w as usize;
    let (mut perm, mut shifts) = ([0u8; 64], [0u8; 64]);
    let mut i = 0;
    while i < 64 {
        perm[i] = (i / 8 * w + i % 8) as u8;
        shifts[i] = (i % 8 * w) as u8;
        i += 1;
    }
    (perm, shifts)
}

/// Unpacks `W`-bit elements (`W` in `1..=7`) to bytes, 64 per step: one
/// 64-byte load holds the step's eight 8-element groups (`8W` bytes),
/// `vpermb` gives each 64-bit lane its group, `vpmultishiftqb` moves each
/// element to its own byte, a mask keeps `W` bits: one load, two shuffles,
/// one `and` and one store per 64 elements.
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn unpack_u8_avx512<const W: u32>(words: &[u64], offset: usize, dst: &mut [u8]) {
    let (perm, shifts) = const { unpack_u8_ctrl(W) };
    let (perm, shifts) = (v512(perm), v512(shifts));
    let mask = _mm512_set1_epi8(mask64(W) as i8);
    unpack_frame::<W, u8>(
        words,
        offset,
        dst,
        (64, 64, 0),
        false,
        |bytes, dst, at, i, _| {
            // SAFETY: `at + 64 <= bytes.len()` (`unpack_frame`).
            let v = _mm512_permutexvar_epi8(perm, unsafe { load64(bytes, at) });
            let v = _mm512_and_si512(_mm512_multishift_epi64_epi8(shifts, v), mask);
            // SAFETY: `i + 64 <= dst.len()` (`unpack_frame`).
            unsafe { store64(dst, i, v) };
        },
    );
}

// ---------------------------------------------------------------------------
// unpack to u32, W in 1..=31
// ---------------------------------------------------------------------------

/// `vpermb` controls and shifts for [`unpack_u32_avx512`], for steps whose
/// first element starts at bit `start` (0 or 4) of the load's first byte:
/// dword `j` (of 16, two 8-element groups) gathers bytes
/// `k..k + 4` of the load, `k` the byte of element `j`'s first bit, and then
/// shifts right by the bit's place in that byte; for `W > 25` an element can
/// reach byte `k + 4`, which the second control brings to the dword's low
/// byte (its other bytes land above the element and are masked off).
pub(super) const fn unpack_u32_consts512(w: u32, start: usize) -> ([u8; 64], [u8; 64], [u32; 16]) {
    let (mut c0, mut c1, mut sh) = ([0u8; 64], [0u8; 64], [0u32; 16]);
    let mut j = 0;
    while j < 16 {
        let bit = start + j * w as usize;
        let (b, s) = (bit / 8, bit % 8);
        let mut t = 0;
        while t < 4 {
            // `b + 4 + t <= 15 * 31 / 8 + 7 = 65`: wrap (bytes above the
            // element's are masked off).
            c0[4 * j + t] = ((b + t) % 64) as u8;
            c1[4 * j + t] = ((b + 4 + t) % 64) as u8;
            t += 1;
        }
        sh[j] = s as u32;
        j += 1;
    }
    (c0, c1, sh)
}

/// Unpacks `W`-bit elements (`W` in `1..=31`) to `u32`, 16 per step: one
/// 64-byte load holds the step's two groups (`2W` bytes, or `2W + 1` from a
/// step that starts at bit 4), `vpermb` gathers each element's 4 bytes into
/// its dword, `vpsrlvd` shifts each dword by its own amount and a mask keeps
/// `W` bits (for `W > 25` a second `vpermb` and `vpsllvd` bring in the
/// fifth byte). Steps may start at bit 4 of a byte (where no byte boundary
/// puts the stores on a line: see [`line_head`]), with controls and shifts
/// of their own.
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn unpack_u32_avx512<const W: u32>(
    words: &[u64],
    offset: usize,
    dst: &mut [u32],
) {
    let consts = |start| {
        let (c0, c1, sh) = unpack_u32_consts512(W, start);
        // The indices opaque to the optimizer, which otherwise fuses some
        // of these `vpermb` (one uop) into `vpermt2b` (three).
        let (c0, c1) = core::hint::black_box((v512(c0), v512(c1)));
        let sh = v512_u32(sh);
        (c0, c1, sh, _mm512_sub_epi32(_mm512_set1_epi32(32), sh))
    };
    let (even, odd) = (consts(0), consts(4));
    let mask = _mm512_set1_epi32(mask64(W) as i32);
    unpack_frame::<W, u32>(
        words,
        offset,
        dst,
        (16, 64, 0),
        true,
        |bytes, dst, at, i, bit| {
            let (c0, c1, sh, sh_hi) = if bit == 0 { even } else { odd };
            // SAFETY: `at + 64 <= bytes.len()` (`unpack_frame`).
            let v = unsafe { load64(bytes, at) };
            let mut r = _mm512_srlv_epi32(_mm512_permutexvar_epi8(c0, v), sh);
            if W > 25 {
                let hi = _mm512_sllv_epi32(_mm512_permutexvar_epi8(c1, v), sh_hi);
                r = _mm512_or_si512(r, hi);
            }
            let r = _mm512_and_si512(r, mask);
            // SAFETY: `i + 16 <= dst.len()` (`unpack_frame`), so the 64 bytes
            // from byte `4i` of `dst` are inside it.
            unsafe { store64(bytemuck::cast_slice_mut(dst), 4 * i, r) };
        },
    );
}

// ---------------------------------------------------------------------------
// the word-aligned layout
// ---------------------------------------------------------------------------

/// The word-aligned `unpack_raw_body` compiled for AVX2.
#[target_feature(enable = "avx2")]
pub(crate) fn unpack_aligned_raw_avx2<const W: u32, U: Unsigned>(
    words: &[u64],
    first: usize,
    dst: &mut [U],
) {
    aligned::unpack_raw_body::<W, U>(words, first, dst);
}

/// Word-aligned unpacking to bytes (`W <= 8`) with BMI2: each whole word
/// deposits its values eight at a time into the bytes of a `u64` (`pdep`
/// with `2^W - 1` in every byte), whose low bytes are copied out; the values
/// before the first whole word and after the last one go one at a time.
#[target_feature(enable = "bmi2")]
pub(crate) fn unpack_aligned_u8_bmi2<const W: u32>(words: &[u64], first: usize, dst: &mut [u8]) {
    let per = per_word(W);
    let bytes = 0x0101_0101_0101_0101u64 * mask64(W);
    let n = dst.len();
    let head = aligned::head_len(per, first, n);
    let body = (n - head) / per * per;
    let k0 = (first + head) / per;
    aligned::unpack_core(W, words, first, &mut dst[..head], |v| v as u8);
    for (&w, ds) in words[k0..k0 + body / per]
        .iter()
        .zip(dst[head..head + body].chunks_exact_mut(per))
    {
        let x = ld(w);
        for (g, out) in ds.chunks_mut(8).enumerate() {
            let v = _pdep_u64(x >> (8 * W as usize * g), bytes).to_le_bytes();
            out.copy_from_slice(&v[..out.len()]);
        }
    }
    let done = head + body;
    aligned::unpack_core(W, words, first + done, &mut dst[done..], |v| v as u8);
}
#[cfg(all(test, not(miri)))]
mod mul16_tests {
    use super::*;

    /// The `asm!` forms that the kernels run and the intrinsics that stand
    /// in for them under Miri agree lane by lane.
    #[test]
    fn asm_and_intrinsic_multiplies_agree() {
        if !std::is_x86_feature_detected!("avx2") {
            std::eprintln!("skipped: no AVX2");
            return;
        }
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1000 {
            let mut lanes = [0u16; 32];
            for l in &mut lanes {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *l = x as u16;
            }
            let a: __m256i = bytemuck::cast(<[u16; 16]>::try_from(&lanes[..16]).unwrap());
            let b: __m256i = bytemuck::cast(<[u16; 16]>::try_from(&lanes[16..]).unwrap());
            // SAFETY: AVX2, all that the four need, was detected above.
            let hi = unsafe { mulhi_epu16(a, b) };
            // SAFETY: as above.
            let hi_ref = unsafe { _mm256_mulhi_epu16(a, b) };
            // SAFETY: as above.
            let lo = unsafe { mullo_epi16(a, b) };
            // SAFETY: as above.
            let lo_ref = unsafe { _mm256_mullo_epi16(a, b) };
            let cast = |v: __m256i| -> [u16; 16] { bytemuck::cast(v) };
            assert_eq!(cast(hi), cast(hi_ref), "vpmulhuw {lanes:?}");
            assert_eq!(cast(lo), cast(lo_ref), "vpmullw {lanes:?}");
        }
    }
}
