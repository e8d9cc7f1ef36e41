#!/usr/bin/env python3
"""GPU check of bitpack's committed PTX kernels, with CuPy and no Rust.

Loads every committed build the device runs (bitpack/ptx/bitpack-sm_*.ptx:
sm_80 from compute capability 8.0, sm_90 from 9.0, sm_100a on 10.0), runs
each kernel on random data of several sizes and on the conformance vectors,
compares the results with a numpy reference of the crate's host rules (and
the builds with each other, byte for byte), times unpack, encode and decode
against the device's own copy bandwidth, and writes GPU.md.

    python3 scripts/gpu_check.py [--out GPU.md] [--quick]
    python3 scripts/gpu_check.py --self-test   # the numpy reference against
                                               # tests/conformance (no GPU)

Exit status: 0 all equal, 1 a mismatch, 2 no CuPy or no usable GPU.
"""
import argparse
import datetime
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTX_DIR = os.path.join(ROOT, "bitpack", "ptx")
CONFORMANCE = os.path.join(ROOT, "tests", "conformance")
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


class Device:
    def __init__(self, cp):
        self.cp = cp
        dev = cp.cuda.Device()
        self.cc = int(dev.compute_capability)
        props = cp.cuda.runtime.getDeviceProperties(dev.id)
        self.name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        self.builds = {}
        for target, ok in (("sm_80", self.cc >= 80), ("sm_90", self.cc >= 90), ("sm_100a", self.cc == 100)):
            if ok:
                self.builds[target] = cp.RawModule(path=os.path.join(PTX_DIR, f"bitpack-{target}.ptx"))

    def launch(self, build, kernel, units, args):
        """`kernel` over `units` threads (CTAs of THREADS) with `args`."""
        f = self.builds[build].get_function(kernel)
        grid = max(1, (units + THREADS - 1) // THREADS)
        f((grid,), (THREADS,), args)
        self.cp.cuda.Device().synchronize()

    def run(self, build, kernel, a, n, out, units):
        cp = self.cp
        f = self.builds[build].get_function(kernel)
        grid = max(1, (units + THREADS - 1) // THREADS)
        f((grid,), (THREADS,), (a, np.uint64(n), out))
        cp.cuda.Device().synchronize()


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
        report.setdefault(family, [0, 0])
        report[family][0 if ok else 1] += 1
        if not ok:
            failures.append(what)
            print("MISMATCH", what, flush=True)

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
                        sc = cp.full(max(want_s.size, 1), 0xAA, dtype=np.uint8)
                        dev.launch(build, f"mx_scales_{name}", want_s.size,
                                   (d_x, u64(rows), u64(cols), u64(1), np.uint32(code), sc))
                        words = cp.full(max(need, 1), 0xFFFFFFFFFFFFFFFF, dtype=np.uint64)
                        dev.launch(build, f"mx_encode_{name}", (n + block_elems(bits) - 1) // block_elems(bits),
                                   (d_x, u64(rows), u64(cols), u64(1), sc, u64(0), np.uint32(0), words))
                        got_s = cp.asnumpy(sc)[: want_s.size]
                        got_w = cp.asnumpy(words)[:need]
                        got_c = unpack_ref(got_w, bits, n)
                        ok = np.array_equal(got_s, want_s) and np.array_equal(got_c, want_c.astype(np.uint64))
                        record("mx quantize", ok, f"{build} mx_{name} {rule} {rows}x{cols}")
                        out = cp.zeros(max(n, 1), dtype=np.float32)
                        dev.launch(build, f"mx_decode_{name}", (n + block_elems(bits) - 1) // block_elems(bits),
                                   (words, u64(rows), u64(cols), u64(1), sc, out))
                        want = mx_dequant_ref(name, want_c, want_s, rows, cols)
                        got = cp.asnumpy(out)[:n]
                        ok = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
                        record("mx dequantize", bool(ok.all()), f"{build} mx_decode_{name} {rule} {rows}x{cols}")
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
                    sc = cp.full(max(want_s.size, 1), 0xAA, dtype=np.uint8)
                    dev.launch(build, "nvfp4_scales", want_s.size,
                               (d_x, u64(rows), u64(cols), u64(rows), u64(16 if tiles else 1),
                                np.float32(st), np.uint32({"flush": 0, "smallest": 1, "minnormal": 2}[tiny]), sc))
                    words = cp.full(max(need, 1), 0xFFFFFFFFFFFFFFFF, dtype=np.uint64)
                    dev.launch(build, "nvfp4_encode", (n + 15) // 16,
                               (d_x, u64(rows), u64(cols), sc, np.float32(st), u64(0), np.uint32(0), words))
                    got_s = cp.asnumpy(sc)[: want_s.size]
                    got_w = cp.asnumpy(words)[:need]
                    ok = np.array_equal(got_s, want_s) and np.array_equal(unpack_ref(got_w, 4, n), want_c.astype(np.uint64))
                    record("nvfp4 quantize", ok, f"{build} nvfp4 tiles={tiles} {tiny} {rows}x{cols}")
                    out = cp.zeros(max(n, 1), dtype=np.float32)
                    dev.launch(build, "nvfp4_decode", (n + 15) // 16, (words, u64(rows), u64(cols), sc, np.float32(st), out))
                    want = nvfp4_dequant_ref(want_c, want_s, st, rows, cols)
                    got = cp.asnumpy(out)[:n]
                    ok = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
                    record("nvfp4 dequantize", bool(ok.all()), f"{build} nvfp4_decode tiles={tiles} {rows}x{cols}")
                    seen.append((got_s.tobytes(), got_w.tobytes()))
                record("builds agree", len(set(seen)) <= 1, f"nvfp4 {rows}x{cols}: the builds differ")
        print(f"n={n}: block scaling done", flush=True)


def check(dev, sizes, report):
    cp = dev.cp
    rng = np.random.default_rng(2024)
    failures = []

    def record(family, ok, what):
        report.setdefault(family, [0, 0])
        report[family][0 if ok else 1] += 1
        if not ok:
            failures.append(what)
            print("MISMATCH", what, flush=True)

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
                report.setdefault("conformance", [0, 0])
                report["conformance"][0 if ok.all() else 1] += 1
                if not ok.all():
                    failures.append(f"{build} conformance {name} {mode}: {(~ok).sum()} rows")
                    print("MISMATCH", failures[-1], flush=True)
    return failures


def timings(dev, n=1 << 26):
    """Median time of each kernel at `n` values against a device copy of the
    same number of bytes (read + written)."""
    cp = dev.cp
    rng = np.random.default_rng(7)
    start, stop = cp.cuda.Event(), cp.cuda.Event()

    def med(fn, reps=20):
        fn()
        ts = []
        for _ in range(reps):
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            ts.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        return float(np.median(ts))

    def copy_time(nbytes):
        a = cp.zeros(nbytes // 2, dtype=np.uint8)
        b = cp.empty_like(a)
        return med(lambda: b.__setitem__(slice(None), a)), nbytes

    rows = []
    x = random_floats(rng, n)
    d_x = cp.asarray(x)
    build = list(dev.builds)[-1]  # the most specific build
    for kernel, w, in_bytes, out_bytes, src, dst in (
        ("unpack_u8_w4", 4, n // 2, n, None, np.uint8),
        ("unpack_u8_w5", 5, n * 5 // 8, n, None, np.uint8),
        ("encode_e2m1_satfinite", 4, 4 * n, n // 2, d_x, np.uint64),
        ("encode_e4m3_satfinite", 8, 4 * n, n, d_x, np.uint64),
        ("decode_e2m1_f32", 4, n // 2, 4 * n, None, np.float32),
        ("decode_e4m3_f32", 8, n, 4 * n, None, np.float32),
    ):
        if src is None:
            src = cp.asarray(pack_ref(rng.integers(0, 1 << w, size=n, dtype=np.uint64), w))
        out = cp.empty(out_bytes // np.dtype(dst).itemsize + 1, dtype=dst)
        units = (n + block_elems(w) - 1) // block_elems(w)
        f = dev.builds[build].get_function(kernel)
        grid = (units + THREADS - 1) // THREADS
        t = med(lambda: f((grid,), (THREADS,), (src, np.uint64(n), out)))
        tc, _ = copy_time(in_bytes + out_bytes)
        gbs = (in_bytes + out_bytes) / t / 1e9
        rows.append((build, kernel, t * 1e3, gbs, (in_bytes + out_bytes) / tc / 1e9, tc / t))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "GPU.md"))
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--quick", action="store_true", help="sizes up to 4096 only, no timings")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    try:
        import cupy as cp
    except ImportError as e:
        print(f"gpu-check: CuPy is not importable ({e}); this check needs a machine with an "
              "NVIDIA GPU, CUDA and CuPy", file=sys.stderr)
        return 2
    try:
        dev = Device(cp)
    except Exception as e:  # no driver, no device
        print(f"gpu-check: no usable GPU: {e}", file=sys.stderr)
        return 2
    if not dev.builds:
        print(f"gpu-check: compute capability {dev.cc} is below 8.0, which the kernels need", file=sys.stderr)
        return 2
    if self_test():
        return 1
    sizes = [1, 31, 4096] if args.quick else [1, 31, 4096, (1 << 20) + 7, 1 << 26]
    report = {}
    failures = check(dev, sizes, report)
    failures += check_conformance(dev, report)
    check_blocks(dev, sizes, report, failures)
    rows = [] if args.quick else timings(dev)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with open(args.out, "w") as f:
        f.write("# GPU results\n\n")
        f.write(f"Recorded {now} by `scripts/gpu-check.sh` on {dev.name} (compute capability "
                f"{dev.cc // 10}.{dev.cc % 10}), CuPy {cp.__version__}, CUDA runtime "
                f"{cp.cuda.runtime.runtimeGetVersion()}, driver {cp.cuda.runtime.driverGetVersion()}.\n")
        f.write(f"Builds loaded: {', '.join(dev.builds)}. Sizes: {', '.join(map(str, sizes))} "
                "(2^26 only for unpack/pack of 4 and 5 bits, E2M1/E4M3 encode/decode, MX E2M1/E4M3 "
                "(E2M1 Floor, E4M3 RCeil) and NVFP4 1 x 16 blocks, as an 8192 x 8192 matrix). Block-scaled "
                "shapes: one row of n values, [n / 64, 64], and 33 x 70 (tail blocks).\n\n")
        f.write("| check | equal | differ |\n|---|---|---|\n")
        for k, (ok, bad) in report.items():
            f.write(f"| {k} | {ok} | {bad} |\n")
        if failures:
            f.write("\nMismatches:\n\n" + "".join(f"- {m}\n" for m in failures[:50]))
        if rows:
            f.write("\nMedian of 20 runs at 2^26 values; `copy` is a device-to-device copy of "
                    "as many bytes as the kernel reads plus writes.\n\n")
            f.write("| build | kernel | ms | GB/s (read + written) | copy GB/s | kernel / copy speed |\n")
            f.write("|---|---|---|---|---|---|\n")
            for b, k, ms, gbs, cgbs, ratio in rows:
                f.write(f"| {b} | `{k}` | {ms:.3f} | {gbs:.0f} | {cgbs:.0f} | {ratio:.2f} |\n")
    print(f"gpu-check: wrote {args.out}: {sum(v[0] for v in report.values())} equal, "
          f"{sum(v[1] for v in report.values())} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
