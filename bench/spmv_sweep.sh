#!/bin/sh
# spmv_sweep.sh — eSELL SpMV (runtime/src/rt_spmv.c, E-LSTM §3.1) against the dense kernels:
# one LSTM layer (bench/mkmodel, H = I) pruned by magnitude to each sparsity S
# (--prune=W:S,U:S), built three ways — dense LLVM kernels (--sparse=off, the default build),
# dense portable C kernels (--sparse=off --emit=c) and eSELL (--sparse=esell: the C SpMV for
# W x and U h, whatever --emit) — and timed with the generated driver's --bench (median of
# N runs). Configurations are interleaved over ROUNDS rounds (default 5) and the median of
# the rounds' medians is printed: the machine may be shared.
#
#   bench/spmv_sweep.sh LSTMC MKMODEL WORKDIR [H...]        (default H: 128 256 512)
#
# Output: one line per (H, S): H S llvm_ms c_ms esell_ms speedup_vs_llvm speedup_vs_c
# CC and CFLAGS (default -O2) are honoured; T (default 50) steps, N (default 20) runs.
set -eu
if [ $# -lt 3 ]; then
    echo "usage: $0 LSTMC MKMODEL WORKDIR [H...]" >&2
    exit 2
fi
lstmc=$1 mkmodel=$2 work=$3
shift 3
[ $# -gt 0 ] || set -- 128 256 512
cc=${CC:-cc}
cflags=${CFLAGS:--O2}
steps=${T:-50}
runs=${N:-20}
sps=${SPARSITIES:-0 0.3 0.5 0.7 0.8 0.9 0.95}
mkdir -p "$work"

build() { # build DIR MODEL LSTMC_ARGS...
    d=$1 m=$2
    shift 2
    "$lstmc" "$m" --name=m -o "$d" --force "$@" >/dev/null
    make -s -C "$d" CC="$cc" CFLAGS="$cflags" m_run >/dev/null
}

for h in "$@"; do
    m="$work/h$h.onnx"
    "$mkmodel" --hidden "$h" --input "$h" --layers 1 --seq "$steps" -o "$m" --npy "$work/x$h.npy"
    for s in $sps; do
        p="--prune=W:$s,U:$s"
        [ "$s" = 0 ] && p="--sparse=auto" # nothing to prune: the plain model
        build "$work/h$h-s$s-llvm" "$m" $p --sparse=off
        build "$work/h$h-s$s-c" "$m" $p --sparse=off --emit=c
        build "$work/h$h-s$s-esell" "$m" $p --sparse=esell
    done
    for r in $(seq "${ROUNDS:-5}"); do
        for s in $sps; do
            for k in llvm c esell; do
                mkdir -p "$work/out"
                "$work/h$h-s$s-$k/m_run" --bench "$runs" --output-dir "$work/out" "$work/x$h.npy" |
                    awk '{ print $3 }' >> "$work/h$h-s$s-$k.times"
            done
        done
    done
    med() { sort -n "$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
    for s in $sps; do
        l=$(med "$work/h$h-s$s-llvm.times")
        c=$(med "$work/h$h-s$s-c.times")
        e=$(med "$work/h$h-s$s-esell.times")
        echo "$h $s $l $c $e" | awk '{ printf "%s %s %.4f %.4f %.4f %.2f %.2f\n", $1, $2, $3, $4, $5, $3 / $5, $4 / $5 }'
    done
    rm -f "$work"/h"$h"-*.times
done
