#!/bin/sh
# ranged_vs_fixed.sh LSTMC NPYCMP CASE_DIR WORK_DIR [LSTMC OPTION]...
# Issue 21: a ranged library computes, at every run's dims, exactly what a library compiled
# for those dims computes: the same kernels (the LLVM ones read the run's sizes from their
# params) in the same order, so the outputs are equal bit for bit. For a ranged fixture case
# (tests/fixtures/cases/ranged.txt) the case is compiled once with its dims.txt and the
# options, then for every run of runs/ its output is compared (npycmp with tolerance 0) with
# that of `lstmc run` with the same options, which compiles for the run's own shapes.
# The options are where this says more than the ONNX Runtime comparison: reduced-precision
# weights (--weights=fp16|int8), --threads=2, --alpha-intra (dynamic row skip).
set -eu
lstmc=$1 npycmp=$2 case=$3 work=$4
shift 4
extra="$*"
rm -rf "$work"
mkdir -p "$work"
cflags="-O2 ${LSTMC_CFLAGS:-}"
# shellcheck disable=SC2046,SC2086 # dims.txt and the options are word lists
"$lstmc" "$case/model.onnx" $(cat "$case/dims.txt") --name=model $extra -o "$work/build" >/dev/null
make -s -C "$work/build" CFLAGS="$cflags" >/dev/null
status=0
for r in "$case"/runs/*/; do
    tag=$(basename "$r")
    set --
    named=""
    while IFS='	' read -r name file; do
        [ -n "$name" ] || continue
        set -- "$@" "$case/runs/$tag/$file"
        named="$named --input $name=$case/runs/$tag/$file"
    done < "$case/inputs.txt"
    mkdir -p "$work/ranged/$tag" "$work/fixed/$tag"
    "$work/build/model_run" --output-dir "$work/ranged/$tag" "$@"
    # shellcheck disable=SC2086
    "$lstmc" run "$case/model.onnx" $named $extra --output-dir "$work/fixed/$tag" >/dev/null
    for want in "$work/fixed/$tag"/*.npy; do
        got="$work/ranged/$tag/$(basename "$want")"
        if ! "$npycmp" "$got" "$want" 0 0; then
            echo "run $tag: $(basename "$want") of the ranged library is not the fixed one's" >&2
            status=1
        fi
    done
done
exit $status
