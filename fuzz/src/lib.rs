//! Helpers shared by the fuzz targets: bit-at-a-time references.

/// Value `i` of `w` bits from an LSB-first byte stream, one bit at a time.
pub fn ref_get(bytes: &[u8], i: usize, w: usize) -> u128 {
    (0..w).fold(0, |v, b| {
        let bit = i * w + b;
        v | ((((bytes[bit / 8] >> (bit % 8)) & 1) as u128) << b)
    })
}

/// Whether every bit of `bytes` from bit `from` on is zero.
pub fn zero_from(bytes: &[u8], from: usize) -> bool {
    (from..bytes.len() * 8).all(|bit| (bytes[bit / 8] >> (bit % 8)) & 1 == 0)
}
