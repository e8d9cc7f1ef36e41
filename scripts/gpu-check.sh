#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU, CUDA, numpy and CuPy (no
# Rust needed; PyTorch for the FP8 GEMM check): loads the committed PTX
# (bitpack/ptx/), compares every kernel with the host rules, times about 30
# kernels against cudaMemcpy, and writes its results row by row under the
# folder given (log.txt, checks.tsv, timings.tsv, GPU.md). About 6 minutes
# on one H200; --budget (seconds, default 450) bounds it.
#
#   scripts/gpu-check.sh --out-dir DIR [--quick] [--budget S] [--compare-ptx OLD]
#
# PYTHON selects the interpreter (default: python3). Exits 2 with a message
# when numpy, CuPy or a usable GPU is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
if ! command -v "$py" >/dev/null 2>&1; then
    echo "gpu-check: $py is not installed" >&2
    exit 2
fi
if ! "$py" -c 'import numpy' 2>/dev/null; then
    echo "gpu-check: numpy is not importable with $py" >&2
    exit 2
fi
while read -r target _; do
    case "$target" in '#'* | '') continue ;; esac
    f=bitpack/ptx/bitpack-$target.ptx
    [ -f "$f" ] || { echo "gpu-check: $f is missing" >&2; exit 2; }
done <bitpack/ptx/TARGETS
PYTHONUNBUFFERED=1 exec "$py" scripts/gpu_check.py "$@"
