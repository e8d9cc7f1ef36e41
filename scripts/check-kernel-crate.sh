#!/usr/bin/env bash
# Checks that examples/kernel-crate and examples/kernel-host work as a user's
# copy: both folders are copied to a temporary folder outside the
# repository, their `bitpack` path dependency is pointed at this checkout
# (the sed step their README gives), and then, with the commands of the
# README, from the copies' own folders:
#
#   1. kernel-crate/build.sh (its rust-toolchain.toml: the pinned nightly)
#      writes the PTX for sm_80 and sm_100a, and ptxas (registry package
#      nvidia-cuda-nvcc, in the shared venv) accepts both;
#   2. kernel-host builds (stable) and runs: it launches the kernel through
#      cudarc and compares it with bitpack on the host, or, without a GPU,
#      says so and exits 0 (BITPACK_REQUIRE_GPU=1 makes that a failure).
#
#   scripts/check-kernel-crate.sh [--keep]   # --keep: leave the copy (printed)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
keep=0
[ "${1:-}" = --keep ] && keep=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bitpack-kernel-crate.XXXXXX")
[ "$keep" = 1 ] || trap 'rm -rf "$tmp"' EXIT
for d in kernel-crate kernel-host; do
    mkdir -p "$tmp/$d"
    # The sources, not a build folder a local build may have left.
    tar -C "examples/$d" --exclude=./target -cf - . | tar -C "$tmp/$d" -xf -
    sed -i "s|path = \"../../bitpack\"|path = \"$root/bitpack\"|" "$tmp/$d/Cargo.toml"
    grep -q "path = \"$root/bitpack\"" "$tmp/$d/Cargo.toml" ||
        { echo "check-kernel-crate: $d/Cargo.toml has no path = \"../../bitpack\" dependency" >&2; exit 1; }
done
echo "check-kernel-crate: copied to $tmp"

# The copies see neither this repository's rust-toolchain settings nor its
# target folder: they build as a user's would. CARGO_TARGET_DIR from the
# caller would put both builds in one folder; they keep their own.
unset CARGO_TARGET_DIR RUSTUP_TOOLCHAIN
(cd "$tmp/kernel-crate" && ./build.sh sm_80 sm_100a)

status=0
py=$(scripts/venv.sh nvidia-cuda-nvcc) || status=$?
if [ "$status" = 3 ]; then
    echo "check-kernel-crate: SKIP ptxas: python3 is missing"
else
    [ "$status" = 0 ] || { echo "check-kernel-crate: could not install nvidia-cuda-nvcc" >&2; exit 1; }
    ptxas=$("$py" -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13", "bin", "ptxas"))')
    for t in sm_80 sm_100a; do
        "$ptxas" -arch="$t" "$tmp/kernel-crate/target/ptx/kernel-crate-$t.ptx" -o "$tmp/kernel-crate-$t.cubin"
        echo "check-kernel-crate: ptxas -arch=$t accepts the copy's kernel-crate-$t.ptx"
    done
fi

(cd "$tmp/kernel-host" && cargo build --release --quiet && cargo run --release --quiet)
