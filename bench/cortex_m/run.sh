#!/bin/sh
# bench/cortex_m/run.sh BUILD_DIR [WORK_DIR] — instructions per inference of the HAR fixture
# model (tests/fixtures/cases/pt_har_lstm: 9 channels, 2 LSTM layers of 32, 6 classes, a
# window of 128 samples) on the emulated Cortex-M boards, for bench/RESULTS.md (issue 22).
#
# Each cell is one run of examples/cortex_m/run.sh (compile for the board's board.json, build
# with arm-none-eabi-gcc -O2, run under qemu-system-arm -icount shift=0, check the outputs
# against the fixture's reference): the firmware reads SysTick around har_run, and with
# -icount shift=0 one instruction is one nanosecond of virtual time, so the difference is the
# instructions executed (checked on a counted loop by run.sh). Boards: m4 (AN386, FPv4-SP),
# m33 (AN505, run without FPU: soft float), m55 (AN547, FPv5 + MVE). Builds:
#   fp32        the default library
#   int8w       --weights=int8 (int8 weights, float arithmetic); outputs within 1e-2
#   int8        --activations=int8 (full integer, calibrated on the window itself); outputs
#               within 5e-2 of the reference (tests/e2e/cortex_m_int.sh checks them exactly
#               against the host's C library)
# The step column is har_step's mean over the window. Prints a markdown table on stdout, the
# logs stay in WORK_DIR (default /tmp/lstmc_bench_cortex_m).
set -eu
build=$1 work=${2:-/tmp/lstmc_bench_cortex_m}
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
lstmc=$build/lstmc
run=$root/examples/cortex_m/run.sh
if "$lstmc" --help 2>&1 | grep -q -- '--activations'; then
    has_int=1
else
    has_int=0
fi
mkdir -p "$work"
# the full-integer builds' calibration sample: the recorded window itself
"$build/tests/e2e/cm_tool" stack "$root/tests/fixtures/cases/pt_har_lstm/inputs/input.npy" \
    "$work/calib.npy"
# cell BOARD_DIR TAG FLAGS RTOL: "inference (step)" instructions, or why there are none
cell() {
    log=$work/$(basename "$1")_$2.txt
    if LSTMC_FLAGS=$3 CM_RTOL=$4 CM_ATOL=1e-3 "$run" "$lstmc" "$build/tests/e2e/cm_tool" \
        "$build/tests/e2e/npycmp" "$work/$(basename "$1")_$2" "$1" > "$log" 2>&1; then
        inf=$(awk '$1 == "instructions_per_inference" { print $2 }' "$log")
        step=$(awk '$1 == "instructions_per_step" { print $2 }' "$log")
        printf '%s (%s)' "$inf" "$step"
    else
        printf 'failed (%s)' "$log"
    fi
}
echo "| board | core | fp32: har_run (har_step) | --weights=int8 | --activations=int8 |"
echo "|---|---|---|---|---|"
for b in cortex_m:m4 cortex_m33:m33 cortex_m55:m55; do
    dir=$root/examples/${b%%:*}
    # shellcheck source=/dev/null # the board's board.env
    . "$dir/board.env"
    fp32=$(cell "$dir" fp32 "" 1e-4)
    int8w=$(cell "$dir" int8w "--weights=int8" 1e-2)
    if [ "$has_int" -eq 1 ]; then
        int8=$(cell "$dir" int8 "--activations=int8 --calib-data=$work/calib.npy" 5e-2)
    else
        int8="— (lstmc has no --activations)"
    fi
    echo "| $QEMU_MACHINE | ${b#*:} | $fp32 | $int8w | $int8 |"
done
