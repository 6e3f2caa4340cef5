#!/bin/sh
# no_float_firmware.sh LSTMC CM_TOOL NPYCMP WORK_DIR BOARD_DIR EXPECT — the HAR firmware of
# examples/cortex_m/run.sh for the board in BOARD_DIR (e.g. examples/cortex_m0plus, linked
# only; a board with qemu also runs and checks it), with LSTMC_FLAGS (environment) added to
# lstmc's command line, then no_float_symbols.sh on the image. EXPECT says what must come
# out:
#   float      the image computes in floating point, and no_float_symbols.sh names a
#              soft-float helper of libgcc (__aeabi_f...) or a floating-point instruction:
#              the fp32 library on an FPU-less core (ctest no_float_m0plus_fp32, the proof
#              that the check finds what it looks for)
#   no-float   neither (a full-integer library, --activations=int8|int16)
# Exit 77 (ctest: skipped) when the cross toolchain is not installed.
set -u
lstmc=$1 tool=$2 npycmp=$3 work=$4 board=$5 expect=$6
here=$(cd "$(dirname "$0")" && pwd)
status=0
"$here/../../examples/cortex_m/run.sh" "$lstmc" "$tool" "$npycmp" "$work" "$board" \
    > "$work.log" 2>&1 || status=$?
[ "$status" -eq 77 ] && { cat "$work.log"; exit 77; }
[ "$status" -eq 0 ] || { cat "$work.log"; echo "no_float_firmware: run.sh failed" >&2; exit 1; }
status=0
"$here/no_float_symbols.sh" "$work/firmware.elf" 2> "$work.check" || status=$?
cat "$work.check" >&2
case $expect:$status in
no-float:0) exit 0 ;;
float:1)
    grep -qE '__aeabi_f|floating-point instructions' "$work.check" && exit 0
    echo "no_float_firmware: no_float_symbols.sh failed without naming float code" >&2 ;;
float:0) echo "no_float_firmware: the check passed an image that computes in float" >&2 ;;
*) echo "no_float_firmware: no_float_symbols.sh exited $status, expected $expect" >&2 ;;
esac
exit 1
