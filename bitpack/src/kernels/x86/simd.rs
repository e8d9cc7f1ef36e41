//! Load, store and vector helpers shared by the x86 kernel families, at
//! 256 bits (AVX2) and 512 bits (AVX-512).
//!

use core::arch::x86_64::*;
use core::ops::Range;

// The helpers every family file takes with `use super::simd::*`.
pub(super) use crate::Unsigned;
#[cfg(feature = "alloc")]
pub(super) use crate::kernels::aligned;
pub(super) use crate::kernels::bits::{head8, per_word, steps_within, write_le};
pub(super) use crate::kernels::scalar::{self, ld, mask64, rep_mask};

// ---------------------------------------------------------------------------
// the frame: head, steps, tail
// ---------------------------------------------------------------------------
//
// Every variant splits a call the same way: the values before the first one
// whose bits start on a byte boundary (the head) go to the portable kernel,
// then come whole vector steps, then the values after the last step (the
// tail) go to the portable kernel again. [`Steps`] says where the steps lie,
// [`frame`] runs the three parts; both are `#[inline(always)]`, and so are
// the closures given to them, so the whole frame compiles into the
// `#[target_feature]` function that calls it.

/// Where the vector steps of a call lie, in a stream of `W`-bit values:
/// values `0..head` come before them, step `s` reads or writes the values
/// from `head + per * s` and the stream bytes from `first + stride() * s`,
/// and the values from `head + per * steps` on come after.
pub(super) struct Steps<const W: u32> {
    /// Values before the first step.
    pub(super) head: usize,
    /// Stream byte of step 0.
    pub(super) first: usize,
    /// How many steps.
    pub(super) steps: usize,
    /// Values a step (a multiple of 8, but 4 in the AVX2 sum of 64-bit
    /// values, whose every value starts on a byte).
    pub(super) per: usize,
    /// The bit of byte `first` where step 0's first value starts: 0, or 4
    /// where the call's [`Hot::half`] allows it.
    pub(super) bit: u32,
}

/// The slice whose values a kernel's vector steps load or store one vector
/// at a time (the output of an unpack or decode, the input of a pack), for
/// [`line_head`].
#[derive(Clone, Copy)]
pub(super) struct Hot {
    /// Its address.
    pub(super) addr: usize,
    /// Its values' size in bytes.
    pub(super) size: usize,
    /// Whether the kernel's steps may start half a byte into the stream (at
    /// bit 4 of a byte, which [`Steps::bit`] then says).
    pub(super) half: bool,
}

impl Hot {
    /// The slice `s`, its steps starting on byte boundaries.
    #[inline(always)]
    pub(super) fn of<T>(s: &[T]) -> Option<Self> {
        Some(Hot {
            addr: s.as_ptr().addr(),
            size: size_of::<T>(),
            half: false,
        })
    }

    /// The slice `s`, its steps starting on byte boundaries or at bit 4.
    #[inline(always)]
    pub(super) fn half<T>(s: &[T]) -> Option<Self> {
        Some(Hot {
            half: true,
            ..Hot::of(s)?
        })
    }
}

impl<const W: u32> Steps<W> {
    /// The steps of `per` values over `n` values from value `offset` of a
    /// stream whose bytes the steps may touch up to `len`: they start at the
    /// first value on a byte boundary, each touches the `span` bytes from
    /// `back` bytes before its first value's byte (`back` > 0: the head
    /// grows by whole steps until that is inside the stream), and they stop
    /// where the next would reach past `len` bytes or `n` values.
    ///
    /// # Panics
    ///
    /// Never for a consistent geometry: it asserts `first + (steps - 1) *
    /// stride() + span <= len` and `head + per * steps <= n`, which the
    /// kernels' unchecked accesses rely on.
    ///
    /// With a `hot` slice (see [`Hot`]) the head takes up to a cache line
    /// more values so that the steps' accesses to it start on a line (see
    /// [`line_head`]).
    #[inline(always)]
    pub(super) fn new(
        offset: usize,
        n: usize,
        per: usize,
        span: usize,
        back: usize,
        len: usize,
        hot: Option<Hot>,
    ) -> Self {
        let stride = per * W as usize / 8;
        let aligned = match hot {
            Some(hot) => line_head::<W>(offset, n, hot),
            None => head8(offset, n),
        };
        let bit = ((offset + aligned) * W as usize % 8) as u32;
        let g0 = (offset + aligned) * W as usize / 8;
        let skip = if g0 >= back {
            0
        } else {
            (back - g0).div_ceil(stride).min((n - aligned) / per)
        };
        let head = aligned + per * skip;
        let (first, steps) = match (g0 + stride * skip).checked_sub(back) {
            Some(f) => (f, steps_within(f, stride, span, len, (n - head) / per)),
            None => (0, 0),
        };
        assert!(steps == 0 || first + (steps - 1) * stride + span <= len);
        assert!(head + per * steps <= n);
        Steps {
            head,
            first,
            steps,
            per,
            bit,
        }
    }

    /// Stream bytes a step.
    #[inline(always)]
    pub(super) fn stride(&self) -> usize {
        self.per * W as usize / 8
    }

    /// The first value after the steps.
    #[inline(always)]
    pub(super) fn done(&self) -> usize {
        self.head + self.per * self.steps
    }

    /// `step(at, i)` for each step, `at` its first stream byte and `i` its
    /// first value.
    #[inline(always)]
    pub(super) fn each(&self, mut step: impl FnMut(usize, usize)) {
        for s in 0..self.steps {
            step(self.first + self.stride() * s, self.head + self.per * s);
        }
    }
}

impl Steps<8> {
    /// Steps of `per` values over `n` values one per byte (no head): `n /
    /// per` of them.
    #[inline(always)]
    pub(super) fn flat(n: usize, per: usize) -> Self {
        let steps = n / per;
        Steps {
            head: 0,
            first: 0,
            steps,
            per,
            bit: 0,
        }
    }
}

/// Calls shorter than this many values keep the shortest head: the values
/// a longer head adds go through the portable kernel, which costs more
/// than the split accesses it saves on a short call. Under Miri, whose
/// tests must stay short, calls of 64 values and more take the longer head,
/// so that Miri checks its accesses.
pub(super) const LINE_HEAD_MIN: usize = if cfg!(miri) { 64 } else { 2048 };

/// The head of a call over `n` values from value `offset` of a `W`-bit
/// stream whose vector steps load or store the [`Hot`] slice: the first
/// value on a byte boundary of the stream (one every `8 / gcd(W, 8)`
/// values; or at bit 4 of a byte too, every `4 / gcd(W, 4)` values, where
/// the kernel allows it) at which that slice's bytes are on the best
/// boundary within a 64-byte line, the line itself where one is reachable.
///
/// A 64-byte access that is not on a line touches two and costs about twice
/// one on a line (an unpack of 65,536 values to `u32` took 1.5x as long;
/// see `BENCHMARKS.md`), and the system allocator returns large buffers 16
/// bytes past a line. With the slice 16 bytes into a line and `offset` 0,
/// the head is 48 values for `u8` values and 12 for `u32` values (for an
/// odd `W` the steps then start at bit 4 of a byte).
#[inline(always)]
pub(super) fn line_head<const W: u32>(offset: usize, n: usize, hot: Hot) -> usize {
    let g: usize = 8 >> (W | 8).trailing_zeros();
    let g = if hot.half { g.div_ceil(2) } else { g };
    let first = (g - offset % g) % g;
    if n < LINE_HEAD_MIN {
        return first.min(n);
    }
    // Candidates `first + g * k` lie `g * size` bytes apart; a line holds
    // at most `64 / (g * size)` of them. Take the best-aligned, earliest on a
    // tie (the boundary of `addr + h * size`: its trailing zeros, up to 6).
    let tries = (64 / (g * hot.size)).max(1);
    let boundary = |h: usize| (hot.addr + h * hot.size).trailing_zeros().min(6);
    let mut best = first;
    for k in 1..tries {
        let h = first + g * k;
        if boundary(h) > boundary(best) {
            best = h;
        }
    }
    best.min(n)
}

/// The vector steps of an element-wise map (`out[i]` from `in[i]` alone)
/// of `per` values each ([`line_steps`]): one at 0 where `lead > 0` (it
/// covers the values before `lead`; the values it shares with the next
/// step are written twice, alike), then `steps` steps from `lead`.
#[derive(Clone, Copy)]
pub(super) struct MapSteps {
    lead: usize,
    steps: usize,
    per: usize,
}

impl MapSteps {
    /// Whole steps from value 0 of `n` values.
    #[inline(always)]
    pub(super) fn from_start(n: usize, per: usize) -> Self {
        MapSteps {
            lead: 0,
            steps: n / per,
            per,
        }
    }

    /// The values the steps cover (`0..done()`); the tail follows. Every
    /// step's values lie below it.
    #[inline(always)]
    pub(super) fn done(&self) -> usize {
        self.lead + self.per * self.steps
    }

    /// Each step's first value.
    #[inline(always)]
    pub(super) fn starts(&self) -> impl Iterator<Item = usize> {
        let (lead, per) = (self.lead, self.per);
        let first = (lead > 0).then_some(0);
        first
            .into_iter()
            .chain((0..self.steps).map(move |s| lead + per * s))
    }
}

/// The steps of an element-wise map of `n` values, `per` a step, placed so
/// that its stores to `out` (`size`-byte values from address `addr`) are
/// on 64-byte lines: the steps from `lead`, the first value where `out` is
/// on a line, after one at 0 ([`MapSteps`]). `lead` is 0 where `out` is
/// already on a line, or no value up to `per` puts it on one, or `n`
/// leaves no room for a step after it. Unlike the head of [`line_head`],
/// the extra step costs one step, not a portable loop, so any call long
/// enough for two steps takes it.
#[inline(always)]
pub(super) fn line_steps(n: usize, per: usize, (addr, size): (usize, usize)) -> MapSteps {
    let lead = (64 - addr % 64) % 64 / size;
    if lead > 0 && (addr + lead * size) % 64 == 0 && lead <= per && n >= lead + per {
        MapSteps {
            lead,
            steps: (n - lead) / per,
            per,
        }
    } else {
        MapSteps::from_start(n, per)
    }
}

/// The head/steps/tail frame of a call over `n` values:
/// `portable(state, values)` for the values before the steps,
/// `middle(state, at)` for the steps, and `portable` again for the values
/// after them. An empty head or tail is not handed to `portable`: an empty
/// call of a portable kernel still costs its set-up (such calls and an
/// iterator left out of line cost the AVX2 carry-save sum of 8 KiB 40-60
/// ns; see `BENCHMARKS.md`).
#[inline(always)]
pub(super) fn frame<S: ?Sized, const W: u32>(
    state: &mut S,
    (at, n): (Steps<W>, usize),
    mut portable: impl FnMut(&mut S, Range<usize>),
    middle: impl FnOnce(&mut S, Steps<W>),
) {
    let (head, done) = (at.head, at.done());
    if head > 0 {
        portable(state, 0..head);
    }
    middle(state, at);
    if done < n {
        portable(state, done..n);
    }
}

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------
//
// The loops below compute, before they start, how many steps stay inside the
// slices they read and write, `assert!` the last step's extent once, and then
// load and store through raw pointers without a bounds check per access (the
// checks cost up to a third of the loop: see `BENCHMARKS.md`). Each such
// access is an `unsafe` call to one of the helpers here, whose precondition is
// that extent.

/// A vector from 32 bytes.
#[inline(always)]
pub(super) fn v256(b: [u8; 32]) -> __m256i {
    bytemuck::cast(b)
}

/// A vector from 16 `u16` lanes.
#[inline(always)]
pub(super) fn v256_u16(h: [u16; 16]) -> __m256i {
    bytemuck::cast(h)
}

/// A vector from 8 `u32` lanes.
#[inline(always)]
pub(super) fn v256_u32(d: [u32; 8]) -> __m256i {
    bytemuck::cast(d)
}

/// A vector with `x` in every 64-bit lane.
#[inline(always)]
pub(super) fn splat64(x: u64) -> __m256i {
    bytemuck::cast([x; 4])
}

/// A shift count for `_mm256_srl_epi64`.
#[inline(always)]
pub(super) fn count(n: u32) -> __m128i {
    bytemuck::cast([n as u64, 0])
}

/// The unaligned load `$load` and store `$store` of `$n` bytes as a `$v`
/// (`$loadu`, `$storeu`), on a CPU with `$feature`; one pair a width.
macro_rules! load_store {
    ($($n:literal $v:ty, $feature:literal: $load:ident $loadu:ident, $store:ident $storeu:ident;)*) => {$(
        #[doc = concat!($n, " bytes at `at`.")]
        ///
        /// # Safety
        ///
        #[doc = concat!("`at + ", $n, " <= bytes.len()`, and the CPU supports ", $feature, ".")]
        #[target_feature(enable = $feature)]
        #[inline]
        pub(super) unsafe fn $load(bytes: &[u8], at: usize) -> $v {
            debug_assert!(at + $n <= bytes.len());
            // SAFETY: the caller guarantees that the bytes read, `at` to
            // `at + size_of::<$v>()`, are inside `bytes`; `loadu` has no
            // alignment requirement.
            unsafe { $loadu(bytes.as_ptr().wrapping_add(at).cast()) }
        }

        #[doc = concat!("Writes ", $n, " bytes at `at`.")]
        ///
        /// # Safety
        ///
        #[doc = concat!("`at + ", $n, " <= bytes.len()`, and the CPU supports ", $feature, ".")]
        #[target_feature(enable = $feature)]
        #[inline]
        pub(super) unsafe fn $store(bytes: &mut [u8], at: usize, v: $v) {
            debug_assert!(at + $n <= bytes.len());
            // SAFETY: the caller guarantees that the bytes written, `at` to
            // `at + size_of::<$v>()`, are inside `bytes`; `storeu` has no
            // alignment requirement.
            unsafe { $storeu(bytes.as_mut_ptr().wrapping_add(at).cast(), v) }
        }
    )*};
}

load_store! {
    16 __m128i, "avx2": load16 _mm_loadu_si128, store16 _mm_storeu_si128;
    32 __m256i, "avx2": load32 _mm256_loadu_si256, store32 _mm256_storeu_si256;
    64 __m512i, "avx512f": load64 _mm512_loadu_si512, store64 _mm512_storeu_si512;
}

/// 16 bytes at `lo` in the low 128 bits, 16 bytes at `hi` in the high.
///
/// # Safety
///
/// `lo + 16 <= bytes.len()` and `hi + 16 <= bytes.len()`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn load2(bytes: &[u8], lo: usize, hi: usize) -> __m256i {
    // SAFETY: the caller guarantees both 16-byte ranges are inside `bytes`.
    let l = unsafe { load16(bytes, lo) };
    // SAFETY: as above.
    let h = unsafe { load16(bytes, hi) };
    _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(l), h)
}

/// The 16 bytes at `at` in both 128-bit halves (`vbroadcasti128`, a load
/// with no shuffle).
///
/// # Safety
///
/// `at + 16 <= bytes.len()`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn bcast16(bytes: &[u8], at: usize) -> __m256i {
    // SAFETY: the caller guarantees `at + 16 <= bytes.len()`.
    _mm256_broadcastsi128_si256(unsafe { load16(bytes, at) })
}

/// The `T` at byte `at`, unaligned, in memory order.
///
/// # Safety
///
/// `at + size_of::<T>() <= bytes.len()`.
#[inline(always)]
unsafe fn read_at<T: bytemuck::Pod>(bytes: &[u8], at: usize) -> T {
    debug_assert!(at + size_of::<T>() <= bytes.len());
    // SAFETY: the caller guarantees `at + size_of::<T>() <= bytes.len()`;
    // `read_unaligned` has no alignment requirement, and any bits are a `T`
    // (`Pod`).
    unsafe { bytes.as_ptr().wrapping_add(at).cast::<T>().read_unaligned() }
}

/// 8 bytes at `at`, little-endian.
///
/// # Safety
///
/// `at + 8 <= bytes.len()`.
#[inline(always)]
pub(super) unsafe fn read8(bytes: &[u8], at: usize) -> u64 {
    // SAFETY: the caller guarantees `at + 8 <= bytes.len()`.
    u64::from_le(unsafe { read_at(bytes, at) })
}

/// 4 bytes at `at`, little-endian.
///
/// # Safety
///
/// `at + 4 <= bytes.len()`.
#[inline(always)]
pub(super) unsafe fn read4(bytes: &[u8], at: usize) -> u32 {
    // SAFETY: the caller guarantees `at + 4 <= bytes.len()`.
    u32::from_le(unsafe { read_at(bytes, at) })
}

// ---------------------------------------------------------------------------
// AVX-512
// ---------------------------------------------------------------------------

/// A vector from eight 64-bit lanes, lane 0 first.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn v512_u64(q: [u64; 8]) -> __m512i {
    let q = q.map(|x| x as i64);
    _mm512_set_epi64(q[7], q[6], q[5], q[4], q[3], q[2], q[1], q[0])
}

/// A vector from 64 bytes.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn v512(b: [u8; 64]) -> __m512i {
    v512_u64(bytemuck::cast(b))
}

/// The 16 `u32` lanes of a vector, lane 0 first (by its two 256-bit
/// halves: `bytemuck` casts 512-bit vectors only with a feature of its
/// own).
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn u32s_512(v: __m512i) -> [u32; 16] {
    let lo: [u32; 8] = bytemuck::cast(_mm512_castsi512_si256(v));
    let hi: [u32; 8] = bytemuck::cast(_mm512_extracti64x4_epi64::<1>(v));
    core::array::from_fn(|i| if i < 8 { lo[i] } else { hi[i - 8] })
}

/// A vector from 16 `u32` lanes.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn v512_u32(d: [u32; 16]) -> __m512i {
    v512_u64(bytemuck::cast(d))
}

/// The low bytes of four vectors of 8 `u32` lanes (each lane at most 255),
/// 32 bytes in element order: two `vpackusdw`, one `vpackuswb`, and one
/// `vpermd` that undoes the packs' 128-bit interleave.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn narrow_u32x32(a0: __m256i, a1: __m256i, a2: __m256i, a3: __m256i) -> __m256i {
    let order = v256_u32([0, 4, 1, 5, 2, 6, 3, 7]);
    let p01 = _mm256_packus_epi32(a0, a1);
    let p23 = _mm256_packus_epi32(a2, a3);
    _mm256_permutevar8x32_epi32(_mm256_packus_epi16(p01, p23), order)
}

/// The low bytes of two vectors of 8 `u32` lanes (each lane at most 255),
/// 16 bytes in element order: `vpackusdw` (whose 128-bit interleave
/// `vpermq` undoes), then `vpackuswb` of the two halves.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn narrow_u32x16(a0: __m256i, a1: __m256i) -> __m128i {
    let w = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(a0, a1));
    _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256::<1>(w))
}

/// 32 bytes of 4-bit codes (each at most 15) joined into 16 bytes of
/// nibble pairs (byte `2i` in the low nibble of byte `i`): `vpmaddubsw`
/// with the byte weights 1 and 16, then `vpackuswb` and `vpermq`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn nibble_pairs_avx2(codes: __m256i) -> __m128i {
    let p = _mm256_maddubs_epi16(codes, _mm256_set1_epi16(0x1001));
    _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0b00_00_10_00>(
        _mm256_packus_epi16(p, p),
    ))
}

/// [`nibble_pairs_avx2`] of 64 bytes of codes, 32 bytes out
/// (`vpmaddubsw`, then `vpmovwb`).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(super) fn nibble_pairs_avx512(codes: __m512i) -> __m256i {
    _mm512_cvtepi16_epi8(_mm512_maddubs_epi16(codes, _mm512_set1_epi16(0x1001)))
}

/// 32 bytes of 6-bit codes (each at most 63) joined into 24 bytes of the
/// dense stream (code `i` at bit `6i`), in the low 24 bytes of the result:
/// `vpmaddubsw` (byte weights 1 and 64) and `vpmaddwd` (word weights 1 and
/// 4096) give each 32-bit lane its four codes in 24 bits, `vpshufb` drops
/// each lane's top byte (12 bytes per 128-bit half) and `vpermd` joins the
/// halves.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn sextets_avx2(codes: __m256i) -> __m256i {
    let w = _mm256_maddubs_epi16(codes, _mm256_set1_epi16(0x4001));
    let d = _mm256_madd_epi16(w, _mm256_set1_epi32(0x1000_0001));
    let three = _mm256_setr_epi8(
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13,
        14, -1, -1, -1, -1,
    );
    let b = _mm256_shuffle_epi8(d, three);
    _mm256_permutevar8x32_epi32(b, v256_u32([0, 1, 2, 4, 5, 6, 3, 7]))
}

/// [`sextets_avx2`] of 64 bytes of codes, 48 bytes out (the same
/// instructions on 512 bits; `vpermd` joins the four 12-byte quarters).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(super) fn sextets_avx512(codes: __m512i) -> __m512i {
    let w = _mm512_maddubs_epi16(codes, _mm512_set1_epi16(0x4001));
    let d = _mm512_madd_epi16(w, _mm512_set1_epi32(0x1000_0001));
    let quarter: [i8; 16] = [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1];
    let three = _mm512_broadcast_i32x4(bytemuck::cast(quarter));
    let b = _mm512_shuffle_epi8(d, three);
    let order = v512_u32([0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 3, 7, 11, 15]);
    _mm512_permutexvar_epi32(order, b)
}

/// The low bytes of four vectors of 16 `u32` lanes (each lane at most
/// 255), 64 bytes in element order: two `vpackusdw`, one `vpackuswb`, and
/// one `vpermd` that undoes the packs' 128-bit interleave (after them,
/// 32-bit lane `4L + j` holds elements `4L..4L + 4` of input `j`).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(super) fn narrow_u32x64(a0: __m512i, a1: __m512i, a2: __m512i, a3: __m512i) -> __m512i {
    let order = v512_u32([0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]);
    let p01 = _mm512_packus_epi32(a0, a1);
    let p23 = _mm512_packus_epi32(a2, a3);
    _mm512_permutexvar_epi32(order, _mm512_packus_epi16(p01, p23))
}

/// A vector with `x` in every 64-bit lane.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn splat64x8(x: u64) -> __m512i {
    _mm512_set1_epi64(x as i64)
}

#[cfg(test)]
mod line_head_tests {
    use super::{Hot, LINE_HEAD_MIN, line_head, line_steps};

    /// `line_steps` of every address within a line and lengths around the
    /// steps: the steps stay inside `n`, leave a tail shorter than a step,
    /// start on a line wherever one is reachable with room for a step,
    /// and the step at 0 then covers every value before them.
    #[test]
    fn line_steps_start_on_a_line_and_cover_every_value() {
        for per in [16usize, 32] {
            for addr in (0..64).step_by(4).map(|a| 4096 + a) {
                for n in (0..100).chain([1000, 4099]) {
                    let m = line_steps(n, per, (addr, 4));
                    let (lead, steps, done) = (m.lead, m.steps, m.done());
                    let starts: std::vec::Vec<usize> = m.starts().collect();
                    let first = usize::from(lead > 0);
                    assert_eq!(starts.len(), steps + first);
                    assert!(lead == 0 || starts[0] == 0, "a step at 0 before the lead");
                    assert!(
                        starts[first..]
                            .iter()
                            .enumerate()
                            .all(|(s, &p)| p == lead + per * s)
                    );
                    assert!(done <= n && n - done < per, "per {per} addr {addr} n {n}");
                    let want = (64 - addr % 64) % 64 / 4;
                    if want > 0 && n >= want + per {
                        assert_eq!(lead, want, "per {per} addr {addr} n {n}");
                        assert_eq!((addr + 4 * lead) % 64, 0);
                        assert!(lead <= per && steps >= 1, "the step at 0 reaches the first");
                    } else {
                        assert_eq!(lead, 0, "per {per} addr {addr} n {n}");
                    }
                }
            }
        }
        // An address off the values' size never counts as reachable.
        let m = line_steps(4099, 16, (4098, 4));
        assert_eq!((m.lead, m.steps), (0, 4099 / 16));
    }

    /// `line_head` of every width, offset, address within a line, value size
    /// and `half`, against a search of every head below 200 values: it is the
    /// earliest head on an allowed boundary (a byte, or bit 4 with `half`)
    /// whose slice address has the most trailing zeros (counted up to 6),
    /// and the shortest head for a short call.
    #[test]
    fn line_head_is_the_earliest_best_aligned_boundary() {
        fn check<const W: u32>() {
            for size in [1usize, 2, 4, 8] {
                for half in [false, true] {
                    for offset in 0..16 {
                        for addr in (0..64).step_by(size).map(|a| 4096 + a) {
                            let hot = Hot { addr, size, half };
                            let allowed = |h: usize| {
                                let bit = (offset + h) * W as usize % 8;
                                bit == 0 || (half && bit == 4)
                            };
                            let tz = |h: usize| (addr + h * size).trailing_zeros().min(6);
                            let first = (0..).find(|&h| allowed(h)).unwrap();
                            let best = (0..200).filter(|&h| allowed(h)).map(tz).max().unwrap();
                            let expect = (0..200).find(|&h| allowed(h) && tz(h) == best).unwrap();
                            let n = LINE_HEAD_MIN;
                            let got = line_head::<W>(offset, n, hot);
                            assert_eq!(
                                got,
                                expect,
                                "W={W} size {size} half {half} offset {offset} addr%64 {}",
                                addr % 64
                            );
                            assert_eq!(line_head::<W>(offset, n - 1, hot), first.min(n - 1));
                            assert_eq!(line_head::<W>(offset, 2, hot), first.min(2));
                        }
                    }
                }
            }
        }
        check::<1>();
        check::<2>();
        check::<3>();
        check::<4>();
        check::<6>();
        check::<7>();
        check::<8>();
        check::<12>();
        check::<16>();
        check::<31>();
        check::<32>();
    }
}
