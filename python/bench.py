"""Speed of the bitpack Python package against ml_dtypes (and torchao, when
installed), in one process, on 16 M float32 values; and the cost of a call
on 1,000 values.

    python python/bench.py [--n 16777216] [--repeat 7] [--write]

Each figure is the median of `--repeat` timed runs after one warm-up. With
`--write` the table replaces the `python` section of BENCHMARKS.md (between
its `<!-- bench:python:begin -->` and `<!-- bench:python:end -->` markers).
"""

import argparse
import os
import platform
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The installed package, not the source folder beside this script.
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

import bitpack  # noqa: E402


def median_time(f, repeat):
    f()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def cpu():
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), None)
        with open("/proc/cpuinfo") as f:
            flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
        simd = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
        return f"{model} ({simd}, {os.cpu_count()} logical cores)"
    except OSError:
        return platform.processor() or platform.machine()


def fmt_s(s):
    return f"{s * 1e3:.2f} ms" if s >= 1e-3 else f"{s * 1e6:.1f} µs"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=1 << 24)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--write", action="store_true", help="write the table into BENCHMARKS.md")
    args = p.parse_args()

    rng = np.random.default_rng(0)
    x = (rng.standard_normal(args.n) * 3).astype(np.float32)
    rows = []
    threads = bitpack.get_num_threads()
    for fmt in ("float4_e2m1fn", "float8_e4m3fn"):
        dt = bitpack.format_dtype(fmt)
        codes = bitpack.encode(x, fmt)
        enc_ref = median_time(lambda: x.astype(dt), max(3, args.repeat // 2))
        dec_ref = median_time(lambda: codes.astype(np.float32), max(3, args.repeat // 2))
        for n in sorted({1, threads}):
            bitpack.set_num_threads(n)
            where = f" ({n} thread{'s' if n > 1 else ''})"
            ours = median_time(lambda: bitpack.encode(x, fmt), args.repeat)
            rows.append((f"encode to {fmt}{where}", ours, "ml_dtypes `astype`", enc_ref))
            ours = median_time(lambda: bitpack.decode(codes), args.repeat)
            rows.append((f"decode {fmt} to float32{where}", ours, "ml_dtypes `astype`", dec_ref))
        bitpack.set_num_threads(0)
    x2 = x.reshape(-1, 4096)
    for fmt in ("float4_e2m1fn", "float8_e4m3fn"):
        ours = median_time(lambda: bitpack.mx_quantize(x2, fmt), args.repeat)
        try:
            from torchao.prototype.mx_formats.mx_tensor import to_mx  # noqa: F401
            import torch

            elem = {"float4_e2m1fn": torch.float4_e2m1fn_x2, "float8_e4m3fn": torch.float8_e4m3fn}[fmt]
            tx = torch.from_numpy(x2)
            ref = median_time(lambda: to_mx(tx, elem, 32), max(3, args.repeat // 2))
            rows.append((f"MX quantize to {fmt}", ours, "torchao `to_mx`", ref))
        except Exception:  # torchao is optional
            rows.append((f"MX quantize to {fmt}", ours, "torchao not installed", None))
    small = x[:1000].copy()
    call = median_time(lambda: bitpack.encode(small, "float8_e4m3fn"), 201)
    call_ref = median_time(lambda: small.astype(ml_dtypes.float8_e4m3fn), 201)
    rows.append(("encode of 1,000 values (call overhead)", call, "ml_dtypes `astype`", call_ref))

    lines = [
        f"`python python/bench.py` ({args.n:,} float32 values, standard normal times 3; "
        f"medians of {args.repeat} runs after a warm-up; one process) on {cpu()}, "
        f"Python {platform.python_version()}, numpy {np.__version__}, ml_dtypes "
        f"{ml_dtypes.__version__}, bitpack {bitpack.__version__}.",
        "",
        "| operation | bitpack | baseline | baseline time | baseline / bitpack |",
        "|---|---|---|---|---|",
    ]
    for name, ours, ref_name, ref in rows:
        ratio = f"{ref / ours:.1f}x" if ref else "–"
        lines.append(f"| {name} | {fmt_s(ours)} | {ref_name} | {fmt_s(ref) if ref else '–'} | {ratio} |")
    table = "\n".join(lines)
    print(table)
    if args.write:
        import benchlib

        path = os.path.join(os.path.dirname(HERE), "BENCHMARKS.md")
        with open(path) as f:
            text = f.read()
        benchlib.write_if_changed(path, benchlib.replace_block(text, "python", table, path))
        print(f"wrote the python section of {path}")


if __name__ == "__main__":
    main()
