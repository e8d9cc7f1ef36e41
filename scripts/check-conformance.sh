#!/usr/bin/env bash
# Checks that the committed conformance vectors (tests/conformance/) are a
# byte-identical copy of the reference set: same file list, every checksum in
# the committed SHA256SUMS holds, and every file equals its reference twin.
#
#   scripts/check-conformance.sh [REFERENCE_DIR]   (default: ../shared/conformance)
#
# Without a reference folder only the checksums are verified.
set -euo pipefail
cd "$(dirname "$0")/.."
copy=tests/conformance
ref=${1:-../shared/conformance}

(cd "$copy" && sha256sum --quiet -c SHA256SUMS)
echo "conformance: every checksum in $copy/SHA256SUMS holds"

listed=$(awk '{print $2}' "$copy/SHA256SUMS" | sort)
present=$(cd "$copy" && ls | grep -vx -e SHA256SUMS -e README.md | sort)
if [ "$listed" != "$present" ]; then
    echo "conformance: $copy holds files that SHA256SUMS does not list (or lacks listed ones):" >&2
    diff <(echo "$listed") <(echo "$present") >&2 || true
    exit 1
fi

if [ ! -d "$ref" ]; then
    echo "conformance: no reference folder at $ref; compared checksums only"
    exit 0
fi
if ! diff <(cd "$ref" && ls | sort) <(cd "$copy" && ls | sort); then
    echo "conformance: the file lists of $copy and $ref differ" >&2
    exit 1
fi
for f in "$ref"/*; do
    name=$(basename "$f")
    if ! cmp -s "$f" "$copy/$name"; then
        echo "conformance: $copy/$name differs from $ref/$name; copy the reference file, never edit it" >&2
        exit 1
    fi
done
echo "conformance: $copy is byte-identical to $ref ($(ls "$copy" | wc -l) files)"
