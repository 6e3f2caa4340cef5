#!/bin/sh
# run.sh — the whole-model corpus of issue 20 (tests/fixtures/cases/models.txt: DeepConvLSTM,
# a CRNN keyword spotter, a VAD, a DTLN-like denoiser, ...) timed against ONNX Runtime in the
# same run, batch as in the fixture, at 1 and 2 threads: each whole model, and its front end
# (the graph inputs to the first recurrent layer's X: the convolutions, normalisation and
# pooling in front of the LSTM/GRU, cut out by front_end.py), so that the ops around the
# recurrent core are measured on their own. Not part of CI.
#
#   sh bench/models/run.sh LSTMC [--runs N] [--models m1,m2,...] [--threads "1 2"] [--work DIR]
#
# lstmc: the model compiled with --threads=T (default LLVM kernels) and `make`, timed by the
# generated driver (NAME_run --bench N: the median of N runs after one untimed run);
# ONNX Runtime: onnxruntime-node, graph optimisations 'all', T intra-op threads
# (ort_bench.js: the median of N runs after 3 warm-up runs; each includes the N-API call,
# whose cost, measured on an Identity, is printed and subtracted in the last column). Prints
# one markdown row per model, part and thread count: milliseconds and the ratio ORT / lstmc
# (above 1: lstmc faster). Models lstmc refuses are listed with the
# reason. Needs /usr/bin/python3 with python3-onnx (for the front ends) and node.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/bench/models
FIX=$ROOT/tests/fixtures/cases
lstmc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
runs=200 models="" threads="1 2" work=/tmp/lstmc-bench-models
while [ $# -gt 0 ]; do
    case $1 in
    --runs) runs=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "$models" ] || models=$(tr '\n' ',' < "$FIX/models.txt")
rm -rf "$work"
mkdir -p "$work"
# flags LSTMC_MODEL_FLAGS_<m> of tests/e2e/models.cmake (a symbolic dim bound as in the tests)
flags_of() { sed -n "s/^set(LSTMC_MODEL_FLAGS_$1 \(.*\))$/\1/p" "$ROOT/tests/e2e/models.cmake"; }
# lstmc_ms MODEL DIR FLAGS INPUTS...: compile, make, median ms of the driver (or "-")
lstmc_ms() {
    model=$1 dir=$2 fl=$3
    shift 3
    # shellcheck disable=SC2086 # fl: several options
    if ! "$lstmc" "$model" --name=m $fl -o "$dir" > "$dir.log" 2>&1; then
        echo "-"
        return
    fi
    make -s -C "$dir" CFLAGS=-O2 > "$dir.make.log" 2>&1 || { echo "-"; return; }
    ins=""
    for f in "$@"; do ins="$ins --input $(basename "$f" .npy)=$f"; done
    # shellcheck disable=SC2086
    "$dir/m_run" --bench "$runs" --output-dir "$dir" $ins | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'
}
ort_ms() {
    model=$1 t=$2
    shift 2
    ins=""
    for f in "$@"; do ins="$ins $(basename "$f" .npy)=$f"; done
    # shellcheck disable=SC2086
    node "$HERE/ort_bench.js" "$model" "$t" "$runs" $ins | sed -n 's/^median_ms //p'
}
ratio() { awk -v a="$1" -v b="$2" -v f="${3:-0}" 'BEGIN { if (a == "-" || b == "-" || a <= 0) print "-"; else printf "%.2f", (b - f) / a }'; }
# ORT's floor: the same call on an Identity of one float (the N-API binding's cost per call,
# which the in-process C driver does not pay): printed, and subtracted in the last column
/usr/bin/python3 -c "
import numpy as np, onnx
from onnx import helper, TensorProto
g = helper.make_graph([helper.make_node('Identity', ['x'], ['y'])], 'id',
                      [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1])],
                      [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 14)]), '$work/identity.onnx')
np.save('$work/x.npy', np.zeros(1, np.float32))"
floor=$(ort_ms "$work/identity.onnx" 1 "$work/x.npy")
echo "ORT's floor (Identity of one float, 1 thread): $floor ms per call"
echo
echo "| model | part | threads | lstmc ms | ORT ms | ORT / lstmc | (ORT - floor) / lstmc |"
echo "|---|---|---|---|---|---|---|"
refused=""
old_ifs=$IFS
IFS=,
for m in $models; do
    IFS=$old_ifs
    [ -n "$m" ] || continue
    c=$FIX/$m
    fl=$(flags_of "$m")
    d=$work/$m
    mkdir -p "$d"
    fe_inputs=""
    if fe=$(/usr/bin/python3 "$HERE/front_end.py" "$c/model.onnx" "$d/front.onnx" 2> "$d/front.err"); then
        for n in $fe; do fe_inputs="$fe_inputs $c/inputs/$n.npy"; done
    fi
    for t in $threads; do
        # shellcheck disable=SC2086 # the input files
        l=$(lstmc_ms "$c/model.onnx" "$d/whole$t" "$fl --threads=$t" "$c"/inputs/*.npy)
        if [ "$l" = "-" ]; then
            refused="$refused
- $m: $(grep -m1 -E 'error|unsupported' "$d/whole$t.log" || head -1 "$d/whole$t.log")"
            break
        fi
        # shellcheck disable=SC2086
        o=$(ort_ms "$c/model.onnx" "$t" "$c"/inputs/*.npy)
        echo "| $m | whole | $t | $l | $o | $(ratio "$l" "$o") | $(ratio "$l" "$o" "$floor") |"
        if [ -n "$fe_inputs" ]; then
            # shellcheck disable=SC2086
            l=$(lstmc_ms "$d/front.onnx" "$d/front$t" "$fl --threads=$t" $fe_inputs)
            # shellcheck disable=SC2086
            o=$(ort_ms "$d/front.onnx" "$t" $fe_inputs)
            echo "| $m | front end | $t | $l | $o | $(ratio "$l" "$o") | $(ratio "$l" "$o" "$floor") |"
        fi
    done
    IFS=,
done
IFS=$old_ifs
if [ -n "$refused" ]; then
    echo
    echo "Refused by lstmc:$refused"
fi
