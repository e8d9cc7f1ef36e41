//! The device-callable block core (`BlockGrid`, `block_amax`, `mx_scale`,
//! `mx_codes`, `nvfp4_scale`, `nvfp4_codes`, `mx_value`, `nvfp4_value`)
//! used the way the GPU kernels use it, one scale and one value at a time in
//! any order, against `MxArray` and `Nvfp4Array` bit for bit: every MX
//! element format, every scale rule, any axis, both roundings; NVFP4 rows
//! and 16 x 16 tiles, every tiny-scale rule; and the dequantized values.

use bitpack::BitElement;
use bitpack::formats::{
    BlockGrid, E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, MxArray, MxElement, MxOptions, Nvfp4Array,
    Nvfp4Blocks, Nvfp4Options, Rounding, ScaleRule, TinyScale, block_amax, mx_codes, mx_scale,
    mx_value, nvfp4_codes, nvfp4_scale, nvfp4_value,
};
use proptest::prelude::*;

/// Data with zeros, tiny and huge values, and now and then a NaN or an
/// infinity.
fn data(n: usize, seed: u64, specials: bool) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = s >> 11;
            match r % 23 {
                0 => 0.0,
                1 if specials => f32::NAN,
                2 if specials => f32::INFINITY,
                3 => f32::from_bits((r >> 8) as u32 & 0x807f_ffff), // subnormal
                4 => ((r >> 8) as f32) * 1e30,
                _ => ((r >> 8) % 20001) as f32 / 1000.0 - 10.0,
            }
        })
        .collect()
}

/// `(outer, d, inner)` of `shape` along `axis`.
fn split(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    (
        shape[..axis].iter().product(),
        shape[axis],
        shape[axis + 1..].iter().product(),
    )
}

fn bits_eq(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

fn check_mx<F: MxElement>(
    x: &[f32],
    shape: &[usize],
    axis: usize,
    rule: ScaleRule,
    rounding: Rounding,
) {
    let opts = MxOptions {
        scale: rule,
        axis: Some(axis),
        rounding,
    };
    let mx = MxArray::<F>::quantize_with(x, shape, &opts).unwrap();
    let (outer, d, inner) = split(shape, axis);
    let grid = BlockGrid::along(outer, d, inner, 32);
    assert_eq!(grid.len(), x.len());
    // The scale kernel: one block per thread, in reverse to show no order.
    let mut scales = vec![0u8; grid.scales()];
    for g in (0..grid.scales()).rev() {
        scales[g] = mx_scale::<F>(grid.amax(x, g), rule).to_bits();
    }
    assert_eq!(
        scales,
        mx.scales().as_bytes(),
        "{shape:?} axis {axis} {rule:?}"
    );
    // The encode kernel: runs of values, each with the scale of its block.
    let mut codes = vec![0u8; x.len()];
    for start in (0..x.len()).step_by(7) {
        let end = x.len().min(start + 7);
        for (k, s) in (start..end).zip(grid.scale_walk(start)) {
            assert_eq!(s, grid.scale_of(k));
            let scale = E8M0::from_bits(scales[s]);
            mx_codes::<F, f32>(
                &x[k..k + 1],
                scale,
                rounding,
                k as u64,
                &mut codes[k..k + 1],
            );
        }
    }
    let values: Vec<u8> = mx.values().iter().map(|v| v.raw_bits()).collect();
    assert_eq!(codes, values, "{shape:?} axis {axis} {rule:?} {rounding:?}");
    // The decode kernel.
    let back: Vec<f32> = (0..x.len())
        .map(|i| {
            mx_value(
                F::from_raw_bits(codes[i]),
                E8M0::from_bits(scales[grid.scale_of(i)]),
            )
        })
        .collect();
    assert!(bits_eq(&back, &mx.dequantize()));
}

fn check_nvfp4(x: &[f32], shape: &[usize], opts: &Nvfp4Options) {
    let q = match Nvfp4Array::quantize_with(x, shape, opts) {
        Ok(q) => q,
        Err(e) => {
            // The default tensor scale needs a finite value: data with
            // none (one infinite value, say) must be refused, and nothing
            // else may be.
            assert!(
                opts.tensor_scale.is_none() && !x.is_empty() && !x.iter().any(|v| v.is_finite()),
                "{e} for {x:?} {shape:?} {opts:?}"
            );
            assert!(
                matches!(e, bitpack::Error::Invalid(m) if m.contains("finite")),
                "{e}"
            );
            return;
        }
    };
    let st = q.tensor_scale();
    let cols = *shape.last().unwrap();
    let rows = x.len().checked_div(cols).unwrap_or(0);
    let grid = match opts.blocks {
        Nvfp4Blocks::Rows => BlockGrid::along(rows, cols, 1, 16),
        Nvfp4Blocks::Tiles16x16 => {
            let m = if shape.len() >= 2 {
                shape[shape.len() - 2]
            } else {
                1
            };
            BlockGrid::tiles(rows, cols, m, 16, 16)
        }
    };
    let mut scales = vec![0u8; grid.scales()];
    for g in 0..grid.scales() {
        scales[g] = nvfp4_scale::<f32>(grid.amax(x, g), st, opts.tiny).to_bits();
    }
    assert_eq!(scales, q.scales().as_bytes(), "{shape:?} {opts:?}");
    let mut codes = vec![0u8; x.len()];
    for (k, s) in (0..x.len()).zip(grid.scale_walk(0)) {
        let scale = E4M3::from_bits(scales[s]);
        nvfp4_codes::<f32>(
            &x[k..k + 1],
            scale,
            st,
            opts.rounding,
            k as u64,
            &mut codes[k..k + 1],
        );
    }
    let values: Vec<u8> = q.values().iter().map(|v| v.raw_bits()).collect();
    assert_eq!(codes, values, "{shape:?} {opts:?}");
    let back: Vec<f32> = (0..x.len())
        .map(|i| {
            nvfp4_value(
                E2M1::from_raw_bits(codes[i]),
                E4M3::from_bits(scales[grid.scale_of(i)]),
                st,
            )
        })
        .collect();
    assert!(bits_eq(&back, &q.dequantize()));
}

fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..70, 1..4)
}

fn rule() -> impl Strategy<Value = ScaleRule> {
    prop::sample::select(vec![
        ScaleRule::Floor,
        ScaleRule::Ceil,
        ScaleRule::Even,
        ScaleRule::RCeil,
    ])
}

fn rounding() -> impl Strategy<Value = Rounding> {
    prop_oneof![
        Just(Rounding::Nearest),
        any::<u64>().prop_map(|seed| Rounding::Stochastic { seed })
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn mx_blocks_one_at_a_time_are_the_array(shape in shape(), axis in 0usize..3, rule in rule(),
                                             rounding in rounding(), seed: u64, specials: bool) {
        let axis = axis % shape.len();
        let n: usize = shape.iter().product();
        let x = data(n, seed, specials);
        check_mx::<E2M1>(&x, &shape, axis, rule, rounding);
        check_mx::<E2M3>(&x, &shape, axis, rule, rounding);
        check_mx::<E3M2>(&x, &shape, axis, rule, rounding);
        check_mx::<E4M3>(&x, &shape, axis, rule, rounding);
        check_mx::<E5M2>(&x, &shape, axis, rule, rounding);
    }

    #[test]
    fn nvfp4_blocks_one_at_a_time_are_the_array(shape in shape(), tiles: bool, tiny in 0u8..3,
                                                rounding in rounding(), seed: u64, specials: bool,
                                                given in prop::option::of(1e-6f32..10.0)) {
        let n: usize = shape.iter().product();
        let x = data(n, seed, specials);
        let opts = Nvfp4Options {
            blocks: if tiles { Nvfp4Blocks::Tiles16x16 } else { Nvfp4Blocks::Rows },
            tensor_scale: given,
            tiny: [TinyScale::Flush, TinyScale::Smallest, TinyScale::MinNormal][tiny as usize],
            rounding,
        };
        check_nvfp4(&x, &shape, &opts);
    }
}

/// Inputs long enough that the one-pass quantize fills every threshold row
/// before its first block (pieces of at least 16,384 blocks, on two
/// threads too) and then skips each block's check: still each scale and
/// value the value-by-value ones, for rows of blocks and 16 x 16 tiles,
/// the tensor scale computed and given, over blocks whose amaxes walk 48
/// binades (so that most of the scale codes occur).
#[test]
fn nvfp4_long_inputs_are_the_blocks_one_at_a_time() {
    let shape = [600, 1024];
    let mut x = data(600 * 1024, 7, true);
    for (i, v) in x.iter_mut().enumerate() {
        *v *= 2f32.powi((i / 16 % 48) as i32 - 24);
    }
    for (blocks, tensor_scale) in [
        (Nvfp4Blocks::Rows, None),
        (Nvfp4Blocks::Rows, Some(0.37)),
        (Nvfp4Blocks::Tiles16x16, None),
    ] {
        let opts = Nvfp4Options {
            blocks,
            tensor_scale,
            ..Nvfp4Options::default()
        };
        check_nvfp4(&x, &shape, &opts);
    }
}

/// What the proptest above draws now and then (one value, infinite): the
/// default tensor scale is refused, and a given one quantizes.
#[test]
fn nvfp4_blocks_of_data_without_a_finite_value() {
    for x in [[f32::INFINITY], [f32::NAN], [f32::NEG_INFINITY]] {
        check_nvfp4(&x, &[1], &Nvfp4Options::default());
        let given = Nvfp4Options {
            tensor_scale: Some(1.0),
            ..Nvfp4Options::default()
        };
        check_nvfp4(&x, &[1], &given);
        assert!(Nvfp4Array::quantize_with(&x, &[1], &Nvfp4Options::default()).is_err());
    }
}

#[test]
fn amax_skips_values_past_the_data_and_flags_specials() {
    let g = BlockGrid::along(1, 40, 1, 32);
    let x = [1.0f32, -7.5, 2.0];
    assert_eq!(g.amax(&x, 0), Some(7.5));
    assert_eq!(g.amax(&x, 1), Some(0.0)); // values 32..40 are past the data
    assert_eq!(g.amax(&x, 99), Some(0.0));
    assert_eq!(g.amax(&[f32::INFINITY], 0), None);
    assert_eq!(block_amax::<f32>(&[]), Some(0.0));
    // A NaN scale: +0 codes whatever the values; NaN values back.
    let mut c = [9u8; 2];
    mx_codes::<E4M3, f32>(
        &[1.0, -2.0],
        E8M0::from_bits(0xff),
        Rounding::Nearest,
        0,
        &mut c,
    );
    assert_eq!(c, [0, 0]);
    assert!(mx_value(E4M3::from_f32(1.0), E8M0::from_bits(0xff)).is_nan());
    nvfp4_codes::<f32>(&[1.0, -2.0], E4M3::NAN, 1.0, Rounding::Nearest, 0, &mut c);
    assert_eq!(c, [0, 0]);
    // A zero NVFP4 scale: zeros of each value's sign.
    nvfp4_codes::<f32>(
        &[1.0, -2.0],
        E4M3::from_bits(0),
        1.0,
        Rounding::Nearest,
        0,
        &mut c,
    );
    assert_eq!(c, [0, 8]);
}

#[test]
fn tiles_stop_at_the_matrix_and_the_array() {
    // Two matrices of 20 rows: tiles are rows 0..16, 16..20, 20..36, 36..40.
    let rows = 40;
    let mut x = vec![0f32; rows * 16];
    for r in 0..rows {
        x[r * 16] = r as f32;
    }
    let g = BlockGrid::tiles(rows, 16, 20, 16, 16);
    let amax: Vec<f64> = (0..rows).map(|r| g.amax(&x, r).unwrap()).collect();
    for (r, &a) in amax.iter().enumerate() {
        let top = match r {
            0..16 => 15,
            16..20 => 19,
            20..36 => 35,
            _ => 39,
        };
        assert_eq!(a, top as f64, "row {r}");
    }
}

/// The committed vectors of `tests/block-vectors/block_scaled.tsv`, which
/// `scripts/gpu_check.py --self-test` holds its numpy reference of MX and
/// NVFP4 against (so the GPU check compares the device with the crate's
/// host rules): this test recomputes every row with the crate and fails if
/// one differs. `BITPACK_WRITE_BLOCK_VECTORS=1` rewrites the file.
#[test]
fn block_vectors_are_what_the_crate_computes() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("block-vectors/block_scaled.tsv");
    let hex_f32 = |x: &[f32]| {
        x.iter()
            .map(|v| format!("{:08x}", v.to_bits()))
            .collect::<Vec<_>>()
            .join(",")
    };
    let hex_u8 = |x: &[u8]| x.iter().map(|v| format!("{v:02x}")).collect::<String>();
    let mut out =
        String::from("kind\tformat\trule\tshape\ttensor_scale\tinput_f32\tscales\tcodes\n");
    let shapes: [&[usize]; 2] = [&[3, 70], &[2, 20, 20]];
    for (s, shape) in shapes.iter().enumerate() {
        let n: usize = shape.iter().product();
        let x = data(n, 11 + s as u64, true);
        let sh = shape
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("x");
        // The input once; the rows after it refer to it ("-").
        out += &format!("input\t-\t-\t{sh}\t-\t{}\t-\t-\n", hex_f32(&x));
        fn mx_row<F: MxElement>(x: &[f32], shape: &[usize], rule: ScaleRule) -> (Vec<u8>, Vec<u8>) {
            let opts = MxOptions {
                scale: rule,
                ..MxOptions::default()
            };
            let q = MxArray::<F>::quantize_with(x, shape, &opts).unwrap();
            (
                q.scales().as_bytes().to_vec(),
                q.values().iter().map(|v| v.raw_bits()).collect(),
            )
        }
        for (rname, rule) in [
            ("floor", ScaleRule::Floor),
            ("ceil", ScaleRule::Ceil),
            ("even", ScaleRule::Even),
            ("rceil", ScaleRule::RCeil),
        ] {
            for (fname, (sc, codes)) in [
                ("e2m1", mx_row::<E2M1>(&x, shape, rule)),
                ("e2m3", mx_row::<E2M3>(&x, shape, rule)),
                ("e3m2", mx_row::<E3M2>(&x, shape, rule)),
                ("e4m3", mx_row::<E4M3>(&x, shape, rule)),
                ("e5m2", mx_row::<E5M2>(&x, shape, rule)),
            ] {
                out += &format!(
                    "mx\t{fname}\t{rname}\t{sh}\t-\t-\t{}\t{}\n",
                    hex_u8(&sc),
                    hex_u8(&codes)
                );
            }
        }
        for (rname, blocks, tiny, given) in [
            ("rows-flush", Nvfp4Blocks::Rows, TinyScale::Flush, None),
            (
                "rows-smallest",
                Nvfp4Blocks::Rows,
                TinyScale::Smallest,
                Some(1e-3f32),
            ),
            (
                "rows-minnormal",
                Nvfp4Blocks::Rows,
                TinyScale::MinNormal,
                Some(1e-3),
            ),
            (
                "tiles-flush",
                Nvfp4Blocks::Tiles16x16,
                TinyScale::Flush,
                None,
            ),
        ] {
            let opts = Nvfp4Options {
                blocks,
                tensor_scale: given,
                tiny,
                rounding: Rounding::Nearest,
            };
            let q = Nvfp4Array::quantize_with(&x, shape, &opts).unwrap();
            let codes: Vec<u8> = q.values().iter().map(|v| v.raw_bits()).collect();
            out += &format!(
                "nvfp4\te2m1\t{rname}\t{sh}\t{:08x}\t-\t{}\t{}\n",
                q.tensor_scale().to_bits(),
                hex_u8(q.scales().as_bytes()),
                hex_u8(&codes)
            );
        }
    }
    if std::env::var_os("BITPACK_WRITE_BLOCK_VECTORS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &out).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e} (BITPACK_WRITE_BLOCK_VECTORS=1 writes it)",
            path.display()
        )
    });
    assert!(
        committed == out,
        "{} differs from what the crate computes",
        path.display()
    );
}
