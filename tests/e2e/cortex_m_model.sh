#!/bin/sh
# cortex_m_model.sh LSTMC NPYCMP CASE_DIR WORK_DIR [LSTMC OPTION]... — a fixture model on the
# Cortex-M4 example board (examples/cortex_m; CM_BOARD=DIR names another example board's
# folder, examples/cortex_m33 or cortex_m55) under qemu-system-arm, registered by
# tests/e2e/models.cmake; CM_IO is the cm_io host tool (tests/e2e/cortex_m_model/cm_io.c).
#   1. lstmc compiles the model for the board's board.json (Thumb-2 LLVM kernels, hard float
#      on the M4) as `model`; its memory budget check refuses a model that does not fit the
#      board's RAM / flash (a failure: leave such a model out in models.cmake);
#   2. the generated Makefile builds libmodel.a with arm-none-eabi-gcc, and the firmware
#      (cortex_m_model/main.c, the board's startup.c and linker script, the case's inputs as
#      C arrays from cm_io) links against it; no heap functions may be linked;
#   3. qemu runs it; cm_io turns the printed bits back into .npy files, compared with the
#      case's expected outputs as run_case.sh does (rtol 1e-4, atol 1e-5; integers exact).
# Exit 77 (ctest: skipped) when the cross toolchain or qemu is not installed.
set -eu
lstmc=$1 npycmp=$2 case=$3 work=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
examples=$here/../../examples/cortex_m
board=${CM_BOARD:-$examples}
# shellcheck source=/dev/null # the board's board.env
. "$board/board.env"
for t in arm-none-eabi-gcc arm-none-eabi-nm qemu-system-arm; do
    command -v "$t" > /dev/null || { echo "SKIP: $t is not installed (scripts/deps.sh)"; exit 77; }
done
rm -rf "$work"
mkdir -p "$work/out"
"$lstmc" "$case/model.onnx" --target="$board/board.json" --name=model "$@" -o "$work/model"
CFLAGS="$MCU -O2 -ffunction-sections -fdata-sections -Wall -Werror"
make -s -C "$work/model" libmodel.a CC=arm-none-eabi-gcc AR=arm-none-eabi-ar CFLAGS="$CFLAGS"
"$CM_IO" inputs "$case" > "$work/inputs.c"
# shellcheck disable=SC2086 # CFLAGS is a list of flags
arm-none-eabi-gcc $CFLAGS -DBOARD_CPU_HZ="$CPU_HZ" -I"$work/model" \
    -I"$work/model/runtime/include" -I"$examples" -nostdlib -L"$examples" -T "$board/$LDSCRIPT" \
    -Wl,--gc-sections -o "$work/firmware.elf" "$examples/startup.c" \
    "$here/cortex_m_model/main.c" "$work/inputs.c" "$work/model/libmodel.a" -lm -lc -lgcc
if arm-none-eabi-nm "$work/firmware.elf" |
    grep -E ' (malloc|free|calloc|realloc|_sbrk|_malloc_r|_free_r|_calloc_r|_realloc_r)$'; then
    echo "cortex_m_model: the firmware links heap functions" >&2
    exit 1
fi
arm-none-eabi-size "$work/firmware.elf"
status=0
timeout 120 qemu-system-arm -M "$QEMU_MACHINE" -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -kernel "$work/firmware.elf" \
    > "$work/log.txt" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
    tail -5 "$work/log.txt" >&2
    echo "cortex_m_model: the firmware exited with status $status" >&2
    exit 1
fi
"$CM_IO" outputs "$work/log.txt" "$case" "$work/out"
for want in "$case"/expected/*.npy; do
    got="$work/out/$(basename "$want")"
    if [ ! -f "$got" ]; then
        echo "missing output $(basename "$want")" >&2
        status=1
        continue
    fi
    "$npycmp" "$got" "$want" || status=1
done
exit $status
