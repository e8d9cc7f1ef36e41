"""The Python round trip: numpy, ml_dtypes and pyarrow against bitpack.

bitpack's DLPack exports go through `np.from_dlpack` (the objects below
implement `__dlpack__` and `__dlpack_device__`), numpy's own `__dlpack__`
capsules go into bitpack's importer, ml_dtypes' one-value-per-byte FP4/FP8
arrays import through the padded rule, and pyarrow reads bitpack's bitmaps.
The C ABI is `python/src/lib.rs` (crate `bitpack-python`), loaded with
ctypes from `BITPACK_PYTHON_LIB` or `$CARGO_TARGET_DIR/debug/`.

Run: `python -m unittest discover -s python/tests -v` (after
`cargo build -p bitpack-python --profile test`). Without the library or the
packages, every test is skipped with the reason.
"""

import ctypes
import os
import sys
import unittest

try:
    import numpy as np
    import ml_dtypes
    import pyarrow as pa

    MISSING = None
except ImportError as e:  # pragma: no cover - reported as a skip
    MISSING = f"needs numpy, ml_dtypes and pyarrow ({e}); install them with scripts/venv.sh"

try:
    import torch
except ImportError:  # pragma: no cover - reported as a skip
    torch = None
TORCH_MISSING = "needs torch (installed by .ci/run)" if torch is None else None
if torch is None and os.environ.get("BITPACK_REQUIRE_TORCH"):
    sys.exit("BITPACK_REQUIRE_TORCH is set but torch cannot be imported")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def find_lib():
    explicit = os.environ.get("BITPACK_PYTHON_LIB")
    if explicit:
        return explicit if os.path.exists(explicit) else None
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    for name in ("libbitpack_python.so", "libbitpack_python.dylib", "bitpack_python.dll"):
        path = os.path.join(target, "debug", name)
        if os.path.exists(path):
            return path
    return None


LIB_PATH = find_lib()
if MISSING is None and LIB_PATH is None:
    MISSING = (
        "the bitpack-python library is not built: run `cargo build -p bitpack-python "
        "--profile test` or set BITPACK_PYTHON_LIB"
    )
if MISSING is not None:
    if os.environ.get("BITPACK_REQUIRE_PYTHON"):
        sys.exit(f"BITPACK_REQUIRE_PYTHON is set but the round trip cannot run: {MISSING}")
    print(f"skipping the Python round trip: {MISSING}", file=sys.stderr)

# Kinds of python/src/lib.rs.
U8, U16, I32, F16, F32, BOOL, E4M3, E2M1, U4 = range(9)
# Shape units of bitpack_export.
VALUES, BYTES = 0, 1

# dlpack.h (the fact sheet's offsets are asserted below).
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", DELETER),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor),
]

READ_ONLY, IS_COPIED, PADDED = 1, 2, 4
VERSIONED = b"dltensor_versioned"
USED = b"used_dltensor_versioned"

api = ctypes.pythonapi
PyCapsule_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", api)
)
PyCapsule_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", api)
)
PyCapsule_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", api)
)
def err_buf():
    return ctypes.create_string_buffer(512)


class Lib:
    def __init__(self, path):
        self.c = ctypes.CDLL(path)
        c = self.c
        c.bitpack_export.argtypes = [
            ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int64),
            ctypes.c_int32, ctypes.c_uint32, ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p,
            ctypes.c_size_t,
        ]
        c.bitpack_import.argtypes = [
            ctypes.c_uint32, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t,
            ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_int64),
            ctypes.POINTER(ctypes.c_int32), ctypes.c_char_p, ctypes.c_size_t,
        ]
        c.bitpack_encode.argtypes = [
            ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t,
            ctypes.c_char_p, ctypes.c_size_t,
        ]
        c.bitpack_bools_to_arrow.argtypes = [
            ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
            ctypes.c_size_t,
        ]
        c.bitpack_bools_from_arrow.argtypes = [
            ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p,
            ctypes.c_char_p, ctypes.c_size_t,
        ]

    def export(self, kind, packed, shape, unit=VALUES):
        """A bitpack DLPack export of the packed stream `packed` (bytes),
        its shape counted in values (`VALUES`) or bytes (`BYTES`, torch's
        float4_e2m1fn_x2)."""
        buf = (ctypes.c_uint8 * max(len(packed), 1)).from_buffer_copy(packed or b"\0")
        sh = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        out = ctypes.c_void_p()
        e = err_buf()
        if self.c.bitpack_export(kind, buf, len(packed), sh, len(shape), unit, ctypes.byref(out), e, 512):
            raise ValueError(e.value.decode())
        return Exported(out.value, ctypes.cast(self.c.bitpack_capsule_destructor, ctypes.c_void_p))

    def import_ptr(self, kind, ptr, copy):
        """Hands a DLManagedTensorVersioned* to bitpack: (packed bytes, shape)."""
        cap = 1 << 20
        out = (ctypes.c_uint8 * cap)()
        written = ctypes.c_size_t()
        shape = (ctypes.c_int64 * 64)()
        ndim = ctypes.c_int32()
        e = err_buf()
        rc = self.c.bitpack_import(
            kind, ptr, 1 if copy else 0, out, cap, ctypes.byref(written), shape,
            ctypes.byref(ndim), e, 512,
        )
        if rc:
            raise ValueError(e.value.decode())
        return bytes(out[: written.value]), tuple(shape[: ndim.value])

    def import_capsule(self, kind, capsule, copy=False, patch=None):
        """Consumes a numpy `__dlpack__` capsule into bitpack; `patch` may
        rewrite the managed tensor first (a dtype, a flag)."""
        ptr = PyCapsule_GetPointer(capsule, VERSIONED)
        PyCapsule_SetName(capsule, USED)
        if patch:
            patch(ctypes.cast(ptr, ctypes.POINTER(DLManagedTensorVersioned)).contents)
        return self.import_ptr(kind, ptr, copy)

    def encode(self, kind, floats):
        src = np.ascontiguousarray(floats, dtype=np.float32)
        bits = 4 if kind == E2M1 else 8
        n = (len(src) * bits + 7) // 8
        out = (ctypes.c_uint8 * max(n, 1))()
        e = err_buf()
        if self.c.bitpack_encode(kind, src.ctypes.data, len(src), out, n, e, 512):
            raise ValueError(e.value.decode())
        return bytes(out[:n])

    def bools_to_arrow(self, bools):
        src = np.ascontiguousarray(bools, dtype=np.uint8)
        n = (len(src) + 7) // 8
        out = (ctypes.c_uint8 * max(n, 1))()
        e = err_buf()
        if self.c.bitpack_bools_to_arrow(src.ctypes.data, len(src), out, n, e, 512):
            raise ValueError(e.value.decode())
        return bytes(out[:n])

    def bools_from_arrow(self, bitmap, offset, length):
        buf = (ctypes.c_uint8 * max(len(bitmap), 1)).from_buffer_copy(bitmap or b"\0")
        out = (ctypes.c_uint8 * max(length, 1))()
        e = err_buf()
        if self.c.bitpack_bools_from_arrow(buf, len(bitmap), offset, length, out, e, 512):
            raise ValueError(e.value.decode())
        return [bool(b) for b in out[:length]]


class Exported:
    """A bitpack export, handed to a consumer through the DLPack protocol."""

    def __init__(self, ptr, destructor):
        self.ptr = ptr
        self.destructor = destructor
        self.managed = ctypes.cast(ptr, ctypes.POINTER(DLManagedTensorVersioned)).contents

    def __dlpack_device__(self):
        d = self.managed.dl_tensor.device
        return (d.device_type, d.device_id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if self.ptr is None:
            raise BufferError("this bitpack export was already consumed")
        if max_version is None or max_version[0] < 1:
            raise BufferError("bitpack exports DLManagedTensorVersioned (DLPack 1.x) only")
        if copy:
            raise BufferError("copy=True is not supported")
        ptr, self.ptr = self.ptr, None
        # The destructor is C (bitpack_capsule_destructor): a Python one
        # cannot run while the consumer's exception is set.
        return PyCapsule_New(ptr, VERSIONED, self.destructor)

    def raw_view(self, nbytes):
        """The exported bytes read through the struct alone (for dtypes numpy
        does not import): data + byte_offset, `nbytes` long."""
        t = self.managed.dl_tensor
        if nbytes == 0:
            return np.zeros(0, np.uint8)
        addr = t.data + t.byte_offset
        return np.frombuffer((ctypes.c_uint8 * nbytes).from_address(addr), dtype=np.uint8).copy()

    def release(self):
        if self.ptr is not None:
            self.managed.deleter(ctypes.cast(self.ptr, ctypes.POINTER(DLManagedTensorVersioned)))
            self.ptr = None


def unpack_nibbles(packed, n):
    b = np.frombuffer(packed, dtype=np.uint8)
    out = np.empty(2 * len(b), dtype=np.uint8)
    out[0::2] = b & 0xF
    out[1::2] = b >> 4
    return out[:n]


SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 0, 3), (2, 3, 5), (1, 9, 1), (4, 1, 3)]


@unittest.skipIf(MISSING is not None, MISSING or "")
class RoundTrip(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lib = Lib(LIB_PATH)
        cls.rng = np.random.default_rng(12)

    def test_struct_layout(self):
        self.assertEqual(ctypes.sizeof(DLTensor), 48)
        self.assertEqual(DLTensor.shape.offset, 24)
        self.assertEqual(DLTensor.byte_offset.offset, 40)
        self.assertEqual(DLManagedTensorVersioned.flags.offset, 24)
        self.assertEqual(DLManagedTensorVersioned.dl_tensor.offset, 32)
        self.assertEqual(ctypes.sizeof(DLManagedTensorVersioned), 80)

    def random(self, dtype, shape):
        n = int(np.prod(shape)) if shape else 1
        if dtype == np.bool_:
            return self.rng.integers(0, 2, n).astype(np.bool_).reshape(shape)
        if np.dtype(dtype).kind == "f":
            return self.rng.standard_normal(n).astype(dtype).reshape(shape)
        info = np.iinfo(dtype)
        return self.rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True).reshape(shape)

    def test_numpy_imports_bitpack_exports(self):
        kinds = [(U8, np.uint8), (U16, np.uint16), (I32, np.int32), (F16, np.float16), (F32, np.float32)]
        for kind, dtype in kinds:
            for shape in SHAPES:
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape):
                    a = self.random(dtype, shape)
                    ex = self.lib.export(kind, a.tobytes(), shape)
                    self.assertEqual(ex.__dlpack_device__(), (1, 0))
                    b = np.from_dlpack(ex)
                    self.assertEqual(b.dtype, a.dtype)
                    self.assertEqual(b.shape, shape)
                    self.assertEqual(b.tobytes(), a.tobytes())
                    self.assertTrue(b.flags.writeable)
                    with self.assertRaises(BufferError):
                        ex.__dlpack__(max_version=(1, 0))
        for shape in SHAPES:
            with self.subTest(dtype="bool", shape=shape):
                a = self.random(np.bool_, shape)
                packed = np.packbits(a.ravel(), bitorder="little").tobytes()
                b = np.from_dlpack(self.lib.export(BOOL, packed, shape))
                self.assertEqual(b.dtype, np.bool_)
                self.assertEqual(b.shape, shape)
                np.testing.assert_array_equal(b, a)

    def test_unconsumed_exports_are_freed(self):
        ex = self.lib.export(U8, b"\x01\x02", (2,))
        cap = ex.__dlpack__(max_version=(1, 0))
        del cap  # the capsule destructor calls bitpack's deleter
        self.lib.export(U8, b"\x01", (1,)).release()

    def test_bitpack_imports_numpy(self):
        kinds = [(U8, np.uint8), (U16, np.uint16), (I32, np.int32), (F16, np.float16), (F32, np.float32)]
        for kind, dtype in kinds:
            for shape in SHAPES:
                a = self.random(dtype, shape)
                for copy in (False, True):
                    with self.subTest(dtype=np.dtype(dtype).name, shape=shape, copy=copy):
                        got, got_shape = self.lib.import_capsule(kind, a.__dlpack__(max_version=(1, 0)), copy)
                        self.assertEqual(got, a.tobytes())
                        self.assertEqual(got_shape, shape)
        # numpy's bool is kDLBool with 8 bits: bitpack repacks it.
        a = self.random(np.bool_, (3, 7))
        got, shape = self.lib.import_capsule(BOOL, a.__dlpack__(max_version=(1, 0)), copy=True)
        self.assertEqual(shape, (3, 7))
        self.assertEqual(got, np.packbits(a.ravel(), bitorder="little").tobytes())
        with self.assertRaisesRegex(ValueError, "DLPack dtype"):
            self.lib.import_capsule(U16, np.zeros(3, np.int16).__dlpack__(max_version=(1, 0)))

    def test_non_contiguous_numpy_arrays(self):
        a = self.random(np.int32, (6, 8))
        for view in (a[:, ::2], a[::-1], a.T, a[1:5, 3:7], np.broadcast_to(a[0], (3, 8))):
            with self.subTest(strides=view.strides):
                cap = view.__dlpack__(max_version=(1, 0))
                with self.assertRaisesRegex(ValueError, "compact row-major"):
                    self.lib.import_capsule(I32, cap, copy=False)
                got, shape = self.lib.import_capsule(I32, view.__dlpack__(max_version=(1, 0)), copy=True)
                self.assertEqual(shape, view.shape)
                self.assertEqual(got, np.ascontiguousarray(view).tobytes())

    def test_ml_dtypes_padded_float4(self):
        floats = np.concatenate([
            self.rng.uniform(-8, 8, 997).astype(np.float32),
            np.array([0.25, 0.75, 1.25, 2.5, 3.5, 5.0, -0.0, 6.5, -7.0], np.float32),
        ])
        f4 = floats.astype(ml_dtypes.float4_e2m1fn)
        self.assertEqual(f4.itemsize, 1)

        def as_float4_padded(m):
            self.assertEqual((m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits), (1, 8))
            m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits = 17, 4
            m.flags |= PADDED

        codes = f4.view(np.uint8)
        got, shape = self.lib.import_capsule(E2M1, codes.__dlpack__(max_version=(1, 0)), True, as_float4_padded)
        self.assertEqual(shape, (len(floats),))
        self.assertEqual(got, self.lib.encode(E2M1, floats))
        # The packed stream is the nibbles of ml_dtypes' codes, low first.
        np.testing.assert_array_equal(unpack_nibbles(got, len(floats)), codes)
        # A code with a high bit set is refused, naming it.
        bad = codes.copy()
        bad[5] |= 0x10
        with self.assertRaisesRegex(ValueError, "value 5 is stored as byte"):
            self.lib.import_capsule(E2M1, bad.__dlpack__(max_version=(1, 0)), True, as_float4_padded)
        # bitpack's packed FP4 export, unpacked to ml_dtypes' storage.
        ex = self.lib.export(E2M1, got, (len(floats),))
        t = ex.managed.dl_tensor
        self.assertEqual((t.dtype.code, t.dtype.bits, t.dtype.lanes, ex.managed.flags), (17, 4, 1, 0))
        back = unpack_nibbles(ex.raw_view(len(got)).tobytes(), len(floats)).view(ml_dtypes.float4_e2m1fn)
        np.testing.assert_array_equal(back.astype(np.float32), f4.astype(np.float32))
        ex.release()

    def test_ml_dtypes_float8_e4m3fn(self):
        floats = np.concatenate([
            self.rng.standard_normal(1000).astype(np.float32) * 50,
            np.array([448.0, -448.0, 2.0**-9, 0.0, -0.0], np.float32),
        ])
        f8 = floats.astype(ml_dtypes.float8_e4m3fn)

        def as_e4m3fn(m):
            m.dl_tensor.dtype.code = 10

        got, shape = self.lib.import_capsule(E4M3, f8.view(np.uint8).__dlpack__(max_version=(1, 0)), False, as_e4m3fn)
        self.assertEqual(got, self.lib.encode(E4M3, floats))
        self.assertEqual(got, f8.tobytes())
        ex = self.lib.export(E4M3, got, (5, 201))
        t = ex.managed.dl_tensor
        self.assertEqual((t.dtype.code, t.dtype.bits, t.ndim), (10, 8, 2))
        self.assertEqual([t.shape[0], t.shape[1]], [5, 201])
        self.assertEqual([t.strides[0], t.strides[1]], [201, 1])
        back = ex.raw_view(len(got)).view(ml_dtypes.float8_e4m3fn)
        np.testing.assert_array_equal(back.astype(np.float32), f8.astype(np.float32))
        ex.release()

    def test_hostile_numpy_tensors_give_clean_errors(self):
        """Real foreign tensors that numpy makes: each gives a ValueError or
        a correct result, at once (no allocation beyond the stored bytes,
        no walk over the logical size), never a crash or a hang."""
        import time

        def as_padded_float4(m):
            m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits = 17, 4
            m.flags |= PADDED

        huge = 2**40
        cases = [
            (U8, np.broadcast_to(np.uint8(3), (huge,)), None),
            (U8, np.broadcast_to(np.arange(4, dtype=np.uint8), (huge // 4, 4)), None),
            (BOOL, np.broadcast_to(np.bool_(True), (huge,)), None),
            (E2M1, np.broadcast_to(np.uint8(5), (huge,)), as_padded_float4),
            (I32, np.broadcast_to(np.int32(-1), (2**20, 2**20)), None),
        ]
        for kind, arr, patch in cases:
            for copy in (False, True):
                with self.subTest(kind=kind, shape=arr.shape, copy=copy):
                    start = time.monotonic()
                    cap = arr.__dlpack__(max_version=(1, 0))
                    with self.assertRaises(ValueError) as cm:
                        self.lib.import_capsule(kind, cap, copy, patch)
                    msg = str(cm.exception)
                    self.assertNotIn("panic", msg)
                    if copy:
                        self.assertRegex(msg, "over its limit|compact|contiguous")
                    else:
                        self.assertRegex(msg, "compact row-major|one value per byte|DLPack dtype")
                    print(f"  {arr.shape} kind {kind} copy={copy}: {time.monotonic() - start:.4f} s: {msg[:60]}")
        # Valid strided tensors read back exactly.
        a = self.rng.integers(0, 255, 64, dtype=np.uint8)
        strided = [
            a[::-1],
            a.reshape(8, 8)[::-2, ::-3],
            np.lib.stride_tricks.as_strided(a, shape=(1, 5), strides=(2**62, 1)),
            np.lib.stride_tricks.as_strided(a, shape=(5, 1), strides=(1, -(2**62))),
            np.lib.stride_tricks.as_strided(a, shape=(10, 3), strides=(1, 1)),
            np.broadcast_to(a[:3], (7, 3)),
        ]
        for view in strided:
            with self.subTest(strides=view.strides, shape=view.shape):
                got, shape = self.lib.import_capsule(U8, view.__dlpack__(max_version=(1, 0)), True)
                self.assertEqual(shape, view.shape)
                self.assertEqual(got, np.ascontiguousarray(view).tobytes())
        # A read-only array imports (a copy, or a read-only borrow).
        ro = a.copy()
        ro.setflags(write=False)
        for copy in (False, True):
            got, _ = self.lib.import_capsule(U8, ro.__dlpack__(max_version=(1, 0)), copy)
            self.assertEqual(got, ro.tobytes())
        # Padded values with a high bit set, found through a broadcast.
        bad = np.broadcast_to(np.uint8(0x31), (1000,))
        with self.assertRaisesRegex(ValueError, "value 0 is stored as byte"):
            self.lib.import_capsule(E2M1, bad.__dlpack__(max_version=(1, 0)), True, as_padded_float4)
        # Exports of shapes whose product overflows, or odd byte rows.
        with self.assertRaisesRegex(ValueError, "overflows"):
            self.lib.export(U8, b"", (2**40, 2**40))
        with self.assertRaisesRegex(ValueError, "multiple of 8 / bits"):
            self.lib.export(E2M1, b"\x21\x03", (3,), BYTES)

    def test_numpy_refusing_a_float4_export_is_a_clean_exception(self):
        # numpy's from_dlpack has no float4 dtype: its own exception comes
        # through, and the capsule's C destructor frees the export.
        ex = self.lib.export(E2M1, b"\x21\x43", (4,))
        with self.assertRaises((BufferError, RuntimeError, TypeError)) as cm:
            np.from_dlpack(ex)
        self.assertNotIsInstance(cm.exception, SystemError)
        # The route numpy and ml_dtypes take: one code per byte as uint8.
        ex = self.lib.export(U8, bytes([1, 2, 3, 4]), (4,))
        codes = np.from_dlpack(ex).view(ml_dtypes.float4_e2m1fn)
        np.testing.assert_array_equal(codes.astype(np.float32), [0.5, 1.0, 1.5, 2.0])

    def test_pyarrow_reads_bitpack_bitmaps(self):
        for n in (0, 1, 7, 8, 9, 64, 65, 1000):
            with self.subTest(n=n):
                bools = self.rng.integers(0, 2, n).astype(bool)
                bitmap = self.lib.bools_to_arrow(bools)
                arr = pa.Array.from_buffers(pa.bool_(), n, [None, pa.py_buffer(bitmap)])
                self.assertEqual(arr.to_pylist(), bools.tolist())
                theirs = pa.array(bools.tolist(), pa.bool_())
                self.assertEqual(theirs.buffers()[1].to_pybytes()[: len(bitmap)], bitmap)

    def test_bitpack_reads_pyarrow_bitmaps(self):
        bools = self.rng.integers(0, 2, 300).astype(bool).tolist()
        arr = pa.array(bools, pa.bool_())
        for off, length in ((0, 300), (3, 100), (13, 0), (64, 200), (7, 293)):
            with self.subTest(offset=off, length=length):
                s = arr.slice(off, length)
                buf = s.buffers()[1].to_pybytes()
                self.assertEqual(self.lib.bools_from_arrow(buf, s.offset, length), bools[off : off + length])



@unittest.skipIf(MISSING is not None or TORCH_MISSING is not None, MISSING or TORCH_MISSING or "")
class Torch(unittest.TestCase):
    """PyTorch's DLPack: float4_e2m1fn_x2 (lanes 2, shape in bytes) both ways,
    and the FP8 types byte for byte."""

    @classmethod
    def setUpClass(cls):
        cls.lib = Lib(LIB_PATH)
        cls.rng = np.random.default_rng(7)

    def test_float4_e2m1fn_x2_both_ways(self):
        for rows, cols in ((1, 2), (3, 32), (4, 6), (0, 8)):
            with self.subTest(rows=rows, cols=cols):
                floats = self.rng.uniform(-7, 7, rows * cols).astype(np.float32)
                packed = self.lib.encode(E2M1, floats)
                # bitpack -> torch, in torch's convention.
                t = torch.from_dlpack(self.lib.export(E2M1, packed, (rows, cols), BYTES))
                self.assertEqual(t.dtype, torch.float4_e2m1fn_x2)
                self.assertEqual(tuple(t.shape), (rows, cols // 2))
                self.assertEqual(t.view(torch.uint8).numpy().tobytes(), packed)
                # ml_dtypes agrees with the bytes torch now holds.
                lo_hi = unpack_nibbles(t.view(torch.uint8).numpy().tobytes(), rows * cols)
                ref = floats.astype(ml_dtypes.float4_e2m1fn).view(np.uint8)
                np.testing.assert_array_equal(lo_hi, ref)
                # torch -> bitpack: lanes 2 import as values.
                theirs = torch.from_numpy(np.frombuffer(packed, np.uint8).copy())
                theirs = theirs.view(torch.float4_e2m1fn_x2).reshape(rows, cols // 2)
                for copy in (False, True):
                    got, shape = self.lib.import_capsule(E2M1, theirs.__dlpack__(max_version=(1, 0)), copy)
                    self.assertEqual(shape, (rows, cols))
                    self.assertEqual(got, packed)
        # A column slice of torch's tensor: rows apart, copied.
        base = torch.from_numpy(np.arange(32, dtype=np.uint8)).view(torch.float4_e2m1fn_x2).reshape(4, 8)
        got, shape = self.lib.import_capsule(E2M1, base[:, 2:5].__dlpack__(max_version=(1, 0)), True)
        self.assertEqual(shape, (4, 6))
        self.assertEqual(got, base.view(torch.uint8)[:, 2:5].contiguous().numpy().tobytes())
        # bitpack's default (values) convention is refused by torch, cleanly.
        with self.assertRaises(BufferError):
            torch.from_dlpack(self.lib.export(E2M1, b"\x21\x43", (4,)))

    def test_float8_both_ways(self):
        floats = (self.rng.standard_normal(600) * 40).astype(np.float32)
        packed = self.lib.encode(E4M3, floats)
        t = torch.from_dlpack(self.lib.export(E4M3, packed, (20, 30)))
        self.assertEqual((t.dtype, tuple(t.shape)), (torch.float8_e4m3fn, (20, 30)))
        self.assertEqual(t.view(torch.uint8).numpy().tobytes(), packed)
        ref = torch.from_numpy(floats).to(torch.float8_e4m3fn)
        self.assertEqual(ref.view(torch.uint8).numpy().tobytes(), packed)
        got, shape = self.lib.import_capsule(E4M3, ref.reshape(20, 30).__dlpack__(max_version=(1, 0)), False)
        self.assertEqual((got, shape), (packed, (20, 30)))
        got, _ = self.lib.import_capsule(E4M3, ref.reshape(20, 30).T.__dlpack__(max_version=(1, 0)), True)
        self.assertEqual(got, ref.reshape(20, 30).T.contiguous().view(torch.uint8).numpy().tobytes())


if __name__ == "__main__":
    unittest.main(verbosity=2)
