#!/bin/sh
# model_pending.sh LSTMC NPYCMP CASE_DIR WORK_DIR [LSTMC OPTION]... — a model on
# LSTMC_PENDING_MODELS (tests/e2e/models.cmake), which lstmc cannot compile yet. lstmc must
# still refuse it as a model error (exit 1) when compiling it for the host: the test is then
# skipped (exit 77) with the list's reason (MODEL_PENDING) and lstmc's messages. A model that
# compiles now FAILS the test, so that the list stays honest: take it off the list and its
# tests (host, --emit=c, aarch64, Cortex-M4) run and check its numbers. Any other exit status
# of lstmc (a crash, a usage error) fails too. Only the compile is tried (not `lstmc run`),
# so that a model lstmc takes but whose library does not build or run is never hidden here.
set -u
lstmc=$1 case=$3 work=$4
shift 4
rm -rf "$work"
mkdir -p "$work"
status=0
"$lstmc" "$case/model.onnx" --name=model "$@" -o "$work/out" > "$work/stdout" 2> "$work/stderr" ||
    status=$?
m=$(basename "$case")
case $status in
0)
    echo "FAIL: $m is on LSTMC_PENDING_MODELS (${MODEL_PENDING:-}) but lstmc compiles it" \
         "now: take it off the list in tests/e2e/models.cmake, so that its tests run" >&2
    exit 1
    ;;
1)
    echo "SKIP: $m is pending (tests/e2e/models.cmake LSTMC_PENDING_MODELS): ${MODEL_PENDING:-}"
    echo "lstmc says:"
    sed 's/^/  /' "$work/stderr"
    exit 77
    ;;
*)
    cat "$work/stderr" >&2
    echo "FAIL: lstmc exited with status $status on $m (a model error is 1)" >&2
    exit 1
    ;;
esac
