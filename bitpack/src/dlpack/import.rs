//! Import: validation of a foreign `DLManagedTensorVersioned`, and every
//! read of its data (in-place borrows, copies, one-value-per-byte values),
//! bounded by the bytes the tensor stores.

use alloc::vec::Vec;
use core::marker::PhantomData;
use core::ptr::NonNull;

use super::dtype::{dtype_of, holds};
use super::ffi::{DLDataType, DLManagedTensorVersioned, DLPACK_MAJOR_VERSION, code, device, flags};
use super::{DlpackElement, DlpackTensor, check_packed_layout, compact_strides, field_err};
use crate::{Error, NarrowArray, NarrowMut, NarrowRef, Result, Unsigned};

/// The smallest limit of a copy made by
/// [`to_narrow_array`](DlpackTensor::to_narrow_array), in bytes (64 MiB):
/// its limit is the larger of this and the bytes the tensor stores, so a
/// tensor that repeats no byte is never refused, and a small broadcast
/// still copies.
pub const COPY_LIMIT_FLOOR: usize = 64 << 20;

/// The deleter of a foreign tensor, called at most once.
pub(super) fn release(raw: NonNull<DLManagedTensorVersioned>) {
    // SAFETY: `raw` points to a live managed tensor (the caller of
    // `from_raw` promised it), and `deleter` is read before any other use.
    let deleter = unsafe { (*raw.as_ptr()).deleter };
    if let Some(d) = deleter {
        // SAFETY: the producer's deleter, called once with its own tensor,
        // as `dlpack.h` asks of the consumer.
        unsafe { d(raw.as_ptr()) };
    }
}

/// One moving axis of a walk: its extent (at least 2), its stride in
/// elements, and its step in the row-major flat index.
#[derive(Clone, Copy)]
struct Axis {
    ext: usize,
    stride: i128,
    step: usize,
}

/// The element indices of a validated layout with their row-major flat
/// indices, in row-major order. Axes of extent 1 never move (their stride,
/// up to `i64::MAX`, is never added), and a check walk skips the axes of
/// stride 0 too, visiting a broadcast value once. Indices are `i128`: the
/// validated layout keeps every partial sum far inside it.
struct Walk {
    axes: Vec<Axis>,
    coords: Vec<usize>,
    idx: i128,
    flat: usize,
    left: u128,
}

impl Walk {
    /// The walk of `shape`/`strides`; without the axes of stride 0 when
    /// `skip_broadcast`.
    fn new(shape: &[usize], strides: &[isize], skip_broadcast: bool) -> Walk {
        let mut axes = Vec::new();
        let mut step = 1usize;
        let mut left = 1u128;
        for (&ext, &stride) in shape.iter().zip(strides).rev() {
            if ext == 0 {
                left = 0;
            }
            if ext > 1 && !(skip_broadcast && stride == 0) {
                axes.push(Axis {
                    ext,
                    stride: stride as i128,
                    step,
                });
                left *= ext as u128;
            }
            step = step.saturating_mul(ext);
        }
        axes.reverse();
        Walk {
            coords: alloc::vec![0; axes.len()],
            axes,
            idx: 0,
            flat: 0,
            left,
        }
    }
}

impl Iterator for Walk {
    type Item = (i128, usize);

    fn next(&mut self) -> Option<(i128, usize)> {
        if self.left == 0 {
            return None;
        }
        let item = (self.idx, self.flat);
        self.left -= 1;
        if self.left > 0 {
            for (axis, c) in self.axes.iter().zip(&mut self.coords).rev() {
                *c += 1;
                if *c < axis.ext {
                    self.idx += axis.stride;
                    self.flat += axis.step;
                    break;
                }
                self.idx -= axis.stride * (axis.ext - 1) as i128;
                self.flat -= axis.step * (axis.ext - 1);
                *c = 0;
            }
        }
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.left).unwrap_or(usize::MAX);
        (n, usize::try_from(self.left).ok())
    }
}

impl DlpackTensor<'static> {
    /// Takes over a DLPack tensor after validating every field; the tensor
    /// is released (its deleter called) when the returned value drops, and
    /// also when validation fails.
    ///
    /// Checked before anything else is read: a null pointer, the version
    /// (another major version: the deleter is called and nothing else is
    /// read). Then, before any data is read: unknown flag bits, the device
    /// (host memory: CPU, CUDA host, ROCm host, CUDA managed), `ndim`
    /// (0..=64), the dtype (`bits` 1..=128; `lanes` 1, or more for a
    /// sub-byte type whose `bits * lanes` fills bytes, read as that many
    /// values per element along a contiguous last dimension; the padded
    /// flag only with one lane of fewer than 8 bits), a null `shape`, each
    /// extent (not negative), null strides (allowed, as compact, only before
    /// DLPack 1.2), a null `data` with a non-zero size, and the byte range
    /// the strides reach (negative strides may reach below `data`, as
    /// NumPy's do, but the range must lie inside the address space).
    ///
    /// # Errors
    ///
    /// [`Error::DlpackVersion`], [`Error::DlpackDevice`],
    /// [`Error::DlpackField`] (naming the field, the axis and the value),
    /// [`Error::DlpackLayout`] (a vector dtype whose last dimension is not
    /// contiguous), [`Error::TooManyDims`].
    ///
    /// # Safety
    ///
    /// `raw` is null, or points to a `DLManagedTensorVersioned` that the
    /// caller owns and hands over (it is not used again except through the
    /// result), laid out as `dlpack.h` says: when its major version is 1,
    /// `shape` and `strides` are null or point to `ndim` readable `i64`s, and
    /// the bytes the shape and strides describe from `data + byte_offset`
    /// are readable (and, unless `READ_ONLY`, writable) until the deleter is
    /// called.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    /// use bitpack::dlpack::DlpackTensor;
    ///
    /// let raw = DlpackTensor::from_narrow_array(NarrowArray::from_slice(&[7i32, 8])).into_raw();
    /// // SAFETY: an export of this crate, passed on once.
    /// let mut t = unsafe { DlpackTensor::from_raw(raw) }?;
    /// t.as_narrow_mut::<i32>()?.set(0, 9)?;
    /// assert_eq!(t.to_narrow_array::<i32>()?.to_vec(), [9, 8]);
    /// assert!(t.as_narrow_ref::<u32>().is_err()); // the dtype says i32
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub unsafe fn from_raw(raw: *mut DLManagedTensorVersioned) -> Result<Self> {
        let Some(raw) = NonNull::new(raw) else {
            return Err(field_err("tensor pointer", None, 0, "must not be NULL"));
        };
        // SAFETY: the caller hands over a valid managed tensor; the version
        // and deleter are the fields that stay stable across ABI versions.
        let version = unsafe { (*raw.as_ptr()).version };
        if version.major != DLPACK_MAJOR_VERSION {
            release(raw);
            return Err(Error::DlpackVersion {
                major: version.major,
                minor: version.minor,
            });
        }
        // SAFETY: major version 1, so the struct has the layout of
        // `DLManagedTensorVersioned` (the caller's promise).
        let m = unsafe { raw.as_ref() };
        match validate(m) {
            Ok(v) => Ok(DlpackTensor {
                raw,
                shape: v.shape,
                strides: v.strides,
                offset: v.offset,
                reach: v.reach,
                _lent: PhantomData,
            }),
            Err(e) => {
                release(raw);
                Err(e)
            }
        }
    }
}

impl<'a> DlpackTensor<'a> {
    /// `DlpackDtype` unless the tensor holds `T` values: `T` accepts the
    /// data type of one value and its width is `T::BITS`.
    fn check_dtype<T: DlpackElement>(&self) -> Result<()> {
        if holds::<T>(self.value_dtype()) {
            Ok(())
        } else {
            Err(Error::DlpackDtype {
                found: self.dtype().triple(),
                expected: dtype_of::<T>().triple(),
            })
        }
    }

    /// The checks of an in-place packed borrow; the stream's byte length.
    fn check_in_place<T: DlpackElement>(&self) -> Result<usize> {
        self.check_dtype::<T>()?;
        if self.padded() {
            return Err(field_err(
                "flags",
                None,
                self.flags() as i128,
                "the data is one value per byte (IS_SUBBYTE_TYPE_PADDED): use \
                 to_narrow_array or padded_values",
            ));
        }
        if let Some((axis, s)) = self.first_non_compact_axis() {
            return Err(Error::DlpackLayout {
                axis: Some(axis),
                value: s as i128,
                bits: T::BITS,
                rule: "a borrowed array needs compact row-major strides (to_narrow_array copies \
                       strided tensors)",
            });
        }
        // `T::BITS` is the validated `dtype.bits`, so these are the bytes
        // `from_raw` checked.
        Ok((self.len() * T::BITS as usize).div_ceil(8))
    }

    /// Borrows a compact packed tensor in place, read-only, after checking
    /// the dtype against `T` and the padding bits of the last byte.
    ///
    /// # Errors
    ///
    /// [`Error::DlpackDtype`] for another dtype (or another width, whatever
    /// the type's [`accepts`](DlpackElement::accepts) says),
    /// [`Error::DlpackField`] for padded data, [`Error::DlpackLayout`] for
    /// strides that are not compact row-major, [`Error::NonZeroPadding`] when
    /// bits past the last value are set (DLPack allows that:
    /// [`to_narrow_array`](Self::to_narrow_array) copies such a tensor and
    /// clears them).
    ///
    /// # Examples
    ///
    /// See the [module docs](crate::dlpack).
    pub fn as_narrow_ref<T: DlpackElement>(&self) -> Result<NarrowRef<'_, T>> {
        let n = self.check_in_place::<T>()?;
        let bytes: &[u8] = if n == 0 {
            &[]
        } else {
            // SAFETY: `from_raw` checked (or this crate made) that the `n`
            // bytes from the first element are inside the tensor's data,
            // readable while `self` lives, and not past the address space;
            // `n` comes from the validated width, which `T::BITS` equals.
            unsafe { core::slice::from_raw_parts(self.base(), n) }
        };
        let mut r = NarrowRef::from_bytes(bytes, self.len())?;
        r.reshape(&self.shape)?;
        Ok(r)
    }

    /// Borrows a compact packed tensor in place, mutably (see
    /// [`as_narrow_ref`](Self::as_narrow_ref)).
    ///
    /// # Errors
    ///
    /// As [`as_narrow_ref`](Self::as_narrow_ref), and [`Error::DlpackField`]
    /// when the producer set `READ_ONLY`.
    ///
    /// # Examples
    ///
    /// See [`from_raw`](Self::from_raw).
    pub fn as_narrow_mut<T: DlpackElement>(&mut self) -> Result<NarrowMut<'_, T>> {
        if self.read_only() {
            return Err(field_err(
                "flags",
                None,
                self.flags() as i128,
                "the producer set READ_ONLY",
            ));
        }
        let n = self.check_in_place::<T>()?;
        let bytes: &mut [u8] = if n == 0 {
            &mut []
        } else {
            // SAFETY: as in `as_narrow_ref`; the producer allows writes (no
            // READ_ONLY), and `&mut self` makes this the only borrow.
            unsafe { core::slice::from_raw_parts_mut(self.base(), n) }
        };
        let mut m = NarrowMut::from_bytes(bytes, self.len())?;
        m.reshape(&self.shape)?;
        Ok(m)
    }

    /// The byte of the one-value-per-byte element at index `idx`.
    fn byte_at(&self, idx: i128) -> u8 {
        // SAFETY: `idx` is an element index the validated shape and strides
        // reach (one byte per element), which the producer promises readable
        // (`from_raw`'s contract) and `from_raw` checked to be inside the
        // address space, so it fits `isize`.
        unsafe { self.base().wrapping_offset(idx as isize).read() }
    }

    /// The `bits`-wide (1..=128, the validated width) value at element
    /// index `idx` of a packed stream.
    fn packed_at(&self, idx: i128, bits: u32) -> u128 {
        let bit = idx * bits as i128;
        let (byte, shift) = (bit.div_euclid(8) as isize, bit.rem_euclid(8) as u32);
        let nbytes = (shift + bits).div_ceil(8) as usize;
        let mut buf = [0u8; 17];
        for (k, b) in buf[..nbytes].iter_mut().enumerate() {
            // SAFETY: the bytes of the element at `idx`, inside the data
            // (checked by `from_raw` over every reachable element).
            *b = unsafe { self.base().wrapping_offset(byte + k as isize).read() };
        }
        crate::narrow::bytes::read_bits(&buf, shift as usize, bits)
    }

    /// Whether the data is one value per byte for a `T` target (the padded
    /// flag, or `kDLBool` with 8 bits for `bool`), and the value width to
    /// check in each byte; `DlpackDtype` when the tensor does not hold `T`.
    fn one_per_byte<T: DlpackElement>(&self) -> Result<Option<u32>> {
        if T::BITS == 1 && self.dtype() == DLDataType::scalar(code::BOOL, 8) {
            return Ok(Some(1));
        }
        self.check_dtype::<T>()?;
        Ok(self.padded().then_some(T::BITS))
    }

    /// The default limit of a copy, in bytes: the larger of
    /// [`stored_bytes`](Self::stored_bytes) and [`COPY_LIMIT_FLOOR`].
    ///
    /// # Examples
    ///
    /// ```
    /// let t = bitpack::dlpack::DlpackTensor::from_narrow_array(bitpack::NarrowArray::from_slice(&[1u8]));
    /// assert_eq!(t.copy_limit(), bitpack::dlpack::COPY_LIMIT_FLOOR);
    /// ```
    pub fn copy_limit(&self) -> usize {
        self.reach.max(COPY_LIMIT_FLOOR)
    }

    /// `SizeLimit` when `bytes` exceed `limit`.
    fn within(&self, what: &'static str, bytes: u128, limit: usize) -> Result<()> {
        if bytes > limit as u128 {
            Err(Error::SizeLimit {
                what,
                bytes,
                limit,
                stored: self.reach,
            })
        } else {
            Ok(())
        }
    }

    /// Checks every stored byte of one-value-per-byte data once (a
    /// broadcast axis once, not per repeat) for bits above `bits`.
    fn check_one_per_byte(&self, bits: u32) -> Result<()> {
        let walk = Walk::new(&self.shape, &self.strides, true);
        // One byte per visit; more visits than stored bytes only for a
        // self-overlapping layout.
        self.within(
            "the check of a DLPack tensor's one-per-byte values",
            walk.left,
            self.copy_limit(),
        )?;
        for (idx, flat) in walk {
            self.checked_byte(idx, flat, bits)?;
        }
        Ok(())
    }

    /// The byte of the one-value-per-byte element at `idx` (flat index
    /// `flat`), or `PaddedValue` when bits above `bits` are set.
    fn checked_byte(&self, idx: i128, flat: usize, bits: u32) -> Result<u8> {
        let b = self.byte_at(idx);
        if bits < 8 && b >> bits != 0 {
            return Err(Error::PaddedValue {
                index: flat,
                byte: b,
                bits,
            });
        }
        Ok(b)
    }

    /// Copies the tensor into a `NarrowArray` with its shape: packed data in
    /// any layout DLPack can express for `T` (strided, negative or zero
    /// strides), and one-value-per-byte data (padded, or unpacked `bool`),
    /// whose bits above the width must be zero. Set bits after the last
    /// value of packed data are cleared in the copy. The copy may be at most
    /// [`copy_limit`](Self::copy_limit) bytes.
    ///
    /// # Errors
    ///
    /// [`Error::DlpackDtype`] for another dtype, [`Error::DlpackLayout`] for
    /// a packed sub-byte layout without whole-byte rows or a contiguous last
    /// dimension, [`Error::PaddedValue`] naming the first value with high
    /// bits set, [`Error::SizeLimit`] for a copy over the limit (a broadcast
    /// or overlapping layout; see
    /// [`to_narrow_array_within`](Self::to_narrow_array_within)), and
    /// [`Error::Alloc`] when the allocator refuses it.
    ///
    /// # Examples
    ///
    /// See [`from_bools_unpacked`](Self::from_bools_unpacked) and
    /// [`from_view`](Self::from_view).
    pub fn to_narrow_array<T: DlpackElement>(&self) -> Result<NarrowArray<T>> {
        self.to_narrow_array_within(self.copy_limit())
    }

    /// [`to_narrow_array`](Self::to_narrow_array) with a copy of at most
    /// `limit` bytes (`usize::MAX`: no limit but the allocator's).
    ///
    /// # Errors
    ///
    /// As [`to_narrow_array`](Self::to_narrow_array); [`Error::SizeLimit`]
    /// against `limit`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::NarrowArray;
    /// use bitpack::dlpack::DlpackTensor;
    ///
    /// let t = DlpackTensor::from_narrow_array(NarrowArray::from_slice(&[1u16, 2, 3]));
    /// assert_eq!(t.to_narrow_array_within::<u16>(6)?.to_vec(), [1, 2, 3]);
    /// assert!(matches!(t.to_narrow_array_within::<u16>(5), Err(bitpack::Error::SizeLimit { .. })));
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn to_narrow_array_within<T: DlpackElement>(&self, limit: usize) -> Result<NarrowArray<T>> {
        let one = self.one_per_byte::<T>()?;
        let compact = self.is_compact();
        if one.is_none() && !compact {
            check_packed_layout(T::BITS, &self.shape, &self.strides, 0)?;
        }
        let len = self.len();
        let bytes = (len as u128 * T::BITS as u128).div_ceil(8);
        self.within("the copy of a DLPack tensor", bytes, limit)?;
        let mut out = if len == 0 {
            NarrowArray::new()
        } else if let Some(bits) = one {
            let mut out = NarrowArray::<T>::try_with_capacity(len)?;
            for (idx, flat) in Walk::new(&self.shape, &self.strides, false) {
                out.push(value_of(self.checked_byte(idx, flat, bits)?.into()));
            }
            out
        } else if compact {
            let n = self.check_in_place::<T>()?;
            // SAFETY: as in `as_narrow_ref`: the `n` bytes of the compact
            // stream, checked by `from_raw`.
            let stream = unsafe { core::slice::from_raw_parts(self.base(), n) };
            NarrowArray::try_from_stream_masked(stream, len)?
        } else {
            let mut out = NarrowArray::<T>::try_with_capacity(len)?;
            for (idx, _) in Walk::new(&self.shape, &self.strides, false) {
                out.push(value_of(self.packed_at(idx, T::BITS)));
            }
            out
        };
        out.reshape(&self.shape)?;
        Ok(out)
    }

    /// The values of one-value-per-byte data (padded, or unpacked `bool`),
    /// read in place in row-major order after every stored byte's high bits
    /// are checked (once per stored byte: a broadcast value is checked
    /// once, and the iterator then repeats it lazily).
    ///
    /// # Errors
    ///
    /// [`Error::DlpackDtype`], [`Error::PaddedValue`], [`Error::DlpackField`]
    /// when the data is packed, and [`Error::SizeLimit`] when a
    /// self-overlapping layout would make the check visit more than
    /// [`copy_limit`](Self::copy_limit) bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use bitpack::dlpack::DlpackTensor;
    /// use bitpack::{E2M3, NarrowArray};
    ///
    /// let a = NarrowArray::from_slice(&[E2M3::from_f32(7.5), E2M3::from_f32(-1.0)]);
    /// let t = DlpackTensor::from_narrow_array_padded(&a);
    /// let v: Vec<f32> = t.padded_values::<E2M3>()?.map(E2M3::to_f32).collect();
    /// assert_eq!(v, [7.5, -1.0]);
    /// # Ok::<(), bitpack::Error>(())
    /// ```
    pub fn padded_values<T: DlpackElement>(&self) -> Result<impl Iterator<Item = T> + '_> {
        let Some(bits) = self.one_per_byte::<T>()? else {
            return Err(field_err(
                "flags",
                None,
                self.flags() as i128,
                "the data is packed, not one value per byte: use as_narrow_ref",
            ));
        };
        self.check_one_per_byte(bits)?;
        Ok(Walk::new(&self.shape, &self.strides, false)
            .map(|(idx, _)| value_of(self.byte_at(idx).into())))
    }
}

/// The `T` whose bits are the low `T::BITS` bits of `raw`.
#[inline]
fn value_of<T: DlpackElement>(raw: u128) -> T {
    T::from_raw_bits(T::Raw::from_u128_truncate(raw))
}

/// A validated tensor's layout in values.
struct Validated {
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: usize,
    reach: usize,
}

/// Validates a major-version-1 managed tensor. Reads the struct, `shape`
/// and `strides`, never `data`.
fn validate(m: &DLManagedTensorVersioned) -> Result<Validated> {
    let t = &m.dl_tensor;
    if m.flags & !flags::KNOWN != 0 {
        return Err(field_err(
            "flags",
            None,
            m.flags as i128,
            "has bits this importer does not know (known: READ_ONLY, IS_COPIED, \
             IS_SUBBYTE_TYPE_PADDED)",
        ));
    }
    let host = [
        device::CPU,
        device::CUDA_HOST,
        device::ROCM_HOST,
        device::CUDA_MANAGED,
    ];
    if !host.contains(&t.device.device_type) {
        return Err(Error::DlpackDevice {
            device_type: t.device.device_type,
            device_id: t.device.device_id,
        });
    }
    if t.ndim < 0 {
        return Err(field_err("ndim", None, t.ndim.into(), "must be >= 0"));
    }
    let nd = t.ndim as usize;
    if nd > crate::MAX_DIMS {
        return Err(Error::TooManyDims { ndim: nd });
    }
    let (bits, lanes) = (u32::from(t.dtype.bits), u32::from(t.dtype.lanes));
    if bits == 0 {
        return Err(field_err("dtype.bits", None, 0, "must be at least 1"));
    }
    if bits > 128 {
        return Err(field_err(
            "dtype.bits",
            None,
            bits.into(),
            "must be at most 128, the widest element",
        ));
    }
    let padded = m.flags & flags::IS_SUBBYTE_TYPE_PADDED != 0;
    if lanes != 1 && (bits >= 8 || lanes == 0 || !(bits * lanes).is_multiple_of(8) || padded) {
        return Err(field_err(
            "dtype.lanes",
            None,
            lanes.into(),
            "must be 1, or a count of sub-byte lanes that fills whole bytes (torch's \
             float4_e2m1fn_x2: bits 4, lanes 2), without IS_SUBBYTE_TYPE_PADDED",
        ));
    }
    if lanes != 1 && nd == 0 {
        return Err(field_err(
            "ndim",
            None,
            0,
            "a tensor of several lanes per element needs a dimension to hold them",
        ));
    }
    if padded && bits >= 8 {
        return Err(field_err(
            "dtype.bits",
            None,
            bits.into(),
            "IS_SUBBYTE_TYPE_PADDED is set, so it must be below 8",
        ));
    }
    if nd > 0 && t.shape.is_null() {
        return Err(field_err(
            "shape",
            None,
            0,
            "must not be NULL when ndim > 0",
        ));
    }
    let shape_raw: &[i64] = if nd == 0 {
        &[]
    } else {
        // SAFETY: non-null, `ndim` readable `i64`s (the caller's promise).
        unsafe { core::slice::from_raw_parts(t.shape, nd) }
    };
    let mut shape = Vec::with_capacity(nd);
    for (axis, &e) in shape_raw.iter().enumerate() {
        if e < 0 {
            return Err(field_err(
                "shape",
                Some(axis),
                e.into(),
                "extents must be >= 0",
            ));
        }
        let e = usize::try_from(e).map_err(|_| {
            field_err(
                "shape",
                Some(axis),
                e.into(),
                "the extent does not fit in usize",
            )
        })?;
        shape.push(e);
    }
    let count = shape
        .iter()
        .try_fold(1usize, |n, &e| n.checked_mul(e))
        .and_then(|n| n.checked_mul(lanes as usize))
        .ok_or_else(|| {
            field_err(
                "shape",
                None,
                shape_raw
                    .iter()
                    .fold(i128::from(lanes), |n, &e| n.saturating_mul(i128::from(e))),
                "the value count overflows usize",
            )
        })?;
    let mut strides: Vec<isize> = if nd > 0 && t.strides.is_null() {
        if m.version.minor >= 2 {
            return Err(field_err(
                "strides",
                None,
                0,
                "must not be NULL when ndim > 0 (DLPack 1.2 and later)",
            ));
        }
        compact_strides(&shape)
    } else if nd == 0 {
        Vec::new()
    } else {
        // SAFETY: non-null, `ndim` readable `i64`s (the caller's promise).
        let raw = unsafe { core::slice::from_raw_parts(t.strides, nd) };
        let mut out = Vec::with_capacity(nd);
        for (axis, &s) in raw.iter().enumerate() {
            let s = isize::try_from(s).map_err(|_| {
                field_err(
                    "strides",
                    Some(axis),
                    s.into(),
                    "the stride does not fit in isize",
                )
            })?;
            out.push(s);
        }
        out
    };
    let offset = usize::try_from(t.byte_offset).map_err(|_| {
        field_err(
            "byte_offset",
            None,
            t.byte_offset.into(),
            "does not fit in usize",
        )
    })?;
    let reach = if count == 0 {
        0
    } else {
        if t.data.is_null() {
            return Err(field_err(
                "data",
                None,
                0,
                "is NULL but the tensor has elements",
            ));
        }
        reached_bytes(
            t.data as usize,
            offset,
            &shape,
            &strides,
            bits,
            lanes,
            padded,
        )?
    };
    if lanes > 1 {
        to_values(&mut shape, &mut strides, lanes, bits)?;
    }
    Ok(Validated {
        shape,
        strides,
        offset,
        reach,
    })
}

/// The bytes from the lowest to the highest byte the elements of a
/// non-empty layout reach, or `DlpackField` when that range leaves the
/// address space. Negative strides may reach below `data` (NumPy points
/// `data` at the first logical element), but not below address 0 or above
/// `isize::MAX`.
fn reached_bytes(
    data: usize,
    offset: usize,
    shape: &[usize],
    strides: &[isize],
    bits: u32,
    lanes: u32,
    padded: bool,
) -> Result<usize> {
    // The element indices reached, relative to the first element; an axis
    // of extent 1 reaches nothing, whatever its stride.
    let (mut lo, mut hi) = (0i128, 0i128);
    for (&e, &s) in shape.iter().zip(strides) {
        let span = (e as i128 - 1) * s as i128;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    // The bits per element in memory.
    let elem = if padded { 8 } else { i128::from(bits * lanes) };
    let base = data as i128 * 8 + offset as i128 * 8;
    let first_bit = base + lo * elem;
    let end_bit = base + (hi + 1) * elem;
    if first_bit < 0 {
        return Err(field_err(
            "strides",
            None,
            lo,
            "reach below address 0 (the negative strides go past the start of memory)",
        ));
    }
    let end_byte = (end_bit + 7) / 8;
    if end_byte > isize::MAX as i128 {
        return Err(field_err(
            "shape",
            None,
            end_byte,
            "the bytes the shape, strides and byte_offset reach run past the address space",
        ));
    }
    Ok((end_byte - first_bit / 8) as usize)
}

/// Rewrites the shape and strides of a tensor of `lanes`-value elements in
/// values: the last extent times `lanes`, every stride times `lanes`. The
/// last dimension must be contiguous, so that each row's values are one
/// stream.
fn to_values(shape: &mut [usize], strides: &mut [isize], lanes: u32, bits: u32) -> Result<()> {
    let last = shape.len() - 1;
    if shape[last] > 1 && strides[last] != 1 {
        return Err(Error::DlpackLayout {
            axis: Some(last),
            value: strides[last] as i128,
            bits,
            rule: "a tensor of several lanes per element needs its last dimension contiguous \
                   (stride 1), so that each row's values are one stream",
        });
    }
    let l = lanes as usize;
    shape[last] = shape[last].checked_mul(l).ok_or_else(|| {
        field_err(
            "shape",
            Some(last),
            shape[last] as i128,
            "the extent in values (times the lanes) does not fit in usize",
        )
    })?;
    strides[last] = 1;
    for (axis, s) in strides[..last].iter_mut().enumerate() {
        *s = s.checked_mul(l as isize).ok_or_else(|| {
            field_err(
                "strides",
                Some(axis),
                *s as i128,
                "the stride in values (times the lanes) does not fit in isize",
            )
        })?;
    }
    Ok(())
}
