#!/usr/bin/env bash
# RUSTC_WRAPPER of scripts/build-ptx.sh: replaces the `-C metadata=` that
# cargo gives each crate by one made of the crate's name and target alone.
#
# rustc derives each crate's disambiguator (the `Cs<hash>_` of v0 symbol
# names) from that metadata, and cargo derives the metadata from, among
# others, the absolute path of a path dependency outside the workspace
# (`../bitpack`) and of the standard library's sources (-Z build-std). A
# build in another checkout or with another RUSTUP_HOME would otherwise get
# other disambiguators. build-ptx.sh replaces them by one fixed value, but
# their length still shows in the byte offsets of the names' back-references
# (`B<offset>_`), so the PTX would differ wherever a hash had another number
# of base-62 digits. The crates of one PTX build have distinct names, so the
# name (and target) is enough to keep every disambiguator distinct.
set -euo pipefail
rustc=$1
shift
args=()
name=
target=
while [ $# -gt 0 ]; do
    case "$1" in
        -C)
            if [[ "${2:-}" == metadata=* ]]; then
                shift 2
                continue
            fi
            ;;
        -Cmetadata=*) shift; continue ;;
        --crate-name) name=${2:-} ;;
        --target) target=${2:-} ;;
    esac
    args+=("$1")
    shift
done
if [ -n "$name" ]; then
    args+=(-C "metadata=bitpack-ptx:$name:${target:-host}")
fi
exec "$rustc" "${args[@]}"
