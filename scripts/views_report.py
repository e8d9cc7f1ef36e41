#!/usr/bin/env python3
"""Writes the "Views and reductions" section of BENCHMARKS.md: the same as
`python3 scripts/bench_report.py --section views` (see there).

Usage: python3 scripts/views_report.py [--out BENCHMARKS.md] [--notes FILE]
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_report  # noqa: E402

if __name__ == "__main__":
    sys.exit(bench_report.main(["--section", "views", *sys.argv[1:]]))
