//! Packed element types, stored bit-exact in the layouts GPUs read.
//!
//! `bitpack` stores values narrower than a byte (a 4-bit float, a 6-bit
//! float, a 1-bit bool, a 5-bit integer), values of odd widths up to 128
//! bits, and plain aggregates, in the dense LSB-first layout that PTX,
//! cuBLASLt/cuDNN, DLPack, PyTorch and Arrow read.
//!
//! # How do I…
//!
//! | task | start from |
//! |---|---|
//! | pack `f32`s as FP4/FP6/FP8 and read them back | [`formats::encode`] / [`formats::decode`] (one value per type: [`E2M1::from_f32`]) |
//! | pack into a buffer I own, without an allocator | [`formats::encode_packed`] / [`formats::decode_packed`] |
//! | define my own float format | [`formats::MiniFloat`] on a `#[derive(BitElement)]` newtype ([`formats`] has a worked example) |
//! | define my own narrow integer or aggregate element | [`derive@BitElement`] |
//! | MXFP4/MXFP6/MXFP8 or NVFP4 with swizzled scales for cuBLASLt | [`formats::MxArray`], [`formats::Nvfp4Array`] ([`scales_swizzled`](formats::MxArray::scales_swizzled), [`formats::swizzle_scales`]) |
//! | pass a struct to a GPU kernel as raw bytes | [`derive@DeviceCopy`] |
//! | a few values in one register, as PTX's packed `cvt` writes them | [`NArray`] |
//! | a packed heap array, N-d, zero-copy reinterpret | [`NarrowArray`] |
//! | slice, transpose, broadcast; sum whole, strided or per axis | [`NarrowArray::view`], [`View`], [`View::sum_axes`] |
//! | a width known only at run time | [`DynNarrowArray`] |
//! | the raw kernels (pack, unpack, sum, decode) on word buffers | [`kernels`] |
//! | look a format up by its ml_dtypes, PyTorch or DLPack name | [`formats::FloatFormat::by_name`] |
//! | encode from `f16`, `bf16` or `f64` with one rounding, or stochastically | [`formats::Encoder`] |
//! | MX scale rules, blocks along any axis, 16 x 16 NVFP4 tiles | [`formats::MxArray::quantize_with`], [`formats::Nvfp4Array::quantize_with`] |
//! | read packed bytes owned elsewhere (mmap, DLPack, GPU readback) | [`NarrowRef`], [`NarrowMut`] |
//! | hand arrays to numpy/PyTorch or take theirs (DLPack) | [`dlpack`] (feature `dlpack`) |
//! | Arrow validity bitmaps and unsigned arrays | [`arrow`](mod@arrow) (feature `arrow`) |
//! | which type matches another system's packed layout | [`interop`] |
//! | use the kernels inside my own GPU kernel crate | [`kernels::fixed`], [`DevicePtr`]; the README's ["Using bitpack in your GPU kernels"](https://github.com/bitpack-rs/bitpack#using-bitpack-in-your-gpu-kernels) |
//! | quantize one MX/NVFP4 block inside a GPU kernel | [`formats::BlockGrid`], [`formats::mx_scale`], [`formats::mx_codes`], [`formats::nvfp4_scale`], [`formats::nvfp4_codes`] |
//! | run the kernels (also MX/NVFP4) on a GPU from the host | [`cuda::Gpu`] (feature `cuda`) |
//! | what went wrong | [`Error`]: every message names the numbers and what was being sized |
//!
//! ```
//! use bitpack::formats::{self, E2M1, Mode};
//!
//! let packed = formats::encode::<E2M1>(&[0.07, -1.3, 2.6, 5.9], Mode::Nearest);
//! // Element 0 in the low nibble: the bytes of `torch.float4_e2m1fn_x2`.
//! assert_eq!(packed.as_bytes(), [0xb0, 0x75]);
//! assert_eq!(formats::decode(&packed), [0.0, -1.5, 3.0, 6.0]);
//! ```
//!
//! # The bit model
//!
//! 1. A value of `T` has [`T::BITS`](BitElement::BITS) value bits (1..=128).
//!    Containers store value bits **LSB-first in index order**: element 0
//!    occupies the lowest bits of byte 0. Bits past the last element are
//!    padding, and padding is always zero.
//! 2. `reinterpret` keeps bits and never changes width; when bit counts don't
//!    match it returns an [`Error`]. Width changes are
//!    [`raw_bits`](BitElement::raw_bits) (zero-extension) and
//!    [`from_raw_bits`](BitElement::from_raw_bits) (truncation).
//! 3. Packed containers keep the total bit count under `reinterpret` and
//!    rescale the length of the packed (innermost) dimension.
//! 4. `NArray` is the value (register) layout, `NarrowArray` the memory
//!    layout, and `[T; N]` the compute layout.
//!
//! # Elements
//!
//! Any [`BitElement`] packs: the built-in integers, `bool` (1 bit), `f32`,
//! `f64`, `half::f16`/`half::bf16`, `arbitrary_int`'s `u1`..`u127`, and your
//! own types through `#[derive(BitElement)]`:
//!
//! ```
//! use bitpack::BitElement;
//!
//! // A narrow newtype: 4 value bits in a byte.
//! #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
//! #[repr(transparent)]
//! #[bitwidth(4)]
//! struct Float4(u8);
//!
//! assert_eq!(Float4::BITS, 4);
//! assert_eq!(Float4(0xF3).raw_bits(), 0x3); // bits above the width are cleared
//! assert_eq!(Float4::from_raw_bits(0xA5), Float4(0x5));
//!
//! // A full-bytes aggregate: packs as all of its bytes, first field lowest.
//! #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
//! #[repr(C)]
//! struct Rgb {
//!     r: u8,
//!     g: u8,
//!     b: u8,
//! }
//!
//! assert_eq!(Rgb::BITS, 24);
//! let raw: u32 = Rgb { r: 1, g: 2, b: 3 }.raw_bits();
//! assert_eq!(raw, 0x03_02_01);
//!
//! // A fieldless enum whose discriminants are exactly 0..2^k: k bits.
//! #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
//! #[repr(u8)]
//! enum Lane {
//!     A,
//!     B,
//!     C,
//!     D,
//! }
//!
//! assert_eq!(Lane::BITS, 2);
//! assert_eq!(Lane::from_raw_bits(0b110), Lane::C);
//! ```
//!
//! # Arrays, views and sums
//!
//! [`NarrowArray`] (feature `alloc`) is the packed heap array. Its second type
//! parameter is the physical layout: [`Dense`], the default and the byte
//! stream DLPack, Arrow and numpy read, or [`WordAligned`], where no value
//! straddles a 64-bit word. Strided N-d [`View`]s and [`ViewMut`]s read and
//! write through [`Layout`]s (shape, strides and offset in elements; negative,
//! zero and repeating strides; up to 64 dimensions), validated before anything
//! is touched. Unsigned elements ([`UnsignedElement`]) sum without being
//! unpacked: whole, strided, N-d, or over any set of axes into a buffer you
//! own. [`DynNarrowArray`] holds unsigned integers at a width chosen at run
//! time (1..=64 bits), dispatches each bulk call once to the width's kernel,
//! and widens in place when a wider value arrives.
//!
//! ```
//! use bitpack::arbitrary_int::u5;
//! use bitpack::{DynNarrowArray, NarrowArray, WordAligned};
//!
//! let mut a: NarrowArray<u5> = (0..12u8).map(u5::new).collect();
//! a.reshape(&[3, 4])?;
//! let v = a.view();
//! assert_eq!(v.transpose().get(&[3, 2]), Some(u5::new(11)));
//! assert_eq!(v.step_by(1, 2)?.sum(), 0 + 2 + 4 + 6 + 8 + 10);
//! assert_eq!(v.sum_axes(&[0], false)?.1, [12, 15, 18, 21]);
//! a.view_mut().select(0, 0)?.assign_from_uints(&[31u64, 30, 29, 28])?;
//!
//! let aligned = a.to_layout::<WordAligned>(); // 12 values per 64-bit word
//! assert_eq!(aligned.sum(), a.sum());
//!
//! let mut d = DynNarrowArray::from_values(&[3, 1, 2]); // 2 bits each
//! d.push(1000); // widens to 10 bits
//! assert_eq!((d.width(), d.sum()), (10, 1006));
//! # Ok::<(), bitpack::Error>(())
//! ```
//!
//! Sums are exact: a run of `n` values of `b` bits accumulates in a `u64`
//! while `n * (2^b - 1)` fits one (always for `b <= 32` and fewer than `2^32`
//! values) and in a `u128` across such pieces, so whole sums are `u128`s;
//! axis sums are `u64`s, and an output that cannot hold its sum is an
//! [`Error::SumOverflow`] found before anything is written. `BENCHMARKS.md`
//! ("Views and reductions") has the speeds and when each layout wins.
//!
//! # Interop
//!
//! [`NarrowRef`] and [`NarrowMut`] borrow packed bytes that something else
//! owns (a DLPack tensor, a memory-mapped file, a GPU readback) after
//! validating them once. The `dlpack` feature exports and imports
//! `DLManagedTensorVersioned` (`bitpack::dlpack`, with the data type
//! table), the `arrow` feature converts Arrow bitmaps and unsigned arrays,
//! and `bitpack::interop` tabulates the conventions of DLPack, ml_dtypes, PyTorch,
//! CUDA, ONNX, numpy and Arrow against bitpack's types.
//!
//! # Device copies
//!
//! [`DeviceCopy`] marks types whose bytes can be copied to a device as raw
//! bytes; `#[derive(DeviceCopy)]` checks the layout rules at compile time.
//! A [`DevicePtr<T>`](DevicePtr) is a device address (a transparent `u64`),
//! so kernel-argument structs that carry device buffers derive it too.
//!
//! # On the GPU
//!
//! GPU kernel crates depend on `bitpack` with `default-features = false`
//! and call [`kernels::fixed`], the crate's kernels with the width as a
//! const parameter (its docs list the device-callable items). On `nvptx64`
//! the pair conversions use PTX's packed `cvt` where the target has it,
//! giving the portable code's bits. MX and NVFP4 blocks quantize in
//! registers with the device-callable block core of [`formats`]
//! ([`formats::BlockGrid`], [`formats::mx_codes`], [`formats::nvfp4_codes`],
//! ...), the bytes of the host arrays. The crate's own kernels are built to
//! PTX for the targets of `bitpack/ptx/TARGETS` (`sm_80`, `sm_89`, `sm_90`,
//! `sm_100a`, `sm_120a`; with `ptxas -v` registers per entry in
//! `RESOURCES.md`), and the `cuda` feature runs them from the host
//! (`cuda::Gpu`). They have been checked bit for bit against the host on an
//! H200 (`GPU.md` in the repository). The README's "Using bitpack in your
//! GPU kernels" gives the build steps.
//!
//! # Features
//!
//! - `std` (default): implies `alloc`; `std::error::Error` and run-time CPU
//!   feature detection.
//! - `alloc`: the heap containers.
//! - `half` (default): `half::f16` and `half::bf16` elements; the crate is
//!   re-exported as `bitpack::half`.
//! - `arbitrary-int` (default): `arbitrary_int::u1`..`u127` elements; the
//!   crate is re-exported as `bitpack::arbitrary_int`.
//! - `dlpack`: DLPack export and import (`bitpack::dlpack`); implies `alloc`.
//! - `arrow`: Arrow bitmaps and unsigned arrays (`bitpack::arrow`, through
//!   `arrow-buffer` and `arrow-array`); implies `std`.
//! - `cuda`: `cuda::Gpu` and `cuda::DeviceNarrowArray`, the crate's
//!   kernels on a CUDA device through `cudarc` (the driver is loaded at run
//!   time: it builds without CUDA, and without a driver every call is an
//!   [`Error::Device`]).
//! - `rayon`: large bulk calls use every core. There are no separate
//!   parallel functions: above [`PARALLEL_THRESHOLD`] values (2^20; a
//!   sum counts each value as an eighth, so it splits from 2^23), the calls
//!   themselves ([`formats::encode`], [`formats::encode_into`],
//!   [`formats::decode`], [`formats::decode_into`],
//!   [`formats::Encoder::array`], [`formats::MxArray::quantize_with`],
//!   [`formats::Nvfp4Array::quantize_with`] (its default tensor scale by a
//!   parallel amax first), both arrays' `dequantize`, [`NarrowArray::sum`],
//!   the packs and unpacks of [`NarrowArray`] (`from_slice`, `extend`,
//!   `pack_from`, `to_vec` and `unpack_into`) and of [`DynNarrowArray`]
//!   (and its `sum`), [`NarrowRef::unpack_into`] and [`NarrowRef::sum`]
//!   (over bytes of any alignment), [`NarrowMut::pack_from`], and strided
//!   views' sums and unpacks, [`View::sum`], [`View::unpack_into`] and
//!   their [`ViewMut`] forms) cut their work into pieces on the
//!   current `rayon` pool (`ThreadPool::install` chooses the threads; a
//!   pool of one thread stays on one). The cuts fall on packed word
//!   boundaries (no two threads write one word) and on whole MX and NVFP4
//!   blocks and 16 x 16 tiles; MX blocks along another axis split by
//!   blocks' rows, and NVFP4 tiles by tile rows (one row of tiles computes
//!   its scales on one thread). Every value is computed by the same code as
//!   on one thread, and stochastic rounding draws value `i`'s random bits
//!   from `i`, so results are bit-identical with and without the feature,
//!   and so are errors. The slice and byte-buffer calls that need no
//!   allocator (`encode_slice`, `encode_packed`, `decode_packed`, ...),
//!   the strided views' other copies (`to_vec`, assignments) and axis
//!   sums, and the raw kernels ([`kernels`]) stay on one thread. Implies `std`;
//!   the `no_std` builds never have it.
//!
//! With no features the crate is `no_std` without an allocator and builds for
//! `nvptx64-nvidia-cuda`, so GPU kernel crates can embed it.
#![no_std]
// docs.rs (`--cfg docsrs`, nightly): a badge on every item a feature gates.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch))]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

#[cfg(feature = "alloc")]
#[allow(unused_extern_crates, reason = "the heap containers use it")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod array;
#[cfg(feature = "arrow")]
#[cfg_attr(docsrs, doc(cfg(feature = "arrow")))]
pub mod arrow;
#[cfg(feature = "cuda")]
#[cfg_attr(docsrs, doc(cfg(feature = "cuda")))]
pub mod cuda;
mod device;
#[cfg(feature = "dlpack")]
#[cfg_attr(docsrs, doc(cfg(feature = "dlpack")))]
pub mod dlpack;
mod element;
mod error;
mod float;
pub mod formats;
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub mod interop;
pub mod kernels;
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub mod narrow;
mod narrow_int;
#[cfg(feature = "alloc")]
mod par;
mod record;
#[cfg(feature = "alloc")]
#[cfg(feature = "alloc")]
mod reduce;
mod shape;
mod storage;
mod unsigned;
mod view;

#[doc(hidden)]
pub mod __private;

/// The README's examples, run as doctests so the front page stays true.
#[cfg(all(doctest, feature = "std", feature = "arbitrary-int"))]
#[doc = include_str!("../../README.md")]
mod readme {}

#[doc(inline)]
pub use array::NArray;
pub use device::{DeviceCopy, DevicePtr};
pub use element::{BitElement, UnsignedElement, bitwidth, from_raw_bits, raw_bits};
pub use error::{Error, LengthOf, Result};
#[doc(inline)]
pub use formats::{E2M1, E2M3, E3M2, E4M3, E5M2, E8M0};
#[cfg(feature = "alloc")]
#[doc(inline)]
pub use narrow::{Dense, DynNarrowArray, NarrowArray, Packing, ReinterpretError, WordAligned};
#[cfg(feature = "alloc")]
#[doc(inline)]
pub use narrow::{NarrowMut, NarrowRef};
pub use narrow_int::NarrowInt;
#[cfg(feature = "rayon")]
#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
pub use par::THRESHOLD as PARALLEL_THRESHOLD;
#[cfg(feature = "rayon")]
#[doc(hidden)]
pub use par::with_threshold as __with_parallel_threshold;
pub use record::{Field, FieldInfo, Packed, Record};
pub use shape::{Layout, LayoutIter, MAX_DIMS, Runs};
#[doc(hidden)]
pub use storage::StorageOf as __StorageOf;
pub use storage::{Lanes, SmallStorage, Storage, checked_storage_bytes, storage_bytes};
pub use unsigned::Unsigned;
#[cfg(feature = "alloc")]
pub use view::{View, ViewIter, ViewMut};

/// The `arbitrary-int` crate, whose `u1`..`u127` are elements here: use
/// `bitpack::arbitrary_int::u4` without a dependency of your own.
#[cfg(feature = "arbitrary-int")]
pub use arbitrary_int;
/// The `half` crate, whose `f16` and `bf16` are elements and conversion
/// sources here.
#[cfg(feature = "half")]
pub use half;

/// Derives [`BitElement`](trait@BitElement) for a narrow newtype, a
/// `repr(transparent)` wrapper, a full-bytes aggregate, a fieldless enum or
/// a packed record of narrow fields (`#[bitpack(record)]`).
///
/// Every layout promise is checked at compile time; a type that breaks one is
/// a compile error at the token at fault, saying what is wrong and how to fix
/// it.
///
/// A derived narrow newtype holds bits; to give it a float format's values
/// and roundings (from `f32`, `f64`, `f16`, `bf16`, bulk encode and decode,
/// MX block scaling), implement [`formats::MiniFloat`] on it, as the
/// [`formats`] module's "Your own format" example does.
///
/// # Narrow newtype: `#[repr(transparent)] #[bitwidth(N)]`
///
/// One field (tuple or named) holds the bits; the element is its low `N` bits,
/// `1 <= N <= 128`. The field is an unsigned integer or any other
/// `BitElement` of at least `N` bits. `Raw` is the field's `Raw`;
/// `raw_bits` clears the bits above `N` and `from_raw_bits` ignores them.
///
/// ```
/// use bitpack::BitElement;
///
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[repr(transparent)]
/// #[bitwidth(4)]
/// struct Float4(u8);
///
/// assert_eq!(Float4::BITS, 4);
/// assert_eq!(Float4(0xF3).raw_bits(), 0x3u8); // bits above 4 are cleared
/// assert_eq!(Float4::from_raw_bits(0xA5), Float4(0x5)); // and ignored
///
/// // Over another element, and with a named field:
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[repr(transparent)]
/// #[bitwidth(3)]
/// struct Low3 {
///     bits: Float4,
/// }
/// assert_eq!(Low3 { bits: Float4(0xF) }.raw_bits(), 0b111);
/// ```
///
/// # Wrapper: `#[repr(transparent)]`, no `bitwidth`
///
/// One field, and the same element as that field: its `BITS`, its `Raw`, its
/// bits. For a field that fills its bytes this is the full-bytes rule below.
///
/// ```
/// use bitpack::BitElement;
///
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[repr(transparent)]
/// struct Meters(f32);
///
/// assert_eq!(Meters::BITS, 32);
/// assert_eq!(Meters(1.5).raw_bits(), 1.5f32.to_bits());
/// ```
///
/// # Full-bytes aggregate: `#[repr(C)]`, no `bitwidth`
///
/// A struct of at most 16 bytes, without padding, whose fields are all
/// `BitElement`s that fill their bytes (`BITS == 8 * size_of`). It packs as
/// all of its bytes: `BITS = 8 * size_of::<Self>()`, `Raw` is the narrowest
/// of `u8`..`u128` holding them (3 bytes: `u32`), and each field's bits sit
/// at `8 * offset_of!(Self, field)`, so the first field is in the low bits,
/// whatever the target's byte order. `repr(C, packed)` is accepted.
///
/// ```
/// use bitpack::BitElement;
///
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[repr(C)]
/// struct Rgb {
///     r: u8,
///     g: u8,
///     b: u8,
/// }
///
/// assert_eq!(Rgb::BITS, 24);
/// let raw: u32 = Rgb { r: 1, g: 2, b: 3 }.raw_bits();
/// assert_eq!(raw, 0x03_02_01);
/// assert_eq!(Rgb::from_raw_bits(0xFF_03_02_01), Rgb { r: 1, g: 2, b: 3 });
///
/// // Mixed widths, largest alignment first: no padding.
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[repr(C)]
/// struct Sample(u16, u8, i8);
/// assert_eq!(Sample(0x1234, 0x56, -1).raw_bits(), 0xFF_56_1234u32);
/// ```
///
/// A `bool`, an enum or a narrow newtype does not fill its bytes, so it
/// cannot be an aggregate's field (a byte pattern like `2` would not survive
/// the round trip); store narrow values in a narrow newtype or an `NArray`.
///
/// # Fieldless enum: an integer `repr`, discriminants exactly `0..2^k`
///
/// `2^k` variants (`k >= 1`) whose discriminants, implicit or integer
/// literals in any order, are exactly `0..2^k`: every `k`-bit pattern is a
/// variant, so `from_raw_bits` is a total `match` (no panic, no `unsafe`).
/// `BITS = k`; `Raw` is the unsigned integer of the repr's size.
///
/// ```
/// use bitpack::BitElement;
///
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[repr(u8)]
/// enum Rounding {
///     Up = 2,
///     Nearest = 0,
///     Down = 3,
///     Zero = 1,
/// }
///
/// assert_eq!(Rounding::BITS, 2);
/// assert_eq!(Rounding::Up.raw_bits(), 2u8);
/// assert_eq!(Rounding::from_raw_bits(0b111), Rounding::Down);
/// ```
///
/// ## With a fallback variant: any count, unused codes decode to it
///
/// An enum whose variants do not fill `0..2^k` marks one unit variant
/// `#[bitpack(fallback)]`: `BITS` is the width of its largest discriminant
/// (at least enough bits for its variant count), discriminants are distinct
/// and non-negative, and `from_raw_bits` maps every code no variant has to
/// the fallback, so it stays total. That round trip is lossy for those
/// codes (`from_raw_bits(5).raw_bits()` is the fallback's discriminant,
/// not 5), and a record holding such a field accepts them in
/// `try_from_raw_bits` as values of the field. Without a fallback, an enum
/// with unused codes is a compile error that counts them; a fallback on an
/// enum with no unused code is one too.
///
/// ```
/// use bitpack::BitElement;
///
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[repr(u8)]
/// enum Kind {
///     Word,
///     Number,
///     Space,
///     #[bitpack(fallback)]
///     Other,
///     Punct,
/// }
///
/// assert_eq!(Kind::BITS, 3); // 5 variants; codes 5, 6 and 7 are unused
/// assert_eq!(Kind::from_raw_bits(4), Kind::Punct);
/// assert_eq!(Kind::from_raw_bits(6), Kind::Other);
/// assert_eq!(Kind::Other.raw_bits(), 3);
/// ```
///
/// # Packed record: `#[bitpack(record)]`
///
/// A struct (named or tuple fields) whose fields are all elements of any
/// width: `bool`, `u1`..`u127`, `i1`..`i127`, fieldless enums, narrow
/// newtypes, the float formats (`E2M1`, ...), other records, `NArray`s.
/// The fields are packed LSB-first in declaration order, as a packed array
/// packs its values: field 0 in the lowest bits, field `k` at the sum of the
/// widths before it. `BITS` is that sum (at most 128), `Raw` the narrowest
/// of `u8`..`u128` holding it; a `NarrowArray` of records is the dense
/// stream of `BITS`-bit records (a million 15-bit tokens take 1,875,000
/// bytes).
///
/// ```
/// use bitpack::arbitrary_int::{i6, u3, u4, u5};
/// use bitpack::{BitElement, NarrowArray, Packed};
///
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[bitpack(record)]
/// struct Fp8Parts {
///     man: u3,
///     exp: u4,
///     sign: bool,
/// }
///
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[repr(u8)]
/// enum Kind { Ident, Number, Str, Op, Open, Close, Comma, End }
///
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[bitpack(record)]
/// struct Token {
///     kind: Kind, // bits 0..3
///     len: u5,    // bits 3..8
///     delta: i6,  // bits 8..14
///     flag: bool, // bit 14
/// }
///
/// assert_eq!((Fp8Parts::BITS, Token::BITS), (8, 15));
/// let t = Token { kind: Kind::Str, len: u5::new(7), delta: i6::new(-1), flag: true };
/// assert_eq!(t.raw_bits(), 0b1_111111_00111_010u16);
/// assert_eq!(Token::from_raw_bits(t.raw_bits()), t);
///
/// // Field access without unpacking: the packed form and the field constants.
/// let p = Packed::new(t).with(Token::LEN, u5::new(9));
/// assert_eq!(p.get(Token::LEN), u5::new(9));
/// assert_eq!((Token::DELTA.offset(), Token::DELTA.width()), (8, 6));
///
/// // Arrays of records, and one field of every record as a column.
/// let a: NarrowArray<Token> = vec![t; 1000].into_iter().collect();
/// assert_eq!(a.as_bytes().len(), 1875);
/// assert_eq!(a.field(Token::LEN).get(999), Some(u5::new(7)));
/// assert_eq!(a.field_sum(Token::LEN), 7000);
/// # let _ = u4::new(0);
/// ```
///
/// What the derive gives a record `R`, beside `BitElement` and the
/// `Lanes` of `NArray`:
///
/// - one associated constant per field that is not reserved, named after
///   the field in upper case (`F0`, `F1`, ... for tuple fields), of type
///   [`Field<R, FieldType>`](Field), with the field's docs and visibility:
///   its offset, width and mask, and the reads and writes of its code in
///   the record's bits, are `const fn`s usable in `const` items and generic
///   code. Typed reads and writes (`get`, `set`, `with`) are on the packed
///   form [`Packed<R>`](Packed) (`repr(transparent)` over `R::Raw`), and
///   need not be `const` (they call the field type's `from_raw_bits`, a
///   trait method, which stable Rust cannot call in `const fn`);
/// - [`Record`]: `NAME`, `FIELDS` (name, offset, width, reserved pattern of
///   each) and [`try_from_raw_bits`](Record::try_from_raw_bits);
/// - with the `dlpack` feature, `bitpack::dlpack::DlpackElement`:
///   a record exports as its carrier bits, `kDLUInt` with `bits = BITS`,
///   packed as the array holds them (a consumer that reads the record
///   layout unpacks the fields itself);
/// - with the `arrow` feature, `NarrowArray::to_struct_array`: an array of
///   records as an Arrow struct array, one `UInt8`..`UInt64` child of field
///   codes per field that is not reserved;
/// - with `#[bitpack(record, default)]`, `Default`: each field's
///   `Default`, a reserved field's fixed bits, or the code of its
///   `#[bitpack(default = N)]`.
///
/// `Debug` is the record's own `#[derive(Debug)]`, which prints field names
/// and values (a record is an ordinary struct, unpacked); `Packed<R>`'s
/// `Debug` prints the bits and that value, its `Binary` (`{:b}`) the `BITS`
/// bits, padded.
///
/// Field keys:
///
/// - `#[bitpack(reserved)]` (all zeros) or `#[bitpack(reserved = ones)]`:
///   bits that must hold a fixed pattern. A reserved field gets no field
///   constant, so the packed form cannot set it; `from_raw_bits` reads it as
///   it is (the element contract: total, and `from_raw_bits(r).raw_bits()`
///   is `r`), and `try_from_raw_bits` rejects other bits with
///   [`Error::RecordField`] naming the record, the field, its bits and the
///   code. A nested record is checked with its own `try_from_raw_bits`.
/// - `#[bitpack(at = N)]`: the field starts at bit `N` (0..=127), above the
///   end of the field before it; the bits skipped are a gap, zero in
///   `raw_bits`, ignored by `from_raw_bits` (so for a record with gaps
///   `from_raw_bits(r).raw_bits()` is `r` with the gap bits cleared) and
///   required zero by `try_from_raw_bits`.
/// - `#[bitpack(default = N)]`: the field's code in the derived `Default`.
///
/// Every code of every field is a value (the fields are elements: an
/// element enum has exactly `2^k` variants, or a fallback variant that
/// every unused code decodes to), so `from_raw_bits` is total.
///
/// ```
/// use bitpack::arbitrary_int::{u2, u3, u4};
/// use bitpack::{BitElement, Record};
///
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[bitpack(record, default)]
/// struct Spaced {
///     a: u3,
///     #[bitpack(at = 5, default = 9)] // bits 3..5 are a gap
///     b: u4,
///     #[bitpack(reserved = ones)]
///     marker: u2,
/// }
///
/// assert_eq!(Spaced::BITS, 11);
/// assert_eq!(Spaced::default().raw_bits(), 0b11_1001_00_000);
/// let err = Spaced::try_from_raw_bits(0b11_0000_01_000).unwrap_err();
/// assert_eq!(err.to_string(), "record `Spaced`: the gap at bits 3..5 holds 0b1 (1), must be all zeros");
/// # let _ = u2::new(0);
/// ```
///
/// ## Records and full-bytes aggregates
///
/// A record is opt-in (`#[bitpack(record)]`), so today's aggregates keep
/// their meaning: a `#[repr(C)]` struct without the key is a full-bytes
/// aggregate, packed as all of its bytes at their `offset_of!`, and rejects
/// narrow fields (`bool`, enums, newtypes). A record packs by widths, not
/// by its memory layout: it needs no `repr` (a `#[repr(C)]` one can also
/// derive `DeviceCopy`), and accepts fields of any width. For fields that
/// fill their bytes in declaration order without padding (`Rgb { r: u8, g:
/// u8, b: u8 }`), both give the same bits.
///
/// ## Compared with the bitfield crates
///
/// Each crate packs one value into one register-sized word; the rows are
/// checked on this crate's side by the test named in the last column
/// (`tests/tests/records.rs`).
///
/// | | bilge | modular-bitfield | bitfield-struct | `bitpack` records | checked by |
/// |---|---|---|---|---|---|
/// | bit order | first field in the low bits | first field in the low bits | first field in the low bits (`order = Msb` reverses) | first field in the low bits, as array elements | `table_bit_order` |
/// | widths | `u1`..`u127` fields, `#[bitsize(N)]` total | `B1`..`B128`, total a multiple of 8 unless `filled = false` | total equal to the storage integer's width | any element fields, any total 1..=128; 15 bits take 15 bits in an array | `table_widths` |
/// | enums and fallbacks | `FromBits` (every code), `TryFromBits`, `#[fallback]` variant | `BitfieldSpecifier`, `Result` getters for partial enums | user types with `const` conversions | enums of exactly `2^k` variants (every code a value), or any count with a `#[bitpack(fallback)]` variant for the unused codes | `table_enums` |
/// | reserved fields | `reserved`/`padding` fields | `#[skip]` fields | `_`-prefixed padding fields | `reserved` (zeros) or `reserved = ones`, not settable, checked by `try_from_raw_bits`, placement with `at` | `table_reserved` |
/// | const accessors | generated getters/setters | runtime getters/setters | `const fn` getters, setters, `with_` | `const fn` offsets, widths, masks, code reads and writes (`Field`); typed `get`/`set`/`with` on `Packed` | `table_const_accessors` |
/// | arrays | a `[T; n]` of whole carriers | a `[T; n]` of whole byte arrays | a `[T; n]` of whole integers | `NarrowArray<R>`: dense `BITS`-bit stream, columns, column writes, field sums | `table_arrays` |
/// | views | none | none | none | strided N-d views: a view's column, field sum and column write | `table_views` |
/// | GPU | none | none | none | `no_std` generated code, `Packed<R>` and `repr(C)` records are `DeviceCopy`, DLPack export | `table_gpu` |
///
/// Measured against bitfield-struct on a million records in `BENCHMARKS.md`
/// ("Records").
///
/// # Generics
///
/// Narrow newtypes and wrappers may be generic; the derive bounds each field
/// type that names a parameter by `BitElement`. A `repr(C)` aggregate or an
/// enum cannot be generic (an aggregate's `Raw` depends on its size, which
/// stable Rust cannot compute from a parameter), and no `BitElement` has
/// lifetime parameters.
///
/// ```
/// use bitpack::BitElement;
///
/// #[derive(Clone, Copy, Debug, PartialEq, BitElement)]
/// #[repr(transparent)]
/// #[bitwidth(3)]
/// struct Low3<T>(T);
///
/// assert_eq!(<Low3<u16> as BitElement>::BITS, 3);
/// assert_eq!(Low3(0xFFu8).raw_bits(), 0b111);
/// ```
///
/// A generic narrow newtype's width is checked against its field when the
/// impl is used with a concrete field (a full build; `cargo check` does not
/// evaluate it):
///
/// ```compile_fail,E0080
/// use bitpack::BitElement;
///
/// #[derive(Clone, Copy, BitElement)]
/// #[repr(transparent)]
/// #[bitwidth(12)]
/// struct Low12<T>(T);
///
/// // 12 bits do not fit in a `u8`:
/// let _ = Low12(0u8).raw_bits();
/// ```
///
/// # Default storage (`Lanes`)
///
/// For a non-generic type the derive also implements [`Lanes<N>`](Lanes) for
/// `N` in `1..=64`, so `NArray<T, N>` gets its default storage. A generic type
/// gets none (stable Rust cannot pick a type from a generic `BITS`): name the
/// storage explicitly.
///
/// ```
/// use bitpack::{BitElement, Lanes};
///
/// #[derive(Clone, Copy, BitElement)]
/// #[repr(transparent)]
/// #[bitwidth(6)]
/// struct Float6(u8);
///
/// let _: <Float6 as Lanes<4>>::Storage = [0u8; 3]; // 24 bits
/// let _: <Float6 as Lanes<8>>::Storage = [0u16; 3]; // 48 bits
/// ```
///
/// # Crates that re-export `bitpack`
///
/// The generated code names the runtime crate `::bitpack`; a crate that
/// re-exports it gives the path with `#[bitpack(crate = "...")]`:
///
/// ```
/// mod facade {
///     pub(crate) use ::bitpack as packing;
/// }
///
/// #[derive(Clone, Copy, facade::packing::BitElement)]
/// #[bitpack(crate = "facade::packing")]
/// #[repr(transparent)]
/// #[bitwidth(4)]
/// struct Float4(u8);
/// # use bitpack::BitElement as _;
/// # assert_eq!(Float4(0xF3).raw_bits(), 3);
/// ```
///
/// # Compile errors
///
/// Each of these is rejected, with the error at the token at fault:
/// `bitwidth` 0, above 128, above the field's width, not an integer literal,
/// given twice, or on an aggregate or enum; a missing or wrong `repr`; more
/// or fewer than one field in a newtype; padding; more than 16 bytes; a field
/// that is not a `BitElement` or does not fill its bytes (a raw pointer field
/// is named as one, once); an enum with a gap,
/// a duplicate, a count that is not a power of two, a single variant, data,
/// a non-literal discriminant or `#[non_exhaustive]`; unions; lifetime
/// parameters; unknown or duplicate `#[bitpack(...)]` keys. For records: a
/// field that is not an element, a record over 128 bits (at the field that
/// crosses bit 128), an `at` that overlaps the field before it, out of
/// order or past bit 127, a generic record, a reserved field with a
/// `default` other than its fixed bits, a `default` that does not fit its
/// field, `#[bitwidth]` on a record or its fields, field keys outside a
/// record.
///
/// ```compile_fail,E0080
/// use bitpack::BitElement;
///
/// #[derive(Clone, Copy, BitElement)]
/// #[repr(C)]
/// struct Mixed {
///     a: u8,
///     b: u16, // a padding byte before it: `Mixed` has padding
///     c: u8,
/// }
/// ```
///
/// ```compile_fail
/// use bitpack::BitElement;
///
/// #[derive(Clone, Copy, BitElement)]
/// #[repr(u8)]
/// enum Gap {
///     A = 0,
///     B = 1,
///     D = 3, // `Gap` has 3 variants; add one for 2
/// }
/// ```
///
/// ```compile_fail,E0080
/// use bitpack::BitElement;
///
/// #[derive(Clone, Copy, BitElement)]
/// #[repr(C)]
/// struct Flagged {
///     value: u8,
///     flag: bool, // 1 value bit in a byte: does not fill its bytes
/// }
/// ```
///
/// # Analysis
///
/// The derive emits no `unsafe` code. What it relies on, form by form, for
/// the [`BitElement`](trait@BitElement) contract:
///
/// - *Narrow newtype.* `BITS = N <= F::BITS` (checked: at parse time for a
///   primitive field, by a constant assertion otherwise), and
///   `from_raw_bits(r) = Self(F::from_raw_bits(r & mask(N)))`,
///   `raw_bits(x) = F::raw_bits(x.0) & mask(N)`. Since `F` round-trips its
///   low `F::BITS >= N` bits, `from_raw_bits(r).raw_bits() == r & mask(N)`.
///   `Raw = F::Raw` holds the value's bytes because `repr(transparent)` makes
///   them the field's bytes.
/// - *Wrapper.* The field's `BITS`, `Raw` and functions, unchanged.
/// - *Full-bytes aggregate.* `repr(C)` fixes the offsets; a constant
///   assertion proves that the size is the sum of the field sizes (no
///   padding, so the value's bytes are exactly the fields' bytes) and at most
///   16; another proves `F::BITS == 8 * size_of::<F>()` per field, so the
///   fields' bit ranges `8 * offset .. 8 * (offset + size)` tile
///   `0..8 * size_of::<Self>()` and each field round-trips all of its range.
///   These are free constant items, which rustc evaluates even under
///   `cargo check`.
/// - *Enum.* The discriminants are read from the source as literals and must
///   be exactly `0..2^k`, so `match r & mask(k)` has an arm for every value
///   and returns the variant whose discriminant it is; `raw_bits` is the
///   discriminant, `< 2^k`. With a fallback variant they must be distinct
///   and below `2^k` (`k` the width of the largest), and the `match` has an
///   arm for each other variant's discriminant and `_` for the fallback.
///
/// - *Record.* Field `k` starts at `o_k`, the sum of the widths before it
///   or its `at`; constant assertions prove `o_k >= o_{k-1} + w_{k-1}` (no
///   overlap) and `o_k + w_k <= 128`, so the ranges `o_k .. o_k + w_k` are
///   disjoint and below `BITS` (their end). `raw_bits` ORs each field's
///   `raw_bits` (clear above `w_k`, by the field's contract) shifted to
///   `o_k`, so bits above `BITS` and gap bits are clear; `from_raw_bits`
///   gives field `k` the bits from `o_k` up, which its own `from_raw_bits`
///   truncates to `w_k`, so it depends only on the low `BITS` bits and
///   round-trips every field's range (gap bits excepted, see above).
///
/// Checks that need types (a field's `BITS`, padding, trait bounds) are left
/// to rustc as constant assertions and trait bounds, spanned on the user's
/// tokens; see `ui-tests/` for every error and its message.
pub use bitpack_derive::BitElement;

/// Derives [`DeviceCopy`](trait@DeviceCopy) for a type with a fixed layout
/// whose fields are all `DeviceCopy`.
///
/// Accepted layouts:
///
/// - a struct or union with `#[repr(C)]` (optionally `packed` or `align`) or
///   `#[repr(transparent)]`;
/// - an enum with an explicit integer repr (`#[repr(u8)]` .. `#[repr(i64)]`,
///   with or without `C`), fieldless or carrying data: the primitive
///   representation fixes the tag and the layout of each variant.
///
/// Padding is tolerated: it is copied as raw bytes and never read as a value
/// (see the trait's copy rule). Every field of every variant must be
/// `DeviceCopy`; a field whose type names a generic parameter becomes a bound
/// of the impl, any other field is checked where it is written.
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
///     flag: bool, // three padding bytes follow: tolerated
///     table: [u16; 4],
/// }
///
/// #[derive(Clone, Copy, DeviceCopy)]
/// #[repr(u8)]
/// enum Op {
///     Sum,
///     Scale(f32),
/// }
///
/// #[derive(Clone, Copy, DeviceCopy)]
/// #[repr(transparent)]
/// struct Tagged<T>(T);
///
/// fn upload<T: DeviceCopy>(value: &T) -> usize {
///     core::mem::size_of_val(value)
/// }
/// assert_eq!(upload(&Params { scale: 1.0, flag: true, table: [0; 4] }), 16);
/// assert_eq!(upload(&Op::Scale(2.0)), 8);
/// let tagged = Tagged(Op::Sum);
/// assert_eq!(upload(&tagged), upload(&tagged.0));
/// if let Op::Scale(by) = Op::Scale(2.0) {
///     assert_eq!(by, 2.0);
/// }
/// ```
///
/// # Compile errors
///
/// No `repr`, `repr(Rust)`, `repr(packed)` without `C`, an enum without an
/// integer repr, a lifetime parameter, and a field that is not `DeviceCopy`
/// (a reference, a raw pointer, a `Vec`, a `Box`) are errors:
///
/// ```compile_fail
/// use bitpack::DeviceCopy;
///
/// #[derive(Clone, Copy, DeviceCopy)] // `Params` needs a fixed layout
/// struct Params {
///     scale: f32,
/// }
/// ```
///
/// ```compile_fail,E0277
/// use bitpack::DeviceCopy;
///
/// #[derive(Clone, Copy, DeviceCopy)]
/// #[repr(C)]
/// struct Params {
///     scale: f32,
///     table: &'static [f32; 4], // a host address
/// }
/// ```
///
/// # Analysis
///
/// The derive emits `unsafe impl DeviceCopy`. It is sound because each duty
/// listed under the trait's `# Safety` is checked before it is emitted:
///
/// - *No host pointers.* Every field's type must itself be `DeviceCopy`,
///   proven by a trait bound per field (`&T`, `*const T`, `Box`, `Vec` are not
///   `DeviceCopy`), so by induction the type holds no host address.
/// - *Fixed layout.* The derive rejects every input but `repr(C)` /
///   `repr(transparent)` structs and unions and enums with a primitive
///   representation, whose layouts the Reference defines ("Type layout": the
///   C representation, the transparent representation, primitive
///   representations of enums with fields), so a device program compiled
///   elsewhere sees the same fields at the same offsets.
/// - *Bytes are the value.* `DeviceCopy: Copy` makes rustc require `Copy`, so
///   the type has no `Drop` and no `UnsafeCell`; copying its bytes copies its
///   value.
///
/// Padding and a union's inactive bytes may be uninitialized; the derive does
/// not promise they are initialized, and the trait's copy rule never reads
/// them as values. Turning bytes back into a value is a different promise,
/// made by `bytemuck::AnyBitPattern`, not by `DeviceCopy`.
pub use bitpack_derive::DeviceCopy;
