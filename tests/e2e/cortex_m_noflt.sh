#!/bin/sh
# cortex_m_noflt.sh LSTMC CM_TOOL WORK BOARD_DIR [MODE] — issue 22: the trained HAR model
# (tests/train/har) compiled with --activations=MODE (int8 by default) --io=int for the board
# in BOARD_DIR, built with examples/cortex_m/main_int.c (int8 input quantised on the host,
# int32 logits), then:
#   1. no heap, and on a core without FPU no floating point in the image:
#      tests/e2e/no_float_symbols.sh (no soft-float helper of libgcc, no FPU instruction);
#   2. on a board with qemu (BOARD_DIR's board.env), the printed logits equal the host's
#      portable C library on the same input, exactly (integers), har_step fed one sample at
#      a time gives the same logits, and the instructions per inference are printed.
# Calibration: the model's eval set (tests/train/har/eval_x.npy); the window is its sample 7.
# NOFLT_FLAGS (environment): more lstmc flags (issue 24: --alpha-inter, --alpha-intra on the
# integer layer), for both the firmware and the host library; NOFLT_NOSTREAM=1 when they make
# a library that does not stream (breakpoints), so that 2. skips har_step.
# Exit 77 (ctest: skipped) when the cross toolchain or qemu is not installed.
set -eu
lstmc=$1 tool=$2 work=$3
board=$(cd "$4" && pwd)
mode=${5:-int8}
here=$(cd "$(dirname "$0")" && pwd)
cm=$here/../../examples/cortex_m
mdir=$here/../train/har
# shellcheck source=/dev/null # the board's board.env
. "$board/board.env"
tools="arm-none-eabi-gcc arm-none-eabi-nm arm-none-eabi-objdump"
[ -z "$QEMU_MACHINE" ] || tools="$tools qemu-system-arm"
for t in $tools; do
    command -v "$t" > /dev/null || { echo "cortex_m_noflt: $t is not installed (scripts/deps.sh)"; exit 77; }
done
rm -rf "$work"
mkdir -p "$work"
flags="--activations=$mode --io=int --calib-data=$mdir/eval_x.npy ${NOFLT_FLAGS:-}"
# shellcheck disable=SC2086 # flags is a list of flags
"$lstmc" "$mdir/model.onnx" --target="$board/board.json" --name=har $flags -o "$work/har" \
    > "$work/lstmc.txt"
cat "$work/lstmc.txt"
scale=$(awk '$2 == "HAR_INPUT_0_SCALE" { sub(/f$/, "", $3); print $3 }' "$work/har/har.h")
zp=$(awk '$2 == "HAR_INPUT_0_ZERO_POINT" { print $3 }' "$work/har/har.h")
[ -n "$scale" ] && [ -n "$zp" ] || { echo "cortex_m_noflt: har.h has no input scale" >&2; exit 1; }
"$tool" quant "$mdir/eval_x.npy" 7 "$scale" "$zp" "$work/x.npy"
"$tool" npy2c8 "$work/x.npy" har_input > "$work/har_input.c"
CFLAGS="$MCU -O2 -ffunction-sections -fdata-sections -Wall -Werror"
make -s -C "$work/har" libhar.a CC=arm-none-eabi-gcc AR=arm-none-eabi-ar CFLAGS="$CFLAGS"
# shellcheck disable=SC2086 # CFLAGS is a list of flags
arm-none-eabi-gcc $CFLAGS -DBOARD_CPU_HZ="$CPU_HZ" -I"$cm" -I"$work/har" \
    -I"$work/har/runtime/include" -nostdlib -L"$cm" -T "$board/$LDSCRIPT" -Wl,--gc-sections \
    -o "$work/firmware.elf" "$cm/startup.c" "$cm/main_int.c" "$work/har_input.c" \
    "$work/har/libhar.a" -lc -lgcc
if arm-none-eabi-nm "$work/firmware.elf" |
    grep -E ' (malloc|free|calloc|realloc|_sbrk|_malloc_r|_free_r|_calloc_r|_realloc_r)$'; then
    echo "cortex_m_noflt: the firmware links heap functions" >&2
    exit 1
fi
arm-none-eabi-size "$work/firmware.elf"
case $MCU in
*-mfloat-abi=soft*) sh "$here/no_float_symbols.sh" "$work/firmware.elf" ;;
*) # Helium's integer code moves lanes through s / d registers (they alias q0-q7), which the
   # check cannot tell from float arithmetic; the no-float guarantee is for FPU-less cores
    echo "cortex_m_noflt: $BOARD_NAME has an FPU: no_float_symbols.sh is for FPU-less cores" ;;
esac
[ -n "$QEMU_MACHINE" ] || { echo "cortex_m_noflt: $BOARD_NAME: linked and checked, not run"; exit 0; }
# the host's C library on the same int8 window (its NAME_run driver reads the int8 .npy)
# shellcheck disable=SC2086 # flags is a list of flags
"$lstmc" "$mdir/model.onnx" --name=m $flags --emit=c -o "$work/host" > /dev/null
make -s -C "$work/host" m_run CFLAGS=-O2
mkdir -p "$work/ref"
"$work/host/m_run" --output-dir "$work/ref" "$work/x.npy"
timeout 120 qemu-system-arm -M "$QEMU_MACHINE" -nographic -monitor none -serial none \
    -icount shift=0 -semihosting-config enable=on,target=native \
    -kernel "$work/firmware.elf" > "$work/log.txt" 2>&1
cat "$work/log.txt"
if [ -n "${NOFLT_NOSTREAM:-}" ]; then # breakpoints: the library does not stream
    grep -q '^stream_identical none$' "$work/log.txt" ||
        { echo "cortex_m_noflt: the library streams, NOFLT_NOSTREAM says it does not" >&2; exit 1; }
else
    grep -q '^stream_identical 1$' "$work/log.txt" ||
        { echo "cortex_m_noflt: har_step over the window differs from har_run" >&2; exit 1; }
fi
"$tool" cmpq "$work/log.txt" "$work/ref/y.npy"
