#!/bin/sh
# dedup_weights.sh LSTMC NPYCMP CASE_DIR WORK — every weight stored once (issue 19, point 2;
# passes/dedup.c). CASE_DIR/weights.txt (make_fixtures.py unique_weight_bytes, from the ONNX
# file alone) says how many bytes of weights the model needs: each initializer once however
# many nodes read it, directly or through Identity, zero initial states not at all. For the
# placements const, blob and pointer the fixture must give its reference outputs
# (run_case.sh) and the weights the library declares must add up to exactly that:
#   const         the arrays declared in model_weights.h;
#   blob, pointer the tensors listed in model_weights.h (dtype and shape of each offset),
#                 and the payload (MODEL_WEIGHTS_SIZE, the .bin's size) no bigger than
#                 that plus the alignment of each tensor;
# and the size report's weights too. With LSTMC_DEDUP_POCL=1, on PoCL (when the model has
# recurrent layers) the device weights buffer (OCL_WTS_BYTES) holds the recurrent layers'
# bytes once, plus at most one word and the alignment (OCL_ALIGN_WORDS) per tensor.
set -eu
lstmc=$1 npycmp=$2 case=$3 work=$4
e2e=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$case")
fail() { echo "dedup_weights: $name: $*" >&2; exit 1; }
set -- $(grep -v '^#' "$case/weights.txt")
want=$1 want_rnn=$2 n_rnn=$3
rm -rf "$work"
mkdir -p "$work"

# sum of the arrays "extern const T NAME[N];" of a const-placement model_weights.h
const_bytes() {
    awk -F'[][]' '/^extern const/ {
        n = $2; sz = 4
        if ($1 ~ /int64_t/ || $1 ~ /double/) sz = 8
        else if ($1 ~ /int16_t/ || $1 ~ /uint16_t/) sz = 2
        else if ($1 ~ /int8_t/ || $1 ~ /unsigned char/ || $1 ~ /_Bool/) sz = 1
        s += n * sz; k++
    } END { printf "%d %d\n", s, k }' "$1"
}
# sum of the tensors "#define ..._OFFSET N /* name DT[d,...] */" of a blob/pointer header
outside_bytes() {
    awk '/_OFFSET [0-9]+u/ {
        sz = 4; n = 1
        for (i = 1; i <= NF; i++)
            if ($i ~ /^(f32|i64|i32|bool)\[/) {
                if ($i ~ /^i64/) sz = 8
                else if ($i ~ /^bool/) sz = 1
                d = $i; sub(/^[a-z0-9]*\[/, "", d); sub(/\]$/, "", d)
                m = split(d, a, ","); for (j = 1; j <= m; j++) n *= a[j]
            }
        s += n * sz; k++
    } END { printf "%d %d\n", s, k }' "$1"
}
report() { sed -n 's/.*"flash": {"weights": \([0-9]*\),.*/\1/p' "$1/model_size.json"; }

for p in const blob pointer; do
    sh "$e2e/run_case.sh" "$lstmc" "$npycmp" "$case" "$work/$p" --weights-placement=$p \
        --keep-build="$work/$p/lib" || fail "$p: outputs differ from the reference"
    h=$work/$p/lib/model_weights.h
    if [ $p = const ]; then set -- $(const_bytes "$h"); else set -- $(outside_bytes "$h"); fi
    got=$1 n=$2
    [ "$got" -eq "$want" ] || fail "$p: $n weight arrays of $got B in total, the model's \
unique weights are $want B (an initializer or a zero initial state stored twice?)"
    r=$(report "$work/$p/lib")
    [ "$r" = "$want" ] || fail "$p: the size report says $r B of weights, want $want B"
    if [ $p != const ]; then
        size=$(sed -n 's/^#define MODEL_WEIGHTS_SIZE \([0-9]*\)u.*/\1/p' "$h")
        [ -n "$size" ] && [ "$size" -le $((want + 64 * n)) ] ||
            fail "$p: a payload of ${size:-?} B for $want B of weights in $n tensors"
        bin=$(wc -c < "$work/$p/lib/model_weights.bin") hdr=0
        [ $p = pointer ] || hdr=64 # the blob header
        [ "$bin" -eq $((size + hdr)) ] || fail "$p: model_weights.bin is $bin B, the payload $size B"
    fi
    echo "dedup_weights: $name $p: $n arrays, $got B (want $want B)"
done

if [ "$want_rnn" -gt 0 ] && [ "${LSTMC_DEDUP_POCL:-0}" = 1 ]; then
    sh "$e2e/run_case.sh" "$lstmc" "$npycmp" "$case" "$work/pocl" --target=pocl \
        --keep-build="$work/pocl/lib" || fail "pocl: outputs differ from the reference"
    dev=$(sed -n 's/^#define OCL_WTS_BYTES \([0-9]*\)u$/\1/p' "$work/pocl/lib/model_ocl.c")
    [ -n "$dev" ] || fail "pocl: no OCL_WTS_BYTES in the generated host code"
    [ "$dev" -ge "$want_rnn" ] && [ "$dev" -le $((want_rnn + 68 * n_rnn)) ] ||
        fail "pocl: the device weights buffer is $dev B, the recurrent layers' weights \
$want_rnn B in $n_rnn tensors (stored twice?)"
    echo "dedup_weights: $name pocl: device weights $dev B (want $want_rnn B + alignment)"
fi
