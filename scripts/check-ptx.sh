#!/usr/bin/env bash
# Checks the committed PTX of bitpack-ptx (bitpack/ptx/):
#
#   1. rebuilds it (scripts/build-ptx.sh) for every target of bitpack/ptx/TARGETS and
#      compares it byte for byte with the committed files when the toolchain
#      is the one recorded in bitpack/ptx/TOOLCHAIN (otherwise: a warning, and the
#      checks below run on the fresh build);
#   2. every entry point listed in bitpack/ptx/ENTRIES is a `.entry` of every file;
#   3. no entry calls a panic (`core::panicking`, `slice_index_fail`);
#   4. the packed `cvt` forms appear in the conversion entries of the targets
#      that have them, and none appears in the sm_80 build;
#   5. ptxas (from the registry package nvidia-cuda-nvcc, installed into the
#      shared venv) assembles each file for its target;
#   6. the SASS of the committed PTX (ptxas, then cuobjdump from the registry
#      package nvidia-cuda-cuobjdump): bitpack/ptx/SASS.md equals what
#      scripts/sass_report.py writes, and its limits (no local memory, no
#      f64, no byte store in a loop, 128-bit accesses in the bulk entries)
#      hold but for the exemptions of bitpack/ptx/SASS-LIMITS, none of them
#      stale;
#   7. the example kernel crate (examples/kernel-crate) builds the same way
#      for sm_80 and sm_100a, ptxas accepts both, and the sm_100a build
#      encodes with the FP4 cvt.
#
#   scripts/check-ptx.sh            # all of the above
#   scripts/check-ptx.sh --update   # rebuild into bitpack/ptx/, rewrite bitpack/ptx/TOOLCHAIN,
#                                   # bitpack/ptx/RESOURCES.md (ptxas -v) and
#                                   # bitpack/ptx/SASS.md (the limits are still checked)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# The toolchain build-ptx.sh picks (BITPACK_PTX_TOOLCHAIN, the pinned nightly,
# or an installed nightly of the same build), fixed here for every build below.
toolchain=$(scripts/build-ptx.sh --print-toolchain)
export BITPACK_PTX_TOOLCHAIN=$toolchain
mapfile -t targets < <(awk '!/^#/ && NF {print $1}' bitpack/ptx/TARGETS)
update=0
[ "${1:-}" = --update ] && update=1

fail() { echo "check-ptx: FAIL: $*" >&2; exit 1; }

fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
if [ "$update" = 1 ]; then
    scripts/build-ptx.sh --out bitpack/ptx "${targets[@]}"
    rustup run "$toolchain" rustc -Vv >bitpack/ptx/TOOLCHAIN
    cp bitpack/ptx/bitpack-*.ptx "$fresh/"
else
    scripts/build-ptx.sh --out "$fresh" "${targets[@]}"
    if [ "$(rustup run "$toolchain" rustc -Vv)" = "$(cat bitpack/ptx/TOOLCHAIN)" ]; then
        for t in "${targets[@]}"; do
            if ! cmp -s "$fresh/bitpack-$t.ptx" "bitpack/ptx/bitpack-$t.ptx"; then
                diff -u "bitpack/ptx/bitpack-$t.ptx" "$fresh/bitpack-$t.ptx" | head -40 >&2 || true
                fail "bitpack/ptx/bitpack-$t.ptx is stale: run scripts/check-ptx.sh --update and commit"
            fi
        done
        echo "check-ptx: the committed PTX equals a fresh build"
    else
        echo "check-ptx: WARNING: $toolchain is not the toolchain recorded in bitpack/ptx/TOOLCHAIN;" \
            "the committed PTX was not compared (the checks below run on the fresh build)" >&2
    fi
fi

# The body of entry $2 in file $1 (from `.entry NAME(` to the closing brace).
body() { awk -v e="$2" '$0 ~ "^\\.visible \\.entry " e "\\(" {p=1} p {print} p && /^}/ {exit}' "$1"; }

for t in "${targets[@]}"; do
    f=$fresh/bitpack-$t.ptx
    while read -r e; do
        [ -z "$e" ] && continue
        grep -q "^\.visible \.entry $e(" "$f" || fail "$t: entry $e is missing"
    done <bitpack/ptx/ENTRIES
    extra=$(grep -c '^\.visible \.entry' "$f")
    [ "$extra" = "$(grep -c . bitpack/ptx/ENTRIES)" ] || fail "$t: $extra entries, bitpack/ptx/ENTRIES lists $(grep -c . bitpack/ptx/ENTRIES)"
    panics=$(awk '/^\.visible \.entry/ {n=$3} /^}/ {n=""} n && /call/ && /panicking|slice_index_fail/ {print n}' "$f" | sort -u)
    [ -z "$panics" ] || fail "$t: entries that can panic: $panics"
done
echo "check-ptx: every entry of bitpack/ptx/ENTRIES is in each file, and none calls a panic"

# Packed cvt forms: (target, entry, form).
expect() {
    local b
    b=$(body "$fresh/bitpack-$1.ptx" "$2")
    grep -F "$3" >/dev/null <<<"$b" || fail "$1: $2 does not use $3"
}
for t in sm_89 sm_90 sm_100a sm_120a; do
    expect $t encode_e4m3_satfinite cvt.rn.satfinite.e4m3x2.f32
    expect $t encode_e5m2_satfinite cvt.rn.satfinite.e5m2x2.f32
    expect $t decode_e4m3_f32 cvt.rn.f16x2.e4m3x2
    expect $t decode_e5m2_f32 cvt.rn.f16x2.e5m2x2
    expect $t mx_quantize_e4m3 cvt.rn.satfinite.e4m3x2.f32
    expect $t mx_quantize_e5m2 cvt.rn.satfinite.e5m2x2.f32
done
for t in sm_100a sm_120a; do
    expect $t encode_e2m1_satfinite cvt.rn.satfinite.e2m1x2.f32
    expect $t encode_e2m3_satfinite cvt.rn.satfinite.e2m3x2.f32
    expect $t encode_e3m2_satfinite cvt.rn.satfinite.e3m2x2.f32
    expect $t decode_e2m1_f32 cvt.rn.f16x2.e2m1x2
    expect $t decode_e2m3_f32 cvt.rn.f16x2.e2m3x2
    expect $t decode_e3m2_f32 cvt.rn.f16x2.e3m2x2
    expect $t mx_quantize_e2m1 cvt.rn.satfinite.e2m1x2.f32
    expect $t mx_quantize_e2m3 cvt.rn.satfinite.e2m3x2.f32
    expect $t mx_quantize_e3m2 cvt.rn.satfinite.e3m2x2.f32
done
# The 16-bit decodes look the codes up directly (no f32 on the way).
reject() {
    local b
    b=$(body "$fresh/bitpack-$1.ptx" "$2")
    grep -F "$3" >/dev/null <<<"$b" && fail "$1: $2 uses $3 (the 16-bit decodes go straight to 16 bits)"
    return 0
}
for t in "${targets[@]}"; do
    reject $t decode_e4m3_f16 cvt.rn.f16x2.f32
    reject $t decode_e4m3_bf16 cvt.rn.bf16x2.f32
done
if grep -qE 'cvt\.[a-z.]*(e4m3x2|e5m2x2|e2m1x2|e2m3x2|e3m2x2|ue8m0x2)' "$fresh/bitpack-sm_80.ptx"; then
    fail "sm_80: an FP8/FP6/FP4 cvt, which sm_80 does not have"
fi
for t in sm_89 sm_90; do
    if grep -qE 'cvt\.[a-z.]*(e2m1x2|e2m3x2|e3m2x2|ue8m0x2)' "$fresh/bitpack-$t.ptx"; then
        fail "$t: an FP4/FP6 cvt, which $t does not have"
    fi
done
echo "check-ptx: the packed cvt forms are where the targets have them, and only there"

status=0
py=$(scripts/venv.sh nvidia-cuda-nvcc nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm) || status=$?
if [ "$status" = 3 ]; then
    echo "check-ptx: SKIP ptxas: python3 is missing, so nvidia-cuda-nvcc cannot be installed"
    exit 0
fi
[ "$status" = 0 ] || fail "could not install nvidia-cuda-nvcc"
ptxas=$("$py" -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13", "bin", "ptxas"))')
[ -x "$ptxas" ] || fail "ptxas not found at $ptxas"
resources=$fresh/RESOURCES.md
{
    echo "# ptxas -v: registers and spills per entry"
    echo
    echo "\`$("$ptxas" --version | grep -o 'release [0-9.]*, V[0-9.]*')\` on the committed PTX (\`scripts/check-ptx.sh --update\`)."
    echo "Spill stores/loads are bytes; \`stack\` is the frame in bytes."
} >"$resources"
for t in "${targets[@]}"; do
    log=$fresh/ptxas-$t.log
    "$ptxas" -v -arch="$t" "$fresh/bitpack-$t.ptx" -o "$fresh/bitpack-$t.cubin" 2>"$log" ||
        { cat "$log" >&2; fail "ptxas rejects bitpack-$t.ptx"; }
    echo "check-ptx: ptxas -arch=$t accepts bitpack-$t.ptx"
    {
        echo
        echo "## $t"
        echo
        echo "| entry | registers | spill stores | spill loads | stack |"
        echo "|---|---|---|---|---|"
        awk '/Compiling entry function/ {gsub(/'"'"'/, "", $0); match($0, /function [A-Za-z0-9_]+/); e=substr($0, RSTART+9, RLENGTH-9)}
             /bytes stack frame/ {st=$1; ss=$5; sl=$9}
             /Used [0-9]+ registers/ {match($0, /Used [0-9]+ registers/); r=substr($0, RSTART+5, RLENGTH-15); print "| `" e "` | " r " | " ss " | " sl " | " st " |"}' "$log" | sort
    } >>"$resources"
done
sass_args=(--bin "$(dirname "$ptxas")" --ptx-dir bitpack/ptx)
if [ "$update" = 1 ]; then
    cp "$resources" bitpack/ptx/RESOURCES.md
    echo "check-ptx: wrote bitpack/ptx/ and bitpack/ptx/RESOURCES.md"
    python3 scripts/sass_report.py "${sass_args[@]}" --update ||
        fail "a SASS limit breaks (bitpack/ptx/SASS.md was written; see bitpack/ptx/SASS-LIMITS)"
    exit 0
fi
python3 scripts/sass_report.py "${sass_args[@]}" ||
    fail "bitpack/ptx/SASS.md is stale or a SASS limit breaks (see above)"
echo "check-ptx: bitpack/ptx/SASS.md is current and every SASS limit holds or is exempt"

scripts/build-ptx.sh --crate examples/kernel-crate --name kernel-crate --out "$fresh" sm_80 sm_100a
for t in sm_80 sm_100a; do
    "$ptxas" -v -arch="$t" "$fresh/kernel-crate-$t.ptx" -o "$fresh/kernel-crate-$t.cubin" 2>"$fresh/kc.log" ||
        { cat "$fresh/kc.log" >&2; fail "ptxas rejects the example kernel crate's $t build"; }
    echo "check-ptx: ptxas -arch=$t accepts the example kernel crate ($(grep -o 'Used [0-9]* registers' "$fresh/kc.log"))"
done
k=$(body "$fresh/kernel-crate-sm_100a.ptx" scale_e2m1)
grep -F cvt.rn.satfinite.e2m1x2.f32 >/dev/null <<<"$k" || fail "the example kernel does not use the FP4 cvt on sm_100a"
grep -E 'panicking|slice_index_fail' >/dev/null <<<"$k" && fail "the example kernel can panic"
echo "check-ptx: the example kernel crate encodes with cvt.rn.satfinite.e2m1x2.f32 on sm_100a"
