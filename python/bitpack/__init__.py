"""bitpack: bit-exact small floats, block scaling and narrow integers for numpy.

Every conversion rounds exactly once, as the OCP MX and NVIDIA specifications
say, in Rust kernels that run with the GIL released:

- ``encode`` / ``decode``: FP4 (``float4_e2m1fn``), FP6 (``float6_e2m3fn``,
  ``float6_e3m2fn``), every FP8 of ``ml_dtypes``, E8M0, ``bfloat16`` and
  ``float16``, one code per byte (the ``ml_dtypes`` dtype) or packed
  (``packed=True``: each row a dense LSB-first stream; two FP4 values per
  byte, low nibble first, are torch's ``float4_e2m1fn_x2``);
- ``mx_quantize`` / ``MxArray`` and ``nvfp4_quantize`` / ``Nvfp4Array``:
  block-scaled arrays with their codes, scales, swizzled scales and
  dequantization;
- ``pack`` / ``unpack``: integers of 1 to 64 bits, signed or not;
- ``from_dlpack`` and the ``__dlpack__`` of every array returned: zero-copy
  exchange with torch, numpy and any DLPack producer, with DLPack's FP4, FP6
  and FP8 type codes.

Inputs may be any array-like: numpy arrays of float16, bfloat16
(``ml_dtypes``), float32 or float64 of any shape and strides, or objects that
export DLPack or the buffer protocol (torch CPU tensors, JAX CPU arrays);
they are read in place when they are C-contiguous and of one of those types.
Errors are ``ValueError`` (with bitpack's message) or ``TypeError``.
"""

from __future__ import annotations

import numpy as np
import ml_dtypes

from . import _bitpack

__version__ = _bitpack.__version__

#: The ``ml_dtypes`` names of the formats bitpack converts, smallest first.
FORMATS = tuple(_bitpack.format_names())

#: The MX element formats (``mx_quantize``).
MX_FORMATS = ("float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e4m3fn", "float8_e5m2")

__all__ = [
    "Array",
    "FORMATS",
    "MX_FORMATS",
    "MxArray",
    "Nvfp4Array",
    "decode",
    "encode",
    "format_bits",
    "format_dtype",
    "from_dlpack",
    "get_num_threads",
    "mx_quantize",
    "nvfp4_quantize",
    "pack",
    "set_num_threads",
    "unpack",
]

#: Sets the threads a large call may use (0, the default: every core; 1:
#: one thread). Calls of fewer than about a million values a thread, and
#: stochastic rounding, run on one thread; results are the same bytes
#: whatever the number.
set_num_threads = _bitpack.set_num_threads

#: The threads a large call may use.
get_num_threads = _bitpack.get_num_threads

_FLOAT_INPUTS = (np.dtype(np.float32), np.dtype(np.float64))
_HALF_INPUTS = {np.dtype(np.float16): "float16", np.dtype(ml_dtypes.bfloat16): "bfloat16"}


# (name, bits, dtype) of each format spelling seen, so that a call on a few
# values does not look its format up three times.
_FORMATS: dict = {}


def _format(fmt):
    """(ml_dtypes name, code bits, numpy dtype of one code per item) of a
    format given by name (any of bitpack's names, any case), numpy dtype or
    ml_dtypes type."""
    try:
        return _FORMATS[fmt]
    except (KeyError, TypeError):
        pass
    if isinstance(fmt, str):
        spelled = fmt
    else:
        try:
            spelled = np.dtype(fmt).name
        except TypeError:
            raise TypeError(f"a format is a name or a dtype, not {fmt!r}") from None
    name, bits = _bitpack.format_info(spelled)[:2]
    dtype = np.dtype(np.float16) if name == "float16" else np.dtype(getattr(ml_dtypes, name))
    info = (name, bits, dtype)
    try:
        _FORMATS[fmt] = info
    except TypeError:  # an unhashable spelling is looked up each time
        pass
    return info


def _format_name(fmt) -> str:
    """The ml_dtypes name of a format given by name (any of bitpack's names,
    any case), numpy dtype or ml_dtypes type."""
    return _format(fmt)[0]


def format_bits(fmt) -> int:
    """The number of bits of a format's code (4 for ``float4_e2m1fn``)."""
    return _format(fmt)[1]


def format_dtype(fmt) -> np.dtype:
    """The numpy dtype holding one code of ``fmt`` per item (an ``ml_dtypes``
    dtype, or ``numpy.float16``)."""
    return _format(fmt)[2]


def _as_array(x) -> np.ndarray:
    """``x`` as a numpy array, without a copy where it already is one or
    exports its memory (DLPack, the buffer protocol, ``__array__``)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "__dlpack__"):
        try:
            return from_dlpack(x)
        except (BufferError, TypeError, ValueError):
            pass
    return np.asarray(x)


def _floats(x):
    """(flat C-contiguous buffer, half kind, shape) of a float input."""
    a = _as_array(x)
    if a.dtype in _HALF_INPUTS:
        kind = _HALF_INPUTS[a.dtype]
        flat = np.ascontiguousarray(a).reshape(-1).view(np.uint16)
        return flat, kind, a.shape
    if a.dtype not in _FLOAT_INPUTS:
        if a.dtype.kind in "biuf":
            a = a.astype(np.float64)
        else:
            raise TypeError(
                f"bitpack encodes float16, bfloat16, float32 or float64 values (or integers, "
                f"as float64); got dtype {a.dtype}"
            )
    return np.ascontiguousarray(a).reshape(-1), "", a.shape


def _seed(stochastic_seed):
    if stochastic_seed is None:
        return None
    if isinstance(stochastic_seed, (bool, np.bool_)) or not isinstance(
        stochastic_seed, (int, np.integer)
    ):
        raise TypeError(f"stochastic_seed must be an int or None, not {stochastic_seed!r}")
    if not 0 <= int(stochastic_seed) < 2**64:
        raise ValueError(f"stochastic_seed must be in 0..2**64, not {stochastic_seed}")
    return int(stochastic_seed)


def _row_bytes(cols: int, bits: int) -> int:
    return (cols * bits + 7) // 8


class Array(np.ndarray):
    """A numpy array of bitpack codes that exports them through DLPack.

    It behaves as the numpy array it is; ``__dlpack__`` lends its memory with
    the DLPack type code of its format: one code per item for the 8- and
    16-bit formats (``torch.from_dlpack`` of a ``float8_e4m3fn`` result is a
    ``torch.float8_e4m3fn`` tensor with the same bytes), one FP4 or FP6 code
    per byte as DLPack's padded sub-byte layout, and packed FP4 as torch's
    ``float4_e2m1fn_x2`` (two lanes, the shape counted in bytes). An array
    of another dtype exports as numpy does.

    ``bitpack_format`` names the format of packed codes (``None`` for codes
    one per item, whose dtype names it); ``bitpack_cols`` is the number of
    values in a row of packed codes.
    """

    bitpack_format = None
    bitpack_cols = None

    def __array_finalize__(self, obj):
        if obj is None:
            return
        fmt = getattr(obj, "bitpack_format", None)
        cols = getattr(obj, "bitpack_cols", None)
        # The packed interpretation holds only while the rows are whole.
        if fmt is not None and self.dtype == np.uint8 and self.ndim >= 1 and obj.ndim >= 1 \
                and self.shape[-1] == obj.shape[-1]:
            self.bitpack_format, self.bitpack_cols = fmt, cols

    def _dlpack_args(self):
        """(code, bits, lanes, stream_shape, padded) of the DLPack export, or
        None where numpy's own export applies."""
        if self.bitpack_format is not None:
            name = self.bitpack_format
            code, bits = _bitpack.dlpack_code(name)
            if bits >= 8:
                return code, bits, 1, None, False
            cols = self.bitpack_cols
            if bits == 4 and self.shape[-1:] == (_row_bytes(cols, 4),):
                return code, 4, 2, None, False
            rows = int(np.prod(self.shape[:-1], dtype=np.int64)) if self.ndim > 1 else 1
            if (cols * bits) % 8 == 0 or rows <= 1:
                return code, bits, 1, list(self.shape[:-1]) + [cols], False
            raise BufferError(
                f"rows of {cols} {name} values end inside a byte ({cols * bits} bits): "
                f"DLPack has no layout for packed rows with padding"
            )
        name = self.dtype.name
        if self.dtype in (np.dtype(np.float16),) or name not in FORMATS:
            return None
        code, bits = _bitpack.dlpack_code(name)
        return code, bits, 1, None, bits < 8

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        args = self._dlpack_args()
        plain = np.asarray(self)
        if args is None:
            kwargs = {"stream": stream}
            for key, value in (("max_version", max_version), ("dl_device", dl_device), ("copy", copy)):
                if value is not None:
                    kwargs[key] = value
            return plain.__dlpack__(**kwargs)
        if max_version is None or max_version[0] < 1:
            raise BufferError(
                "bitpack exports its formats as DLPack 1.x (dltensor_versioned) capsules; "
                f"the consumer asked for max_version={max_version}"
            )
        if dl_device is not None and tuple(dl_device) != (1, 0):
            raise BufferError(f"bitpack arrays live on the CPU (1, 0), not {dl_device}")
        if stream is not None and stream != -1:
            raise BufferError("a CPU array takes no stream")
        code, bits, lanes, stream_shape, padded = args
        source = np.array(plain, copy=True) if copy else plain
        return _bitpack.dlpack_export(source, code, bits, lanes, stream_shape, padded)

    def __dlpack_device__(self):
        return (1, 0)


def _codes(flat, shape, fmt, packed_cols):
    """An `Array` of codes from the flat result of the Rust side."""
    if packed_cols is None:
        return flat.view(format_dtype(fmt)).reshape(shape).view(Array)
    bits = format_bits(fmt)
    out = flat.reshape(tuple(shape[:-1]) + (_row_bytes(packed_cols, bits),)).view(Array)
    out.bitpack_format, out.bitpack_cols = fmt, packed_cols
    return out


def encode(x, fmt, mode="nearest", stochastic_seed=None, packed=False) -> Array:
    """Encodes ``x`` to the format ``fmt``, rounding each value once.

    ``fmt`` is a format name (``"float8_e4m3fn"``, ``"float4_e2m1fn"``, ...,
    any of bitpack's names in any case) or an ``ml_dtypes`` dtype. ``mode``
    is ``"nearest"`` (round to nearest with the format's ties, overflow and
    NaN rules: ``ml_dtypes``' ``astype``) or ``"satfinite"`` (the PTX
    ``cvt.rn.satfinite`` rule: magnitudes above the largest finite value
    become it). ``stochastic_seed`` turns on stochastic rounding: value ``i``
    of the flattened input uses bitpack's counter-based random bits for
    ``(seed, i)``, the same on every machine.

    Returns an ``Array`` of ``x.shape`` with one code per item, as the
    matching ``ml_dtypes`` dtype; with ``packed=True`` (for the 4- and 6-bit
    formats) ``uint8`` with each row of the last axis packed into
    ``ceil(n * bits / 8)`` bytes, LSB first.
    """
    name, bits, _ = _format(fmt)
    flat, half, shape = _floats(x)
    cols = None
    if packed and bits < 8:
        if len(shape) == 0:
            shape = (1,)
        cols = shape[-1]
    elif packed and bits > 8:
        raise ValueError(f"{name} values are whole 16-bit items: packed=True does not apply")
    out = _bitpack.encode(flat, half, name, mode, _seed(stochastic_seed), cols)
    return _codes(out, shape, name, cols)


def decode(codes, fmt=None, dtype=np.float32, count=None) -> np.ndarray:
    """Decodes codes of a format to ``dtype`` (float32, float64, float16 or
    bfloat16), exactly where the result type holds the value.

    ``codes`` is an array of one code per item (an ``ml_dtypes`` array, whose
    dtype names the format, or ``uint8`` codes with ``fmt``), or the packed
    ``Array`` of ``encode(..., packed=True)``. Packed ``uint8`` codes from
    elsewhere need ``fmt`` and, where the rows' last byte is not full,
    ``count``: the number of values in a row (by default every bit of a
    row's bytes holds a value). A code with bits set above the format's width
    is an error that names it.
    """
    a = _as_array(codes)
    out_dtype = np.dtype(dtype)
    kind = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64",
            np.dtype(np.float16): "float16", np.dtype(ml_dtypes.bfloat16): "bfloat16"}.get(out_dtype)
    if kind is None:
        raise TypeError(f"decode gives float32, float64, float16 or bfloat16, not {out_dtype}")
    packed_fmt = getattr(a, "bitpack_format", None)
    if packed_fmt is not None and (fmt is None or _format_name(fmt) == packed_fmt):
        name, cols = packed_fmt, (count if count is not None else a.bitpack_cols)
    elif a.dtype.name in FORMATS and a.dtype.itemsize <= 2 and fmt is None:
        name, cols = a.dtype.name, None
    elif fmt is not None:
        name = _format_name(fmt)
        if a.dtype.name in FORMATS and a.dtype.name != name:
            raise ValueError(f"codes of dtype {a.dtype.name} are not {name} codes")
        cols = None
        if a.dtype == np.uint8 and count is not None:
            cols = count
    else:
        raise TypeError(
            f"decode needs the format: codes of dtype {a.dtype} name none (pass fmt=...)"
        )
    bits = format_bits(name)
    if bits == 16:
        flat = np.ascontiguousarray(a).reshape(-1).view(np.uint16)
        shape = a.shape
        n = flat.size
        out = _bitpack.decode(flat, name, n, None, kind)
    else:
        flat = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
        if cols is None:
            shape, n = a.shape, flat.size
        else:
            if a.ndim == 0:
                raise ValueError("packed codes have at least one axis")
            row_bytes = a.shape[-1]
            if cols * bits > row_bytes * 8 or _row_bytes(cols, bits) != row_bytes:
                raise ValueError(
                    f"rows of {row_bytes} bytes do not hold exactly {cols} values of {bits} bits "
                    f"(they need {_row_bytes(cols, bits)} bytes)"
                )
            shape = tuple(a.shape[:-1]) + (cols,)
            n = int(np.prod(shape, dtype=np.int64))
        out = _bitpack.decode(flat, name, n, cols, kind)
    if kind in ("float16", "bfloat16"):
        out = out.view(out_dtype)
    return out.reshape(shape)


def _normalize_axis(axis, ndim):
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"axis must be an int, not {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of range for {ndim} dimensions")
    return int(axis) % ndim


def _bytes(x) -> np.ndarray:
    """The bytes of an array-like, flat and C-contiguous."""
    return np.ascontiguousarray(_as_array(x)).reshape(-1).view(np.uint8)


class _BlockScaled:
    """What MX and NVFP4 arrays share: the Rust array, its shape, its packed
    codes and scales, the swizzled scales and dequantization."""

    __slots__ = ("_inner",)
    _scale_dtype = None

    def __init__(self, inner):
        self._inner = inner

    @property
    def fmt(self) -> str:
        """The element format's ``ml_dtypes`` name."""
        return self._inner.fmt

    @property
    def shape(self) -> tuple:
        return tuple(self._inner.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def codes(self) -> Array:
        """The values packed: the dense LSB-first stream of the whole array,
        row-major (a copy)."""
        flat = self._inner.codes.view(Array)
        flat.bitpack_format, flat.bitpack_cols = self.fmt, self.size
        return flat

    @property
    def scales(self) -> Array:
        """The block scales, as their ``ml_dtypes`` dtype, in the scale
        shape (a copy)."""
        return self._inner.scales.view(self._scale_dtype).reshape(
            tuple(self._inner.scale_shape)).view(Array)

    def scales_swizzled(self) -> np.ndarray:
        """The scales in the 128x4 swizzled layout cuBLASLt and CUTLASS
        block-scaled GEMMs read (``uint8`` scale codes)."""
        return self._inner.scales_swizzled()

    def dequantize(self, dtype=np.float32) -> np.ndarray:
        """The values times their scales (computed in float32, then cast)."""
        return self._inner.dequantize().reshape(self.shape).astype(dtype, copy=False)


class MxArray(_BlockScaled):
    """An OCP MX array: values of one MX element format in blocks of 32
    along one axis, each block with an E8M0 scale.

    ``codes`` are the values packed (for FP4 two values per byte, low nibble
    first), ``scales`` the E8M0 scales in an array of the scale shape.
    """

    __slots__ = ()
    _scale_dtype = ml_dtypes.float8_e8m0fnu

    @classmethod
    def from_parts(cls, codes, scales, fmt, shape, axis=-1) -> "MxArray":
        """An MX array from its packed codes (the dense stream of ``shape``),
        its E8M0 scales (an array of the scale shape) and the axis of its
        blocks. Checked as the Rust ``MxArray::from_parts_along`` checks."""
        shape = tuple(int(d) for d in shape)
        axis = _normalize_axis(axis, len(shape))
        s = _as_array(scales)
        inner = _bitpack.MxArray.from_parts(
            _bytes(codes), _bytes(s), _format_name(fmt), list(shape), list(s.shape), axis)
        return cls(inner)

    @property
    def axis(self) -> int:
        return self._inner.axis

    def requantize(self, x, scale_rule="floor", stochastic_seed=None) -> None:
        """Quantizes ``x`` (an array of this array's shape) into this array,
        in place, along its axis: the same codes and scales as
        ``mx_quantize(x, self.fmt, self.axis, scale_rule, stochastic_seed)``
        without allocating new storage (for repeated quantizations of one
        shape, such as a weight at every step). On error the array is
        unchanged. The work runs without the GIL; another thread that uses
        the array meanwhile gets a ``RuntimeError`` (already borrowed)."""
        flat, half, shape = _floats(x)
        if tuple(shape) != self.shape:
            raise ValueError(
                f"requantize takes an array of this array's shape {self.shape}, not {tuple(shape)}")
        self._inner.requantize(flat, half, scale_rule, _seed(stochastic_seed))

    def __repr__(self):
        return f"MxArray(fmt={self.fmt!r}, shape={self.shape}, axis={self.axis})"


class Nvfp4Array(_BlockScaled):
    """An NVFP4 array: E2M1 values in blocks of 16 (1 x 16, or 16 x 16
    tiles), each with an E4M3 scale, and one float32 tensor scale."""

    __slots__ = ()
    _scale_dtype = ml_dtypes.float8_e4m3fn

    @classmethod
    def from_parts(cls, codes, scales, tensor_scale, shape) -> "Nvfp4Array":
        """An NVFP4 array from its packed E2M1 codes (the dense stream of
        ``shape``), its E4M3 scales (an array of the scale shape) and its
        tensor scale."""
        s = _as_array(scales)
        inner = _bitpack.Nvfp4Array.from_parts(
            _bytes(codes), _bytes(s), float(tensor_scale), [int(d) for d in shape], list(s.shape))
        return cls(inner)

    @property
    def tensor_scale(self) -> float:
        return self._inner.tensor_scale

    def requantize(self, x, tile=(1, 16), tensor_scale=None, tiny_scale="flush",
                   stochastic_seed=None) -> None:
        """Quantizes ``x`` (an array of this array's shape) into this array,
        in place: the same codes, scales and tensor scale as
        ``nvfp4_quantize(x, tile, tensor_scale, tiny_scale,
        stochastic_seed)`` without allocating new storage. On error (a
        tensor scale that is not finite and positive, or no finite value
        for the default one) the array is unchanged. As for
        ``MxArray.requantize``, another thread that uses the array meanwhile
        gets a ``RuntimeError``."""
        flat, half, shape = _floats(x)
        if tuple(shape) != self.shape:
            raise ValueError(
                f"requantize takes an array of this array's shape {self.shape}, not {tuple(shape)}")
        tile = _nvfp4_tile(tile)
        ts = None if tensor_scale is None else float(tensor_scale)
        self._inner.requantize(
            flat, half, tile == (16, 16), ts, tiny_scale, _seed(stochastic_seed))

    def __repr__(self):
        return f"Nvfp4Array(shape={self.shape}, tensor_scale={self.tensor_scale})"


def mx_quantize(x, fmt, axis=-1, scale_rule="floor", stochastic_seed=None) -> MxArray:
    """Quantizes ``x`` to MX: blocks of 32 values along ``axis`` share an
    E8M0 scale chosen by ``scale_rule`` (``"floor"``: the OCP rule,
    ``"ceil"``, ``"even"`` or ``"rceil"``: NVIDIA's), and each value is
    encoded to ``fmt`` (one of ``MX_FORMATS``), saturating."""
    flat, half, shape = _floats(x)
    if len(shape) == 0:
        raise ValueError("mx_quantize takes an array of at least one dimension")
    ax = _normalize_axis(axis, len(shape))
    inner = _bitpack.mx_quantize(
        flat, half, list(shape), _format_name(fmt), ax, scale_rule, _seed(stochastic_seed))
    return MxArray(inner)


def _nvfp4_tile(tile):
    tile = tuple(tile)
    if tile not in ((1, 16), (16, 16)):
        raise ValueError(f"tile must be (1, 16) or (16, 16), not {tile}")
    return tile


def nvfp4_quantize(x, tile=(1, 16), tensor_scale=None, tiny_scale="flush",
                   stochastic_seed=None) -> Nvfp4Array:
    """Quantizes ``x`` to NVFP4: blocks of 16 values (``tile=(1, 16)``) or
    16 x 16 tiles of the last two axes (``tile=(16, 16)``) share an E4M3
    scale, under one float32 tensor scale (by default ``amax / (448 * 6)``).
    ``tiny_scale`` is the rule for block scales below E4M3's smallest value:
    ``"flush"``, ``"smallest"`` or ``"min_normal"``."""
    flat, half, shape = _floats(x)
    if len(shape) == 0:
        raise ValueError("nvfp4_quantize takes an array of at least one dimension")
    tile = _nvfp4_tile(tile)
    ts = None if tensor_scale is None else float(tensor_scale)
    inner = _bitpack.nvfp4_quantize(
        flat, half, list(shape), tile == (16, 16), ts, tiny_scale, _seed(stochastic_seed))
    return Nvfp4Array(inner)


_INT_KINDS = "iu"


def pack(values, bits, signed=False, overflow="error") -> np.ndarray:
    """Packs integers of ``bits`` (1..=64) bits into a dense LSB-first
    stream of ``ceil(n * bits / 8)`` bytes (at 1 bit, ``numpy.packbits(...,
    bitorder="little")``). The values are unsigned (``0..2**bits``) unless
    ``signed`` (``-2**(bits-1)..2**(bits-1)``, stored in two's complement);
    a value outside that range is an error naming it, unless
    ``overflow="wrap"``, which keeps its low ``bits`` bits (two's
    complement), as ``ml_dtypes``' integer casts do."""
    a = _as_array(values)
    if a.dtype == np.bool_:
        a = a.view(np.uint8)
    if a.dtype.kind not in _INT_KINDS:
        raise TypeError(f"pack takes integers, not dtype {a.dtype}")
    if overflow not in ("error", "wrap"):
        raise ValueError(f'overflow must be "error" or "wrap", not {overflow!r}')
    if not isinstance(bits, (int, np.integer)) or isinstance(bits, bool):
        raise TypeError(f"bits must be an int, not {bits!r}")
    flat = np.ascontiguousarray(a).reshape(-1)
    if flat.dtype.byteorder == ">":
        flat = flat.astype(flat.dtype.newbyteorder("<"))
    return _bitpack.pack(flat, int(bits), bool(signed), overflow == "wrap")


def unpack(packed, bits, n, signed=False) -> np.ndarray:
    """The ``n`` values of ``bits`` bits of a packed stream, in the smallest
    numpy integer type that holds them (``int*`` sign-extended when
    ``signed``)."""
    a = np.ascontiguousarray(_as_array(packed)).reshape(-1)
    if a.dtype != np.uint8:
        a = a.view(np.uint8)
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative int, not {n!r}")
    return _bitpack.unpack(a, int(bits), int(n), bool(signed))


_KINDS = dict(_bitpack.dlpack_kinds())


def _dtype_of_dlpack(code, bits, lanes, padded):
    """(numpy dtype of an item, format name or None, packed) of a DLPack
    data type."""
    plain = {
        (_KINDS["int"], 8): np.int8, (_KINDS["int"], 16): np.int16,
        (_KINDS["int"], 32): np.int32, (_KINDS["int"], 64): np.int64,
        (_KINDS["uint"], 8): np.uint8, (_KINDS["uint"], 16): np.uint16,
        (_KINDS["uint"], 32): np.uint32, (_KINDS["uint"], 64): np.uint64,
        (_KINDS["float"], 16): np.float16, (_KINDS["float"], 32): np.float32,
        (_KINDS["float"], 64): np.float64, (_KINDS["bool"], 8): np.bool_,
        (_KINDS["bfloat"], 16): ml_dtypes.bfloat16,
    }
    if lanes == 1 and (code, bits) in plain:
        return np.dtype(plain[(code, bits)]), None, False
    for name in FORMATS:
        if _bitpack.dlpack_code(name) == (code, bits):
            if lanes == 1 and (bits >= 8 or padded):
                return format_dtype(name), None, False
            if bits < 8:
                return np.dtype(np.uint8), name, True
    raise BufferError(f"no numpy dtype for the DLPack type (code {code}, bits {bits}, lanes {lanes})")


class _Interface:
    """The memory of an imported tensor, for ``numpy.asarray``; it keeps the
    tensor's owner (whose release calls the producer's deleter) alive."""

    def __init__(self, owner, interface):
        self._owner = owner
        self.__array_interface__ = interface


def from_dlpack(x) -> np.ndarray:
    """A numpy array over the memory of any DLPack producer, without a copy.

    Accepts the types numpy imports and those it refuses: FP8 (as the
    ``ml_dtypes`` dtype), ``bfloat16``, one FP4/FP6 code per byte (DLPack's
    padded layout), torch's ``float4_e2m1fn_x2`` and packed sub-byte streams
    (as an ``Array`` of ``uint8`` bytes marked with their format). Every field
    is validated by bitpack's importer (version, device, dtype, shape,
    strides and the bytes they reach). The result is read-only when the
    producer says so.
    """
    try:
        capsule = x.__dlpack__(max_version=(1, 0))
    except TypeError:
        raise BufferError(
            f"{type(x).__name__}.__dlpack__ does not take max_version: bitpack imports "
            "DLPack 1.x (dltensor_versioned) capsules"
        ) from None
    owner, first, shape, strides, (code, bits, lanes), flags, stored = _bitpack.dlpack_import(capsule)
    padded = bool(flags & 4)
    readonly = bool(flags & 1)
    dtype, fmt, packed = _dtype_of_dlpack(code, bits, lanes, padded)
    if not packed:
        item = dtype.itemsize
        typestr = "|u1" if item == 1 else f"<u{item}"
        iface = {"shape": tuple(shape), "typestr": typestr, "data": (first, readonly),
                 "strides": tuple(s * item for s in strides), "version": 3}
        out = np.asarray(_Interface(owner, iface)).view(dtype)
        return out.view(Array) if dtype.name in FORMATS else out
    if lanes > 1:
        # Several values an item (torch's float4_e2m1fn_x2: two FP4 a byte,
        # the last axis contiguous): bitpack counts the shape and strides in
        # values, numpy in bytes.
        per = lanes
        byte_shape = tuple(shape[:-1]) + (shape[-1] // per,)
        byte_strides = tuple(s // per for s in strides[:-1]) + (1,)
        iface = {"shape": byte_shape, "typestr": "|u1", "data": (first, readonly),
                 "strides": byte_strides, "version": 3}
        out = np.asarray(_Interface(owner, iface)).view(Array)
        out.bitpack_format, out.bitpack_cols = fmt, shape[-1]
        return out
    # A dense stream of sub-byte values: its bytes, one row per row when the
    # rows end on byte boundaries.
    cols = shape[-1] if shape else 1
    rows = int(np.prod(shape[:-1], dtype=np.int64)) if len(shape) > 1 else 1
    iface = {"shape": (stored,), "typestr": "|u1", "data": (first, readonly), "version": 3}
    flat = np.asarray(_Interface(owner, iface))
    if len(shape) > 1 and (cols * bits) % 8 == 0:
        flat = flat.reshape(tuple(shape[:-1]) + (_row_bytes(cols, bits),))
    elif rows > 1:
        raise BufferError(
            f"rows of {cols} {fmt} values end inside a byte: import such a stream with "
            "bitpack.unpack(..., n=...) on its bytes"
        )
    out = flat.view(Array)
    out.bitpack_format, out.bitpack_cols = fmt, cols
    return out
