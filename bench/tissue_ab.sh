#!/bin/sh
# tissue_ab.sh WORKDIR MODEL ROUNDS ALPHA... — issue 5's speed-up over the exact schedule,
# measured robustly on a shared machine: the exact LLVM schedule and the tissue library
# (the binaries bench/sweep_inter.sh built under WORKDIR/MODEL: sweep_base and sweep_bp) are
# timed ALTERNATELY, ROUNDS times, on the same 10 held-out samples (REPS runs each, default
# 3; sweep_inter.c's last column: each sample's fastest run, the median over the samples; on
# a shared machine a run is either undisturbed or shares its core, and the fastest is the
# undisturbed one). Per round the speed-up is exact / tissue; the
# table gives per alpha the median over rounds of both times and of the speed-up, with the
# smallest and largest speed-up. Sub-layers and tissues are per LSTM layer, as sweep_inter.
set -eu
if [ $# -lt 4 ]; then
    echo "usage: $0 WORKDIR MODEL ROUNDS ALPHA..." >&2
    exit 2
fi
work=$1 m=$2 rounds=$3
shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
src="$root/tests/train/$m"
w="$work/$m"
reps=${REPS:-3}
case $m in har) first=100 ;; charlm) first=25 ;; *) echo "$0: unknown model $m" >&2; exit 2 ;; esac
: > "$w/tab.txt"
r=0
while [ $r -lt "$rounds" ]; do
    e=$("$w/sweep_base" "$src/eval_x.npy" "$src/eval_y.npy" $first 10 "$reps" | awk '{ print $7 }')
    "$w/sweep_bp" "$src/eval_x.npy" "$src/eval_y.npy" $first 10 "$reps" "$@" |
        awk -v e="$e" '{ print $1, e, $7, e / $7, $4, $5 }' >> "$w/tab.txt"
    r=$((r + 1))
done
echo
echo "### $m: exact LLVM vs tissues (LLVM), alternated, $rounds rounds of 10 samples x $reps runs (load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| alpha_inter | sub-layers | tissues | exact us | tissues us | speed-up: median | min | max |"
echo "|---|---|---|---|---|---|---|---|"
med() { # the median of column $1 of stdin
    sort -g -k"$1" | awk -v c="$1" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}
for a in "$@"; do
    awk -v a="$a" '$1 + 0 == a + 0 { print $2, $3, $4, $5, $6 }' "$w/tab.txt" > "$w/tab_a.txt"
    printf "| %s | %.2f | %.2f | %.1f | %.1f | %.2fx | %.2fx | %.2fx |\n" "$a" \
        "$(med 4 < "$w/tab_a.txt")" "$(med 5 < "$w/tab_a.txt")" "$(med 1 < "$w/tab_a.txt")" \
        "$(med 2 < "$w/tab_a.txt")" "$(med 3 < "$w/tab_a.txt")" \
        "$(sort -g -k3 "$w/tab_a.txt" | head -1 | cut -d' ' -f3)" \
        "$(sort -g -k3 "$w/tab_a.txt" | tail -1 | cut -d' ' -f3)"
done
