#!/bin/sh
# prune_sweep.sh — accuracy cost of magnitude pruning (--prune, passes/sparse.c, E-LSTM §3.1)
# on the trained models of tests/train, and the speed of their eSELL builds. Per pruning
# configuration the model is compiled twice — dense weights with the LLVM kernels
# (--sparse=off, the default build) and eSELL (--sparse=esell: the C SpMV kernels of
# runtime/src/rt_spmv.c) — and bench/sweep_inter.c (-DBASELINE) scores the whole eval set:
# accuracy against the labels and median microseconds per inference. Both builds of a
# configuration compute the same pruned model, so their accuracies agree to float rounding.
#
#   bench/prune_sweep.sh LSTMC WORKDIR [har|charlm]...
#
# Configurations are interleaved over ROUNDS rounds (default 3) and the fastest round kept
# (the machine may be shared: interference only adds time). CC and CFLAGS (default -O2) are
# honoured; REPS (default 3) runs per sample; FRACS (default "0.3 0.5 0.7 0.8 0.9") the
# pruned fractions, each applied to W alone, U alone and both.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 LSTMC WORKDIR [har|charlm]..." >&2
    exit 2
fi
lstmc=$1
work=$2
shift 2
[ $# -gt 0 ] || set -- har charlm
root=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-cc}
cflags=${CFLAGS:--O2}
reps=${REPS:-3}
fracs=${FRACS:-0.3 0.5 0.7 0.8 0.9}
mkdir -p "$work"

# build NAME DIR LSTMC_ARGS...: compile, build, link the scorer as DIR/sweep
build() {
    m=$1 dir=$2
    shift 2
    "$lstmc" "$root/tests/train/$m/model.onnx" --name="$m" -o "$dir" --force "$@" >/dev/null
    make -s -C "$dir" CC="$cc" CFLAGS="$cflags" "lib$m.a"
    $cc $cflags -std=c11 -DMODEL_H="\"$m.h\"" -DPFX="$m" -DUPFX="$up" -DN_LAYERS=2 -DBASELINE \
        -I"$dir" -I"$dir/runtime/include" "$root/bench/sweep_inter.c" \
        "$dir/runtime/src/rt_npy.c" "$dir/lib$m.a" -lm -o "$dir/sweep"
}

for m in "$@"; do
    case $m in
    har)    K=200 ;;
    charlm) K=50 ;;
    *) echo "$0: unknown model $m" >&2; exit 2 ;;
    esac
    up=$(echo "$m" | tr a-z A-Z)
    x="$root/tests/train/$m/eval_x.npy" y="$root/tests/train/$m/eval_y.npy"
    w="$work/$m"
    mkdir -p "$w"
    cfgs="none"
    for f in $fracs; do
        cfgs="$cfgs W:$f U:$f W:$f,U:$f"
    done
    for c in $cfgs; do
        d=$(echo "$c" | tr ':,' '__')
        p="--prune=$c"
        [ "$c" = none ] && p="--sparse=auto"
        build "$m" "$w/$d-dense" $p --sparse=off
        build "$m" "$w/$d-esell" $p --sparse=esell
    done
    rm -f "$w"/*.times
    for r in $(seq "${ROUNDS:-3}"); do
        for c in $cfgs; do
            d=$(echo "$c" | tr ':,' '__')
            for k in dense esell; do
                "$w/$d-$k/sweep" "$x" "$y" 0 "$K" "$reps" | awk '{ print $2, $6 }' \
                    >> "$w/$d-$k.times"
            done
        done
    done
    echo "# $m: prune acc_dense acc_esell us_dense_llvm us_esell speedup"
    for c in $cfgs; do
        d=$(echo "$c" | tr ':,' '__')
        a=$(sort -n -k2 "$w/$d-dense.times" | head -1)
        b=$(sort -n -k2 "$w/$d-esell.times" | head -1)
        echo "$c $a $b" | awk '{ printf "%s %s %s %s %s %.2f\n", $1, $2, $4, $3, $5, $3 / $5 }'
    done
done
