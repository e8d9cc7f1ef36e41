#!/usr/bin/env bash
# Creates (once) the Python virtual environment that the Python-side checks
# share, installs the named registry packages into it, and prints the path of
# its python. Exits 3 with a message when Python 3 is missing, so callers can
# skip their check with a clear reason.
#
#   py=$(scripts/venv.sh numpy ml_dtypes) || exit_code=$?
#
# The environment lives in target/py-venv (ignored by git); override with
# BITPACK_VENV. pip keeps no download cache (PIP_NO_CACHE_DIR): torch and its
# CUDA libraries would otherwise sit on disk twice, about 3 GB more.
set -euo pipefail
export PIP_NO_CACHE_DIR=1
cd "$(dirname "$0")/.."
venv=${BITPACK_VENV:-$PWD/target/py-venv}
if ! command -v python3 >/dev/null 2>&1; then
    echo "venv: python3 is not installed; the Python-side checks are skipped" >&2
    exit 3
fi
if [ ! -x "$venv/bin/python" ]; then
    mkdir -p "$(dirname "$venv")"
    python3 -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet --upgrade pip >&2
fi
if [ "$#" -gt 0 ]; then
    "$venv/bin/python" -m pip install --quiet "$@" >&2
fi
echo "$venv/bin/python"
