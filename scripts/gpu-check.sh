#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU, CUDA, numpy and CuPy (no
# Rust needed): loads the committed PTX (bitpack/ptx/), compares every kernel
# with the host rules on random data (1, 31, 4096, 2^20+7 and 2^26 values)
# and on the conformance vectors, times unpack/encode/decode against a device
# copy, and writes GPU.md. Takes a few minutes on one GPU.
#
#   scripts/gpu-check.sh [--quick] [--out FILE]
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
for f in bitpack/ptx/bitpack-sm_80.ptx bitpack/ptx/bitpack-sm_90.ptx bitpack/ptx/bitpack-sm_100a.ptx; do
    [ -f "$f" ] || { echo "gpu-check: $f is missing" >&2; exit 2; }
done
exec "$py" scripts/gpu_check.py "$@"
