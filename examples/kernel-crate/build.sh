#!/usr/bin/env bash
# Builds this kernel crate to PTX, one file per target, without a GPU or CUDA:
#
#   ./build.sh [TARGET...]     # default: sm_80 sm_100a
#
# writes target/ptx/kernel-crate-TARGET.ptx. TARGET is one of sm_80 (PTX
# 7.0), sm_89 (8.1), sm_90 (7.8), sm_100a (8.6), sm_120a (8.7); the toolchain
# is the one rust-toolchain.toml pins (rustup installs it with its
# components on first use). The steps:
#
#   1. cargo build --release (.cargo/config.toml: nvptx64, -Z build-std=core,
#      -C linker-plugin-lto), so every object of the .a is LLVM bitcode;
#   2. llvm-ar x, llvm-link of the objects (compiler_builtins left out);
#   3. opt: internalize all but the kernels (`define ptx_kernel`), drop what
#      they do not reach, -O3;
#   4. llc writes the .ptx.
#
# Check a file with ptxas (pip install nvidia-cuda-nvcc; no GPU needed):
#   ptxas -arch=sm_100a target/ptx/kernel-crate-sm_100a.ptx -o /dev/null
set -euo pipefail
cd "$(dirname "$0")"
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(sm_80 sm_100a)

# rustc here is the pinned nightly (rust-toolchain.toml).
sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
bin=$sysroot/lib/rustlib/$host/bin
for t in llvm-ar llvm-link opt llc llvm-dis; do
    [ -x "$bin/$t" ] || { echo "build.sh: $bin/$t is missing (rustup component add llvm-tools)" >&2; exit 1; }
done

lib=$(sed -n 's/^name = "\(.*\)"/\1/p' Cargo.toml | head -1 | tr - _)
mkdir -p target/ptx
for target in "${targets[@]}"; do
    case "$target" in
    sm_80) ptx=ptx70 ;;
    sm_89) ptx=ptx81 ;;
    sm_90) ptx=ptx78 ;;
    sm_100a) ptx=ptx86 ;;
    sm_120a) ptx=ptx87 ;;
    *) echo "build.sh: unknown target '$target' (sm_80, sm_89, sm_90, sm_100a, sm_120a)" >&2; exit 2 ;;
    esac
    tdir=target/build-$target
    CARGO_TARGET_NVPTX64_NVIDIA_CUDA_RUSTFLAGS="-C linker-plugin-lto -C target-cpu=$target -C target-feature=+$ptx" \
        cargo build --quiet --release --target-dir "$tdir" 2> >(grep -v -e 'unstable feature specified' \
        -e 'this feature is not stably supported' -e '^ *= note' -e '^ *|$' -e '^$' >&2 || true)
    work=$(mktemp -d)
    (cd "$work" && "$bin/llvm-ar" x "$OLDPWD/$tdir/nvptx64-nvidia-cuda/release/lib$lib.a")
    objs=()
    for o in "$work"/*.o; do
        case "$(basename "$o")" in compiler_builtins*) continue ;; esac
        objs+=("$o")
    done
    "$bin/llvm-link" "${objs[@]}" -o "$work/linked.bc"
    kernels=$("$bin/llvm-dis" "$work/linked.bc" -o - |
        sed -n 's/^define .*ptx_kernel .*@\([A-Za-z0-9_]*\)(.*/\1/p' | paste -sd, -)
    [ -n "$kernels" ] || { echo "build.sh: no kernels (extern \"ptx-kernel\" fns) found" >&2; exit 1; }
    "$bin/opt" -passes='internalize,globaldce,default<O3>' \
        -internalize-public-api-list="$kernels" "$work/linked.bc" -o "$work/opt.bc"
    "$bin/llc" -march=nvptx64 -mcpu="$target" -mattr=+"$ptx" "$work/opt.bc" -o "target/ptx/kernel-crate-$target.ptx"
    rm -rf "$work"
    echo "build.sh: target/ptx/kernel-crate-$target.ptx ($kernels)" >&2
done
