//! MX and NVFP4 block-scaled arrays: `from_parts` accepts exactly the
//! scale counts the shape needs, and `dequantize` is each value's own
//! decode times its block's scale (rounded once), against a reference that
//! finds the block by coordinates; `quantize` followed by `into_parts` and
//! `from_parts` gives the same array back.

#![no_main]

use arbitrary::Arbitrary;
use bitpack::formats::{E2M1, E4M3, E8M0, MxArray, Nvfp4Array};
use bitpack::{BitElement, NarrowArray};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    rows: u8,
    cols: u8,
    scales_delta: i8,
    codes: Vec<u8>,
    scale_codes: Vec<u8>,
    tensor_scale: f32,
    data: Vec<f32>,
}

fn same(a: f32, b: f32) -> bool {
    if a.is_nan() || b.is_nan() {
        a.is_nan() && b.is_nan()
    } else {
        a.to_bits() == b.to_bits()
    }
}

fuzz_target!(|input: Input| {
    let (rows, cols) = (input.rows as usize % 5, input.cols as usize % 80);
    let n = rows * cols;
    let blocks = rows * cols.div_ceil(32);
    let count = (blocks as isize + input.scales_delta as isize % 3).max(0) as usize;
    let code = |i: usize| {
        input
            .codes
            .get(i % input.codes.len().max(1))
            .copied()
            .unwrap_or(0)
    };
    let scode = |i: usize| {
        input
            .scale_codes
            .get(i % input.scale_codes.len().max(1))
            .copied()
            .unwrap_or(127)
    };

    // MX with E4M3 values.
    let mut values: NarrowArray<E4M3> = (0..n).map(|i| E4M3::from_raw_bits(code(i))).collect();
    values.reshape(&[rows, cols]).unwrap();
    let scales: NarrowArray<E8M0> = (0..count).map(|i| E8M0::from_raw_bits(scode(i))).collect();
    match MxArray::from_parts(values, scales) {
        Err(_) => assert_ne!(count, blocks),
        Ok(mx) => {
            assert_eq!(count, blocks);
            let out = mx.dequantize();
            for r in 0..rows {
                for c in 0..cols {
                    let v = E4M3::from_raw_bits(code(r * cols + c)).to_f32() as f64;
                    let s =
                        E8M0::from_raw_bits(scode(r * cols.div_ceil(32) + c / 32)).to_f32() as f64;
                    let want = (v * s) as f32;
                    assert!(same(out[r * cols + c], want), "({r}, {c})");
                }
            }
        }
    }

    // NVFP4.
    let mut v4: NarrowArray<E2M1> = (0..n).map(|i| E2M1::from_raw_bits(code(i) & 15)).collect();
    v4.reshape(&[rows, cols]).unwrap();
    let nblocks = rows * cols.div_ceil(16);
    let s4: NarrowArray<E4M3> = (0..nblocks)
        .map(|i| E4M3::from_raw_bits(scode(i)))
        .collect();
    let st = input.tensor_scale;
    if let Ok(q) = Nvfp4Array::from_parts(v4, s4, st) {
        let out = q.dequantize();
        for r in 0..rows {
            for c in 0..cols {
                let v = E2M1::from_raw_bits(code(r * cols + c) & 15).to_f64();
                let s = E4M3::from_raw_bits(scode(r * cols.div_ceil(16) + c / 16)).to_f64();
                let want = (v * (s * st as f64)) as f32;
                assert!(same(out[r * cols + c], want), "({r}, {c})");
            }
        }
    }

    // quantize, then the parts make the same array again.
    let data: Vec<f32> = input.data.iter().copied().take(200).collect();
    let len = data.len();
    if let Ok(mx) = MxArray::<E4M3>::quantize(&data, &[len]) {
        let deq = mx.dequantize();
        let (values, scales) = mx.into_parts();
        let again = MxArray::from_parts(values, scales).unwrap();
        assert!(deq.iter().zip(again.dequantize()).all(|(a, b)| same(*a, b)));
        assert_eq!(deq.len(), len);
    }
});
