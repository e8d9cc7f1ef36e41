"""The bitpack Python package against ml_dtypes, numpy, pyarrow and torch.

Run after `pip install ./python` (and numpy, ml_dtypes; pyarrow and torch
where installed): `python -m pytest python/tests` or
`python -m unittest discover -s python/tests -v`. Without the package every
test is skipped with the reason, unless BITPACK_REQUIRE_PYTHON is set; without
torch the torch tests are skipped unless BITPACK_REQUIRE_TORCH is set.

The conformance vectors are read from `tests/conformance/` of the
repository (a byte copy of the project's reference set, made with
ml_dtypes and numpy).
"""

import os
import subprocess
import sys
import threading
import unittest

try:
    import numpy as np
    import ml_dtypes
    import bitpack

    MISSING = None
except ImportError as e:  # pragma: no cover - reported as a skip
    MISSING = f"needs numpy, ml_dtypes and the bitpack package ({e}): pip install ./python"
if MISSING and os.environ.get("BITPACK_REQUIRE_PYTHON"):
    sys.exit(f"BITPACK_REQUIRE_PYTHON is set but the package cannot run: {MISSING}")

try:
    import torch
except ImportError:  # pragma: no cover - reported as a skip
    torch = None
TORCH_MISSING = "needs torch (installed by .ci/run)" if torch is None else None
if torch is None and os.environ.get("BITPACK_REQUIRE_TORCH"):
    sys.exit("BITPACK_REQUIRE_TORCH is set but torch cannot be imported")

try:
    import pyarrow as pa
except ImportError:  # pragma: no cover - reported as a skip
    pa = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFORMANCE = os.path.join(ROOT, "tests", "conformance")

# The eight-bit-or-narrower formats, by ml_dtypes name.
SMALL = [
    "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e4m3fn", "float8_e5m2",
    "float8_e8m0fnu", "float8_e3m4", "float8_e4m3", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "float8_e4m3b11fnuz",
]


def tsv(name):
    with open(os.path.join(CONFORMANCE, name)) as f:
        header = f.readline().rstrip("\n").split("\t")
        return [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f if line.strip()]


def f32_of(hexbits):
    return np.array([int(hexbits, 16)], np.uint32).view(np.float32)[0]


def codes_u8(a):
    return np.asarray(a).view(np.uint8) if np.asarray(a).dtype.itemsize == 1 else np.asarray(a).view(np.uint16)


@unittest.skipIf(MISSING is not None, MISSING or "")
class Conformance(unittest.TestCase):
    """Every format against the reference vectors (ml_dtypes and numpy)."""

    def test_encode_rows(self):
        for fmt in SMALL + ["bfloat16", "float16"]:
            for mode, suffix in (("nearest", "rn"), ("satfinite", "satfinite")):
                rows = [r for r in tsv(f"{fmt}.encode_{suffix}.tsv") if r["note"] == "-"]
                with self.subTest(fmt=fmt, mode=mode, rows=len(rows)):
                    self.assertGreater(len(rows), 100)
                    x = np.array([int(r["input_f32"], 16) for r in rows], np.uint32).view(np.float32)
                    got = codes_u8(bitpack.encode(x, fmt, mode=mode))
                    want = np.array([int(r["output"], 16) for r in rows])
                    nan = np.array([r["out_is_nan"] == "1" for r in rows])
                    # NaN outputs: any NaN code of the format (the sign and
                    # payload of a NaN are not specified), checked by decoding.
                    np.testing.assert_array_equal(got[~nan], want[~nan])
                    if nan.any():
                        back = bitpack.decode(bitpack.encode(x[nan], fmt, mode=mode))
                        self.assertTrue(np.isnan(back).all())

    def test_decode_tables(self):
        for fmt in SMALL + ["bfloat16", "float16"]:
            rows = tsv(f"{fmt}.decode.tsv")
            with self.subTest(fmt=fmt, rows=len(rows)):
                codes = np.array([int(r["bits"], 16) for r in rows])
                dt = np.uint16 if fmt in ("bfloat16", "float16") else np.uint8
                typed = codes.astype(dt).view(bitpack.format_dtype(fmt))
                got = bitpack.decode(typed).view(np.uint32)
                want = np.array([int(r["f32_bits"], 16) for r in rows], np.uint32)
                nan = np.array([r["is_nan"] == "1" for r in rows])
                np.testing.assert_array_equal(got[~nan], want[~nan])
                self.assertTrue(np.isnan(got[nan].view(np.float32)).all())
                # The same codes as plain bytes with the format named.
                plain = bitpack.decode(codes.astype(dt), fmt)
                np.testing.assert_array_equal(plain.view(np.uint32)[~nan], want[~nan])

    def test_narrow_integers_wrap_as_ml_dtypes(self):
        for name, bits, signed in (("int1", 1, True), ("int2", 2, True), ("int4", 4, True),
                                   ("uint1", 1, False), ("uint2", 2, False), ("uint4", 4, False)):
            rows = tsv(f"{name}.values.tsv")
            with self.subTest(name=name, rows=len(rows)):
                x = np.array([int(r["input"]) for r in rows], np.int64)
                packed = bitpack.pack(x, bits, signed=signed, overflow="wrap")
                got = bitpack.unpack(packed, bits, len(x), signed=signed)
                np.testing.assert_array_equal(got.astype(np.int64),
                                              [int(r["value"]) for r in rows])
                codes = bitpack.unpack(packed, bits, len(x))
                np.testing.assert_array_equal(codes, [int(r["code"], 16) for r in rows])

    def test_subbyte_packing_lsb_first(self):
        for r in tsv("subbyte.pack_lsb.tsv"):
            bits, count = int(r["bits"]), int(r["count"])
            codes = [] if r["codes_hex"] == "-" else [int(c, 16) for c in r["codes_hex"].split(",")]
            want = b"" if r["packed_hex"] == "-" else bytes.fromhex(r["packed_hex"])
            got = bitpack.pack(np.array(codes, np.uint8), bits)
            self.assertEqual(got.tobytes(), want, (bits, count))
            back = bitpack.unpack(got, bits, count)
            self.assertEqual(back.tolist(), codes)

    def test_bools_are_numpy_packbits_little(self):
        for r in tsv("bool.packbits.tsv"):
            n = int(r["length"])
            vals = [] if r["values"] == "-" else [c == "1" for c in r["values"]]
            self.assertEqual(len(vals), n)
            want = b"" if r["numpy_packbits_little"] == "-" else bytes.fromhex(r["numpy_packbits_little"])
            self.assertEqual(bitpack.pack(np.array(vals, bool), 1).tobytes(), want)


@unittest.skipIf(MISSING is not None, MISSING or "")
class Formats(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rng = np.random.default_rng(3)

    def data(self, n, scale=8.0):
        x = self.rng.standard_normal(n).astype(np.float32) * scale
        x[::17] = self.rng.uniform(-1e-3, 1e-3, x[::17].shape).astype(np.float32)
        return x

    def test_every_format_equals_ml_dtypes_astype(self):
        x = self.data(5000)
        for fmt in SMALL + ["bfloat16"]:
            with self.subTest(fmt=fmt):
                ref = x.astype(bitpack.format_dtype(fmt))
                got = bitpack.encode(x, fmt)
                self.assertEqual(got.dtype, ref.dtype)
                self.assertIsInstance(got, bitpack.Array)
                a, b = codes_u8(got), codes_u8(ref)
                nan = np.isnan(ref.astype(np.float32))
                np.testing.assert_array_equal(a[~nan], b[~nan])
                back = bitpack.decode(got)
                np.testing.assert_array_equal(back[~nan], ref.astype(np.float32)[~nan])

    def test_inputs_of_every_float_type_shape_and_stride(self):
        base = self.data(6 * 40).reshape(6, 40)
        views = [base, base[:, ::3], base[::-2], base.T, base[2:3, 5:6], base[0, 0], base[:0]]
        for fmt in ("float4_e2m1fn", "float6_e3m2fn", "float8_e4m3fn", "float8_e8m0fnu"):
            for v in views:
                for dtype in (np.float32, np.float64, np.float16, ml_dtypes.bfloat16):
                    with self.subTest(fmt=fmt, shape=v.shape, strides=v.strides, dtype=np.dtype(dtype).name):
                        xv = v.astype(dtype)
                        got = bitpack.encode(xv, fmt)
                        self.assertEqual(got.shape, xv.shape)
                        # Every value rounds once from its own type: ml_dtypes
                        # from float32 is exact for these inputs.
                        ref = np.asarray(xv).astype(np.float32).astype(bitpack.format_dtype(fmt))
                        np.testing.assert_array_equal(codes_u8(got), codes_u8(ref))
                        lists = bitpack.encode(np.asarray(xv).tolist(), fmt) if xv.size and xv.ndim else None
                        if lists is not None and dtype in (np.float32, np.float64):
                            np.testing.assert_array_equal(codes_u8(lists), codes_u8(ref))

    def test_f64_rounds_once(self):
        # Halfway between two E2M1 values in float32 but just above it in
        # float64: ml_dtypes rounds twice (through float32) and gets the even
        # code; one rounding gives the upper one.
        x = np.array([2.5 + 2.0**-40, -0.75 - 2.0**-45, 5.0 + 2.0**-30], np.float64)
        got = bitpack.decode(bitpack.encode(x, "float4_e2m1fn"))
        np.testing.assert_array_equal(got, [3.0, -1.0, 6.0])

    def test_satfinite_and_modes(self):
        x = np.array([1e6, -1e6, np.inf, -np.inf, np.nan], np.float32)
        sat = bitpack.decode(bitpack.encode(x, "float8_e4m3fn", mode="satfinite"))
        np.testing.assert_array_equal(sat[:4], [448, -448, 448, -448])
        self.assertTrue(np.isnan(sat[4]))
        with self.assertRaisesRegex(ValueError, "mode must be"):
            bitpack.encode(x, "float8_e4m3fn", mode="up")

    def test_stochastic_rounding_is_reproducible_and_unbiased(self):
        x = np.full(20000, 2.25, np.float32)  # between E2M1's 2.0 and 3.0
        a = bitpack.encode(x, "float4_e2m1fn", stochastic_seed=11)
        b = bitpack.encode(x, "float4_e2m1fn", stochastic_seed=11)
        c = bitpack.encode(x, "float4_e2m1fn", stochastic_seed=12)
        np.testing.assert_array_equal(codes_u8(a), codes_u8(b))
        self.assertFalse(np.array_equal(codes_u8(a), codes_u8(c)))
        mean = bitpack.decode(a).mean()
        self.assertAlmostEqual(mean, 2.25, delta=0.02)
        # Packed rows use the same bits per flat index as one code per byte.
        x2 = self.data(7 * 5).reshape(7, 5)
        packed = bitpack.encode(x2, "float4_e2m1fn", stochastic_seed=3, packed=True)
        codes = bitpack.encode(x2, "float4_e2m1fn", stochastic_seed=3)
        np.testing.assert_array_equal(bitpack.decode(packed), bitpack.decode(codes))
        for bad in (-1, 2**64, 1.5, True):
            with self.assertRaises((ValueError, TypeError)):
                bitpack.encode(x, "float4_e2m1fn", stochastic_seed=bad)
        # bfloat16 and float16 round stochastically too.
        y = np.full(20000, 1.0 + 2.0**-9, np.float32)  # a quarter of a bf16 step
        s = bitpack.encode(y, "bfloat16", stochastic_seed=5)
        ups = (bitpack.decode(s) > 1.0).mean()
        self.assertAlmostEqual(ups, 0.25, delta=0.02)

    def test_packed_rows(self):
        for fmt, bits in (("float4_e2m1fn", 4), ("float6_e2m3fn", 6), ("float6_e3m2fn", 6)):
            for shape in ((10,), (3, 7), (4, 8), (2, 3, 5), (0, 4), (5, 0)):
                with self.subTest(fmt=fmt, shape=shape):
                    x = self.data(int(np.prod(shape))).reshape(shape)
                    packed = bitpack.encode(x, fmt, packed=True)
                    cols = shape[-1]
                    self.assertEqual(packed.shape, shape[:-1] + ((cols * bits + 7) // 8,))
                    self.assertEqual(packed.dtype, np.uint8)
                    codes = codes_u8(bitpack.encode(x, fmt)).reshape(-1, max(cols, 1))
                    # Each row is the LSB-first stream of its codes.
                    rows = packed.reshape(-1, packed.shape[-1]) if cols else []
                    for row, want in zip(rows, codes):
                        ints = int.from_bytes(row.tobytes(), "little")
                        got = [(ints >> (bits * i)) & ((1 << bits) - 1) for i in range(cols)]
                        self.assertEqual(got, want[:cols].tolist())
                    np.testing.assert_array_equal(bitpack.decode(packed), bitpack.decode(bitpack.encode(x, fmt)))
                    # Plain bytes decode with the format and the row length.
                    plain = np.asarray(packed).view(np.uint8).copy()
                    np.testing.assert_array_equal(
                        bitpack.decode(plain, fmt, count=cols), bitpack.decode(packed))
        with self.assertRaisesRegex(ValueError, "do not hold exactly"):
            bitpack.decode(np.zeros((2, 3), np.uint8), "float4_e2m1fn", count=7)

    def test_decode_to_every_dtype(self):
        codes = bitpack.encode(self.data(1000), "float8_e5m2")
        f32 = bitpack.decode(codes)
        for dtype in (np.float64, np.float16, ml_dtypes.bfloat16):
            with self.subTest(dtype=np.dtype(dtype).name):
                got = bitpack.decode(codes, dtype=dtype)
                self.assertEqual(got.dtype, np.dtype(dtype))
                np.testing.assert_array_equal(got, f32.astype(dtype))
        with self.assertRaisesRegex(TypeError, "decode gives"):
            bitpack.decode(codes, dtype=np.int32)

    def test_bad_input(self):
        x = np.ones(4, np.float32)
        with self.assertRaisesRegex(ValueError, "unknown float format"):
            bitpack.encode(x, "float7_e9m9")
        with self.assertRaises(TypeError):
            bitpack.encode(np.array(["a"]), "float8_e4m3fn")
        with self.assertRaises(TypeError):
            bitpack.encode(np.ones(3, np.complex64), "float8_e4m3fn")
        with self.assertRaisesRegex(ValueError, r"value 2 is stored as byte 0x10"):
            bitpack.decode(np.array([1, 2, 16, 3], np.uint8), "float4_e2m1fn")
        with self.assertRaisesRegex(TypeError, "needs the format"):
            bitpack.decode(np.array([1, 2], np.uint8))
        with self.assertRaises(ValueError):
            bitpack.decode(bitpack.encode(x, "float8_e4m3fn"), "float8_e5m2")
        # A huge broadcast fails at once, not after a long walk.
        huge = np.broadcast_to(np.float32(1.0), (2**40,))
        with self.assertRaises((MemoryError, ValueError)):
            bitpack.encode(huge, "float8_e4m3fn")
        # Read-only and 0-d inputs are read.
        ro = np.arange(8, dtype=np.float32)
        ro.setflags(write=False)
        self.assertEqual(bitpack.encode(ro, "float8_e4m3fn").shape, (8,))
        zero_d = bitpack.encode(np.float32(3.0), "float8_e4m3fn")
        self.assertEqual(zero_d.shape, ())
        self.assertEqual(float(bitpack.decode(zero_d)), 3.0)

    def test_every_spelling_of_a_format_names_the_same_one(self):
        x = self.data(300)
        want = bitpack.encode(x, "float8_e4m3fn").tobytes()
        spellings = ["float8_e4m3fn", "FLOAT8_E4M3FN", ml_dtypes.float8_e4m3fn,
                     np.dtype(ml_dtypes.float8_e4m3fn)]
        for _ in range(2):  # the second round reads the cache
            for fmt in spellings:
                with self.subTest(fmt=fmt):
                    self.assertEqual(bitpack.encode(x, fmt).tobytes(), want)
                    self.assertEqual(bitpack.format_bits(fmt), 8)
                    self.assertEqual(bitpack.format_dtype(fmt), np.dtype(ml_dtypes.float8_e4m3fn))
        self.assertEqual(bitpack.format_bits("float6_e3m2fn"), 6)
        self.assertEqual(bitpack.format_dtype(np.float16), np.dtype(np.float16))
        # A bad spelling fails every time, never from a cache.
        for _ in range(2):
            with self.assertRaisesRegex(ValueError, "unknown float format"):
                bitpack.format_bits("float7_e9m9")
            with self.assertRaises(TypeError):
                bitpack.format_bits(object())
            with self.assertRaises(TypeError):
                bitpack.format_bits([1, 2])

    def test_the_gil_is_released(self):
        # Two threads encoding at once give the same bytes as one at a time.
        x = self.data(1 << 20)
        want = codes_u8(bitpack.encode(x, "float8_e4m3fn")).copy()
        out = [None, None]

        def run(i):
            out[i] = codes_u8(bitpack.encode(x, "float8_e4m3fn")).copy()

        ts = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        for o in out:
            np.testing.assert_array_equal(o, want)

    def test_threads_give_the_same_bytes(self):
        x = self.data(3 * (1 << 20) + 13)
        rows = x[: 3 << 20].reshape(-1, 4096)
        before = bitpack.get_num_threads()
        try:
            results = []
            for n in (1, 2, 3):
                bitpack.set_num_threads(n)
                self.assertEqual(bitpack.get_num_threads(), n)
                got = []
                for fmt in ("float4_e2m1fn", "float6_e3m2fn", "float8_e4m3fn"):
                    c = bitpack.encode(x, fmt)
                    p = bitpack.encode(rows, fmt, packed=True)
                    got += [codes_u8(c).tobytes(), np.asarray(p).tobytes(),
                            bitpack.decode(c).tobytes(), bitpack.decode(p).tobytes()]
                results.append(got)
            self.assertEqual(results[0], results[1])
            self.assertEqual(results[0], results[2])
            with self.assertRaisesRegex(ValueError, "0 or more"):
                bitpack.set_num_threads(-1)
        finally:
            bitpack.set_num_threads(0)
        self.assertEqual(bitpack.get_num_threads(), before)

    def test_module_entry_point(self):
        out = subprocess.run([sys.executable, "-m", "bitpack", "--version"],
                             capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout.strip(), f"bitpack {bitpack.__version__}")


def mx_reference(x, fmt, axis, rule):
    """OCP MX (floor) and NVIDIA (rceil) block scaling, in float64, from the
    spec: per block of 32 along `axis`, the E8M0 scale exponent and the
    element codes of x / 2**e, saturating."""
    emax = {"float4_e2m1fn": 2, "float6_e2m3fn": 2, "float6_e3m2fn": 4,
            "float8_e4m3fn": 8, "float8_e5m2": 15}[fmt]
    maxv = float(ml_dtypes.finfo(bitpack.format_dtype(fmt)).max)
    xm = np.moveaxis(x.astype(np.float64), axis, -1)
    n = xm.shape[-1]
    nb = (n + 31) // 32
    pad = np.zeros(xm.shape[:-1] + (nb * 32 - n,))
    blocks = np.concatenate([xm, pad], -1).reshape(xm.shape[:-1] + (nb, 32))
    amax = np.abs(blocks).max(-1)
    with np.errstate(divide="ignore"):
        if rule == "floor":
            e = np.floor(np.log2(amax)) - emax
        else:
            e = np.ceil(np.log2(amax / maxv))
    e = np.where(amax == 0, -127, np.clip(e, -127, 127))
    scaled = blocks / np.exp2(e)[..., None]
    vals = np.clip(scaled, -maxv, maxv).astype(np.float32)  # exact: few bits
    codes = bitpack.encode(vals, fmt)  # checked against ml_dtypes above
    deq = bitpack.decode(codes).astype(np.float64) * np.exp2(e)[..., None]
    deq = deq.reshape(xm.shape[:-1] + (nb * 32,))[..., :n]
    return np.moveaxis(deq, -1, axis), np.moveaxis(e + 127, -1, axis).astype(np.uint8)


@unittest.skipIf(MISSING is not None, MISSING or "")
class BlockScaling(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rng = np.random.default_rng(5)

    def test_mx_against_the_spec(self):
        # Values that are exact in float32 after the power-of-two scaling:
        # binary fractions with few bits, spread over many binades.
        for fmt in bitpack.MX_FORMATS:
            for shape, axis in (((4, 64), -1), ((64, 3), 0), ((2, 5, 40), 2), ((70,), 0)):
                for rule in ("floor", "rceil"):
                    with self.subTest(fmt=fmt, shape=shape, axis=axis, rule=rule):
                        x = (self.rng.integers(-64, 64, shape) * np.exp2(
                            self.rng.integers(-6, 6, shape))).astype(np.float32)
                        q = bitpack.mx_quantize(x, fmt, axis=axis, scale_rule=rule)
                        deq, scales = mx_reference(x, fmt, axis % len(shape), rule)
                        np.testing.assert_array_equal(q.scales.view(np.uint8), scales)
                        np.testing.assert_array_equal(q.dequantize(), deq.astype(np.float32))
                        self.assertEqual(q.shape, shape)
                        self.assertEqual(q.axis, axis % len(shape))
                        # The parts make the same array again.
                        r = bitpack.MxArray.from_parts(q.codes, q.scales, fmt, shape, axis)
                        np.testing.assert_array_equal(r.dequantize(), q.dequantize())

    def test_mx_inputs_options_and_errors(self):
        x = self.rng.standard_normal((8, 64)).astype(np.float32)
        q32 = bitpack.mx_quantize(x, "float8_e4m3fn")
        for dtype in (np.float64, np.float16, ml_dtypes.bfloat16):
            xd = x.astype(dtype)
            qd = bitpack.mx_quantize(xd, "float8_e4m3fn")
            ref = bitpack.mx_quantize(xd.astype(np.float32), "float8_e4m3fn")
            if dtype != np.float64:  # exact widening: the same result
                np.testing.assert_array_equal(qd.codes, ref.codes)
        a = bitpack.mx_quantize(x, "float4_e2m1fn", stochastic_seed=9)
        b = bitpack.mx_quantize(x, "float4_e2m1fn", stochastic_seed=9)
        np.testing.assert_array_equal(a.codes, b.codes)
        sw = q32.scales_swizzled()
        self.assertEqual(sw.dtype, np.uint8)
        self.assertEqual(sw.size % 512, 0)
        self.assertEqual(sorted(sw[sw != 0].tolist()) == sorted(
            q32.scales.view(np.uint8)[q32.scales.view(np.uint8) != 0].tolist()), True)
        with self.assertRaisesRegex(ValueError, "not an MX element format"):
            bitpack.mx_quantize(x, "float8_e8m0fnu")
        with self.assertRaisesRegex(ValueError, "scale_rule"):
            bitpack.mx_quantize(x, "float8_e4m3fn", scale_rule="round")
        with self.assertRaisesRegex(ValueError, "out of range"):
            bitpack.mx_quantize(x, "float8_e4m3fn", axis=2)
        with self.assertRaises(ValueError):
            bitpack.MxArray.from_parts(q32.codes, q32.scales[:1], "float8_e4m3fn", (8, 64))

    def test_nvfp4(self):
        for tile in ((1, 16), (16, 16)):
            with self.subTest(tile=tile):
                x = self.rng.standard_normal((32, 48)).astype(np.float32)
                q = bitpack.nvfp4_quantize(x, tile=tile)
                amax = np.abs(x).max()
                self.assertAlmostEqual(q.tensor_scale, float(np.float32(amax) / np.float32(448 * 6)),
                                       delta=1e-12)
                self.assertEqual(q.scales.dtype, np.dtype(ml_dtypes.float8_e4m3fn))
                self.assertEqual(q.scales.shape, (32, 3))
                deq = q.dequantize()
                # Each value is its block's E2M1 grid point nearest x.
                s = q.scales.astype(np.float32).repeat(16, axis=1) * np.float32(q.tensor_scale)
                grid = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float32)
                err = np.abs(deq - x)
                best = np.min(np.abs(np.abs(x)[..., None] - grid * s[..., None]), -1)
                np.testing.assert_allclose(err, best, rtol=0, atol=1e-6 * amax)
                if tile == (16, 16):
                    sc = q.scales.astype(np.float32)
                    for r0 in range(0, 32, 16):
                        self.assertTrue((sc[r0:r0 + 16] == sc[r0]).all())
                r = bitpack.Nvfp4Array.from_parts(q.codes, q.scales, q.tensor_scale, q.shape)
                np.testing.assert_array_equal(r.dequantize(), deq)
        x = self.rng.standard_normal((4, 32)).astype(np.float32)
        given = bitpack.nvfp4_quantize(x, tensor_scale=0.01)
        self.assertEqual(given.tensor_scale, np.float32(0.01))
        with self.assertRaisesRegex(ValueError, "tile"):
            bitpack.nvfp4_quantize(x, tile=(2, 16))
        with self.assertRaisesRegex(ValueError, "finite and positive"):
            bitpack.nvfp4_quantize(x, tensor_scale=-1.0)
        with self.assertRaisesRegex(ValueError, "tiny_scale"):
            bitpack.nvfp4_quantize(x, tiny_scale="zero")
        with self.assertRaises(ValueError):
            bitpack.nvfp4_quantize(np.full((2, 16), np.nan, np.float32))


    def test_requantize_is_a_fresh_quantize(self):
        def same(a, b):
            np.testing.assert_array_equal(a.codes, b.codes)
            np.testing.assert_array_equal(a.scales.view(np.uint8), b.scales.view(np.uint8))

        x = self.rng.standard_normal((8, 64)).astype(np.float32)
        y = (self.rng.standard_normal((8, 64)) * 100).astype(np.float32)
        for fmt in ("float4_e2m1fn", "float6_e3m2fn", "float8_e4m3fn"):
            for axis in (0, 1):
                for rule, seed in (("floor", None), ("rceil", 5)):
                    with self.subTest(fmt=fmt, axis=axis, rule=rule, seed=seed):
                        q = bitpack.mx_quantize(x, fmt, axis=axis)
                        for data in (y, y.astype(ml_dtypes.bfloat16)):
                            q.requantize(data, scale_rule=rule, stochastic_seed=seed)
                            same(q, bitpack.mx_quantize(data, fmt, axis, rule, seed))
        for tile, ts, seed in (((1, 16), None, None), ((16, 16), 0.25, 3)):
            with self.subTest(tile=tile, tensor_scale=ts, seed=seed):
                x = self.rng.standard_normal((32, 48)).astype(np.float32)
                y = (x * 7).astype(np.float16)
                q = bitpack.nvfp4_quantize(x)
                q.requantize(y, tile=tile, tensor_scale=ts, stochastic_seed=seed)
                fresh = bitpack.nvfp4_quantize(y, tile=tile, tensor_scale=ts, stochastic_seed=seed)
                same(q, fresh)
                self.assertEqual(q.tensor_scale, fresh.tensor_scale)
        # Errors leave the array as it was.
        q = bitpack.nvfp4_quantize(np.ones((2, 16), np.float32))
        before = (q.codes.copy(), q.scales.view(np.uint8).copy(), q.tensor_scale)
        with self.assertRaisesRegex(ValueError, "needs a finite value"):
            q.requantize(np.full((2, 16), np.nan, np.float32))
        with self.assertRaisesRegex(ValueError, "finite and positive"):
            q.requantize(np.ones((2, 16), np.float32), tensor_scale=float("inf"))
        with self.assertRaisesRegex(ValueError, "shape"):
            q.requantize(np.ones((4, 8), np.float32))
        with self.assertRaisesRegex(ValueError, "tile"):
            q.requantize(np.ones((2, 16), np.float32), tile=(2, 16))
        np.testing.assert_array_equal(q.codes, before[0])
        np.testing.assert_array_equal(q.scales.view(np.uint8), before[1])
        self.assertEqual(q.tensor_scale, before[2])
        m = bitpack.mx_quantize(np.ones((2, 32), np.float32), "float8_e5m2")
        with self.assertRaisesRegex(ValueError, "shape"):
            m.requantize(np.ones(64, np.float32))
        with self.assertRaisesRegex(ValueError, "scale_rule"):
            m.requantize(np.ones((2, 32), np.float32), scale_rule="round")
        np.testing.assert_array_equal(m.dequantize(), np.ones((2, 32), np.float32))


@unittest.skipIf(MISSING is not None, MISSING or "")
class Integers(unittest.TestCase):
    def test_every_width_both_signs(self):
        rng = np.random.default_rng(9)
        for bits in range(1, 65):
            for signed in (False, True):
                with self.subTest(bits=bits, signed=signed):
                    if signed:
                        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
                    else:
                        lo, hi = 0, (1 << bits) - 1
                    dtype = np.int64 if signed or bits < 64 else np.uint64
                    n = 301
                    v = rng.integers(lo, hi, n, dtype=dtype, endpoint=True)
                    v[:2] = [lo, hi]
                    p = bitpack.pack(v, bits, signed=signed)
                    self.assertEqual(p.size, (n * bits + 7) // 8)
                    ints = int.from_bytes(p.tobytes(), "little")
                    mask = (1 << bits) - 1
                    for i in (0, 1, 150, 300):
                        self.assertEqual((ints >> (i * bits)) & mask, int(v[i]) & mask)
                    back = bitpack.unpack(p, bits, n, signed=signed)
                    self.assertEqual(back.dtype.itemsize * 8, 8 if bits <= 8 else 16 if bits <= 16
                                     else 32 if bits <= 32 else 64)
                    self.assertEqual(back.dtype.kind, "i" if signed else "u")
                    np.testing.assert_array_equal(back.astype(dtype), v)

    def test_errors_name_the_value(self):
        with self.assertRaisesRegex(ValueError, r"value 16 at index 2 does not fit in 4 unsigned bits"):
            bitpack.pack(np.array([1, 2, 16]), 4)
        with self.assertRaisesRegex(ValueError, r"value -1 at index 0"):
            bitpack.pack(np.array([-1]), 4)
        with self.assertRaisesRegex(ValueError, "bits must be 1..=64"):
            bitpack.pack(np.array([1]), 65)
        with self.assertRaisesRegex(ValueError, "needs 2 bytes; the buffer has 1"):
            bitpack.unpack(np.zeros(1, np.uint8), 4, 3)
        with self.assertRaises(TypeError):
            bitpack.pack(np.ones(3, np.float32), 4)

    @unittest.skipIf(pa is None, "needs pyarrow")
    def test_bitmaps_are_arrows(self):
        rng = np.random.default_rng(1)
        for n in (0, 1, 7, 8, 9, 64, 65, 1000):
            bools = rng.integers(0, 2, n).astype(bool)
            bitmap = bitpack.pack(bools, 1).tobytes()
            arr = pa.Array.from_buffers(pa.bool_(), n, [None, pa.py_buffer(bitmap)])
            self.assertEqual(arr.to_pylist(), bools.tolist())
            theirs = pa.array(bools.tolist(), pa.bool_())
            self.assertEqual(theirs.buffers()[1].to_pybytes()[: len(bitmap)], bitmap)
            back = bitpack.unpack(np.frombuffer(theirs.buffers()[1], np.uint8), 1, n)
            self.assertEqual(back.astype(bool).tolist(), bools.tolist())


@unittest.skipIf(MISSING is not None, MISSING or "")
class Dlpack(unittest.TestCase):
    SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 0, 3), (2, 3, 5)]

    def test_numpy_arrays_import_without_a_copy(self):
        rng = np.random.default_rng(2)
        for dtype in (np.uint8, np.int16, np.int32, np.uint64, np.float16, np.float32, np.float64, np.bool_):
            for shape in self.SHAPES:
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape):
                    a = rng.integers(0, 100, shape).astype(dtype)
                    b = bitpack.from_dlpack(a)
                    self.assertEqual((b.dtype, b.shape), (a.dtype, a.shape))
                    np.testing.assert_array_equal(a, b)
                    if a.size:
                        self.assertEqual(b.__array_interface__["data"][0], a.__array_interface__["data"][0])
        base = np.arange(48, dtype=np.int32).reshape(6, 8)
        for view in (base[:, ::2], base[::-1], base.T, np.broadcast_to(base[0], (3, 8))):
            np.testing.assert_array_equal(bitpack.from_dlpack(view), view)
        ro = np.arange(5, dtype=np.uint8)
        ro.setflags(write=False)
        self.assertFalse(bitpack.from_dlpack(ro).flags.writeable)
        huge = np.broadcast_to(np.uint8(3), (2**40,))
        self.assertEqual(bitpack.from_dlpack(huge).shape, (2**40,))

    def test_codes_export_with_their_format(self):
        x = np.random.default_rng(4).standard_normal((5, 6)).astype(np.float32)
        for fmt in SMALL + ["bfloat16"]:
            with self.subTest(fmt=fmt):
                c = bitpack.encode(x, fmt)
                back = bitpack.from_dlpack(c)
                self.assertEqual((back.dtype, back.shape), (c.dtype, c.shape))
                np.testing.assert_array_equal(codes_u8(back), codes_u8(c))
                self.assertEqual(back.__array_interface__["data"][0], c.__array_interface__["data"][0])
                t = bitpack.from_dlpack(c[:, ::2])
                np.testing.assert_array_equal(codes_u8(t), codes_u8(c)[:, ::2])
        # Packed FP4 exports as torch's float4_e2m1fn_x2 (two lanes).
        p = bitpack.encode(x, "float4_e2m1fn", packed=True)
        q = bitpack.from_dlpack(p)
        self.assertEqual((q.shape, q.bitpack_format, q.bitpack_cols), ((5, 3), "float4_e2m1fn", 6))
        np.testing.assert_array_equal(bitpack.decode(q), bitpack.decode(p))
        # FP6 rows of whole bytes export as a stream in values.
        p6 = bitpack.encode(self_data := x[:, :4], "float6_e2m3fn", packed=True)
        q6 = bitpack.from_dlpack(p6)
        np.testing.assert_array_equal(bitpack.decode(q6), bitpack.decode(bitpack.encode(self_data, "float6_e2m3fn")))
        with self.assertRaisesRegex(BufferError, "end inside a byte"):
            bitpack.encode(x[:, :5], "float6_e2m3fn", packed=True).__dlpack__(max_version=(1, 0))
        # numpy has no FP8 dtype: it refuses cleanly; uint8 views go through.
        c = bitpack.encode(x, "float8_e4m3fn")
        with self.assertRaises((BufferError, TypeError, RuntimeError)) as cm:
            np.from_dlpack(c)
        self.assertNotIsInstance(cm.exception, SystemError)
        np.testing.assert_array_equal(np.from_dlpack(c.view(np.uint8)), c.view(np.uint8))
        # An unconsumed capsule frees its export; an old consumer is refused.
        cap = c.__dlpack__(max_version=(1, 0))
        del cap
        with self.assertRaisesRegex(BufferError, "DLPack 1.x"):
            c.__dlpack__()
        self.assertEqual(c.__dlpack_device__(), (1, 0))

    def test_bad_capsules_are_refused(self):
        class Old:
            def __dlpack__(self, stream=None):
                return np.zeros(3).__dlpack__()

        with self.assertRaisesRegex(BufferError, "max_version"):
            bitpack.from_dlpack(Old())
        a = np.zeros(3)
        cap = a.__dlpack__(max_version=(1, 0))
        bitpack._bitpack.dlpack_import(cap)
        with self.assertRaisesRegex(BufferError, "unconsumed"):
            bitpack._bitpack.dlpack_import(cap)


@unittest.skipIf(MISSING is not None or TORCH_MISSING is not None, MISSING or TORCH_MISSING or "")
class Torch(unittest.TestCase):
    """PyTorch's DLPack: float8 byte for byte, float4_e2m1fn_x2 both ways,
    and torch tensors as inputs."""

    def test_float8_both_ways(self):
        x = (np.random.default_rng(7).standard_normal((20, 30)) * 40).astype(np.float32)
        for fmt, tdtype in (("float8_e4m3fn", torch.float8_e4m3fn), ("float8_e5m2", torch.float8_e5m2)):
            with self.subTest(fmt=fmt):
                c = bitpack.encode(x, fmt)
                t = torch.from_dlpack(c)
                self.assertEqual((t.dtype, tuple(t.shape)), (tdtype, (20, 30)))
                ref = torch.from_numpy(x).to(tdtype)
                self.assertTrue(torch.equal(t.view(torch.uint8), ref.view(torch.uint8)))
                # Shared memory: a write through torch shows in numpy.
                t.view(torch.uint8)[0, 0] = 0
                self.assertEqual(c.view(np.uint8)[0, 0], 0)
                back = bitpack.from_dlpack(ref.T)
                np.testing.assert_array_equal(back.view(np.uint8), ref.T.view(torch.uint8).numpy())

    def test_float4_e2m1fn_x2_both_ways(self):
        rng = np.random.default_rng(8)
        for rows, cols in ((1, 2), (3, 32), (4, 6), (0, 8)):
            with self.subTest(rows=rows, cols=cols):
                x = rng.uniform(-7, 7, (rows, cols)).astype(np.float32)
                p = bitpack.encode(x, "float4_e2m1fn", packed=True)
                t = torch.from_dlpack(p)
                self.assertEqual((t.dtype, tuple(t.shape)), (torch.float4_e2m1fn_x2, (rows, cols // 2)))
                np.testing.assert_array_equal(t.view(torch.uint8).numpy(), p.view(np.uint8))
                back = bitpack.from_dlpack(t)
                np.testing.assert_array_equal(bitpack.decode(back), x.astype(ml_dtypes.float4_e2m1fn).astype(np.float32))

    def test_torch_tensors_as_inputs(self):
        x = torch.randn(64, 32)
        for src in (x, x.to(torch.bfloat16), x.to(torch.float16), x.T, x.double()):
            with self.subTest(dtype=str(src.dtype), contiguous=src.is_contiguous()):
                got = bitpack.encode(src, "float8_e4m3fn")
                ref = src.float().numpy().astype(ml_dtypes.float8_e4m3fn)
                np.testing.assert_array_equal(got.view(np.uint8), ref.view(np.uint8))
        q = bitpack.mx_quantize(x.to(torch.bfloat16), "float4_e2m1fn")
        self.assertEqual(q.shape, (64, 32))


if __name__ == "__main__":
    unittest.main(verbosity=2)
