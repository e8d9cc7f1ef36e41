//! What a GPU kernel body sees of the machine, as a trait: the same body
//! runs on the GPU and under a host simulator.
//!
//! A kernel body is a function generic over `S: Simt` that reads its thread
//! and block indices, exchanges values within its warp, waits at block
//! barriers and accesses global memory only through the [`Simt`] value it is
//! given. `bitpack-ptx` implements the trait with the `nvptx64` special
//! registers, `shfl.sync` and plain loads and stores, and its
//! `extern "ptx-kernel"` entry points are one-line calls of the bodies in
//! [`gpu`](super::gpu); the tests implement it with a simulator that runs
//! every thread of every block on the host and checks every access against
//! the buffers of the launch. The module is `no_std`, allocates nothing and
//! builds on stable Rust for every target.
//!
//! The unit of a fast global access is [`U32x4`]: 16 bytes, 16-byte aligned,
//! which the GPU moves with one 128-bit instruction (`ld.global.v4.u32`).
//!
//! # Examples
//!
//! A grid-stride copy of `n` chunks, written once for every `Simt`:
//!
//! ```
//! use bitpack::kernels::simt::{Simt, U32x4, grid_stride};
//!
//! /// # Safety
//! /// `src` and `dst` hold `n` chunks each and do not overlap.
//! unsafe fn copy<S: Simt>(s: &S, src: *const U32x4, dst: *mut U32x4, n: usize) {
//!     for i in grid_stride(s, n) {
//!         // SAFETY: `i < n`; only this thread writes chunk `i`.
//!         unsafe { s.store(dst, i, s.load(src, i)) };
//!     }
//! }
//! # let _ = copy::<bitpack::kernels::simt::OneThread>;
//! ```

/// What a kernel body sees of the GPU: its indices in a one-dimensional
/// grid, its warp's shuffles, its block's barrier and global memory.
///
/// # Contract of an implementation
///
/// The indices are those of the calling thread; the shuffles exchange with
/// the other lanes of its warp (32 lanes, lane `thread_idx() % 32`); loads
/// and stores are plain accesses of one element. An implementation may check
/// more than a GPU does (bounds, races) and panic on a violation.
pub trait Simt {
    /// `threadIdx.x`.
    fn thread_idx(&self) -> u32;
    /// `blockIdx.x`.
    fn block_idx(&self) -> u32;
    /// `blockDim.x` (a multiple of 32).
    fn block_dim(&self) -> u32;
    /// `gridDim.x`.
    fn grid_dim(&self) -> u32;
    /// `shfl.sync.down`: lane `l` gets lane `l + delta`'s `v`, or its own
    /// `v` when `l + delta >= 32`. Called by all 32 lanes in converged code.
    fn shfl_down_u32(&self, v: u32, delta: u32) -> u32;
    /// `shfl.sync.bfly`: lane `l` gets lane `l ^ mask`'s `v` (`mask < 32`).
    /// Called by all 32 lanes in converged code.
    fn shfl_xor_u32(&self, v: u32, mask: u32) -> u32;
    /// `shfl.sync.idx`: every lane gets lane `src_lane % 32`'s `v`. Called by
    /// all 32 lanes in converged code.
    fn shfl_idx_u32(&self, v: u32, src_lane: u32) -> u32;
    /// `__syncthreads()`: waits until every thread of the block has called
    /// it. Called by every thread of the block.
    fn sync_threads(&self);
    /// Global memory: element `i` of the buffer at `p`.
    ///
    /// # Safety
    ///
    /// `p.add(i)` is in bounds of a live allocation and aligned for `T`; no
    /// other thread writes it concurrently.
    unsafe fn load<T: Copy>(&self, p: *const T, i: usize) -> T;
    /// Global memory: writes `v` to element `i` of the buffer at `p`.
    ///
    /// # Safety
    ///
    /// `p.add(i)` is in bounds of a live allocation and aligned for `T`; no
    /// other thread reads or writes it concurrently.
    unsafe fn store<T: Copy>(&self, p: *mut T, i: usize, v: T);
}

/// 16 bytes with 16-byte alignment: the unit of a 128-bit global access.
///
/// Word `k` holds bytes `4k..4k + 4` in little-endian order (the byte order
/// of every target this crate's kernels run on).
///
/// # Examples
///
/// ```
/// use bitpack::kernels::simt::U32x4;
/// assert_eq!(core::mem::align_of::<U32x4>(), 16);
/// let c = U32x4::from_u64s([0x0807_0605_0403_0201, 0x100f_0e0d_0c0b_0a09]);
/// assert_eq!(c.0[1], 0x0807_0605);
/// assert_eq!(c.to_u64s()[1], 0x100f_0e0d_0c0b_0a09);
/// ```
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct U32x4(pub [u32; 4]);

impl U32x4 {
    /// The two 64-bit halves (bytes `0..8`, `8..16`), little-endian.
    #[inline(always)]
    pub const fn to_u64s(self) -> [u64; 2] {
        let [a, b, c, d] = self.0;
        [a as u64 | (b as u64) << 32, c as u64 | (d as u64) << 32]
    }

    /// The chunk of two 64-bit halves (the inverse of [`to_u64s`](Self::to_u64s)).
    #[inline(always)]
    pub const fn from_u64s(v: [u64; 2]) -> Self {
        U32x4([
            v[0] as u32,
            (v[0] >> 32) as u32,
            v[1] as u32,
            (v[1] >> 32) as u32,
        ])
    }
}

/// The calling thread's index over the whole grid:
/// `blockIdx.x * blockDim.x + threadIdx.x`.
///
/// # Examples
///
/// ```
/// use bitpack::kernels::simt::{OneThread, global_thread};
/// assert_eq!(global_thread(&OneThread), 0);
/// ```
#[inline(always)]
pub fn global_thread<S: Simt>(s: &S) -> usize {
    s.block_idx() as usize * s.block_dim() as usize + s.thread_idx() as usize
}

/// The number of threads of the grid: `gridDim.x * blockDim.x`.
#[inline(always)]
pub fn grid_threads<S: Simt>(s: &S) -> usize {
    s.grid_dim() as usize * s.block_dim() as usize
}

/// The calling thread's lane in its warp: `threadIdx.x % 32`.
#[inline(always)]
pub fn lane<S: Simt>(s: &S) -> u32 {
    s.thread_idx() % 32
}

/// The calling thread's warp over the whole grid: `global_thread / 32`.
#[inline(always)]
pub fn global_warp<S: Simt>(s: &S) -> usize {
    global_thread(s) / 32
}

/// The units `t, t + T, t + 2T, ...` below `units` of the calling thread
/// `t` of a grid of `T` threads: a grid-stride loop, correct for any grid
/// and block size. Consecutive threads (the lanes of a warp) get consecutive
/// units.
///
/// # Examples
///
/// ```
/// use bitpack::kernels::simt::{OneThread, grid_stride};
/// assert_eq!(grid_stride(&OneThread, 3).collect::<Vec<_>>(), [0, 1, 2]);
/// ```
#[inline(always)]
pub fn grid_stride<S: Simt>(s: &S, units: usize) -> GridStride {
    GridStride {
        next: global_thread(s),
        step: grid_threads(s).max(1),
        end: units,
    }
}

/// The iterator of [`grid_stride`].
#[derive(Clone, Debug)]
pub struct GridStride {
    next: usize,
    step: usize,
    end: usize,
}

impl Iterator for GridStride {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        // Saturating, so a huge grid near `usize::MAX` ends the walk.
        self.next = i.saturating_add(self.step);
        Some(i)
    }
}

/// The sum of `v` over the 32 lanes of the warp, in lane 0 (the other lanes
/// get partial sums): five `shfl.down` steps on both halves. Called by all
/// 32 lanes.
#[inline(always)]
pub fn warp_sum_u64<S: Simt>(s: &S, mut v: u64) -> u64 {
    let mut d = 16;
    while d > 0 {
        let lo = s.shfl_down_u32(v as u32, d);
        let hi = s.shfl_down_u32((v >> 32) as u32, d);
        v = v.wrapping_add(lo as u64 | (hi as u64) << 32);
        d /= 2;
    }
    v
}

/// The largest `v` over the 32 lanes of the warp, in every lane
/// (butterfly). Called by all 32 lanes.
#[inline(always)]
pub fn warp_max_u32<S: Simt>(s: &S, mut v: u32) -> u32 {
    let mut m = 16;
    while m > 0 {
        v = v.max(s.shfl_xor_u32(v, m));
        m /= 2;
    }
    v
}

/// Whether `p` is 16-byte aligned: whether the buffer at `p` can be read and
/// written as [`U32x4`] chunks from its start.
#[inline(always)]
pub fn aligned16<T>(p: *const T) -> bool {
    (p as usize).is_multiple_of(16)
}

/// A grid of one block of one thread: the sequential [`Simt`] (a shuffle
/// returns the caller's own value; memory accesses are plain reads and
/// writes). For examples and for running a body that needs no other lane
/// on the host without a simulator; a body that exchanges values across a
/// warp (a warp reduction) needs a full warp, which the tests' simulator
/// runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct OneThread;

impl Simt for OneThread {
    fn thread_idx(&self) -> u32 {
        0
    }
    fn block_idx(&self) -> u32 {
        0
    }
    fn block_dim(&self) -> u32 {
        1
    }
    fn grid_dim(&self) -> u32 {
        1
    }
    fn shfl_down_u32(&self, v: u32, _delta: u32) -> u32 {
        // Lanes past the end keep their own value.
        v
    }
    fn shfl_xor_u32(&self, v: u32, _mask: u32) -> u32 {
        v
    }
    fn shfl_idx_u32(&self, v: u32, _src_lane: u32) -> u32 {
        v
    }
    fn sync_threads(&self) {}
    unsafe fn load<T: Copy>(&self, p: *const T, i: usize) -> T {
        // SAFETY: the caller's promise: `p.add(i)` is in bounds of one
        // allocation.
        let q = unsafe { p.add(i) };
        // SAFETY: the caller's promise: in bounds, aligned, not written
        // concurrently.
        unsafe { q.read() }
    }
    unsafe fn store<T: Copy>(&self, p: *mut T, i: usize, v: T) {
        // SAFETY: the caller's promise: `p.add(i)` is in bounds of one
        // allocation.
        let q = unsafe { p.add(i) };
        // SAFETY: the caller's promise: in bounds, aligned, not accessed
        // concurrently.
        unsafe { q.write(v) }
    }
}
