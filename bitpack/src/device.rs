//! [`DeviceCopy`]: types whose bytes may be copied to a device as raw bytes.

use core::marker::PhantomData;

/// A type whose bytes may be copied to a device (a GPU) and back as raw bytes.
///
/// # The copy rule
///
/// A `DeviceCopy` value is moved with a pointer and a byte count, the way a
/// host-to-device copy (`cuMemcpyHtoD`) moves it: all `size_of::<T>()` bytes,
/// **padding included**. Padding bytes are moved as raw bytes and never read
/// as values, so the trait tolerates padding, and nothing in this crate forms
/// a `&[u8]` over a `DeviceCopy` type (that would read uninitialized padding;
/// [`bytemuck::NoUninit`] is the bound for byte views).
///
/// Going the other way, from bytes to values, is a different promise: a safe
/// cast from a byte buffer requires [`bytemuck::AnyBitPattern`], so a byte
/// buffer never becomes an invalid value. `bool` is `DeviceCopy` but not
/// `AnyBitPattern`: a byte `0x02` is not a `bool`.
///
/// # Layout
///
/// `#[derive(DeviceCopy)]` requires `repr(C)` or `repr(transparent)` (for a
/// struct or union; an enum, fieldless or not, needs an explicit integer repr)
/// so that the layout is one that other compilers and frameworks can rely on,
/// and requires every field to be `DeviceCopy`.
///
/// # Safety
///
/// Implementing `DeviceCopy` promises that:
///
/// - the type holds no pointers, references or handles whose meaning is tied
///   to the host address space (no `&T`, `Box`, `Vec`, raw pointers);
/// - its layout is fixed (`repr(C)`, `repr(transparent)` or a primitive), so
///   a device program compiled elsewhere sees the same fields at the same
///   offsets;
/// - its value bytes, copied out and back in, give the same value (it has no
///   `Drop` and no interior mutability).
///
/// # Examples
///
/// ```
/// use bitpack::DeviceCopy;
///
/// #[derive(Clone, Copy, DeviceCopy)]
/// #[repr(C)]
/// struct Params {
///     scale: f32,
///     flag: bool, // followed by three padding bytes: tolerated
/// }
///
/// fn upload<T: DeviceCopy>(_value: &T) {}
/// upload(&Params { scale: 1.0, flag: true });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be copied to a device as raw bytes",
    label = "`{Self}` is not `DeviceCopy`",
    note = "references, raw pointers, `Box` and `Vec` hold host addresses, which mean nothing \
            on the device; copy the data they point to into a device buffer and pass plain \
            values (integers, floats, `bool`, arrays, `#[derive(DeviceCopy)]` types)"
)]
pub unsafe trait DeviceCopy: Copy + 'static {}

macro_rules! impl_device_copy {
    ($($t:ty),* $(,)?) => {$(
        // SAFETY:
        // - a primitive holds no pointer and its layout is fixed by the language;
        // - copying its bytes copies its value.
        unsafe impl DeviceCopy for $t {}
    )*};
}

impl_device_copy!(
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    f32,
    f64,
    bool,
    ()
);

#[cfg(feature = "half")]
impl_device_copy!(half::f16, half::bf16);

// SAFETY:
// - "Arrays are laid out so that the zero-based nth element of the array is
//   offset from the start of the array by n * size_of::<T>() bytes" (the
//   Reference, Type layout: array layout), so an array has no layout of its
//   own beyond its element's;
// - an array of `DeviceCopy` values holds nothing but those values.
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {}

// SAFETY: `PhantomData<T>` is a zero-sized type with no bytes to copy.
unsafe impl<T: ?Sized + 'static> DeviceCopy for PhantomData<T> {}

#[cfg(feature = "arbitrary-int")]
mod narrow_ints {
    use super::DeviceCopy;
    use arbitrary_int::UInt;

    macro_rules! impl_uint {
        ($($raw:ty),*) => {$(
            // SAFETY:
            // - `UInt<T, B>` is `#[repr(transparent)]` over the integer `T`
            //   (arbitrary-int's documented layout: "the memory layout ... would
            //   be seen by core::mem::transmute"), so it has the integer's fixed
            //   layout and holds no pointer.
            unsafe impl<const B: usize> DeviceCopy for UInt<$raw, B> {}
        )*};
    }
    impl_uint!(u8, u16, u32, u64, u128);

    macro_rules! impl_int {
        ($($raw:ty),*) => {$(
            // SAFETY:
            // - `Int<T, B>` is `#[repr(transparent)]` over the integer `T`, as
            //   `UInt` is (the same documented layout), so it has the
            //   integer's fixed layout and holds no pointer.
            unsafe impl<const B: usize> DeviceCopy for arbitrary_int::Int<$raw, B> {}
        )*};
    }
    impl_int!(i8, i16, i32, i64, i128);
}
