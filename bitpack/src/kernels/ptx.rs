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

/// `tier!(fp8 ITEM)`, `tier!(fp4 ITEM)`, `tier!(sm80 ITEM)`: `ITEM` (an item
/// or a block statement) only for the targets that have that tier's `cvt`
/// forms: `fp8` the FP8 pairs (`sm_89`, PTX 7.8), `fp4` the FP4/FP6/E8M0
/// pairs (`sm_100a`, `sm_101a`, `sm_120a`, PTX 8.6), `sm80` the `f16`/`bf16`
/// pairs (`sm_80`, PTX 7.0). The one place each condition is written.
macro_rules! tier {
    (fp8 $($t:tt)*) => {
        #[cfg(all(target_feature = "sm_89", target_feature = "ptx78"))]
        $($t)*
    };
    (fp4 $($t:tt)*) => {
        #[cfg(all(
            any(target_feature = "sm_100a", target_feature = "sm_101a", target_feature = "sm_120a"),
            target_feature = "ptx86"
        ))]
        $($t)*
    };
    (sm80 $($t:tt)*) => {
        #[cfg(target_feature = "sm_80")]
        $($t)*
    };
}
pub(crate) use tier;

/// Declares register-only `cvt` wrappers of one signature: each line names
/// the tier that has the instruction, the function and the instruction text
/// (operands by name, `{d}` the result). A `.b8` operand, which inline asm
/// has no class for, goes through a temporary scoped by braces.
macro_rules! cvt {
    (fn $sig:tt -> $rt:ty => $rc:ident;
     $($(#[$m:meta])* $tier:ident $name:ident = $insn:literal;)*) => {$(
        cvt!(@one $sig, $rt, $rc, $tier, $name, $insn, [$(#[$m])*]);
    )*};
    (@one ($($a:ident: $at:ty => $ac:ident),*), $rt:ty, $rc:ident, $tier:ident, $name:ident,
     $insn:literal, [$($attr:tt)*]) => {
        tier! { $tier
            $($attr)*
            #[inline(always)]
            pub(crate) fn $name($($a: $at),*) -> $rt {
                let d: $rt;
                // SAFETY: register-only instructions (no memory, no side
                // effects) that the target has: `tier!` requires the `sm_XX`
                // and `ptxNN` target features the PTX ISA lists for them, and
                // temporaries are scoped by braces, so they clash with no
                // other register.
                unsafe {
                    asm!(
                        $insn,
                        d = out($rc) d,
                        $($a = in($ac) $a,)*
                        options(pure, nomem, nostack)
                    )
                };
                d
            }
        }
    };
}

// Two `f32` lanes into a 16-bit pair of codes (the first source operand
// goes to the high half).
cvt! {
    fn(lo: f32 => reg32, hi: f32 => reg32) -> u16 => reg16;
    /// `cvt.rn.satfinite.e4m3x2.f32`: two E4M3 codes, `lo` in bits 7:0.
    fp8 e4m3x2 = "cvt.rn.satfinite.e4m3x2.f32 {d}, {hi}, {lo};";
    /// `cvt.rn.satfinite.e5m2x2.f32`: as [`e4m3x2`] for E5M2.
    fp8 e5m2x2 = "cvt.rn.satfinite.e5m2x2.f32 {d}, {hi}, {lo};";
    /// `cvt.rn.satfinite.e2m3x2.f32`: two E2M3 codes, `lo` in bits 5:0 and
    /// `hi` in bits 13:8.
    fp4 e2m3x2 = "cvt.rn.satfinite.e2m3x2.f32 {d}, {hi}, {lo};";
    /// `cvt.rn.satfinite.e3m2x2.f32`: as [`e2m3x2`] for E3M2.
    fp4 e3m2x2 = "cvt.rn.satfinite.e3m2x2.f32 {d}, {hi}, {lo};";
    /// `cvt.rz.satfinite.ue8m0x2.f32`: two E8M0 codes rounded toward zero.
    fp4 ue8m0x2_rz = "cvt.rz.satfinite.ue8m0x2.f32 {d}, {hi}, {lo};";
    /// `cvt.rp.satfinite.ue8m0x2.f32`: rounded up.
    fp4 ue8m0x2_rp = "cvt.rp.satfinite.ue8m0x2.f32 {d}, {hi}, {lo};";
    /// `cvt.rn.satfinite.e2m1x2.f32`: two E2M1 codes, `lo` in bits 3:0 and
    /// `hi` in bits 7:4 (the instruction writes a `.b8` register).
    fp4 e2m1x2 = "{{ .reg .b8 t; cvt.rn.satfinite.e2m1x2.f32 t, {hi}, {lo}; cvt.u16.u8 {d}, t; }}";
}

// A 16-bit pair of codes (lane 0 low) into an `f16x2` (lane 0 in bits 15:0).
cvt! {
    fn(codes: u16 => reg16) -> u32 => reg32;
    /// `cvt.rn.f16x2.e4m3x2`: the two E4M3 codes of `codes` (lane 0 in bits
    /// 7:0) as two `f16`s.
    fp8 f16x2_from_e4m3x2 = "cvt.rn.f16x2.e4m3x2 {d}, {codes};";
    /// `cvt.rn.f16x2.e5m2x2`: as [`f16x2_from_e4m3x2`] for E5M2.
    fp8 f16x2_from_e5m2x2 = "cvt.rn.f16x2.e5m2x2 {d}, {codes};";
    /// `cvt.rn.f16x2.e2m3x2`: two E2M3 codes, one per byte (bits 5:0 and
    /// 13:8).
    fp4 f16x2_from_e2m3x2 = "cvt.rn.f16x2.e2m3x2 {d}, {codes};";
    /// `cvt.rn.f16x2.e3m2x2`: as [`f16x2_from_e2m3x2`] for E3M2.
    fp4 f16x2_from_e3m2x2 = "cvt.rn.f16x2.e3m2x2 {d}, {codes};";
    /// `cvt.rn.f16x2.e2m1x2`: the two E2M1 codes in bits 7:0 of `codes`
    /// (lane 0 in bits 3:0); the source is a `.b8` register.
    fp4 f16x2_from_e2m1x2 = "{{ .reg .b8 t; cvt.u8.u16 t, {codes}; cvt.rn.f16x2.e2m1x2 {d}, t; }}";
}

// Two `f32` lanes into a 32-bit pair (lane 0 in bits 15:0).
cvt! {
    fn(lo: f32 => reg32, hi: f32 => reg32) -> u32 => reg32;
    /// `cvt.rn.f16x2.f32`: two `f16` bit patterns.
    sm80 f16x2 = "cvt.rn.f16x2.f32 {d}, {hi}, {lo};";
    /// `cvt.rn.bf16x2.f32`: two `bf16` bit patterns.
    sm80 bf16x2 = "cvt.rn.bf16x2.f32 {d}, {hi}, {lo};";
}

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
