#!/bin/sh
# run.sh LSTMC CM_TOOL NPYCMP WORK_DIR — the Cortex-M example end to end (ctest cortex_m_har):
#   1. lstmc compiles the HAR fixture model for board.json (thumbv7em, Cortex-M4 + FPU):
#      LLVM kernels as a Thumb-2 object, host code and runtime as C;
#   2. the generated Makefile builds libhar.a with arm-none-eabi-gcc (newlib);
#   3. the firmware (startup.c, main.c, the recorded input window) links against it;
#   4. no heap: nm must show no malloc/free/calloc/realloc/_sbrk in the image;
#   5. qemu-system-arm runs it on an emulated MPS2 AN386 (Cortex-M4) with semihosting;
#   6. its printed probabilities (exact bits) must match the fixture's reference (PyTorch
#      export, ONNX Runtime) within rtol 1e-4 / atol 1e-5, and har_run must agree bit for bit.
# Exit 77 (ctest: skipped) when the cross toolchain or qemu is not installed.
set -eu
lstmc=$1 tool=$2 npycmp=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
case=$here/../../tests/fixtures/cases/pt_har_lstm
for t in arm-none-eabi-gcc arm-none-eabi-nm qemu-system-arm; do
    command -v "$t" > /dev/null || { echo "cortex_m: $t is not installed (scripts/deps.sh)"; exit 77; }
done
rm -rf "$work"
mkdir -p "$work"
"$lstmc" "$case/model.onnx" --target="$here/board.json" --name=har -o "$work/har" > "$work/lstmc.txt"
cat "$work/lstmc.txt"
grep -q '^lstmc: har: fits mps2-an386: RAM ' "$work/lstmc.txt" # board.json's ram/flash_bytes
MCU="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
CFLAGS="$MCU -O2 -ffunction-sections -fdata-sections -Wall -Werror"
make -s -C "$work/har" libhar.a CC=arm-none-eabi-gcc AR=arm-none-eabi-ar CFLAGS="$CFLAGS"
"$tool" npy2c "$case/inputs/input.npy" har_input > "$work/har_input.c"
arm-none-eabi-gcc $CFLAGS -I"$work/har" -I"$work/har/runtime/include" -nostdlib \
    -T "$here/mps2_an386.ld" -Wl,--gc-sections -o "$work/firmware.elf" \
    "$here/startup.c" "$here/main.c" "$work/har_input.c" "$work/har/libhar.a" -lm -lc -lgcc
if arm-none-eabi-nm "$work/firmware.elf" |
    grep -E ' (malloc|free|calloc|realloc|_sbrk|_malloc_r|_free_r|_calloc_r|_realloc_r)$'; then
    echo "cortex_m: the firmware links heap functions" >&2
    exit 1
fi
arm-none-eabi-size "$work/firmware.elf"
timeout 60 qemu-system-arm -M mps2-an386 -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -kernel "$work/firmware.elf" > "$work/log.txt" 2>&1
cat "$work/log.txt"
grep -q '^run_identical 1$' "$work/log.txt" || { echo "cortex_m: har_run differs from the stream" >&2; exit 1; }
"$tool" text2npy "$work/log.txt" "$case/expected/probs.npy" "$work/probs.npy"
"$npycmp" "$work/probs.npy" "$case/expected/probs.npy"
