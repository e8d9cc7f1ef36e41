//! `#[derive(DeviceCopy)]` on every accepted layout, checked by type: the
//! derived types are `DeviceCopy` (generic ones exactly for `DeviceCopy`
//! parameters), and the host-address types they reject are not.

use bitpack::DeviceCopy;
use core::marker::PhantomData;
use static_assertions::{assert_impl_all, assert_not_impl_any};

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Padded {
    flag: bool,
    value: f64,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C, packed)]
struct Packed {
    flag: u8,
    value: u32,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(transparent)]
struct Meters(f32);

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
union Bits {
    int: u32,
    float: f32,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(u8)]
enum Mode {
    Fast,
    Exact,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C, u16)]
enum Value {
    Int(i32),
    Pair { a: u8, b: f64 },
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Pair<T, const N: usize> {
    a: T,
    b: [T; N],
    tag: PhantomData<fn() -> T>,
}

assert_impl_all!(Padded: DeviceCopy);
assert_impl_all!(Packed: DeviceCopy);
assert_impl_all!(Meters: DeviceCopy);
assert_impl_all!(Bits: DeviceCopy);
assert_impl_all!(Mode: DeviceCopy);
assert_impl_all!(Value: DeviceCopy);
assert_impl_all!(Pair<u8, 3>: DeviceCopy);
assert_impl_all!(Pair<Padded, 2>: DeviceCopy);
assert_impl_all!([Pair<half::f16, 1>; 4]: DeviceCopy);
assert_not_impl_any!(Pair<&'static u8, 1>: DeviceCopy);
assert_not_impl_any!(Pair<*const u8, 1>: DeviceCopy);
assert_not_impl_any!(&'static u8: DeviceCopy);
assert_not_impl_any!(*const u8: DeviceCopy);
assert_not_impl_any!(Vec<u8>: DeviceCopy);

fn upload<T: DeviceCopy>(value: &T) -> usize {
    core::mem::size_of_val(value)
}

#[test]
fn derived_types_copy_all_their_bytes_padding_included() {
    assert_eq!(
        upload(&Padded {
            flag: true,
            value: 1.0
        }),
        16
    );
    assert_eq!(upload(&Packed { flag: 1, value: 2 }), 5);
    assert_eq!(upload(&Meters(1.0)), 4);
    assert_eq!(upload(&Bits { int: 1 }), 4);
    assert_eq!(upload(&Mode::Exact), 1);
    assert_eq!(upload(&Value::Int(1)), 24);
    let p = Pair {
        a: 1u16,
        b: [2u16; 3],
        tag: PhantomData,
    };
    assert_eq!(upload(&p), 8);
    // Read every field once: the values are what was stored.
    let packed = Packed { flag: 3, value: 4 };
    let (flag, value) = (packed.flag, packed.value);
    assert_eq!((flag, value), (3, 4));
    assert!(
        Padded {
            flag: true,
            value: 2.0
        }
        .flag
    );
    assert_eq!(
        Padded {
            flag: true,
            value: 2.0
        }
        .value,
        2.0
    );
    assert_eq!(Meters(1.5).0, 1.5);
    // SAFETY: `int` is the field that was written.
    assert_eq!(unsafe { Bits { int: 7 }.int }, 7);
    // SAFETY: `f32` and `u32` have the same size and every bit pattern is a valid `f32`.
    assert_eq!(unsafe { Bits { int: 0x3F80_0000 }.float }, 1.0);
    assert!(matches!(Mode::Fast, Mode::Fast));
    assert!(matches!(Value::Pair { a: 1, b: 2.0 }, Value::Pair { a: 1, b } if b == 2.0));
    assert!(matches!(Value::Int(5), Value::Int(5)));
    assert_eq!((p.a, p.b), (1, [2; 3]));
}
