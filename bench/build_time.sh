#!/bin/sh
# build_time.sh — what building a generated library costs (issue 19 point 4): for each model,
# the time and peak memory of `lstmc` writing the output folder and of `make` building it
# (GNU time's "Maximum resident set size": make's is the largest of make and the compilers it
# runs). Not part of CI: timings belong here, not in tests.
#
#   sh bench/build_time.sh LSTMC MKMODEL WORK [--configs NAME,...] [--target T] [--emit E]
#                          [--cc CC] [--ar AR] [--flags "LSTMC FLAGS"]
#
# Configs: the twelve seed configurations of bench/compare (IMDB ... Arm-H64, as
# compare.py names them: input, hidden, layers, steps) and "Big100" (2 x 1250 LSTM,
# 100 MB of fp32 weights, issue 19's goal model). --target and --cc/--ar build for a cross
# target (e.g. --target aarch64 --cc aarch64-linux-gnu-gcc --ar aarch64-linux-gnu-ar).
# Prints one markdown row per model: weights MB (the ONNX model's fp32 weights), the size of
# NAME_weights.c ("-": none, the weights are an object lstmc wrote) and of the NAME_weights.o
# objects (with NAME_weights1.o, ...; more than the weights when the streaming step program
# holds a U in another layout), lstmc s / MB, make s / MB, total s. The library is `make`
# (lib<name>.a and <name>_run) with CFLAGS=-O2.
set -eu
lstmc=$1 mkmodel=$2 work=$3
shift 3
configs="IMDB,MR,BABI,SNLI,PTB,MT,HAR,E-MNIST,E-PTB,E-Wiki,Arm-H1024,Arm-H64"
target="" emit="" cc=cc ar=ar flags=""
while [ $# -gt 0 ]; do
    case $1 in
    --configs) configs=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    --emit) emit=$2; shift 2 ;;
    --cc) cc=$2; shift 2 ;;
    --ar) ar=$2; shift 2 ;;
    --flags) flags=$2; shift 2 ;;
    *) echo "build_time.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$work"
# name input hidden layers steps (bench/compare/compare.py CONFIGS)
dims() {
    case $1 in
    IMDB) echo 512 512 3 80 ;;
    MR) echo 256 256 1 22 ;;
    BABI) echo 256 256 3 86 ;;
    SNLI) echo 300 300 2 100 ;;
    PTB) echo 650 650 3 200 ;;
    MT) echo 500 500 4 50 ;;
    HAR) echo 9 32 2 128 ;;
    E-MNIST) echo 28 128 2 28 ;;
    E-PTB) echo 800 800 2 35 ;;
    E-Wiki) echo 1500 1500 2 35 ;;
    Arm-H1024) echo 1024 1024 2 100 ;;
    Arm-H64) echo 64 64 1 10 ;;
    Big100) echo 1250 1250 2 10 ;;
    *) echo "build_time.sh: unknown config $1" >&2; exit 2 ;;
    esac
}
# field LOG KEY: a value of GNU time -v's report
field() { sed -n "s/^[[:space:]]*$2: //p" "$1" | tail -1; }
secs() { # "m:ss.xx" or "h:mm:ss" -> seconds
    echo "$1" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }'
}
echo "| model | weights MB | NAME_weights.c MB | NAME_weights.o MB | lstmc s | lstmc MB | make s | make MB | total s |"
echo "|---|---|---|---|---|---|---|---|---|"
old_ifs=$IFS
IFS=,
for c in $configs; do
    IFS=$old_ifs
    set -- $(dims "$c")
    d=$work/$c
    rm -rf "$d"
    mkdir -p "$d"
    "$mkmodel" --input "$1" --hidden "$2" --layers "$3" --seq "$4" -o "$d/model.onnx" > /dev/null
    wmb=$(awk -v i="$1" -v h="$2" -v l="$3" 'BEGIN { printf "%.1f", (4*h*(i+h) + 8*h + (l-1)*(4*h*2*h + 8*h)) * 4 / 1e6 }')
    # shellcheck disable=SC2086 # flags: several words
    /usr/bin/time -v -o "$d/lstmc.time" "$lstmc" "$d/model.onnx" --name=m -o "$d/out" \
        ${target:+--target=$target} ${emit:+--emit=$emit} $flags > "$d/lstmc.log" 2>&1
    wc_mb=- # no C to compile when lstmc wrote the object
    [ -f "$d/out/m_weights.c" ] && wc_mb=$(wc -c < "$d/out/m_weights.c" | awk '{ printf "%.1f", $1 / 1e6 }')
    /usr/bin/time -v -o "$d/make.time" make -s -C "$d/out" CC="$cc" AR="$ar" CFLAGS=-O2 \
        > "$d/make.log" 2>&1
    wo_mb=$(cat "$d"/out/m_weights*.o | wc -c | awk '{ printf "%.1f", $1 / 1e6 }')
    ls_s=$(secs "$(field "$d/lstmc.time" 'Elapsed (wall clock) time (h:mm:ss or m:ss)')")
    ls_m=$(($(field "$d/lstmc.time" 'Maximum resident set size (kbytes)') / 1024))
    mk_s=$(secs "$(field "$d/make.time" 'Elapsed (wall clock) time (h:mm:ss or m:ss)')")
    mk_m=$(($(field "$d/make.time" 'Maximum resident set size (kbytes)') / 1024))
    tot=$(awk -v a="$ls_s" -v b="$mk_s" 'BEGIN { printf "%.1f", a + b }')
    echo "| $c | $wmb | $wc_mb | $wo_mb | $ls_s | $ls_m | $mk_s | $mk_m | $tot |"
    rm -rf "$d/out/m_weights.c" "$d/out/m_weights.o" "$d/model.onnx"
    IFS=,
done
IFS=$old_ifs
