//! Where a scale lies in the 128 x 4 tiled layout of block-scaled GEMMs.

/// Where the scale of row `r`, block column `c` of a `[rows, cols]` scale
/// matrix lies in the 128 x 4 tiled layout that cuBLASLt and CUTLASS
/// block-scaled GEMMs read (cuBLAS docs, "1D block scaling factors
/// layout"; [`swizzle_scales`](crate::formats::swizzle_scales) applies it to a whole
/// matrix): the matrix is padded with zero bytes to 128-row by 4-column
/// tiles, each stored as 512 bytes, tiles row-major (`ceil(cols / 4)` tiles
/// a tile row); inside a tile, row `r % 128` and column `c % 4` are at
/// byte `(r % 32) * 16 + (r / 32 % 4) * 4 + c % 4`. The same layout serves
/// MX (`VEC32_UE8M0`) and NVFP4 (`VEC16_UE4M3`) scales.
///
/// Device-callable.
///
/// # Examples
///
/// ```
/// use bitpack::formats::swizzled_index;
///
/// assert_eq!(swizzled_index(0, 3, 6), 3);
/// assert_eq!(swizzled_index(1, 0, 6), 16);
/// assert_eq!(swizzled_index(32, 0, 6), 4);
/// assert_eq!(swizzled_index(0, 4, 6), 512); // the next tile of the row
/// assert_eq!(swizzled_index(128, 0, 6), 1024); // the next tile row
/// ```
#[inline]
pub const fn swizzled_index(r: usize, c: usize, cols: usize) -> usize {
    ((r / 128) * cols.div_ceil(4) + c / 4) * 512 + (r % 32) * 16 + (r / 32 % 4) * 4 + c % 4
}

/// The bytes of the 128 x 4 tiled layout of a `[rows, cols]` scale matrix
/// ([`swizzled_index`]): `ceil(rows / 128) * ceil(cols / 4) * 512`
/// (saturating).
///
/// Device-callable.
///
/// # Examples
///
/// ```
/// use bitpack::formats::swizzled_len;
///
/// assert_eq!(swizzled_len(3, 2), 512);
/// assert_eq!(swizzled_len(129, 5), 2048);
/// assert_eq!(swizzled_len(0, 5), 0);
/// ```
#[inline]
pub const fn swizzled_len(rows: usize, cols: usize) -> usize {
    rows.div_ceil(128)
        .saturating_mul(cols.div_ceil(4))
        .saturating_mul(512)
}
