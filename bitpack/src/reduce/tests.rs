//! Every run kernel and stream kernel, at every width 1..=64 and in both
//! layouts, against a bit-at-a-time reference: strides around every kernel
//! switch (contiguous, masked, reader; positive, negative, zero), lengths
//! around the kernels' thresholds, starts at word and block boundaries.

extern crate std;

use alloc::vec;
use alloc::vec::Vec;

use super::RunSum;
use crate::kernels::stream;

use crate::kernels::tests::Rng;

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// The stream bit of value `i`, computed independently of the crate.
fn ref_bit(aligned: bool, bits: u32, i: usize) -> usize {
    if aligned {
        let per = (64 / bits) as usize;
        (i / per) * 64 + (i % per) * bits as usize
    } else {
        i * bits as usize
    }
}

/// Value `i`, one bit at a time (stored words are little-endian bytes).
fn ref_get(words: &[u64], aligned: bool, bits: u32, i: usize) -> u64 {
    let at = ref_bit(aligned, bits, i);
    (0..bits as usize).fold(0, |v, b| {
        let k = at + b;
        v | ((u64::from_le(words[k / 64]) >> (k % 64)) & 1) << b
    })
}

/// `n` values of `bits` bits (a third all ones), and their stream.
fn stream_of(rng: &mut Rng, aligned: bool, bits: u32, n: usize) -> (Vec<u64>, Vec<u64>) {
    let vals: Vec<u64> = (0..n)
        .map(|_| {
            let r = rng.next();
            if r.is_multiple_of(3) {
                mask(bits)
            } else {
                rng.next() & mask(bits)
            }
        })
        .collect();
    let words = pack_ref(aligned, bits, &vals);
    (vals, words)
}

/// The stored words of `vals`, packed bit by bit, every other bit zero.
fn pack_ref(aligned: bool, bits: u32, vals: &[u64]) -> Vec<u64> {
    let n = vals.len();
    let words_len = if aligned {
        n.div_ceil((64 / bits) as usize)
    } else {
        (n * bits as usize).div_ceil(64)
    };
    let mut words = vec![0u64; words_len];
    for (i, &v) in vals.iter().enumerate() {
        let at = ref_bit(aligned, bits, i);
        for b in 0..bits as usize {
            if (v >> b) & 1 == 1 {
                let k = at + b;
                words[k / 64] |= (1u64 << (k % 64)).to_le();
            }
        }
    }
    words
}

#[test]
fn run_sums_every_width_and_stride() {
    let strides = [
        1isize, 2, 3, 4, 5, 7, 12, 13, 19, 21, 22, 64, 65, 100, 0, -1, -2, -3, -13, -65,
    ];
    for aligned in [false, true] {
        for bits in 1..=64u32 {
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ u64::from(bits) << 7 | 1);
            let n = 3000;
            let (vals, words) = stream_of(&mut rng, aligned, bits, n);
            for (i, &v) in vals.iter().enumerate().step_by(37) {
                assert_eq!(ref_get(&words, aligned, bits, i), v);
            }
            let runs = RunSum::new(aligned, bits);
            for &stride in &strides {
                for count in [0usize, 1, 2, 31, 32, 127, 128, 129, 500] {
                    for start in [0usize, 1, 7, 63, 64, 65, 1499] {
                        let last = start as isize + (count as isize - 1) * stride;
                        if count > 0 && (last < 0 || last >= n as isize) {
                            continue;
                        }
                        let want: u128 = (0..count)
                            .map(|k| {
                                u128::from(vals[(start as isize + k as isize * stride) as usize])
                            })
                            .sum();
                        let got = runs.run(&words, start, stride, count);
                        assert_eq!(
                            got, want,
                            "aligned {aligned} bits {bits} start {start} stride {stride} count {count}"
                        );
                    }
                }
            }
        }
    }
}

/// Unpacks, packs, gathers and scatters through `U` buffers against the
/// reference.
fn stream_kernels<U: crate::Unsigned>(rng: &mut Rng) {
    for aligned in [false, true] {
        for bits in 1..=U::BITS.min(64) {
            let n = 700;
            let (vals, words) = stream_of(rng, aligned, bits, n);
            for (start, stride, count) in [
                (0usize, 1isize, 700usize),
                (1, 1, 699),
                (65, 1, 300),
                (3, 2, 200),
                (699, -1, 700),
                (10, 7, 90),
                (640, -5, 100),
                (5, 0, 9),
            ] {
                let mut out = vec![U::ZERO; count];
                stream::gather(aligned, bits, &words, start, stride, &mut out);
                for (k, o) in out.iter().enumerate() {
                    let i = (start as isize + k as isize * stride) as usize;
                    assert_eq!(
                        o.to_u128(),
                        u128::from(vals[i]),
                        "gather {bits} {aligned} {k}"
                    );
                }
                if stride == 1 {
                    let mut out2 = vec![U::ZERO; count];
                    stream::unpack(aligned, bits, &words, start, &mut out2);
                    assert_eq!(out2, out);
                }
                // Scatter fresh values (with garbage above the width) and
                // check every value of the stream.
                if stride != 0 {
                    let fresh: Vec<U> = (0..count)
                        .map(|_| U::from_u128_truncate(u128::from(rng.next())))
                        .collect();
                    let mut w2 = words.clone();
                    stream::scatter(aligned, bits, &mut w2, start, stride, &fresh);
                    let mut want = vals.clone();
                    for (k, f) in fresh.iter().enumerate() {
                        let i = (start as isize + k as isize * stride) as usize;
                        want[i] = f.to_u128() as u64 & mask(bits);
                    }
                    // Every value, and every padding and gap bit (zero).
                    assert_eq!(
                        w2,
                        pack_ref(aligned, bits, &want),
                        "scatter {bits} {aligned}"
                    );
                    if stride == 1 {
                        let mut w3 = words.clone();
                        stream::pack(aligned, bits, &fresh, &mut w3, start);
                        assert_eq!(w3, w2);
                    }
                }
            }
        }
    }
}

#[test]
fn stream_kernels_every_width() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    stream_kernels::<u8>(&mut rng);
    stream_kernels::<u16>(&mut rng);
    stream_kernels::<u32>(&mut rng);
    stream_kernels::<u64>(&mut rng);
    stream_kernels::<u128>(&mut rng);
}
