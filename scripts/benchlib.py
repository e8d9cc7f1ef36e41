"""Shared pieces of the benchmark report (`scripts/bench_report.py`).

- `load`: the criterion medians of the last run, from
  `<criterion>/**/new/{benchmark,estimates}.json`.
- `machine`, `rustc`, `run_time`: what a report says about the run.
- `fmt_time`, `params`: formatting and ordering of table cells and rows.
- `replace_block`: replaces the text between the markers
  `<!-- bench:NAME:begin -->` and `<!-- bench:NAME:end -->` of a file,
  leaving everything else byte for byte as it was.

Standard library only.
"""

import datetime
import glob
import json
import os
import re
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ReportError(Exception):
    """A report cannot be written: bad markers, unreadable results."""


def criterion_dir():
    """Where `cargo bench` writes criterion's results: `$CARGO_TARGET_DIR`
    (relative to the repository root when relative) or `target/`."""
    target = os.environ.get("CARGO_TARGET_DIR") or "target"
    return os.path.join(ROOT, target, "criterion")


def load(crit):
    """{(group, function, parameter): median in ns} and {group: newest
    mtime of its results} for every benchmark under `crit`."""
    res, mtimes = {}, {}
    pattern = os.path.join(crit, "**", "new", "benchmark.json")
    for bj in sorted(glob.glob(pattern, recursive=True)):
        ej = os.path.join(os.path.dirname(bj), "estimates.json")
        try:
            with open(bj) as f:
                b = json.load(f)
            with open(ej) as f:
                e = json.load(f)
            key = (b["group_id"], b["function_id"] or "", b["value_str"] or "")
            median = float(e["median"]["point_estimate"])
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise ReportError(f"unreadable criterion result {bj}: {err}") from err
        res[key] = median
        g = key[0]
        mtimes[g] = max(mtimes.get(g, 0.0), os.path.getmtime(ej))
    return res, mtimes


def load_runs(dirs):
    """`load` over several criterion folders, one whole run of a bench each:
    every benchmark's time is the median of the runs' medians (of those
    runs that have it), and each group's mtime the newest. One folder is
    `load` itself; with several, a folder without results is an error (a
    run left out would quietly shrink the median)."""
    if len(dirs) == 1:
        return load(dirs[0])
    per, mtimes = {}, {}
    for d in dirs:
        res, mt = load(d)
        if not res:
            raise ReportError(f"no criterion results under {d}")
        for k, v in res.items():
            per.setdefault(k, []).append(v)
        for g, t in mt.items():
            mtimes[g] = max(mtimes.get(g, 0.0), t)
    return {k: statistics.median(v) for k, v in per.items()}, mtimes


def run_time(mtimes, groups):
    """The time of the newest result among `groups`, as a UTC datetime
    (None when none of them has results)."""
    ts = [mtimes[g] for g in groups if g in mtimes]
    if not ts:
        return None
    return datetime.datetime.fromtimestamp(max(ts), datetime.timezone.utc)


def machine():
    """(CPU model, logical cores, the SIMD flags the kernels use)."""
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
    return model, os.cpu_count(), simd


def rustc():
    try:
        out = subprocess.run(["rustc", "--version"], capture_output=True, text=True)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def fmt_time(ns):
    if ns is None:
        return "–"
    # The unit follows the value as printed, so that a printed time read
    # back prints the same (999.6 ns is "1.00 µs", not "1000 ns").
    if round(ns / 1e3, 2) >= 1e3:
        return f"{ns / 1e6:.2f} ms"
    if round(ns) >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def params(res, group):
    """The parameters measured in `group`: numbers in numeric order, then
    the others in text order."""
    ps = {p for (g, _, p) in res if g == group}

    def key(p):
        return (0, int(p), "") if p.lstrip("-").isdigit() else (1, 0, p)

    return sorted(ps, key=key)


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def markers(name):
    return f"<!-- bench:{name}:begin -->", f"<!-- bench:{name}:end -->"


def find_block(text, name, path="text", prefix=""):
    """(start, end) offsets of the lines strictly between the markers of
    `name` in `text`, or None when neither marker is there. Each marker is
    a whole line, `prefix` (e.g. `//! `) then the marker."""
    begin, end = markers(name)
    lines = text.splitlines(keepends=True)
    where = {begin: [], end: []}
    off = 0
    for line in lines:
        s = line.rstrip("\r\n")
        if s.startswith(prefix) and s[len(prefix):].strip() in where:
            where[s[len(prefix):].strip()].append((off, off + len(line)))
        off += len(line)
    b, e = where[begin], where[end]
    if not b and not e:
        return None
    if len(b) != 1 or len(e) != 1:
        raise ReportError(
            f"{path}: block `{name}` needs one begin and one end marker, "
            f"found {len(b)} `{begin}` and {len(e)} `{end}`"
        )
    if b[0][1] > e[0][0]:
        raise ReportError(f"{path}: block `{name}` ends before it begins")
    return b[0][1], e[0][0]


def replace_block(text, name, body, path="text", prefix=""):
    """`text` with the lines between the markers of `name` replaced by
    `body` (each line prefixed by `prefix`, blank lines by `prefix`
    stripped of trailing spaces). Raises ReportError when the markers are
    missing or malformed."""
    span = find_block(text, name, path, prefix)
    if span is None:
        b, e = markers(name)
        raise ReportError(f"{path}: no `{b}` ... `{e}` markers")
    lines = body.strip("\n").split("\n") if body.strip() else []
    new = "".join((prefix + l if l else prefix.rstrip()) + "\n" for l in lines)
    return text[: span[0]] + new + text[span[1]:]


def write_if_changed(path, text):
    """Writes `text` to `path` through a temporary file and a rename (a
    reader never sees half a file); returns whether the content changed."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return False
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return True


_WS = re.compile(r"\s+")


def wrap(text, width=76, indent=""):
    """Greedy word wrap of a paragraph, continuation lines indented by
    `indent`, never breaking inside a word."""
    words = _WS.split(text.strip())
    lines, cur = [], ""
    for w in words:
        cand = w if not cur else cur + " " + w
        limit = width - (len(indent) if lines else 0)
        if cur and len(cand) > limit:
            lines.append(cur)
            cur = w
        else:
            cur = cand
    if cur:
        lines.append(cur)
    return [lines[0]] + [indent + l for l in lines[1:]] if lines else []
