//! Run-time-width arrays against a `Vec<u64>` model: random sequences of
//! `push`, `set`, `extend_from_slice`, `widen` and `narrow_to` keep the same
//! values as the model, the width is always at least what the values need
//! (and `narrow_to` fails exactly when a value does not fit, changing
//! nothing), the padding stays zero, and both layouts agree.

#![no_main]

use arbitrary::Arbitrary;
use bitpack::{Dense, DynNarrowArray, WordAligned};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
enum Op {
    Push(u64),
    Set(u16, u64),
    Extend(Vec<u64>),
    Widen(u8),
    Narrow(u8),
}

fn bits_needed(v: u64) -> u32 {
    (64 - v.leading_zeros()).max(1)
}

/// A value shaped to have few bits more often.
fn shaped(v: u64) -> u64 {
    v >> (v % 64)
}

fn words_are_padded_with_zero(a: &DynNarrowArray<Dense>) -> bool {
    let bits = a.len() * a.width() as usize;
    let words = a.as_words();
    (bits..words.len() * 64).all(|b| (u64::from_le(words[b / 64]) >> (b % 64)) & 1 == 0)
}

fuzz_target!(|input: (u8, Vec<Op>)| {
    let (w0, ops) = input;
    let w0 = (w0 % 64 + 1) as u32;
    let mut a = DynNarrowArray::<Dense>::new(w0).unwrap();
    let mut model: Vec<u64> = Vec::new();
    for op in ops.into_iter().take(64) {
        let before = a.clone();
        match op {
            Op::Push(v) => {
                let v = shaped(v);
                a.push(v);
                model.push(v);
            }
            Op::Set(i, v) => {
                let (i, v) = (i as usize, shaped(v));
                match a.set(i, v) {
                    Ok(()) => model[i] = v,
                    Err(_) => {
                        assert!(i >= model.len());
                        assert_eq!(a, before);
                    }
                }
            }
            Op::Extend(vs) => {
                let vs: Vec<u64> = vs.into_iter().take(100).map(shaped).collect();
                a.extend_from_slice(&vs);
                model.extend(vs);
            }
            Op::Widen(w) => {
                let w = w as u32 % 70;
                match a.widen(w) {
                    Ok(()) => assert!(a.width() >= w && a.width() >= before.width()),
                    Err(_) => {
                        assert!(w == 0 || w > 64);
                        assert_eq!(a, before);
                    }
                }
            }
            Op::Narrow(w) => {
                let w = w as u32 % 70;
                let fits = (1..=64).contains(&w) && model.iter().all(|&v| bits_needed(v) <= w);
                match a.narrow_to(w) {
                    Ok(()) => assert!(fits && a.width() == w),
                    Err(_) => {
                        assert!(!fits);
                        assert_eq!(a, before);
                    }
                }
            }
        }
        assert_eq!(a.len(), model.len());
        assert_eq!(a.to_vec(), model);
        let need = model.iter().map(|&v| bits_needed(v)).max().unwrap_or(1);
        assert!(a.width() >= need);
        assert!(words_are_padded_with_zero(&a));
    }
    let aligned = a.to_layout::<WordAligned>();
    assert_eq!(aligned.to_vec(), model);
    assert_eq!(aligned.to_layout::<Dense>(), a);
    assert_eq!(a.sum(), model.iter().map(|&v| v as u128).sum::<u128>());
});
