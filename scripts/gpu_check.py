#!/usr/bin/env python3
"""GPU check of bitpack's committed PTX kernels, with CuPy and no Rust.

Loads every committed build the device runs (bitpack/ptx/TARGETS: sm_80
from compute capability 8.0, sm_89 from 8.9, sm_90 from 9.0, sm_100a on
10.0, sm_120a on 12.0), and in phases, each under a time budget:

1. checks every kernel on random data (1, 31, 4096 and 2^20 + 7 values)
   and on the conformance vectors against a numpy reference of the crate's
   host rules, and the builds against each other, byte for byte;
2. checks MX (every format and scale rule) and NVFP4 (rows, tiles, tiny
   scale rules, the device amax) the same way;
3. times about 30 kernels at 2^28 values (far above the L2 cache, which is
   flushed before every launch) against cudaMemcpy device to device of the
   same bytes, on the newest build and on the builds of --compare-ptx;
4. feeds bitpack's E4M3 bytes to an FP8 GEMM (torch._scaled_mm, cuBLASLt)
   and checks it against the product of the decoded values;
5. repeats the checks at 2^26 values.

Every row is written as soon as it is known, under --out-dir: log.txt,
checks.tsv, timings.tsv, and GPU.md (the summary, rewritten after every
phase), so a run that is stopped keeps what it did.

    python3 scripts/gpu_check.py --out-dir DIR [--budget S] [--compare-ptx OLD] [--quick]
    python3 scripts/gpu_check.py --self-test   # the numpy reference against
                                               # tests/conformance (no GPU)

Exit status: 0 all equal, 1 a mismatch, 2 no CuPy or no usable GPU.
"""
import argparse
import datetime
import os
import signal
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTX_DIR = os.path.join(ROOT, "bitpack", "ptx")
CONFORMANCE = os.path.join(ROOT, "tests", "conformance")
ENTRIES = set(open(os.path.join(PTX_DIR, "ENTRIES")).read().split())
THREADS = 256

# name: (bits, exponent bits, mantissa bits, bias, specials)
FORMATS = {
    "e2m1": (4, 2, 1, 1, "finite"),
    "e2m3": (6, 2, 3, 1, "finite"),
    "e3m2": (6, 3, 2, 3, "finite"),
    "e4m3": (8, 4, 3, 7, "allones_nan"),
    "e5m2": (8, 5, 2, 15, "ieee"),
    "e8m0": (8, 8, 0, 127, "e8m0"),
}
CONFORMANCE_NAMES = {
    "e2m1": "float4_e2m1fn",
    "e2m3": "float6_e2m3fn",
    "e3m2": "float6_e3m2fn",
    "e4m3": "float8_e4m3fn",
    "e5m2": "float8_e5m2",
    "e8m0": "float8_e8m0fnu",
}

# ---------------------------------------------------------------------------
# The numpy reference (the crate's host rules; see bitpack::formats)
# ---------------------------------------------------------------------------


def decode_table(name):
    """float64 value of every code (NaN for NaN codes)."""
    bits, e, m, bias, kind = FORMATS[name]
    out = np.empty(1 << bits, dtype=np.float64)
    for c in range(1 << bits):
        if kind == "e8m0":
            out[c] = np.nan if c == 0xFF else 2.0 ** (c - 127)
            continue
        s = -1.0 if (c >> (e + m)) & 1 else 1.0
        E = (c >> m) & ((1 << e) - 1)
        M = c & ((1 << m) - 1)
        if kind == "ieee" and E == (1 << e) - 1:
            out[c] = s * np.inf if M == 0 else np.nan
        elif kind == "allones_nan" and E == (1 << e) - 1 and M == (1 << m) - 1:
            out[c] = np.nan
        elif E == 0:
            out[c] = s * (M / 2.0**m) * 2.0 ** (1 - bias)
        else:
            out[c] = s * (1 + M / 2.0**m) * 2.0 ** (E - bias)
    return out


def is_nan_code(name, codes):
    return np.isnan(decode_table(name)[codes])


def encode_ref(name, x, satfinite):
    """Codes of float32 array x (round to nearest, ties to even; E8M0 ties
    away), with the overflow, infinity and NaN rules of each mode."""
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(invalid="ignore"):
        return _encode(name, x, satfinite, np.abs(x.astype(np.float64)))


def _encode(name, x, satfinite, mag):
    bits, e, m, bias, kind = FORMATS[name]
    table = decode_table(name)
    if kind == "e8m0":
        pos = table[:0xFF]
        maxc = 0xFE
    else:
        pos = table[: 1 << (e + m)]
        maxc = int(np.nonzero(np.isfinite(pos))[0].max())
        pos = pos[: maxc + 1]
    maxv = pos[-1]
    idx = np.searchsorted(pos, mag, side="left")
    lo = np.clip(idx - 1, 0, maxc)
    hi = np.clip(idx, 0, maxc)
    dlo = np.abs(mag - pos[lo])
    dhi = np.abs(pos[hi] - mag)
    if kind == "e8m0":
        pick_hi = dhi <= dlo  # ties away from zero
    else:
        pick_hi = (dhi < dlo) | ((dhi == dlo) & (hi % 2 == 0))
    code = np.where(pick_hi, hi, lo).astype(np.int64)
    code = np.where(idx == 0, 0, code)
    # Past the largest finite value (infinities included).
    ulp = maxv - pos[-2] if kind != "e8m0" else maxv
    thr = maxv + ulp / 2  # the midpoint to the next (virtual) value
    over = mag > maxv
    nan = np.isnan(x)
    neg = np.signbit(x)
    if kind == "e8m0":
        nanc = 0xFF
        if satfinite:
            code = np.where(over, maxc, code)
            code = np.where(~over & ((x <= 0) | neg), nanc, code)
        else:
            code = np.where(mag >= thr, nanc, np.where(over, maxc, code))
            code = np.where((x <= 0) | neg, nanc, code)
        return np.where(nan, nanc, code).astype(np.uint8)
    sign = neg.astype(np.int64) << (e + m)
    if satfinite:
        code = np.where(over, maxc, code)
    elif kind == "finite":
        code = np.where(over, maxc, code)
    elif kind == "allones_nan":
        nan_mag = (1 << (e + m)) - 1
        code = np.where(mag > thr, nan_mag, np.where(over, maxc, code))
    else:  # ieee
        inf_mag = ((1 << e) - 1) << m
        code = np.where(mag >= thr, inf_mag, np.where(over, maxc, code))
    code = code | sign
    if kind == "finite":
        # NaN: the positive maximum (satfinite, as PTX); a zero of the
        # opposite sign (round to nearest, as the reference library).
        nan_code = np.where(neg, 0, 1 << (e + m)) if not satfinite else maxc
        code = np.where(nan, nan_code, code)
    elif kind == "allones_nan":
        code = np.where(nan, ((1 << (e + m)) - 1) | sign, code)
    else:
        code = np.where(nan, (((1 << e) - 1) << m) | (1 << (m - 1)) | sign, code)
    return code.astype(np.uint8)


CHUNK = 1 << 16  # values per step: a multiple of 64, so steps start on words


def pack_ref(codes, width):
    """The dense LSB-first stream of `codes` (width bits each) as u64 words."""
    codes = np.asarray(codes, dtype=np.uint64)
    n = codes.size
    nwords = max(1, (n * width + 63) // 64)
    out = np.zeros(nwords * 8, dtype=np.uint8)
    shifts = np.arange(width, dtype=np.uint64)
    for s in range(0, n, CHUNK):
        c = codes[s : s + CHUNK]
        bits = ((c[:, None] >> shifts) & 1).astype(np.uint8)
        packed = np.packbits(bits.reshape(-1), bitorder="little")
        o = s * width // 8
        out[o : o + packed.size] = packed
    return out.view("<u8").astype(np.uint64)


def unpack_ref(words, width, n):
    b = np.asarray(words, dtype="<u8").view(np.uint8)
    out = np.empty(n, dtype=np.uint64)
    shifts = np.arange(width, dtype=np.uint64)
    for s in range(0, n, CHUNK):
        k = min(CHUNK, n - s)
        o = s * width // 8
        seg = b[o : o + (k * width + 7) // 8]
        bits = np.unpackbits(seg, bitorder="little")[: k * width].reshape(k, width).astype(np.uint64)
        out[s : s + k] = (bits << shifts).sum(axis=1, dtype=np.uint64)
    return out


def f16_bits(v):
    return np.asarray(v, dtype=np.float32).astype(np.float16).view(np.uint16)


def bf16_bits(v):
    """Round to nearest even, as half::bf16::from_f32 (NaN kept quiet)."""
    u = np.asarray(v, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    nan = np.isnan(np.asarray(v, dtype=np.float32))
    r = np.where(nan, (u >> 16) | 0x40, r)
    return r.astype(np.uint16)



# ---------------------------------------------------------------------------
# Block scaling: MX (32-blocks, E8M0 scale) and NVFP4 (16-blocks, E4M3
# scale, f32 tensor scale), blocks along the last axis of [rows, cols]
# ---------------------------------------------------------------------------

MX_EMAX = {"e2m1": 2, "e2m3": 2, "e3m2": 4, "e4m3": 8, "e5m2": 15}
MX_RULES = {"floor": 0, "ceil": 1, "even": 2, "rceil": 3}
MIDS = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0])
BLOCK_VECTORS = os.path.join(ROOT, "tests", "block-vectors", "block_scaled.tsv")


def _quiet(f):
    """Runs `f` with numpy's floating-point warnings off: NaN and infinite
    blocks are handled by masks, not by the arithmetic."""
    def run(*a, **k):
        with np.errstate(all="ignore"):
            return f(*a, **k)
    return run


def _blocks(x, rows, cols, size):
    """x as [rows, ceil(cols / size), size], padded with zeros."""
    nb = (cols + size - 1) // size
    xp = np.zeros((rows, nb * size), dtype=np.float32)
    xp[:, :cols] = np.asarray(x, dtype=np.float32).reshape(rows, cols)
    return xp.reshape(rows, nb, size)


def _amax(xb):
    """(largest |x| as float64, all finite) per block: the bit maximum."""
    m = (xb.view(np.uint32) & np.uint32(0x7FFFFFFF)).max(axis=-1)
    return m.view(np.float32).astype(np.float64), m < 0x7F800000


@_quiet
def mx_ref(name, x, rows, cols, rule):
    """(scale codes [rows * nb], value codes [rows * cols]) of MX."""
    xb = _blocks(x, rows, cols, 32)
    amax, finite = _amax(xb)
    emax = MX_EMAX[name]
    mbits = FORMATS[name][2]
    maxv = decode_table(name)[np.isfinite(decode_table(name))].max()
    with np.errstate(divide="ignore", invalid="ignore"):
        mant, ex = np.frexp(amax)  # amax = mant * 2^ex, mant in [0.5, 1)
    sig = 2 * mant  # the significand in [1, 2)
    fl = ex - 1
    if rule == "floor":
        e = fl - emax
    elif rule == "ceil":
        e = fl + (sig != 1.0) - emax
    elif rule == "even":
        e = fl + (sig >= 2.0 - 2.0 ** -(mbits + 1)) - emax
    else:  # rceil
        e = fl - emax + (sig > 2 * np.frexp(maxv)[0])
    e = np.where(amax == 0, -127, np.maximum(e, -127)).astype(np.int64)
    scales = np.where(finite, e + 127, 0xFF).astype(np.uint8)
    factor = np.ldexp(np.float32(1.0), (-e).astype(np.int32)).astype(np.float32)
    scaled = (xb * factor[..., None]).astype(np.float32)
    codes = encode_ref(name, scaled.reshape(-1), True).reshape(xb.shape)
    codes = np.where(finite[..., None], codes, 0).astype(np.uint8)
    return scales.reshape(-1), codes.reshape(rows, -1)[:, :cols].reshape(-1)


@_quiet
def mx_dequant_ref(name, codes, scales, rows, cols):
    vals = decode_table(name)[codes.astype(np.int64)].astype(np.float32).reshape(rows, cols)
    s = scales.reshape(rows, -1).astype(np.int64)
    f = np.where(s == 0xFF, np.float32(np.nan), np.ldexp(np.float32(1.0), (s - 127).astype(np.int32)))
    f = np.repeat(f.astype(np.float32), 32, axis=1)[:, :cols]
    with np.errstate(invalid="ignore"):
        return (vals * f).astype(np.float32).reshape(-1)


def nvfp4_default_scale(x):
    m = np.asarray(x, dtype=np.float32).view(np.uint32) & np.uint32(0x7FFFFFFF)
    m = m[m < 0x7F800000]
    amax = np.float32(m.max().view(np.float32)) if m.size else np.float32(0)
    s = np.float32(amax / np.float32(2688.0))
    return s if s > 0 else np.float32(1.0)


@_quiet
def nvfp4_ref(x, rows, cols, tensor_scale=None, tiny="flush", tiles=False, matrix_rows=None):
    """(scale codes, value codes, tensor scale) of NVFP4 (round to nearest)."""
    st = nvfp4_default_scale(x) if tensor_scale is None else np.float32(tensor_scale)
    xb = _blocks(x, rows, cols, 16)
    amax, finite = _amax(xb)
    if tiles:
        mr = matrix_rows or rows
        for m0 in range(0, rows, mr):
            for r0 in range(m0, min(m0 + mr, rows), 16):
                r1 = min(r0 + 16, m0 + mr, rows)
                amax[r0:r1] = amax[r0:r1].max(axis=0)
                finite[r0:r1] = finite[r0:r1].all(axis=0)
    q = amax / (6.0 * np.float64(st))
    sc = _encode("e4m3", q.astype(np.float32), True, q).astype(np.int64)
    if tiny == "smallest":
        sc = np.where(sc == 0, 1, sc)
    elif tiny == "minnormal":
        sc = np.where(sc < 8, 8, sc)
    sc = np.where(finite, sc, 0x7F)
    d = decode_table("e4m3")[sc] * np.float64(st)
    a = np.abs(xb.astype(np.float64))
    t = MIDS[None, None, None, :] * d[..., None, None]
    with np.errstate(invalid="ignore"):
        code = ((a[..., None] > t) & np.array([1, 0, 1, 0, 1, 0, 1], dtype=bool)) | (
            (a[..., None] >= t) & np.array([0, 1, 0, 1, 0, 1, 0], dtype=bool))
    code = code.sum(axis=-1).astype(np.int64)
    sign = np.signbit(xb).astype(np.int64) << 3
    code = np.where((d == 0)[..., None], 0, code) | sign
    code = np.where(finite[..., None], code, 0).astype(np.uint8)
    return sc.astype(np.uint8).reshape(-1), code.reshape(rows, -1)[:, :cols].reshape(-1), st


@_quiet
def nvfp4_dequant_ref(codes, scales, st, rows, cols):
    vals = decode_table("e2m1")[codes.astype(np.int64)].reshape(rows, cols)
    s = decode_table("e4m3")[scales.astype(np.int64)].reshape(rows, -1) * np.float64(st)
    s = np.repeat(s, 16, axis=1)[:, :cols]
    with np.errstate(invalid="ignore"):
        return (vals * s).astype(np.float32).reshape(-1)


def block_vectors_self_test():
    """The numpy MX/NVFP4 reference against the crate's committed vectors."""
    bad = 0
    h, rows_ = read_tsv(BLOCK_VECTORS)
    col = {k: i for i, k in enumerate(h)}
    x = None
    for r in rows_:
        kind, name, rule, shape = r[col["kind"]], r[col["format"]], r[col["rule"]], r[col["shape"]]
        dims = [int(d) for d in shape.split("x")]
        cols = dims[-1]
        rows = int(np.prod(dims[:-1]))
        if kind == "input":
            x = np.array([int(v, 16) for v in r[col["input_f32"]].split(",")], dtype=np.uint32).view(np.float32)
            continue
        want_s = np.frombuffer(bytes.fromhex(r[col["scales"]]), dtype=np.uint8)
        want_c = np.frombuffer(bytes.fromhex(r[col["codes"]]), dtype=np.uint8)
        if kind == "mx":
            got_s, got_c = mx_ref(name, x, rows, cols, rule)
            st_ok = True
        else:
            blocks, tiny = rule.split("-")
            st = np.uint32(int(r[col["tensor_scale"]], 16)).view(np.float32)
            given = None if tiny == "flush" else st
            got_s, got_c, got_st = nvfp4_ref(x, rows, cols, given, tiny, blocks == "tiles",
                                             dims[-2] if len(dims) >= 2 else 1)
            st_ok = np.float32(got_st).view(np.uint32) == st.view(np.uint32)
        if not (np.array_equal(got_s, want_s) and np.array_equal(got_c, want_c) and st_ok):
            bad += 1
            print(f"self-test: {kind} {name} {rule} {shape}: scales differ at "
                  f"{np.nonzero(got_s != want_s)[0][:5]}, codes at {np.nonzero(got_c != want_c)[0][:5]}")
    return bad

# ---------------------------------------------------------------------------
# Self-test of the reference (no GPU)
# ---------------------------------------------------------------------------


def read_tsv(path):
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    return header, rows


def conformance_rows(name, mode):
    h, rows = read_tsv(os.path.join(CONFORMANCE, f"{CONFORMANCE_NAMES[name]}.encode_{mode}.tsv"))
    ci, co, cn, note = h.index("input_f32"), h.index("output"), h.index("out_is_nan"), h.index("note")
    x = np.array([int(r[ci], 16) for r in rows], dtype=np.uint32).view(np.float32)
    want = np.array([int(r[co], 16) for r in rows], dtype=np.int64)
    want_nan = np.array([r[cn] == "1" for r in rows])
    # bitpack rounds f32 subnormals to E8M0 to nearest (a documented
    # departure from the reference library on these rows).
    departs = np.array([r[note] == "e8m0_f32sub_round_up" for r in rows])
    return x, want, want_nan, departs


def self_test():
    bad = 0
    for name in FORMATS:
        for mode in ("rn", "satfinite"):
            x, want, want_nan, departs = conformance_rows(name, mode)
            got = encode_ref(name, x, mode == "satfinite").astype(np.int64)
            ok = np.where(want_nan, is_nan_code(name, got), got == want) | departs
            if departs.any():
                # Round to nearest (ties away) between 2^-127 and 2^-126.
                mid = 1.5 * 2.0**-127
                exp = np.where(np.abs(x[departs].astype(np.float64)) >= mid, 1, 0)
                ok[departs] = got[departs] == exp
            if not ok.all():
                bad += 1
                i = np.nonzero(~ok)[0][:5]
                print(f"self-test: {name} {mode}: {(~ok).sum()} rows differ, e.g. inputs "
                      f"{[hex(v) for v in x[i].view(np.uint32)]} got {got[i]} want {want[i]}")
        h, rows = read_tsv(os.path.join(CONFORMANCE, f"{CONFORMANCE_NAMES[name]}.decode.tsv"))
        codes = np.array([int(r[0], 16) for r in rows])
        vals = np.array([int(r[1], 16) for r in rows], dtype=np.uint32).view(np.float32)
        t = decode_table(name)[codes].astype(np.float32)
        ok = (t.view(np.uint32) == vals.view(np.uint32)) | (np.isnan(t) & np.isnan(vals))
        if not ok.all():
            bad += 1
            print(f"self-test: {name} decode: {(~ok).sum()} codes differ")
    # Packing round trip against numpy's own little-endian packbits.
    rng = np.random.default_rng(1)
    for w in (1, 3, 5, 8, 12, 17, 32):
        v = rng.integers(0, 1 << w, size=1000, dtype=np.uint64)
        words = pack_ref(v, w)
        if not (unpack_ref(words, w, v.size) == v).all():
            bad += 1
            print(f"self-test: pack/unpack width {w} differs")
    b = pack_ref(np.array([1, 0, 1], dtype=np.uint64), 1).view(np.uint8)[0]
    if b != np.packbits([1, 0, 1], bitorder="little")[0]:
        bad += 1
    bad += block_vectors_self_test()
    print("self-test: the numpy reference " + ("FAILS" if bad else
          "agrees with tests/conformance and tests/block-vectors"))
    return 1 if bad else 0


# ---------------------------------------------------------------------------
# The device check
# ---------------------------------------------------------------------------


def block_elems(w):
    g = 1 << min((w & -w).bit_length() - 1, 6)
    return 64 // g


def random_floats(rng, n):
    """Mostly the formats' ranges, plus every class of f32 (about 1 in 8)."""
    bits = rng.integers(0, 1 << 32, size=n, dtype=np.uint64).astype(np.uint32)
    exp = (100 + (bits >> 8) % 60).astype(np.uint32)
    ranged = (bits & np.uint32(0x807FFFFF)) | (exp << np.uint32(23))
    pick = (bits >> np.uint32(3)) % 8 == 0
    return np.where(pick, bits, ranged).view(np.float32)


def read_targets():
    """The committed builds of bitpack/ptx/TARGETS: (target, (major, minor),
    exact), newest first."""
    out = []
    with open(os.path.join(PTX_DIR, "TARGETS")) as f:
        for line in f:
            if line.startswith("#") or not line.split():
                continue
            target, _ptx, cap, runs = line.split()[:4]
            major, minor = (int(v) for v in cap.split("."))
            out.append((target, (major, minor), runs == "exact"))
    return out


def loadable(cc, cap, exact):
    """Whether a build for `cap` runs on compute capability `cc` (e.g. 90)."""
    want = cap[0] * 10 + cap[1]
    return cc == want if exact else cc >= want


class Device:
    """The GPU and every committed build it can load (newest first), plus
    the builds of `extra_dir` (another set of PTX files, e.g. an earlier
    revision's, under the label `extra_label`) for the timings."""

    def __init__(self, cp, extra_dir=None, extra_label="before"):
        self.cp = cp
        dev = cp.cuda.Device()
        self.cc = int(dev.compute_capability)
        props = cp.cuda.runtime.getDeviceProperties(dev.id)
        self.name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        self.l2_bytes = int(props.get("l2CacheSize", 0)) if hasattr(props, "get") else 0
        self.sms = int(props.get("multiProcessorCount", 0)) if hasattr(props, "get") else 0
        self.builds = {}
        self.load_errors = {}
        for target, cap, exact in read_targets():
            if loadable(self.cc, cap, exact):
                try:
                    self.builds[target] = cp.RawModule(path=os.path.join(PTX_DIR, f"bitpack-{target}.ptx"))
                except Exception as e:  # the driver rejects the PTX (ISA version, ...)
                    self.load_errors[target] = f"{type(e).__name__}: {e}"
        self.extra = {}
        if extra_dir and self.builds:
            # The same target as the newest build loaded, from the other set.
            target = next(iter(self.builds))
            path = os.path.join(extra_dir, f"bitpack-{target}.ptx")
            if os.path.exists(path):
                try:
                    self.extra[f"{extra_label} {target}"] = cp.RawModule(path=path)
                except Exception as e:
                    self.load_errors[f"{extra_label} {target}"] = f"{type(e).__name__}: {e}"

    def launch(self, build, kernel, units, args):
        """`kernel` over `units` threads (CTAs of THREADS) with `args`."""
        f = self.builds[build].get_function(kernel)
        grid = max(1, (units + THREADS - 1) // THREADS)
        f((grid,), (THREADS,), args)
        self.cp.cuda.Device().synchronize()

    def launch_module(self, module, kernel, units, args):
        f = module.get_function(kernel)
        f((max(1, (units + THREADS - 1) // THREADS),), (THREADS,), args)
        self.cp.cuda.Device().synchronize()

    def run(self, build, kernel, a, n, out, units):
        self.launch(build, kernel, units, (a, np.uint64(n), out))


def block_shapes(n):
    """[rows, cols] shapes of n values for the block-scaled checks: one row,
    and a matrix where n factors (with a tail block when cols % 32 != 0)."""
    if n > (1 << 21):
        return [(n // 8192, 8192)] if n % 8192 == 0 else [(1, n)]
    out = [(1, n)]
    for cols in (64, 70):
        if n % cols == 0 and n > cols:
            out.append((n // cols, cols))
    return out


def check_blocks(dev, sizes, report, failures):
    """MX (every format, every rule) and NVFP4 (rows and tiles) against the
    numpy reference, every build, and the builds against each other."""
    cp = dev.cp
    rng = np.random.default_rng(99)

    def record(family, ok, what):
        record_check(report, failures, family, ok, what)

    # 2310 = 33 x 70: rows of two full MX blocks and a 6-value tail.
    for n in sorted(set(sizes) | {2310}):
        big = n > (1 << 21)
        x = random_floats(rng, n)
        d_x = cp.asarray(x)
        for rows, cols in block_shapes(n):
            u64 = np.uint64
            for name in MX_EMAX:
                if big and name not in ("e2m1", "e4m3"):
                    continue
                bits = FORMATS[name][0]
                for rule, code in MX_RULES.items():
                    if big and (name, rule) not in (("e2m1", "floor"), ("e4m3", "rceil")):
                        continue
                    want_s, want_c = mx_ref(name, x, rows, cols, rule)
                    need = (n * bits + 63) // 64
                    seen = []
                    for build in dev.builds:
                        sc = cp.full(max(want_s.size, 4), 0xAA, dtype=np.uint8)
                        words = cp.full(max(need, 1), 0xFFFFFFFFFFFFFFFF, dtype=np.uint64)
                        # One pass: codes and scales (flags 0: nearest, row-major).
                        dev.launch(build, f"mx_quantize_{name}", (n + 31) // 32,
                                   (d_x, u64(rows), u64(cols), u64(1), np.uint32(code), u64(0), np.uint32(0),
                                    words, sc))
                        got_s = cp.asnumpy(sc)[: want_s.size]
                        got_w = cp.asnumpy(words)[:need]
                        got_c = unpack_ref(got_w, bits, n)
                        ok = np.array_equal(got_s, want_s) and np.array_equal(got_c, want_c.astype(np.uint64))
                        record("mx quantize", ok, f"{build} mx_{name} {rule} {rows}x{cols}")
                        out = cp.zeros(max(n, 1), dtype=np.float32)
                        dev.launch(build, f"mx_dequantize_{name}", (n + 31) // 32,
                                   (words, u64(rows), u64(cols), u64(1), sc, out))
                        want = mx_dequant_ref(name, want_c, want_s, rows, cols)
                        got = cp.asnumpy(out)[:n]
                        ok = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
                        record("mx dequantize", bool(ok.all()), f"{build} mx_dequantize_{name} {rule} {rows}x{cols}")
                        seen.append((got_s.tobytes(), got_w.tobytes()))
                    record("builds agree", len(set(seen)) <= 1, f"mx_{name} {rule} {rows}x{cols}: the builds differ")
            for tiles, tiny in ((False, "flush"), (False, "minnormal"), (True, "flush")):
                if big and (tiles or tiny != "flush"):
                    continue
                want_s, want_c, st = nvfp4_ref(x, rows, cols, None, tiny, tiles, rows)
                need = (n * 4 + 63) // 64
                seen = []
                for build in dev.builds:
                    if not tiles and tiny == "flush":
                        # The default tensor scale: the device amax.
                        ctas = min(1024, max(1, (n + 8 * THREADS - 1) // (8 * THREADS)))
                        part = cp.zeros(ctas * THREADS // 32, dtype=np.uint32)
                        dev.launch(build, "amax_partials", ctas * THREADS, (d_x, u64(n), part))
                        amax = np.uint32(cp.asnumpy(part).max()).view(np.float32)
                        dst = np.float32(amax / np.float32(2688.0))
                        dst = dst if dst > 0 else np.float32(1.0)
                        record("nvfp4 tensor scale", dst.view(np.uint32) == np.float32(st).view(np.uint32),
                               f"{build} amax_partials n={n}")
                    sc = cp.full(max(want_s.size, 4), 0xAA, dtype=np.uint8)
                    words = cp.full(max(need, 1), 0xFFFFFFFFFFFFFFFF, dtype=np.uint64)
                    dev.launch(build, "nvfp4_quantize", (n + 31) // 32,
                               (d_x, u64(rows), u64(cols), u64(rows), u64(16 if tiles else 1),
                                np.float32(st), np.uint32({"flush": 0, "smallest": 1, "minnormal": 2}[tiny]),
                                u64(0), np.uint32(0), words, sc))
                    got_s = cp.asnumpy(sc)[: want_s.size]
                    got_w = cp.asnumpy(words)[:need]
                    ok = np.array_equal(got_s, want_s) and np.array_equal(unpack_ref(got_w, 4, n), want_c.astype(np.uint64))
                    record("nvfp4 quantize", ok, f"{build} nvfp4 tiles={tiles} {tiny} {rows}x{cols}")
                    out = cp.zeros(max(n, 1), dtype=np.float32)
                    dev.launch(build, "nvfp4_dequantize", (n + 31) // 32, (words, u64(rows), u64(cols), sc, np.float32(st), out))
                    want = nvfp4_dequant_ref(want_c, want_s, st, rows, cols)
                    got = cp.asnumpy(out)[:n]
                    ok = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
                    record("nvfp4 dequantize", bool(ok.all()), f"{build} nvfp4_dequantize tiles={tiles} {rows}x{cols}")
                    seen.append((got_s.tobytes(), got_w.tobytes()))
                record("builds agree", len(set(seen)) <= 1, f"nvfp4 {rows}x{cols}: the builds differ")
        print(f"n={n}: block scaling done", flush=True)


def check(dev, sizes, report):
    cp = dev.cp
    rng = np.random.default_rng(2024)
    failures = []

    def record(family, ok, what):
        record_check(report, failures, family, ok, what)

    for n in sizes:
        big = n > (1 << 21)
        results = {}
        # unpack / pack / sum
        for w in list(range(1, 33)):
            if big and w not in (4, 5):
                continue
            v = rng.integers(0, 1 << w, size=n, dtype=np.uint64)
            words = pack_ref(v, w)
            d_words = cp.asarray(words)
            udt = np.uint8 if w <= 8 else (np.uint16 if w <= 16 else np.uint32)
            for build in dev.builds:
                out = cp.zeros(max(n, 1), dtype=udt)
                dev.run(build, f"unpack_u{8 * np.dtype(udt).itemsize}_w{w}", d_words, n, out, (n + block_elems(w) - 1) // block_elems(w))
                got = cp.asnumpy(out)[:n]
                record("unpack", np.array_equal(got.astype(np.uint64), v), f"{build} unpack w{w} n={n}")
                sdt = np.uint8 if w <= 8 else np.uint32
                src = cp.asarray(v.astype(sdt))
                dst = cp.full(words.size, 0xFFFFFFFFFFFFFFFF, dtype=np.uint64)
                dev.run(build, f"pack_u{8 * np.dtype(sdt).itemsize}_w{w}", src, n, dst, (n + block_elems(w) - 1) // block_elems(w))
                need = (n * w + 63) // 64
                record("pack", np.array_equal(cp.asnumpy(dst)[:need], words[:need]), f"{build} pack w{w} n={n}")
                if w <= 32:
                    per = 4 * block_elems(w)
                    threads = (n + per - 1) // per
                    warps = max(1, (threads + THREADS - 1) // THREADS * (THREADS // 32))
                    part = cp.zeros(warps, dtype=np.uint64)
                    dev.run(build, f"sum_w{w}", d_words, n, part, threads)
                    total = cp.zeros(1, dtype=np.uint64)
                    f = dev.builds[build].get_function("sum_partials")
                    f((1,), (32,), (part, np.uint64(warps), total))
                    got = int(cp.asnumpy(total)[0]) if threads else 0
                    record("sum", got == int(v.sum(dtype=np.uint64)), f"{build} sum w{w} n={n}")
        # float formats
        x = random_floats(rng, n)
        for name, (bits, *_rest) in FORMATS.items():
            if big and name not in ("e2m1", "e4m3"):
                continue
            d_x = cp.asarray(x)
            for mode in ("nearest", "satfinite"):
                want_codes = encode_ref(name, x, mode == "satfinite")
                want_words = pack_ref(want_codes, bits)
                need = (n * bits + 63) // 64
                per_build = {}
                for build in dev.builds:
                    dst = cp.full(max(need, 1), 0xFFFFFFFFFFFFFFFF, dtype=np.uint64)
                    dev.run(build, f"encode_{name}_{mode}", d_x, n, dst, (n + block_elems(bits) - 1) // block_elems(bits))
                    got = cp.asnumpy(dst)[:need]
                    per_build[build] = got
                    got_codes = unpack_ref(got, bits, n).astype(np.int64)
                    ok = np.where(is_nan_code(name, want_codes), is_nan_code(name, got_codes), got_codes == want_codes)
                    # Padding bits past the last value are zero.
                    if need and (n * bits) % 64:
                        ok = ok.all() and (int(got[-1]) >> ((n * bits) % 64)) == 0
                    record("encode", bool(np.all(ok)), f"{build} encode_{name}_{mode} n={n}")
                first = next(iter(per_build.values()))
                same = all(np.array_equal(first, g) for g in per_build.values())
                record("builds agree", same, f"encode_{name}_{mode} n={n}: the builds differ")
                # f16 and bf16 inputs (every bit pattern class): the codes
                # of the same values as f32, which hold them exactly.
                for suffix in ("f16", "bf16"):
                    entry = f"encode_{name}_{mode}_{suffix}"
                    if entry not in ENTRIES:
                        continue
                    h = rng.integers(0, 1 << 16, size=n, dtype=np.uint64).astype(np.uint16)
                    if suffix == "f16":
                        xf = h.view(np.float16).astype(np.float32)
                    else:
                        xf = (h.astype(np.uint32) << np.uint32(16)).view(np.float32)
                    want_codes = encode_ref(name, xf, mode == "satfinite")
                    for build in dev.builds:
                        dst = cp.full(max(need, 1), 0xFFFFFFFFFFFFFFFF, dtype=np.uint64)
                        dev.run(build, entry, cp.asarray(h), n, dst, (n + block_elems(bits) - 1) // block_elems(bits))
                        got = cp.asnumpy(dst)[:need]
                        got_codes = unpack_ref(got, bits, n).astype(np.int64)
                        ok = np.where(is_nan_code(name, want_codes), is_nan_code(name, got_codes),
                                      got_codes == want_codes)
                        if need and (n * bits) % 64:
                            ok = ok.all() and (int(got[-1]) >> ((n * bits) % 64)) == 0
                        record("encode", bool(np.all(ok)), f"{build} {entry} n={n}")
            # decode (of the satfinite codes: every code class appears)
            codes = encode_ref(name, x, True)
            words = cp.asarray(pack_ref(codes, bits))
            want = decode_table(name)[codes].astype(np.float32)
            for build in dev.builds:
                outs = {"f32": np.float32}
                if name != "e8m0":
                    outs.update({"f16": np.uint16, "bf16": np.uint16})
                for suffix, dt in outs.items():
                    out = cp.zeros(max(n, 1), dtype=dt)
                    dev.run(build, f"decode_{name}_{suffix}", words, n, out, (n + block_elems(bits) - 1) // block_elems(bits))
                    got = cp.asnumpy(out)[:n]
                    if suffix == "f32":
                        ok = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
                    else:
                        ref = f16_bits(want) if suffix == "f16" else bf16_bits(want)
                        ok = (got == ref) | np.isnan(want)
                    record("decode", bool(np.all(ok)), f"{build} decode_{name}_{suffix} n={n}")
        print(f"n={n}: done", flush=True)
    return failures


def check_conformance(dev, report):
    cp = dev.cp
    failures = []
    for name, (bits, *_rest) in FORMATS.items():
        for mode, file in (("nearest", "rn"), ("satfinite", "satfinite")):
            x, want, want_nan, departs = conformance_rows(name, file)
            ref = encode_ref(name, x, mode == "satfinite").astype(np.int64)
            n = x.size
            for build in dev.builds:
                dst = cp.zeros(max(1, (n * bits + 63) // 64), dtype=np.uint64)
                dev.run(build, f"encode_{name}_{mode}", cp.asarray(x), n, dst, (n + block_elems(bits) - 1) // block_elems(bits))
                got = unpack_ref(cp.asnumpy(dst), bits, n).astype(np.int64)
                ok = np.where(want_nan, is_nan_code(name, got), np.where(departs, got == ref, got == want))
                record_check(report, failures, "conformance", bool(ok.all()),
                             f"{build} conformance {name} {mode}" + ("" if ok.all() else f": {(~ok).sum()} rows"))
    return failures


# ---------------------------------------------------------------------------
# Recording: every row is on disk as soon as it is known
# ---------------------------------------------------------------------------


class Recorder:
    """Writes the run under one folder as it goes: `log.txt` (all that is
    printed), `checks.tsv` (one row per comparison), `timings.tsv` (one row
    per timed kernel) and `GPU.md` (the summary, rewritten after every
    phase and at exit). A run that is killed keeps every row written before
    it; GPU.md then says which phase was under way."""

    def __init__(self, out_dir):
        os.makedirs(out_dir, exist_ok=True)
        self.dir = out_dir
        self.log = open(os.path.join(out_dir, "log.txt"), "a", buffering=1)
        self.checks = open(os.path.join(out_dir, "checks.tsv"), "w", buffering=1)
        self.checks.write("seconds\tfamily\tresult\twhat\n")
        self.times = open(os.path.join(out_dir, "timings.tsv"), "w", buffering=1)
        self.times.write("build\tkernel\tvalues\tbytes_read\tbytes_written\tms\tGB_s\tmemcpy_ms\tmemcpy_GB_s\tshare_of_memcpy\n")
        self.t0 = time.monotonic()
        self.report = {}
        self.failures = []
        self.timing_rows = []
        self.notes = []
        self.header = []
        self.phases_done = []
        self.phase = None

    def say(self, *parts):
        line = " ".join(str(p) for p in parts)
        print(line, flush=True)
        self.log.write(f"[{time.monotonic() - self.t0:7.1f}s] {line}\n")

    def check(self, family, ok, what):
        self.report.setdefault(family, [0, 0])
        self.report[family][0 if ok else 1] += 1
        self.checks.write(f"{time.monotonic() - self.t0:.1f}\t{family}\t{'equal' if ok else 'DIFFER'}\t{what}\n")
        if not ok:
            self.failures.append(what)
            self.say("MISMATCH", what)

    def timing(self, row):
        self.timing_rows.append(row)
        b, k, n, rd, wr, ms, gbs, cms, cgbs, share = row
        self.times.write(f"{b}\t{k}\t{n}\t{rd}\t{wr}\t{ms:.4f}\t{gbs:.1f}\t{cms:.4f}\t{cgbs:.1f}\t{share:.3f}\n")
        self.say(f"time {b} {k}: {ms:.3f} ms, {gbs:.0f} GB/s, {share:.2f} of memcpy")

    def note(self, text):
        self.notes.append(text)
        self.say("note:", text)

    def start(self, phase):
        self.phase = phase
        self.say(f"== {phase}")
        self.write_summary()

    def done(self):
        if self.phase:
            self.phases_done.append((self.phase, time.monotonic() - self.t0))
        self.phase = None
        self.write_summary()

    def write_summary(self):
        path = os.path.join(self.dir, "GPU.md")
        with open(path + ".tmp", "w") as f:
            f.write("# GPU results\n\n")
            f.write("".join(line + "\n" for line in self.header))
            f.write("\nPhases done (seconds since the start when each ended): "
                    + (", ".join(f"{p} ({t:.0f} s)" for p, t in self.phases_done) or "none") + ".")
            if self.phase:
                f.write(f" Under way when this was written: {self.phase}.")
            f.write("\n\n")
            if self.report:
                f.write("| check | equal | differ |\n|---|---|---|\n")
                for k, (ok, bad) in self.report.items():
                    f.write(f"| {k} | {ok} | {bad} |\n")
            if self.failures:
                f.write(f"\nMismatches ({len(self.failures)}, the first 50):\n\n")
                f.write("".join(f"- {m}\n" for m in self.failures[:50]))
            if self.timing_rows:
                f.write("\nEach kernel at the size given, the L2 cache flushed before every launch (a write of "
                        "twice its size), median of the repetitions; `memcpy` is `cudaMemcpy` device to device "
                        "of half the bytes the kernel reads plus writes (so the same bytes cross the memory bus), "
                        "timed the same way. `share` = memcpy time / kernel time.\n\n")
                f.write("| build | kernel | values | MB read + written | ms | GB/s | memcpy GB/s | share of memcpy |\n")
                f.write("|---|---|---|---|---|---|---|---|\n")
                for b, k, n, rd, wr, ms, gbs, cms, cgbs, share in self.timing_rows:
                    f.write(f"| {b} | `{k}` | {n} | {(rd + wr) / 1e6:.0f} | {ms:.3f} | {gbs:.0f} | {cgbs:.0f} | {share:.2f} |\n")
            if self.notes:
                f.write("\nNotes:\n\n" + "".join(f"- {t}\n" for t in self.notes))
        os.replace(path + ".tmp", path)


REC = None


def record_check(report, failures, family, ok, what):
    """One comparison: into the recorder (and so on disk at once) when one
    runs, else into `report`/`failures` only."""
    ok = bool(ok)
    if REC is not None:
        REC.check(family, ok, what)
        return
    report.setdefault(family, [0, 0])
    report[family][0 if ok else 1] += 1
    if not ok:
        failures.append(what)
        print("MISMATCH", what, flush=True)


# ---------------------------------------------------------------------------
# Timings
# ---------------------------------------------------------------------------


def timed_kernels(n):
    """(kernel, value bits, bytes read, bytes written, input kind, output
    dtype, shape): the kernels timed, at n values. Input kinds: "words" (a
    packed stream of `bits`-wide values), "f32", "u8"/"u32" (plain values),
    "mx"/"nvfp4" (f32 values as a [rows, 8192] matrix)."""
    f32 = 4 * n
    out = []
    for w in (1, 4, 8):
        out.append((f"unpack_u8_w{w}", w, n * w // 8, n, "words", np.uint8))
        out.append((f"pack_u8_w{w}", w, n, n * w // 8, "u8", np.uint64))
        out.append((f"sum_w{w}", w, n * w // 8, 0, "words", None))
    out.append(("unpack_u32_w17", 17, n * 17 // 8, 4 * n, "words", np.uint32))
    for name, bits in (("e2m1", 4), ("e4m3", 8)):
        out.append((f"encode_{name}_satfinite", bits, f32, n * bits // 8, "f32", np.uint64))
        out.append((f"decode_{name}_f32", bits, n * bits // 8, f32, "words", np.float32))
        out.append((f"decode_{name}_bf16", bits, n * bits // 8, 2 * n, "words", np.uint16))
    for name, bits in (("e2m1", 4), ("e4m3", 8)):
        if f"encode_{name}_satfinite_bf16" in ENTRIES:
            out.append((f"encode_{name}_satfinite_bf16", bits, 2 * n, n * bits // 8, "bf16", np.uint64))
    out.append(("encode_e4m3_nearest", 8, f32, n, "f32", np.uint64))
    out.append(("encode_e2m1_nearest", 4, f32, n // 2, "f32", np.uint64))
    out.append(("decode_e4m3_f16", 8, n, 2 * n, "words", np.uint16))
    out.append(("unpack_u16_w12", 12, n * 12 // 8, 2 * n, "words", np.uint16))
    out.append(("amax_partials", 32, f32, 0, "f32", None))
    for name, bits in (("e2m1", 4), ("e4m3", 8)):
        out.append((f"mx_quantize_{name}", bits, f32, n * bits // 8 + n // 32, "mx", None))
        out.append((f"mx_dequantize_{name}", bits, n * bits // 8 + n // 32, f32, "mx", None))
    out.append(("nvfp4_quantize", 4, f32, n // 2 + n // 16, "nvfp4", None))
    out.append(("nvfp4_dequantize", 4, n // 2 + n // 16, f32, "nvfp4", None))
    return out


def timings(dev, rec, n=1 << 28, reps=15, budget_end=None, modules=None):
    """Median time of each kernel of `timed_kernels(n)` on each module of
    `modules` (label -> RawModule; default: the newest loadable build), the
    L2 flushed before every launch, against cudaMemcpy device to device of
    the same bytes."""
    cp = dev.cp
    u64 = np.uint64
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    flush = cp.empty(max(2 * dev.l2_bytes, 64 << 20), dtype=np.uint8)

    def med(fn):
        fn()
        ts = []
        for _ in range(reps):
            flush.fill(0)
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            ts.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        return float(np.median(ts))

    copy_cache = {}

    def ptr(a):
        return a.data.ptr if hasattr(a.data, "ptr") else 0

    def copy_time(nbytes):
        half = max(nbytes // 2, 1)
        if half not in copy_cache:
            a = cp.empty(half, dtype=np.uint8)
            b = cp.empty(half, dtype=np.uint8)
            a.fill(1)
            kind = cp.cuda.runtime.memcpyDeviceToDevice
            pa, pb = ptr(a), ptr(b)
            copy_cache[half] = med(lambda: cp.cuda.runtime.memcpy(pb, pa, half, kind))
            del a, b
        return copy_cache[half]

    if modules is None:
        newest = next(iter(dev.builds))
        modules = {newest: dev.builds[newest]}
    cols = min(n, 1 << 13)
    rows = n // cols
    # Inputs, made on the device (random bits; f32 values spread over the
    # formats' ranges with every class of f32 among them).
    rs = cp.random.RandomState(7)
    words = rs.randint(0, 1 << 62, size=n // 2 + 8, dtype=np.int64).view(np.uint64)
    bits = rs.randint(0, 1 << 32, size=n, dtype=np.int64).astype(np.uint32)
    expo = (np.uint32(100) + (bits >> np.uint32(8)) % np.uint32(60)).astype(np.uint32)
    x = ((bits & np.uint32(0x807FFFFF)) | (expo << np.uint32(23))).view(np.float32)
    del bits, expo
    for label, module in modules.items():
        for kernel, w, rd, wr, kind, odt in timed_kernels(n):
            if budget_end is not None and time.monotonic() > budget_end:
                rec.note(f"timings stopped before {label} {kernel}: the time budget was spent")
                return
            try:
                f = module.get_function(kernel)
            except Exception as e:
                rec.note(f"{label} has no {kernel} ({type(e).__name__})")
                continue
            units = (n + block_elems(w) - 1) // block_elems(w)
            grid = ((units + THREADS - 1) // THREADS,)
            if kind == "words":
                src = words
                if kernel.startswith("sum_"):
                    per = 4 * block_elems(w)
                    threads = (n + per - 1) // per
                    grid = ((threads + THREADS - 1) // THREADS,)
                    out = cp.empty(grid[0] * THREADS // 32, dtype=np.uint64)
                else:
                    out = cp.empty(n + 16, dtype=odt)
                args = (src, u64(n), out)
            elif kind in ("u8", "u32"):
                src = cp.empty(n, dtype=np.uint8)
                src.fill((1 << w) - 1 if w < 8 else 0xA5)
                out = cp.empty(n * w // 64 + 2, dtype=np.uint64)
                args = (src, u64(n), out)
            elif kind == "f32" and kernel == "amax_partials":
                ctas = min(1024, max(1, (n + 8 * THREADS - 1) // (8 * THREADS)))
                grid = (ctas,)
                out = cp.empty(ctas * THREADS // 32, dtype=np.uint32)
                args = (x, u64(n), out)
            elif kind == "f32":
                out = cp.empty(n * w // 64 + 2, dtype=np.uint64)
                args = (x, u64(n), out)
            elif kind == "bf16":
                # The high halves of the f32 values: bf16 inputs in the
                # formats' ranges.
                xb = (x.view(np.uint32) >> np.uint32(16)).astype(np.uint16)
                out = cp.empty(n * w // 64 + 2, dtype=np.uint64)
                args = (xb, u64(n), out)
            elif kind == "mx":
                name = kernel.rsplit("_", 1)[1]
                sc = cp.empty(max(4, rows * (cols // 32)), dtype=np.uint8)
                codes = cp.empty(n * w // 64 + 2, dtype=np.uint64)
                qargs = (x, u64(rows), u64(cols), u64(1), np.uint32(3), u64(0), np.uint32(0), codes, sc)
                dev.launch_module(module, f"mx_quantize_{name}", (n + 31) // 32, qargs)
                grid = (((n + 31) // 32 + THREADS - 1) // THREADS,)
                if kernel.startswith("mx_quantize"):
                    args = qargs
                else:
                    out = cp.empty(n, dtype=np.float32)
                    args = (codes, u64(rows), u64(cols), u64(1), sc, out)
            else:  # nvfp4
                st = np.float32(1.0 / 64)
                sc = cp.empty(max(4, rows * (cols // 16)), dtype=np.uint8)
                codes = cp.empty(n // 16 + 2, dtype=np.uint64)
                qargs = (x, u64(rows), u64(cols), u64(rows), u64(1), st, np.uint32(0), u64(0), np.uint32(0),
                         codes, sc)
                dev.launch_module(module, "nvfp4_quantize", (n + 31) // 32, qargs)
                grid = (((n + 31) // 32 + THREADS - 1) // THREADS,)
                if kernel == "nvfp4_quantize":
                    args = qargs
                else:
                    out = cp.empty(n, dtype=np.float32)
                    args = (codes, u64(rows), u64(cols), sc, st, out)
            t = med(lambda: f(grid, (THREADS,), args))
            tc = copy_time(rd + wr)
            rec.timing((label, kernel, n, rd, wr, t * 1e3, (rd + wr) / t / 1e9, tc * 1e3,
                        (rd + wr) / tc / 1e9, tc / t))
            out = args = None


# ---------------------------------------------------------------------------
# An FP8 GEMM fed with bitpack's E4M3 bytes
# ---------------------------------------------------------------------------


def fp8_gemm_check(dev, rec, build, m=4096, k=4096, nn=4096):
    """On compute capability 9.0 and newer with PyTorch: A [m, k] and B
    [nn, k] encoded to E4M3 by `encode_e4m3_satfinite` under a per-tensor
    scale (amax / 448), handed to torch._scaled_mm (cuBLASLt) as
    float8_e4m3fn through DLPack, checked against the f32 product of the
    values the same codes decode to, and the codes against PyTorch's own
    f32 -> float8_e4m3fn cast."""
    try:
        import torch
    except ImportError:
        rec.note("FP8 GEMM skipped: PyTorch is not importable")
        return
    if dev.cc < 89 or not hasattr(torch, "_scaled_mm"):
        rec.note(f"FP8 GEMM skipped: compute capability {dev.cc} or no torch._scaled_mm")
        return
    cp = dev.cp
    u64 = np.uint64
    rs = cp.random.RandomState(11)
    a = rs.standard_normal((m, k), dtype=np.float32)
    b = rs.standard_normal((nn, k), dtype=np.float32) * np.float32(3.0)

    def e4m3(x):
        amax = float(cp.abs(x).max())
        scale = np.float32(amax / 448.0)
        xs = (x / scale).astype(np.float32).ravel()
        words = cp.empty(xs.size // 8 + 1, dtype=np.uint64)
        dev.launch(build, "encode_e4m3_satfinite", (xs.size + 7) // 8, (xs, u64(xs.size), words))
        codes = words.view(np.uint8)[: xs.size].reshape(x.shape)
        vals = cp.empty(xs.size, dtype=np.float32)
        dev.launch(build, "decode_e4m3_f32", (xs.size + 7) // 8, (words, u64(xs.size), vals))
        return codes, scale, vals.reshape(x.shape), xs.reshape(x.shape)

    ca, sa, va, xa = e4m3(a)
    cb, sb, vb, xb = e4m3(b)
    ta = torch.from_dlpack(ca).view(torch.float8_e4m3fn)
    tb = torch.from_dlpack(cb).view(torch.float8_e4m3fn)
    # torch's own cast of the same scaled values: the same bytes.
    same = bool(torch.equal(torch.from_dlpack(xa).to(torch.float8_e4m3fn).view(torch.uint8),
                            torch.from_dlpack(ca)))
    rec.check("fp8 gemm", same, f"{build} E4M3 codes of a {m}x{k} tensor equal torch's float8_e4m3fn cast")
    scale_a = torch.tensor(float(sa), device="cuda", dtype=torch.float32)
    scale_b = torch.tensor(float(sb), device="cuda", dtype=torch.float32)
    got = torch._scaled_mm(ta, tb.t(), scale_a=scale_a, scale_b=scale_b, out_dtype=torch.float32)
    want = (torch.from_dlpack(va) @ torch.from_dlpack(vb).t()) * (float(sa) * float(sb))
    err = float((got - want).abs().max() / want.abs().max())
    # Hopper's FP8 tensor cores add their products with about 14 bits of
    # mantissa (not f32's 24), so over k = 4096 terms the largest error is
    # about 2e-4 of the largest |value| (measured on an H200); 1e-3 leaves
    # room for that and catches a wrong code or scale (an error of order 1).
    rec.check("fp8 gemm", err < 1e-3, f"{build} torch._scaled_mm of bitpack E4M3 bytes: max error "
              f"{err:.2e} of the largest |value| against the f32 product of the decoded codes")
    # And a speed figure: the same GEMM, median of 10.
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(11):
        start.record()
        torch._scaled_mm(ta, tb.t(), scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)
        stop.record()
        stop.synchronize()
        ts.append(cp.cuda.get_elapsed_time(start, stop))
    ms = float(np.median(ts[1:]))
    rec.note(f"torch._scaled_mm {m}x{k}x{nn} on bitpack E4M3 bytes: {ms:.3f} ms, "
             f"{2 * m * k * nn / ms / 1e9:.0f} TFLOP/s")


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------


def main():
    global REC
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "gpu-results"),
                    help="folder for log.txt, checks.tsv, timings.tsv and GPU.md (written as the run goes)")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--quick", action="store_true", help="small sizes only and a short timing pass")
    ap.add_argument("--budget", type=float, default=450.0,
                    help="seconds: later phases are skipped (and say so) once spent")
    ap.add_argument("--compare-ptx", metavar="DIR",
                    help="also time the kernels of the bitpack-<target>.ptx files in DIR (labelled 'before')")
    ap.add_argument("--timing-values", type=int, default=1 << 28)
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    t_end = time.monotonic() + args.budget
    rec = Recorder(args.out_dir)
    REC = rec
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    try:
        return run(args, rec, t_end)
    finally:
        if rec.phase:
            rec.say(f"stopped during: {rec.phase}")
        rec.write_summary()
        REC = None


def run(args, rec, t_end):
    try:
        import cupy as cp
    except ImportError as e:
        rec.say(f"gpu-check: CuPy is not importable ({e}); this check needs a machine with an "
                "NVIDIA GPU, CUDA and CuPy")
        print("gpu-check: CuPy is not importable", file=sys.stderr)
        return 2
    try:
        dev = Device(cp, args.compare_ptx)
    except Exception as e:  # no driver, no device
        rec.say(f"gpu-check: no usable GPU: {e}")
        return 2
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    rec.header = [
        f"Recorded {now} by `scripts/gpu-check.sh` on {dev.name} (compute capability {dev.cc // 10}.{dev.cc % 10}, "
        f"{dev.sms} SMs, {dev.l2_bytes >> 20} MiB L2), CuPy {cp.__version__}, CUDA runtime "
        f"{cp.cuda.runtime.runtimeGetVersion()}, driver {cp.cuda.runtime.driverGetVersion()}.",
        f"Builds loaded: {', '.join(dev.builds) or 'none'}"
        + (f"; extra builds: {', '.join(dev.extra)}" if dev.extra else "")
        + (f"; not loaded: {dev.load_errors}" if dev.load_errors else "") + ".",
    ]
    for k, v in dev.load_errors.items():
        rec.note(f"the driver did not load {k}: {v}")
    if not dev.builds:
        rec.say(f"gpu-check: compute capability {dev.cc}: no committed build loads")
        return 2
    rec.start("self-test of the numpy reference")
    if self_test():
        rec.check("self-test", False, "the numpy reference disagrees with tests/conformance")
        return 1
    rec.done()
    quick = [1, 31, 4096] if args.quick else [1, 31, 4096, (1 << 20) + 7]
    report = rec.report
    failures = rec.failures
    phases = [
        (f"checks at {quick} values, every build", lambda: check(dev, quick, report)),
        ("conformance vectors, every build", lambda: check_conformance(dev, report)),
        (f"MX and NVFP4 at {quick} values, every build", lambda: check_blocks(dev, quick, report, failures)),
        ("timings", lambda: timings(dev, rec, n=(1 << 16) if args.quick else args.timing_values,
                                    reps=3 if args.quick else 15, budget_end=t_end,
                                    modules={**{next(iter(dev.builds)): dev.builds[next(iter(dev.builds))]},
                                             **dev.extra})),
        ("FP8 GEMM through torch._scaled_mm", lambda: fp8_gemm_check(dev, rec, next(iter(dev.builds)),
                                                                      *((256,) * 3 if args.quick else ()))),
    ]
    if not args.quick:
        phases.append(("checks at 2^26 values", lambda: check(dev, [1 << 26], report)))
        phases.append(("MX and NVFP4 at 2^26 values", lambda: check_blocks(dev, [1 << 26], report, failures)))
    for name, fn in phases:
        if time.monotonic() > t_end:
            rec.note(f"skipped for want of time: {name}")
            continue
        rec.start(name)
        try:
            fn()
        except Exception as e:  # one phase's error does not lose the others
            import traceback
            rec.check("errors", False, f"{name}: {type(e).__name__}: {e}")
            rec.say(traceback.format_exc())
        rec.done()
    total_ok = sum(v[0] for v in rec.report.values())
    total_bad = sum(v[1] for v in rec.report.values())
    rec.say(f"gpu-check: wrote {rec.dir}: {total_ok} equal, {total_bad} differ")
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
