#!/bin/sh
# wave_ab.sh LSTMC MKMODEL WORK [NAME:I:H:L:T]... — stacked LSTM layers on 2 threads as a
# wavefront (--parallel=wave, compiler/kprog/schedule.c) vs split hidden units (--parallel=split) vs
# 1 thread, batch 1, whole sequence, fp32 (issue 4). Builds the three libraries of each
# configuration once (weights in a blob beside the program: the big models' C arrays would
# take minutes to compile), then runs ROUNDS rounds (default 7), each running every variant
# once as `m_run --bench REPS` (default 50) in rotating order, and prints per variant the
# median and range of the round medians, with the load average before and after.
# Default configurations: the stacked ones of bench/compare (BABI SNLI MT E-PTB IMDB HAR E-MNIST).
set -eu
lstmc=$1 mkmodel=$2 work=$3
shift 3
[ $# -gt 0 ] || set -- BABI:256:256:3:86 SNLI:300:300:2:100 MT:500:500:4:50 \
    E-PTB:800:800:2:35 IMDB:512:512:3:80 HAR:9:32:2:128 E-MNIST:28:128:2:28
rounds=${ROUNDS:-7} reps=${REPS:-50}
mkdir -p "$work"
variants="t1:--threads=1 split2:--threads=2:--parallel=split wave2:--threads=2:--parallel=wave"
for cfg in "$@"; do
    IFS=: read -r name I H L T <<EOC
$cfg
EOC
    d="$work/$name"
    if [ ! -f "$d/model.onnx" ]; then
        mkdir -p "$d"
        "$mkmodel" --hidden "$H" --input "$I" --layers "$L" --seq "$T" -o "$d/model.onnx" \
            --npy "$d/x.npy" >/dev/null
    fi
    for v in $variants; do
        vn=${v%%:*}
        opts=$(echo "${v#*:}" | tr ':' ' ')
        if [ ! -x "$d/$vn/m_run" ] || [ "$lstmc" -nt "$d/$vn/m_run" ]; then
            rm -rf "$d/$vn"
            nice "$lstmc" "$d/model.onnx" --name=m $opts --weights-placement=blob -o "$d/$vn" >/dev/null
            nice make -s -C "$d/$vn" m_run CFLAGS="-O2 -march=native" >/dev/null
            mkdir -p "$d/$vn/out"
        fi
    done
done
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for cfg in "$@"; do
    name=${cfg%%:*}
    d="$work/$name"
    : > "$d/samples"
    r=0
    while [ $r -lt "$rounds" ]; do
        order=$variants
        k=0
        while [ $k -lt $((r % 3)) ]; do # rotate the order every round
            order="$(echo "$order" | cut -d' ' -f2-) $(echo "$order" | cut -d' ' -f1)"
            k=$((k + 1))
        done
        for v in $order; do
            vn=${v%%:*}
            ms=$("$d/$vn/m_run" --bench "$reps" --output-dir "$d/$vn/out" "$d/x.npy" |
                sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
            echo "$vn $ms" >> "$d/samples"
        done
        r=$((r + 1))
    done
    for v in $variants; do
        vn=${v%%:*}
        grep "^$vn " "$d/samples" | awk '{print $2}' | sort -g | awk -v n="$name" -v v="$vn" \
            '{a[NR]=$1} END {m = NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2;
              printf "%-6s %-7s median %.4f ms  (round medians %.4f-%.4f, %d rounds)\n", n, v, m, a[1], a[NR], NR}'
    done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
