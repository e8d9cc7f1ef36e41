//! Large bulk calls split over threads: the input is cut at value indices
//! that are multiples of an alignment (so that a packed stream is cut at a
//! byte), each thread converting its part with the same single-threaded
//! kernel, so results are the same bytes as one call. Below
//! `MIN_PER_THREAD` values a thread a call stays on one thread.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The threads a call may use; 0: all the machine has.
static THREADS: AtomicUsize = AtomicUsize::new(0);

/// The fewest values worth a thread of their own (measured in
/// `python/bench.py`: below about a million values a thread's start costs
/// more than it saves).
pub(crate) const MIN_PER_THREAD: usize = 1 << 20;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    Ok(())
}

/// Sets the number of threads a large call may use (1: one thread; 0: all
/// the machine's cores, the default).
#[pyfunction]
fn set_num_threads(n: i64) -> PyResult<()> {
    let n = usize::try_from(n).map_err(|_| {
        PyValueError::new_err(format!("the number of threads must be 0 or more, not {n}"))
    })?;
    THREADS.store(n, Ordering::Relaxed);
    Ok(())
}

/// The number of threads a large call may use.
#[pyfunction]
pub(crate) fn get_num_threads() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    match THREADS.load(Ordering::Relaxed) {
        // Read once: the standard library reads the cgroup quota files.
        0 => *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        n => n,
    }
}

/// Runs `f` over `a` and `b`, which hold `n` values (value `i` at `a_at(i)`
/// and `b_at(i)`, exact for `i` a multiple of `align`), in parts on several
/// threads when `n` is large enough: the first error of any part is the
/// result. Lengths that do not fit the cut points go to `f` whole, which
/// reports them.
pub(crate) fn split<A: Sync, B: Send>(
    a: &[A],
    b: &mut [B],
    n: usize,
    align: usize,
    a_at: impl Fn(usize) -> usize,
    b_at: impl Fn(usize) -> usize,
    f: impl Fn(&[A], &mut [B]) -> bitpack::Result<()> + Sync,
) -> bitpack::Result<()> {
    let threads = get_num_threads().min(n / MIN_PER_THREAD).max(1);
    if threads == 1 {
        return f(a, b);
    }
    let per = n.div_ceil(threads).next_multiple_of(align);
    let cuts: Vec<usize> = (1..threads).map(|k| k * per).filter(|&c| c < n).collect();
    let last = cuts.last().copied().unwrap_or(0);
    if a.len() < a_at(last) || b.len() < b_at(last) {
        return f(a, b);
    }
    let mut parts = Vec::with_capacity(cuts.len() + 1);
    let (mut a_rest, mut b_rest) = (a, b);
    let mut done = 0;
    for &c in &cuts {
        let (a_part, a_tail) = a_rest.split_at(a_at(c) - a_at(done));
        let (b_part, b_tail) = b_rest.split_at_mut(b_at(c) - b_at(done));
        parts.push((a_part, b_part));
        (a_rest, b_rest, done) = (a_tail, b_tail, c);
    }
    parts.push((a_rest, b_rest));
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|(x, y)| s.spawn(move || f(x, y)))
            .collect();
        // Every part is joined; the first error is the result.
        let mut result = Ok(());
        for h in handles {
            let r = h
                .join()
                .unwrap_or(Err(bitpack::Error::Invalid("a conversion thread panicked")));
            if result.is_ok() {
                result = r;
            }
        }
        result
    })
}
