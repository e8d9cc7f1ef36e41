//! The `nvptx64` variants: PTX's packed `cvt` conversions through inline
//! PTX, chosen at compile time by the target features (`-C target-cpu=sm_XX`
//! sets `sm_XX` and every older `sm_YY`; `-C target-feature=+ptxNN` the PTX
//! ISA version).
//!
//! | function | instruction | needs |
//! |---|---|---|
//! | [`e4m3x2`], [`e5m2x2`] | `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32` | `sm_89`, PTX 7.8 |
//! | [`f16x2_from_e4m3x2`], [`f16x2_from_e5m2x2`] | `cvt.rn.f16x2.{e4m3x2,e5m2x2}` | `sm_89`, PTX 7.8 |
//! | [`e2m1x2`], [`e2m3x2`], [`e3m2x2`] | `cvt.rn.satfinite.{e2m1x2,e2m3x2,e3m2x2}.f32` | `sm_100a`/`sm_101a`/`sm_120a`, PTX 8.6 |
//! | [`f16x2_from_e2m1x2`], [`f16x2_from_e2m3x2`], [`f16x2_from_e3m2x2`] | `cvt.rn.f16x2.{e2m1x2,e2m3x2,e3m2x2}` | as above |
//! | [`ue8m0x2_rz`], [`ue8m0x2_rp`] | `cvt.{rz,rp}.satfinite.ue8m0x2.f32` | as above |
//! | [`f16x2`], [`bf16x2`] | `cvt.rn.{f16x2,bf16x2}.f32` | `sm_80`, PTX 7.0 |
//!
//! Every paired form puts its **first** source in the high half of the
//! result (`../interop`: "source a goes to the high bits"), so each function
//! takes `(lo, hi)` in lane order and passes `hi` first: the result is the
//! [`NArray`](crate::NArray) of the two lanes, lane 0 in the low bits. The
//! FP6 forms give one code per byte (bits 5:0 and 13:8); the callers in
//! [`fixed`](super::fixed) repack them densely. The portable functions stay
//! the reference: [`fixed`](super::fixed) calls these only where they give
//! the same bits (the saturating mode, with NaN lanes taken from the
//! portable code), and falls back to the portable code everywhere else.
#![allow(
    dead_code,
    reason = "each function exists only for the targets that have its instruction, and the \
              callers use a subset per build"
)]

use core::arch::asm;

/// Declares one `cvt` of two `f32` lanes into a 16-bit result register.
macro_rules! cvt_pair_f32 {
    ($(#[$m:meta])* $name:ident, $cfg:meta, $insn:literal) => {
        $(#[$m])*
        #[cfg($cfg)]
        #[inline(always)]
        pub(crate) fn $name(lo: f32, hi: f32) -> u16 {
            let d: u16;
            // SAFETY: a register-only `cvt` (no memory, no side effects) that
            // the target has: the `cfg` above requires the `sm_XX` and `ptxNN`
            // target features the PTX ISA lists for it.
            unsafe {
                asm!(
                    concat!($insn, " {d}, {a}, {b};"),
                    d = out(reg16) d,
                    a = in(reg32) hi,
                    b = in(reg32) lo,
                    options(pure, nomem, nostack),
                )
            };
            d
        }
    };
}

cvt_pair_f32!(
    /// `cvt.rn.satfinite.e4m3x2.f32`: two E4M3 codes, `lo` in bits 7:0.
    e4m3x2,
    all(target_feature = "sm_89", target_feature = "ptx78"),
    "cvt.rn.satfinite.e4m3x2.f32"
);
cvt_pair_f32!(
    /// `cvt.rn.satfinite.e5m2x2.f32`: two E5M2 codes, `lo` in bits 7:0.
    e5m2x2,
    all(target_feature = "sm_89", target_feature = "ptx78"),
    "cvt.rn.satfinite.e5m2x2.f32"
);
cvt_pair_f32!(
    /// `cvt.rn.satfinite.e2m3x2.f32`: two E2M3 codes, `lo` in bits 5:0 and
    /// `hi` in bits 13:8.
    e2m3x2,
    all(
        any(target_feature = "sm_100a", target_feature = "sm_101a", target_feature = "sm_120a"),
        target_feature = "ptx86"
    ),
    "cvt.rn.satfinite.e2m3x2.f32"
);
cvt_pair_f32!(
    /// `cvt.rn.satfinite.e3m2x2.f32`: two E3M2 codes, `lo` in bits 5:0 and
    /// `hi` in bits 13:8.
    e3m2x2,
    all(
        any(target_feature = "sm_100a", target_feature = "sm_101a", target_feature = "sm_120a"),
        target_feature = "ptx86"
    ),
    "cvt.rn.satfinite.e3m2x2.f32"
);
cvt_pair_f32!(
    /// `cvt.rz.satfinite.ue8m0x2.f32`: two E8M0 codes rounded toward zero.
    ue8m0x2_rz,
    all(
        any(target_feature = "sm_100a", target_feature = "sm_101a", target_feature = "sm_120a"),
        target_feature = "ptx86"
    ),
    "cvt.rz.satfinite.ue8m0x2.f32"
);
cvt_pair_f32!(
    /// `cvt.rp.satfinite.ue8m0x2.f32`: two E8M0 codes rounded up.
    ue8m0x2_rp,
    all(
        any(target_feature = "sm_100a", target_feature = "sm_101a", target_feature = "sm_120a"),
        target_feature = "ptx86"
    ),
    "cvt.rp.satfinite.ue8m0x2.f32"
);

/// `cvt.rn.satfinite.e2m1x2.f32`: two E2M1 codes, `lo` in bits 3:0 and `hi`
/// in bits 7:4. The instruction writes a `.b8` register, which inline asm
/// has no class for, so it goes through a scoped temporary.
#[cfg(all(
    any(
        target_feature = "sm_100a",
        target_feature = "sm_101a",
        target_feature = "sm_120a"
    ),
    target_feature = "ptx86"
))]
#[inline(always)]
pub(crate) fn e2m1x2(lo: f32, hi: f32) -> u16 {
    let d: u16;
    // SAFETY: register-only instructions that the target has (the `cfg`
    // requires an architecture with the FP4 `cvt` and PTX 8.6); `t` is
    // declared inside the braces, so it clashes with no other register.
    unsafe {
        asm!(
            "{{ .reg .b8 t; cvt.rn.satfinite.e2m1x2.f32 t, {a}, {b}; cvt.u16.u8 {d}, t; }}",
            d = out(reg16) d,
            a = in(reg32) hi,
            b = in(reg32) lo,
            options(pure, nomem, nostack),
        )
    };
    d
}

/// Declares one decode of a packed pair of codes into an `f16x2` register
/// (lane 0 in bits 15:0).
macro_rules! cvt_f16x2_from {
    ($(#[$m:meta])* $name:ident, $cfg:meta, $body:literal) => {
        $(#[$m])*
        #[cfg($cfg)]
        #[inline(always)]
        pub(crate) fn $name(codes: u16) -> u32 {
            let d: u32;
            // SAFETY: register-only instructions that the target has (the
            // `cfg` above); temporaries are scoped by the braces.
            unsafe {
                asm!(
                    $body,
                    d = out(reg32) d,
                    a = in(reg16) codes,
                    options(pure, nomem, nostack),
                )
            };
            d
        }
    };
}

cvt_f16x2_from!(
    /// `cvt.rn.f16x2.e4m3x2`: the two E4M3 codes of `codes` (lane 0 in bits
    /// 7:0) as two `f16`s (lane 0 in bits 15:0).
    f16x2_from_e4m3x2,
    all(target_feature = "sm_89", target_feature = "ptx78"),
    "cvt.rn.f16x2.e4m3x2 {d}, {a};"
);
cvt_f16x2_from!(
    /// `cvt.rn.f16x2.e5m2x2`: as [`f16x2_from_e4m3x2`] for E5M2.
    f16x2_from_e5m2x2,
    all(target_feature = "sm_89", target_feature = "ptx78"),
    "cvt.rn.f16x2.e5m2x2 {d}, {a};"
);
cvt_f16x2_from!(
    /// `cvt.rn.f16x2.e2m3x2`: two E2M3 codes, one per byte (bits 5:0 and
    /// 13:8), as two `f16`s.
    f16x2_from_e2m3x2,
    all(
        any(target_feature = "sm_100a", target_feature = "sm_101a", target_feature = "sm_120a"),
        target_feature = "ptx86"
    ),
    "cvt.rn.f16x2.e2m3x2 {d}, {a};"
);
cvt_f16x2_from!(
    /// `cvt.rn.f16x2.e3m2x2`: as [`f16x2_from_e2m3x2`] for E3M2.
    f16x2_from_e3m2x2,
    all(
        any(target_feature = "sm_100a", target_feature = "sm_101a", target_feature = "sm_120a"),
        target_feature = "ptx86"
    ),
    "cvt.rn.f16x2.e3m2x2 {d}, {a};"
);
cvt_f16x2_from!(
    /// `cvt.rn.f16x2.e2m1x2`: the two E2M1 codes in bits 7:0 of `codes`
    /// (lane 0 in bits 3:0) as two `f16`s. The source is a `.b8` register,
    /// reached through a scoped temporary.
    f16x2_from_e2m1x2,
    all(
        any(target_feature = "sm_100a", target_feature = "sm_101a", target_feature = "sm_120a"),
        target_feature = "ptx86"
    ),
    "{{ .reg .b8 t; cvt.u8.u16 t, {a}; cvt.rn.f16x2.e2m1x2 {d}, t; }}"
);

/// Declares a `cvt` of two `f32` lanes into a 32-bit pair register.
macro_rules! cvt_x2_f32 {
    ($(#[$m:meta])* $name:ident, $insn:literal) => {
        $(#[$m])*
        #[cfg(target_feature = "sm_80")]
        #[inline(always)]
        pub(crate) fn $name(lo: f32, hi: f32) -> u32 {
            let d: u32;
            // SAFETY: a register-only `cvt` that every `sm_80` target has
            // (PTX 7.0, which `sm_80` implies).
            unsafe {
                asm!(
                    concat!($insn, " {d}, {a}, {b};"),
                    d = out(reg32) d,
                    a = in(reg32) hi,
                    b = in(reg32) lo,
                    options(pure, nomem, nostack),
                )
            };
            d
        }
    };
}

cvt_x2_f32!(
    /// `cvt.rn.f16x2.f32`: two `f16` bit patterns, lane 0 in bits 15:0.
    f16x2,
    "cvt.rn.f16x2.f32"
);
cvt_x2_f32!(
    /// `cvt.rn.bf16x2.f32`: two `bf16` bit patterns, lane 0 in bits 15:0.
    bf16x2,
    "cvt.rn.bf16x2.f32"
);

/// `cvt.f32.f16` of both halves of an `f16x2` register: `[lane 0, lane 1]`.
#[inline(always)]
pub(crate) fn f32x2_from_f16x2(h: u32) -> [f32; 2] {
    let (lo, hi): (f32, f32);
    // SAFETY: register-only instructions of every PTX target; the scoped
    // temporaries clash with no other register.
    unsafe {
        asm!(
            "{{ .reg .b16 l, h; mov.b32 {{l, h}}, {s}; cvt.f32.f16 {lo}, l; cvt.f32.f16 {hi}, h; }}",
            s = in(reg32) h,
            lo = out(reg32) lo,
            hi = out(reg32) hi,
            options(pure, nomem, nostack),
        )
    };
    [lo, hi]
}
