//! A GPU kernel that uses `bitpack` types: each thread loads eight FP4
//! (E2M1) values as one `NArray<E2M1, 8>` (a single `u32`), decodes them in
//! registers, scales them, and encodes them back, two lanes per packed
//! `cvt.rn.satfinite.e2m1x2.f32` on targets that have it (`sm_100a`,
//! `sm_101a`, `sm_120a`; the portable rounding elsewhere, same bits).
//!
//! Build: `./build.sh` in this folder (README.md), which writes
//! `target/ptx/kernel-crate-TARGET.ptx`; `../kernel-host` launches it.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx)]
#![deny(unsafe_op_in_unsafe_fn)]

use core::arch::nvptx;

use bitpack::E2M1;
use bitpack::formats::Mode;
use bitpack::kernels::fixed;

mod args;
pub use args::{Fp4x8, ScaleArgs};

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: `trap` aborts the kernel; it has no preconditions.
    unsafe { nvptx::trap() }
}

/// `x * scale`, rounded back to E2M1 (saturating at ±6), lane by lane.
#[inline(always)]
pub fn scale_lanes(x: Fp4x8, scale: f32) -> Fp4x8 {
    let raw = x.raw_bits();
    let mut out = 0u32;
    for k in 0..4 {
        // Lanes 2k and 2k + 1 are byte k, lane 2k in the low nibble.
        let [a, b] = fixed::decode_pair::<E2M1>((raw >> (8 * k)) as u16 & 0xff);
        let pair = fixed::encode_pair::<E2M1>(a * scale, b * scale, Mode::SatFinite);
        out |= (pair as u32) << (8 * k);
    }
    Fp4x8::from_raw_bits(out)
}

/// `y[i] = scale_lanes(x[i], scale)` for `i < groups`, one group per thread.
///
/// # Safety
///
/// `x` and `y` hold `groups` values each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn scale_e2m1(args: ScaleArgs) {
    // SAFETY: reading the special registers has no preconditions.
    let i = unsafe {
        nvptx::_block_idx_x() as u64 * nvptx::_block_dim_x() as u64 + nvptx::_thread_idx_x() as u64
    };
    if i >= args.groups {
        return;
    }
    // SAFETY: `i < groups`, so both addresses are inside the caller's buffers.
    unsafe {
        let x = args.x.as_ptr().add(i as usize).read();
        args.y
            .as_mut_ptr()
            .add(i as usize)
            .write(scale_lanes(x, args.scale));
    }
}
