#!/bin/sh
# llvm_vs_c_case.sh LSTMC NPYCMP CASE_DIR WORK_DIR [LSTMC OPTION]...
# `lstmc run` on a fixture case twice, with the options given: once with the default LLVM
# kernels and once with --emit=c (the portable C kernels); every output must be the same
# bit for bit (npycmp at tolerance 0 0). For the full-integer layers (--activations=int8,
# issue 22) this holds the LLVM kernel, and on x86 VNNI its weights laid out at compile
# time (codegen/llvm/panels.c rnnq_relayout), to the C reference lstmc_rt_rnn_q.
# LLVM_VS_C_ALSO="OPTION..." runs the LLVM build once more with those options added (e.g.
# --threads=2), held to the same C outputs.
set -eu
lstmc=$1 npycmp=$2 case=$3 work=$4
shift 4
extra="$*"
rm -rf "$work"
mkdir -p "$work/llvm" "$work/c" "$work/llvm2"
set --
while IFS='	' read -r name file; do
    [ -n "$name" ] || continue
    set -- "$@" --input "$name=$case/$file"
done < "$case/inputs.txt"
"$lstmc" run "$case/model.onnx" "$@" $extra --output-dir "$work/llvm"
"$lstmc" run "$case/model.onnx" "$@" $extra --emit=c --output-dir "$work/c"
also=${LLVM_VS_C_ALSO:-}
if [ -n "$also" ]; then
    "$lstmc" run "$case/model.onnx" "$@" $extra $also --output-dir "$work/llvm2"
fi
status=0
n=0
for want in "$case"/expected/*.npy; do
    b=$(basename "$want")
    n=$((n + 1))
    "$npycmp" "$work/llvm/$b" "$work/c/$b" 0 0 || status=1
    if [ -n "$also" ]; then
        "$npycmp" "$work/llvm2/$b" "$work/c/$b" 0 0 || status=1
    fi
done
[ "$n" -gt 0 ] || status=1
exit $status
