#!/usr/bin/env bash
# Builds the cargo-fuzz targets in fuzz/ (nightly) and runs each for a short
# time, two at a time (the CI machine has two cores):
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Installs cargo-fuzz from the registry when it is missing. Each target
# checks properties (round trips, agreement with a bit-level reference,
# unchanged data after an error, zero padding), so a failed assertion is a
# finding: libFuzzer saves the input under fuzz/artifacts/<target>/, and
# the run fails. A finding becomes a regression test in the stable suite
# (tests/tests/), so that `cargo test` keeps checking it without nightly.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-40}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(from_bytes views dyn_width float_codec block_scaled dlpack_import)
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
cd fuzz
# Release with debug assertions (cargo-fuzz's default), built once.
cargo +nightly fuzz build
mkdir -p target/logs
run() {
    mkdir -p "corpus/$1"
    local rc=0
    cargo +nightly fuzz run "$1" "corpus/$1" -- \
        -max_total_time="$secs" -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        >"target/logs/$1.log" 2>&1 || rc=$?
    grep -E "^(stat::number_of_executed_units|Done)" "target/logs/$1.log" | sed "s/^/$1: /" || true
    if [ $rc -ne 0 ]; then
        echo "fuzz: $1 failed (exit $rc); its log:" >&2
        tail -40 "target/logs/$1.log" >&2
    fi
    return $rc
}
failed=0
for ((i = 0; i < ${#targets[@]}; i += 2)); do
    pids=()
    for t in "${targets[@]:i:2}"; do
        run "$t" &
        pids+=($!)
    done
    for p in "${pids[@]}"; do
        wait "$p" || failed=1
    done
done
exit $failed
