#!/usr/bin/env python3
"""Writes the "Views and reductions" section of BENCHMARKS.md.

Reads the medians of the last `cargo bench -p bitpack --bench views` run
(target/criterion/views_*/**/new/{benchmark,estimates}.json), and replaces the
section that starts at the line "## Views and reductions" (up to the next
"## " heading, or the end) with tables of medians and ratios to the
baselines measured in the same run; the other sections of the file are kept
as they are. Creates the file when it is absent.

Usage: python3 scripts/views_report.py [--out BENCHMARKS.md] [--notes FILE]

`--notes` inserts a markdown file (the analysis: when each layout wins)
after the tables.
"""

import argparse
import datetime
import glob
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRIT = os.path.join(ROOT, "target", "criterion")
HEADING = "## Views and reductions"
COMMAND = (
    "cargo bench -p bitpack --bench views && python3 scripts/views_report.py "
    "--notes scripts/views_notes.md"
)


def load():
    """{(group, function, param): median ns} for the views groups."""
    res = {}
    pattern = os.path.join(CRIT, "views_*", "**", "new", "benchmark.json")
    for bj in glob.glob(pattern, recursive=True):
        d = os.path.dirname(bj)
        with open(bj) as f:
            b = json.load(f)
        with open(os.path.join(d, "estimates.json")) as f:
            e = json.load(f)
        res[(b["group_id"], b["function_id"], b["value_str"] or "")] = e["median"]["point_estimate"]
    return res


def cpu():
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
    simd = " ".join(x for x in ("avx2", "bmi2", "popcnt", "avx512f") if x in flags)
    return f"{model}, {os.cpu_count()} cores ({simd})"


def rustc():
    try:
        return subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


def t(ns):
    if ns is None:
        return "–"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def x(num, den):
    """`num / den` as a speed-up factor."""
    if num is None or den is None or den == 0:
        return "–"
    r = num / den
    return f"{r:.1f}x" if r >= 0.95 else f"{r:.2f}x"


def params(res, group):
    seen = []
    for (g, _, p) in res:
        if g == group and p not in seen:
            seen.append(p)

    def key(p):
        try:
            return (0, int(p), "")
        except ValueError:
            return (1, 0, p)

    return sorted(seen, key=key)


def table(res, group, first, rows_fn, header):
    out = [f"| {first} | " + " | ".join(header) + " |", "|" + "---|" * (len(header) + 1)]
    for p in params(res, group):
        out.append(f"| {p} | " + " | ".join(rows_fn(lambda f: res.get((group, f, p)))) + " |")
    return out


def layout_rows(get):
    d, a, n, u = get("dense"), get("word_aligned"), get("naive_get"), get("unpacked_u8")
    return [t(d), t(a), t(n), t(u), x(n, d), x(u, d), x(n, a), x(u, a), x(d, a)]


LAYOUT_HEADER = [
    "dense",
    "word_aligned",
    "naive `get` loop",
    "unpacked `Vec<u8>`",
    "dense vs naive",
    "dense vs unpacked",
    "aligned vs naive",
    "aligned vs unpacked",
    "aligned vs dense",
]


def dispatch_rows(get):
    return [
        t(get("dyn_sum")),
        t(get("typed_sum")),
        t(get("kernel_sum")),
        x(get("typed_sum"), get("dyn_sum")),
        t(get("dyn_sum_aligned")),
        t(get("typed_sum_aligned")),
        x(get("typed_sum_aligned"), get("dyn_sum_aligned")),
        t(get("dyn_unpack")),
        t(get("unpacked_u64")),
    ]


DISPATCH_HEADER = [
    "`DynNarrowArray::sum`",
    "`NarrowArray<uN>::sum`",
    "`kernels::sum`",
    "typed / dyn",
    "dyn, word-aligned",
    "typed, word-aligned",
    "typed / dyn (aligned)",
    "`DynNarrowArray::unpack_into` (u64)",
    "sum of an unpacked `Vec<u64>`",
]


def section(res, notes):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        HEADING,
        "",
        f"Measured {now} on {cpu()}, {rustc()}, in one run of the views",
        "benchmark (criterion medians, 15 samples of 0.7 s after 0.2 s of warm-up, on a",
        "shared machine: other builds ran at the same time, so single numbers move by",
        "10-20% between runs; ratios within one table are from the same run). Reproduce:",
        "",
        "```sh",
        COMMAND,
        "```",
        "",
        "A ratio `a vs b` is the time of `b` over the time of `a` (above 1: `a` is",
        "faster). `naive get loop` calls `NarrowArray::get` (or `View::get`) once per",
        "value; `unpacked Vec<u8>` runs the same loop over the values stored one per",
        "byte, which is what the packed kernels compete with.",
        "",
        "### Strided sums: 5-bit values, a 1-d view of `3 * 65,536` values stepping by the stride",
        "",
        "Stride 3 (65,536 values summed) is the seed's workload; -3 walks backwards.",
        "",
    ]
    lines += table(res, "views/strided_sum_5bit", "stride", layout_rows, LAYOUT_HEADER)
    lines += [
        "",
        "### Axis sums: 65,536 5-bit values, into a caller-owned `u64` buffer",
        "",
        "`RxC/axisK` sums a contiguous `R x C` array over axis `K` (axis 0: column sums,",
        "axis 1: row sums).",
        "",
    ]
    lines += table(res, "views/axis_sum_5bit", "shape/axis", layout_rows, LAYOUT_HEADER)
    lines += [
        "",
        "### Whole sums: 65,536 values, widths 1..=8",
        "",
    ]
    lines += table(res, "views/sum_65536", "width", layout_rows, LAYOUT_HEADER)
    lines += [
        "",
        "### Scans: unpacking 65,536 values into a slice of the element type, widths 1..=8",
        "",
        "The element types are `arbitrary_int::u1`..`u7` and `u8`; `unpacked Vec<u8>` is",
        "a copy of the unpacked bytes (the floor).",
        "",
    ]
    lines += table(res, "views/scan_65536", "width", layout_rows, LAYOUT_HEADER)
    for n in ("65536", "64"):
        lines += [
            "",
            f"### Run-time width dispatch: {int(n):,} values",
            "",
            "The run-time-width array looks up the width's kernel in a table once per call;",
            "the typed array (`arbitrary_int::uN`) names the width in its type.",
            "",
        ]
        lines += table(res, f"views/dispatch_{n}", "width", dispatch_rows, DISPATCH_HEADER)
    if notes:
        with open(notes) as f:
            lines += ["", f.read().strip()]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    ap.add_argument("--notes")
    args = ap.parse_args()
    res = load()
    if not res:
        raise SystemExit("no views benchmark results under target/criterion: run the bench first")
    new = section(res, args.notes)
    old = ""
    if os.path.exists(args.out):
        with open(args.out) as f:
            old = f.read()
    if HEADING in old:
        start = old.index(HEADING)
        rest = old[start + len(HEADING):]
        nxt = rest.find("\n## ")
        end = start + len(HEADING) + nxt + 1 if nxt >= 0 else len(old)
        text = old[:start] + new + ("\n" + old[end:] if nxt >= 0 else "")
    elif old:
        text = old.rstrip("\n") + "\n\n" + new
    else:
        text = "# Benchmarks\n\n" + new
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
