#!/bin/sh
# run_case.sh LSTMC NPYCMP CASE_DIR WORK_DIR [LSTMC OPTION]...
# Runs `lstmc run` on a fixture case (model.onnx, inputs.txt, expected/*.npy) and compares
# every expected output with npycmp (rtol 1e-4, atol 1e-5; RUN_CASE_TOL="RTOL ATOL" sets
# others, e.g. for reduced-precision weights, docs/PRECISION.md). Extra arguments go to lstmc
# (e.g. --disable-pass=split_gates).
#
# Cross mode (tests/cross), when CROSS_TARGET is set: compile for that target profile,
# build the generated library and driver with the generated Makefile and CROSS_CC /
# CROSS_AR (static link, so the emulator needs no sysroot), run the driver under CROSS_RUN
# (e.g. qemu-aarch64) and compare as above. Each case compiles the runtime sources its
# OUTDIR holds (only those the model uses). Exits 77 (a ctest skip) when the cross compiler
# or the emulator is not installed.
set -eu
lstmc=$1 npycmp=$2 case=$3 work=$4
shift 4
extra="$*"
rm -rf "$work"
mkdir -p "$work/out"
set --
while IFS='	' read -r name file; do
    [ -n "$name" ] || continue
    set -- "$@" --input "$name=$case/$file"
done < "$case/inputs.txt"
if [ -z "${CROSS_TARGET:-}" ]; then
    "$lstmc" run "$case/model.onnx" "$@" $extra --output-dir "$work/out"
else
    for tool in "$CROSS_CC" "$CROSS_AR" "$CROSS_RUN"; do
        command -v "$tool" >/dev/null 2>&1 || {
            echo "SKIP: $tool is not installed (sh scripts/deps.sh installs it)"
            exit 77
        }
    done
    # the driver takes the inputs in graph order, which is the order of inputs.txt
    set --
    while IFS='	' read -r name file; do
        [ -n "$name" ] || continue
        set -- "$@" "$case/$file"
    done < "$case/inputs.txt"
    cflags="-O2 ${LSTMC_CFLAGS:-}" # as `lstmc run` builds on the host
    "$lstmc" "$case/model.onnx" --target="$CROSS_TARGET" --name=model $extra -o "$work/build"
    make -s -C "$work/build" CC="$CROSS_CC" AR="$CROSS_AR" CFLAGS="$cflags" LDFLAGS=-static
    $CROSS_RUN "$work/build/model_run" --output-dir "$work/out" "$@"
fi
status=0
for want in "$case"/expected/*.npy; do
    got="$work/out/$(basename "$want")"
    if [ ! -f "$got" ]; then
        echo "missing output $(basename "$want")" >&2
        status=1
        continue
    fi
    "$npycmp" "$got" "$want" ${RUN_CASE_TOL:-} || status=1
done
# no extra outputs either
for got in "$work"/out/*.npy; do
    [ -f "$case/expected/$(basename "$got")" ] || { echo "unexpected output $got" >&2; status=1; }
done
exit $status
