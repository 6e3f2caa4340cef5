#!/bin/sh
# sweep_intra.sh — issue 6's alpha_intra sweep (MICRO'18 §V dynamic row skip, §VI-B2, §VI-C)
# on the trained models of tests/train, alone and together with alpha_inter. Per model, every
# configuration is compiled once and every threshold pair is set per run with
# <name>_set_thresholds (no recompilation); bench/sweep_intra.c scores the HELD-OUT second half
# of the eval set (the first half calibrates the predicted context link for the joint rows, as
# bench/sweep_inter.sh does) and prints, per pair: accuracy against the labels, agreement
# with the exact predictions, the share of U_f,i,c rows skipped (multiplies) and loaded
# (ctx->drs_stats), the median time per inference, and the speed-ups.
#
#   bench/sweep_intra.sh LSTMC WORKDIR [har|charlm]...
#
# Configurations (each its own compile):
#   exact-llvm   plain lstmc (schedule A+, LLVM kernels): the speed baseline of every row
#   drs-llvm     --alpha-intra=0: the LLVM DRS kernel, alpha_intra swept
#   exact-c      --emit=c: the portable C kernels (lstmc_rt_rnn_rec)
#   drs-c        --emit=c --alpha-intra=0: the portable C DRS kernel (lstmc_rt_lstm_drs)
#   tissue-llvm  --alpha-inter=0 --calib: breakpoints + tissues, LLVM tissue kernel (no DRS)
#   tissue-drs-llvm --alpha-inter=0 --alpha-intra=0 --calib: DRS inside tissues (LLVM), both swept
# CC and CFLAGS (default -O2) are honoured; REPS (default 3) runs per sample. On a shared
# machine the times are noisy: bench/drs_ab.sh times exact and DRS alternately instead.
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
INTRA="0 0.01 0.02 0.05 0.1 0.15 0.2 0.3 0.5"
INTRA_C="0 0.05 0.1 0.2 0.5" # the portable C kernels are slow: fewer points

for m in "$@"; do
    case $m in
    har)    K=200 INTER="508 510" ;;
    charlm) K=50  INTER="4095.9 4096.01" ;;
    *) echo "$0: unknown model $m" >&2; exit 2 ;;
    esac
    half=$((K / 2))
    src="$root/tests/train/$m"
    up=$(echo "$m" | tr a-z A-Z)
    w="$work/$m"
    rm -rf "$w"
    mkdir -p "$w"

    # build CONFIG [LSTMC OPTION]...: compile, make, link sweep_intra.c (-DBASELINE when the
    # library has no DRS)
    build() {
        cfg=$1
        shift
        "$lstmc" "$src/model.onnx" --name="$m" "$@" -o "$w/$cfg" >/dev/null 2>"$w/$cfg.log"
        make -s -C "$w/$cfg" CC="$cc" CFLAGS="$cflags" "lib$m.a"
        def=
        case " $* " in *--alpha-intra*) ;; *) def=-DBASELINE ;; esac
        # shellcheck disable=SC2086
        $cc $cflags -std=c11 $def -DMODEL_H="\"$m.h\"" -DPFX="$m" -DUPFX="$up" \
            -I"$w/$cfg" -I"$w/$cfg/runtime/include" "$root/bench/sweep_intra.c" \
            "$w/$cfg/runtime/src/rt_npy.c" "$w/$cfg/lib$m.a" -lm -o "$w/sweep_$cfg"
    }
    run() { # run CONFIG PAIR...
        cfg=$1
        shift
        "$w/sweep_$cfg" "$src/eval_x.npy" "$src/eval_y.npy" "$half" "$((K - half))" "$reps" \
            "$@" > "$w/$cfg.txt"
    }
    build exact-llvm
    # the calibration slice (sweep_inter.c's slice mode) and the CALIB file for the joint rows
    $cc $cflags -std=c11 -DMODEL_H="\"$m.h\"" -DPFX="$m" -DUPFX="$up" -DN_LAYERS=2 -DBASELINE \
        -I"$w/exact-llvm" -I"$w/exact-llvm/runtime/include" "$root/bench/sweep_inter.c" \
        "$w/exact-llvm/runtime/src/rt_npy.c" "$w/exact-llvm/lib$m.a" -lm -o "$w/slice"
    "$w/slice" slice "$src/eval_x.npy" "$w/calib_x.npy" 0 "$half"
    "$lstmc" calibrate "$src/model.onnx" --data "$w/calib_x.npy" -o "$w/$m.calib" 2>/dev/null
    build drs-llvm --alpha-intra=0
    build exact-c --emit=c
    build drs-c --emit=c --alpha-intra=0
    build tissue-llvm --alpha-inter=0 --calib="$w/$m.calib"
    build tissue-drs-llvm --alpha-inter=0 --alpha-intra=0 --calib="$w/$m.calib"

    pairs=
    for a in $INTRA; do pairs="$pairs 0:$a"; done
    run exact-llvm
    # shellcheck disable=SC2086
    run drs-llvm $pairs
    run exact-c
    pairs=
    for a in $INTRA_C; do pairs="$pairs 0:$a"; done
    # shellcheck disable=SC2086
    run drs-c $pairs
    run tissue-llvm
    jp="0:0 0:0.05 0:0.1 0:0.2"
    for x in $INTER; do jp="$jp $x:0 $x:0.05 $x:0.1 $x:0.2"; done
    # shellcheck disable=SC2086
    run tissue-drs-llvm $jp

    echo
    echo "## $m (scored on eval samples $half..$((K - 1)); REPS=$reps; load $(cut -d' ' -f1-3 /proc/loadavg))"
    echo
    echo "| config | a_inter | a_intra | acc % | agree % | skipped % | loaded % | median us | min us | vs exact-llvm (min) | vs own a=0 (min) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    base=$(awk '{ print $8 }' "$w/exact-llvm.txt")
    for cfg in exact-llvm drs-llvm exact-c drs-c tissue-llvm tissue-drs-llvm; do
        awk -v cfg="$cfg" -v base="$base" '
            NR == 1 { t0 = $8 }
            { printf "| %s | %s | %s | %.2f | %.2f | %s | %s | %.1f | %.1f | %.2fx | %.2fx |\n",
                cfg, cfg ~ /tissue/ ? $1 : "-",
                cfg ~ /drs/ ? $2 : "-", $3, $4, cfg ~ /drs/ ? sprintf("%.1f", $5) : "-",
                cfg ~ /drs/ ? sprintf("%.1f", $6) : "-", $7, $8, base / $8, t0 / $8 }' "$w/$cfg.txt"
    done
done
# the speed-up of the LLVM DRS kernel, timed alternately with the exact schedule (robust to
# the load of a shared machine)
for m in "$@"; do
    sh "$root/bench/drs_ab.sh" "$work" "$m" "${ROUNDS:-5}" 0 0.05 0.1 0.2 0.5
done
