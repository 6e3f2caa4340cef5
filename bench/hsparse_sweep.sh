#!/bin/sh
# hsparse_sweep.sh — E-LSTM hidden-state sparsity (§4.4) on the trained models of tests/train:
# per threshold TH the model is compiled with --hsparse=TH (every LSTM layer), its library
# built with -DLSTMC_RT_HSPARSE_STATS, and bench/sweep_inter.c (-DBASELINE: one row) scores
# the whole eval set: accuracy against the labels, median time per inference; the counters
# give the measured Sph (skipped groups of four / all groups, over every step and layer).
# Baselines: the default compile (LLVM kernels for RnnProj and RnnRec), and --hsparse=1e-30:
# the same build as every TH (LLVM RnnProj, the C pruning kernel for RnnRec) where only the
# all-zero h_0 is skipped (exact), which is what the pruning should be compared with.
#
#   bench/hsparse_sweep.sh LSTMC WORKDIR [har|charlm]...
#
# The machine may be shared, so two measures: wall time (each configuration's median us
# per inference; configurations interleaved over ROUNDS rounds, default 5, and the fastest
# round kept: interference only ever adds time) and, when valgrind is there, instructions
# per inference from cachegrind (Ir of NI + 1 samples minus Ir of 1 sample, over NI), which
# no other load can disturb. valgrind cannot run the LLVM kernels built for this CPU, so the
# instruction counts come from --emit=c builds of the same thresholds (the portable kernels
# everywhere).
#
# CC and CFLAGS (default -O2) are honoured; REPS (default 3) runs per sample.
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
mkdir -p "$work"

# build NAME DIR EXTRA_CFLAGS LSTMC_ARGS...: compile, build, link the scorer as DIR/sweep
build() {
    m=$1 dir=$2 xflags=$3
    shift 3
    "$lstmc" "$root/tests/train/$m/model.onnx" --name="$m" -o "$dir" --force "$@" >/dev/null
    make -s -C "$dir" CC="$cc" CFLAGS="$cflags $xflags" LSTMC_ARCH= "lib$m.a"
    stats=""
    [ -n "$xflags" ] && stats="$root/bench/hsparse_stats.c"
    # shellcheck disable=SC2086
    $cc $cflags -std=c11 -DMODEL_H="\"$m.h\"" -DPFX="$m" -DUPFX="$up" -DN_LAYERS=2 -DBASELINE \
        -I"$dir" -I"$dir/runtime/include" "$root/bench/sweep_inter.c" $stats \
        "$dir/runtime/src/rt_npy.c" "$dir/lib$m.a" -lm -o "$dir/sweep"
}

# score DIR: "acc median_us" (the median over ROUNDS runs, interleaved by the caller)
score() {
    "$1/sweep" "$x" "$y" 0 "$K" "$reps" 2>"$1.stats" | awk '{ print $2, $6 }'
}

for m in "$@"; do
    case $m in
    har)    K=200 NI=20 THS="0.1 0.3 0.5 0.8 1.2" ;;
    charlm) K=50  NI=4  THS="0.1 0.3 0.5 0.8 1.2" ;;
    *) echo "$0: unknown model $m" >&2; exit 2 ;;
    esac
    up=$(echo "$m" | tr a-z A-Z)
    x="$root/tests/train/$m/eval_x.npy" y="$root/tests/train/$m/eval_y.npy"
    w="$work/$m"
    mkdir -p "$w"
    build "$m" "$w/llvm" ""
    build "$m" "$w/th1e-30" "-DLSTMC_RT_HSPARSE_STATS" --hsparse=1e-30
    for th in $THS; do
        build "$m" "$w/th$th" "-DLSTMC_RT_HSPARSE_STATS" --hsparse="$th"
    done
    # the machine may be shared: every configuration once per round, rounds interleaved
    rm -f "$w"/*.times
    for r in $(seq "${ROUNDS:-5}"); do
        for c in llvm th1e-30 $(for th in $THS; do echo "th$th"; done); do
            score "$w/$c" >> "$w/$c.times"
        done
    done
    med() { sort -n -k2 "$1" | head -1; } # the fastest round
    # instructions per inference (cachegrind), or 0 without valgrind
    irs() {
        if ! command -v valgrind >/dev/null; then echo 0; return; fi
        for n in 1 $((NI + 1)); do
            valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
                "$1/sweep" "$x" "$y" 0 "$n" 1 2>&1 >/dev/null |
                awk '/I *refs:/ { gsub(",", "", $NF); print $NF }'
        done | awk -v n="$NI" 'NR == 1 { a = $1 } NR == 2 { printf "%.0f\n", ($1 - a) / n }'
    }
    for th in 1e-30 $THS; do
        build "$m" "$w/c$th" "" --hsparse="$th" --emit=c
        irs "$w/c$th" > "$w/th$th.ir"
    done
    llvm=$(med "$w/llvm.times") exact=$(med "$w/th1e-30.times")
    echo
    echo "### $m (all $K eval samples; median us per inference over $reps runs per sample, fastest of ${ROUNDS:-5} interleaved rounds; instructions per inference over $NI samples, --emit=c builds)"
    echo "| th | Sph measured | acc % | us | vs th 1e-30 | vs LLVM default | M instr. | vs th 1e-30 |"
    echo "|---|---|---|---|---|---|---|---|"
    echo "$llvm" | awk '{ printf "| LLVM default (dense) | - | %.2f | %.1f | - | 1.00x | - | - |\n", $1, $2 }'
    for th in 1e-30 $THS; do
        s=$(awk '/^hsparse groups/ { printf "%.3f", $5 / $3 }' "$w/th$th.stats")
        echo "$th $s $(med "$w/th$th.times") $exact $llvm $(cat "$w/th$th.ir" "$w/th1e-30.ir")" |
            awk '{ printf "| %s | %s | %.2f | %.1f | %.2fx | %.2fx | %.2f | %.2fx |\n", $1, $2,
                   $3, $4, $6 / $4, $8 / $4, $9 / 1e6, ($9 > 0 ? $10 / $9 : 0) }'
    done
done
