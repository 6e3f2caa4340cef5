#!/bin/sh
# precision_size.sh LSTMC MODEL WORK [LSTMC OPTION]... — the size report per weight format
# (issue 12): the flash weights a compile with --weights=F reports must equal what a compile
# in any other format predicts for F in "weights_per_format", and fp16 must take less than
# fp32, int8 less than fp16; with the options (issue 24: --alpha-inter, --alpha-intra) too.
set -eu
lstmc=$1 model=$2 work=$3
shift 3
rm -rf "$work"
mkdir -p "$work"
field() { # field FILE KEY: the number after "KEY": in the weights_per_format line
    grep '"weights_per_format"' "$1" | sed "s/.*\"$2\": \([0-9]*\).*/\1/"
}
for f in fp32 fp16 bf16 int8; do
    "$lstmc" "$model" --name=m --weights=$f "$@" -o "$work/$f" >/dev/null
    grep -q "\"weights_format\": \"$f\"" "$work/$f/m_size.json" ||
        { echo "$f: weights_format is not $f" >&2; exit 1; }
done
for f in fp32 fp16 bf16 int8; do
    real=$(grep '"flash"' "$work/$f/m_size.json" | sed 's/.*"weights": \([0-9]*\).*/\1/')
    for g in fp32 fp16 bf16 int8; do
        pred=$(field "$work/$g/m_size.json" $f)
        [ "$pred" = "$real" ] || { echo "$g predicts $pred B for $f, $f has $real B" >&2; exit 1; }
    done
    eval "w_$f=$real"
done
echo "weights: fp32 $w_fp32 fp16 $w_fp16 bf16 $w_bf16 int8 $w_int8"
[ "$w_fp16" -lt "$w_fp32" ] && [ "$w_int8" -lt "$w_fp16" ] && [ "$w_bf16" = "$w_fp16" ]
