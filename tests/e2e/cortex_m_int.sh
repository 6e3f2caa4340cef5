#!/bin/sh
# cortex_m_int.sh LSTMC CM_TOOL NPYCMP WORK BOARD_DIR MODE — issue 22: the HAR example
# (examples/cortex_m/run.sh) with --activations=MODE (int8 or int16) on an example board under
# qemu-system-arm, checked against the host's portable C library compiled with the same flags
# (integer layers: the same integers; the float classifier and softmax after them: within
# rtol 1e-5, as libm's expf and soft float may round the last bit differently). One
# calibration sample: the recorded window itself (cm_tool stack).
set -eu
lstmc=$1 tool=$2 npycmp=$3 work=$4 board=$5 mode=$6
here=$(cd "$(dirname "$0")" && pwd)
case=$here/../fixtures/cases/pt_har_lstm
rm -rf "$work"
mkdir -p "$work"
"$tool" stack "$case/inputs/input.npy" "$work/calib.npy"
flags="--activations=$mode --calib-data=$work/calib.npy"
# shellcheck disable=SC2086 # flags is a list of flags
"$lstmc" run "$case/model.onnx" --input "input=$case/inputs/input.npy" $flags --emit=c \
    --output-dir "$work/ref"
LSTMC_FLAGS="$flags" CM_REF="$work/ref/probs.npy" CM_RTOL=1e-5 CM_ATOL=1e-7 \
    sh "$here/../../examples/cortex_m/run.sh" "$lstmc" "$tool" "$npycmp" "$work/board" "$board"
