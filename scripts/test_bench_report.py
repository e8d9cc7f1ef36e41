#!/usr/bin/env python3
"""Tests of `scripts/bench_report.py` and `scripts/benchlib.py`.

Each test builds a fake criterion tree in a temporary folder, runs the
generator on copies of BENCHMARKS.md and of `bitpack/src/kernels/mod.rs`,
and checks what changed. Standard library only:

    python3 scripts/test_bench_report.py
"""

import contextlib
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, HERE)

import bench_report  # noqa: E402
import benchlib  # noqa: E402

BENCHMARKS = os.path.join(ROOT, "BENCHMARKS.md")
DOC = os.path.join(ROOT, "bitpack", "src", "kernels", "mod.rs")

# Every group, function and parameter the three benches measure (the ones
# the report reads).
W8 = [str(w) for w in range(1, 9)]
W32 = [str(w) for w in range(1, 33)]
KERNELS = {
    "sum/65536": (["kernel", "avx2", "portable", "popcnt", "fastlanes", "bitpacker8x", "slice",
                   "read_floor", "naive"], W8 + ["12", "16", "24", "32", "64"]),
    "sum/67108864": (["kernel", "read_floor"], W8),
    "unpack_u8/65536": (["kernel", "avx2", "portable", "bmi2", "fastlanes", "write_floor",
                         "store_loop", "naive"], W8),
    "unpack_u8/67108864": (["kernel", "write_floor"], W8),
    "unpack_u32/65536": (["kernel", "avx2", "portable", "bitpacker8x", "bitpacker1x", "write_floor"],
                         W32),
    "pack_u8/65536": (["kernel", "portable", "bmi2", "read_write", "memcpy", "read_input",
                       "naive"], W8),
    "pack_u8/67108864": (["kernel", "read_write", "memcpy"], W8),
    "pack_u32/65536": (["kernel", "portable", "bitpacker1x", "bitpacker8x", "read_write",
                        "memcpy", "read_input"],
                       W8 + ["12", "24", "31"]),
    "decode_f32/65536": (["kernel", "table", "portable", "per_element", "half_f16_to_f32",
                          "write_floor", "store_loop"], ["e2m1", "e2m3", "e4m3"]),
    "decode_f32/67108864": (["kernel", "write_floor", "store_loop"], ["e2m1", "e4m3"]),
    "encode_f32/65536": (["kernel", "portable", "per_element", "half_f32_to_f16"], ["e2m1", "e4m3"]),
    "clock": (["add_chain"] + bench_report.VECTOR_OPS, [""]),
}
LAYOUT = ["dense", "word_aligned", "naive_get", "unpacked_u8"]
DISPATCH = ["dyn_sum", "typed_sum", "kernel_sum", "dyn_sum_aligned", "typed_sum_aligned",
            "dyn_unpack", "unpacked_u64"]
VIEWS = {
    "views/strided_sum_5bit": (LAYOUT, ["2", "3", "5", "13", "100", "-3"]),
    "views/axis_sum_5bit": (LAYOUT, ["256x256/axis0", "256x256/axis1", "4x16384/axis0"]),
    "views/sum_65536": (LAYOUT, W8),
    "views/scan_65536": (LAYOUT, W8),
    "views/dispatch_65536": (DISPATCH, ["3", "5", "8"]),
    "views/dispatch_64": (DISPATCH, ["3", "5", "8"]),
}
FORMATS = {
    "encode": (["e8m0", "e8m0_routine", "e4m3", "e5m2", "e2m1"], [""]),
    "decode": (["e8m0", "e8m0_routine", "e4m3", "e5m2", "e2m1"], [""]),
    "quantize": ([fn for (fn, _, _) in bench_report.QUANTIZE_ROWS], [""]),
    "wide": ([fn for (fn, _) in bench_report.WIDE_ROWS], [""]),
}


def write_result(crit, group, fn, param, ns):
    """One benchmark as criterion writes it: `<group>/<fn>/<param>/new/`."""
    parts = [group, fn] + ([param] if param else [])
    d = os.path.join(crit, *[re.sub(r"[^A-Za-z0-9_.-]", "_", p) for p in parts], "new")
    os.makedirs(d, exist_ok=True)
    full = "/".join(p for p in (group, fn, param) if p)
    with open(os.path.join(d, "benchmark.json"), "w") as f:
        json.dump({"group_id": group, "function_id": fn, "value_str": param or None,
                   "throughput": None, "full_id": full, "directory_name": full,
                   "title": full}, f)
    est = {"confidence_interval": {"confidence_level": 0.95, "lower_bound": ns * 0.98,
                                   "upper_bound": ns * 1.02},
           "point_estimate": ns, "standard_error": ns * 0.01}
    with open(os.path.join(d, "estimates.json"), "w") as f:
        json.dump({"mean": dict(est, point_estimate=ns * 1.01), "median": est,
                   "median_abs_dev": est, "slope": None, "std_dev": est}, f)


def fake_tree(crit, groups, seed):
    """Random medians (10 ns .. 10 ms) for every (group, fn, param)."""
    rng = random.Random(seed)
    res = {}
    for group, (fns, ps) in groups.items():
        for fn in fns:
            for p in ps:
                ns = 10 ** rng.uniform(1, 7)
                if group == "clock":
                    ns = 65536 * 8 / rng.uniform(2.0, 4.0)
                write_result(crit, group, fn, p, ns)
                res[(group, fn, p)] = ns
    return res


# Memory-backed when there is one: thousands of small files.
TMP = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
_TREES = {}


def tearDownModule():
    for path, _ in _TREES.values():
        shutil.rmtree(path, ignore_errors=True)


def shared_tree(name, groups):
    """A fake tree built once and shared by the tests that only read it."""
    if name not in _TREES:
        path = tempfile.mkdtemp(prefix="bench_tree_", dir=TMP)
        _TREES[name] = (path, fake_tree(path, groups, seed=len(_TREES) + 1))
    return _TREES[name]


ALL = {**KERNELS, **VIEWS, **FORMATS}


def block(text, name, prefix=""):
    span = benchlib.find_block(text, name, prefix=prefix)
    assert span is not None, name
    return text[span[0]:span[1]]


def outside(text, names, prefix=""):
    """`text` with the inside of each named block cut out."""
    for name in names:
        s, e = benchlib.find_block(text, name, prefix=prefix)
        text = text[:s] + text[e:]
    return text


MD_BLOCKS = ["kernels", "views", "formats-e8m0", "formats-quantize", "formats-wide"]
SECTION_BLOCKS = {"kernels": ["kernels"], "views": ["views"],
                  "formats": ["formats-e8m0", "formats-quantize", "formats-wide"]}


class Generator(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bench_report_", dir=TMP)
        self.crit = os.path.join(self.tmp, "criterion")
        os.makedirs(self.crit)
        self.md = os.path.join(self.tmp, "BENCHMARKS.md")
        self.doc = os.path.join(self.tmp, "mod.rs")
        shutil.copy(BENCHMARKS, self.md)
        shutil.copy(DOC, self.doc)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def use(self, name, groups):
        """Points the generator at a shared fake tree; returns its medians."""
        self.crit, res = shared_tree(name, groups)
        return res

    def run_gen(self, *args):
        err, out = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                rc = bench_report.main(["--out", self.md, "--doc", self.doc,
                                        "--criterion", self.crit, *args])
            except SystemExit as e:  # argparse errors
                rc = e.code
        return rc, out.getvalue(), err.getvalue()

    def read(self, path):
        with open(path, encoding="utf-8") as f:
            return f.read()

    def test_only_the_chosen_section_changes(self):
        self.use("all", ALL)
        md0, doc0 = self.read(self.md), self.read(self.doc)
        for section, owned in SECTION_BLOCKS.items():
            with self.subTest(section=section):
                shutil.copy(BENCHMARKS, self.md)
                shutil.copy(DOC, self.doc)
                rc, out, err = self.run_gen("--section", section)
                self.assertEqual(rc, 0, err)
                md = self.read(self.md)
                self.assertEqual(outside(md, MD_BLOCKS), outside(md0, MD_BLOCKS))
                for name in MD_BLOCKS:
                    b, e = benchlib.markers(name)
                    self.assertEqual(md.count(b), 1)
                    self.assertEqual(md.count(e), 1)
                    if name in owned:
                        self.assertNotEqual(block(md, name), block(md0, name), name)
                    else:
                        self.assertEqual(block(md, name), block(md0, name), name)
                doc = self.read(self.doc)
                if section == "kernels":
                    self.assertNotEqual(doc, doc0)
                    self.assertEqual(outside(doc, ["kernels"], "//! "),
                                     outside(doc0, ["kernels"], "//! "))
                else:
                    self.assertEqual(doc, doc0)

    def test_doc_block_and_benchmarks_agree(self):
        res = self.use("kernels", KERNELS)
        rc, _, err = self.run_gen("--section", "kernels")
        self.assertEqual(rc, 0, err)
        md, doc = self.read(self.md), self.read(self.doc)
        inner = block(doc, "kernels", "//! ")
        for line in inner.splitlines():
            self.assertTrue(line.startswith("//!"), line)
            if not line.startswith("//! Measured "):
                self.assertLessEqual(len(line), 80, line)
        k5 = benchlib.fmt_time(res[("sum/65536", "kernel", "5")])
        self.assertIn(f"the 5-bit sum takes {k5},", inner)
        self.assertIn(f"| 5 | {k5} |", block(md, "kernels"))
        lo = min(res[("sum/65536", "kernel", w)] / res[("sum/65536", "read_floor", w)] for w in W8)
        hi = max(res[("sum/65536", "kernel", w)] / res[("sum/65536", "read_floor", w)] for w in W8)
        self.assertIn(f"{lo:.2f}-{hi:.2f}x", re.sub(r"\s+//!\s+", " ", inner))
        ghz = 65536 * 8 / res[("clock", "add_chain", "")]
        self.assertIn(f"{ghz:.2f} GHz", block(md, "kernels"))
        for op in bench_report.VECTOR_OPS:
            rate = 65536 * 8 / (res[("clock", op, "")] * ghz)
            self.assertIn(f"`{op}` {rate:.2f}", block(md, "kernels"))
        self.assertIn(f"{ghz:.2f} GHz", re.sub(r"\s+//!\s+", " ", inner))
        self.assertRegex(inner, r"^//! Measured \d{4}-\d\d-\d\d on .*:\n//!\n//! - ")
        # Eleven bullets: one per headline group, unpack to u8 against
        # fastlanes, the wide sums and the spread sums.
        self.assertEqual(len(re.findall(r"^//! - `", inner, re.M)), 11)
        flat = re.sub(r"\s+//!\s+", " ", inner)
        wide = [res[("sum/65536", "kernel", w)] / res[("sum/65536", "read_floor", w)]
                for w in ("16", "32", "64")]
        self.assertIn(f"at 16, 32 and 64 bits: {min(wide):.2f}-{max(wide):.2f}x `read_floor`", flat)
        spread = [res[("sum/65536", "kernel", w)] / res[("sum/65536", "read_floor", w)]
                  for w in ("12", "24")]
        self.assertIn(f"at 12 and 24 bits: {min(spread):.2f}-{max(spread):.2f}x `read_floor`", flat)

    def test_targets_and_tables_follow_the_medians(self):
        res = self.use("kernels", KERNELS)
        rc, _, err = self.run_gen("--section", "kernels")
        self.assertEqual(rc, 0, err)
        k = block(self.read(self.md), "kernels")
        def row(group, w, num, den, limit, kind):
            r = res[(group, num, w)] / res[(group, den, w)]
            ok = r < limit if kind == "<" else r <= limit
            return r, f"| `{group}` | {w} | {r:.2f}x | {kind} {limit}x | {'PASS' if ok else 'MISS'} |"

        for w in W8:
            for args in [("sum/65536", w, "kernel", "read_floor", 2.0, "<="),
                         ("sum/65536", w, "kernel", "fastlanes", 1.0, "<"),
                         ("sum/65536", w, "kernel", "bitpacker8x", 1.0, "<"),
                         ("unpack_u8/65536", w, "kernel", "write_floor", 1.5, "<="),
                         ("unpack_u8/65536", w, "kernel", "fastlanes", 1.0, "<"),
                         ("pack_u8/65536", w, "kernel", "read_write", 2.0, "<=")]:
                r, line = row(*args)
                self.assertIn(line, k)
                # The margin follows the ratio: headroom on a PASS, over on a MISS.
                rest = k[k.index(line) + len(line):].split("\n")[0]
                if k.count(line) > 1:
                    continue  # the same ratio on two rows: the margin is not its own
                if "PASS" in line:
                    self.assertIn(f"{abs(args[4] / r - 1) * 100:.0f}% headroom", rest)
                else:
                    self.assertIn(f"{(r / args[4] - 1) * 100:.0f}% over", rest)
        for w in W32:
            self.assertIn(row("unpack_u32/65536", w, "kernel", "bitpacker8x", 1.0, "<=")[1], k)
        for w in KERNELS["pack_u32/65536"][1]:
            self.assertIn(row("pack_u32/65536", w, "kernel", "read_write", 2.0, "<=")[1], k)
        for f in ("e2m1", "e4m3"):
            self.assertIn(row("decode_f32/65536", f, "kernel", "write_floor", 1.5, "<=")[1], k)
            g = 65536 / res[("encode_f32/65536", "kernel", f)]
            verdict = "PASS" if g >= 5.0 else "MISS"
            self.assertIn(f"| `encode_f32/65536` | {f} | {g:.2f} | >= 5.0 | {verdict} |", k)
        # The old targets are gone.
        self.assertNotIn("`sum/67108864` | 1 |", k)
        self.assertNotIn("BitPacker1x / time", k)
        self.assertIn("### Targets", k)
        self.assertIn("#### `pack_u32/65536`", k)
        # The notes file follows the tables.
        self.assertGreater(k.index("### Why some targets are missed"), k.index("#### `encode_f32"))

    def test_several_runs_take_the_median_of_their_medians(self):
        runs = [os.path.join(self.tmp, f"run{k}") for k in range(3)]
        meds = [fake_tree(d, KERNELS, seed=100 + k) for k, d in enumerate(runs)]
        # One benchmark missing from the third run: the median of two.
        gone = ("sum/65536", "kernel", "7")
        shutil.rmtree(os.path.join(runs[2], "sum_65536", "kernel", "7"))
        self.crit = runs[0]
        rc, _, err = self.run_gen("--section", "kernels", "--criterion", runs[1],
                                  "--criterion", runs[2])
        self.assertEqual(rc, 0, err)
        k = block(self.read(self.md), "kernels")
        self.assertIn("of 3 whole runs of", k)
        self.assertNotIn("medians of one run", k)
        def med(key):
            have = sorted(m[key] for m in meds if not (key == gone and m is meds[2]))
            return have[len(have) // 2] if len(have) % 2 else (have[0] + have[1]) / 2
        for w in W8:
            group = "sum/65536"
            r = med((group, "kernel", w)) / med((group, "read_floor", w))
            verdict = "PASS" if r <= 2.0 else "MISS"
            self.assertIn(f"| `{group}` | {w} | {r:.2f}x | <= 2.0x | {verdict} |", k)
        # Not what one run alone gives (the medians differ run to run).
        r0 = meds[0][("sum/65536", "kernel", "5")] / meds[0][("sum/65536", "read_floor", "5")]
        r = med(("sum/65536", "kernel", "5")) / med(("sum/65536", "read_floor", "5"))
        self.assertNotEqual(f"{r0:.2f}", f"{r:.2f}")

    def test_a_run_without_results_among_several_is_an_error(self):
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        self.use("kernels", KERNELS)
        before = self.read(self.md), self.read(self.doc)
        rc, _, err = self.run_gen("--section", "kernels", "--criterion", empty)
        self.assertEqual(rc, 2)
        self.assertIn(f"no criterion results under {empty}", err)
        self.assertEqual((self.read(self.md), self.read(self.doc)), before)

    def test_missing_results_leave_a_section_alone(self):
        self.use("views", VIEWS)
        md0, doc0 = self.read(self.md), self.read(self.doc)
        rc, out, err = self.run_gen()
        self.assertEqual(rc, 0, err)
        self.assertIn("kernels: no results", err)
        self.assertIn("formats: no results", err)
        md = self.read(self.md)
        for name in ["kernels", "formats-e8m0", "formats-quantize", "formats-wide"]:
            self.assertEqual(block(md, name), block(md0, name))
        self.assertNotEqual(block(md, "views"), block(md0, "views"))
        self.assertEqual(self.read(self.doc), doc0)

    def test_partial_formats_results_update_only_their_tables(self):
        fake_tree(self.crit, {"wide": FORMATS["wide"]}, seed=5)
        md0 = self.read(self.md)
        rc, _, err = self.run_gen("--section", "formats")
        self.assertEqual(rc, 0, err)
        md = self.read(self.md)
        self.assertNotEqual(block(md, "formats-wide"), block(md0, "formats-wide"))
        self.assertEqual(block(md, "formats-e8m0"), block(md0, "formats-e8m0"))
        self.assertEqual(block(md, "formats-quantize"), block(md0, "formats-quantize"))

    def test_no_results_at_all_is_an_error_and_writes_nothing(self):
        md0, doc0 = self.read(self.md), self.read(self.doc)
        rc, _, err = self.run_gen()
        self.assertEqual(rc, 1)
        self.assertIn("run the benchmarks first", err)
        self.assertEqual(self.read(self.md), md0)
        self.assertEqual(self.read(self.doc), doc0)

    def test_running_twice_is_idempotent(self):
        self.use("all", ALL)
        rc, _, err = self.run_gen()
        self.assertEqual(rc, 0, err)
        md1, doc1 = self.read(self.md), self.read(self.doc)
        rc, out, err = self.run_gen()
        self.assertEqual(rc, 0, err)
        self.assertIn("no file changed", out)
        self.assertEqual(self.read(self.md), md1)
        self.assertEqual(self.read(self.doc), doc1)

    def test_bad_markers_are_an_error_and_write_nothing(self):
        self.use("all", ALL)
        good = self.read(self.md)
        b, e = benchlib.markers("views")
        cases = {
            "duplicate begin": good.replace(b, b + "\n" + b),
            "missing end": good.replace(e + "\n", ""),
            "end before begin": good.replace(b, "@@").replace(e, b).replace("@@", e),
        }
        for what, text in cases.items():
            with self.subTest(what=what):
                with open(self.md, "w", encoding="utf-8") as f:
                    f.write(text)
                shutil.copy(DOC, self.doc)
                rc, _, err = self.run_gen()
                self.assertEqual(rc, 2)
                self.assertIn("block `views`", err)
                self.assertEqual(self.read(self.md), text)
                self.assertEqual(self.read(self.doc), self.read(DOC))

    def test_missing_doc_markers_are_an_error(self):
        self.use("kernels", KERNELS)
        doc = self.read(self.doc).replace("//! <!-- bench:kernels:end -->\n", "")
        with open(self.doc, "w", encoding="utf-8") as f:
            f.write(doc)
        md0 = self.read(self.md)
        rc, _, err = self.run_gen("--section", "kernels")
        self.assertEqual(rc, 2)
        self.assertIn("mod.rs", err)
        self.assertEqual(self.read(self.md), md0)
        self.assertEqual(self.read(self.doc), doc)

    def test_absent_markers_in_benchmarks_are_appended(self):
        self.use("views", VIEWS)
        with open(self.md, "w", encoding="utf-8") as f:
            f.write("# Benchmarks\n\nHand-written.\n")
        rc, _, err = self.run_gen("--section", "views")
        self.assertEqual(rc, 0, err)
        md = self.read(self.md)
        self.assertTrue(md.startswith("# Benchmarks\n\nHand-written.\n\n## Views and reductions\n"))
        self.assertIn("### Strided sums", block(md, "views"))

    def test_notes_need_one_section(self):
        self.use("views", VIEWS)
        rc, _, err = self.run_gen("--notes", os.path.join(HERE, "views_notes.md"))
        self.assertEqual(rc, 2)
        self.assertIn("--notes needs --section", err)
        notes = os.path.join(self.tmp, "notes.md")
        with open(notes, "w") as f:
            f.write("### Other notes\n\nText.\n")
        rc, _, err = self.run_gen("--section", "views", "--notes", notes)
        self.assertEqual(rc, 0, err)
        v = block(self.read(self.md), "views")
        self.assertTrue(v.rstrip().endswith("### Other notes\n\nText."), v[-200:])

    def test_unreadable_results_are_an_error(self):
        fake_tree(self.crit, {"views/sum_65536": VIEWS["views/sum_65536"]}, seed=11)
        bad = os.path.join(self.crit, "views_sum_65536", "dense", "3", "new", "estimates.json")
        os.makedirs(os.path.dirname(bad), exist_ok=True)
        with open(os.path.join(os.path.dirname(bad), "benchmark.json"), "w") as f:
            json.dump({"group_id": "views/sum_65536", "function_id": "dense", "value_str": "3"}, f)
        with open(bad, "w") as f:
            f.write("{not json")
        md0 = self.read(self.md)
        rc, _, err = self.run_gen()
        self.assertEqual(rc, 2)
        self.assertIn("unreadable criterion result", err)
        self.assertEqual(self.read(self.md), md0)

    def test_views_report_wrapper(self):
        if not os.path.exists(sys.executable):
            self.skipTest("no python executable")
        fake_tree(self.crit, VIEWS, seed=12)
        md0 = self.read(self.md)
        env = dict(os.environ, CARGO_TARGET_DIR=self.tmp)  # criterion under it
        p = subprocess.run([sys.executable, os.path.join(HERE, "views_report.py"),
                            "--out", self.md, "--doc", self.doc],
                           capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        md = self.read(self.md)
        self.assertNotEqual(block(md, "views"), block(md0, "views"))
        self.assertEqual(block(md, "kernels"), block(md0, "kernels"))


# ------------------------------------------------------- the committed file

TIME = re.compile(r"^(–|[0-9.]+ (ns|µs|ms))$")


def ns_of(cell):
    v, unit = cell.split()
    return float(v) * {"ns": 1, "µs": 1e3, "ms": 1e6}[unit]


def tree_from_committed(crit, text):
    """The medians printed in BENCHMARKS.md, as a criterion tree: what the
    report was written from, to the precision it prints."""
    k = block(text, "kernels")
    ghz = float(re.search(r"\(`clock/add_chain`.*: ([0-9.]+) GHz", k).group(1))
    write_result(crit, "clock", "add_chain", "", 65536 * 8 / ghz)
    wide = re.search(r"\(`clock/add_chain_avx512`.*: ([0-9.]+) GHz", k)
    if wide:
        write_result(crit, "clock", "add_chain_avx512", "", 65536 * 8 / float(wide.group(1)))
    rates = re.search(r"\(`clock/<instruction>`.*\): (.*)$", k, re.M)
    for op, rate in re.findall(r"`(\w+)` ([0-9.]+)", rates.group(1) if rates else ""):
        write_result(crit, "clock", op, "", 65536 * 8 / (float(rate) * ghz))
    group = None
    for line in k.splitlines():
        m = re.match(r"^#### `([^`]+)`", line)
        if m:
            group, header = m.group(1), None
            continue
        if group and line.startswith("| width |"):
            header = [c.strip() for c in line.strip("|").split("|")]
        elif group and header and line.startswith("| ") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            for fn, cell in zip(header[1:], cells[1:]):
                if "/" not in fn and TIME.match(cell) and cell != "–":
                    write_result(crit, group, fn, cells[0], ns_of(cell))
    v = block(text, "views")
    groups = {"Strided": "views/strided_sum_5bit", "Axis": "views/axis_sum_5bit",
              "Whole": "views/sum_65536", "Scans": "views/scan_65536",
              "Run-time width dispatch: 65,536": "views/dispatch_65536",
              "Run-time width dispatch: 64 ": "views/dispatch_64"}
    dispatch_cols = {0: "dyn_sum", 1: "typed_sum", 2: "kernel_sum", 4: "dyn_sum_aligned",
                     5: "typed_sum_aligned", 7: "dyn_unpack", 8: "unpacked_u64"}
    group = None
    for line in v.splitlines():
        if line.startswith("### "):
            group = next((g for (h, g) in groups.items() if line[4:].startswith(h)), None)
            continue
        if group and line.startswith("| ") and not line.startswith("|---") and "|---" not in line:
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not TIME.match(cells[1]):
                continue  # the header row
            cols = (dispatch_cols if "dispatch" in group else dict(enumerate(LAYOUT)))
            for i, fn in cols.items():
                if cells[1 + i] != "–":
                    write_result(crit, group, fn, cells[0], ns_of(cells[1 + i]))
    e = block(text, "formats-e8m0").splitlines()
    cols = [c.strip() for c in e[0].strip("|").split("|")][1:6]
    for line in e[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        g = cells[0].split()[0]
        for fn, cell in zip(cols, cells[1:6]):
            write_result(crit, g, fn, "", float(cell) * 1e6)
    labels = {label: fn for (fn, label, _) in bench_report.QUANTIZE_ROWS}
    for line in block(text, "formats-quantize").splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        write_result(crit, "quantize", labels[cells[0]], "", float(cells[1]) * 1e6)
    labels = {label: fn for (fn, label) in bench_report.WIDE_ROWS}
    for line in block(text, "formats-wide").splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        write_result(crit, "wide", labels[cells[0]], "", float(cells[1]) * 1e6)


NUM = re.compile(r"[0-9]+(\.[0-9]+)?")
# The lines about the run: the machine, date and command, and the header
# that says how many runs the medians come from (the test feeds back one).
RUN_LINES = (
    "- CPU:", "- Date:", "- Toolchain:", "- Reproduce:", "Measured ", "cargo bench ",
    "Generated by `scripts/bench_report.py` from the criterion medians of",
    "`benches/kernels.rs`; every ratio", "`benches/kernels.rs`: every time",
)


def shape(body):
    """A block with its numbers masked and the lines about the run (machine,
    date, command) left out: what a new run must not change."""
    lines = [line.removeprefix("//!").strip() for line in body.splitlines()]
    return [NUM.sub("#", line) for line in lines if not line.startswith(RUN_LINES)]


class Committed(unittest.TestCase):
    def test_committed_file_has_every_block_once(self):
        with open(BENCHMARKS, encoding="utf-8") as f:
            text = f.read()
        for name in MD_BLOCKS:
            b, e = benchlib.markers(name)
            self.assertEqual((text.count(b), text.count(e)), (1, 1), name)
        with open(DOC, encoding="utf-8") as f:
            self.assertIsNotNone(benchlib.find_block(f.read(), "kernels", prefix="//! "))

    def test_regenerating_the_committed_numbers_keeps_the_file(self):
        """The medians printed in BENCHMARKS.md, fed back through the
        generator, give the same tables: every time cell identical, every
        other line identical once its numbers are masked (ratios computed
        from the printed, rounded times differ in the last digit)."""
        with tempfile.TemporaryDirectory(dir=TMP) as tmp:
            with open(BENCHMARKS, encoding="utf-8") as f:
                before = f.read()
            crit = os.path.join(tmp, "criterion")
            tree_from_committed(crit, before)
            md = os.path.join(tmp, "BENCHMARKS.md")
            doc = os.path.join(tmp, "mod.rs")
            shutil.copy(BENCHMARKS, md)
            shutil.copy(DOC, doc)
            with contextlib.redirect_stdout(io.StringIO()):
                rc = bench_report.main(["--out", md, "--doc", doc, "--criterion", crit])
            self.assertEqual(rc, 0)
            with open(md, encoding="utf-8") as f:
                after = f.read()
            self.assertEqual(outside(after, MD_BLOCKS), outside(before, MD_BLOCKS))
            for name in MD_BLOCKS:
                a, b = block(after, name), block(before, name)
                self.assertEqual(shape(a), shape(b), name)
                times = [re.findall(r"\| ([0-9.]+ (?:ns|µs|ms)) ", x) for x in (a, b)]
                self.assertEqual(times[0], times[1], name)
            with open(doc, encoding="utf-8") as f:
                d_after = f.read()
            with open(DOC, encoding="utf-8") as f:
                d_before = f.read()
            self.assertEqual(shape(block(d_after, "kernels", "//! ")),
                             shape(block(d_before, "kernels", "//! ")))


class Lib(unittest.TestCase):
    def test_replace_block_with_a_prefix(self):
        text = "a\n//! <!-- bench:x:begin -->\n//! old\n//! <!-- bench:x:end -->\nb\n"
        new = benchlib.replace_block(text, "x", "one\n\ntwo", prefix="//! ")
        self.assertEqual(new, "a\n//! <!-- bench:x:begin -->\n//! one\n//!\n//! two\n"
                              "//! <!-- bench:x:end -->\nb\n")
        self.assertEqual(benchlib.replace_block(new, "x", "one\n\ntwo", prefix="//! "), new)

    def test_markers_are_whole_lines(self):
        text = "see `<!-- bench:x:begin -->` here\n"
        self.assertIsNone(benchlib.find_block(text, "x"))
        with self.assertRaises(benchlib.ReportError):
            benchlib.replace_block(text, "x", "body")

    def test_params_order(self):
        res = {("g", "f", p): 1.0 for p in ["10", "-3", "2", "b", "a"]}
        self.assertEqual(benchlib.params(res, "g"), ["-3", "2", "10", "a", "b"])

    def test_fmt_time(self):
        self.assertEqual(benchlib.fmt_time(None), "–")
        self.assertEqual(benchlib.fmt_time(999.4), "999 ns")
        self.assertEqual(benchlib.fmt_time(1340.0), "1.34 µs")
        self.assertEqual(benchlib.fmt_time(2.22e6), "2.22 ms")
        # At the unit boundaries the printed value picks the unit.
        self.assertEqual(benchlib.fmt_time(999.6), "1.00 µs")
        self.assertEqual(benchlib.fmt_time(999_996.0), "1.00 ms")
        self.assertEqual(benchlib.fmt_time(999_994.0), "999.99 µs")

    def test_wrap(self):
        lines = benchlib.wrap("- " + "word " * 40, width=30, indent="  ")
        self.assertTrue(all(len(l) <= 30 for l in lines))
        self.assertTrue(all(l.startswith("  ") for l in lines[1:]))
        self.assertEqual(" ".join(l.strip() for l in lines), ("- " + "word " * 40).strip())


if __name__ == "__main__":
    unittest.main(verbosity=1)
