//! [`Simt`] on the GPU: the special registers, `shfl.sync`, `bar.sync` and
//! plain global loads and stores.

use core::arch::asm;
use core::arch::nvptx;

use bitpack::kernels::simt::Simt;

/// The calling GPU thread. A kernel entry makes one and hands it to a body
/// of `bitpack::kernels::gpu`.
#[derive(Clone, Copy)]
pub struct Gpu;

impl Simt for Gpu {
    #[inline(always)]
    fn thread_idx(&self) -> u32 {
        // SAFETY: reading `%tid.x` has no preconditions inside a kernel.
        unsafe { nvptx::_thread_idx_x() as u32 }
    }
    #[inline(always)]
    fn block_idx(&self) -> u32 {
        // SAFETY: reading `%ctaid.x` has no preconditions inside a kernel.
        unsafe { nvptx::_block_idx_x() as u32 }
    }
    #[inline(always)]
    fn block_dim(&self) -> u32 {
        // SAFETY: reading `%ntid.x` has no preconditions inside a kernel.
        unsafe { nvptx::_block_dim_x() as u32 }
    }
    #[inline(always)]
    fn grid_dim(&self) -> u32 {
        // SAFETY: reading `%nctaid.x` has no preconditions inside a kernel.
        unsafe { nvptx::_grid_dim_x() as u32 }
    }
    #[inline(always)]
    fn shfl_down_u32(&self, v: u32, delta: u32) -> u32 {
        let a: u32;
        // SAFETY: a register-only warp shuffle; the trait's contract has
        // every lane of the warp execute it, converged, with the full mask.
        unsafe {
            asm!(
                "shfl.sync.down.b32 {a}, {v}, {d}, 0x1f, 0xffffffff;",
                a = out(reg32) a,
                v = in(reg32) v,
                d = in(reg32) delta,
                options(nomem, nostack),
            )
        };
        a
    }
    #[inline(always)]
    fn shfl_xor_u32(&self, v: u32, mask: u32) -> u32 {
        let a: u32;
        // SAFETY: as in `shfl_down_u32`.
        unsafe {
            asm!(
                "shfl.sync.bfly.b32 {a}, {v}, {m}, 0x1f, 0xffffffff;",
                a = out(reg32) a,
                v = in(reg32) v,
                m = in(reg32) mask,
                options(nomem, nostack),
            )
        };
        a
    }
    #[inline(always)]
    fn shfl_idx_u32(&self, v: u32, src_lane: u32) -> u32 {
        let a: u32;
        // SAFETY: as in `shfl_down_u32`.
        unsafe {
            asm!(
                "shfl.sync.idx.b32 {a}, {v}, {s}, 0x1f, 0xffffffff;",
                a = out(reg32) a,
                v = in(reg32) v,
                s = in(reg32) src_lane,
                options(nomem, nostack),
            )
        };
        a
    }
    #[inline(always)]
    fn sync_threads(&self) {
        // SAFETY: `bar.sync 0`, which the trait's contract has every thread
        // of the block execute.
        unsafe { nvptx::_syncthreads() }
    }
    #[inline(always)]
    unsafe fn load<T: Copy>(&self, p: *const T, i: usize) -> T {
        // SAFETY: the caller's promise: `p.add(i)` is in bounds of one
        // allocation.
        let q = unsafe { p.add(i) };
        if size_of::<T>() == 16 && align_of::<T>() >= 16 {
            // One 128-bit load, whatever LLVM would make of the aggregate
            // (it may split a `[u32; 4]` into two 64-bit loads).
            // SAFETY: the caller's promise: 16 readable bytes, 16-byte
            // aligned, in global memory (every kernel argument buffer is).
            let v = unsafe { ld128(q.cast()) };
            // SAFETY: `T` is 16 bytes, which `v` holds; `T: Copy` and the
            // bytes are a `T` read from memory.
            return unsafe { core::mem::transmute_copy(&v) };
        }
        // SAFETY: the caller's promise: in bounds, aligned, not written
        // concurrently.
        unsafe { q.read() }
    }
    #[inline(always)]
    unsafe fn store<T: Copy>(&self, p: *mut T, i: usize, v: T) {
        // SAFETY: the caller's promise: `p.add(i)` is in bounds of one
        // allocation.
        let q = unsafe { p.add(i) };
        if size_of::<T>() == 16 && align_of::<T>() >= 16 {
            // SAFETY: `T` is 16 bytes: read them as four words.
            let w: [u32; 4] = unsafe { core::mem::transmute_copy(&v) };
            // SAFETY: the caller's promise: 16 writable bytes, 16-byte
            // aligned, in global memory, written by this thread alone.
            unsafe { st128(q.cast(), w) };
            return;
        }
        // SAFETY: the caller's promise: in bounds, aligned, not accessed
        // concurrently.
        unsafe { q.write(v) }
    }
}

/// `ld.global.v4.u32` at the generic address `p`.
///
/// # Safety
///
/// `p` is a 16-byte aligned address of 16 readable bytes of global memory.
#[inline(always)]
unsafe fn ld128(p: *const u32) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: the caller's promise; `cvta.to.global` turns the generic
    // address into the global one it names.
    unsafe {
        asm!(
            "{{ .reg .u64 g; cvta.to.global.u64 g, {p}; ld.global.v4.u32 {{{a}, {b}, {c}, {d}}}, [g]; }}",
            p = in(reg64) p,
            a = out(reg32) a,
            b = out(reg32) b,
            c = out(reg32) c,
            d = out(reg32) d,
            options(readonly, nostack, preserves_flags),
        )
    };
    [a, b, c, d]
}

/// `st.global.v4.u32` of `w` at the generic address `p`.
///
/// # Safety
///
/// `p` is a 16-byte aligned address of 16 writable bytes of global memory.
#[inline(always)]
unsafe fn st128(p: *mut u32, w: [u32; 4]) {
    // SAFETY: the caller's promise, as in `ld128`.
    unsafe {
        asm!(
            "{{ .reg .u64 g; cvta.to.global.u64 g, {p}; st.global.v4.u32 [g], {{{a}, {b}, {c}, {d}}}; }}",
            p = in(reg64) p,
            a = in(reg32) w[0],
            b = in(reg32) w[1],
            c = in(reg32) w[2],
            d = in(reg32) w[3],
            options(nostack, preserves_flags),
        )
    };
}
