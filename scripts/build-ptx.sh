#!/usr/bin/env bash
# Builds a `#![no_std]` kernel crate (crate-type "staticlib") to PTX for the
# targets named, without a GPU or CUDA:
#
#   1. cargo (pinned nightly) for nvptx64-nvidia-cuda with -Z build-std=core
#      and -C linker-plugin-lto, so every object of the .a is LLVM bitcode;
#   2. llvm-ar x, llvm-link of the objects (compiler_builtins left out);
#   3. opt: internalize all but the kernels (`define ptx_kernel`), drop what
#      they do not reach, -O3;
#   4. llc writes the .ptx; crate disambiguators in symbol names are replaced
#      by one fixed value, so the file does not depend on the checkout's path.
#
#   scripts/build-ptx.sh [--crate DIR] [--out DIR] [--name NAME] [TARGET...]
#
# TARGET is sm_80, sm_90 or sm_100a (default: all three); each is written to
# OUT/NAME-TARGET.ptx (defaults: bitpack-ptx, bitpack/ptx/, bitpack). The toolchain is
# BITPACK_PTX_TOOLCHAIN (default: the pinned nightly below, installed with
# rust-src and llvm-tools when missing). Cargo's target directory is
# CARGO_TARGET_DIR (default target/) + /ptx-TARGET.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

toolchain=${BITPACK_PTX_TOOLCHAIN:-nightly-2026-05-19}
crate=bitpack-ptx
out=bitpack/ptx
name=bitpack
targets=()
while [ "$#" -gt 0 ]; do
    case "$1" in
    --crate) crate=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    sm_*) targets+=("$1"); shift ;;
    *) echo "build-ptx: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ "${#targets[@]}" -gt 0 ] || targets=(sm_80 sm_90 sm_100a)

if ! rustup run "$toolchain" rustc -V >/dev/null 2>&1; then
    rustup toolchain install "$toolchain" --profile minimal --component rust-src,llvm-tools >&2
else
    rustup +"$toolchain" component add rust-src llvm-tools >&2 2>/dev/null || true
fi
sysroot=$(rustup run "$toolchain" rustc --print sysroot)
host=$(rustup run "$toolchain" rustc -vV | sed -n 's/^host: //p')
bin=$sysroot/lib/rustlib/$host/bin
for t in llvm-ar llvm-link opt llc llvm-dis; do
    [ -x "$bin/$t" ] || { echo "build-ptx: $bin/$t is missing (rustup component llvm-tools)" >&2; exit 1; }
done

# The PTX ISA version each target needs: 7.8 for the FP8 cvt (sm_90), 8.6 for
# the FP4/FP6/UE8M0 cvt (sm_100a); sm_80 gets the oldest PTX that has it.
ptx_for() {
    case "$1" in
    sm_80) echo ptx70 ;;
    sm_90) echo ptx78 ;;
    sm_100a) echo ptx86 ;;
    *) echo "build-ptx: no PTX version known for $1" >&2; return 1 ;;
    esac
}

manifest=$root/$crate/Cargo.toml
lib=$(sed -n 's/^name = "\(.*\)"/\1/p' "$manifest" | head -1 | tr - _)
mkdir -p "$out"
tdir_base=${CARGO_TARGET_DIR:-$root/target}
for target in "${targets[@]}"; do
    ptx=$(ptx_for "$target")
    tdir=$tdir_base/ptx-$target
    RUSTFLAGS="-C linker-plugin-lto -C target-cpu=$target -C target-feature=+$ptx" \
        cargo +"$toolchain" build --quiet --release --manifest-path "$manifest" \
        --target nvptx64-nvidia-cuda -Z build-std=core --target-dir "$tdir" 2> >(grep -v -e 'unstable feature specified' -e 'this feature is not stably supported' -e '^ *= note' -e '^$' >&2 || true)
    work=$(mktemp -d)
    (cd "$work" && "$bin/llvm-ar" x "$tdir/nvptx64-nvidia-cuda/release/lib$lib.a")
    objs=()
    for o in "$work"/*.o; do
        case "$(basename "$o")" in compiler_builtins*) continue ;; esac
        objs+=("$o")
    done
    "$bin/llvm-link" "${objs[@]}" -o "$work/linked.bc"
    kernels=$("$bin/llvm-dis" "$work/linked.bc" -o - |
        sed -n 's/^define .*ptx_kernel .*@\([A-Za-z0-9_]*\)(.*/\1/p' | paste -sd, -)
    [ -n "$kernels" ] || { echo "build-ptx: no kernels found in $crate" >&2; exit 1; }
    "$bin/opt" -passes='internalize,globaldce,default<O3>' \
        -internalize-public-api-list="$kernels" "$work/linked.bc" -o "$work/opt.bc"
    "$bin/llc" -march=nvptx64 -mcpu="$target" -mattr=+"$ptx" "$work/opt.bc" -o "$out/$name-$target.ptx"
    # Symbol names carry each crate's disambiguator (`Cs<hash>_`), which
    # cargo derives from, among others, the absolute path of a path
    # dependency: the same source cloned elsewhere would give other names.
    # One fixed disambiguator keeps every name unique (they still differ by
    # crate name and path) and the file independent of where it was built.
    sed -E -i 's/Cs[0-9A-Za-z]{1,16}_/Cs_/g' "$out/$name-$target.ptx"
    rm -rf "$work"
    echo "build-ptx: $out/$name-$target.ptx ($(grep -c '^\.visible \.entry' "$out/$name-$target.ptx") entries)" >&2
done
