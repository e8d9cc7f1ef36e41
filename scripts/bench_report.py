#!/usr/bin/env python3
"""Writes BENCHMARKS.md from the medians of the last kernel benchmark run.

Reads target/criterion/**/new/{benchmark,estimates}.json (written by
`cargo bench -p bitpack --bench kernels`), and writes, per kernel group, a
table of medians and ratios to the baselines and the floor measured in the
same run, then every target of the kernels issue with PASS/MISS and the
margin, the CPU model (/proc/cpuinfo) and the date.

Usage: python3 scripts/bench_report.py [--out BENCHMARKS.md] [--notes FILE]

`--notes` appends a markdown file (the measured explanations of misses) after
the generated sections.
"""

import argparse
import datetime
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRIT = os.path.join(ROOT, "target", "criterion")
COMMAND = (
    "cargo bench -p bitpack --bench kernels && python3 scripts/bench_report.py "
    "--notes scripts/bench_notes.md"
)


def load():
    """{(group, function, param): median ns}."""
    res = {}
    for bj in glob.glob(os.path.join(CRIT, "**", "new", "benchmark.json"), recursive=True):
        d = os.path.dirname(bj)
        with open(bj) as f:
            b = json.load(f)
        with open(os.path.join(d, "estimates.json")) as f:
            e = json.load(f)
        res[(b["group_id"], b["function_id"], b["value_str"] or "")] = e["median"]["point_estimate"]
    return res


def cpu_model():
    model, flags = "unknown", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "unknown":
                    model = line.split(":", 1)[1].strip()
                if line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    cores = os.cpu_count()
    simd = " ".join(x for x in ("avx2", "bmi2", "popcnt", "avx512f") if x in flags)
    return model, cores, simd


def rustc():
    try:
        return subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


def fmt_t(ns):
    if ns is None:
        return "–"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def fmt_r(x):
    return "–" if x is None else f"{x:.2f}"


def params(res, group):
    ps = {p for (g, _, p) in res if g == group}

    def key(p):
        return (0, int(p)) if p.isdigit() else (1, p)

    return sorted(ps, key=key)


def get(res, group, fn, p):
    return res.get((group, fn, p))


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


class Report:
    def __init__(self, res):
        self.res = res
        self.lines = []
        self.targets = []
        add = res.get(("clock", "add_chain", ""))
        # 2^16 iterations of 8 dependent adds.
        self.ghz = (65536 * 8) / add if add else None

    def out(self, s=""):
        self.lines.append(s)

    def table(self, group, columns, floor, ratios, title, note=None):
        """columns: function ids shown as medians; floor: function id of the
        floor; ratios: [(label, numerator fn, denominator fn)]."""
        ps = params(self.res, group)
        if not ps:
            return
        self.out(f"### `{group}`: {title}")
        self.out()
        if note:
            self.out(note)
            self.out()
        present = [c for c in columns if any(get(self.res, group, c, p) for p in ps)]
        hdr = ["width"] + present + [label for (label, _, _) in ratios]
        self.out("| " + " | ".join(hdr) + " |")
        self.out("|" + "---|" * len(hdr))
        for p in ps:
            row = [p] + [fmt_t(get(self.res, group, c, p)) for c in present]
            for (_, num, den) in ratios:
                row.append(fmt_r(ratio(get(self.res, group, num, p), get(self.res, group, den, p))))
            self.out("| " + " | ".join(row) + " |")
        self.out()

    def target(self, name, group, p, value, limit, kind, unit="x"):
        """kind '<=' or '>='."""
        if value is None:
            self.targets.append((name, group, p, "–", f"{kind} {limit}{unit}", "NOT RUN", ""))
            return
        ok = value <= limit if kind == "<=" else value >= limit
        if ok:
            margin = f"{abs(limit / value - 1) * 100:.0f}% headroom" if value else ""
        else:
            margin = (
                f"{(value / limit - 1) * 100:.0f}% over"
                if kind == "<="
                else f"{(1 - value / limit) * 100:.0f}% short"
            )
        self.targets.append(
            (name, group, p, f"{value:.2f}{unit}", f"{kind} {limit}{unit}", "PASS" if ok else "MISS", margin)
        )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    ap.add_argument("--notes", default=None)
    args = ap.parse_args()
    res = load()
    if not res:
        sys.exit(f"no criterion results under {CRIT}; run the benchmarks first")
    r = Report(res)
    model, cores, simd = cpu_model()
    date = datetime.date.today().isoformat()

    r.out("# Kernel benchmarks")
    r.out()
    r.out("Generated by `scripts/bench_report.py` from the criterion medians of one run of")
    r.out("`bitpack/benches/kernels.rs`; every ratio compares two medians of that run.")
    r.out()
    r.out(f"- CPU: {model} ({cores} cores; {simd})")
    if r.ghz:
        r.out(f"- Core clock measured in the run (`clock/add_chain`, 8 dependent adds per loop): {r.ghz:.2f} GHz")
    r.out(f"- Date: {date}")
    r.out(f"- Toolchain: {rustc()}")
    r.out(f"- Reproduce: `{COMMAND}`")
    r.out()
    r.out("`kernel` is the public function (the variant the dispatch tables pick on this")
    r.out("CPU), `portable` the same call with the x86 variants switched off, `bmi2` the")
    r.out("BMI2 variant, `popcnt` the POPCNT variant. Floors: `read_floor` reads the same")
    r.out("packed bytes (AVX2 add reduction), `read_input` the input values of a pack,")
    r.out("`write_floor` is a `memset` of the output, `store_loop` writes the output with")
    r.out("plain AVX2 stores of computed values, `memcpy` copies the packed bytes. Ratios")
    r.out("named `x/floor` are time over floor (1.00 is the floor);")
    r.out("ratios named `baseline/kernel` are speed-ups of the kernel over that baseline.")
    r.out("Times are medians. The machine is shared with other builds, so medians move")
    r.out("between runs (see the notes at the end).")
    r.out()

    targets_at = len(r.lines)
    r.out("## Tables")
    r.out()
    r.table(
        "sum/65536", ["kernel", "portable", "popcnt", "read_floor", "naive"], "read_floor",
        [("kernel/floor", "kernel", "read_floor"), ("portable/kernel", "portable", "kernel"),
         ("popcnt/kernel", "popcnt", "kernel"),
         ("naive/kernel", "naive", "kernel")],
        "sum of 65,536 packed values (cache-resident)",
    )
    r.table(
        "sum/67108864", ["kernel", "read_floor"], "read_floor",
        [("kernel/floor", "kernel", "read_floor")],
        "sum of 64 Mi packed values (memory-resident)",
    )
    r.table(
        "unpack_u8/65536", ["kernel", "portable", "bmi2", "write_floor", "store_loop", "naive"],
        "write_floor",
        [("kernel/floor", "kernel", "write_floor"), ("store_loop/floor", "store_loop", "write_floor"),
         ("portable/kernel", "portable", "kernel"),
         ("bmi2/kernel", "bmi2", "kernel"), ("naive/kernel", "naive", "kernel")],
        "unpack 65,536 values to `u8`",
    )
    r.table(
        "unpack_u8/67108864", ["kernel", "write_floor"], "write_floor",
        [("kernel/floor", "kernel", "write_floor")],
        "unpack 64 Mi values to `u8`",
    )
    r.table(
        "unpack_u32/65536", ["kernel", "portable", "bitpacker8x", "bitpacker1x", "write_floor"],
        "write_floor",
        [("kernel/floor", "kernel", "write_floor"), ("kernel/bitpacker8x", "kernel", "bitpacker8x"),
         ("bitpacker1x/kernel", "bitpacker1x", "kernel"), ("portable/kernel", "portable", "kernel")],
        "unpack 65,536 values to `u32`",
        "`bitpacker1x` decodes the same bytes (its layout is the dense stream); "
        "`bitpacker8x` decodes the same values from its own interleaved layout.",
    )
    r.table(
        "pack_u8/65536", ["kernel", "portable", "bmi2", "memcpy", "read_input", "naive"], "memcpy",
        [("kernel/memcpy", "kernel", "memcpy"), ("read_input/memcpy", "read_input", "memcpy"),
         ("portable/kernel", "portable", "kernel"),
         ("bmi2/kernel", "bmi2", "kernel"), ("naive/kernel", "naive", "kernel")],
        "pack 65,536 `u8` values",
    )
    r.table(
        "pack_u8/67108864", ["kernel", "memcpy"], "memcpy",
        [("kernel/memcpy", "kernel", "memcpy")],
        "pack 64 Mi `u8` values",
    )
    r.table(
        "pack_u32/65536",
        ["kernel", "portable", "bitpacker1x", "bitpacker8x", "memcpy", "read_input"], "memcpy",
        [("kernel/memcpy", "kernel", "memcpy"), ("read_input/memcpy", "read_input", "memcpy"),
         ("bitpacker1x/kernel", "bitpacker1x", "kernel"),
         ("bitpacker8x/kernel", "bitpacker8x", "kernel"), ("portable/kernel", "portable", "kernel")],
        "pack 65,536 `u32` values",
        "`bitpacker1x` writes the same bytes (checked by the benchmark); `bitpacker8x` its own layout.",
    )
    r.table(
        "decode_f32/65536",
        ["kernel", "table", "portable", "per_element", "half_f16_to_f32", "write_floor", "store_loop"],
        "write_floor",
        [("kernel/floor", "kernel", "write_floor"), ("store_loop/floor", "store_loop", "write_floor"),
         ("table/kernel", "table", "kernel"), ("per_element/kernel", "per_element", "kernel"),
         ("half/kernel", "half_f16_to_f32", "kernel"), ("portable/kernel", "portable", "kernel")],
        "decode 65,536 packed codes to `f32`",
        "`kernel` is `formats::decode_into` on a `NarrowArray`; `table` the generic table kernel "
        "(`kernels::decode`); `per_element` decodes one value at a time (`MiniFloat::to_f32`); "
        "`store_loop` writes the same 256 KiB of computed `f32`s with plain AVX2 stores; "
        "`half_f16_to_f32` converts as many `f16` values to `f32` (the `half` crate, F16C).",
    )
    r.table(
        "decode_f32/67108864", ["kernel", "write_floor", "store_loop"], "write_floor",
        [("kernel/floor", "kernel", "write_floor"), ("store_loop/floor", "store_loop", "write_floor")],
        "decode 64 Mi packed codes to `f32`",
    )
    r.table(
        "encode_f32/65536", ["kernel", "portable", "per_element", "half_f32_to_f16"], None,
        [("per_element/kernel", "per_element", "kernel"), ("half/kernel", "half_f32_to_f16", "kernel"),
         ("portable/kernel", "portable", "kernel")],
        "encode 65,536 `f32` values (round to nearest even) and pack",
        "`kernel` is `formats::encode_into` on a `NarrowArray`; `per_element` runs the crate's "
        "rounding routine (`FloatFormat::encode_f32`) per value and writes its bits; "
        "`half_f32_to_f16` converts as many `f32` values to `f16` (the `half` crate, F16C).",
    )
    if r.ghz:
        g = "encode_f32/65536"
        ps = params(res, g)
        if ps:
            r.out("Encode throughput in values per cycle at the measured clock:")
            r.out()
            r.out("| format | kernel | portable | per_element | half_f32_to_f16 |")
            r.out("|---|---|---|---|---|")
            for p in ps:
                cells = []
                for fn in ("kernel", "portable", "per_element", "half_f32_to_f16"):
                    t = get(res, g, fn, p)
                    cells.append("–" if t is None else f"{65536 / (t * r.ghz):.2f}")
                r.out(f"| {p} | " + " | ".join(cells) + " |")
            r.out()

    # Targets.
    for w in map(str, range(1, 9)):
        r.target("sum, 65,536 values: time / read floor", "sum/65536", w,
                 ratio(get(res, "sum/65536", "kernel", w), get(res, "sum/65536", "read_floor", w)), 2.5, "<=")
    for w in map(str, range(1, 9)):
        r.target("sum, 64 Mi values: time / memory read floor", "sum/67108864", w,
                 ratio(get(res, "sum/67108864", "kernel", w), get(res, "sum/67108864", "read_floor", w)),
                 1.5, "<=")
    for w in map(str, range(1, 9)):
        r.target("unpack to u8, 65,536 values: time / write floor", "unpack_u8/65536", w,
                 ratio(get(res, "unpack_u8/65536", "kernel", w), get(res, "unpack_u8/65536", "write_floor", w)),
                 2.0, "<=")
    g = "unpack_u32/65536"
    for w in params(res, g):
        r.target("unpack to u32: time / BitPacker8x", g, w,
                 ratio(get(res, g, "kernel", w), get(res, g, "bitpacker8x", w)), 1.0, "<=")
    for w in params(res, g):
        r.target("unpack to u32: BitPacker1x / time", g, w,
                 ratio(get(res, g, "bitpacker1x", w), get(res, g, "kernel", w)), 5.0, ">=")
    g = "pack_u32/65536"
    for w in params(res, g):
        r.target("pack u32: BitPacker1x / time", g, w,
                 ratio(get(res, g, "bitpacker1x", w), get(res, g, "kernel", w)), 5.0, ">=")
    for w in params(res, g):
        r.target("pack u32: time / memcpy of the packed bytes", g, w,
                 ratio(get(res, g, "kernel", w), get(res, g, "memcpy", w)), 3.0, "<=")
    g = "pack_u8/65536"
    for w in params(res, g):
        r.target("pack u8: time / memcpy of the packed bytes", g, w,
                 ratio(get(res, g, "kernel", w), get(res, g, "memcpy", w)), 3.0, "<=")
    g = "decode_f32/65536"
    for f in ("e2m1", "e4m3"):
        r.target("decode to f32: time / write floor", g, f,
                 ratio(get(res, g, "kernel", f), get(res, g, "write_floor", f)), 2.0, "<=")
    g = "encode_f32/65536"
    for f in ("e2m1", "e4m3"):
        t = get(res, g, "kernel", f)
        v = None if t is None or not r.ghz else 65536 / (t * r.ghz)
        r.target("encode f32 (RNE): values per cycle", g, f, v, 1.0, ">=", unit="")

    tl = ["## Targets", ""]
    passed = sum(1 for t in r.targets if t[5] == "PASS")
    tl.append(f"{passed} of {len(r.targets)} target checks pass.")
    tl.append("")
    tl.append("| target | group | width/format | measured | limit | result | margin |")
    tl.append("|---|---|---|---|---|---|---|")
    for (name, group, p, v, lim, res_, margin) in r.targets:
        tl.append(f"| {name} | `{group}` | {p} | {v} | {lim} | {res_} | {margin} |")
    tl.append("")
    r.lines[targets_at:targets_at] = tl

    if args.notes:
        with open(args.notes) as f:
            r.out(f.read().rstrip())
            r.out()

    with open(args.out, "w") as f:
        f.write("\n".join(r.lines).rstrip() + "\n")
    print(f"wrote {args.out}: {passed} of {len(r.targets)} targets pass")


if __name__ == "__main__":
    main()
