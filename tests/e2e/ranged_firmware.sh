#!/bin/sh
# ranged_firmware.sh LSTMC NPYCMP CASE_DIR WORK_DIR [LSTMC OPTION]...
# A ranged fixture case (issue 21) compiled once as library "model" with its dims.txt, and
# ranged_firmware.c built against OUTDIR's libmodel.a and the runtime's .npy reader: on one
# context, model_run_dims with T going down (MAX, mid, 1) then up (1, mid, MAX) and the batch
# changing between 1 and MAX, each run against its reference; out-of-range dims refused with
# nothing written; model_run at MAX (see ranged_firmware.c). NPYCMP is unused (the program
# compares with npycmp's rule itself).
set -eu
lstmc=$1 case=$3 work=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
# shellcheck disable=SC2046,SC2086 # dims.txt: several options
"$lstmc" "$case/model.onnx" $(cat "$case/dims.txt") --name=model "$@" -o "$work/build"
cflags="-O2 ${LSTMC_CFLAGS:-}"
make -s -C "$work/build" libmodel.a CFLAGS="$cflags"
# the generated Makefile's extra libraries (-lpthread with --threads)
libs=$(sed -n 's/^LSTMC_LIBS *[+?]*= *//p' "$work/build/Makefile")
# shellcheck disable=SC2086
${CC:-cc} -std=c99 $cflags -I"$work/build" -I"$work/build/runtime/include" \
    "$here/ranged_firmware.c" "$work/build/runtime/src/rt_npy.c" "$work/build/libmodel.a" \
    $libs -lm -o "$work/ranged_firmware"
# the run's T and batch values, from the tags t<T>_n<N> of runs/
# shellcheck disable=SC2012 # tags are plain names
ts=$(ls "$case/runs" | sed 's/^t\([0-9]*\)_n[0-9]*$/\1/' | sort -n -u)
# shellcheck disable=SC2012
ns=$(ls "$case/runs" | sed 's/^t[0-9]*_n\([0-9]*\)$/\1/' | sort -n -u)
t_lo=$(echo "$ts" | head -1) t_hi=$(echo "$ts" | tail -1)
t_mid=$(echo "$ts" | sed -n 2p)
n_lo=$(echo "$ns" | head -1) n_hi=$(echo "$ns" | tail -1)
# T down with the batch at MAX, 1, MAX; then up with 1, MAX, 1; then MAX, MAX again
"$work/ranged_firmware" "$case" "t${t_hi}_n${n_hi}" "t${t_mid}_n${n_lo}" "t${t_lo}_n${n_hi}" \
    "t${t_lo}_n${n_lo}" "t${t_mid}_n${n_hi}" "t${t_hi}_n${n_lo}" "t${t_hi}_n${n_hi}"
