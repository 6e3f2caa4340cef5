#!/bin/sh
# sweep_inter.sh — issue 5's alpha_inter sweep (MICRO'18 §IV, §VI-C) on the trained models of
# tests/train: per model, the predicted context link is calibrated on the FIRST half of the
# eval set (lstmc calibrate), the model is compiled once with --alpha-inter=0 --calib, and
# bench/sweep_inter.c measures on the HELD-OUT second half, for every alpha (set per run with
# <name>_set_thresholds, no recompilation): accuracy against the labels, agreement with the
# exact (alpha 0) predictions, mean sub-layers and tissues per LSTM layer (ctx->tissue_stats
# sums the layers of a run; divided by the model's layer count), median time per
# inference and the speed-up over the exact schedule without the breakpoints pass (a plain
# `lstmc` compile, the "baseline" row).
#
#   bench/sweep_inter.sh LSTMC WORKDIR [har|charlm]...
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

for m in "$@"; do
    case $m in
    har)    K=200 L=2 ALPHAS="0 100 505 508 510 511 511.5 511.9 512.01 1e30" ;;
    charlm) K=50  L=2 ALPHAS="0 1000 4095 4095.9 4096.01 1e30" ;;
    *) echo "$0: unknown model $m" >&2; exit 2 ;;
    esac
    half=$((K / 2))
    src="$root/tests/train/$m"
    up=$(echo "$m" | tr a-z A-Z)
    w="$work/$m"
    rm -rf "$w"
    mkdir -p "$w"
    # the exact schedule without the breakpoints pass (speed baseline; also slices the data)
    "$lstmc" "$src/model.onnx" --name="$m" -o "$w/base" >/dev/null
    make -s -C "$w/base" CC="$cc" CFLAGS="$cflags" "lib$m.a"
    $cc $cflags -std=c11 -DMODEL_H="\"$m.h\"" -DPFX="$m" -DUPFX="$up" -DN_LAYERS=$L -DBASELINE \
        -I"$w/base" -I"$w/base/runtime/include" "$root/bench/sweep_inter.c" \
        "$w/base/runtime/src/rt_npy.c" "$w/base/lib$m.a" -lm -o "$w/sweep_base"
    "$w/sweep_base" slice "$src/eval_x.npy" "$w/calib_x.npy" 0 "$half"
    # its stderr gives the percentiles of S per layer (how the alphas below were chosen)
    "$lstmc" calibrate "$src/model.onnx" --data "$w/calib_x.npy" -o "$w/$m.calib" 2>"$w/calib.log"
    sed 's/^lstmc: *//' "$w/calib.log"
    "$lstmc" "$src/model.onnx" --name="$m" --alpha-inter=0 --calib="$w/$m.calib" \
        -o "$w/bp" >/dev/null
    make -s -C "$w/bp" CC="$cc" CFLAGS="$cflags" "lib$m.a"
    $cc $cflags -std=c11 -DMODEL_H="\"$m.h\"" -DPFX="$m" -DUPFX="$up" -DN_LAYERS=$L \
        -I"$w/bp" -I"$w/bp/runtime/include" "$root/bench/sweep_inter.c" \
        "$w/bp/runtime/src/rt_npy.c" "$w/bp/lib$m.a" -lm -o "$w/sweep_bp"

    "$w/sweep_base" "$src/eval_x.npy" "$src/eval_y.npy" "$half" "$((K - half))" "$reps" \
        > "$w/base.txt"
    # shellcheck disable=SC2086
    "$w/sweep_bp" "$src/eval_x.npy" "$src/eval_y.npy" "$half" "$((K - half))" "$reps" \
        $ALPHAS > "$w/bp.txt"
    echo
    echo "## $m (calibrated on eval samples 0..$((half - 1)), scored on $half..$((K - 1)))"
    awk -v m="$m" '
        NR == FNR { base = $6; next }
        FNR == 1 { t0 = $6
            printf "| %-7s | %-9s | %8s | %9s | %10s | %8s | %9s | %8s | %8s |\n", "model",
                "alpha", "acc %", "agree %", "sub-layers", "tissues", "median us", "vs a=0",
                "vs exact"
            printf "|---|---|---|---|---|---|---|---|---|\n"
            printf "| %-7s | %-9s | %8s | %9s | %10s | %8s | %9.1f | %8s | %8s |\n", m,
                "exact", "-", "-", "-", "-", base, "-", "1.00x" }
        { printf "| %-7s | %-9s | %8.2f | %9.2f | %10.2f | %8.2f | %9.1f | %7.2fx | %7.2fx |\n",
            m, $1, $2, $3, $4, $5, $6, t0 / $6, base / $6 }' "$w/base.txt" "$w/bp.txt"
    awk '{ printf "(exact schedule accuracy on the same samples: %s %%)\n", $2 }' "$w/base.txt"
done
