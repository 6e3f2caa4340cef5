#!/bin/sh
# stream_case.sh LSTMC NPYCMP CASE_DIR WORK_DIR [LSTMC OPTION]...
# The streaming API (issue 9) on a fixture case: builds the generated library (lstmc run
# --keep-build), then feeds the whole sequence through <name>_step in chunks of 1 step and
# in chunks of mixed sizes (3,1,2,5,...), and checks every output against the fixture's
# reference (ONNX Runtime / PyTorch, npycmp: rtol 1e-4, atol 1e-5, or RUN_CASE_TOL="RTOL
# ATOL" as run_case.sh) and, byte for byte,
# against the whole-sequence <name>_run. With STREAM_REFUSED=TEXT in the environment, the
# model must not stream instead: m_run --stream exits 1 naming the reason TEXT.
set -eu
lstmc=$1 npycmp=$2 case=$3 work=$4
shift 4
rm -rf "$work"
mkdir -p "$work/run"
set -- "$@"
extra="$*"
set --
while IFS='	' read -r name file; do
    [ -n "$name" ] || continue
    set -- "$@" --input "$name=$case/$file"
done < "$case/inputs.txt"
"$lstmc" run "$case/model.onnx" "$@" $extra --name=m --keep-build="$work/build" \
    --output-dir "$work/run"
set --
while IFS='	' read -r name file; do
    [ -n "$name" ] || continue
    set -- "$@" "$case/$file"
done < "$case/inputs.txt"
if [ -n "${STREAM_REFUSED:-}" ]; then
    if out=$("$work/build/m_run" --stream 1 --output-dir "$work" "$@" 2>&1); then
        echo "the model streamed; want it refused ($STREAM_REFUSED)" >&2
        exit 1
    fi
    echo "$out"
    printf '%s\n' "$out" | grep -q "does not stream: .*$STREAM_REFUSED"
    exit $?
fi
status=0
# STREAM_SHARED_WEIGHTS=1: the step program stores no weights of its own (the whole-sequence
# program's, in the same layout, serve both), from the size report
if [ "${STREAM_SHARED_WEIGHTS:-0}" = 1 ]; then
    own=$(grep -o '"stream_weights": [0-9]*' "$work/build/m_size.json" | grep -o '[0-9]*$')
    if [ "$own" != 0 ]; then
        echo "the step program stores $own bytes of weights of its own; want 0" >&2
        status=1
    fi
fi
for spec in 1 3,1,2,5; do
    out="$work/stream_$spec"
    mkdir -p "$out"
    "$work/build/m_run" --stream "$spec" --output-dir "$out" "$@"
    for want in "$case"/expected/*.npy; do
        f=$(basename "$want")
        "$npycmp" "$out/$f" "$want" ${RUN_CASE_TOL:-} || { echo "stream $spec: $f differs from the reference" >&2; status=1; }
        cmp -s "$out/$f" "$work/run/$f" || { echo "stream $spec: $f is not bit-identical to ${f%.npy} of m_run" >&2; status=1; }
    done
done
exit $status
