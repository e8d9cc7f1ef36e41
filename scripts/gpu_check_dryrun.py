#!/usr/bin/env python3
"""Runs scripts/gpu_check.py end to end without a GPU, on a stand-in for
CuPy whose kernels are computed by the script's own numpy reference.

It cannot say whether the GPU is right (the stand-in agrees with the
reference by construction); it checks the script's plumbing before it meets
a GPU: every kernel it launches exists in bitpack/ptx/ENTRIES, every launch
has enough threads for its values (one thread per block of values, sums four
blocks per thread, `sum_partials` one warp), the buffers are large enough,
and GPU.md gets written. Also checks that without CuPy the script exits 2
with a message. Needs numpy only.
"""
import os
import subprocess
import sys
import tempfile
import time
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpu_check as g  # noqa: E402

ENTRIES = set(open(os.path.join(g.PTX_DIR, "ENTRIES")).read().split())
LAUNCHES = []


def kernel(name):
    assert name in ENTRIES, f"{name} is not an entry of the committed PTX"

    def run(grid, block, args):
        threads = grid[0] * block[0]
        if name.startswith(("mx_", "nvfp4_", "amax_")):
            LAUNCHES.append(name)
            return block_kernel(name, threads, args)
        a, n, out = args
        n = int(n)
        threads = grid[0] * block[0]
        LAUNCHES.append(name)
        kind, *rest = name.split("_")
        if name == "sum_partials":
            assert (grid[0], block[0]) == (1, 32), "sum_partials runs as one warp"
            out[0] = a[:n].sum(dtype=np.uint64)
            return
        if kind in ("unpack", "pack", "sum"):
            w = int(rest[-1][1:])
        else:
            w = g.FORMATS[rest[0]][0]
        per = g.block_elems(w) * (4 if kind == "sum" else 1)
        assert threads * per >= n, f"{name}: {threads} threads for {n} values"
        assert block[0] % 32 == 0
        need = (n * w + 63) // 64
        if kind == "unpack":
            assert out.size >= n and a.size >= need
            out[:n] = g.unpack_ref(a, w, n).astype(out.dtype)
        elif kind == "pack":
            assert out.size >= need and a.size >= n
            out[:need] = g.pack_ref(a[:n].astype(np.uint64), w)[:need]
        elif kind == "sum":
            warps = (threads + 31) // 32
            assert out.size >= warps, f"{name}: {out.size} partials for {warps} warps"
            out[:] = 0
            out[0] = g.unpack_ref(a, w, n).sum(dtype=np.uint64)
        elif kind == "encode":
            assert out.size >= need and a.size >= n
            x = a[:n]
            if len(rest) == 3:  # f16 or bf16 input bits
                assert x.dtype == np.uint16, (name, x.dtype)
                if rest[2] == "f16":
                    x = x.view(np.float16).astype(np.float32)
                else:
                    x = (x.astype(np.uint32) << np.uint32(16)).view(np.float32)
            codes = g.encode_ref(rest[0], x, rest[1] == "satfinite")
            out[:need] = g.pack_ref(codes, w)[:need]
        elif kind == "decode":
            assert out.size >= n
            vals = g.decode_table(rest[0])[g.unpack_ref(a, w, n).astype(np.int64)].astype(np.float32)
            if rest[1] == "f32":
                out[:n] = vals
            elif rest[1] == "f16":
                out[:n] = g.f16_bits(vals)
            else:
                out[:n] = g.bf16_bits(vals)
        else:
            raise AssertionError(name)

    return run


def block_kernel(name, threads, args):
    """The block-scaled kernels, from the reference, with their launch and
    buffer sizes checked."""
    kind, *rest = name.split("_")
    if name == "amax_partials":
        src, n, part = args
        n = int(n)
        assert part.size >= threads // 32
        m = src[:n].view(np.uint32) & np.uint32(0x7FFFFFFF)
        m = m[m < 0x7F800000]
        part[:] = 0
        part[0] = m.max() if m.size else 0
        return
    if kind == "mx":
        fmt = rest[1]
        bits = g.FORMATS[fmt][0]
        if rest[0] == "quantize":
            src, outer, d, inner, rule, seed, flags, words, sc = args
            rows, cols = int(outer), int(d)
            assert int(inner) == 1 and int(flags) == 0
            n = rows * cols
            assert threads * 32 >= n
            rname = {v: k for k, v in g.MX_RULES.items()}[int(rule)]
            s, c = g.mx_ref(fmt, src[:n], rows, cols, rname)
            sc[: s.size] = s
            need = (n * bits + 63) // 64
            words[:need] = g.pack_ref(c, bits)[:need]
            return
        src, outer, d, inner, sc, out = args
        rows, cols = int(outer), int(d)
        n = rows * cols
        assert threads * 32 >= n and out.size >= n
        codes = g.unpack_ref(src, bits, n).astype(np.uint8)
        out[:n] = g.mx_dequant_ref(fmt, codes, sc[: rows * ((cols + 31) // 32)], rows, cols)
        return
    if name == "nvfp4_quantize":
        src, rows, cols, matrix, tile, st, tiny, seed, flags, words, sc = args
        rows, cols = int(rows), int(cols)
        n = rows * cols
        assert threads * 32 >= n and int(flags) == 0
        t = {0: "flush", 1: "smallest", 2: "minnormal"}[int(tiny)]
        s, c, _ = g.nvfp4_ref(src[:n], rows, cols, st, t, int(tile) == 16, int(matrix))
        sc[: s.size] = s
        need = (n * 4 + 63) // 64
        words[:need] = g.pack_ref(c, 4)[:need]
        return
    if name == "nvfp4_dequantize":
        src, rows, cols, sc, st, out = args
        rows, cols = int(rows), int(cols)
        n = rows * cols
        assert threads * 32 >= n and out.size >= n
        codes = g.unpack_ref(src, 4, n).astype(np.uint8)
        out[:n] = g.nvfp4_dequant_ref(codes, sc[: rows * ((cols + 15) // 16)], st, rows, cols)
        return
    raise AssertionError(name)


class Module:
    def __init__(self, path):
        assert os.path.exists(path), path

    def get_function(self, name):
        return kernel(name)


class Event:
    def record(self):
        pass

    def synchronize(self):
        pass


def fake_cupy():
    cp = types.ModuleType("cupy")
    cp.__version__ = "stand-in"
    cp.asarray = lambda a: np.array(a)
    cp.asnumpy = lambda a: np.array(a)
    cp.zeros, cp.full, cp.empty, cp.empty_like = np.zeros, np.full, np.empty, np.empty_like
    cp.RawModule = lambda path: Module(path)
    cp.random = types.SimpleNamespace(RandomState=np.random.RandomState)
    cuda = types.SimpleNamespace()
    cuda.Device = lambda: types.SimpleNamespace(compute_capability="90", id=0, synchronize=lambda: None)
    cuda.runtime = types.SimpleNamespace(
        getDeviceProperties=lambda i: {"name": b"stand-in device", "l2CacheSize": 1 << 20,
                                       "multiProcessorCount": 2},
        runtimeGetVersion=lambda: 0,
        driverGetVersion=lambda: 0,
        memcpy=lambda dst, src, size, kind: None,
        memcpyDeviceToDevice=3,
    )
    cuda.Event = Event
    cuda.get_elapsed_time = lambda a, b: 1.0
    cp.cuda = cuda
    return cp


def child(argv):
    """The check itself on the stand-in (run in a subprocess by the kill
    test)."""
    sys.modules["cupy"] = fake_cupy()
    sys.modules["torch"] = None  # the FP8 GEMM needs a GPU: skipped here
    sys.argv = ["gpu_check.py"] + argv
    return g.main()


def kill_test(tmp):
    """A run killed midway keeps every row written before the kill, and a
    GPU.md that names the phase under way."""
    out = os.path.join(tmp, "killed")
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", "--out-dir", out, "--quick"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checks = os.path.join(out, "checks.tsv")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if os.path.exists(checks) and sum(1 for _ in open(checks)) > 40:
            break
        if p.poll() is not None:
            raise AssertionError(f"the run ended (rc {p.returncode}) before it could be killed")
        time.sleep(0.05)
    p.kill()
    p.wait()
    rows = open(checks).read().splitlines()
    assert rows[0].split("\t") == ["seconds", "family", "result", "what"], rows[0]
    assert len(rows) > 40, len(rows)
    # Every complete row has its four fields (the last may be cut mid-line).
    assert all(len(r.split("\t")) == 4 for r in rows[:-1]), rows[:3]
    text = open(os.path.join(out, "GPU.md")).read()
    assert "Under way when this was written" in text, text
    assert os.path.getsize(os.path.join(out, "log.txt")) > 0
    print(f"dry run: a run killed after {len(rows) - 1} checks kept them, and GPU.md names the phase under way")


def main():
    if sys.argv[1:2] == ["--child"]:
        return child(sys.argv[2:])
    env = dict(os.environ, PYTHONPATH="")
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([sys.executable, os.path.join(HERE, "gpu_check.py"), "--out-dir", d],
                           capture_output=True, text=True, env=env)
    try:
        import cupy  # noqa: F401
        have_cupy = True
    except ImportError:
        have_cupy = False
    if not have_cupy:
        assert r.returncode == 2 and "CuPy" in r.stderr, (r.returncode, r.stderr)
        print("dry run: without CuPy the check exits 2:", r.stderr.strip())
    with tempfile.TemporaryDirectory() as d:
        kill_test(d)
        out = os.path.join(d, "run")
        rc = child(["--quick", "--out-dir", out, "--compare-ptx", g.PTX_DIR])
        assert rc == 0, rc
        text = open(os.path.join(out, "GPU.md")).read()
        assert "| unpack |" in text and "| encode |" in text and "| conformance |" in text, text
        assert "| mx quantize |" in text and "| nvfp4 dequantize |" in text, text
        assert "Under way" not in text, text
        timed = open(os.path.join(out, "timings.tsv")).read().splitlines()[1:]
        want = len(g.timed_kernels(1 << 16))
        labels = {r.split("\t")[0] for r in timed}
        assert len(timed) == 2 * want, (len(timed), want)
        assert len(labels) == 2 and any(lb.startswith("before ") for lb in labels), labels
        assert "FP8 GEMM skipped" in text, text
    kinds = {n.split("_")[0] for n in LAUNCHES}
    assert kinds == {"unpack", "pack", "sum", "encode", "decode", "mx", "nvfp4", "amax"}, kinds
    print(f"dry run: {len(LAUNCHES)} launches of {len(set(LAUNCHES))} kernels, all of them "
          f"entries of the committed PTX with enough threads and buffers; {want} kernels timed on "
          "two builds; GPU.md, checks.tsv and timings.tsv written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
