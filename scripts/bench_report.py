#!/usr/bin/env python3
"""Writes the benchmark reports: `BENCHMARKS.md`, section by section, and the
performance block of the kernels' docs (`bitpack/src/kernels/mod.rs`).

Reads the criterion medians of the last run (`<criterion>/**/new/
{benchmark,estimates}.json`; `$CARGO_TARGET_DIR/criterion`, else
`target/criterion`), or of several whole runs (`--criterion DIR` once per
run, each a copy of `target/criterion` after one run: every time is then
the median of the runs' medians, which a shared, noisy machine moves less
than one run's), and rewrites only the text between the markers of each
chosen section:

    <!-- bench:NAME:begin -->
    ...generated...
    <!-- bench:NAME:end -->

Everything outside the markers (headings, hand-written analysis) is kept as
it is. The sections and the blocks each one owns:

- `kernels` (`cargo bench -p bitpack-bench --bench kernels`): the block `kernels`
  of BENCHMARKS.md (tables, targets, then `scripts/bench_notes.md`) and the
  block `kernels` of the `# Performance` docs in `bitpack/src/kernels/mod.rs`,
  both from the same results, so the two cannot disagree.
- `views` (`--bench views`): the block `views` (tables, then
  `scripts/views_notes.md`).
- `formats` (`--bench formats`): the tables `formats-e8m0`,
  `formats-quantize` and `formats-wide`; the analysis between them is
  hand-written.

A section whose results are absent is left as it is, with a message. A
block whose markers are missing from BENCHMARKS.md is appended at the end
under a new heading. A new section (e.g. `gpu`) is one more entry in
`SECTIONS`: a function from the results to {block name: markdown}.

Usage: python3 scripts/bench_report.py [--section all|kernels|views|formats]
           [--out BENCHMARKS.md] [--doc FILE | --no-doc] [--criterion DIR ...]
           [--notes FILE]

Three whole runs of the kernels bench, for example:

    for k in 1 2 3; do
        cargo bench -p bitpack-bench --bench kernels &&
            rm -rf target/criterion-$k && cp -r target/criterion target/criterion-$k
    done
    python3 scripts/bench_report.py --section kernels \
        --criterion target/criterion-1 --criterion target/criterion-2 \
        --criterion target/criterion-3

`--notes` replaces the notes file of the one section named by `--section`.
Exit status: 0 when at least one chosen section was written (or was
already up to date), 1 when none had results, 2 on bad markers or input.
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchlib import (  # noqa: E402
    ROOT,
    ReportError,
    criterion_dir,
    find_block,
    fmt_time,
    load_runs,
    machine,
    markers,
    params,
    ratio,
    replace_block,
    run_time,
    rustc,
    wrap,
    write_if_changed,
)

fmt_t = fmt_time
# How many whole runs the medians come from (`--criterion` given that many
# times); the sections' headers say so.
RUNS = 1
DOC = os.path.join(ROOT, "bitpack", "src", "kernels", "mod.rs")
DOC_PREFIX = "//! "
NOTES = {
    "kernels": os.path.join(ROOT, "scripts", "bench_notes.md"),
    "views": os.path.join(ROOT, "scripts", "views_notes.md"),
}


def command(bench):
    return f"cargo bench -p bitpack-bench --bench {bench} && python3 scripts/bench_report.py --section {bench}"


def read_notes(path):
    if not path:
        return None
    with open(path, encoding="utf-8") as f:
        return f.read().strip()


def get(res, group, fn, p):
    return res.get((group, fn, p))


def fmt_r(x):
    return "–" if x is None else f"{x:.2f}"


# ---------------------------------------------------------------- kernels

KERNEL_GROUPS = [
    "sum/65536", "sum/67108864", "unpack_u8/65536", "unpack_u8/67108864",
    "unpack_u32/65536", "pack_u8/65536", "pack_u8/67108864", "pack_u32/65536",
    "decode_f32/65536", "decode_f32/67108864", "encode_f32/65536", "sum_parts/7", "sum_parts/5",
    "clock",
]


def clock_ghz(res, name="add_chain"):
    add = res.get(("clock", name, ""))
    # 2^16 iterations of 8 dependent register adds.
    return (65536 * 8) / add if add else None


# The `clock` group's vector instruction benches (`VECTOR_OPS` in
# `benches/kernels.rs`).
VECTOR_OPS = ["vpaddb_ymm", "vpshufb_ymm", "vpsrlw_ymm", "vpsadbw_ymm", "vpternlogq_zmm",
              "vpopcntq_zmm"]


def vector_rate(res, ghz, name):
    """Instructions a cycle of `clock/<name>`: 2^16 iterations of 8."""
    t = res.get(("clock", name, ""))
    return (65536 * 8) / (t * ghz) if t and ghz else None


class Report:
    def __init__(self, res):
        self.res = res
        self.lines = []
        self.targets = []
        self.ghz = clock_ghz(res)

    def out(self, s=""):
        self.lines.append(s)

    def table(self, group, columns, floor, ratios, title, note=None):
        """columns: function ids shown as medians; floor: function id of the
        floor; ratios: [(label, numerator fn, denominator fn)]."""
        ps = params(self.res, group)
        if not ps:
            return
        self.out(f"#### `{group}`: {title}")
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
        """kind '<=', '<' (an upper limit) or '>=' (a lower one)."""
        if value is None:
            self.targets.append((name, group, p, "–", f"{kind} {limit}{unit}", "NOT RUN", ""))
            return
        upper = kind in ("<=", "<")
        ok = {"<=": value <= limit, "<": value < limit, ">=": value >= limit}[kind]
        if ok:
            margin = f"{abs(limit / value - 1) * 100:.0f}% headroom" if value else ""
        else:
            margin = (
                f"{(value / limit - 1) * 100:.0f}% over"
                if upper
                else f"{(1 - value / limit) * 100:.0f}% short"
            )
        self.targets.append(
            (name, group, p, f"{value:.2f}{unit}", f"{kind} {limit}{unit}", "PASS" if ok else "MISS", margin)
        )


def gvals(t):
    """Billions of values per second of 65,536 values in `t` ns."""
    return None if not t else 65536 / t


def kernels_section(res, mtimes, notes):
    if not any(g in mtimes for g in KERNEL_GROUPS if g != "clock"):
        return None
    r = Report(res)
    model, cores, simd = machine()
    when = run_time(mtimes, KERNEL_GROUPS)

    if RUNS == 1:
        r.out("Generated by `scripts/bench_report.py` from the criterion medians of one run of")
        r.out("`benches/kernels.rs`; every ratio compares two medians of that run.")
    else:
        r.out("Generated by `scripts/bench_report.py` from the criterion medians of "
              f"{RUNS} whole runs of")
        r.out("`benches/kernels.rs`: every time is the median of the runs' medians, and every "
              "ratio compares two such times.")
    r.out()
    r.out(f"- CPU: {model} ({cores} cores; {simd})")
    if r.ghz:
        r.out(f"- Core clock measured in the run (`clock/add_chain`, 8 dependent register adds per loop): {r.ghz:.2f} GHz")
        wide = clock_ghz(r.res, "add_chain_avx512")
        if wide:
            r.out(f"- Clock during 512-bit instructions (`clock/add_chain_avx512`, the same chain of `vpaddd`): {wide:.2f} GHz")
        rates = [(op, vector_rate(r.res, r.ghz, op)) for op in VECTOR_OPS]
        rates = ", ".join(f"`{op}` {v:.2f}" for (op, v) in rates if v)
        if rates:
            r.out(f"- Vector instructions a cycle at that clock (`clock/<instruction>`, eight independent chains of it): {rates}")
    r.out(f"- Date: {when.date().isoformat()}")
    r.out(f"- Toolchain: {rustc()}")
    r.out(f"- Reproduce: `{command('kernels')}`")
    r.out()
    r.out("`kernel` is the public function (the variant the dispatch tables pick on this")
    r.out("CPU), `portable` the same call with the x86 variants switched off, `bmi2` the")
    r.out("BMI2 variant, `popcnt` the POPCNT variant. Floors: `read_floor` reads the same")
    r.out("packed bytes (AVX2 add reduction, from their first 64-byte line on, where the")
    r.out("kernels' loads start), `read_input` the input values of a pack (the same way),")
    r.out("`write_floor` is a `memset` of the output, `store_loop` writes the output with")
    r.out("plain AVX2 stores of computed values, `memcpy` copies the packed bytes. Ratios")
    r.out("named `x/floor` are time over floor (1.00 is the floor);")
    r.out("ratios named `baseline/kernel` are speed-ups of the kernel over that baseline.")
    r.out("Times are medians. The machine is shared with other builds, so medians move")
    r.out("between runs (see the notes at the end).")
    r.out()

    targets_at = len(r.lines)
    r.out("### Tables")
    r.out()
    r.table(
        "sum/65536",
        ["kernel", "avx2", "portable", "popcnt", "fastlanes", "bitpacker8x", "slice", "read_floor",
         "naive"],
        "read_floor",
        [("kernel/floor", "kernel", "read_floor"), ("avx2/kernel", "avx2", "kernel"),
         ("portable/kernel", "portable", "kernel"), ("popcnt/kernel", "popcnt", "kernel"),
         ("fastlanes/kernel", "fastlanes", "kernel"), ("bitpacker8x/kernel", "bitpacker8x", "kernel"),
         ("slice/kernel", "slice", "kernel"), ("naive/kernel", "naive", "kernel")],
        "sum of 65,536 packed values (cache-resident)",
        "`avx2` is the kernel with the AVX-512 variants switched off (run where the CPU has "
        "them); `fastlanes` and `bitpacker8x` unpack each block of the same values from their "
        "own layouts into a stack buffer and sum it (neither crate has a sum of packed values); "
        "`slice` (16, 32 and 64 bits) is the iterator sum of the same bytes as a slice of `u16`, "
        "`u32` or `u64`, what a caller holding such a slice would write.",
    )
    r.table(
        "sum/67108864", ["kernel", "read_floor"], "read_floor",
        [("kernel/floor", "kernel", "read_floor")],
        "sum of 64 Mi packed values (memory-resident)",
    )
    r.table(
        "sum_parts/7",
        ["kernel", "step", "no_permute", "permute_only", "read_floor"],
        "read_floor",
        [("kernel/floor", "kernel", "read_floor"), ("step/floor", "step", "read_floor"),
         ("no_permute/floor", "no_permute", "read_floor"),
         ("permute_only/floor", "permute_only", "read_floor")],
        "the 7-bit sum's loop taken apart (AVX-512), by number of values",
        "`step` runs the kernel's step (a zero-masked `vpermb` of a 64-byte load at a "
        "56-byte stride, the lanes' add, the odd fields' `and` and add) without its "
        "periodic fold, `no_permute` the same without the `vpermb`, `permute_only` the "
        "`vpermb` alone; 32,768 values (28 KiB) stay in L1, 65,536 (56 KiB, the `sum/65536` "
        "stream) do not.",
    )
    r.table(
        "sum_parts/5",
        ["kernel", "step", "no_shuffle", "stride_32", "read_floor"],
        "read_floor",
        [("kernel/floor", "kernel", "read_floor"), ("step/floor", "step", "read_floor"),
         ("no_shuffle/floor", "no_shuffle", "read_floor"),
         ("stride_32/floor", "stride_32", "read_floor")],
        "the 5-bit sum's loop taken apart (AVX2), by number of values",
        "`kernel` is the AVX2 build (the AVX-512 variants switched off); `step` runs its step "
        "(a `pshufb` of a 32-byte load at a 20-byte stride, the lanes' add, the odd fields' "
        "`and` and add) without its periodic fold, `no_shuffle` the same without the "
        "`pshufb`, `stride_32` the step at a 32-byte stride (no load crosses a 32-byte "
        "boundary; it reads 1.6x the bytes); 32,768 values (20 KiB) stay in L1, 65,536 (40 KiB, "
        "the `sum/65536` stream) do not.",
    )
    r.table(
        "unpack_u8/65536",
        ["kernel", "avx2", "portable", "bmi2", "fastlanes", "write_floor", "store_loop", "read_write",
         "naive"],
        "write_floor",
        [("kernel/floor", "kernel", "write_floor"), ("store_loop/floor", "store_loop", "write_floor"),
         ("read_write/floor", "read_write", "write_floor"), ("avx2/floor", "avx2", "write_floor"),
         ("avx2/read_write", "avx2", "read_write"),
         ("kernel/fastlanes", "kernel", "fastlanes"), ("avx2/kernel", "avx2", "kernel"),
         ("portable/kernel", "portable", "kernel"),
         ("bmi2/kernel", "bmi2", "kernel"), ("naive/kernel", "naive", "kernel")],
        "unpack 65,536 values to `u8`",
        "`avx2` is the kernel with the AVX-512 variants switched off (run where the CPU has "
        "them); `fastlanes` unpacks the same values from its own transposed 1024-value layout; "
        "`read_write` reads the packed bytes and writes the 64 KiB output with plain AVX2 loads "
        "and stores and no other work (the floor of an AVX2 unpack, which must do both; "
        "`memset` only writes).",
    )
    r.table(
        "unpack_u8/67108864", ["kernel", "write_floor", "fill_ones"], "write_floor",
        [("kernel/floor", "kernel", "write_floor"), ("kernel/fill_ones", "kernel", "fill_ones"),
         ("fill_ones/floor", "fill_ones", "write_floor")],
        "unpack 64 Mi values to `u8`",
        "`write_floor` fills the 64 MiB output with zeros, `fill_ones` with ones (both "
        "`memset`); past the caches the zeros can be written faster.",
    )
    r.table(
        "unpack_u32/65536",
        ["kernel", "avx2", "portable", "bitpacker8x", "bitpacker1x", "write_floor"],
        "write_floor",
        [("kernel/floor", "kernel", "write_floor"), ("kernel/bitpacker8x", "kernel", "bitpacker8x"),
         ("avx2/kernel", "avx2", "kernel"),
         ("bitpacker1x/kernel", "bitpacker1x", "kernel"), ("portable/kernel", "portable", "kernel")],
        "unpack 65,536 values to `u32`",
        "`bitpacker1x` decodes the same bytes (its layout is the dense stream); "
        "`bitpacker8x` decodes the same values from its own interleaved layout; "
        "`avx2` is the kernel with the AVX-512 variants switched off.",
    )
    r.table(
        "pack_u8/65536",
        ["kernel", "avx2", "portable", "bmi2", "read_write", "read_input", "memcpy", "naive"],
        "read_write",
        [("kernel/read_write", "kernel", "read_write"), ("avx2/read_write", "avx2", "read_write"),
         ("read_input/memcpy", "read_input", "memcpy"),
         ("avx2/kernel", "avx2", "kernel"), ("portable/kernel", "portable", "kernel"),
         ("bmi2/kernel", "bmi2", "kernel"), ("naive/kernel", "naive", "kernel")],
        "pack 65,536 `u8` values",
        "`read_write` reads the input values and writes the packed bytes once each (the floor "
        "of any pack: it must do both); `read_input` reads the input alone, `memcpy` copies the "
        "packed bytes; `avx2` is the kernel with the AVX-512 variants switched off.",
    )
    r.table(
        "pack_u8/67108864", ["kernel", "read_write", "memcpy"], "read_write",
        [("kernel/read_write", "kernel", "read_write"), ("kernel/memcpy", "kernel", "memcpy")],
        "pack 64 Mi `u8` values",
    )
    r.table(
        "pack_u32/65536",
        ["kernel", "avx2", "portable", "bitpacker1x", "bitpacker8x", "read_write", "read_input",
         "memcpy"],
        "read_write",
        [("kernel/read_write", "kernel", "read_write"), ("avx2/read_write", "avx2", "read_write"),
         ("read_input/memcpy", "read_input", "memcpy"),
         ("avx2/kernel", "avx2", "kernel"), ("bitpacker1x/kernel", "bitpacker1x", "kernel"),
         ("bitpacker8x/kernel", "bitpacker8x", "kernel"), ("portable/kernel", "portable", "kernel")],
        "pack 65,536 `u32` values",
        "`bitpacker1x` writes the same bytes (checked by the benchmark); `bitpacker8x` its own layout; "
        "`read_write` reads the input values and writes the packed bytes once each; `read_input` "
        "reads the input alone, `memcpy` copies the packed bytes; `avx2` is the kernel with the "
        "AVX-512 variants switched off.",
    )
    r.table(
        "decode_f32/65536",
        ["kernel", "avx2", "table", "portable", "per_element", "half_f16_to_f32", "write_floor",
         "store_loop"],
        "write_floor",
        [("kernel/floor", "kernel", "write_floor"), ("store_loop/floor", "store_loop", "write_floor"),
         ("avx2/kernel", "avx2", "kernel"),
         ("table/kernel", "table", "kernel"), ("per_element/kernel", "per_element", "kernel"),
         ("half/kernel", "half_f16_to_f32", "kernel"), ("portable/kernel", "portable", "kernel")],
        "decode 65,536 packed codes to `f32`",
        "`kernel` is `formats::decode_into` on a `NarrowArray`; `table` the generic table kernel "
        "(`kernels::decode`); `per_element` decodes one value at a time (`MiniFloat::to_f32`); "
        "`store_loop` writes the same 256 KiB of computed `f32`s with plain AVX2 stores; "
        "`half_f16_to_f32` converts as many `f16` values to `f32` (the `half` crate, F16C); "
        "`avx2` is the kernel with the AVX-512 variants switched off.",
    )
    r.table(
        "decode_f32/67108864", ["kernel", "write_floor", "store_loop", "fill_ones"], "write_floor",
        [("kernel/floor", "kernel", "write_floor"), ("store_loop/floor", "store_loop", "write_floor"),
         ("kernel/fill_ones", "kernel", "fill_ones"), ("fill_ones/floor", "fill_ones", "write_floor")],
        "decode 64 Mi packed codes to `f32`",
        "`write_floor` fills the 256 MiB output with zeros, `fill_ones` with `1.0` (both "
        "`memset`); past the caches the zeros can be written faster.",
    )
    r.table(
        "encode_f32/65536", ["kernel", "avx2", "portable", "per_element", "half_f32_to_f16"], None,
        [("avx2/kernel", "avx2", "kernel"),
         ("per_element/kernel", "per_element", "kernel"), ("half/kernel", "half_f32_to_f16", "kernel"),
         ("portable/kernel", "portable", "kernel")],
        "encode 65,536 `f32` values (round to nearest even) and pack",
        "`kernel` is `formats::encode_into` on a `NarrowArray`; `per_element` runs the crate's "
        "rounding routine (`FloatFormat::encode_f32`) per value and writes its bits; "
        "`half_f32_to_f16` converts as many `f32` values to `f16` (the `half` crate, F16C); "
        "`avx2` is the kernel with the AVX-512 variants switched off.",
    )
    g = "encode_f32/65536"
    ps = params(res, g)
    if ps:
        r.out("Encode throughput in Gval/s (65,536 values over the median time)"
              + (", and in values per cycle at the measured clock:" if r.ghz else ":"))
        r.out()
        fns = ("kernel", "avx2", "portable", "per_element", "half_f32_to_f16")
        hdr = [f"{fn} Gval/s" for fn in fns] + ([f"{fn} per cycle" for fn in fns] if r.ghz else [])
        r.out("| format | " + " | ".join(hdr) + " |")
        r.out("|" + "---|" * (len(hdr) + 1))
        for p in ps:
            ts = [get(res, g, fn, p) for fn in fns]
            cells = ["–" if t is None else f"{gvals(t):.2f}" for t in ts]
            if r.ghz:
                cells += ["–" if t is None else f"{gvals(t) / r.ghz:.2f}" for t in ts]
            r.out(f"| {p} | " + " | ".join(cells) + " |")
        r.out()

    # Targets.
    w18 = [str(w) for w in range(1, 9)]
    g = "unpack_u8/65536"
    for w in w18:
        r.target("unpack to u8: time / write floor (`memset`)", g, w,
                 ratio(get(res, g, "kernel", w), get(res, g, "write_floor", w)), 1.5, "<=")
    for w in w18:
        r.target("unpack to u8: time / fastlanes (same values)", g, w,
                 ratio(get(res, g, "kernel", w), get(res, g, "fastlanes", w)), 1.0, "<")
    # The AVX2 build's own targets, where the run has it apart from the
    # kernel (a CPU with AVX-512; without, the kernel is that build).
    masked = get(res, g, "avx2", "1") is not None
    for w in [str(w) for w in range(1, 8)] if masked else []:
        r.target("unpack to u8, AVX2 only: time / write floor (`memset`)", g, w,
                 ratio(get(res, g, "avx2", w), get(res, g, "write_floor", w)), 1.5, "<=")
    g = "unpack_u32/65536"
    for w in [str(w) for w in range(1, 33)]:
        r.target("unpack to u32: time / BitPacker8x", g, w,
                 ratio(get(res, g, "kernel", w), get(res, g, "bitpacker8x", w)), 1.0, "<=")
    # A pack reads its input and writes its output: the floor is both
    # (`read_write`), not a `memcpy` of the packed bytes, which reading the
    # input alone exceeds at low widths.
    g = "pack_u8/65536"
    for w in params(res, g):
        r.target("pack u8: time / read+write floor", g, w,
                 ratio(get(res, g, "kernel", w), get(res, g, "read_write", w)), 2.0, "<=")
    g = "pack_u32/65536"
    for w in params(res, g):
        r.target("pack u32: time / read+write floor", g, w,
                 ratio(get(res, g, "kernel", w), get(res, g, "read_write", w)), 2.0, "<=")
    g = "sum/65536"
    for w in w18:
        r.target("sum: time / read floor", g, w,
                 ratio(get(res, g, "kernel", w), get(res, g, "read_floor", w)), 2.0, "<=")
    for peer in ("fastlanes", "bitpacker8x"):
        for w in w18:
            r.target(f"sum: time / {peer} (unpack and sum)", g, w,
                     ratio(get(res, g, "kernel", w), get(res, g, peer, w)), 1.0, "<")
    g = "sum/65536"
    for w in w18 if masked else []:
        r.target("sum, AVX2 only: time / read floor", g, w,
                 ratio(get(res, g, "avx2", w), get(res, g, "read_floor", w)), 2.0, "<=")
    g = "decode_f32/65536"
    for f in ("e2m1", "e4m3"):
        r.target("decode to f32: time / f32 `memset`", g, f,
                 ratio(get(res, g, "kernel", f), get(res, g, "write_floor", f)), 1.5, "<=")
    for f in ("e2m1", "e4m3") if masked else []:
        r.target("decode to f32, AVX2 only: time / f32 `memset`", g, f,
                 ratio(get(res, g, "avx2", f), get(res, g, "write_floor", f)), 1.5, "<=")
    g = "encode_f32/65536"
    for f in ("e2m1", "e4m3"):
        r.target("encode f32 (RNE): Gval/s from the median", g, f,
                 gvals(get(res, g, "kernel", f)), 5.0, ">=", unit="")

    tl = ["### Targets", ""]
    passed = sum(1 for t in r.targets if t[5] == "PASS")
    tl.append(f"{passed} of {len(r.targets)} target checks pass.")
    tl.append("")
    tl.append("| target | group | width/format | measured | limit | result | margin |")
    tl.append("|---|---|---|---|---|---|---|")
    for (name, group, p, v, lim, res_, margin) in r.targets:
        tl.append(f"| {name} | `{group}` | {p} | {v} | {lim} | {res_} | {margin} |")
    tl.append("")
    r.lines[targets_at:targets_at] = tl

    if notes:
        r.out(notes)
        r.out()
    summary = f"{passed} of {len(r.targets)} targets pass"
    # One line whatever the CPU's name (the test of the committed file skips it).
    run = f"Measured {when.date().isoformat()} on {model} ({cores} cores; {simd}):"
    return {"kernels": "\n".join(r.lines)}, {"kernels": run + "\n\n" + kernels_doc(res)}, summary


def span(vals):
    """"lo-hix" over the values that exist, None when any is missing."""
    if not vals or any(v is None for v in vals):
        return None
    return f"{min(vals):.2f}-{max(vals):.2f}x"


def kernels_doc(res):
    """The bullets of the `# Performance` docs of `kernels`: headline
    numbers, each computed from the same medians as BENCHMARKS.md. A bullet
    whose medians are missing is left out."""
    def g(group, fn, p):
        return get(res, group, fn, p)

    def rs(group, num, den, ps):
        return [ratio(g(group, num, p), g(group, den, p)) for p in ps]

    w18 = [str(w) for w in range(1, 9)]
    bullets = []

    def add(*parts):
        if all(x is not None for x in parts[1:]):
            bullets.append(parts[0].format(*parts[1:]))

    s = "sum/65536"
    k5 = g(s, "kernel", "5")
    add("`sum/65536`: the 5-bit sum takes {}, {:.2f}x `read_floor` (reading its 40 KiB) and "
        "{:.0f}x faster than the bit-at-a-time `naive` loop; widths 1..=8 run at {} `read_floor`.",
        fmt_t(k5) if k5 else None, ratio(k5, g(s, "read_floor", "5")),
        ratio(g(s, "naive", "5"), k5), span(rs(s, "kernel", "read_floor", w18)))
    wide = ["16", "32", "64"]
    add("`sum/65536` at 16, 32 and 64 bits: {} `read_floor`, {} faster than the portable sum "
        "and {} faster than an iterator sum of the values as a slice.",
        span(rs(s, "kernel", "read_floor", wide)), span(rs(s, "portable", "kernel", wide)),
        span(rs(s, "slice", "kernel", wide)))
    add("`sum/65536` at 12 and 24 bits: {} `read_floor`, {} faster than the portable sum.",
        span(rs(s, "kernel", "read_floor", ["12", "24"])),
        span(rs(s, "portable", "kernel", ["12", "24"])))
    s = "sum/67108864"
    add("`sum/67108864`: {} `read_floor` for widths 1..=8.", span(rs(s, "kernel", "read_floor", w18)))
    s = "unpack_u8/65536"
    k5 = g(s, "kernel", "5")
    add("`unpack_u8/65536`: {} `write_floor` (`memset` of the 64 KiB output) and {} `store_loop` "
        "(plain AVX2 stores of as many bytes); the 5-bit unpack takes {}.",
        span(rs(s, "kernel", "write_floor", w18)), span(rs(s, "kernel", "store_loop", w18)),
        fmt_t(k5) if k5 else None)
    add("`unpack_u8/65536` against `fastlanes` (the same values in its own transposed layout): "
        "{} of its time for widths 1..=8.", span(rs(s, "kernel", "fastlanes", w18)))
    s = "unpack_u32/65536"
    ps = params(res, s)
    k5, b8, b1 = g(s, "kernel", "5"), g(s, "bitpacker8x", "5"), g(s, "bitpacker1x", "5")
    # BitPacker1x runs at the sampled widths only.
    ps1 = [p for p in ps if g(s, "bitpacker1x", p) is not None]
    add("`unpack_u32/65536`: {} the time of `bitpacker8x` (its own interleaved layout) and {} "
        "faster than `bitpacker1x` (the same bytes); 5 bits: {} against {} and {}.",
        span(rs(s, "kernel", "bitpacker8x", ps)), span(rs(s, "bitpacker1x", "kernel", ps1)),
        *(fmt_t(x) if x else None for x in (k5, b8, b1)))
    s = "pack_u32/65536"
    wide = [p for p in params(res, s) if p.isdigit() and 8 < int(p) < 32]
    add("`pack_u32/65536`: {} faster than `bitpacker1x` for widths 1..=8 and {} for 9..=31 "
        "(the same bytes written); {} the read+write floor (`read_write`) for widths 1..=32.",
        span(rs(s, "bitpacker1x", "kernel", w18)), span(rs(s, "bitpacker1x", "kernel", wide)),
        span(rs(s, "kernel", "read_write", params(res, s))))
    s = "pack_u8/65536"
    add("`pack_u8/65536`: {} the read+write floor (`read_write`: the input read and the packed "
        "bytes written once each) for widths 1..=8.",
        span(rs(s, "kernel", "read_write", w18)))
    s = "decode_f32/65536"
    e2, e4 = g(s, "kernel", "e2m1"), g(s, "kernel", "e4m3")
    add("`decode_f32/65536`: E2M1 {} ({:.2f}x `write_floor`, the `memset` of the 256 KiB output), "
        "E4M3 {} ({:.2f}x; `store_loop` alone is {:.2f}x); E4M3 {:.0f}x faster than the per-value "
        "`MiniFloat::to_f32` loop.",
        fmt_t(e2) if e2 else None, ratio(e2, g(s, "write_floor", "e2m1")),
        fmt_t(e4) if e4 else None, ratio(e4, g(s, "write_floor", "e4m3")),
        ratio(g(s, "store_loop", "e4m3"), g(s, "write_floor", "e4m3")),
        ratio(g(s, "per_element", "e4m3"), e4))
    s = "encode_f32/65536"
    ghz = clock_ghz(res)

    def vpc(t):
        return None if t is None or not ghz else 65536 / (t * ghz)

    e2, e4 = g(s, "kernel", "e2m1"), g(s, "kernel", "e4m3")
    add("`encode_f32/65536`: E2M1 {:.2f} and E4M3 {:.2f} Gval/s, {:.2f} and {:.2f} values per "
        "cycle at the measured {:.2f} GHz (E4M3: {:.0f}x the per-value rounding routine; "
        "`half`'s `f32` to `f16` slice conversion: {:.2f} per cycle).",
        gvals(e2), gvals(e4), vpc(e2), vpc(e4), ghz, ratio(g(s, "per_element", "e4m3"), e4),
        vpc(g(s, "half_f32_to_f16", "e4m3")))
    lines = []
    for b in bullets:
        lines += wrap("- " + b, width=76, indent="  ")
    return "\n".join(lines)


# ---------------------------------------------------------------- views


def x(num, den):
    """`num / den` as a speed-up factor."""
    if num is None or den is None or den == 0:
        return "–"
    r = num / den
    return f"{r:.1f}x" if r >= 0.95 else f"{r:.2f}x"


def vtable(res, group, first, rows_fn, header):
    out = [f"| {first} | " + " | ".join(header) + " |", "|" + "---|" * (len(header) + 1)]
    for p in params(res, group):
        out.append(f"| {p} | " + " | ".join(rows_fn(lambda f: res.get((group, f, p)))) + " |")
    return out


def layout_rows(get):
    d, a, n, u = get("dense"), get("word_aligned"), get("naive_get"), get("unpacked_u8")
    return [fmt_t(d), fmt_t(a), fmt_t(n), fmt_t(u), x(n, d), x(u, d), x(n, a), x(u, a), x(d, a)]


LAYOUT_HEADER = [
    "dense", "word_aligned", "naive `get` loop", "unpacked `Vec<u8>`", "dense vs naive",
    "dense vs unpacked", "aligned vs naive", "aligned vs unpacked", "aligned vs dense",
]


def dispatch_rows(get):
    return [
        fmt_t(get("dyn_sum")),
        fmt_t(get("typed_sum")),
        fmt_t(get("kernel_sum")),
        x(get("typed_sum"), get("dyn_sum")),
        fmt_t(get("dyn_sum_aligned")),
        fmt_t(get("typed_sum_aligned")),
        x(get("typed_sum_aligned"), get("dyn_sum_aligned")),
        fmt_t(get("dyn_unpack")),
        fmt_t(get("unpacked_u64")),
    ]


DISPATCH_HEADER = [
    "`DynNarrowArray::sum`", "`NarrowArray<uN>::sum`", "`kernels::sum`", "typed / dyn",
    "dyn, word-aligned", "typed, word-aligned", "typed / dyn (aligned)",
    "`DynNarrowArray::unpack_into` (u64)", "sum of an unpacked `Vec<u64>`",
]


def views_section(res, mtimes, notes):
    groups = [g for g in mtimes if g.startswith("views/")]
    if not groups:
        return None
    model, cores, simd = machine()
    when = run_time(mtimes, groups).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Measured {when} on {model}, {cores} cores ({simd}), {rustc()}, in "
        f"{'one run' if RUNS == 1 else f'{RUNS} runs (the median of their medians)'} of the views",
        "benchmark (criterion medians, 15 samples of 0.7 s after 0.2 s of warm-up, on a",
        "shared machine: other builds ran at the same time, so single numbers move by",
        "10-20% between runs; ratios within one table are from the same run). Reproduce:",
        "",
        "```sh",
        command("views"),
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
    lines += vtable(res, "views/strided_sum_5bit", "stride", layout_rows, LAYOUT_HEADER)
    lines += [
        "",
        "### Axis sums: 65,536 5-bit values, into a caller-owned `u64` buffer",
        "",
        "`RxC/axisK` sums a contiguous `R x C` array over axis `K` (axis 0: column sums,",
        "axis 1: row sums).",
        "",
    ]
    lines += vtable(res, "views/axis_sum_5bit", "shape/axis", layout_rows, LAYOUT_HEADER)
    lines += ["", "### Whole sums: 65,536 values, widths 1..=8", ""]
    lines += vtable(res, "views/sum_65536", "width", layout_rows, LAYOUT_HEADER)
    lines += [
        "",
        "### Scans: unpacking 65,536 values into a slice of the element type, widths 1..=8",
        "",
        "The element types are `arbitrary_int::u1`..`u7` and `u8`; `unpacked Vec<u8>` is",
        "a copy of the unpacked bytes (the floor).",
        "",
    ]
    lines += vtable(res, "views/scan_65536", "width", layout_rows, LAYOUT_HEADER)
    for n in ("65536", "64"):
        lines += [
            "",
            f"### Run-time width dispatch: {int(n):,} values",
            "",
            "The run-time-width array looks up the width's kernel in a table once per call;",
            "the typed array (`arbitrary_int::uN`) names the width in its type.",
            "",
        ]
        lines += vtable(res, f"views/dispatch_{n}", "width", dispatch_rows, DISPATCH_HEADER)
    if notes:
        lines += ["", notes]
    return {"views": "\n".join(lines)}, {}, f"{len(groups)} groups"


# ---------------------------------------------------------------- formats


def fmt_ms(ns):
    """Milliseconds with 3-4 significant digits."""
    if ns is None:
        return "–"
    ms = ns / 1e6
    if ms >= 10:
        return f"{ms:.2f}"
    return f"{ms:.3f}" if ms >= 0.1 else f"{ms:.3g}"


def fmt_x(r, suffix=""):
    if r is None:
        return "–"
    return (f"{r:.0f}" if r >= 100 else f"{r:.1f}" if r >= 10 else f"{r:.2f}") + suffix


QUANTIZE_ROWS = [
    # (function id, label, the plain encode it is compared with)
    ("encode_e2m1", "encode_e2m1", "encode_e2m1"),
    ("mx_e2m1", "mx_e2m1 (Floor)", "encode_e2m1"),
    ("mx_e2m1_rceil", "mx_e2m1_rceil", "encode_e2m1"),
    ("mx_e2m1_axis0", "mx_e2m1_axis0 (blocks down the columns)", "encode_e2m1"),
    ("mx_e2m1_stochastic", "mx_e2m1_stochastic", "encode_e2m1"),
    ("nvfp4_given", "nvfp4 (1 x 16, tensor scale given)", "encode_e2m1"),
    ("nvfp4", "nvfp4 (1 x 16, default tensor scale)", "encode_e2m1"),
    ("nvfp4_tiles", "nvfp4_tiles (16 x 16)", "encode_e2m1"),
    ("nvfp4_stochastic", "nvfp4_stochastic (1 x 16)", "encode_e2m1"),
    ("encode_e4m3", "encode_e4m3", "encode_e4m3"),
    ("mx_e4m3", "mx_e4m3", "encode_e4m3"),
    ("mx_e4m3_stochastic", "mx_e4m3_stochastic", "encode_e4m3"),
    ("encode_e3m2", "encode_e3m2", "encode_e3m2"),
    ("mx_e3m2", "mx_e3m2 (6-bit codes)", "encode_e3m2"),
    # The AVX2 build (AVX-512 masked off) against its own encodes, each
    # printed, so that every ratio comes from rows of the table.
    ("avx2/encode_e2m1", "encode_e2m1, AVX2 build", "avx2/encode_e2m1"),
    ("avx2/mx_e2m1", "mx_e2m1, AVX2 build", "avx2/encode_e2m1"),
    ("avx2/mx_e2m1_stochastic", "mx_e2m1_stochastic, AVX2 build", "avx2/encode_e2m1"),
    ("avx2/nvfp4_given", "nvfp4 (tensor scale given), AVX2 build", "avx2/encode_e2m1"),
    ("avx2/nvfp4", "nvfp4 (default tensor scale), AVX2 build", "avx2/encode_e2m1"),
    ("avx2/encode_e4m3", "encode_e4m3, AVX2 build", "avx2/encode_e4m3"),
    ("avx2/mx_e4m3", "mx_e4m3, AVX2 build", "avx2/encode_e4m3"),
    ("avx2/encode_e3m2", "encode_e3m2, AVX2 build", "avx2/encode_e3m2"),
    ("avx2/mx_e3m2", "mx_e3m2, AVX2 build", "avx2/encode_e3m2"),
]

WIDE_ROWS = [
    ("f32", "f32"),
    ("bf16", "bf16"),
    ("f16", "f16"),
    ("f64", "f64 (round-to-odd to f32, then the f32 kernel)"),
    ("f32_stochastic", "f32, stochastic"),
    ("bf16_stochastic", "bf16, stochastic"),
    ("avx2/f32_stochastic", "f32, stochastic, AVX2 build"),
]


def formats_section(res, mtimes, notes):
    blocks = {}

    def m(group, fn):
        return res.get((group, fn, ""))

    if "encode" in mtimes or "decode" in mtimes:
        cols = ["e8m0", "e8m0_routine", "e4m3", "e5m2", "e2m1"]
        lines = [
            "| group | " + " | ".join(cols) + " | routine / e8m0 | e8m0 / e4m3 |",
            "|" + "---|" * (len(cols) + 3),
        ]
        for g in ("encode", "decode"):
            if g not in mtimes:
                continue
            cells = [fmt_ms(m(g, c)) for c in cols]
            cells.append(fmt_x(ratio(m(g, "e8m0_routine"), m(g, "e8m0")), "x"))
            cells.append(fmt_x(ratio(m(g, "e8m0"), m(g, "e4m3"))))
            lines.append(f"| {g} (ms) | " + " | ".join(cells) + " |")
        blocks["formats-e8m0"] = "\n".join(lines)
    if "quantize" in mtimes:
        lines = ["| bench | median (ms) | / encode of the element format |", "|---|---|---|"]
        for fn, label, base in QUANTIZE_ROWS:
            t = m("quantize", fn)
            if t is not None:
                lines.append(f"| {label} | {fmt_ms(t)} | {fmt_x(ratio(t, m('quantize', base)))} |")
        blocks["formats-quantize"] = "\n".join(lines)
    if "wide" in mtimes:
        lines = ["| input | median (ms) | / f32 |", "|---|---|---|"]
        for fn, label in WIDE_ROWS:
            t = m("wide", fn)
            if t is not None:
                lines.append(f"| {label} | {fmt_ms(t)} | {fmt_x(ratio(t, m('wide', 'f32')))} |")
        blocks["formats-wide"] = "\n".join(lines)
    if not blocks:
        return None
    return blocks, {}, f"{len(blocks)} tables"


# ---------------------------------------------------------------- driver

# name: (function, title of the heading a missing block is appended under)
SECTIONS = {
    "kernels": (kernels_section, "Kernels"),
    "views": (views_section, "Views and reductions"),
    "formats": (formats_section, "Float formats"),
}


def update_text(text, blocks, path, prefix="", title=None):
    """`text` with each block replaced; a block without markers raises,
    unless `title` is given: then it is appended under that heading."""
    for name, body in blocks.items():
        if find_block(text, name, path, prefix) is None and title is not None:
            b, e = markers(name)
            print(f"{path}: no markers for `{name}`: appended at the end", file=sys.stderr)
            text = text.rstrip("\n") + f"\n\n## {title}\n\n{b}\n{e}\n"
        text = replace_block(text, name, body, path, prefix)
    return text


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--section", choices=["all", *SECTIONS], default="all")
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    ap.add_argument("--doc", default=DOC, help="the kernels' doc file (default: %(default)s)")
    ap.add_argument("--no-doc", action="store_true", help="leave the kernels' doc file alone")
    ap.add_argument("--criterion", action="append", default=None,
                    help="criterion's output folder; once per whole run to take the median of "
                         "several runs")
    ap.add_argument("--notes", default=None, help="notes file of the one chosen section")
    args = ap.parse_args(argv)
    if args.notes and args.section not in NOTES:
        ap.error(f"--notes needs --section {' or '.join(NOTES)} (got --section {args.section})")
    global RUNS
    dirs = args.criterion or [criterion_dir()]
    RUNS = len(dirs)
    crit = ", ".join(dirs)
    chosen = list(SECTIONS) if args.section == "all" else [args.section]
    try:
        res, mtimes = load_runs(dirs)
        md_blocks, doc_blocks, done = {}, {}, []
        for name in chosen:
            fn, title = SECTIONS[name]
            notes = read_notes(args.notes if args.notes else NOTES.get(name))
            out = fn(res, mtimes, notes)
            if out is None:
                print(f"{name}: no results under {crit}: section left as it is", file=sys.stderr)
                continue
            md, doc, summary = out
            md_blocks[name] = (md, title)
            doc_blocks.update(doc)
            done.append(f"{name} ({summary})")
        if not done:
            print(f"no results for {', '.join(chosen)} under {crit}: run the benchmarks first",
                  file=sys.stderr)
            return 1
        # Everything is computed and checked before anything is written.
        try:
            with open(args.out, encoding="utf-8") as f:
                text = f.read()
        except FileNotFoundError:
            text = "# Benchmarks\n"
        for name, (md, title) in md_blocks.items():
            text = update_text(text, md, args.out, title=title)
        doc_text = None
        if doc_blocks and not args.no_doc:
            with open(args.doc, encoding="utf-8") as f:
                doc_text = update_text(f.read(), doc_blocks, args.doc, prefix=DOC_PREFIX)
    except (ReportError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    changed = [p for p, t in ((args.out, text), (args.doc, doc_text))
               if t is not None and write_if_changed(p, t)]
    print("updated " + ", ".join(done) + "; " +
          ("wrote " + ", ".join(os.path.relpath(p) for p in changed) if changed else "no file changed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
