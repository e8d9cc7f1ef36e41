//! Packed records: one field of a million 15-bit records, read as a column
//! and summed, beside the same work over a bitfield crate's structs, in one
//! run.
//!
//! The record is the lexer token of the record docs: `kind` (a 3-bit enum),
//! `len` (`u5`), `delta` (`i6`), `flag` (`bool`), 15 bits. Functions:
//!
//! - `bitpack`: `NarrowArray<Token>::field(Token::LEN)` (a packed
//!   `NarrowArray<u5>` column) and `field_sum(Token::LEN)`, over the dense
//!   15-bit stream (1,875,000 bytes);
//! - `bitfield_struct`: the same field through `bitfield-struct`'s `const fn`
//!   getter over a `Vec` of its `#[bitfield(u16)]` structs (2,000,000 bytes),
//!   collected into a `Vec<u8>` and summed;
//! - `naive_get`: a loop of per-record `get` on the packed array, reading the
//!   field of each unpacked record;
//! - `unpacked_structs`: the field of each struct of a plain `Vec<Token>`
//!   (4 bytes a record, 4,000,000 bytes).
//!
//! Run: `cargo bench -p bitpack-bench --bench records`; `BENCHMARKS.md`
//! ("Records") has the medians of one run.

use std::hint::black_box;
use std::time::Duration;

use arbitrary_int::{i6, u5};
use bitfield_struct::bitfield;
use bitpack::{BitElement, NarrowArray};
use criterion::{BenchmarkGroup, Criterion, Throughput, measurement::WallTime};

const N: usize = 1_000_000;

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[repr(u8)]
enum Kind {
    Ident,
    Number,
    Str,
    Op,
    Open,
    Close,
    Comma,
    End,
}

#[derive(Clone, Copy, Debug, PartialEq, BitElement)]
#[bitpack(record)]
struct Token {
    kind: Kind,
    len: u5,
    delta: i6,
    flag: bool,
}

/// The same layout in `bitfield-struct`: one `u16` per token.
#[bitfield(u16)]
struct TokenBits {
    #[bits(3)]
    kind: u8,
    #[bits(5)]
    len: u8,
    #[bits(6)]
    delta: i8,
    flag: bool,
    #[bits(1)]
    __: u8,
}

/// xorshift64*: deterministic pseudo-random data.
fn rng_fill(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        })
        .collect()
}

fn group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.warm_up_time(Duration::from_millis(300));
    g.measurement_time(Duration::from_secs(2));
    g.sample_size(20);
    g.throughput(Throughput::Elements(N as u64));
    g
}

fn main() {
    let codes = rng_fill(N, 25);
    let tokens: Vec<Token> = codes
        .iter()
        .map(|&x| Token::from_raw_bits((x & 0x7fff) as u16))
        .collect();
    let packed = NarrowArray::from_slice(&tokens);
    let bits: Vec<TokenBits> = tokens
        .iter()
        .map(|t| TokenBits::from_bits(t.raw_bits()))
        .collect();
    // The three forms hold the same values.
    assert_eq!(packed.as_bytes().len(), N * 15 / 8);
    for (t, b) in tokens.iter().zip(&bits).take(1000) {
        assert_eq!(t.len.value(), b.len());
        assert_eq!(t.delta.value(), b.delta());
    }
    let want: u128 = tokens.iter().map(|t| u128::from(t.len.value())).sum();
    assert_eq!(packed.field_sum(Token::LEN), want);

    let mut c = Criterion::default().configure_from_args();
    {
        let mut g = group(&mut c, "records/column_len");
        g.bench_function("bitpack", |b| {
            b.iter(|| black_box(&packed).field(Token::LEN))
        });
        g.bench_function("bitfield_struct", |b| {
            b.iter(|| {
                black_box(&bits)
                    .iter()
                    .map(|t| t.len())
                    .collect::<Vec<u8>>()
            })
        });
        g.bench_function("naive_get", |b| {
            b.iter(|| {
                let a = black_box(&packed);
                (0..a.len())
                    .map(|i| a.get(i).map_or(u5::new(0), |t| t.len))
                    .collect::<Vec<u5>>()
            })
        });
        g.bench_function("unpacked_structs", |b| {
            b.iter(|| {
                black_box(&tokens)
                    .iter()
                    .map(|t| t.len)
                    .collect::<Vec<u5>>()
            })
        });
        g.finish();
    }
    {
        let mut g = group(&mut c, "records/sum_len");
        g.bench_function("bitpack", |b| {
            b.iter(|| black_box(&packed).field_sum(Token::LEN))
        });
        g.bench_function("bitfield_struct", |b| {
            b.iter(|| {
                black_box(&bits)
                    .iter()
                    .map(|t| u64::from(t.len()))
                    .sum::<u64>()
            })
        });
        g.bench_function("naive_get", |b| {
            b.iter(|| {
                let a = black_box(&packed);
                (0..a.len())
                    .map(|i| a.get(i).map_or(0, |t| u64::from(t.len.value())))
                    .sum::<u64>()
            })
        });
        g.bench_function("unpacked_structs", |b| {
            b.iter(|| {
                black_box(&tokens)
                    .iter()
                    .map(|t| u64::from(t.len.value()))
                    .sum::<u64>()
            })
        });
        g.finish();
    }
    c.final_summary();
}
