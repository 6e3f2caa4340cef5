#!/bin/sh
# golden.sh [LSTMC] [OUT] — the refactoring safety net: compile every fixture case under a
# set of flag combinations and print the sha256 of every file generated (or, where lstmc
# refuses the combination, its exit status and message). A change that only moves or splits
# code must reproduce the list byte for byte:
#
#     sh scripts/golden.sh build/lstmc /tmp/before.txt    # on the commit before
#     sh scripts/golden.sh build/lstmc /tmp/after.txt     # on the change
#     cmp /tmp/before.txt /tmp/after.txt
#
# LSTMC defaults to build/lstmc, OUT to standard output. Flag sets run two at a time
# (GOLDEN_JOBS to change); each has its own scratch folder under GOLDEN_WORK, so paths never
# differ between runs.
set -eu
self=$(realpath "$0")
cd "$(dirname "$self")/.."
lstmc=$(realpath "${1:-build/lstmc}")
out=${2:-/dev/stdout}
jobs=${GOLDEN_JOBS:-2}
work=${GOLDEN_WORK:-/tmp/lstmc-golden}

# the flag sets: a name, then lstmc options
sets='default
emitc --emit=c
schedA --disable-pass=split_gates
tissue0 --alpha-inter=0
drs0 --alpha-intra=0
fp16 --weights=fp16
pocl --target=pocl'

# the values of symbolic dims (any consistent value will do; the fixtures' own where a
# model ties a dim to a constant)
dims_for() {
    case $1 in
    pt_bilstm_tagger) echo "--dim=seq=5 --dim=batch=3" ;;
    *) echo "--dim=seq=5 --dim=batch=2 --dim=a=3 --dim=b=4 --dim=c=5" ;;
    esac
}

one_set() { # SETNAME OPTIONS...
    set_name=$1
    shift
    dir="$work/$set_name"
    mkdir -p "$dir"
    : > "$dir/list"
    for c in $(cat tests/fixtures/cases/index.txt); do
        rm -rf "$dir/out"
        rc=0
        # shellcheck disable=SC2046
        "$lstmc" "tests/fixtures/cases/$c/model.onnx" $(dims_for "$c") "$@" --name=model \
            -o "$dir/out" > "$dir/stdout" 2> "$dir/stderr" || rc=$?
        if [ "$rc" -eq 0 ]; then
            (cd "$dir/out" && find . -type f | LC_ALL=C sort | xargs sha256sum) |
                sed "s|^|$set_name $c |" >> "$dir/list"
        else
            echo "$set_name $c exit=$rc $(head -c 200 "$dir/stderr" | tr '\n' ' ')" >> "$dir/list"
        fi
    done
}

if [ -n "${GOLDEN_ONE:-}" ]; then # one flag set (the workers started below)
    # shellcheck disable=SC2086
    one_set $GOLDEN_ONE
    exit 0
fi
rm -rf "$work"
mkdir -p "$work"
echo "$sets" | tr '\n' '\0' |
    xargs -0 -P "$jobs" -I{} env GOLDEN_ONE={} GOLDEN_WORK="$work" sh "$self" "$lstmc"
echo "$sets" | while read -r set_name _; do
    cat "$work/$set_name/list"
done > "$out"
