#!/bin/sh
# runtime_subset.sh LSTMC MODEL WORK — OUTDIR/runtime holds only the runtime sources the
# model uses (issue 18). For each option set below: the library and its driver build (so
# nothing needed is missing), and every runtime object in lib<name>.a defines a symbol
# another object of the library or the driver imports (so nothing copied is unused), checked
# with nm, not with lstmc's own list. The options that call for a part must bring its source.
set -eu
lstmc=$1 model=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
status=0
check() { # DIR WANT...: build DIR, check every runtime object is used, and the WANT sources
    dir=$1
    shift
    make -s -C "$dir" >/dev/null
    # the driver's own object too, so that what only the driver calls counts as used
    ${CC:-cc} -std=c99 -c -I"$dir" -I"$dir/runtime/include" -o "$dir/m_run.o" "$dir/m_run.c"
    nm -u "$dir/libm.a" "$dir/m_run.o" 2>/dev/null | awk '$1 == "U" {print $2}' | sort -u \
        >"$dir/imports"
    for o in "$dir"/runtime/src/*.o; do
        # rt_uo.o is the application's: lstmc_rt_uo.h moves the thresholds from its feedback
        [ -f "$o" ] && [ "$(basename "$o")" != rt_uo.o ] || continue
        defs=$(nm --defined-only "$o" | awk '$2 ~ /^[TDRB]$/ {print $3}')
        used=0
        for s in $defs; do
            # imported by another member: a symbol the object defines is undefined elsewhere
            if grep -qx "$s" "$dir/imports"; then
                used=1
                break
            fi
        done
        if [ $used = 0 ]; then
            echo "$dir: $(basename "$o") is copied but nothing calls it" >&2
            status=1
        fi
    done
    for want in "$@"; do
        if [ ! -f "$dir/runtime/src/$want.c" ]; then
            echo "$dir: $want.c is missing" >&2
            status=1
        fi
    done
    echo "$dir: $(ls "$dir/runtime/src" | tr '\n' ' ')"
}
compile() { # NAME OPTION...
    name=$1
    shift
    "$lstmc" "$model" --name=m -o "$work/$name" "$@" >/dev/null
}
compile llvm
check "$work/llvm" rt_kernels
for absent in rt_rnn rt_tissue rt_drs rt_pool rt_blob rt_opencl rt_uo; do
    if [ -f "$work/llvm/runtime/src/$absent.c" ]; then
        echo "llvm: $absent.c copied, the LLVM kernels run every recurrent layer" >&2
        status=1
    fi
done
compile c --emit=c
check "$work/c" rt_kernels rt_rnn
compile threads --threads=2
check "$work/threads" rt_pool
compile blob --weights-placement=blob
check "$work/blob" rt_blob
compile tissue --alpha-inter=0 --emit=c
check "$work/tissue" rt_tissue rt_uo
compile drs --alpha-intra=0 --emit=c
check "$work/drs" rt_drs rt_uo
compile int8 --weights=int8 --emit=c
check "$work/int8" rt_lowp
exit $status
