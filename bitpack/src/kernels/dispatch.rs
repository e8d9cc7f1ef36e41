//! The one chooser of kernel variants: the per-width table type of both
//! SIMD targets, the macros that build tables ([`variants!`],
//! [`width_table!`]) and pick from them ([`select!`]), and the CPU feature
//! mask they read ([`features`], [`limit_features`]).
//!
//! A variant is a `#[target_feature]` instantiation of a kernel with the
//! feature bits it needs and its name. On `x86_64` with `std` the bits are
//! detected once (`x86/mod.rs`); on little-endian `aarch64` with `std` the
//! one bit is NEON, baseline there (`aarch64/mod.rs`). Either way a variant is
//! chosen in one way: the first one of its list whose bits are all in
//! [`features`] ([`first`]), for a width ([`Table::get`], [`select!`]) or
//! for a float format's conversion (the lists in the target files, chosen
//! by [`first`] too). Elsewhere only the portable kernels exist and
//! [`features`] is 0.

#[cfg(all(feature = "std", target_arch = "x86_64"))]
pub(crate) use super::x86 as simd;
#[cfg(all(feature = "std", target_arch = "x86_64"))]
pub(crate) use super::x86::features;
#[cfg(all(feature = "std", target_arch = "x86_64"))]
pub use super::x86::limit_features;

#[cfg(all(simd_variants, target_arch = "aarch64"))]
pub(crate) use super::aarch64 as simd;
#[cfg(all(simd_variants, target_arch = "aarch64"))]
pub(crate) use super::aarch64::features;
#[cfg(all(simd_variants, target_arch = "aarch64"))]
pub use super::aarch64::limit_features;

/// The features the kernels may use: none on a target without variants.
#[cfg(not(simd_variants))]
#[inline(always)]
#[allow(dead_code)]
pub(crate) fn features() -> u32 {
    0
}

/// Limits the run-time CPU features the kernels may use (a mask of the
/// internal feature bits; `0` forces the portable kernels): nothing to limit
/// on a target without variants.
#[cfg(not(simd_variants))]
pub fn limit_features(_mask: u32) {}

/// `f()`, compiled with AVX2 where `have` holds it, else as it is (see
/// `kernels::with_avx2`): the one way the portable loops reach the x86
/// target's AVX2 build.
///
/// # Safety
///
/// `have` holds no feature bit that [`features`] lacks.
#[inline(always)]
pub(crate) unsafe fn with_avx2_in<R>(have: u32, f: impl FnOnce() -> R) -> R {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    {
        // SAFETY: the caller's guarantee.
        unsafe { simd::with_avx2_in(have, f) }
    }
    #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
    {
        let _ = have;
        f()
    }
}

/// `f()` by its AVX-512 build where `have` allows it, else as
/// [`with_avx2_in`].
///
/// # Safety
///
/// `have` holds no feature bit that [`features`] lacks.
#[inline(always)]
pub(crate) unsafe fn with_avx512_in<R>(have: u32, f: impl FnOnce() -> R) -> R {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    {
        // SAFETY: the caller's guarantee.
        unsafe { simd::with_avx512_in(have, f) }
    }
    #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
    {
        let _ = have;
        f()
    }
}

/// The block kernels of MX and NVFP4 (`x86/block.rs` and
/// `aarch64/block.rs`, and on x86 the F16C decode's scaled form in
/// `x86/float.rs`): each runs the target's variant where the CPU has its
/// features and says whether it did (`false`: the caller runs the portable
/// loop). AVX-512 before AVX2 where a kernel has both; on `aarch64` the
/// NEON variant unless [`limit_features`] masked it.
#[cfg(feature = "alloc")]
pub(crate) mod block {
    #[cfg(simd_variants)]
    use super::{features, simd};
    use crate::kernels::{BlockCode, MxScaleBits};

    /// `kernels::nvfp4_blocks` by a SIMD variant (AVX-512 F and BW with
    /// BMI2, else AVX2; NEON).
    #[inline]
    pub(crate) fn nvfp4(
        xs: &[f32],
        scales: &mut [u8],
        words: &mut [u64],
        code: &mut impl BlockCode,
    ) -> bool {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        {
            let have = features();
            if have & simd::AVX512_BW_BMI2 == simd::AVX512_BW_BMI2 {
                // SAFETY: `features` detected AVX-512 F and BW and BMI2,
                // all the variant enables.
                unsafe { simd::nvfp4_blocks_avx512(xs, scales, words, code) };
                return true;
            }
            if have & simd::AVX2 != 0 {
                // SAFETY: `features` detected AVX2, all the variant enables.
                unsafe { simd::nvfp4_blocks_avx2(xs, scales, words, code) };
                return true;
            }
        }
        #[cfg(all(simd_variants, target_arch = "aarch64"))]
        if features() & simd::NEON != 0 {
            // SAFETY: NEON, all the variant enables, is in this target's
            // cfg (`simd_variants`).
            unsafe { simd::nvfp4_blocks_neon(xs, scales, words, code) };
            return true;
        }
        let _ = (xs, scales, words, code);
        false
    }

    /// `kernels::e2m1_scaled_blocks` by a SIMD variant (AVX-512 F, else
    /// AVX2; NEON).
    #[inline]
    pub(crate) fn e2m1_scaled(
        words: &[u64],
        out: &mut [f32],
        per_block: usize,
        scales: &[u8],
        lut: &[f32; 256],
        post: f32,
    ) -> bool {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        {
            let have = features();
            if have & simd::AVX512F != 0 {
                // SAFETY: `features` detected AVX-512 F, all the variant
                // enables.
                unsafe {
                    simd::e2m1_scaled_blocks_avx512(words, out, per_block, scales, lut, post)
                };
                return true;
            }
            if have & simd::AVX2 != 0 {
                // SAFETY: `features` detected AVX2, all the variant enables.
                unsafe { simd::e2m1_scaled_blocks_avx2(words, out, per_block, scales, lut, post) };
                return true;
            }
        }
        #[cfg(all(simd_variants, target_arch = "aarch64"))]
        if features() & simd::NEON != 0 {
            // SAFETY: NEON, all the variant enables, is in this target's
            // cfg (`simd_variants`).
            unsafe { simd::e2m1_scaled_blocks_neon(words, out, per_block, scales, lut, post) };
            return true;
        }
        let _ = (words, out, per_block, scales, lut, post);
        false
    }

    /// Whether this CPU runs a variant of `kernels::mx_blocks`.
    #[inline]
    pub(crate) fn mx_ok() -> bool {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        {
            features() & simd::AVX2 != 0
        }
        #[cfg(all(simd_variants, target_arch = "aarch64"))]
        {
            features() & simd::NEON != 0
        }
        #[cfg(not(simd_variants))]
        {
            false
        }
    }

    /// `kernels::mx_blocks` by a SIMD variant (AVX-512 F and BW, else
    /// AVX2; NEON). On `aarch64` the NEON variant runs without reading
    /// `features()` again: NEON is baseline there, so the call is sound
    /// whatever the mask says, and [`mx_ok`], which the caller asked, is
    /// what [`limit_features`](super::limit_features) steers (a mask
    /// changed between the two reads, as a test may do, cannot panic).
    ///
    /// # Panics
    ///
    /// On `x86_64` unless [`mx_ok`] (the caller's
    /// `kernels::mx_blocks_serve`, which also checks that `F` is a format
    /// the variants take); where the build has no variant, always.
    #[inline]
    #[cfg_attr(
        not(simd_variants),
        expect(
            clippy::extra_unused_type_parameters,
            reason = "the signature of the SIMD builds"
        )
    )]
    pub(crate) fn mx<F: crate::float::MiniFloat>(
        xs: &[f32],
        scales: &mut [u8],
        out: &mut [u8],
        rule: MxScaleBits,
    ) -> bool {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        {
            let have = features();
            if have & simd::AVX512_BW == simd::AVX512_BW {
                // SAFETY: `features` detected AVX-512 F and BW, all the
                // variant enables.
                return unsafe { simd::mx_blocks_avx512::<F>(xs, scales, out, rule) };
            }
            if have & simd::AVX2 != 0 {
                // SAFETY: `features` detected AVX2, all the variant enables.
                return unsafe { simd::mx_blocks_avx2::<F>(xs, scales, out, rule) };
            }
        }
        #[cfg(all(simd_variants, target_arch = "aarch64"))]
        {
            // SAFETY: NEON, all the variant enables, is in this target's
            // cfg (`simd_variants`).
            unsafe { simd::mx_blocks_neon::<F>(xs, scales, out, rule) }
        }
        #[cfg(not(all(simd_variants, target_arch = "aarch64")))]
        {
            let _ = (xs, scales, out, rule);
            unreachable!("the caller checks mx_ok")
        }
    }

    /// Whether this CPU runs a variant of `kernels::scaled8_blocks`, the
    /// scaled decode of 8-bit codes (AVX2 and F16C; NEON).
    #[inline]
    pub(crate) fn scaled8_ok() -> bool {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        {
            features() & simd::AVX2_F16C == simd::AVX2_F16C
        }
        #[cfg(all(simd_variants, target_arch = "aarch64"))]
        {
            features() & simd::NEON != 0
        }
        #[cfg(not(simd_variants))]
        {
            false
        }
    }

    /// The scaled decode of whole blocks of `16 * steps_per_block` 8-bit
    /// codes of `F` by a SIMD variant (the F16C decode's scaled form; the
    /// NEON decode and a multiply in one pass), each block's values times
    /// `factors[b]`. On `aarch64` the NEON variant runs without reading
    /// `features()` again, as [`mx`] does: NEON is baseline there, and
    /// [`scaled8_ok`], which the caller asked, is what
    /// [`limit_features`](super::limit_features) steers.
    ///
    /// # Panics
    ///
    /// On `x86_64` unless [`scaled8_ok`] (the caller's
    /// `kernels::scaled8_serves`, which also checks that `F` is an 8-bit
    /// format the variants serve); where the build has no variant, always.
    #[inline]
    #[cfg_attr(
        not(simd_variants),
        expect(
            clippy::extra_unused_type_parameters,
            reason = "the signature of the SIMD builds"
        )
    )]
    pub(crate) fn scaled8<F: crate::float::MiniFloat>(
        codes: &[u8],
        out: &mut [f32],
        factors: &[f32],
        steps_per_block: usize,
    ) {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        {
            assert!(scaled8_ok(), "the caller checks the CPU's features");
            let have = features();
            if const { crate::float::elem::table_ok(&F::FORMAT) }
                && have & simd::AVX512_VBMI == simd::AVX512_VBMI
            {
                // SAFETY: `features` detected AVX-512 F, BW and VBMI, all
                // the variant enables; the format is one it serves (`table_ok`).
                unsafe {
                    simd::decode_table_scaled_avx512::<F>(codes, out, factors, steps_per_block)
                };
                return;
            }
            if const { simd::split_ok::<F>() } {
                // SAFETY: `features` detected AVX2 (asserted above), all
                // the variant enables; the format is one it serves
                // (`split_ok`).
                unsafe {
                    simd::decode_split_scaled_avx2::<F>(codes, out, factors, steps_per_block)
                };
                return;
            }
            // SAFETY: `features` detected AVX2 and F16C (asserted above),
            // all the variant enables; the caller checked that `F` is a
            // format it serves.
            unsafe { simd::decode_f16c_scaled::<F>(codes, out, factors, steps_per_block) };
        }
        #[cfg(all(simd_variants, target_arch = "aarch64"))]
        {
            // SAFETY: NEON, all the variant enables, is in this target's
            // cfg (`simd_variants`).
            unsafe { simd::scaled8_blocks_neon::<F>(codes, out, factors, steps_per_block) };
        }
        #[cfg(not(simd_variants))]
        {
            let _ = (codes, out, factors, steps_per_block);
            unreachable!("the caller checks scaled8_ok")
        }
    }
}

/// Widens `binary16` bits to `f32` by the target's variant (x86: F16C;
/// `aarch64`: NEON's `fcvtl`, unless [`limit_features`] masked it), the
/// values up to the last whole step; returns how many it converted (0
/// where the CPU has no variant: the caller converts the rest).
#[cfg(feature = "half")]
#[inline]
pub(crate) fn widen_f16(src: &[u16], dst: &mut [f32]) -> usize {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if features() & simd::AVX2_F16C == simd::AVX2_F16C {
        // SAFETY: `features` detected AVX2 and F16C, all the variant
        // enables.
        return unsafe { simd::widen_f16c(src, dst) };
    }
    #[cfg(all(simd_variants, target_arch = "aarch64"))]
    if features() & simd::NEON != 0 {
        // SAFETY: NEON, all the variant enables, is in this target's cfg
        // (`simd_variants`).
        return unsafe { simd::widen_f16_neon(src, dst) };
    }
    let _ = (src, dst);
    0
}

/// Unpacks raw word-aligned integers of `W` bits into `dst` with the target's
/// variant, where it has one for `U` and the CPU features it needs; `false`
/// where it has none (the caller runs the portable loop). The features are
/// read once.
///
/// On x86_64 with `std`, `u8` output uses BMI2 `pdep` (eight values of a
/// word to eight bytes per instruction) and `u32`/`u64` output an AVX2 build
/// of the portable loop; both measured faster than the portable loop.
#[inline]
#[cfg_attr(
    not(feature = "alloc"),
    allow(dead_code, reason = "the gathers of the containers use it")
)]
pub(crate) fn unpack_aligned_raw<const W: u32, U: crate::unsigned::Unsigned>(
    words: &[u64],
    first: usize,
    dst: &mut [U],
) -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    {
        let have = features();
        if U::BITS == 8 && W <= 8 && have & simd::BMI2 != 0 {
            let dst: &mut [u8] = bytemuck::cast_slice_mut(dst);
            // SAFETY: `features` reported BMI2 just above; it is the one
            // feature `unpack_aligned_u8_bmi2` enables, and the function is
            // safe Rust.
            unsafe { simd::unpack_aligned_u8_bmi2::<W>(words, first, dst) };
            return true;
        }
        if U::BITS >= 32 && have & simd::AVX2 != 0 {
            // SAFETY: `features` reported AVX2 just above; it is the one
            // feature `unpack_aligned_raw_avx2` enables, and the function is
            // safe Rust.
            unsafe { simd::unpack_aligned_raw_avx2::<W, U>(words, first, dst) };
            return true;
        }
    }
    let _ = (words, first, dst);
    false
}

/// A variant: the feature bits it needs, its name, the function.
pub(crate) type Variant<F> = (u32, &'static str, F);

/// The first variant of `list` whose features are all in `have`.
#[inline]
pub(crate) fn first<F: Copy>(have: u32, list: &[Option<Variant<F>>]) -> Option<F> {
    list.iter()
        .flatten()
        .find(|(need, _, _)| have & need == *need)
        .map(|&(_, _, f)| f)
}

/// The float variant lists of a target without variants: all empty (each
/// keeps the type parameters of the SIMD targets' lists, so that the
/// callers are the same on every target).
#[cfg(not(simd_variants))]
#[allow(
    clippy::extra_unused_type_parameters,
    reason = "the signatures of the SIMD targets' lists"
)]
pub(crate) mod simd {
    pub(crate) mod float_variants {
        use crate::float::MiniFloat;
        use crate::kernels::dispatch::Variant;

        /// Codes from `f32`, one per byte.
        pub(crate) type EncodeF = unsafe fn(&[f32], &mut [u8]);
        /// `f32` from codes, one per byte.
        pub(crate) type DecodeF = unsafe fn(&[u8], &mut [f32]);

        /// No SIMD encode.
        pub(crate) fn encode<F: MiniFloat, const SAT: bool>() -> [Option<Variant<EncodeF>>; 0] {
            []
        }

        /// No SIMD nibble-pair encode.
        pub(crate) fn encode4<F: MiniFloat, const SAT: bool>() -> [Option<Variant<EncodeF>>; 0] {
            []
        }

        /// No SIMD decode.
        pub(crate) fn decode<F: MiniFloat>() -> [Option<Variant<DecodeF>>; 0] {
            []
        }

        /// Codes from `f32` times `2^-e`, rounded stochastically.
        pub(crate) type StochasticF =
            unsafe fn(&[f32], crate::float::elem::StochasticScale<'_>, (u64, u64), &mut [u8]);

        /// No SIMD stochastic encode.
        pub(crate) fn stochastic<F: MiniFloat, const SAT: bool>()
        -> [Option<Variant<StochasticF>>; 0] {
            []
        }
    }
}

/// A per-width table of variants: entry `w - 1` lists the functions for
/// width `w` in order of preference (measured), each with the features
/// it needs; an empty entry means the portable kernel serves that width.
#[cfg(simd_variants)]
pub(crate) struct Table<F: Copy, const N: usize>(pub(crate) [[Option<Variant<F>>; 4]; N]);

#[cfg(simd_variants)]
impl<F: Copy, const N: usize> Table<F, N> {
    /// A table without variants.
    pub(crate) const EMPTY: Self = Table([[None; 4]; N]);

    /// The preferred variant for width `w` whose features [`features`]
    /// reports.
    #[inline]
    pub(crate) fn get(&self, w: usize) -> Option<F> {
        first(features(), self.0.get(w.wrapping_sub(1))?)
    }
}

/// Builds a [`Table`]: `N; [FEATURE function, ...] for widths...; ...`, the
/// variants of an entry in order of preference.
#[cfg_attr(
    not(feature = "std"),
    allow(unused_macros, reason = "only the SIMD targets build tables")
)]
macro_rules! variants {
    ($n:literal; $( [$($need:ident $f:ident),+] for $($w:literal)+ );* $(;)?) => {{
        let mut t = [[None; 4]; $n];
        $( variants!(@set t [$($need $f),+] $($w)+); )*
        $crate::kernels::dispatch::Table(t)
    }};
    (@set $t:ident [$($need:ident $f:ident),+] $w:literal $($rest:literal)*) => {
        $t[$w - 1] = variants!(@cands $w [$($need $f),+] [] [None None None None]);
        variants!(@set $t [$($need $f),+] $($rest)*);
    };
    (@set $t:ident [$($need:ident $f:ident),+]) => {};
    // Fills the four slots: one `Some` per variant, `None` for the rest.
    (@cands $w:literal [$n1:ident $f1:ident $(, $n:ident $f:ident)*] [$($done:expr),*] [None $($pad:ident)*]) => {
        variants!(@cands $w [$($n $f),*]
            [$($done,)* Some(($n1, stringify!($f1), $f1::<$w> as _))] [$($pad)*])
    };
    (@cands $w:literal [] [$($done:expr),*] [$($pad:ident)*]) => {
        [$($done,)* $($pad),*]
    };
}
#[allow(unused_imports)]
pub(crate) use variants;

/// The one width-table macro: a table of one kernel instantiated at every
/// width `1..=N` (`N` = 8, 16, 32, 64 or 128), entry `w - 1` being
/// `path::<w>`, or `path::<w, X, Y>` for `width_table!(path, X, Y; N)`
/// (each extra argument one token: a type name or a `const` value); `path`
/// is `f` or `module::f`.
macro_rules! width_table {
    ($($f:ident)::+ $(, $x:tt)*; 8) => {
        width_table!(@ ($($f)::+) $(, $x)*; 1 2 3 4 5 6 7 8)
    };
    ($($f:ident)::+ $(, $x:tt)*; 16) => {
        width_table!(@ ($($f)::+) $(, $x)*; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    };
    ($($f:ident)::+ $(, $x:tt)*; 32) => {
        width_table!(@ ($($f)::+) $(, $x)*;
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30
            31 32)
    };
    ($($f:ident)::+ $(, $x:tt)*; 64) => {
        width_table!(@ ($($f)::+) $(, $x)*;
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30
            31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58
            59 60 61 62 63 64)
    };
    ($($f:ident)::+ $(, $x:tt)*; 128) => {
        width_table!(@ ($($f)::+) $(, $x)*;
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30
            31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58
            59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86
            87 88 89 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110
            111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127 128)
    };
    (@ ($($f:ident)::+) $(, $x:tt)*; $($w:literal)*) => {
        width_table!(@list ($($f)::+) ($(, $x)*); $($w)*)
    };
    (@list $f:tt $x:tt; $($w:literal)*) => {
        [$( width_table!(@one $f $w $x) ),*]
    };
    (@one ($($f:ident)::+) $w:literal ($($x:tt)*)) => {
        $($f)::+::<$w $($x)*> as _
    };
}
#[cfg(feature = "alloc")]
pub(crate) use width_table;

/// The one dispatch macro: picks the variant of kernel `$table` for a
/// run-time width, once, and evaluates to a closure that calls it.
///
/// The portable instantiation is `tables::$table[width - 1]`; where the
/// target has variants, `simd::$table.get(width)` returns the preferred one
/// whose features [`features`] reports (none once `limit_features(0)` ran).
macro_rules! select {
    ($table:ident[$width:expr] ($($a:ident: $t:ty),*) $(-> $r:ty)?) => {{
        let w = $width as usize;
        let portable = $crate::kernels::tables::$table[w - 1];
        #[cfg(simd_variants)]
        let simd = $crate::kernels::dispatch::simd::$table.get(w);
        move |$($a: $t),*| $(-> $r)? {
            #[cfg(simd_variants)]
            if let Some(f) = simd {
                // SAFETY: `Table::get` returns a function only when every CPU
                // feature named in its table entry (the features that
                // function's `#[target_feature]` enables) is in `features()`:
                // detected at run time on x86, baseline on aarch64 (NEON is
                // in that target's cfg). That is the only precondition of
                // calling it; its arguments are ordinary checked slices.
                return unsafe { f($($a),*) };
            }
            portable($($a),*)
        }
    }};
}
#[allow(unused_imports)]
pub(crate) use select;
