#!/bin/sh
# drs_ab.sh WORKDIR MODEL ROUNDS ALPHA... — the DRS speed-up measured robustly on a shared
# machine: the exact LLVM schedule and the LLVM DRS kernel (the binaries bench/sweep_intra.sh
# built under WORKDIR/MODEL) are timed ALTERNATELY, ROUNDS times, on the same 10 held-out
# samples (3 runs each); per round the speed-up is exact / DRS of the fastest run of each
# (on a shared 2-core machine a run is either undisturbed or shares its core, and the
# fastest is the undisturbed one), and the table gives the median over rounds with the
# smallest and largest.
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
case $m in har) first=100 ;; charlm) first=25 ;; *) echo "$0: unknown model $m" >&2; exit 2 ;; esac
pairs=
for a in "$@"; do pairs="$pairs 0:$a"; done
: > "$w/ab.txt"
r=0
while [ $r -lt "$rounds" ]; do
    e=$("$w/sweep_exact-llvm" "$src/eval_x.npy" "$src/eval_y.npy" $first 10 3 | awk '{ print $8 }')
    # shellcheck disable=SC2086
    "$w/sweep_drs-llvm" "$src/eval_x.npy" "$src/eval_y.npy" $first 10 3 $pairs |
        awk -v e="$e" -v r="$r" '{ print r, $2, e, $8, e / $8 }' >> "$w/ab.txt"
    r=$((r + 1))
done
echo
echo "### $m: exact LLVM vs DRS LLVM, alternated, $rounds rounds (load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| a_intra | exact min us (median of rounds) | DRS min us (median of rounds) | speed-up: median | min | max |"
echo "|---|---|---|---|---|---|"
med() { # the median of column $1 of stdin
    sort -g -k"$1" | awk -v c="$1" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}
for a in "$@"; do
    awk -v a="$a" '$2 + 0 == a + 0 { print $3, $4, $5 }' "$w/ab.txt" > "$w/ab_a.txt"
    printf "| %s | %.1f | %.1f | %.2fx | %.2fx | %.2fx |\n" "$a" "$(med 1 < "$w/ab_a.txt")" \
        "$(med 2 < "$w/ab_a.txt")" "$(med 3 < "$w/ab_a.txt")" \
        "$(sort -g -k3 "$w/ab_a.txt" | head -1 | cut -d' ' -f3)" \
        "$(sort -g -k3 "$w/ab_a.txt" | tail -1 | cut -d' ' -f3)"
done
