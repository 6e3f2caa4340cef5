#!/bin/sh
# stream.sh — what streaming costs on the models that stream (issue 20: causal convolutions
# keep their last K - 1 inputs in the state): for each model, one library (`lstmc run
# --keep-build`), the whole sequence through NAME_run and the same sequence one step at a
# time through NAME_step (the generated driver's --stream 1), medians of N runs each, and the
# two arenas (NAME_RUN_ARENA_SIZE, NAME_STREAM_ARENA_SIZE) with the state's size. Not part of
# CI; the outputs are checked bit for bit by ctest stream_<m>.
#
#   sh bench/models/stream.sh LSTMC [--runs N] [--models m1,m2,...] [--work DIR]
#
# Prints one markdown row per model: whole ms, streamed ms, their ratio, the time per step
# streamed, and the bytes each way.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIX=$ROOT/tests/fixtures/cases
lstmc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
runs=300 work=/tmp/lstmc-bench-stream
models=model_causal_conv_lstm,model_lstm_causal_conv,model_tcn_gru,model_causal_crnn2d,model_causal_conv_onnx_pads,model_dtln,pt_har_lstm
while [ $# -gt 0 ]; do
    case $1 in
    --runs) runs=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "stream.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
rm -rf "$work"
mkdir -p "$work"
median() { sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'; }
echo "| model | steps | whole ms | streamed ms | streamed / whole | us per step | run arena B | stream arena B | state B |"
echo "|---|---|---|---|---|---|---|---|---|"
for m in $(echo "$models" | tr ',' ' '); do
    c=$FIX/$m
    set --
    while IFS='	' read -r name file; do
        [ -n "$name" ] || continue
        set -- "$@" --input "$name=$c/$file"
    done < "$c/inputs.txt"
    if ! "$lstmc" run "$c/model.onnx" "$@" --name=m --keep-build="$work/$m" \
        --output-dir "$work/$m.out" >"$work/$m.log" 2>&1; then
        echo "| $m | lstmc refused it: $(grep -m1 error "$work/$m.log") |"
        continue
    fi
    set --
    while IFS='	' read -r name file; do
        [ -n "$name" ] || continue
        set -- "$@" "$c/$file"
    done < "$c/inputs.txt"
    if ! grep -q '#define M_STREAMABLE 1' "$work/$m/m.h"; then
        echo "| $m | does not stream: $(sed -n 's/#define M_STREAM_WHY //p' "$work/$m/m.h") |"
        continue
    fi
    whole=$("$work/$m/m_run" --bench "$runs" --output-dir "$work/$m.out" "$@" 2>&1 | median)
    streamed=$("$work/$m/m_run" --bench "$runs" --stream 1 --output-dir "$work/$m.out" "$@" 2>&1 | median)
    steps=$(sed -n 's/#define M_STREAM_SEQ_LEN \([0-9]*\).*/\1/p' "$work/$m/m.h")
    run_arena=$(sed -n 's/#define M_RUN_ARENA_SIZE \([0-9]*\)u.*/\1/p' "$work/$m/m.h")
    stream_arena=$(sed -n 's/#define M_STREAM_ARENA_SIZE \([0-9]*\)u.*/\1/p' "$work/$m/m.h")
    state=$(grep -o '"state": [0-9]*' "$work/$m/m_size.json" | grep -o '[0-9]*$' || echo -)
    awk -v m="$m" -v t="$steps" -v w="$whole" -v s="$streamed" -v ra="$run_arena" \
        -v sa="$stream_arena" -v st="$state" 'BEGIN {
        printf "| %s | %d | %.4f | %.4f | %.2f | %.2f | %s | %s | %s |\n", m, t, w, s, s / w,
               1000 * s / t, ra, sa, st }'
done
