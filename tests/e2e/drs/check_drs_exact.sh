#!/bin/sh
# check_drs_exact.sh LSTMC NPYCMP WORK FMT [LSTMC OPTION]... — issue 24: dynamic row skip (alone
# and inside tissues) at alpha 0 with --weights=FMT gives the floats of the exact schedule with
# the same weights, bit for bit, through the portable C kernels (rt_drs.c and rt_tissue.c sum
# every gate row in the order of rt_lowp.c; int8 adds s * sum after the sum, as it does).
set -eu
lstmc=$1 npycmp=$2 work=$3 fmt=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
case=$here/case
rm -rf "$work"
mkdir -p "$work"
status=0
for sched in exact drs tissue; do
    case $sched in
    exact) set -- ;;
    drs) set -- --alpha-intra=0 ;;
    tissue) set -- --alpha-intra=0 --alpha-inter=0 ;;
    esac
    "$lstmc" "$case/model.onnx" --name=m --emit=c --weights="$fmt" "$@" -o "$work/$sched" \
        >/dev/null
    grep -q "\"weights_format\": \"$fmt\"" "$work/$sched/m_size.json" ||
        { echo "$sched: the library's weights are not $fmt" >&2; status=1; }
    make -s -C "$work/$sched" CFLAGS="${LSTMC_CFLAGS:--O2}" >/dev/null
    mkdir -p "$work/out_$sched"
    "$work/$sched/m_run" --output-dir "$work/out_$sched" "$case/x.npy" >/dev/null
done
for sched in drs tissue; do
    for f in Y Y_h Y_c; do
        "$npycmp" "$work/out_$sched/$f.npy" "$work/out_exact/$f.npy" 0 0 ||
            { echo "$sched $f differs from the exact schedule's" >&2; status=1; }
    done
done
exit $status
