//! `NarrowArray::from_bytes` and reinterpret chains: a buffer is accepted
//! exactly when it holds at least `ceil(len * BITS / 8)` bytes and every bit
//! past the last value is zero, every value is the bit-at-a-time
//! reference, `as_bytes` gives the buffer's first bytes back, and a
//! reinterpret keeps every bit (or fails exactly when the bit count is not
//! a whole number of target values, handing the array back unchanged).

#![no_main]

use arbitrary_int::{u3, u4, u5, u12};
use bitpack::{BitElement, NarrowArray, Unsigned};
use bitpack_fuzz::{ref_get, zero_from};
use libfuzzer_sys::fuzz_target;

fn check<T: BitElement + PartialEq + core::fmt::Debug>(bytes: &[u8], len: usize) {
    let w = T::BITS as usize;
    let need = (len as u128 * w as u128).div_ceil(8);
    let ok = need <= bytes.len() as u128 && zero_from(bytes, len * w);
    let need = need.min(bytes.len() as u128) as usize;
    let a = match NarrowArray::<T>::from_bytes(bytes, len) {
        Ok(a) => a,
        Err(e) => {
            assert!(!ok, "rejected a valid buffer: {e}");
            return;
        }
    };
    assert!(
        ok,
        "accepted {} bytes for {len} {w}-bit values",
        bytes.len()
    );
    assert_eq!(a.len(), len);
    let bytes = &bytes[..need];
    assert_eq!(a.as_bytes(), bytes);
    for i in 0..len {
        let raw = a.get(i).unwrap().raw_bits().to_u128();
        assert_eq!(raw, ref_get(bytes, i, w), "value {i}");
    }
    chain::<T, bool>(a.clone(), bytes);
    chain::<T, u4>(a.clone(), bytes);
    chain::<T, u8>(a.clone(), bytes);
    chain::<T, u12>(a.clone(), bytes);
    chain::<T, u16>(a, bytes);
}

fn chain<T: BitElement + PartialEq + core::fmt::Debug, U: BitElement>(
    a: NarrowArray<T>,
    bytes: &[u8],
) {
    let bits = a.len() * T::BITS as usize;
    let before = a.clone();
    match a.reinterpret::<U>() {
        Ok(b) => {
            assert_eq!(bits % U::BITS as usize, 0);
            assert_eq!(b.len() * U::BITS as usize, bits);
            assert_eq!(b.as_bytes(), bytes);
            for i in 0..b.len() {
                let raw = b.get(i).unwrap().raw_bits().to_u128();
                assert_eq!(raw, ref_get(bytes, i, U::BITS as usize));
            }
        }
        Err(e) => {
            assert_ne!(bits % U::BITS as usize, 0, "{}", e.error());
            assert_eq!(e.into_array(), before);
        }
    }
}

fuzz_target!(|input: (u8, u16, &[u8])| {
    let (kind, len, bytes) = input;
    let len = len as usize;
    match kind % 7 {
        0 => check::<bool>(bytes, len),
        1 => check::<u3>(bytes, len),
        2 => check::<u4>(bytes, len),
        3 => check::<u5>(bytes, len),
        4 => check::<u8>(bytes, len),
        5 => check::<u12>(bytes, len),
        _ => check::<u16>(bytes, len),
    }
});
