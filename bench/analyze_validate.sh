#!/bin/sh
# analyze_validate.sh — check `lstmc analyze`'s LRU cache model (Arm'19 §V) against a
# measurement: valgrind's cachegrind running the generated <name>_run with the same
# last-level cache (size, ways, 64-byte lines).
#
#   bench/analyze_validate.sh [--quick] LSTMC MKMODEL WORKDIR
#
# For each configuration (H, I, T, LL size) and schedule (A: --disable-pass=split_gates;
# A+: the default passes) it
#   1. writes the model and an input with mkmodel, compiles it with lstmc --emit=c (the
#      portable reference kernels, whose loops the model replays; LLVM kernels built for
#      the host CPU may use AVX-512, which valgrind cannot run) and builds <name>_run with
#      LSTMC_ARCH= (the C runtime for any x86-64, not -march=native, for the same reason);
#   2. runs <name>_run under cachegrind twice, with --bench 1 and --bench 2. The driver runs
#      the model once, then N more times for --bench N; everything else (start-up, .npy
#      reading and writing, init) is the same in both. The difference of the two LLd miss
#      counts is therefore exactly one run of the model on a warm cache (after two runs);
#   3. asks `lstmc analyze --runs=2` for the same thing: the program replayed twice through
#      the model, the second replay reported;
#   4. compares the model's fill traffic (read + write misses, lines) with cachegrind's LLd
#      misses (read + write) * 64. Cachegrind counts no write-backs, so the model's
#      write-back traffic is printed but not compared.
# Cachegrind's LL sees only D1 misses (D1 is fixed at 32 KiB, 8-way here), while the model
# is a single LL fed every access: the difference is the D1-resident scalars and vectors,
# small next to the weight streams. Exits 1 when any ratio is outside [1 - TOL, 1 + TOL]
# (TOL = 0.25 unless LSTMC_VALIDATE_TOL says otherwise), 2 on usage or tool errors.
set -eu

quick=0
if [ "${1:-}" = "--quick" ]; then
    quick=1
    shift
fi
if [ $# -ne 3 ]; then
    echo "usage: $0 [--quick] LSTMC MKMODEL WORKDIR" >&2
    exit 2
fi
lstmc=$1
mkmodel=$2
work=$3
tol=${LSTMC_VALIDATE_TOL:-0.25}
command -v valgrind >/dev/null || { echo "$0: valgrind not found (scripts/deps.sh)" >&2; exit 2; }
mkdir -p "$work"

# H I T LL_BYTES LL_WAYS. Every LL is smaller than G = [W|U], so schedule A streams G every
# step. With I = H the LL holds G2 = U (and G1 = W): A+ reads G once. With I < H, G1 fits
# and G2 does not: A+ reads G1 once and G2 every step (Arm'19 §IV's case). LL sizes keep
# clear of |U| itself, where LRU with 12-16 ways turns on the exact placement of a few
# vectors against U (see bench/RESULTS.md). Cachegrind needs a power-of-two set count.
if [ $quick -eq 1 ]; then
    configs="128 128 16 393216 12
128 32 16 131072 16"
else
    configs="128 128 20 393216 12
256 256 20 1572864 12
512 512 10 6291456 12
256 64 20 524288 16
512 128 10 2097152 16"
fi

# LLd misses (read + write) of one cachegrind run: prints the count.
llmisses() {
    valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 \
        --LL="$1",64 --cachegrind-out-file=/dev/null "$2" --bench "$3" \
        --output-dir "$4" "$5" 2>&1 >/dev/null |
        sed -n 's/.*LLd misses: *\([0-9,]*\).*/\1/p' | tr -d ,
}

printf '%-24s %-3s %14s %14s %7s %14s\n' "config (HxIxT, LL)" "sch" "model bytes" \
    "cachegrind" "ratio" "model wb"
echo "$configs" >"$work/configs"
rm -f "$work/failed"
while read -r H I T LL W; do
    name="h${H}_i${I}_t${T}"
    dir="$work/$name"
    mkdir -p "$dir"
    "$mkmodel" --hidden "$H" --input "$I" --layers 1 --seq "$T" -o "$dir/model.onnx" \
        --npy "$dir/x.npy"
    for sch in A A+; do
        if [ "$sch" = "A" ]; then flag="--disable-pass=split_gates"; sub=a; else flag=""; sub=ap; fi
        out="$dir/$sub"
        rm -rf "$out"
        # shellcheck disable=SC2086
        "$lstmc" "$dir/model.onnx" --target=host --emit=c --name=m -o "$out" $flag
        make -s -C "$out" m_run LSTMC_ARCH= >/dev/null
        m1=$(llmisses "$LL,$W" "$out/m_run" 1 "$out" "$dir/x.npy")
        m2=$(llmisses "$LL,$W" "$out/m_run" 2 "$out" "$dir/x.npy")
        [ -n "$m1" ] && [ -n "$m2" ] || { echo "$0: no cachegrind summary" >&2; exit 2; }
        cg=$(( (m2 - m1) * 64 ))
        # shellcheck disable=SC2086
        row=$("$lstmc" analyze "$dir/model.onnx" --target=host --llc="$LL" --assoc="$W" \
            --runs=2 --schedule="$sch" --csv $flag | grep '^model,')
        model=$(echo "$row" | cut -d, -f7)
        wb=$(echo "$row" | cut -d, -f8)
        ratio=$(awk -v m="$model" -v c="$cg" 'BEGIN { printf "%.3f", (c > 0 ? m / c : 0) }')
        printf '%-24s %-3s %14s %14s %7s %14s\n' "${H}x${I}x${T}, $((LL / 1024))K/${W}w" \
            "$sch" "$model" "$cg" "$ratio" "$wb"
        if ! awk -v r="$ratio" -v t="$tol" 'BEGIN { exit !(r >= 1 - t && r <= 1 + t) }'; then
            echo "  ^ outside 1 +- $tol" >&2
            echo fail >"$work/failed"
        fi
    done
done <"$work/configs"
[ -f "$work/failed" ] && exit 1
exit 0
