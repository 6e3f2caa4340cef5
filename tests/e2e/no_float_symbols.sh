#!/bin/sh
# no_float_symbols.sh FIRMWARE.elf — fails (exit 1) when a linked Cortex-M image computes in
# floating point: when it holds
#   1. a helper of libgcc's float emulation, the soft-float routines an FPU-less core
#      (ARMv6-M, ARMv7-M / ARMv8-M built without FPU) calls for every float or double
#      operation: the ARM run-time ABI's __aeabi_fadd ... __aeabi_d2ulz, __aeabi_cfcmple,
#      __aeabi_f2h, and the generic libgcc names they share code with (__addsf3, __mulsf3,
#      __divdf3, __floatsisf, __fixsfsi, __eqsf2, __extendsfdf2, __truncdfsf2, __powisf2,
#      __mulsc3, __gnu_f2h_ieee, and fp-bit's __pack_f / __unpack_d / _fpadd_parts ...);
#   2. a floating-point instruction in its code (objdump -d of the executable sections):
#      VFP (scalar s/d registers), any .f16/.f32/.f64 data type (VFP or Helium/MVE float),
#      vmrs/vmsr. Helium's integer instructions (q registers, .s8/.i16/.u32 types) pass.
# Prints what it found (symbols, then up to 20 instructions with their function) on stderr.
# Exit 0 when the image is free of both, 1 when not, 2 on usage, 77 (ctest: skipped) when
# arm-none-eabi-nm / objdump are not installed.
set -eu
if [ $# -ne 1 ] || [ ! -f "$1" ]; then
    echo "usage: no_float_symbols.sh FIRMWARE.elf" >&2
    exit 2
fi
elf=$1
for t in arm-none-eabi-nm arm-none-eabi-objdump; do
    command -v "$t" > /dev/null || { echo "no_float_symbols: $t is not installed"; exit 77; }
done
status=0
helpers=$(arm-none-eabi-nm "$elf" | awk '{ print $NF }' | grep -E \
    -e '^__aeabi_(c?[fd](add|sub|rsub|mul|div|rdiv|neg|cmp[a-z]*|rcmp[a-z]*))$' \
    -e '^__aeabi_([fdh]2[fdh]|[fd]2u?i[zl]?|[fd]2u?lz|u?i2[fd]|u?l2[fd])(_alt)?$' \
    -e '^__(add|sub|mul|div)[sdhtx]f3$' -e '^__neg[sdhtx]f2$' \
    -e '^__(extend|trunc)[sdhtx]f[sdhtx]f2$' \
    -e '^__fix(uns)?[sdhtx]f[sdt]i$' -e '^__float(un)?[sdt]i[sdhtx]f$' \
    -e '^__(eq|ne|gt|ge|lt|le|unord|cmp)[sdhtx]f2$' -e '^__powi[sdhtx]f2$' \
    -e '^__(mul|div)[sdhtx]c3$' -e '^__gnu_[fdh]2[fdh]_(ieee|alternative)$' \
    -e '^__gnu_(f2h|h2f|d2h)_' -e '^__(un)?pack_[fd]$' -e '^_fp(add|div|mul)_parts' \
    -e '^__fpcmp_parts_[fd]$' -e '^__make_[fd]p$' -e '^__thenan_[sd]f$' \
    -e '^_arm_(add|sub|mul|div|cmp|fix|float|unord|negate|extend|trunc)' | sort -u) || true
if [ -n "$helpers" ]; then
    # shellcheck disable=SC2086 # one word per symbol, on one line
    echo "no_float_symbols: $elf links libgcc's float emulation:" $helpers >&2
    status=1
fi
# objdump -d: "<func>:" headers, then "addr: bytes \tmnemonic\toperands"
insns=$(arm-none-eabi-objdump -d --no-show-raw-insn "$elf" | awk '
    /^[0-9a-f]+ <.*>:$/ { fn = $2; next }
    NF >= 2 && $2 ~ /^v/ {
        m = $2; ops = $0; sub(/^[^\t]*\t[^\t]*\t?/, "", ops)
        if (m ~ /\.(f16|f32|f64)$/ || m ~ /^vm(rs|sr)/ || ops ~ /(^|[^a-z0-9_])[sd][0-9]+([^0-9]|$)/)
            print fn, $0
    }' | head -20)
if [ -n "$insns" ]; then
    echo "no_float_symbols: $elf has floating-point instructions:" >&2
    echo "$insns" >&2
    status=1
fi
[ "$status" -eq 0 ] && echo "no_float_symbols: $elf: no float helpers, no floating-point instructions"
exit "$status"
