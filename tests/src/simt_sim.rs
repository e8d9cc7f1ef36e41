//! A simulated GPU grid: runs a kernel body written against
//! [`bitpack::kernels::simt::Simt`] on every thread of every block of a
//! one-dimensional grid, on the host, and checks what a GPU does not.
//!
//! - Every thread of a block is an OS thread (scoped), so the block's
//!   barrier (`sync_threads`) and its warps' shuffles are real exchanges:
//!   each warp has a rendezvous of its 32 lanes, each block one of all its
//!   threads. A lane that returns while the others of its warp wait in a
//!   shuffle (divergent code), or a thread that returns while its block
//!   waits at the barrier, makes the launch fail instead of hanging.
//! - Blocks run one after the other; each global access is checked against
//!   the buffers registered for the launch: an access outside every buffer,
//!   a store into an input, a misaligned access, or a byte written by two
//!   threads in one launch fails the launch with a message naming the
//!   threads, the buffer and the byte.
//! - Memory is accessed a byte at a time through atomics, so even a racy
//!   body is no undefined behaviour on the host.
//!
//! ```
//! use bitpack::kernels::simt::{Simt, grid_stride};
//! use bitpack_tests::simt_sim::{Grid, Launch};
//!
//! let src: Vec<u32> = (0..100).collect();
//! let mut dst = vec![0u32; 100];
//! let mut l = Launch::new();
//! let (s, d) = (l.input("src", &src), l.output("dst", &mut dst));
//! l.run(Grid::new(2, 32), |t| {
//!     for i in grid_stride(t, 100) {
//!         // SAFETY: `i < 100`, inside both buffers; one writer per element.
//!         unsafe { t.store(d.get(), i, t.load(s.get(), i) + 1) };
//!     }
//! });
//! drop(l);
//! assert_eq!(dst[99], 100);
//! ```

use std::any::Any;
use std::marker::PhantomData;
use std::mem::{align_of, size_of};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, Ordering};
use std::sync::{Condvar, Mutex};

use bitpack::kernels::simt::Simt;

/// The shape of a launch: `blocks` blocks of `threads` threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    /// `gridDim.x`.
    pub blocks: u32,
    /// `blockDim.x`, a multiple of 32.
    pub threads: u32,
}

impl Grid {
    /// `blocks` blocks of `threads` threads.
    ///
    /// # Panics
    ///
    /// When `threads` is not a positive multiple of 32 or `blocks` is 0.
    pub fn new(blocks: u32, threads: u32) -> Self {
        assert!(
            threads > 0 && threads.is_multiple_of(32) && blocks > 0,
            "a grid needs blocks >= 1 and threads a positive multiple of 32, got {blocks} x {threads}"
        );
        Grid { blocks, threads }
    }
}

/// A device pointer of a launch, which the body's closure may capture.
#[derive(Debug)]
pub struct SimPtr<T>(*mut T);

impl<T> Clone for SimPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SimPtr<T> {}

// SAFETY: a `SimPtr` is an address; every access through it goes through the
// launch's checked, atomic byte accesses.
unsafe impl<T> Send for SimPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SimPtr<T> {}

impl<T> SimPtr<T> {
    /// The address, for a body's `*mut T` argument.
    pub fn get(self) -> *mut T {
        self.0
    }
    /// The address as a `*const T`.
    pub fn get_const(self) -> *const T {
        self.0
    }
}

/// One buffer of a launch.
struct Region {
    name: String,
    start: usize,
    len: usize,
    writable: bool,
    /// Per byte: 0, or the global id + 1 of the thread that wrote it.
    writer: Vec<AtomicU32>,
}

/// The buffers of one launch, borrowed for its lifetime `'a`.
pub struct Launch<'a> {
    regions: Vec<Region>,
    _borrow: PhantomData<&'a mut ()>,
}

impl std::fmt::Debug for Launch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<_> = self.regions.iter().map(|r| (&r.name, r.len)).collect();
        f.debug_struct("Launch").field("buffers", &names).finish()
    }
}

impl Default for Launch<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> Launch<'a> {
    /// A launch with no buffers.
    pub fn new() -> Self {
        Launch {
            regions: Vec::new(),
            _borrow: PhantomData,
        }
    }

    fn add(&mut self, name: &str, start: usize, len: usize, writable: bool) {
        self.regions.push(Region {
            name: name.to_string(),
            start,
            len,
            writable,
            writer: (0..len).map(|_| AtomicU32::new(0)).collect(),
        });
    }

    /// Registers `data` as a read-only buffer named `name`.
    pub fn input<T>(&mut self, name: &str, data: &'a [T]) -> SimPtr<T> {
        self.add(name, data.as_ptr() as usize, size_of_val(data), false);
        SimPtr(data.as_ptr() as *mut T)
    }

    /// Registers `data` as a buffer named `name` that the body may write.
    pub fn output<T>(&mut self, name: &str, data: &'a mut [T]) -> SimPtr<T> {
        self.add(name, data.as_ptr() as usize, size_of_val(data), true);
        SimPtr(data.as_mut_ptr())
    }

    /// Runs `body` on every thread of `grid`; panics with the first
    /// failure's message (see [`try_run`](Self::try_run)).
    pub fn run(&self, grid: Grid, body: impl Fn(&SimThread<'_>) + Sync) {
        if let Err(e) = self.try_run(grid, body) {
            panic!("{e}");
        }
    }

    /// Runs `body` on every thread of `grid`, block after block: `Err` with
    /// the first failure (an access the launch's buffers do not allow, two
    /// writers of one byte, a divergent shuffle or barrier, or a panic of the
    /// body), naming the block and thread.
    pub fn try_run(&self, grid: Grid, body: impl Fn(&SimThread<'_>) + Sync) -> Result<(), String> {
        for b in 0..grid.blocks {
            let block = BlockShared::new(grid.threads);
            let failure: Mutex<Option<String>> = Mutex::new(None);
            std::thread::scope(|scope| {
                for t in 0..grid.threads {
                    let (block, failure, body) = (&block, &failure, &body);
                    std::thread::Builder::new()
                        .stack_size(1 << 20)
                        .spawn_scoped(scope, move || {
                            let th = SimThread {
                                launch: self,
                                block,
                                grid,
                                block_idx: b,
                                thread_idx: t,
                            };
                            let r = catch_unwind(AssertUnwindSafe(|| body(&th)));
                            let r =
                                r.and_then(|()| catch_unwind(AssertUnwindSafe(|| block.exit(t))));
                            if let Err(e) = r {
                                let msg = message(&*e);
                                block.abort();
                                let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
                                // The first failure is the cause; the others
                                // are the threads it woke.
                                if f.is_none() || f.as_deref().is_some_and(|m| m.contains(ABORTED))
                                {
                                    *f = Some(format!("block {b}, thread {t}: {msg}"));
                                }
                            }
                        })
                        .expect("spawning a simulated thread");
                }
            });
            if let Some(f) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
                return Err(f);
            }
        }
        Ok(())
    }

    fn find(&self, addr: usize, n: usize) -> Result<&Region, String> {
        for r in &self.regions {
            if addr >= r.start && addr + n <= r.start + r.len {
                return Ok(r);
            }
        }
        let near = self
            .regions
            .iter()
            .map(|r| {
                let end = r.start + r.len;
                if addr < r.start {
                    (
                        r.start - addr,
                        format!("{} bytes before `{}`", r.start - addr, r.name),
                    )
                } else if addr >= end {
                    let d = addr - end;
                    (
                        d,
                        format!(
                            "{d} bytes past the end of `{}` ({} bytes long)",
                            r.name, r.len
                        ),
                    )
                } else {
                    (
                        0,
                        format!(
                            "the last {} bytes of `{}` and past its end",
                            end - addr,
                            r.name
                        ),
                    )
                }
            })
            .min_by_key(|x| x.0)
            .map_or("no buffer registered".to_string(), |x| x.1);
        Err(format!(
            "{n} bytes at {addr:#x}, outside every buffer ({near})"
        ))
    }
}

/// What the failing threads say when another thread's failure woke them.
const ABORTED: &str = "stopped: another thread of the block failed";

fn message(e: &(dyn Any + Send)) -> String {
    if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = e.downcast_ref::<&str>() {
        (*s).to_string()
    } else {
        "a panic with a non-string payload".to_string()
    }
}

/// A rendezvous of `n` parties, which fails when a party has left or the
/// block has aborted.
struct Rendezvous {
    state: Mutex<RvState>,
    cv: Condvar,
    n: u32,
}

struct RvState {
    arrived: u32,
    generation: u64,
    exited: u32,
    slots: Vec<u32>,
    args: Vec<u32>,
    out: Vec<u32>,
}

impl Rendezvous {
    fn new(n: u32) -> Self {
        Rendezvous {
            state: Mutex::new(RvState {
                arrived: 0,
                generation: 0,
                exited: 0,
                slots: vec![0; n as usize],
                args: vec![0; n as usize],
                out: vec![0; n as usize],
            }),
            cv: Condvar::new(),
            n,
        }
    }

    /// Party `me` offers `v` and its own argument `arg` (a shuffle's source
    /// lane, delta or mask, which may differ between lanes); once all have,
    /// `pick(slots, me, args[me])` gives each its result.
    fn exchange(
        &self,
        (me, v, arg): (u32, u32, u32),
        abort: &AtomicBool,
        what: &str,
        pick: fn(&[u32], u32, u32) -> u32,
    ) -> u32 {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if s.exited > 0 {
            panic!(
                "{what} called with {} of the {} threads gone (divergent code: every thread must call it)",
                s.exited, self.n
            );
        }
        s.slots[me as usize] = v;
        s.args[me as usize] = arg;
        s.arrived += 1;
        let gen_ = s.generation;
        if s.arrived == self.n {
            let (slots, args) = (s.slots.clone(), s.args.clone());
            for i in 0..self.n {
                s.out[i as usize] = pick(&slots, i, args[i as usize]);
            }
            s.arrived = 0;
            s.generation += 1;
            self.cv.notify_all();
        } else {
            while s.generation == gen_ {
                if abort.load(Ordering::SeqCst) {
                    panic!("{ABORTED}");
                }
                if s.exited > 0 {
                    panic!(
                        "{what}: {} of the {} threads returned while the others wait in it (divergent code)",
                        s.exited, self.n
                    );
                }
                s = self
                    .cv
                    .wait_timeout(s, std::time::Duration::from_millis(50))
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
        }
        // Results stay valid until this party's next call: the next round
        // cannot finish without it.
        s.out[me as usize]
    }

    fn exit(&self) -> Result<(), String> {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.exited += 1;
        self.cv.notify_all();
        if s.arrived > 0 {
            return Err(format!(
                "a thread returned while {} others wait at a shuffle or barrier (divergent code)",
                s.arrived
            ));
        }
        Ok(())
    }
}

/// The rendezvous of one block: its barrier and one per warp.
struct BlockShared {
    barrier: Rendezvous,
    warps: Vec<Rendezvous>,
    abort: AtomicBool,
}

impl BlockShared {
    fn new(threads: u32) -> Self {
        BlockShared {
            barrier: Rendezvous::new(threads),
            warps: (0..threads / 32).map(|_| Rendezvous::new(32)).collect(),
            abort: AtomicBool::new(false),
        }
    }

    fn abort(&self) {
        self.abort.store(true, Ordering::SeqCst);
        self.barrier.cv.notify_all();
        for w in &self.warps {
            w.cv.notify_all();
        }
    }

    fn exit(&self, t: u32) {
        let a = self.warps[(t / 32) as usize].exit();
        let b = self.barrier.exit();
        if let Err(e) = a.and(b) {
            panic!("{e}");
        }
    }
}

/// One simulated thread: what the body gets as its [`Simt`].
pub struct SimThread<'l> {
    launch: &'l Launch<'l>,
    block: &'l BlockShared,
    grid: Grid,
    block_idx: u32,
    thread_idx: u32,
}

impl std::fmt::Debug for SimThread<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimThread")
            .field("block", &self.block_idx)
            .field("thread", &self.thread_idx)
            .finish()
    }
}

impl SimThread<'_> {
    fn id(&self) -> u32 {
        self.block_idx * self.grid.threads + self.thread_idx
    }

    fn who(id: u32, threads: u32) -> String {
        format!("thread {} of block {}", id % threads, id / threads)
    }

    fn warp(&self) -> &Rendezvous {
        &self.block.warps[(self.thread_idx / 32) as usize]
    }

    fn check<T>(&self, p: *const T, i: usize, store: bool) -> (usize, &Region) {
        let what = if store { "writes" } else { "reads" };
        let addr = (p as usize).wrapping_add(i.wrapping_mul(size_of::<T>()));
        let r = self
            .launch
            .find(addr, size_of::<T>())
            .unwrap_or_else(|e| panic!("{what} element {i} of {p:?}: {e}"));
        if !addr.is_multiple_of(align_of::<T>()) {
            panic!(
                "{what} {} bytes at {addr:#x} (byte {} of `{}`), not aligned to {}",
                size_of::<T>(),
                addr - r.start,
                r.name,
                align_of::<T>()
            );
        }
        if store && !r.writable {
            panic!("writes byte {} of the input `{}`", addr - r.start, r.name);
        }
        (addr, r)
    }
}

impl Simt for SimThread<'_> {
    fn thread_idx(&self) -> u32 {
        self.thread_idx
    }
    fn block_idx(&self) -> u32 {
        self.block_idx
    }
    fn block_dim(&self) -> u32 {
        self.grid.threads
    }
    fn grid_dim(&self) -> u32 {
        self.grid.blocks
    }
    fn shfl_down_u32(&self, v: u32, delta: u32) -> u32 {
        self.warp().exchange(
            (self.thread_idx % 32, v, delta),
            &self.block.abort,
            "shfl_down_u32",
            |s, l, delta| {
                let src = l + delta;
                if src < 32 {
                    s[src as usize]
                } else {
                    s[l as usize]
                }
            },
        )
    }
    fn shfl_xor_u32(&self, v: u32, mask: u32) -> u32 {
        self.warp().exchange(
            (self.thread_idx % 32, v, mask),
            &self.block.abort,
            "shfl_xor_u32",
            |s, l, mask| s[((l ^ mask) % 32) as usize],
        )
    }
    fn shfl_idx_u32(&self, v: u32, src_lane: u32) -> u32 {
        // Each lane's own source lane (the last to arrive must not decide
        // for all).
        self.warp().exchange(
            (self.thread_idx % 32, v, src_lane),
            &self.block.abort,
            "shfl_idx_u32",
            |s, _, src| s[(src % 32) as usize],
        )
    }
    fn sync_threads(&self) {
        self.block.barrier.exchange(
            (self.thread_idx, 0, 0),
            &self.block.abort,
            "sync_threads",
            |_, _, _| 0,
        );
    }
    unsafe fn load<T: Copy>(&self, p: *const T, i: usize) -> T {
        let (addr, _) = self.check(p, i, false);
        let mut v = std::mem::MaybeUninit::<T>::uninit();
        let dst = v.as_mut_ptr().cast::<u8>();
        for k in 0..size_of::<T>() {
            // SAFETY: `addr + k` lies inside a registered buffer (checked
            // above), which the launch borrows for its lifetime; `AtomicU8`
            // has the size and alignment of `u8`, and every simulated access
            // goes through atomics.
            let a = unsafe { AtomicU8::from_ptr((addr + k) as *mut u8) };
            // SAFETY: `k < size_of::<T>()`: inside `v`.
            let d = unsafe { dst.add(k) };
            // SAFETY: as above, a byte of `v`.
            unsafe { d.write(a.load(Ordering::Relaxed)) };
        }
        // SAFETY: every byte of `v` was written from the buffer, which holds
        // `T`s at this (checked, aligned) place: a valid `T`.
        unsafe { v.assume_init() }
    }
    unsafe fn store<T: Copy>(&self, p: *mut T, i: usize, v: T) {
        let (addr, r) = self.check(p, i, true);
        let me = self.id() + 1;
        for k in 0..size_of::<T>() {
            let off = addr + k - r.start;
            if let Err(other) =
                r.writer[off].compare_exchange(0, me, Ordering::SeqCst, Ordering::SeqCst)
                && other != me
            {
                panic!(
                    "writes byte {off} of `{}`, which {} also writes in this launch",
                    r.name,
                    Self::who(other - 1, self.grid.threads)
                );
            }
        }
        let src = (&v as *const T).cast::<u8>();
        for k in 0..size_of::<T>() {
            // SAFETY: as in `load`: inside a writable registered buffer,
            // accessed through atomics only.
            let a = unsafe { AtomicU8::from_ptr((addr + k) as *mut u8) };
            // SAFETY: `k < size_of::<T>()`: inside `v`.
            let p = unsafe { src.add(k) };
            // SAFETY: as above, a byte of `v`.
            a.store(unsafe { p.read() }, Ordering::Relaxed);
        }
    }
}
