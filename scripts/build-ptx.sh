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
#      rustc runs under scripts/ptx-rustc.sh, which gives every crate a
#      metadata made of its name alone: the disambiguators it replaces then
#      have the same length everywhere, and so have the back-reference offsets
#      in the names.
#
#   scripts/build-ptx.sh [--crate DIR] [--out DIR] [--name NAME] [TARGET...]
#
# TARGET is one of bitpack/ptx/TARGETS (default: all of them); each is written to
# OUT/NAME-TARGET.ptx (defaults: bitpack-ptx, bitpack/ptx/, bitpack). The toolchain is
# BITPACK_PTX_TOOLCHAIN, else the pinned nightly below, else an installed
# `nightly` that is the same build (the commit bitpack/ptx/TOOLCHAIN
# records); only when none is present is the pinned one installed (rustup,
# profile minimal, with rust-src and llvm-tools), and the
# script says so first. Cargo's target directory is
# CARGO_TARGET_DIR (default target/) + /ptx-build/TARGET (a directory of its
# own: cargo does not rebuild when only RUSTC_WRAPPER changes).
#
#   scripts/build-ptx.sh --print-toolchain   # the toolchain it would use
#                                            # (installing it if needed)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

pinned=nightly-2026-05-19
toolchain=${BITPACK_PTX_TOOLCHAIN:-}
print_toolchain=0
crate=bitpack-ptx
out=bitpack/ptx
name=bitpack
targets=()
while [ "$#" -gt 0 ]; do
    case "$1" in
    --crate) crate=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    --print-toolchain) print_toolchain=1; shift ;;
    -h | --help) sed -n '2,26p' "$0"; exit 0 ;;
    sm_*) targets+=("$1"); shift ;;
    *) echo "build-ptx: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ "${#targets[@]}" -gt 0 ] || mapfile -t targets < <(awk '!/^#/ && NF {print $1}' bitpack/ptx/TARGETS)

# The commit of a toolchain's rustc, or nothing when it is not installed.
commit_of() { rustup run "$1" rustc -vV 2>/dev/null | sed -n 's/^commit-hash: //p'; }
if [ -z "$toolchain" ]; then
    toolchain=$pinned
    if [ -z "$(commit_of "$pinned")" ]; then
        # The pinned build under another name (a `nightly` of the same date)
        # gives the same PTX: use it rather than install a second copy.
        recorded=$(sed -n 's/^commit-hash: //p' "$root/bitpack/ptx/TOOLCHAIN" 2>/dev/null || true)
        if [ -n "$recorded" ] && [ "$(commit_of nightly)" = "$recorded" ]; then
            toolchain=nightly
            echo "build-ptx: using the installed nightly, the same build as $pinned ($recorded)" >&2
        fi
    fi
fi
if [ -z "$(commit_of "$toolchain")" ]; then
    echo "build-ptx: installing $toolchain with rustup (profile minimal, components rust-src and" \
        "llvm-tools): no installed toolchain is that build" \
        "(BITPACK_PTX_TOOLCHAIN picks another; its PTX may then differ from bitpack/ptx/)" >&2
    rustup toolchain install "$toolchain" --profile minimal --component rust-src,llvm-tools >&2
else
    for c in rust-src llvm-tools; do
        if ! rustup +"$toolchain" component list --installed 2>/dev/null | grep -q "^$c"; then
            echo "build-ptx: adding the rustup component $c to $toolchain" >&2
            rustup +"$toolchain" component add "$c" >&2
        fi
    done
fi
if [ "$print_toolchain" = 1 ]; then
    echo "$toolchain"
    exit 0
fi
sysroot=$(rustup run "$toolchain" rustc --print sysroot)
host=$(rustup run "$toolchain" rustc -vV | sed -n 's/^host: //p')
bin=$sysroot/lib/rustlib/$host/bin
for t in llvm-ar llvm-link opt llc llvm-dis; do
    [ -x "$bin/$t" ] || { echo "build-ptx: $bin/$t is missing (rustup component llvm-tools)" >&2; exit 1; }
done

# The PTX ISA version of each target, from bitpack/ptx/TARGETS: 7.8 for the
# FP8 cvt (8.1 on sm_89, 7.8 on sm_90), 8.6/8.7 for the FP4/FP6/UE8M0 cvt (sm_100a,
# sm_120a); sm_80 gets the oldest PTX that has what it uses.
ptx_for() {
    local p
    p=$(awk -v t="$1" '$1 == t {print $2}' "$root/bitpack/ptx/TARGETS")
    [ -n "$p" ] || { echo "build-ptx: $1 is not in bitpack/ptx/TARGETS" >&2; return 1; }
    echo "$p"
}

manifest=$root/$crate/Cargo.toml
lib=$(sed -n 's/^name = "\(.*\)"/\1/p' "$manifest" | head -1 | tr - _)
mkdir -p "$out"
tdir_base=${CARGO_TARGET_DIR:-$root/target}
for target in "${targets[@]}"; do
    ptx=$(ptx_for "$target")
    tdir=$tdir_base/ptx-build/$target
    RUSTC_WRAPPER=$root/scripts/ptx-rustc.sh \
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
