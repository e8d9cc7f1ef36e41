#!/usr/bin/env python3
"""Same-run before/after comparison of two revisions' kernel benchmarks.

    python3 scripts/bench_ab.py BASE AFTER FILTER [ROUNDS] [--bench NAME]
                                [--features LIST]

Builds `cargo bench -p bitpack-bench --bench NAME` (default `kernels`; with
`--features LIST` where given, e.g. `rayon` for the `parallel` bench) at
both revisions (each checked out in a git worktree under
`target/bench-ab/`, sharing one target directory so the dependencies build
once), then runs the two binaries ROUNDS times (default 3) in alternation,
the order swapped every round so that neither build always runs first on a
warm or cold machine, each run limited to the criterion FILTER (a regex).
It prints, per benchmark, the median of each build's per-round medians and
their ratio (after / base: below 1 is faster), and the geometric mean of
the ratios. A machine that is shared and noisy still moves both builds
alike within a round; the ratios, not the times, are the result.

AFTER may be `HEAD` or any revision; uncommitted changes are not measured.
Standard library only (plus `benchlib` beside this file).
"""

import json
import math
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

ROOT = benchlib.ROOT
WORK = os.path.join(ROOT, "target", "bench-ab")


def rev_id(rev):
    return subprocess.check_output(
        ["git", "rev-parse", "--short=10", rev], cwd=ROOT, text=True
    ).strip()


def build(rev, bench, features):
    """The path of the bench binary built at `rev` (copied out of the shared
    target directory, so the next build cannot overwrite it)."""
    sha = rev_id(rev)
    tree = os.path.join(WORK, "tree-" + sha)
    tag = f"-{features.replace(',', '+')}" if features else ""
    out = os.path.join(WORK, f"{bench}{tag}-{sha}")
    if os.path.exists(out):
        return sha, out
    if not os.path.exists(tree):
        subprocess.check_call(
            ["git", "worktree", "add", "--detach", "--force", tree, sha], cwd=ROOT
        )
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(WORK, "target"))
    feat = ["--features", features] if features else []
    msgs = subprocess.check_output(
        ["cargo", "bench", "-p", "bitpack-bench", "--bench", bench, "--no-run",
         "--message-format=json"] + feat,
        cwd=tree, env=env, text=True,
    )
    exe = None
    for line in msgs.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("reason") == "compiler-artifact" and m.get("executable") and \
                m["target"]["name"] == bench:
            exe = m["executable"]
    if exe is None:
        sys.exit(f"bench_ab: no executable for the bench {bench} at {rev}")
    shutil.copy2(exe, out)
    subprocess.call(["git", "worktree", "remove", "--force", tree], cwd=ROOT)
    return sha, out


def run(exe, flt, home):
    """{(group, function, parameter): median ns} of one run of `exe`."""
    shutil.rmtree(home, ignore_errors=True)
    env = dict(os.environ, CRITERION_HOME=home)
    subprocess.check_call(
        [exe, "--bench", flt, "--noplot"], env=env, stdout=subprocess.DEVNULL
    )
    res, _ = benchlib.load(home)
    if not res:
        sys.exit(f"bench_ab: the filter {flt!r} selected no benchmark")
    return res


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def take_option(argv, name, default):
    """The value after `name` in `argv` (both removed from it), or `default`."""
    if name not in argv:
        return default
    i = argv.index(name)
    value = argv[i + 1]
    del argv[i:i + 2]
    return value


def main(argv):
    bench = take_option(argv, "--bench", "kernels")
    features = take_option(argv, "--features", "")
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    base, after, flt = argv[:3]
    rounds = int(argv[3]) if len(argv) == 4 else 3
    os.makedirs(WORK, exist_ok=True)
    builds = [build(base, bench, features), build(after, bench, features)]
    times = [{}, {}]
    for r in range(rounds):
        order = (0, 1) if r % 2 == 0 else (1, 0)
        for i in order:
            home = os.path.join(WORK, f"criterion-{i}")
            for key, ns in run(builds[i][1], flt, home).items():
                times[i].setdefault(key, []).append(ns)
        print(f"round {r + 1} of {rounds} done", file=sys.stderr)
    cpu, cores, flags = benchlib.machine()
    print(f"base {builds[0][0]} against after {builds[1][0]}, {rounds} rounds, "
          f"filter {flt!r}")
    print(f"machine: {cpu}, {cores} logical cores, {flags}")
    print(f"{'benchmark':<48} {'base':>10} {'after':>10} {'after/base':>10}")
    logs = []
    for key in sorted(set(times[0]) & set(times[1])):
        b, a = median(times[0][key]), median(times[1][key])
        name = "/".join(k for k in key if k)
        logs.append(math.log(a / b))
        print(f"{name:<48} {benchlib.fmt_time(b):>10} {benchlib.fmt_time(a):>10} "
              f"{a / b:>10.3f}")
    only = set(times[0]) ^ set(times[1])
    if only:
        print("in one build only: " + ", ".join("/".join(k) for k in sorted(only)))
    if logs:
        print(f"geometric mean after/base over {len(logs)} benchmarks: "
              f"{math.exp(sum(logs) / len(logs)):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
