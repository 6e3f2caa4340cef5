#!/bin/sh
# wave_case.sh LSTMC NPYCMP CASE_DIR WORK_DIR THREADS wave|none [AUTO [--dim=SYM=N]...]
# The stacked-LSTM wavefront (compiler/kprog/schedule.c, issue 4) on one fixture case:
#  1. `lstmc run` with --threads=1 and with --threads=THREADS --parallel=wave, both compared
#     with the case's references (run_case.sh);
#  2. the two runs' outputs byte for byte: the wavefront keeps every layer's summation order,
#     so it must be bit-identical to one thread;
#  3. the generated host code holds a wavefront call (wave) or none (none: a stack the
#     wavefront does not take, e.g. bidirectional layers, falls back);
#  4. AUTO (wave|none) given: what --threads=THREADS alone (--parallel=auto, wave.c
#     wave_wanted) chooses for the case's stack (--dim binds its symbolic dims).
set -eu
lstmc=$1 npycmp=$2 case=$3 work=$4 nt=$5 expect=$6 auto=${7:-}
shift 6
[ $# -eq 0 ] || shift
here=$(dirname "$0")
rm -rf "$work"
mkdir -p "$work"
sh "$here/run_case.sh" "$lstmc" "$npycmp" "$case" "$work/t1" --threads=1
sh "$here/run_case.sh" "$lstmc" "$npycmp" "$case" "$work/w$nt" --threads="$nt" --parallel=wave \
    --keep-build="$work/gen"
status=0
for got in "$work/t1/out"/*.npy; do
    if ! cmp -s "$got" "$work/w$nt/out/$(basename "$got")"; then
        echo "$(basename "$got"): --threads=$nt --parallel=wave differs from --threads=1" >&2
        status=1
    fi
done
n=$(cat "$work"/gen/*.c | grep -c 'wavefront:' || true)
if [ "$expect" = wave ] && [ "$n" -eq 0 ]; then
    echo "no wavefront in the generated code" >&2
    status=1
elif [ "$expect" = none ] && [ "$n" -ne 0 ]; then
    echo "a wavefront where none should be" >&2
    status=1
fi
if [ -n "$auto" ]; then
    "$lstmc" "$case/model.onnx" --name=m --threads="$nt" "$@" -o "$work/auto" >/dev/null
    n=$(grep -c 'wavefront:' "$work/auto/m.c" || true)
    if { [ "$auto" = wave ] && [ "$n" -eq 0 ]; } || { [ "$auto" = none ] && [ "$n" -ne 0 ]; }; then
        echo "--threads=$nt alone: expected $auto, got $n wavefront(s)" >&2
        status=1
    fi
fi
exit $status
