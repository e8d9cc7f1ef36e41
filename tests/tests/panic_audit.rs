//! The panic audit: every public function that returns `Result` gets
//! hostile inputs (lengths and offsets near `usize::MAX`, strides of
//! `isize::MIN`/`isize::MAX`, shapes whose product overflows, widths 0, 65,
//! 129) and must return, never panic; a mutating one that returns an error
//! must leave its container unchanged. Allocation sizes are either tiny or
//! far past what any allocator grants, so that a correct refusal is quick.

use arbitrary_int::{u4, u5};
use bitpack::formats::{self, E2M1, E4M3, E8M0, Mode, MxArray, MxOptions, Nvfp4Array};
use bitpack::{
    BitElement, DynNarrowArray, Error, Layout, NArray, NarrowArray, WordAligned, kernels,
};
use proptest::prelude::*;

/// Lengths, offsets and indices: small, near the powers that overflow
/// products, and near `usize::MAX`.
fn hostile_usize() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..6,
        1 => (usize::MAX - 3)..=usize::MAX,
        1 => prop::sample::select(vec![1 << 61, 1 << 62, 1 << 63, (1 << 63) + 1]),
    ]
}

/// Sizes that allocate: tiny, or beyond any allocator.
fn alloc_size() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..40,
        1 => (usize::MAX - 3)..=usize::MAX,
        1 => prop::sample::select(vec![1 << 61, 1 << 62, 1 << 63]),
    ]
}

fn hostile_isize() -> impl Strategy<Value = isize> {
    prop_oneof![
        4 => -3isize..4,
        1 => prop::sample::select(vec![
            isize::MIN,
            isize::MIN + 1,
            isize::MAX - 1,
            isize::MAX,
            1 << 62,
            -(1 << 62),
        ]),
    ]
}

fn hostile_width() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => 0u32..10,
        1 => prop::sample::select(vec![31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, u32::MAX]),
    ]
}

fn hostile_shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(hostile_usize(), 0..5)
}

fn hostile_descriptor() -> impl Strategy<Value = (Vec<usize>, Vec<isize>, isize)> {
    (0usize..5).prop_flat_map(|nd| {
        (
            prop::collection::vec(hostile_usize(), nd),
            // Usually as many strides as extents; sometimes not.
            prop_oneof![
                5 => prop::collection::vec(hostile_isize(), nd),
                1 => prop::collection::vec(hostile_isize(), 0..6),
            ],
            hostile_isize(),
        )
    })
}

fn axes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(
        prop_oneof![4 => 0usize..5, 1 => (usize::MAX - 1)..=usize::MAX],
        0..4,
    )
}

/// Derived layout operations with hostile arguments, on a layout that may
/// be empty with any offset and strides.
fn derived_ops(l: &Layout, k: usize, step: isize, order: &[usize]) {
    let nd = l.ndim();
    for axis in [0, nd.saturating_sub(1), nd, usize::MAX] {
        for out in [l.reversed(axis), l.select(axis, k), l.step_by(axis, step)]
            .into_iter()
            .flatten()
        {
            out.iter().take(3).for_each(drop);
        }
        let _ = l.select(axis, 0);
        let _ = l.slice(axis, k..k.saturating_add(1));
        let _ = l.slice(axis, 0..k);
        #[allow(clippy::reversed_empty_ranges)]
        let _ = l.slice(axis, 2..1);
    }
    let _ = l.permute(order);
    let _ = l.index(&vec![k; nd]);
    let _ = l.index(&vec![0; nd]);
    l.iter().take(3).for_each(drop);
    l.runs().take(3).for_each(drop);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, ..ProptestConfig::default() })]

    #[test]
    fn layouts((shape, strides, offset) in hostile_descriptor(), storage_len in hostile_usize(),
               k in hostile_usize(), step in hostile_isize(), order in axes()) {
        if let Ok(l) = Layout::new(&shape, &strides, offset, storage_len) {
            derived_ops(&l, k, step, &order);
            // A validated non-empty layout only yields indices in bounds.
            if let Some(i) = l.iter().next() {
                prop_assert!(i < storage_len);
            }
        }
        if let Ok(l) = Layout::contiguous(&shape, storage_len) {
            derived_ops(&l, k, step, &order);
        }
    }

    #[test]
    fn views_of_a_packed_array((shape, strides, offset) in hostile_descriptor(),
                               k in hostile_usize(), step in hostile_isize(),
                               keep in any::<bool>(), axes in axes(), value in any::<u8>()) {
        let values: Vec<u5> = (0..12u8).map(|i| u5::new(i + 3)).collect();
        let mut a: NarrowArray<u5> = values.iter().copied().collect();
        let before = a.clone();
        if let Ok(v) = a.view_strided(&shape, &strides, offset) {
            let _ = v.reduced_shape(&axes, keep);
            let _ = v.sum_axes(&axes, keep);
            let mut out = [0u64; 4];
            let _ = v.sum_axes_into(&axes, &mut out);
            for r in [v.reversed(0), v.select(0, k), v.step_by(0, step), v.slice(0, k..k.saturating_add(2))] {
                let _ = r.map(|w| w.sum());
            }
            let _ = v.get(&vec![k; v.ndim()]);
            let _ = v.sum();
        }
        let new = u5::new(value & 31);
        if let Ok(mut m) = a.view_strided_mut(&shape, &strides, offset) {
            let _ = m.set(&vec![k; m.shape().len()], new);
            let _ = m.set(&[k], new);
            let _ = m.fill(new);
        }
        // Writes through validated views stay in bounds and never touch a
        // value outside them; errors change nothing.
        let mut c = before.clone();
        let failed = c
            .view_strided_mut(&shape, &strides, offset)
            .is_ok_and(|mut m| m.assign_from(&[new; 3]).is_err());
        if failed {
            prop_assert_eq!(&c, &before);
        }
        let mut c = before.clone();
        if let (Ok(dst), Ok(src)) = (
            Layout::new(&shape, &strides, offset, 12),
            Layout::new(&shape, &strides, offset.wrapping_add(step), 12),
        ) && c.assign_within(&dst, &src).is_err()
        {
            prop_assert_eq!(&c, &before);
        }
        prop_assert_eq!(a.len(), 12);
    }

    #[test]
    fn packed_arrays(len in hostile_usize(), shape in hostile_shape(), i in hostile_usize(),
                     bytes in prop::collection::vec(any::<u8>(), 0..12), n in 0usize..8) {
        let _ = NarrowArray::<u4>::from_bytes(&bytes, len);
        let _ = NarrowArray::<bool>::from_bytes(&bytes, len);
        let mut a: NarrowArray<u4> = bytes.iter().map(|&b| u4::new(b & 15)).collect();
        let before = a.clone();
        if a.reshape(&shape).is_err() {
            prop_assert_eq!(&a, &before);
        }
        let mut a = before.clone();
        if a.set(i, u4::new(1)).is_err() {
            prop_assert_eq!(&a, &before);
        }
        let mut a = before.clone();
        let src = vec![u4::new(2); n];
        if a.pack_from(&src).is_err() {
            prop_assert_eq!(&a, &before);
        }
        let mut dst = vec![u4::new(0); n];
        let _ = a.unpack_into(&mut dst);
        let _ = a.as_slice_of::<u8>();
        let _ = a.clone().reinterpret::<u8>();
        let _ = a.clone().reinterpret::<bool>();
        let _ = a.clone().reinterpret::<u16>();
    }

    #[test]
    fn run_time_widths(width in hostile_width(), len in alloc_size(), new_width in hostile_width(),
                       i in hostile_usize(), value in any::<u64>(), shape in hostile_shape(),
                       values in prop::collection::vec(any::<u64>(), 0..10)) {
        let _ = DynNarrowArray::<bitpack::Dense>::new(width);
        let _ = DynNarrowArray::<WordAligned>::new_in(width);
        let _ = DynNarrowArray::<bitpack::Dense>::zeroed(width, len);
        let _ = DynNarrowArray::<WordAligned>::zeroed_in(width, len);
        let _ = DynNarrowArray::<bitpack::Dense>::from_slice(width, &values);
        let _ = DynNarrowArray::<WordAligned>::from_slice_in(width, &values);
        type Op<'a> = &'a dyn Fn(&mut DynNarrowArray) -> Result<(), Error>;
        if let Ok(a) = DynNarrowArray::<bitpack::Dense>::from_slice(width.clamp(1, 64), &values) {
            let ops: [Op<'_>; 4] = [
                &|a| a.set(i, value),
                &|a| a.widen(new_width),
                &|a| a.narrow_to(new_width),
                &|a| a.reshape(&shape),
            ];
            for op in ops {
                let mut b = a.clone();
                if op(&mut b).is_err() {
                    prop_assert_eq!(&b, &a);
                }
            }
            let mut dst = vec![0; i.min(16)];
            let _ = a.unpack_into(&mut dst);
            let _ = a.view_strided(&shape, &[1; 4][..shape.len().min(4)], 0);
        }
    }

    #[test]
    fn value_arrays(bytes in prop::collection::vec(any::<u8>(), 0..6), i in hostile_usize(),
                    n in 0usize..6) {
        let values = vec![u5::new(1); n];
        let _ = NArray::<u5, 3>::try_from_slice(&values);
        let _ = NArray::<u5, 3>::try_from_bytes(&bytes);
        let _ = NArray::<bool, 9>::try_from_bytes(&bytes);
        let a = NArray::<u5, 3>::new([u5::new(1), u5::new(2), u5::new(3)]);
        let mut b = a;
        if b.set(i, u5::new(31)).is_err() {
            prop_assert_eq!(b, a);
        }
        let _ = a.with(i, u5::new(7));
        let _ = a.reinterpret::<u8, 2>();
        let _ = a.reinterpret::<bool, 15>();
    }

    #[test]
    fn kernels_on_words(width in hostile_width(), offset in hostile_usize(), len in hostile_usize(),
                        words in prop::collection::vec(any::<u64>(), 0..4), n in 0usize..20) {
        let mut out = vec![0u32; n];
        let _ = kernels::unpack(width, &words, offset, &mut out);
        let mut w = words.clone();
        let src = vec![1u16; n];
        if kernels::pack(width, &src, &mut w, offset).is_err() {
            prop_assert_eq!(&w, &words);
        }
        let _ = kernels::sum(width, &words, offset, len);
        let table = [0.5f32; 256];
        let mut f = vec![0f32; n];
        let _ = kernels::decode(width, &table[..(width as usize).min(9).min(256)], &words, offset, &mut f);
        let _ = kernels::decode(width, &table, &words, offset, &mut f);
        let _ = kernels::decode_with(width, |b| b as f32, &words, offset, &mut f);
        let mut w = words.clone();
        if kernels::encode(width, &f, |x| x as u8, &mut w, offset).is_err() {
            prop_assert_eq!(&w, &words);
        }
    }

    #[test]
    fn float_bulk(n in 0usize..40, m in 0usize..40, data in prop::collection::vec(any::<f32>(), 0..40)) {
        let mut e = vec![E4M3::from_raw_bits(0); n];
        let _ = formats::encode_slice(&data, Mode::Nearest, &mut e);
        let mut f = vec![0f32; m];
        let _ = formats::decode_slice(&e, &mut f);
        let bytes = vec![0x5au8; n];
        let _ = formats::decode_packed::<E2M1>(&bytes, &mut f);
        let mut out = vec![0u8; m];
        let _ = formats::encode_packed::<E2M1>(&data, Mode::SatFinite, &mut out);
        let mut arr = NarrowArray::<E2M1>::zeroed(n);
        let before = arr.clone();
        if formats::encode_into(&data, Mode::Nearest, &mut arr).is_err() {
            prop_assert_eq!(&arr, &before);
        }
        let _ = formats::decode_into(&arr, &mut f);
    }

    #[test]
    fn block_scaled(shape in hostile_shape(), n in 0usize..80, scales in 0usize..6,
                    rows in hostile_usize(), cols in hostile_usize(), tensor_scale in any::<f32>(),
                    raw in prop::collection::vec(any::<u8>(), 0..12)) {
        let data: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 - 3.0).collect();
        let _ = MxArray::<E4M3>::quantize(&data, &shape);
        let _ = Nvfp4Array::quantize(&data, &shape);
        let _ = Nvfp4Array::quantize_with_tensor_scale(&data, &shape, tensor_scale);
        let values: NarrowArray<E4M3> = (0..n).map(|i| E4M3::from_raw_bits(i as u8)).collect();
        let s: NarrowArray<E8M0> = (0..scales).map(|i| E8M0::from_raw_bits(120 + i as u8)).collect();
        if let Ok(mx) = MxArray::from_parts(values, s) {
            let mut out = vec![0f32; n];
            prop_assert!(mx.dequantize_into(&mut out).is_ok());
            let mut short = vec![0f32; n + 1];
            prop_assert!(mx.dequantize_into(&mut short).is_err());
        }
        let v4: NarrowArray<E2M1> = (0..n).map(|i| E2M1::from_raw_bits(i as u8 & 15)).collect();
        let s4: NarrowArray<E4M3> = (0..scales).map(|i| E4M3::from_raw_bits(40 + i as u8)).collect();
        if let Ok(nv) = Nvfp4Array::from_parts(v4, s4, tensor_scale) {
            let mut out = vec![0f32; n];
            prop_assert!(nv.dequantize_into(&mut out).is_ok());
        }
        let _ = formats::swizzle_scales(&raw, rows, cols);
    }
}

/// The audit's hostile cases must reach the error paths, not only the easy
/// ones: a few fixed inputs that each must be an error.
#[test]
fn hostile_inputs_are_errors_not_panics() {
    assert!(matches!(
        Layout::new(&[usize::MAX, 2], &[1, 1], 0, 4),
        Err(Error::Shape { elements: None, .. })
    ));
    assert!(Layout::new(&[2], &[isize::MAX], isize::MAX, usize::MAX).is_err());
    assert!(DynNarrowArray::<bitpack::Dense>::zeroed(65, 1).is_err());
    assert!(DynNarrowArray::<bitpack::Dense>::zeroed(0, 1).is_err());
    assert!(DynNarrowArray::<bitpack::Dense>::zeroed(64, usize::MAX).is_err());
    assert!(kernels::sum(129, &[0], 0, 1).is_err());
    assert!(kernels::sum(8, &[0], usize::MAX, 2).is_err());
    assert!(NarrowArray::<u4>::from_bytes(&[0], usize::MAX).is_err());
    assert!(formats::swizzle_scales(&[0; 4], usize::MAX, usize::MAX).is_err());
    assert!(MxArray::<E4M3>::quantize(&[0.0; 4], &[usize::MAX, 2]).is_err());
    // Empty shapes whose other extents multiply past usize: nothing to
    // quantize, no scales, along every axis.
    let empty = [usize::MAX, 0, usize::MAX, 5];
    for axis in 0..4 {
        let opts = MxOptions {
            axis: Some(axis),
            ..MxOptions::default()
        };
        let mx = MxArray::<E4M3>::quantize_with(&[] as &[f32], &empty, &opts).unwrap();
        assert_eq!((mx.len(), mx.scales().len()), (0, 0));
        assert!(mx.dequantize_into(&mut []).is_ok());
    }
}

/// Loops bounded by data, not by a shape product: each of these returned
/// (or hung for minutes) before.
#[test]
fn empty_data_with_huge_shapes_returns_at_once() {
    use bitpack::formats::{Nvfp4Blocks, Nvfp4Options};
    for shape in [[usize::MAX, 0], [1 << 34, 0], [0, usize::MAX]] {
        for blocks in [Nvfp4Blocks::Rows, Nvfp4Blocks::Tiles16x16] {
            let opts = Nvfp4Options {
                blocks,
                ..Nvfp4Options::default()
            };
            let q = Nvfp4Array::quantize_with(&[] as &[f32], &shape, &opts).unwrap();
            assert_eq!((q.len(), q.scales().len()), (0, 0), "{shape:?} {blocks:?}");
        }
        let q = Nvfp4Array::quantize(&[], &shape).unwrap();
        assert_eq!(q.len(), 0);
        let mx = MxArray::<E4M3>::quantize(&[], &shape).unwrap();
        assert_eq!(mx.len(), 0);
    }
}

proptest! {
    /// `BlockGrid::amax` of any scale index `g` on any grid returns, and a
    /// block past the data has no values (amax 0).
    #[test]
    fn block_amax_never_panics(
        dims in prop::collection::vec(hostile_usize(), 3),
        block in hostile_usize(),
        g in hostile_usize(),
        tile in 0usize..20,
        n in 0usize..64,
    ) {
        use bitpack::formats::BlockGrid;
        let data: Vec<f32> = (0..n).map(|i| i as f32 - 7.0).collect();
        let along = BlockGrid::along(dims[0], dims[1], dims[2], block);
        let tiles = BlockGrid::tiles(dims[0], dims[1], dims[2], tile, block);
        for grid in [along, tiles] {
            let a = grid.amax(&data, g);
            prop_assert!(a.is_some_and(|a| (0.0..=57.0).contains(&a)), "{a:?}");
        }
        prop_assert_eq!(BlockGrid::along(4, 8, 1, 4).amax(&data, usize::MAX), Some(0.0));
        prop_assert_eq!(BlockGrid::tiles(4, 8, 4, 2, 4).amax(&data, usize::MAX), Some(0.0));
    }

    /// `extend` trusts a size hint only as a hint: an iterator that
    /// promises `usize::MAX` values and yields a few appends those.
    #[test]
    fn extend_with_a_lying_size_hint(n in 0usize..200) {
        struct Liar(usize);
        impl Iterator for Liar {
            type Item = u8;
            fn next(&mut self) -> Option<u8> {
                self.0 = self.0.checked_sub(1)?;
                Some(self.0 as u8)
            }
            fn size_hint(&self) -> (usize, Option<usize>) {
                (usize::MAX, None)
            }
        }
        let mut a = NarrowArray::<u4>::new();
        a.extend(Liar(n).map(|x| u4::new(x & 15)));
        prop_assert_eq!(a.len(), n);
        let mut b = NarrowArray::<u8>::from_slice(&[1]);
        b.extend(Liar(n));
        prop_assert_eq!(b.len(), n + 1);
    }
}

#[test]
fn fallible_allocation_forms() {
    assert!(matches!(
        NarrowArray::<u16>::try_zeroed(usize::MAX),
        Err(Error::Alloc { count: None, .. })
    ));
    assert!(matches!(
        NarrowArray::<u64>::try_zeroed(1 << 60),
        Err(Error::Alloc { .. })
    ));
    assert!(NarrowArray::<u8>::try_with_capacity(usize::MAX).is_err());
    let mut a = NarrowArray::from_slice(&[1u8, 2]);
    assert!(a.try_reserve(usize::MAX - 1).is_err());
    assert!(a.try_reserve(1 << 62).is_err());
    assert_eq!(a.to_vec(), [1, 2]);
    let one = NarrowArray::from_slice(&[u4::new(3)]);
    let wide = one.view_strided(&[usize::MAX], &[0], 0).unwrap();
    assert!(matches!(wide.try_to_vec(), Err(Error::Alloc { .. })));
    assert!(matches!(
        wide.try_to_narrow_array(),
        Err(Error::Alloc { .. })
    ));
    let wide = one.view_strided(&[1 << 62], &[0], 0).unwrap();
    assert!(wide.try_to_narrow_array().is_err());
    assert_eq!(
        one.view_strided(&[3], &[0], 0)
            .unwrap()
            .try_to_vec()
            .unwrap(),
        [u4::new(3); 3]
    );
}
