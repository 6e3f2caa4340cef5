#!/bin/sh
# opencl_pocl.sh LSTMC MKMODEL WORK [RUNS] — issue 7: the seed configurations on the CPU path
# (LLVM kernels, portable C kernels) and on the OpenCL path on PoCL, plus the GPU/CPU
# policy of the PoCL library (LSTMC_OCL_POLICY=gpu|cpu|auto|model). Prints one line per
# measurement: round model variant median_ms (median of `m_run --bench N`, N = RUNS or 200,
# 20 for IMDB; MODELS="har mr" for a subset, ROUNDS=3 repeats everything round-robin so the
# load of a shared machine spreads over all variants). The PoCL libraries are compiled for
# the profile `lstmc profile --device=opencl` measures first (WORK/pocl.json: launch
# overhead and rates for the cost model). Variants:
#   llvm c                    exact schedule A+, LLVM / portable C kernels
#   c-tissue pocl-tissue      --alpha-inter=0: breakpoints + tissues (C runtime / OpenCL)
#   llvm-drs c-drs pocl-drs   --alpha-intra=0: dynamic row skip (LLVM / C / OpenCL)
#   pocl                      exact schedule on PoCL under the four policies
#   pocl-fp32 pocl-fp16 pocl-bf16 pocl-int8   the exact schedule on PoCL with --weights=F,
#                             policy gpu only (issue 12; not in the default VARIANTS)
# bench/RESULTS.md "OpenCL on PoCL" records the figures.
set -eu
lstmc=$1 mk=$2 work=$3 runs=${4:-200}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
cd "$work"
export POCL_CACHE_DIR="$work/pocl-cache"
[ -f mr.onnx ] || "$mk" --hidden 256 --layers 1 --seq 22 -o mr.onnx --npy mr.npy >/dev/null
[ -f imdb.onnx ] || "$mk" --hidden 512 --layers 3 --seq 80 -o imdb.onnx --npy imdb.npy >/dev/null
cp "$here/examples/har_lstm/model.onnx" har.onnx
cp "$here/examples/har_lstm/input.npy" har.npy
[ -f pocl.json ] || "$lstmc" profile --device=opencl --hidden=32,256,512 --max-tissue=8 \
    --reps=9 --name=pocl_measured -o pocl.json >profile.txt
variants=${VARIANTS:-llvm c c-tissue pocl-tissue llvm-drs c-drs pocl-drs pocl}
for m in ${MODELS:-har mr imdb}; do
    for v in $variants; do
        case $v in
        llvm) opt=--emit=llvm ;;
        c) opt=--emit=c ;;
        c-tissue) opt="--emit=c --alpha-inter=0" ;;
        llvm-drs) opt="--emit=llvm --alpha-intra=0" ;;
        c-drs) opt="--emit=c --alpha-intra=0" ;;
        pocl) opt=--target=pocl.json ;;
        pocl-tissue) opt="--target=pocl.json --alpha-inter=0" ;;
        pocl-drs) opt="--target=pocl.json --alpha-intra=0" ;;
        pocl-fp32 | pocl-fp16 | pocl-bf16 | pocl-int8)
            opt="--target=pocl.json --weights=${v#pocl-}" ;;
        esac
        if [ ! -x "o_${m}_$v/m_run" ]; then
            # shellcheck disable=SC2086
            "$lstmc" "$m.onnx" $opt --name=m -o "o_${m}_$v" >/dev/null
            make -s -C "o_${m}_$v" CFLAGS=-O2 >/dev/null
        fi
    done
done
for r in $(seq "${ROUNDS:-1}"); do
    for m in ${MODELS:-har mr imdb}; do
        n=$runs
        [ "$m" = imdb ] && n=${IMDB_RUNS:-20}
        for v in $variants; do
            pols=gpu
            case $v in
            pocl) pols="gpu cpu auto model" ;;
            pocl-fp32 | pocl-fp16 | pocl-bf16 | pocl-int8) ;;
            pocl-*) pols="gpu model" ;;
            esac
            for pol in $pols; do
                t=$(LSTMC_OCL_POLICY=$pol "o_${m}_$v/m_run" --bench "$n" --output-dir "o_${m}_$v" \
                    "$m.npy" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
                name=$v
                case $v in pocl*) name="$v/$pol" ;; esac
                echo "$r $m $name $t"
            done
        done
    done
done
