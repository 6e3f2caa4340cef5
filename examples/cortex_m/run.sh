#!/bin/sh
# run.sh LSTMC CM_TOOL NPYCMP WORK_DIR [BOARD_DIR] — the HAR example end to end on one
# example board (ctest example_cortex_m, example_cortex_m33, example_cortex_m55,
# firmware_cortex_m0plus). BOARD_DIR (default: this folder, the Cortex-M4 AN386) holds the
# board's board.json (the lstmc target profile), board.env (gcc flags, memory map, clock, qemu
# machine) and memory map; the firmware sources are this folder's. LSTMC_FLAGS (environment)
# are added to the lstmc command line (e.g. --weights=int8).
#   1. lstmc compiles the HAR fixture model for board.json: LLVM kernels as an object for
#      the board's triple, host code and runtime as C;
#   2. the generated Makefile builds libhar.a with arm-none-eabi-gcc (newlib);
#   3. the firmware (startup.c, main.c, the recorded input window) links against it;
#   4. no heap: nm must show no malloc/free/calloc/realloc/_sbrk in the image;
#   5. qemu-system-arm runs it on the board's machine with semihosting and -icount shift=0
#      (one instruction = 1 ns of virtual time: the firmware prints instructions_per_inference);
#      a board without QEMU_MACHINE stops after the link (firmware.elf is what it leaves);
#   6. the calibration loop must count its instructions to 0.1 %; the printed probabilities
#      (exact bits) must match the fixture's reference (PyTorch export, ONNX Runtime) within
#      rtol 1e-4 / atol 1e-5 (npycmp's defaults; CM_RTOL / CM_ATOL override them; CM_REF
#      names another reference, e.g. the host's C library with the same flags), and
#      har_run must agree with the stream bit for bit.
# Exit 77 (ctest: skipped) when the cross toolchain or qemu is not installed.
set -eu
lstmc=$1 tool=$2 npycmp=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
board=$(cd "${5:-$here}" && pwd)
case=$here/../../tests/fixtures/cases/pt_har_lstm
# shellcheck source=/dev/null # the board's board.env
. "$board/board.env"
tools="arm-none-eabi-gcc arm-none-eabi-nm"
[ -z "$QEMU_MACHINE" ] || tools="$tools qemu-system-arm"
for t in $tools; do
    command -v "$t" > /dev/null || { echo "cortex_m: $t is not installed (scripts/deps.sh)"; exit 77; }
done
rm -rf "$work"
mkdir -p "$work"
# shellcheck disable=SC2086 # LSTMC_FLAGS is a list of flags
"$lstmc" "$case/model.onnx" --target="$board/board.json" --name=har ${LSTMC_FLAGS:-} \
    -o "$work/har" > "$work/lstmc.txt"
cat "$work/lstmc.txt"
grep -q "^lstmc: har: fits $BOARD_NAME: RAM " "$work/lstmc.txt" # board.json's ram/flash_bytes
CFLAGS="$MCU -O2 -ffunction-sections -fdata-sections -Wall -Werror"
make -s -C "$work/har" libhar.a CC=arm-none-eabi-gcc AR=arm-none-eabi-ar CFLAGS="$CFLAGS"
"$tool" npy2c "$case/inputs/input.npy" har_input > "$work/har_input.c"
# shellcheck disable=SC2086 # CFLAGS is a list of flags
arm-none-eabi-gcc $CFLAGS -DBOARD_CPU_HZ="$CPU_HZ" -I"$here" -I"$work/har" \
    -I"$work/har/runtime/include" -nostdlib -L"$here" -T "$board/$LDSCRIPT" -Wl,--gc-sections \
    -o "$work/firmware.elf" "$here/startup.c" "$here/main.c" "$work/har_input.c" \
    "$work/har/libhar.a" -lm -lc -lgcc
if arm-none-eabi-nm "$work/firmware.elf" |
    grep -E ' (malloc|free|calloc|realloc|_sbrk|_malloc_r|_free_r|_calloc_r|_realloc_r)$'; then
    echo "cortex_m: the firmware links heap functions" >&2
    exit 1
fi
arm-none-eabi-size "$work/firmware.elf"
if [ -z "$QEMU_MACHINE" ]; then
    echo "cortex_m: $BOARD_NAME has no emulated board: $work/firmware.elf linked, not run"
    exit 0
fi
timeout 120 qemu-system-arm -M "$QEMU_MACHINE" -nographic -monitor none -serial none \
    -icount shift=0 -semihosting-config enable=on,target=native \
    -kernel "$work/firmware.elf" > "$work/log.txt" 2>&1
cat "$work/log.txt"
awk '$1 == "calibration_loop_instructions" {
         d = $4 - $2; if (d < 0) d = -d; ok = d <= $2 / 1000 }
     END { exit !ok }' "$work/log.txt" ||
    { echo "cortex_m: board_time_ns does not count instructions (CPU_HZ in board.env?)" >&2; exit 1; }
grep -q '^run_identical 1$' "$work/log.txt" || { echo "cortex_m: har_run differs from the stream" >&2; exit 1; }
ref=${CM_REF:-$case/expected/probs.npy}
"$tool" text2npy "$work/log.txt" "$ref" "$work/probs.npy"
# shellcheck disable=SC2086 # RTOL ATOL, or nothing
"$npycmp" "$work/probs.npy" "$ref" ${CM_RTOL:+$CM_RTOL ${CM_ATOL:-1e-5}}
