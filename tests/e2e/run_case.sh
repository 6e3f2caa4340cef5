#!/bin/sh
# run_case.sh LSTMC NPYCMP CASE_DIR WORK_DIR [LSTMC OPTION]...
# Runs `lstmc run` on a fixture case (model.onnx, inputs.txt, expected/*.npy) and compares
# every expected output with npycmp (rtol 1e-4, atol 1e-5). Extra arguments go to lstmc
# (e.g. --disable-pass=split_gates).
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
"$lstmc" run "$case/model.onnx" "$@" $extra --output-dir "$work/out"
status=0
for want in "$case"/expected/*.npy; do
    got="$work/out/$(basename "$want")"
    if [ ! -f "$got" ]; then
        echo "missing output $(basename "$want")" >&2
        status=1
        continue
    fi
    "$npycmp" "$got" "$want" || status=1
done
# no extra outputs either
for got in "$work"/out/*.npy; do
    [ -f "$case/expected/$(basename "$got")" ] || { echo "unexpected output $got" >&2; status=1; }
done
exit $status
