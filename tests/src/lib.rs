//! Shared helpers for the integration tests: bit-by-bit reference models and
//! readers for the conformance vectors committed under `tests/conformance/`.

use std::path::PathBuf;

pub mod element;
#[cfg(feature = "dlpack")]
pub mod lying;
pub mod simt_sim;
pub mod views;

/// Pseudo-random bits (xorshift), the same for every run of a seed: the
/// data of the simulated-grid tests.
pub fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// The environment variable that points the tests at another copy of the
/// conformance vectors.
pub const CONFORMANCE_DIR_VAR: &str = "BITPACK_CONFORMANCE_DIR";

/// The directory holding the reference conformance vectors: the committed copy
/// in `tests/conformance/` (byte-identical to the reference set, checked by
/// `.ci/run`), or the directory named by `BITPACK_CONFORMANCE_DIR`.
pub fn conformance_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(CONFORMANCE_DIR_VAR) {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("conformance")
}

/// What a test says when a conformance file cannot be read: the file, the
/// folder it was looked for in, and how that folder is chosen.
pub fn missing_file_message(path: &std::path::Path, err: &std::io::Error) -> String {
    let dir = path.parent().unwrap_or(path);
    let source = match std::env::var_os(CONFORMANCE_DIR_VAR) {
        Some(_) => format!("the folder named by {CONFORMANCE_DIR_VAR}"),
        None => {
            format!("the committed copy in tests/conformance/ ({CONFORMANCE_DIR_VAR} is not set)")
        }
    };
    format!(
        "cannot read conformance file {}: {err}; looked in {} ({source}); set \
         {CONFORMANCE_DIR_VAR} to a folder holding the reference vectors, or restore \
         tests/conformance/ from the repository",
        path.display(),
        dir.display(),
    )
}

/// Reads a tab-separated conformance file: the header's column names and the
/// rows, each a vector of fields. Panics with the path when the file is
/// missing, so a test can never pass by reading nothing.
pub fn read_tsv(name: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let path = conformance_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}", missing_file_message(&path, &e)));
    let mut lines = text.lines().filter(|l| !l.is_empty());
    let header: Vec<String> = lines
        .next()
        .unwrap_or_else(|| panic!("{} is empty", path.display()))
        .split('\t')
        .map(str::to_owned)
        .collect();
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split('\t').map(str::to_owned).collect::<Vec<_>>())
        .collect();
    assert!(!rows.is_empty(), "{} has no rows", path.display());
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(
            row.len(),
            header.len(),
            "{} row {i}: wrong column count",
            path.display()
        );
    }
    (header, rows)
}

/// Parses `0x`-prefixed hexadecimal.
pub fn hex(s: &str) -> u128 {
    let digits = s.strip_prefix("0x").unwrap_or(s);
    u128::from_str_radix(digits, 16).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}

/// Parses a run of hex byte pairs, byte 0 first (`"aa00"` is `[0xaa, 0x00]`);
/// `"-"` is no bytes.
pub fn hex_bytes(s: &str) -> Vec<u8> {
    if s == "-" {
        return Vec::new();
    }
    assert!(s.len().is_multiple_of(2), "odd hex byte string {s:?}");
    (0..s.len() / 2)
        .map(|i| {
            u8::from_str_radix(&s[2 * i..2 * i + 2], 16)
                .unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
        })
        .collect()
}

/// A packed stream modelled one bit at a time: the reference for every
/// container test. Element `i` of a `width`-bit stream is bits `[i * width,
/// (i + 1) * width)`, bit `k` of the stream being bit `k % 8` of byte `k / 8`.
pub mod model {
    /// The stream of `raws`, each `width` bits, element 0 first.
    pub fn pack(raws: &[u128], width: u32) -> Vec<bool> {
        let mut out = Vec::with_capacity(raws.len() * width as usize);
        for &r in raws {
            for b in 0..width {
                out.push((r >> b) & 1 == 1);
            }
        }
        out
    }

    /// Element `i` of a `width`-bit stream.
    pub fn get(stream: &[bool], i: usize, width: u32) -> u128 {
        let w = width as usize;
        (0..w).fold(0, |acc, b| acc | (u128::from(stream[i * w + b]) << b))
    }

    /// Sets element `i` of a `width`-bit stream to the low `width` bits of
    /// `raw`.
    pub fn set(stream: &mut [bool], i: usize, width: u32, raw: u128) {
        let w = width as usize;
        for b in 0..w {
            stream[i * w + b] = (raw >> b) & 1 == 1;
        }
    }

    /// Every element of a `width`-bit stream (whose length must be a
    /// multiple of `width`).
    pub fn unpack(stream: &[bool], width: u32) -> Vec<u128> {
        assert_eq!(stream.len() % width as usize, 0);
        (0..stream.len() / width as usize)
            .map(|i| get(stream, i, width))
            .collect()
    }

    /// The bytes of a stream: `ceil(len / 8)` bytes, LSB first, padding
    /// bits zero.
    pub fn bytes(stream: &[bool]) -> Vec<u8> {
        let mut out = vec![0u8; stream.len().div_ceil(8)];
        for (k, &bit) in stream.iter().enumerate() {
            if bit {
                out[k / 8] |= 1 << (k % 8);
            }
        }
        out
    }

    /// The first `nbits` bits of a byte string.
    pub fn from_bytes(bytes: &[u8], nbits: usize) -> Vec<bool> {
        (0..nbits)
            .map(|k| (bytes[k / 8] >> (k % 8)) & 1 == 1)
            .collect()
    }
}

/// The raw bits of `v`, zero-extended to `u128`.
pub fn raw<T: bitpack::BitElement>(v: T) -> u128 {
    bitpack::Unsigned::to_u128(v.raw_bits())
}

/// The value of `T` whose bits are the low `T::BITS` bits of `r`.
pub fn value<T: bitpack::BitElement>(r: u128) -> T {
    T::from_raw_bits(bitpack::Unsigned::from_u128_truncate(r))
}

/// The low `bits` bits of `r`.
pub fn low_bits(r: u128, bits: u32) -> u128 {
    if bits >= 128 {
        r
    } else {
        r & ((1u128 << bits) - 1)
    }
}

/// Asserts the word buffer of `a` holds exactly its stream: `ceil(len *
/// BITS / 64)` words, every bit past the last value zero.
pub fn assert_words_padded<T: bitpack::BitElement>(a: &bitpack::NarrowArray<T>) {
    let bits = a.len() * T::BITS as usize;
    let words = a.as_words();
    assert_eq!(
        words.len(),
        bits.div_ceil(64),
        "word count for {} values",
        a.len()
    );
    if !bits.is_multiple_of(64) {
        let last = u64::from_le(*words.last().unwrap());
        assert_eq!(last >> (bits % 64), 0, "padding bits of the last word");
    }
}
