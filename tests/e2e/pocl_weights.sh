#!/bin/sh
# pocl_weights.sh LSTMC NPYCMP CASE_DIR WORK FMT [LSTMC OPTION]... — reduced-precision
# weights on the OpenCL device (issue 12, docs/PRECISION.md "OpenCL"). Runs the fixture on
# PoCL through run_case.sh (the tolerance from RUN_CASE_TOL, as the CPU e2e_weights_ tests),
# keeping the generated library, then checks that format FMT really reached the device:
#   - the size report's weights_format is FMT;
#   - every W and U the kernels read is declared in FMT (WFMT / RFMT in model.cl), at least
#     one of each;
#   - the weights buffer uploaded at init (OCL_WTS_BYTES) is smaller than the same model's
#     with --weights=fp32.
# The options go to lstmc (e.g. --weights=int8; none for a model stored in FMT itself).
set -eu
lstmc=$1 npycmp=$2 case=$3 work=$4 fmt=$5
shift 5
e2e=$(cd "$(dirname "$0")" && pwd)
fail() { echo "pocl_weights: $(basename "$case") $fmt: $*" >&2; exit 1; }
case $fmt in
fp16) n=1 ;;
bf16) n=2 ;;
int8) n=3 ;;
*) fail "FMT must be fp16, bf16 or int8" ;;
esac
rm -rf "$work"
mkdir -p "$work"
sh "$e2e/run_case.sh" "$lstmc" "$npycmp" "$case" "$work/run" --target=pocl \
    --keep-build="$work/lib" "$@" || fail "outputs differ from the reference"
grep -q "\"weights_format\": \"$fmt\"" "$work/lib/model_size.json" ||
    fail "the size report's weights_format is not $fmt"
cl=$work/lib/model.cl
for m in WFMT RFMT; do
    grep -q "^#define $m $n\$" "$cl" || fail "no layer reads its ${m%FMT} in $fmt"
    if grep "^#define $m " "$cl" | grep -vq "^#define $m $n\$"; then
        fail "a layer reads its ${m%FMT} in another format"
    fi
done
"$lstmc" "$case/model.onnx" --target=pocl --weights=fp32 --name=model -o "$work/fp32" \
    >/dev/null || fail "the fp32 compile failed"
bytes() { sed -n 's/^#define OCL_WTS_BYTES \([0-9]*\)u$/\1/p' "$1/model_ocl.c"; }
low=$(bytes "$work/lib") full=$(bytes "$work/fp32")
[ -n "$low" ] && [ -n "$full" ] || fail "no OCL_WTS_BYTES in the generated host code"
[ "$low" -lt "$full" ] || fail "the device weights take $low B, fp32 takes $full B"
echo "pocl_weights: $(basename "$case") $fmt: device weights $low B (fp32 $full B)"
