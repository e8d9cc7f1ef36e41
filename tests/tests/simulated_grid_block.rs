//! The one-pass MX and NVFP4 GPU kernel bodies of `bitpack::formats::gpu`
//! (the `mx_*` and `nvfp4_*` entries of `bitpack-ptx`), run on the
//! simulated grid (`bitpack_tests::simt_sim`: every thread, bounds and one
//! writer per byte checked), bit for bit against the host `MxArray` and
//! `Nvfp4Array`: every format and rule, `f32`/`f16`/`bf16` input, nearest
//! and stochastic rounding, blocks along any axis, the swizzled and
//! columnwise outputs, tails, misaligned starts and grids smaller and
//! larger than the work.

use bitpack::formats::gpu::{self, MxQuantize, Nvfp4Quantize};
use bitpack::formats::{
    E2M1, E2M3, E3M2, E4M3, E5M2, MxArray, MxElement, MxOptions, Nvfp4Array, Nvfp4Blocks,
    Nvfp4Options, Real, Rounding, ScaleRule, TinyScale, mx_scale_f32, nvfp4_scale_f32,
};
use bitpack::kernels::gpu::float::{Half, Input};
use bitpack::kernels::words_for;
use bitpack_tests::rng;
use bitpack_tests::simt_sim::{Grid, Launch};
use bytemuck::Pod;
use proptest::prelude::*;

/// A kernel input type and the host type it stands for.
trait In: Input + Send + Sync {
    type Host: Real;
    fn from_f32(x: f32) -> Self;
    fn host(self) -> Self::Host;
}

impl In for f32 {
    type Host = f32;
    fn from_f32(x: f32) -> Self {
        x
    }
    fn host(self) -> f32 {
        self
    }
}

impl In for Half<false> {
    type Host = half::f16;
    fn from_f32(x: f32) -> Self {
        Half(half::f16::from_f32(x).to_bits())
    }
    fn host(self) -> half::f16 {
        half::f16::from_bits(self.0)
    }
}

impl In for Half<true> {
    type Host = half::bf16;
    fn from_f32(x: f32) -> Self {
        Half(half::bf16::from_f32(x).to_bits())
    }
    fn host(self) -> half::bf16 {
        half::bf16::from_bits(self.0)
    }
}

/// `n` values: magnitudes over many binades, zeros, blocks of tiny values,
/// and (with `specials`) a rare NaN or infinity.
fn data(n: usize, seed: u64, specials: bool) -> Vec<f32> {
    let mut r = rng(seed);
    let tiny_from = (r() % 64) as usize;
    (0..n)
        .map(|i| {
            let b = r();
            let m = (b & 0xffff) as f32 / 4096.0 - 8.0;
            let e = ((b >> 16) % 24) as i32 - 12;
            let x = m * 2f32.powi(e);
            match (b >> 40) % 97 {
                0 => 0.0,
                1 if specials => f32::NAN,
                2 if specials => f32::NEG_INFINITY,
                3 => -0.0,
                _ if (i / 32) % 64 == tiny_from => x * 1e-30,
                _ => x,
            }
        })
        .collect()
}

/// A zeroed, 16-byte aligned allocation holding `len` `T`s after `off`.
struct Buf {
    mem: Vec<u128>,
}

impl Buf {
    fn new<T: Pod>(len: usize, off: usize) -> Self {
        let bytes = (len + off) * size_of::<T>();
        Buf {
            mem: vec![0u128; bytes.div_ceil(16) + 1],
        }
    }
    fn get<T: Pod>(&mut self, len: usize, off: usize) -> &mut [T] {
        let all: &mut [T] = bytemuck::cast_slice_mut(&mut self.mem);
        &mut all[off..off + len]
    }
}

/// `Ok` when the codes and the scales equal the host's, else which differ
/// and where first.
fn same_outputs(
    codes: &[u8],
    want: &[u8],
    scales: &[u8],
    want_scales: &[u8],
) -> Result<(), String> {
    if codes != want {
        return Err(format!("codes differ: {}", first_diff(codes, want)));
    }
    if scales != want_scales {
        return Err(format!(
            "scales differ: {}",
            first_diff(scales, want_scales)
        ));
    }
    Ok(())
}

/// The bytes of `words` as the packed stream's `bytes` bytes, the rest of
/// the words checked to be zero (padding).
fn stream_bytes(words: &[u64], bytes: usize) -> Result<Vec<u8>, String> {
    let all: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if all[bytes..].iter().any(|&b| b != 0) {
        return Err(format!("padding bytes not zero: {:?}", &all[bytes..]));
    }
    Ok(all[..bytes].to_vec())
}

fn first_diff(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!(
            "first difference at byte {i}: {:#04x} != {:#04x}",
            a[i], b[i]
        ),
        None => format!("lengths {} != {}", a.len(), b.len()),
    }
}

/// One MX quantize launch.
#[derive(Clone, Copy, Debug)]
struct MxCase {
    outer: usize,
    d: usize,
    inner: usize,
    rule: ScaleRule,
    stochastic: bool,
    swizzled: bool,
    columnwise: bool,
    grid: (u32, u32),
    /// Element offset of the input, word offset of the codes.
    src_off: usize,
    words_off: usize,
    seed: u64,
}

const RULES: [ScaleRule; 4] = [
    ScaleRule::Floor,
    ScaleRule::Ceil,
    ScaleRule::Even,
    ScaleRule::RCeil,
];

/// The host shape of `c`, blocked along axis 1: `[outer, d]` (so that the
/// swizzled scales tile `[outer, blocks]`) or `[outer, d, inner]`.
fn shape_of(c: &MxCase) -> Vec<usize> {
    if c.inner == 1 {
        vec![c.outer, c.d]
    } else {
        vec![c.outer, c.d, c.inner]
    }
}

/// Runs `mx_quantize` for `c` and compares with the host.
fn mx_quantize_case<F: MxElement, const W: u32, I: In>(c: &MxCase) -> Result<(), String> {
    let n = c.outer * c.d * c.inner;
    let raw = data(n, c.seed, c.seed.is_multiple_of(3));
    let input: Vec<I> = raw.iter().map(|&x| I::from_f32(x)).collect();
    mx_quantize_check::<F, W, I>(c, &input)
}

/// [`mx_quantize_case`] on the given input.
fn mx_quantize_check<F: MxElement, const W: u32, I: In>(
    c: &MxCase,
    input: &[I],
) -> Result<(), String> {
    let n = c.outer * c.d * c.inner;
    let host_in: Vec<I::Host> = input.iter().map(|&x| x.host()).collect();
    let rounding = if c.stochastic {
        Rounding::Stochastic { seed: c.seed }
    } else {
        Rounding::Nearest
    };
    let q = MxQuantize {
        outer: c.outer,
        d: c.d,
        inner: c.inner,
        rule: c.rule,
        rounding,
        swizzled: c.swizzled,
        columnwise: c.columnwise,
    };
    // The same options through the entries' arguments.
    let (rule, seed, flags) = q.args();
    let q = MxQuantize::from_args(
        c.outer as u64,
        c.d as u64,
        c.inner as u64,
        rule,
        seed,
        flags,
    );
    let host = if c.columnwise {
        let opts = MxOptions {
            scale: c.rule,
            axis: None,
            rounding,
        };
        MxArray::<F>::quantize_columnwise(&host_in, &[c.outer, c.d], &opts)
    } else {
        let opts = MxOptions {
            scale: c.rule,
            axis: Some(1),
            rounding,
        };
        MxArray::<F>::quantize_with(&host_in, &shape_of(c), &opts)
    }
    .map_err(|e| e.to_string())?;
    let want_scales = if c.swizzled {
        host.scales_swizzled()
    } else {
        host.scales().as_bytes().to_vec()
    };
    assert_eq!(q.scales_len(), want_scales.len(), "scales_len");
    let nw = words_for(W, n);
    let mut sb = Buf::new::<I>(n, c.src_off);
    sb.get::<I>(n, c.src_off).copy_from_slice(input);
    let mut wb = Buf::new::<u64>(nw, c.words_off);
    let mut cb = Buf::new::<u8>(want_scales.len(), 0);
    {
        let src: &[I] = sb.get(n, c.src_off);
        let words = wb.get::<u64>(nw, c.words_off);
        let scales = cb.get::<u8>(want_scales.len(), 0);
        let mut l = Launch::new();
        let (s, w, sc) = (
            l.input("src", src),
            l.output("words", words),
            l.output("scales", scales),
        );
        l.try_run(Grid::new(c.grid.0, c.grid.1), |t| {
            // SAFETY: the buffers are sized as the body requires.
            unsafe { gpu::mx_quantize::<_, F, W, I>(t, s.get_const(), &q, w.get(), sc.get()) }
        })?;
    }
    let got = stream_bytes(
        wb.get::<u64>(nw, c.words_off),
        host.values().as_bytes().len(),
    )?;
    same_outputs(
        &got,
        host.values().as_bytes(),
        cb.get::<u8>(want_scales.len(), 0),
        &want_scales,
    )
}

/// Runs `mx_dequantize` on the host quantization of `c` and compares.
fn mx_dequantize_case<F: MxElement, const W: u32>(c: &MxCase) -> Result<(), String> {
    let n = c.outer * c.d * c.inner;
    let raw = data(n, c.seed, true);
    let opts = MxOptions {
        scale: c.rule,
        axis: Some(1),
        rounding: Rounding::Nearest,
    };
    let host = MxArray::<F>::quantize_with(&raw, &shape_of(c), &opts).map_err(|e| e.to_string())?;
    let want = host.dequantize();
    let nw = words_for(W, n);
    let mut wb = Buf::new::<u64>(nw, c.words_off);
    let bytes = host.values().as_bytes();
    {
        let w = wb.get::<u64>(nw, c.words_off);
        for (k, chunk) in bytes.chunks(8).enumerate() {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            w[k] = u64::from_le_bytes(b);
        }
    }
    let scales = host.scales().as_bytes().to_vec();
    let mut ob = Buf::new::<f32>(n, c.src_off);
    {
        let words: &[u64] = wb.get::<u64>(nw, c.words_off);
        let out = ob.get::<f32>(n, c.src_off);
        let mut l = Launch::new();
        let (w, sc, o) = (
            l.input("words", words),
            l.input("scales", &scales[..]),
            l.output("out", out),
        );
        let (outer, d, inner) = (c.outer, c.d, c.inner);
        l.try_run(Grid::new(c.grid.0, c.grid.1), |t| {
            // SAFETY: the buffers are sized as the body requires.
            unsafe {
                gpu::mx_dequantize::<_, F, W>(
                    t,
                    w.get_const(),
                    outer,
                    d,
                    inner,
                    sc.get_const(),
                    o.get(),
                )
            }
        })?;
    }
    let got = ob.get::<f32>(n, c.src_off);
    match got
        .iter()
        .zip(&want)
        .position(|(a, b)| a.to_bits() != b.to_bits())
    {
        Some(i) => Err(format!("value {i}: {} != {}", got[i], want[i])),
        None => Ok(()),
    }
}

/// One NVFP4 launch.
#[derive(Clone, Copy, Debug)]
struct NvCase {
    matrices: usize,
    matrix_rows: usize,
    cols: usize,
    tiles: bool,
    tiny: TinyScale,
    stochastic: bool,
    swizzled: bool,
    grid: (u32, u32),
    src_off: usize,
    words_off: usize,
    seed: u64,
}

fn nvfp4_quantize_case<I: In>(c: &NvCase) -> Result<(), String> {
    let rows = c.matrices * c.matrix_rows;
    let n = rows * c.cols;
    let raw = data(n, c.seed, c.seed.is_multiple_of(3));
    let input: Vec<I> = raw.iter().map(|&x| I::from_f32(x)).collect();
    let widened: Vec<f32> = input.iter().map(|&x| x.widen()).collect();
    let ts = Nvfp4Array::default_tensor_scale(&widened).unwrap_or(1.0);
    nvfp4_quantize_check(c, &input, ts)
}

/// [`nvfp4_quantize_case`] on the given input and tensor scale.
fn nvfp4_quantize_check<I: In>(c: &NvCase, input: &[I], ts: f32) -> Result<(), String> {
    let rows = c.matrices * c.matrix_rows;
    let n = rows * c.cols;
    let host_in: Vec<I::Host> = input.iter().map(|&x| x.host()).collect();
    let rounding = if c.stochastic {
        Rounding::Stochastic { seed: c.seed }
    } else {
        Rounding::Nearest
    };
    let opts = Nvfp4Options {
        blocks: if c.tiles {
            Nvfp4Blocks::Tiles16x16
        } else {
            Nvfp4Blocks::Rows
        },
        tensor_scale: Some(ts),
        tiny: c.tiny,
        rounding,
    };
    let host = Nvfp4Array::quantize_with(&host_in, &[c.matrices, c.matrix_rows, c.cols], &opts)
        .map_err(|e| e.to_string())?;
    let q = Nvfp4Quantize {
        rows,
        cols: c.cols,
        matrix_rows: c.matrix_rows,
        tile: if c.tiles { 16 } else { 1 },
        tensor_scale: ts,
        tiny: c.tiny,
        rounding,
        swizzled: c.swizzled,
    };
    let (tiny, seed, flags) = q.args();
    let q = Nvfp4Quantize::from_args(
        rows as u64,
        c.cols as u64,
        c.matrix_rows as u64,
        q.tile as u64,
        ts,
        tiny,
        seed,
        flags,
    );
    let want_scales = if c.swizzled {
        host.scales_swizzled()
    } else {
        host.scales().as_bytes().to_vec()
    };
    assert_eq!(q.scales_len(), want_scales.len(), "scales_len");
    let nw = words_for(4, n);
    let mut sb = Buf::new::<I>(n, c.src_off);
    sb.get::<I>(n, c.src_off).copy_from_slice(input);
    let mut wb = Buf::new::<u64>(nw, c.words_off);
    let mut cb = Buf::new::<u8>(want_scales.len(), 0);
    {
        let src: &[I] = sb.get(n, c.src_off);
        let words = wb.get::<u64>(nw, c.words_off);
        let scales = cb.get::<u8>(want_scales.len(), 0);
        let mut l = Launch::new();
        let (s, w, sc) = (
            l.input("src", src),
            l.output("words", words),
            l.output("scales", scales),
        );
        l.try_run(Grid::new(c.grid.0, c.grid.1), |t| {
            // SAFETY: the buffers are sized as the body requires.
            unsafe { gpu::nvfp4_quantize::<_, I>(t, s.get_const(), &q, w.get(), sc.get()) }
        })?;
    }
    let got = stream_bytes(
        wb.get::<u64>(nw, c.words_off),
        host.values().as_bytes().len(),
    )?;
    same_outputs(
        &got,
        host.values().as_bytes(),
        cb.get::<u8>(want_scales.len(), 0),
        &want_scales,
    )
}

fn nvfp4_dequantize_case(c: &NvCase) -> Result<(), String> {
    let rows = c.matrices * c.matrix_rows;
    let n = rows * c.cols;
    let raw = data(n, c.seed, true);
    let opts = Nvfp4Options {
        tensor_scale: Some(0.75),
        tiny: c.tiny,
        ..Nvfp4Options::default()
    };
    let host =
        Nvfp4Array::quantize_with(&raw, &[rows, c.cols], &opts).map_err(|e| e.to_string())?;
    let want = host.dequantize();
    let nw = words_for(4, n);
    let mut wb = Buf::new::<u64>(nw, c.words_off);
    {
        let w = wb.get::<u64>(nw, c.words_off);
        for (k, chunk) in host.values().as_bytes().chunks(8).enumerate() {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            w[k] = u64::from_le_bytes(b);
        }
    }
    let scales = host.scales().as_bytes().to_vec();
    let mut ob = Buf::new::<f32>(n, c.src_off);
    {
        let words: &[u64] = wb.get::<u64>(nw, c.words_off);
        let out = ob.get::<f32>(n, c.src_off);
        let mut l = Launch::new();
        let (w, sc, o) = (
            l.input("words", words),
            l.input("scales", &scales[..]),
            l.output("out", out),
        );
        let cols = c.cols;
        l.try_run(Grid::new(c.grid.0, c.grid.1), |t| {
            // SAFETY: the buffers are sized as the body requires.
            unsafe {
                gpu::nvfp4_dequantize(t, w.get_const(), rows, cols, sc.get_const(), 0.75, o.get())
            }
        })?;
    }
    let got = ob.get::<f32>(n, c.src_off);
    match got
        .iter()
        .zip(&want)
        .position(|(a, b)| a.to_bits() != b.to_bits())
    {
        Some(i) => Err(format!("value {i}: {} != {}", got[i], want[i])),
        None => Ok(()),
    }
}

type MxCheck = Box<dyn Fn(&MxCase) -> Result<(), String> + Send + Sync>;
type NvCheck = Box<dyn Fn(&NvCase) -> Result<(), String> + Send + Sync>;

/// Every block-scaled entry of `bitpack-ptx`, named as there, with its
/// check.
fn mx_checks() -> Vec<(String, MxCheck)> {
    let mut v: Vec<(String, MxCheck)> = Vec::new();
    macro_rules! mx {
        ($($f:ty, $w:literal, $name:literal;)*) => {$(
            v.push((format!("mx_quantize_{}", $name), Box::new(mx_quantize_case::<$f, $w, f32>)));
            v.push((format!("mx_quantize_{}_f16", $name),
                Box::new(mx_quantize_case::<$f, $w, Half<false>>)));
            v.push((format!("mx_quantize_{}_bf16", $name),
                Box::new(mx_quantize_case::<$f, $w, Half<true>>)));
            v.push((format!("mx_dequantize_{}", $name), Box::new(mx_dequantize_case::<$f, $w>)));
        )*};
    }
    mx!(E2M1, 4, "e2m1"; E2M3, 6, "e2m3"; E3M2, 6, "e3m2"; E4M3, 8, "e4m3"; E5M2, 8, "e5m2";);
    v
}

fn nv_checks() -> Vec<(String, NvCheck)> {
    vec![
        (
            "nvfp4_quantize".into(),
            Box::new(nvfp4_quantize_case::<f32>),
        ),
        (
            "nvfp4_quantize_f16".into(),
            Box::new(nvfp4_quantize_case::<Half<false>>),
        ),
        (
            "nvfp4_quantize_bf16".into(),
            Box::new(nvfp4_quantize_case::<Half<true>>),
        ),
        ("nvfp4_dequantize".into(), Box::new(nvfp4_dequantize_case)),
    ]
}

/// The block-scaled entries of `bitpack/ptx/ENTRIES`.
fn block_entries() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../bitpack/ptx/ENTRIES");
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("reading {path}: {e}"))
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("mx_") || l.starts_with("nvfp4_"))
        .map(String::from)
        .collect()
}

#[test]
fn every_block_entry_has_a_check() {
    let mut names: Vec<String> = mx_checks().into_iter().map(|(n, _)| n).collect();
    names.extend(nv_checks().into_iter().map(|(n, _)| n));
    names.sort();
    let mut listed = block_entries();
    listed.sort();
    println!(
        "{} block-scaled entries of ENTRIES, {} checked on the simulated grid",
        listed.len(),
        names.len()
    );
    assert_eq!(names, listed, "checks vs ENTRIES");
}

/// Shapes that take each path: `(outer, d, inner)`.
fn mx_shape() -> impl Strategy<Value = (usize, usize, usize)> {
    prop_oneof![
        // Contiguous whole blocks (the fast path for every format).
        (1usize..5, (1usize..4).prop_map(|k| 64 * k), Just(1)),
        // Rows with a partial block.
        (1usize..4, 1usize..100, Just(1)),
        // Blocks along another axis (strided).
        (1usize..3, 1usize..70, 1usize..6),
    ]
}

fn grid() -> impl Strategy<Value = (u32, u32)> {
    prop_oneof![Just((1, 32)), Just((2, 64)), Just((3, 96)), Just((1, 256))]
}

fn mx_case() -> impl Strategy<Value = MxCase> {
    (
        mx_shape(),
        0usize..4,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        grid(),
        prop_oneof![3 => Just(0usize), 1 => 1usize..4],
        prop_oneof![3 => Just(0usize), 1 => Just(1usize)],
        any::<u64>(),
    )
        .prop_map(|((outer, d, inner), r, st, sw, cw, grid, so, wo, seed)| {
            // Swizzled and columnwise need blocks along the last axis.
            let inner = if sw || cw { 1 } else { inner };
            MxCase {
                outer,
                d,
                inner,
                rule: RULES[r],
                stochastic: st,
                swizzled: sw,
                columnwise: cw,
                grid,
                src_off: so,
                words_off: wo,
                seed,
            }
        })
}

fn nv_case() -> impl Strategy<Value = NvCase> {
    (
        (
            1usize..3,
            1usize..40,
            prop_oneof![(1usize..4).prop_map(|k| 64 * k), 1usize..90],
        ),
        any::<bool>(),
        0usize..3,
        any::<bool>(),
        any::<bool>(),
        grid(),
        prop_oneof![3 => Just(0usize), 1 => 1usize..4],
        prop_oneof![3 => Just(0usize), 1 => Just(1usize)],
        any::<u64>(),
    )
        .prop_map(
            |((m, mr, cols), tiles, tiny, st, sw, grid, so, wo, seed)| NvCase {
                matrices: m,
                matrix_rows: mr,
                cols,
                tiles,
                tiny: [TinyScale::Flush, TinyScale::Smallest, TinyScale::MinNormal][tiny],
                stochastic: st,
                swizzled: sw,
                grid,
                src_off: so,
                words_off: wo,
                seed,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mx_entries_match_the_host(c in mx_case()) {
        for (name, check) in mx_checks() {
            if let Err(e) = check(&c) {
                return Err(TestCaseError::fail(format!("{name}: {e}")));
            }
        }
    }

    #[test]
    fn nvfp4_entries_match_the_host(c in nv_case()) {
        for (name, check) in nv_checks() {
            if let Err(e) = check(&c) {
                return Err(TestCaseError::fail(format!("{name}: {e}")));
            }
        }
    }
}

/// Fixed cases of each path, so that every run covers them whatever
/// proptest draws.
#[test]
fn every_path_of_every_entry() {
    let base = MxCase {
        outer: 3,
        d: 128,
        inner: 1,
        rule: ScaleRule::Floor,
        stochastic: false,
        swizzled: false,
        columnwise: false,
        grid: (2, 64),
        src_off: 0,
        words_off: 0,
        seed: 7,
    };
    let cases = [
        // The fast path, grid smaller than the work, every rule.
        base,
        MxCase {
            rule: ScaleRule::Ceil,
            grid: (1, 32),
            outer: 40,
            ..base
        },
        MxCase {
            rule: ScaleRule::Even,
            stochastic: true,
            ..base
        },
        MxCase {
            rule: ScaleRule::RCeil,
            swizzled: true,
            outer: 130,
            ..base
        },
        // 5 blocks: a scale tail after the last u32.
        MxCase {
            outer: 5,
            d: 64,
            ..base
        },
        // A partial last block and a tail unit.
        MxCase {
            d: 45,
            grid: (3, 96),
            ..base
        },
        // Misaligned input, misaligned words.
        MxCase { src_off: 1, ..base },
        MxCase {
            words_off: 1,
            stochastic: true,
            ..base
        },
        // Blocks along another axis.
        MxCase {
            outer: 2,
            d: 40,
            inner: 3,
            rule: ScaleRule::RCeil,
            ..base
        },
        // Columnwise, swizzled and not.
        MxCase {
            outer: 70,
            d: 9,
            columnwise: true,
            ..base
        },
        MxCase {
            outer: 64,
            d: 5,
            columnwise: true,
            swizzled: true,
            stochastic: true,
            ..base
        },
        // Swizzled with a row of blocks that is not a multiple of 4.
        MxCase {
            outer: 3,
            d: 96,
            swizzled: true,
            ..base
        },
    ];
    let mut runs = 0;
    for c in &cases {
        for (name, check) in mx_checks() {
            check(c).unwrap_or_else(|e| panic!("{name} {c:?}: {e}"));
            runs += 1;
        }
    }
    let nbase = NvCase {
        matrices: 2,
        matrix_rows: 20,
        cols: 64,
        tiles: false,
        tiny: TinyScale::Flush,
        stochastic: false,
        swizzled: false,
        grid: (2, 64),
        src_off: 0,
        words_off: 0,
        seed: 11,
    };
    let ncases = [
        nbase,
        NvCase {
            stochastic: true,
            tiny: TinyScale::Smallest,
            ..nbase
        },
        NvCase {
            swizzled: true,
            matrices: 7,
            ..nbase
        },
        NvCase {
            cols: 96,
            grid: (1, 32),
            ..nbase
        },
        NvCase {
            cols: 40,
            tiny: TinyScale::MinNormal,
            ..nbase
        },
        NvCase {
            tiles: true,
            matrix_rows: 19,
            ..nbase
        },
        NvCase {
            tiles: true,
            swizzled: true,
            stochastic: true,
            ..nbase
        },
        NvCase {
            src_off: 2,
            ..nbase
        },
        NvCase {
            words_off: 1,
            ..nbase
        },
        NvCase {
            matrices: 1,
            matrix_rows: 1,
            cols: 32,
            grid: (1, 256),
            ..nbase
        },
    ];
    for c in &ncases {
        for (name, check) in nv_checks() {
            check(c).unwrap_or_else(|e| panic!("{name} {c:?}: {e}"));
            runs += 1;
        }
    }
    println!("{runs} launches of the block-scaled bodies matched the host");
}

/// `blocks` blocks of `len` 16-bit values (`I`: `f16` or `bf16`), for the
/// fast paths that compare the values' own bits with the E2M1 thresholds on
/// their grid: each block holds its largest value (over the whole finite
/// range), then values at, and one or two steps of the 16-bit grid around,
/// the seven E2M1 midpoints times `unit(amax)` (the block's scale, or the
/// scale times the tensor scale), with random signs.
fn midpoint_blocks<I: In>(
    r: &mut impl FnMut() -> u64,
    blocks: usize,
    len: usize,
    unit: impl Fn(f32) -> f64,
) -> Vec<I> {
    let mids = [0.25f64, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0];
    // The 16-bit value nearest `x`, as bits, and the value of bits.
    let to16 = |x: f64| -> u16 {
        if I::BF16 {
            half::bf16::from_f64(x).to_bits()
        } else {
            half::f16::from_f64(x).to_bits()
        }
    };
    let of16 = |b: u16| -> f32 {
        if I::BF16 {
            half::bf16::from_bits(b).to_f32()
        } else {
            half::f16::from_bits(b).to_f32()
        }
    };
    let max_bits: u16 = if I::BF16 { 0x7f7f } else { 0x7bff };
    let mut input = Vec::with_capacity(blocks * len);
    for _ in 0..blocks {
        let amax = (1 + r() % u64::from(max_bits)) as u16;
        let d = unit(of16(amax));
        input.push(I::from_bits(u64::from(amax)));
        for _ in 1..len {
            let b = r();
            let t = mids[(b % 7) as usize] * d;
            let step = ((b >> 8) % 5) as i32 - 2;
            let near = i32::from(to16(t).min(max_bits)) + step;
            let mut bits = near.clamp(0, i32::from(max_bits)) as u16;
            if b >> 16 & 1 == 1 {
                bits |= 0x8000;
            }
            input.push(I::from_bits(u64::from(bits)));
        }
    }
    input
}

/// NVFP4 from `f16` and `bf16` on the fast path ([`midpoint_blocks`]), for
/// block maxima over the whole range (subnormal thresholds included),
/// tensor scales from tiny to huge and every tiny-scale rule.
#[test]
fn nvfp4_16_bit_inputs_at_the_midpoints() {
    fn check<I: In>() {
        let base = NvCase {
            matrices: 1,
            matrix_rows: 8,
            cols: 64,
            tiles: false,
            tiny: TinyScale::Flush,
            stochastic: false,
            swizzled: false,
            grid: (2, 64),
            src_off: 0,
            words_off: 0,
            seed: 0,
        };
        for seed in 0..24u64 {
            let mut r = rng(seed + 100);
            let ts = match seed % 4 {
                0 => 1.0,
                1 => 2f32.powi((r() % 60) as i32 - 30),
                2 => f32::from_bits(0x3000_0000 + (r() % 0x1800_0000) as u32),
                _ => f32::from_bits(1 + (r() % 0x7f00_0000) as u32),
            };
            let tiny =
                [TinyScale::Flush, TinyScale::Smallest, TinyScale::MinNormal][seed as usize % 3];
            let c = NvCase { tiny, ..base };
            let input: Vec<I> = midpoint_blocks(&mut r, c.matrix_rows * c.cols / 16, 16, |a| {
                f64::from(nvfp4_scale_f32(a.to_bits(), ts, tiny).to_f32()) * f64::from(ts)
            });
            if let Err(e) = nvfp4_quantize_check(&c, &input, ts) {
                panic!("bf16 {}, tensor scale {ts:e}, {tiny:?}: {e}", I::BF16);
            }
        }
    }
    check::<Half<false>>();
    check::<Half<true>>();
}

/// MX E2M1 from `f16` and `bf16` on the fast path ([`midpoint_blocks`],
/// blocks of 32 under their power of two), for block maxima over the whole
/// range and every scale rule.
#[test]
fn mx_e2m1_16_bit_inputs_at_the_midpoints() {
    fn check<I: In>() {
        for seed in 0..8u64 {
            let mut r = rng(seed + 200);
            let c = MxCase {
                outer: 8,
                d: 128,
                inner: 1,
                rule: RULES[seed as usize % 4],
                stochastic: false,
                swizzled: false,
                columnwise: false,
                grid: (2, 64),
                src_off: 0,
                words_off: 0,
                seed,
            };
            let input: Vec<I> = midpoint_blocks(&mut r, c.outer * c.d / 32, 32, |a| {
                f64::from(mx_scale_f32::<E2M1>(a.to_bits(), c.rule).to_f32())
            });
            if let Err(e) = mx_quantize_check::<E2M1, 4, I>(&c, &input) {
                panic!("bf16 {}, {:?}: {e}", I::BF16, c.rule);
            }
        }
    }
    check::<Half<false>>();
    check::<Half<true>>();
}
