//! `DeviceCopy` on every layout it accepts: padded `repr(C)` structs,
//! `repr(C, packed)`, `repr(transparent)`, unions, fieldless and
//! data-carrying enums with an integer repr, arrays, `PhantomData`, narrow
//! ints, and generic types (bounded per field).

use bitpack::DeviceCopy;
use core::marker::PhantomData;

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
    Exact = 7,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C, u16)]
enum Value {
    Int(i32),
    Pair { a: u8, b: f64 },
    Nothing,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Tables {
    lut: [[f32; 4]; 2],
    narrow: arbitrary_int::u12,
    half: half::f16,
    nested: Padded,
    unit: PhantomData<String>,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Pair<T, const N: usize> {
    a: T,
    b: [T; N],
}

fn upload<T: DeviceCopy>(_: &T) -> usize {
    core::mem::size_of::<T>()
}

fn main() {
    assert_eq!(upload(&Padded { flag: true, value: 1.0 }), 16);
    assert_eq!(upload(&Packed { flag: 1, value: 2 }), 5);
    assert_eq!(upload(&Meters(1.0)), 4);
    assert_eq!(upload(&Bits { int: 1 }), 4);
    assert_eq!(upload(&Mode::Exact), 1);
    assert_eq!(upload(&Value::Int(1)), 24); // a u16 tag, then a union aligned to 8
    let _ = (Mode::Fast, Value::Pair { a: 0, b: 0.0 }, Value::Nothing);
    let t = Tables {
        lut: [[0.0; 4]; 2],
        narrow: arbitrary_int::u12::new(1),
        half: half::f16::ONE,
        nested: Padded { flag: false, value: 0.0 },
        unit: PhantomData,
    };
    assert!(upload(&t) >= 32 + 2 + 2 + 16);
    assert_eq!(upload(&Pair { a: 1u16, b: [2u16; 3] }), 8);
    let _ = (t.lut, t.narrow, t.half, t.nested.flag, t.nested.value, t.unit);
    let _ = Packed { flag: 0, value: 0 }.value;
}
