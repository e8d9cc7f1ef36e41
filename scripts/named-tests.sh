#!/usr/bin/env bash
# Runs a `cargo test` command line that selects tests by name, and fails
# when a name it gives selected no test that ran and passed, so that a
# renamed or removed test cannot silently drop out of a CI step.
#
#   scripts/named-tests.sh cargo test -p bitpacked --lib -- --exact a::b c::d
#
# The names are the arguments after the first `--` that do not start with
# `-`; with `--exact` a name must equal a test's name, otherwise it must be
# a part of one (libtest's own rules). The command's output is shown as it
# runs; its exit status is kept when it fails.
set -uo pipefail

exact=0
names=()
seen_sep=0
for arg in "$@"; do
    if [ "$seen_sep" = 1 ]; then
        case "$arg" in
            --exact) exact=1 ;;
            -*) ;;
            *) names+=("$arg") ;;
        esac
    elif [ "$arg" = "--" ]; then
        seen_sep=1
    fi
done
if [ "${#names[@]}" = 0 ]; then
    echo "named-tests.sh: the command names no tests after --" >&2
    exit 2
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" != 0 ]; then
    exit "$rc"
fi

# The tests that ran and passed: lines `test NAME ... ok`.
passed=$(sed -n 's/^test \(.*\) \.\.\. ok$/\1/p' "$log")
missing=()
for name in "${names[@]}"; do
    if [ "$exact" = 1 ]; then
        grep -qxF -- "$name" <<<"$passed" || missing+=("$name")
    else
        grep -qF -- "$name" <<<"$passed" || missing+=("$name")
    fi
done
count=$(grep -c . <<<"$passed" || true)
if [ "${#missing[@]}" != 0 ]; then
    echo "named-tests.sh: $count tests passed, but these names selected none:" >&2
    printf '  %s\n' "${missing[@]}" >&2
    exit 1
fi
echo "named-tests.sh: every one of the ${#names[@]} names selected a passing test ($count in all)"
