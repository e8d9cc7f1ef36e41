//! The crate's error type.

use core::fmt;

/// What went wrong in a fallible `bitpack` operation.
///
/// Every message names the numbers involved, e.g. `cannot reinterpret 3 8-bit
/// values as 16-bit values`. An operation that returns an `Error` has changed
/// nothing.
///
/// # Examples
///
/// ```
/// use bitpack::{Error, LengthOf};
///
/// let e = Error::Length { of: LengthOf::AxisSumOutput, expected: 4, actual: 3 };
/// assert_eq!(e.to_string(), "the axis-sum output holds 3 values, needs 4");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// A slice, buffer or list had the wrong number of entries; `of` says
    /// which one, and the message names it.
    Length {
        /// What was being sized.
        of: LengthOf,
        /// The number of entries required.
        expected: usize,
        /// The number given.
        actual: usize,
    },
    /// An index was past the end.
    Index {
        /// The index given.
        index: usize,
        /// The length of the container.
        len: usize,
    },
    /// The bit count of the source is not a whole number of target values.
    Reinterpret {
        /// The number of source values (along the packed dimension).
        count: usize,
        /// The source width in bits.
        from_bits: u32,
        /// The target width in bits.
        to_bits: u32,
    },
    /// A byte buffer is too short for the values it should hold.
    TooFewBytes {
        /// What was being built or filled, e.g. `"NarrowArray::from_bytes"`.
        what: &'static str,
        /// The number of values the bytes should hold.
        values: usize,
        /// The width of each, in bits.
        bits: u32,
        /// Bytes needed.
        needed: usize,
        /// Bytes given.
        actual: usize,
    },
    /// Padding bits past the last value were not zero.
    NonZeroPadding {
        /// The byte holding the first set padding bit.
        byte: usize,
    },
    /// A shape does not hold the number of values it should.
    Shape {
        /// The number of values the shape describes (`None` if the product
        /// overflows `usize`).
        elements: Option<usize>,
        /// The number of values present.
        len: usize,
    },
    /// A value does not fit in the element's bits.
    ValueTooWide {
        /// The value, zero-extended.
        value: u128,
        /// The width it had to fit.
        bits: u32,
    },
    /// An invalid argument, described in words.
    Invalid(&'static str),
    /// A float format name that
    /// [`FloatFormat::try_by_name`](crate::formats::FloatFormat::try_by_name)
    /// does not know; the message lists the names it knows.
    UnknownFormat {
        /// For the name of a block format (`"mxfp4"`, `"nvfp4"`), which
        /// array and element format to use instead.
        block: Option<&'static str>,
    },

    // Strided views and layouts.
    /// More dimensions than a layout can hold (64).
    TooManyDims {
        /// The number of dimensions given.
        ndim: usize,
    },
    /// A non-empty view reaches outside its storage.
    ViewBounds {
        /// The lowest index reached (`None` if the extent overflows).
        lowest: Option<i128>,
        /// The highest index reached (`None` if the extent overflows).
        highest: Option<i128>,
        /// The storage length, in elements.
        len: usize,
    },
    /// An axis past the last dimension.
    Axis {
        /// The axis given.
        axis: usize,
        /// The number of dimensions.
        ndim: usize,
    },
    /// A range that is reversed or runs past the extent.
    Range {
        /// Start of the range.
        start: usize,
        /// End of the range.
        end: usize,
        /// The extent it had to fit.
        len: usize,
    },

    // Packed containers.
    /// A byte buffer does not have the exact length required.
    ByteCount {
        /// What was being built, e.g. `"NArray::try_from_bytes"`.
        what: &'static str,
        /// The number of bytes required.
        expected: usize,
        /// The number given.
        actual: usize,
    },

    // Kernels.
    /// A bit width outside the range an operation supports (`1..=max`).
    Width {
        /// The width given.
        width: u32,
        /// The largest width supported there.
        max: u32,
    },
    /// A packed word buffer is too short for the values it should hold.
    TooFewWords {
        /// 64-bit words needed (saturated at `usize::MAX`).
        needed: usize,
        /// Words given.
        actual: usize,
    },

    // Views, reductions and run-time widths.
    /// Two shapes that must be equal differ.
    ShapeMismatch {
        /// The axis whose extents differ, or `None` when the numbers of
        /// dimensions differ (then `expected` and `actual` count dimensions).
        axis: Option<usize>,
        /// The extent (or dimension count) required.
        expected: usize,
        /// The extent (or dimension count) given.
        actual: usize,
    },
    /// An axis listed twice in a set of axes.
    DuplicateAxis {
        /// The axis given twice.
        axis: usize,
    },
    /// A sum does not fit in the `u64` it is written to.
    SumOverflow {
        /// The flat index of that output.
        index: usize,
    },

    // Sizes that do not fit.
    /// A layout operation computes an offset or a stride outside `isize`
    /// (possible for empty views, whose offset and strides are never used).
    LayoutOverflow {
        /// What was computed: `"offset"` or `"stride"`.
        what: &'static str,
        /// The exact value, outside `isize` (saturated at the `i128` bounds).
        value: i128,
    },
    /// A buffer could not be allocated: its size overflows, or the allocator
    /// refused it.
    Alloc {
        /// What the buffer was for.
        what: &'static str,
        /// The number of values asked for (`None` when it overflows `usize`).
        count: Option<usize>,
        /// The size of one value, in bytes.
        value_bytes: usize,
    },
    /// A copy or a check whose size grows with a foreign tensor's logical
    /// size would exceed its limit: a broadcast or self-overlapping layout
    /// makes a few stored bytes look like many values (see
    /// `DlpackTensor::to_narrow_array_within`).
    SizeLimit {
        /// What would have been made or walked.
        what: &'static str,
        /// The bytes it needs.
        bytes: u128,
        /// The limit, in bytes.
        limit: usize,
        /// The bytes the tensor stores.
        stored: usize,
    },
    // Borrowed arrays and interop (DLPack, Arrow).
    /// A mutable word view over borrowed bytes that are not 8-byte aligned
    /// or do not cover whole 64-bit words.
    BorrowedWords {
        /// The buffer's start address modulo 8.
        misalignment: usize,
        /// The buffer's length in bytes.
        len: usize,
        /// The bytes the view needs (the stream rounded up to whole words).
        needed: usize,
    },
    /// A DLPack tensor of a major version this crate does not read.
    DlpackVersion {
        /// The tensor's major version.
        major: u32,
        /// The tensor's minor version.
        minor: u32,
    },
    /// A DLPack tensor whose memory the host cannot read.
    DlpackDevice {
        /// The `DLDeviceType` code.
        device_type: i32,
        /// The device id.
        device_id: i32,
    },
    /// A DLPack data type that is not the target element type's.
    DlpackDtype {
        /// The tensor's `(code, bits, lanes)`.
        found: (u8, u8, u16),
        /// The target type's `(code, bits, lanes)`.
        expected: (u8, u8, u16),
    },
    /// A DLPack field with a value the format does not allow.
    DlpackField {
        /// The field, e.g. `"shape"`, `"strides"`, `"ndim"`.
        field: &'static str,
        /// The axis, for per-axis fields.
        axis: Option<usize>,
        /// The value found.
        value: i128,
        /// What the field must be.
        rule: &'static str,
    },
    /// A strided layout that DLPack (or this importer) cannot express for a
    /// packed type: a packed dimension that is not contiguous, or a first
    /// element that does not start on a byte boundary.
    DlpackLayout {
        /// The axis at fault (`None`: the start of the view).
        axis: Option<usize>,
        /// The stride in elements (or the start bit, for `axis: None`).
        value: i128,
        /// The element width in bits.
        bits: u32,
        /// What the layout must be.
        rule: &'static str,
    },
    /// A value stored one per byte (DLPack's padded sub-byte layout,
    /// ml_dtypes, an unpacked `bool`) with bits set above its width.
    PaddedValue {
        /// The flat index of the value.
        index: usize,
        /// The byte found.
        byte: u8,
        /// The value width in bits.
        bits: u32,
    },
    /// An Arrow array with null slots where every slot must hold a value.
    ArrowNulls {
        /// The number of null slots.
        nulls: usize,
        /// The array's length.
        len: usize,
    },
    /// A GPU operation (feature `cuda`) could not run: the CUDA driver
    /// library is missing (`code: None`), a driver call failed (`code` is
    /// its `CUresult`), or the device is too old for the kernels.
    Device {
        /// The driver call, or what was being done.
        call: &'static str,
        /// The `CUresult` of the failed call.
        code: Option<u32>,
    },
    // Narrow integers.
    /// An integer outside the range of a narrow integer type.
    OutOfRange {
        /// The integer given.
        value: i128,
        /// The width of the target type.
        bits: u32,
        /// Whether the target is two's complement.
        signed: bool,
    },
    // Packed records.
    /// The bits given to
    /// [`Record::try_from_raw_bits`](crate::Record::try_from_raw_bits) have
    /// a reserved field that does not hold its fixed bits, or a gap bit set.
    RecordField {
        /// The record's name.
        record: &'static str,
        /// The field's name, or `"(gap)"` for bits between fields.
        field: &'static str,
        /// The record bit where the field (or gap) starts.
        offset: u32,
        /// Its width.
        bits: u32,
        /// The code found there.
        code: u128,
        /// What it must be: `"all zeros"` or `"all ones"`.
        rule: &'static str,
    },
}

/// The float format names [`FloatFormat::try_by_name`](crate::formats::FloatFormat::try_by_name)
/// knows, as [`Error::UnknownFormat`] lists them. Written out here, below the
/// formats; a test in `formats/names.rs` keeps it equal to the names table.
pub(crate) const KNOWN_FORMATS: &str = "float8_e3m4 (E3M4, kDLFloat8_e3m4), float8_e4m3 (E4M3Ieee, kDLFloat8_e4m3), \
     float8_e4m3b11fnuz (E4M3B11Fnuz, kDLFloat8_e4m3b11fnuz), \
     float8_e4m3fn (E4M3, kDLFloat8_e4m3fn), \
     float8_e4m3fnuz (E4M3Fnuz, kDLFloat8_e4m3fnuz), \
     float8_e5m2 (E5M2, kDLFloat8_e5m2), \
     float8_e5m2fnuz (E5M2Fnuz, kDLFloat8_e5m2fnuz), \
     float8_e8m0fnu (E8M0, kDLFloat8_e8m0fnu), \
     float6_e2m3fn (E2M3, kDLFloat6_e2m3fn), float6_e3m2fn (E3M2, kDLFloat6_e3m2fn), \
     float4_e2m1fn (E2M1, kDLFloat4_e2m1fn), bfloat16 (bf16, kDLBfloat), \
     float16 (f16)";

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Length {
                of,
                expected,
                actual,
            } => of.describe(f, expected, actual),
            Error::Index { index, len } => {
                write!(f, "index {index} is out of bounds for length {len}")
            }
            Error::Reinterpret {
                count,
                from_bits,
                to_bits,
            } => write!(
                f,
                "cannot reinterpret {count} {from_bits}-bit values as {to_bits}-bit values \
                 ({} bits is not a multiple of {to_bits})",
                count as u128 * from_bits as u128
            ),
            Error::TooFewBytes {
                what,
                values,
                bits,
                needed,
                actual,
            } => {
                write!(
                    f,
                    "{what}: {values} values of {bits} bits need {needed} bytes, got {actual}"
                )
            }
            Error::NonZeroPadding { byte } => {
                write!(
                    f,
                    "padding bits past the last value are not zero (byte {byte})"
                )
            }
            Error::Shape {
                elements: Some(n),
                len,
            } => {
                write!(f, "shape holds {n} values but the array has {len}")
            }
            Error::Shape {
                elements: None,
                len,
            } => {
                write!(
                    f,
                    "shape's value count overflows usize (the array has {len})"
                )
            }
            Error::ValueTooWide { value, bits } => {
                write!(f, "value {value} does not fit in {bits} bits")
            }
            Error::Invalid(what) => f.write_str(what),
            Error::UnknownFormat { block: Some(hint) } => f.write_str(hint),
            Error::UnknownFormat { block: None } => write!(
                f,
                "unknown float format name; known (in any case): {KNOWN_FORMATS}"
            ),
            Error::TooManyDims { ndim } => {
                write!(f, "{ndim} dimensions given; a view has at most 64")
            }
            Error::ViewBounds {
                lowest: Some(lo),
                highest: Some(hi),
                len,
            } => {
                if lo < 0 {
                    write!(
                        f,
                        "view reaches element {lo}, before the start of the storage"
                    )
                } else {
                    write!(
                        f,
                        "view reaches element {hi}, past the storage's {len} elements"
                    )
                }
            }
            Error::ViewBounds { len, .. } => {
                write!(
                    f,
                    "view's extent overflows (the storage has {len} elements)"
                )
            }
            Error::Axis { axis, ndim } => {
                write!(f, "axis {axis} is out of range for {ndim} dimensions")
            }
            Error::Range { start, end, len } => {
                write!(f, "range {start}..{end} does not fit in extent {len}")
            }
            Error::ByteCount {
                what,
                expected,
                actual,
            } => {
                write!(f, "{what}: the array is {expected} bytes, got {actual}")
            }
            Error::Width { width, max } => {
                write!(f, "width {width} is not supported here: must be 1..={max}")
            }
            Error::TooFewWords { needed, actual } => {
                write!(f, "need {needed} 64-bit words, got {actual}")
            }
            Error::ShapeMismatch {
                axis: None,
                expected,
                actual,
            } => {
                write!(f, "expected {expected} dimensions, got {actual}")
            }
            Error::ShapeMismatch {
                axis: Some(axis),
                expected,
                actual,
            } => {
                write!(f, "axis {axis} has extent {actual}, expected {expected}")
            }
            Error::DuplicateAxis { axis } => write!(f, "axis {axis} is listed twice"),
            Error::SumOverflow { index } => {
                write!(f, "the sum at output {index} does not fit in a u64")
            }
            Error::LayoutOverflow { what, value } => {
                write!(f, "the view's {what} would be {value}, outside isize")
            }
            Error::Alloc {
                what,
                count: Some(count),
                value_bytes,
            } => write!(
                f,
                "cannot allocate {what}: {count} values of {value_bytes} bytes"
            ),
            Error::Alloc {
                what,
                count: None,
                value_bytes,
            } => write!(
                f,
                "cannot allocate {what}: its value count overflows usize ({value_bytes} bytes \
                 each)"
            ),
            Error::SizeLimit {
                what,
                bytes,
                limit,
                stored,
            } => write!(
                f,
                "{what} needs {bytes} bytes, over its limit of {limit}: the tensor stores \
                 {stored} bytes, which a broadcast or overlapping layout repeats"
            ),
            Error::BorrowedWords {
                misalignment,
                len,
                needed,
            } => write!(
                f,
                "a word view needs {needed} bytes starting on an 8-byte boundary; the buffer \
                 has {len} bytes and starts {misalignment} bytes past one"
            ),
            Error::DlpackVersion { major, minor } => write!(
                f,
                "DLPack version {major}.{minor} is not supported: this importer reads major \
                 version 1"
            ),
            Error::DlpackDevice {
                device_type,
                device_id,
            } => write!(
                f,
                "DLPack device type {device_type} (id {device_id}) is not host memory: \
                 expected CPU (1), CUDAHost (3), ROCMHost (11) or CUDAManaged (13)"
            ),
            Error::DlpackDtype { found, expected } => write!(
                f,
                "DLPack dtype (code {}, {} bits, {} lanes) is not the target type's \
                 (code {}, {} bits, {} lanes)",
                found.0, found.1, found.2, expected.0, expected.1, expected.2
            ),
            Error::DlpackField {
                field,
                axis: Some(axis),
                value,
                rule,
            } => write!(f, "DLPack {field}[{axis}] is {value}: {rule}"),
            Error::DlpackField {
                field,
                axis: None,
                value,
                rule,
            } => write!(f, "DLPack {field} is {value}: {rule}"),
            Error::DlpackLayout {
                axis: Some(axis),
                value,
                bits,
                rule,
            } => write!(
                f,
                "stride {value} on axis {axis} cannot be used for {bits}-bit values: {rule}"
            ),
            Error::DlpackLayout {
                axis: None,
                value,
                bits,
                rule,
            } => write!(
                f,
                "a view of {bits}-bit values starting at bit {value} cannot be expressed: {rule}"
            ),
            Error::PaddedValue { index, byte, bits } => write!(
                f,
                "value {index} is stored as byte {byte:#04x}, which has bits set above its \
                 {bits} value bits"
            ),
            Error::ArrowNulls { nulls, len } => write!(
                f,
                "the Arrow array has {nulls} null slots of {len}; only arrays without nulls \
                 convert"
            ),
            Error::Device { call, code: None } => {
                write!(f, "no usable CUDA device: {call} failed")
            }
            Error::Device {
                call,
                code: Some(code),
            } => write!(f, "CUDA driver error {code} in {call}"),
            Error::RecordField {
                record,
                field,
                offset,
                bits,
                code,
                rule,
            } => {
                let end = offset.saturating_add(bits);
                if field == "(gap)" {
                    write!(
                        f,
                        "record `{record}`: the gap at bits {offset}..{end} holds {code:#b} \
                         ({code}), must be {rule}"
                    )
                } else {
                    write!(
                        f,
                        "record `{record}`: reserved field `{field}` (bits {offset}..{end}) holds \
                         {code:#b} ({code}), must be {rule}"
                    )
                }
            }
            Error::OutOfRange {
                value,
                bits,
                signed,
            } => {
                let (kind, min, max) = if signed {
                    let half = 1i128 << (bits.clamp(1, 127) - 1);
                    ("signed", -half, half - 1)
                } else {
                    ("unsigned", 0, ((1u128 << bits.min(127)) - 1) as i128)
                };
                write!(
                    f,
                    "value {value} does not fit a {bits}-bit {kind} integer ({min}..={max})"
                )
            }
        }
    }
}

impl core::error::Error for Error {}

/// What an [`Error::Length`] was sizing: each names one situation, so the
/// message can say which buffer or list is wrong and what it must hold.
///
/// # Examples
///
/// ```
/// use bitpack::{Error, LengthOf};
///
/// let e = Error::Length { of: LengthOf::Strides, expected: 3, actual: 2 };
/// assert_eq!(e.to_string(), "strides has 2 entries for a 3-d shape");
/// let e = Error::Length {
///     of: LengthOf::BlockScales { scheme: "MX", block: 32 },
///     expected: 4,
///     actual: 3,
/// };
/// assert_eq!(e.to_string(), "MX needs one scale per 32-value block: 4 blocks, 3 scales");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LengthOf {
    /// The values given to build an `NArray` of `expected` lanes.
    Lanes,
    /// The lanes of an `NArray` reinterpret target: the same bits make
    /// `expected` lanes of the target type.
    ReinterpretLanes,
    /// The values given to overwrite every value of a packed array
    /// (`pack_from`), which holds `expected`.
    PackSource,
    /// The output buffer of an unpack, which must hold `expected` values.
    UnpackOutput,
    /// The input of an encode, which must have one value per output
    /// (`expected` outputs).
    EncodeInput,
    /// The output buffer of a decode, which must hold `expected` values.
    DecodeOutput,
    /// The output buffer of a dequantize, which must hold `expected` values.
    DequantizeOutput,
    /// The input of a quantize into an existing block-scaled array
    /// (`requantize`), which holds `expected` values.
    QuantizeInput,
    /// A decode table, which needs one entry per code (`expected`).
    DecodeTable,
    /// The block scales of a block-scaled array: one per `block`-value block
    /// of the `scheme` (`"MX"`, `"NVFP4"`), `expected` blocks.
    BlockScales {
        /// The block-scaling scheme.
        scheme: &'static str,
        /// Values per block.
        block: usize,
    },
    /// The strides of a layout, one per dimension of an `expected`-d shape.
    Strides,
    /// The axis order of a permutation, one entry per dimension of an
    /// `expected`-d view.
    AxisOrder,
    /// The coordinates of one element, one per dimension of an `expected`-d
    /// view.
    Coordinates,
    /// The values written over every element of a view that has `expected`.
    AssignSource,
    /// The caller's output buffer of an axis sum, one `u64` per kept
    /// position (`expected`).
    AxisSumOutput,
    /// A column written into one field of every record of an array of
    /// `expected` records (`NarrowArray::set_field`).
    Column,
    /// Block scales in the 128 x 4 tiled layout (`unswizzle_scales`): the
    /// rows and columns padded to whole tiles of 512 bytes, `expected`
    /// bytes.
    SwizzledScales,
}

impl LengthOf {
    /// `Ok` when `actual == expected`, else the [`Error::Length`] of this
    /// length.
    #[inline]
    pub(crate) fn check(self, expected: usize, actual: usize) -> Result<()> {
        if actual == expected {
            Ok(())
        } else {
            Err(Error::Length {
                of: self,
                expected,
                actual,
            })
        }
    }

    fn describe(self, f: &mut fmt::Formatter<'_>, expected: usize, actual: usize) -> fmt::Result {
        use LengthOf::*;
        let (e, a) = (expected, actual);
        // One line per message.
        macro_rules! w {
            ($($t:tt)*) => {
                write!(f, $($t)*)
            };
        }
        let holds = |f: &mut fmt::Formatter<'_>, what: &str| {
            write!(f, "the {what} output holds {a} values, needs {e}")
        };
        match self {
            Lanes => w!("an NArray of {e} lanes takes {e} values, got {a}"),
            ReinterpretLanes => w!("the same bits make {e} lanes of the target type, not {a}"),
            PackSource => w!("pack_from got {a} values for an array of {e}"),
            UnpackOutput => holds(f, "unpack"),
            EncodeInput => w!("the encode input has {a} values for {e} outputs"),
            DecodeOutput => holds(f, "decode"),
            DequantizeOutput => holds(f, "dequantize"),
            QuantizeInput => w!("requantize got {a} values for an array of {e}"),
            DecodeTable => w!("the decode table holds {a} entries, needs {e} (one per code)"),
            Strides => w!("strides has {a} entries for a {e}-d shape"),
            AxisOrder => w!("the axis order has {a} entries for a {e}-d view"),
            Coordinates => w!("{a} coordinates given for a {e}-d view"),
            AssignSource => w!("the source holds {a} values, the view {e}"),
            AxisSumOutput => holds(f, "axis-sum"),
            Column => w!("the column holds {a} values for {e} records"),
            SwizzledScales => {
                w!("the tiled scales hold {a} bytes, need {e} (128 x 4 tiles of 512 bytes)")
            }
            BlockScales { scheme, block } => {
                w!("{scheme} needs one scale per {block}-value block: {e} blocks, {a} scales")
            }
        }
    }
}

/// `Result<T, bitpack::Error>`.
pub type Result<T, E = Error> = core::result::Result<T, E>;
