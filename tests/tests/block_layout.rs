//! The GEMM-side layouts of block scales: the 128 x 4 tiled ("swizzled")
//! layout (`swizzled_index`, `swizzle_scales`, `unswizzle_scales`) against
//! an enumeration of the tiles as cuBLAS describes them, and the columnwise
//! MX output (`MxArray::quantize_columnwise`) against blocks along axis 0.

use bitpack::Error;
use bitpack::formats::{
    E2M1, E4M3, E5M2, MxArray, MxElement, MxOptions, Rounding, ScaleRule, swizzle_scales,
    swizzled_index, swizzled_len, unswizzle_scales,
};
use proptest::prelude::*;

/// The tiled bytes by enumeration: the scales padded with zeros to
/// 128-row x 4-column tiles, tiles in row-major order, each tile 512 bytes
/// laid out as `[32][4][4]`: (row within a 32-row group, the group, the
/// column).
fn tiles_by_enumeration(scales: &[u8], rows: usize, cols: usize) -> Vec<u8> {
    let at = |r: usize, c: usize| {
        if r < rows && c < cols {
            scales[r * cols + c]
        } else {
            0
        }
    };
    let mut out = Vec::new();
    for tr in 0..rows.div_ceil(128) {
        for tc in 0..cols.div_ceil(4) {
            for a in 0..32 {
                for g in 0..4 {
                    for c in 0..4 {
                        out.push(at(tr * 128 + g * 32 + a, tc * 4 + c));
                    }
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn swizzle_matches_the_tile_enumeration(rows in 0usize..300, cols in 0usize..11, seed: u8) {
        let scales: Vec<u8> = (0..rows * cols).map(|i| (i as u8).wrapping_mul(31) ^ seed | 1).collect();
        let tiled = swizzle_scales(&scales, rows, cols).unwrap();
        prop_assert_eq!(tiled.len(), swizzled_len(rows, cols));
        prop_assert_eq!(&tiled, &tiles_by_enumeration(&scales, rows, cols));
        for r in 0..rows {
            for c in 0..cols {
                prop_assert_eq!(tiled[swizzled_index(r, c, cols)], scales[r * cols + c]);
            }
        }
        prop_assert_eq!(unswizzle_scales(&tiled, rows, cols).unwrap(), scales);
    }
}

#[test]
fn unswizzle_rejects_wrong_lengths() {
    let tiled = swizzle_scales(&[7u8; 130 * 5], 130, 5).unwrap();
    for bad in [0, 1, tiled.len() - 1, tiled.len() + 1, 512] {
        let mut t = tiled.clone();
        t.resize(bad, 0);
        match unswizzle_scales(&t, 130, 5) {
            Err(e @ Error::Length { expected: 2048, .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("2048") && msg.contains(&bad.to_string()),
                    "{msg}"
                );
            }
            other => panic!("{bad} bytes: {other:?}"),
        }
    }
    assert!(matches!(
        unswizzle_scales(&[], usize::MAX, usize::MAX),
        Err(Error::Length { .. })
    ));
    assert_eq!(unswizzle_scales(&[], 0, 9).unwrap(), Vec::<u8>::new());
}

/// Data with zeros, varied magnitudes and now and then a NaN.
fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = s >> 11;
            match r % 31 {
                0 => 0.0,
                1 => f32::NAN,
                2 => ((r >> 8) as f32) * 1e-30,
                _ => ((r >> 8) % 20001) as f32 / 100.0 - 100.0,
            }
        })
        .collect()
}

fn check_columnwise<F: MxElement>(rows: usize, cols: usize, rule: ScaleRule, seed: u64) {
    let x = data(rows * cols, seed);
    let opts = MxOptions {
        scale: rule,
        ..MxOptions::default()
    };
    let t = MxArray::<F>::quantize_columnwise(&x, &[rows, cols], &opts).unwrap();
    let along = MxArray::<F>::quantize_with(
        &x,
        &[rows, cols],
        &MxOptions {
            axis: Some(0),
            ..opts
        },
    )
    .unwrap();
    assert_eq!(t.shape(), [cols, rows]);
    let nb = rows.div_ceil(32);
    assert_eq!(t.scales().shape(), [cols, nb]);
    // The scales of the blocks along axis 0 are [nb, cols]: transposed.
    let (ts, al) = (t.scales().as_bytes(), along.scales().as_bytes());
    for c in 0..cols {
        for b in 0..nb {
            assert_eq!(ts[c * nb + b], al[b * cols + c], "column {c}, block {b}");
        }
    }
    let (td, ad) = (t.dequantize(), along.dequantize());
    for r in 0..rows {
        for c in 0..cols {
            let (a, b) = (td[c * rows + r], ad[r * cols + c]);
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "({r}, {c})"
            );
        }
    }
}

#[test]
fn columnwise_is_the_transposed_axis_0_quantization() {
    for (rows, cols) in [(1, 1), (32, 3), (33, 5), (70, 64), (96, 1), (5, 40)] {
        for rule in [
            ScaleRule::Floor,
            ScaleRule::Ceil,
            ScaleRule::Even,
            ScaleRule::RCeil,
        ] {
            check_columnwise::<E2M1>(rows, cols, rule, rows as u64 * 7 + cols as u64);
            check_columnwise::<E4M3>(rows, cols, rule, rows as u64 * 11 + cols as u64);
            check_columnwise::<E5M2>(rows, cols, rule, rows as u64 * 13 + cols as u64);
        }
    }
}

#[test]
fn columnwise_stochastic_indexes_the_transposed_data() {
    let x = data(40 * 6, 9);
    let mut t = vec![0f32; x.len()];
    for r in 0..40 {
        for c in 0..6 {
            t[c * 40 + r] = x[r * 6 + c];
        }
    }
    let opts = MxOptions {
        rounding: Rounding::Stochastic { seed: 77 },
        ..MxOptions::default()
    };
    let a = MxArray::<E2M1>::quantize_columnwise(&x, &[40, 6], &opts).unwrap();
    let b = MxArray::<E2M1>::quantize_with(&t, &[6, 40], &opts).unwrap();
    assert_eq!(a.values().as_bytes(), b.values().as_bytes());
    assert_eq!(a.scales().as_bytes(), b.scales().as_bytes());
}

#[test]
fn columnwise_rejects_an_axis_and_bad_shapes() {
    let x = [1.0f32; 6];
    let opts = MxOptions {
        axis: Some(0),
        ..MxOptions::default()
    };
    assert!(matches!(
        MxArray::<E2M1>::quantize_columnwise(&x, &[2, 3], &opts),
        Err(Error::Invalid(_))
    ));
    let opts = MxOptions::default();
    assert!(matches!(
        MxArray::<E2M1>::quantize_columnwise(&x, &[4, 2], &opts),
        Err(Error::Shape { .. })
    ));
    assert!(MxArray::<E2M1>::quantize_columnwise(&x, &[], &opts).is_err());
    // Leading dimensions flatten into rows.
    let q = MxArray::<E2M1>::quantize_columnwise(&x, &[1, 2, 3], &opts).unwrap();
    assert_eq!(q.shape(), [3, 2]);
    assert_eq!(q.values().len(), 6);
    assert_eq!(E2M1::from_f32(1.0).to_bits(), 2);
}
