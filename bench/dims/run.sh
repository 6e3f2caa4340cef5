#!/bin/sh
# run.sh — what one library for every sequence length costs (issue 21): for stacked-LSTM
# models like bench/compare's (mkmodel, batch 1), one library compiled with
# --dim=seq=1..MAX against libraries compiled for one T each (--dim=seq=T), at T = 1, MAX/2
# and MAX, each timed by its generated driver (m_run --bench N: the median of N runs after
# one untimed run) on the same input. Not part of CI.
#
#   sh bench/dims/run.sh [LSTMC] [--runs N] [--configs NAME,...] [--flags "LSTMC FLAGS"]
#                        [--work DIR]
#
# LSTMC: build/lstmc unless given (mkmodel is taken from the same build folder, bench/mkmodel,
# and npycmp, tests/e2e/npycmp, when it is there). --flags go to every compile (e.g.
# --emit=c, --threads=2). Prints a markdown table: config, T, fixed ms, ranged ms, ranged /
# fixed (above 1: the ranged library is slower); a ranged time whose output is not the fixed
# library's (npycmp, rtol 1e-4, atol 1e-5) is marked "(wrong Y)".
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
lstmc=$ROOT/build/lstmc
case ${1:-} in
-* | "") ;;
*) lstmc=$1; shift ;;
esac
lstmc=$(cd "$(dirname "$lstmc")" && pwd)/$(basename "$lstmc")
mkmodel=$(dirname "$lstmc")/bench/mkmodel
npycmp=$(dirname "$lstmc")/tests/e2e/npycmp
runs=200 configs="" flags="" work=/tmp/lstmc-bench-dims
while [ $# -gt 0 ]; do
    case $1 in
    --runs) runs=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --flags) flags=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$lstmc" ] || { echo "run.sh: no lstmc at $lstmc" >&2; exit 2; }
[ -x "$mkmodel" ] || { echo "run.sh: no mkmodel at $mkmodel (cmake --build ... --target mkmodel)" >&2; exit 2; }

# name:I:H:layers:MAX (bench/compare's MR and HAR, the Arm'19 H64 corner, a 2-layer H256)
all="L2-H256:256:256:2:100 MR:256:256:1:22 HAR:9:32:2:128 H64:64:64:1:50"
rm -rf "$work"
mkdir -p "$work"

# ms DIR X: the median of the driver's --bench runs on input X ("-" when it fails)
ms() {
    "$1/m_run" --bench "$runs" --output-dir "$1/out" "$2" 2> "$1/bench.err" |
        sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' | grep . || echo "-"
}
# build DIR FLAGS...: compile model.onnx of the config into DIR and make it; 0 when it worked
build() {
    dir=$1
    shift
    # shellcheck disable=SC2086 # flags: several options
    "$lstmc" "$model" --name=m "$@" $flags -o "$dir" > "$dir.log" 2>&1 &&
        make -s -C "$dir" CFLAGS=-O2 >> "$dir.log" 2>&1 && mkdir -p "$dir/out"
}

echo "| config | T | fixed ms | ranged ms | ranged / fixed |"
echo "|---|---:|---:|---:|---:|"
for spec in $all; do
    name=${spec%%:*}
    rest=${spec#*:}
    i=${rest%%:*}; rest=${rest#*:}
    h=${rest%%:*}; rest=${rest#*:}
    l=${rest%%:*}; tmax=${rest#*:}
    if [ -n "$configs" ]; then
        case ",$configs," in *",$name,"*) ;; *) continue ;; esac
    fi
    d=$work/$name
    mkdir -p "$d"
    model=$d/model.onnx
    "$mkmodel" --hidden "$h" --input "$i" --layers "$l" --seq "$tmax" --seq-name seq -o "$model"
    ranged_ok=1
    build "$d/ranged" "--dim=seq=1..$tmax" || {
        ranged_ok=0
        echo "run.sh: $name: the ranged library failed, see $d/ranged.log" >&2
    }
    for t in 1 $((tmax / 2)) "$tmax"; do
        x=$d/x_$t.npy
        "$mkmodel" --hidden "$h" --input "$i" --layers "$l" --seq "$t" -o "$d/tmp.onnx" --npy "$x"
        fixed=- ranged=-
        if build "$d/fixed_$t" "--dim=seq=$t"; then
            fixed=$(ms "$d/fixed_$t" "$x")
        else
            echo "run.sh: $name: the library for T $t failed, see $d/fixed_$t.log" >&2
        fi
        [ $ranged_ok = 0 ] || ranged=$(ms "$d/ranged" "$x")
        if [ "$fixed" != - ] && [ "$ranged" != - ] && [ -x "$npycmp" ] &&
            ! "$npycmp" "$d/ranged/out/Y.npy" "$d/fixed_$t/out/Y.npy" > "$d/cmp_$t.log" 2>&1; then
            ranged="$ranged (wrong Y)"
        fi
        ratio=$(awk -v f="$fixed" -v r="$ranged" \
            'BEGIN { if (f == "-" || r ~ /^-/ || f + 0 == 0) print "-"; else printf "%.2f", r / f }')
        echo "| $name (I $i, H $h, $l layer$([ "$l" = 1 ] || echo s), T 1..$tmax) | $t | $fixed | $ranged | $ratio |"
    done
done
