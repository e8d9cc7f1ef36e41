//! A generic enum (with a `PhantomData` payload, so it is also data-carrying).

use bitpack::BitElement;
use core::marker::PhantomData;

#[derive(Clone, Copy, BitElement)]
#[repr(u8)]
enum Tagged<T: Copy + 'static> {
    A,
    B(PhantomData<T>),
}

fn main() {}
