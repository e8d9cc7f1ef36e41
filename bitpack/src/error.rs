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
/// let e = bitpack::Error::Length { expected: 8, actual: 3 };
/// assert_eq!(e.to_string(), "expected 8 values, got 3");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// A slice or iterator had the wrong number of values.
    Length {
        /// The number of values required.
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
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Length { expected, actual } => {
                write!(f, "expected {expected} values, got {actual}")
            }
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
            Error::TooFewBytes { needed, actual } => {
                write!(f, "need {needed} bytes, got {actual}")
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
            Error::ByteCount { expected, actual } => {
                write!(f, "expected {expected} bytes, got {actual}")
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

/// `Result<T, bitpack::Error>`.
pub type Result<T, E = Error> = core::result::Result<T, E>;
