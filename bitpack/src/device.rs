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

/// A device address of `T` values: a `#[repr(transparent)]` 64-bit integer,
/// so it is [`DeviceCopy`] and a kernel-argument struct that carries device
/// buffers derives `DeviceCopy` (a `*mut T` field is rejected: on the host
/// it would be a host address).
///
/// On the host it is only a number (what `cuMemAlloc` returned, plus an
/// offset); nothing dereferences it. Device code turns it back into a
/// pointer with [`as_ptr`](Self::as_ptr)/[`as_mut_ptr`](Self::as_mut_ptr)
/// (on `nvptx64` a generic address is the same 64 bits). The kernel ABI
/// passes it exactly as a `u64` or a pointer parameter.
///
/// # Examples
///
/// ```
/// use bitpack::{DeviceCopy, DevicePtr, E2M1, NArray};
///
/// #[derive(Clone, Copy, DeviceCopy)]
/// #[repr(C)]
/// struct Args {
///     x: DevicePtr<NArray<E2M1, 8>>, // one u32 of eight FP4 values each
///     y: DevicePtr<f32>,
///     n: u64,
/// }
///
/// let x = DevicePtr::<NArray<E2M1, 8>>::new(0x7f00_0000_0000);
/// let args = Args { x, y: DevicePtr::new(0x7f00_0010_0000), n: 1024 };
/// assert_eq!(core::mem::size_of::<Args>(), 24);
/// assert_eq!(args.x.offset(3).map(DevicePtr::addr), Some(0x7f00_0000_000c));
/// assert!(DevicePtr::<f32>::null().is_null());
/// ```
#[repr(transparent)]
pub struct DevicePtr<T> {
    addr: u64,
    _type: PhantomData<fn() -> T>,
}

impl<T> DevicePtr<T> {
    /// The address `addr` (a device address from the driver).
    pub const fn new(addr: u64) -> Self {
        DevicePtr {
            addr,
            _type: PhantomData,
        }
    }

    /// Address 0.
    pub const fn null() -> Self {
        Self::new(0)
    }

    /// The address as an integer.
    pub const fn addr(self) -> u64 {
        self.addr
    }

    /// Whether the address is 0.
    pub const fn is_null(self) -> bool {
        self.addr == 0
    }

    /// The address of element `count` (`addr + count * size_of::<T>()`), or
    /// `None` when that overflows 64 bits.
    pub const fn offset(self, count: u64) -> Option<Self> {
        let size = core::mem::size_of::<T>() as u64;
        match count.checked_mul(size) {
            Some(bytes) => match self.addr.checked_add(bytes) {
                Some(a) => Some(Self::new(a)),
                None => None,
            },
            None => None,
        }
    }

    /// The same address, as a pointer to `U`.
    pub const fn cast<U>(self) -> DevicePtr<U> {
        DevicePtr::new(self.addr)
    }

    /// The address as a pointer, for device code (on `nvptx64` a generic
    /// address is the same 64 bits). Creating it is safe; reading through
    /// it is as unsafe as through any raw pointer.
    #[cfg(target_pointer_width = "64")]
    pub fn as_ptr(self) -> *const T {
        core::ptr::with_exposed_provenance(self.addr as usize)
    }

    /// The address as a mutable pointer, for device code (see
    /// [`as_ptr`](Self::as_ptr)).
    #[cfg(target_pointer_width = "64")]
    pub fn as_mut_ptr(self) -> *mut T {
        core::ptr::with_exposed_provenance_mut(self.addr as usize)
    }
}

impl<T> Clone for DevicePtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for DevicePtr<T> {}

impl<T> PartialEq for DevicePtr<T> {
    fn eq(&self, other: &Self) -> bool {
        self.addr == other.addr
    }
}

impl<T> Eq for DevicePtr<T> {}

impl<T> core::fmt::Debug for DevicePtr<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DevicePtr({:#x})", self.addr)
    }
}

impl<T> Default for DevicePtr<T> {
    fn default() -> Self {
        Self::null()
    }
}

// SAFETY:
// - `DevicePtr<T>` is `#[repr(transparent)]` over a `u64` (its other field
//   is a zero-sized `PhantomData`), so its layout is a `u64`'s, fixed;
// - it holds a device address, the one kind of address the trait allows
//   (it is meaningless on the host and never dereferenced there);
// - it is `Copy`, has no `Drop` and no interior mutability.
unsafe impl<T: 'static> DeviceCopy for DevicePtr<T> {}
