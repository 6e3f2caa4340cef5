#!/bin/sh
# ranged_case.sh LSTMC NPYCMP CASE_DIR WORK_DIR [LSTMC OPTION]...
# One library for every sequence length (issue 21) on a ranged fixture case (tests/fixtures
# cases/ranged.txt: model.onnx, dims.txt, inputs.txt, runs/<tag>/{inputs,expected}/*.npy).
# Compiles the case ONCE with its ranged bindings,
#   lstmc CASE/model.onnx $(cat CASE/dims.txt) --name=model OPTION... -o WORK/build
# builds the library and driver with the generated Makefile, then runs WORK/build/model_run on
# every run's inputs (graph order, the order of inputs.txt; the driver derives the dims from
# the inputs' shapes) into WORK/out/<tag>, and compares every expected output with npycmp
# (rtol 1e-4, atol 1e-5; RUN_CASE_TOL="RTOL ATOL" sets others, as run_case.sh) and that no
# other output appears.
#
# With RANGED_LSTMC_RUN=1 it checks `lstmc run` instead: lstmc run CASE/model.onnx $(cat
# CASE/dims.txt) --input NAME=FILE... on the first run of runs/ and on the middle one
# (neither T nor batch at MAX for most cases), compared as above.
#
# With RANGED_STREAM=SPEC (e.g. 3,1,2) each run goes through <name>_step in chunks of those
# sizes (model_run --stream SPEC), the run's T read from its input.
#
# Cross mode (tests/cross), when CROSS_TARGET is set, as run_case.sh: compile for that
# target profile, build with CROSS_CC / CROSS_AR (static link), run the driver under
# CROSS_RUN (e.g. qemu-aarch64); exits 77 (a ctest skip) when a tool is not installed.
set -eu
lstmc=$1 npycmp=$2 case=$3 work=$4
shift 4
extra="$*"
rm -rf "$work"
mkdir -p "$work/out"
dims=$(cat "$case/dims.txt")
cflags="-O2 ${LSTMC_CFLAGS:-}" # as `lstmc run` builds on the host
status=0
# check TAG OUT: every expected output of run TAG in OUT, close to the reference; nothing else
check() {
    for want in "$case/runs/$1/expected"/*.npy; do
        got="$2/$(basename "$want")"
        if [ ! -f "$got" ]; then
            echo "run $1: missing output $(basename "$want")" >&2
            status=1
            continue
        fi
        # shellcheck disable=SC2086 # RUN_CASE_TOL: two numbers
        "$npycmp" "$got" "$want" ${RUN_CASE_TOL:-} || { echo "run $1: $(basename "$want") differs" >&2; status=1; }
    done
    for got in "$2"/*.npy; do
        [ -f "$got" ] || continue
        [ -f "$case/runs/$1/expected/$(basename "$got")" ] || {
            echo "run $1: unexpected output $got" >&2
            status=1
        }
    done
}

if [ "${RANGED_LSTMC_RUN:-0}" = 1 ]; then
    # shellcheck disable=SC2012 # tags are plain names
    n=$(ls "$case/runs" | wc -l)
    # shellcheck disable=SC2012
    for tag in $(ls "$case/runs" | sed -n "1p;$(((n + 1) / 2))p"); do
        set --
        while IFS='	' read -r name file; do
            [ -n "$name" ] || continue
            set -- "$@" --input "$name=$case/runs/$tag/$file"
        done < "$case/inputs.txt"
        out="$work/out/$tag"
        mkdir -p "$out"
        echo "lstmc run $tag"
        # shellcheck disable=SC2086
        if "$lstmc" run "$case/model.onnx" $dims "$@" $extra --output-dir "$out"; then
            check "$tag" "$out"
        else
            echo "lstmc run $dims on run $tag failed" >&2
            status=1
        fi
    done
    exit $status
fi

if [ -z "${CROSS_TARGET:-}" ]; then
    # shellcheck disable=SC2086 # dims, extra: several options
    "$lstmc" "$case/model.onnx" $dims --name=model $extra -o "$work/build"
    make -s -C "$work/build" CFLAGS="$cflags"
    run=""
else
    for tool in "$CROSS_CC" "$CROSS_AR" "$CROSS_RUN"; do
        command -v "$tool" >/dev/null 2>&1 || {
            echo "SKIP: $tool is not installed (sh scripts/deps.sh installs it)"
            exit 77
        }
    done
    # shellcheck disable=SC2086
    "$lstmc" "$case/model.onnx" $dims --target="$CROSS_TARGET" --name=model $extra \
        -o "$work/build"
    make -s -C "$work/build" CC="$CROSS_CC" AR="$CROSS_AR" CFLAGS="$cflags" LDFLAGS=-static
    run=$CROSS_RUN
fi

n=0
for r in "$case"/runs/*/; do
    tag=$(basename "$r")
    n=$((n + 1))
    set --
    while IFS='	' read -r name file; do
        [ -n "$name" ] || continue
        set -- "$@" "$case/runs/$tag/$file"
    done < "$case/inputs.txt"
    out="$work/out/$tag"
    mkdir -p "$out"
    echo "run $tag"
    if ! $run "$work/build/model_run" --output-dir "$out" ${RANGED_STREAM:+--stream "$RANGED_STREAM"} "$@"; then
        echo "run $tag: model_run failed" >&2
        status=1
        continue
    fi
    check "$tag" "$out"
done
[ "$n" -ge 4 ] || { echo "$case: $n runs; want at least 4" >&2; status=1; }

exit $status
