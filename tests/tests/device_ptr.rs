//! `DevicePtr<T>`: a 64-bit device address that is `DeviceCopy`, so
//! kernel-argument structs carrying device buffers derive `DeviceCopy`
//! (where a raw pointer field is rejected as a host address).

use bitpack::{DeviceCopy, DevicePtr, E2M1, E4M3, NArray};
use core::mem::{align_of, offset_of, size_of};
use static_assertions::{assert_impl_all, assert_not_impl_any};

/// The argument block of a kernel: device buffers, counts and scalars.
#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Args {
    x: DevicePtr<NArray<E2M1, 8>>,
    scales: DevicePtr<E4M3>,
    out: DevicePtr<f32>,
    n: u64,
    scale: f32,
}

/// Generic over the element (`derive(Copy)` asks `T: Copy`).
#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Buffer<T: Copy + 'static> {
    ptr: DevicePtr<T>,
    len: u64,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(transparent)]
struct Words(DevicePtr<u64>);

assert_impl_all!(DevicePtr<f32>: DeviceCopy, Copy, Send, Sync);
assert_impl_all!(DevicePtr<NArray<E2M1, 8>>: DeviceCopy);
// Not bounded by `T: DeviceCopy` itself: the address of a host-only type is
// still just a number.
assert_impl_all!(DevicePtr<Vec<u8>>: DeviceCopy);
assert_impl_all!(Args: DeviceCopy);
assert_impl_all!(Buffer<f32>: DeviceCopy);
assert_impl_all!(Words: DeviceCopy);
assert_not_impl_any!(*mut f32: DeviceCopy);
assert_not_impl_any!(&'static f32: DeviceCopy);

fn upload<T: DeviceCopy>(value: &T) -> usize {
    size_of_val(value)
}

#[test]
fn a_device_ptr_is_a_u64() {
    assert_eq!(size_of::<DevicePtr<u8>>(), 8);
    assert_eq!(align_of::<DevicePtr<u8>>(), align_of::<u64>());
    assert_eq!(size_of::<Option<DevicePtr<u8>>>(), 16); // no niche: 0 is a valid address
    let p = DevicePtr::<f32>::new(0x1234_5678_9abc);
    assert_eq!(p.addr(), 0x1234_5678_9abc);
    // Transparent: its bytes are the address's bytes.
    let bytes: [u8; 8] = unsafe_free_bytes(p);
    assert_eq!(u64::from_ne_bytes(bytes), 0x1234_5678_9abc);
}

/// The bytes of a `DevicePtr`, through its address (no transmute needed).
fn unsafe_free_bytes<T>(p: DevicePtr<T>) -> [u8; 8] {
    p.addr().to_ne_bytes()
}

#[test]
fn argument_structs_have_the_c_layout() {
    assert_eq!(offset_of!(Args, x), 0);
    assert_eq!(offset_of!(Args, scales), 8);
    assert_eq!(offset_of!(Args, out), 16);
    assert_eq!(offset_of!(Args, n), 24);
    assert_eq!(offset_of!(Args, scale), 32);
    assert_eq!(size_of::<Args>(), 40);
    let a = Args {
        x: DevicePtr::new(0x1000),
        scales: DevicePtr::new(0x2000),
        out: DevicePtr::new(0x3000),
        n: 7,
        scale: 0.5,
    };
    assert_eq!(upload(&a), 40);
    assert_eq!(
        (a.x.addr(), a.scales.addr(), a.out.addr()),
        (0x1000, 0x2000, 0x3000)
    );
    assert_eq!((a.n, a.scale), (7, 0.5));
    let b = Buffer::<f32> {
        ptr: DevicePtr::new(8),
        len: 2,
    };
    assert_eq!((upload(&b), b.ptr.addr(), b.len), (16, 8, 2));
    assert_eq!(upload(&Words(DevicePtr::new(1))), 8);
    assert_eq!(Words(DevicePtr::new(1)).0.addr(), 1);
}

#[test]
fn offsets_count_elements_and_never_wrap() {
    let x = DevicePtr::<NArray<E2M1, 8>>::new(0x1000);
    assert_eq!(x.offset(0), Some(x));
    assert_eq!(x.offset(3).map(DevicePtr::addr), Some(0x100c)); // 4 bytes each
    assert_eq!(DevicePtr::<f64>::new(16).offset(2).unwrap().addr(), 32);
    assert_eq!(DevicePtr::<u8>::new(u64::MAX).offset(1), None);
    assert_eq!(DevicePtr::<u32>::new(0).offset(u64::MAX / 2), None); // the product overflows
    assert_eq!(
        DevicePtr::<u32>::new(0)
            .offset(u64::MAX / 4)
            .map(DevicePtr::addr),
        Some(u64::MAX - 3)
    );
    assert_eq!(
        DevicePtr::<()>::new(5).offset(u64::MAX),
        Some(DevicePtr::new(5))
    ); // zero-sized
    assert_eq!(x.cast::<u32>().addr(), 0x1000);
    assert!(DevicePtr::<u8>::null().is_null() && !x.is_null());
    assert_eq!(DevicePtr::<u8>::default(), DevicePtr::null());
    assert_eq!(format!("{:?}", x), "DevicePtr(0x1000)");
}

#[test]
fn as_ptr_keeps_the_address() {
    let p = DevicePtr::<u32>::new(0xdead_beef0);
    assert_eq!(p.as_ptr() as usize as u64, 0xdead_beef0);
    assert_eq!(p.as_mut_ptr() as usize as u64, 0xdead_beef0);
}
