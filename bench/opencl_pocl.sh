#!/bin/sh
# opencl_pocl.sh LSTMC MKMODEL WORK [RUNS] — issue 7: the seed configurations on the CPU path
# (LLVM kernels, portable C kernels) and on the OpenCL path on PoCL, plus the GPU/CPU
# policy of the PoCL library (LSTMC_OCL_POLICY=gpu|cpu|auto). Prints one line per
# measurement: model variant median_ms (median of `m_run --bench N`, N = RUNS or 200, 20 for
# IMDB; MODELS="har mr" for a subset). bench/RESULTS.md "OpenCL on PoCL" records the figures.
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
for m in ${MODELS:-har mr imdb}; do
    n=$runs
    [ "$m" = imdb ] && n=20
    for v in llvm c pocl; do
        case $v in
        llvm) opt=--emit=llvm ;;
        c) opt=--emit=c ;;
        pocl) opt=--target=pocl ;;
        esac
        rm -rf "o_${m}_$v"
        "$lstmc" "$m.onnx" $opt --name=m -o "o_${m}_$v" >/dev/null
        make -s -C "o_${m}_$v" CFLAGS=-O2 >/dev/null
        pols=gpu
        [ "$v" = pocl ] && pols="gpu cpu auto"
        for pol in $pols; do
            t=$(LSTMC_OCL_POLICY=$pol "o_${m}_$v/m_run" --bench "$n" --output-dir "o_${m}_$v" "$m.npy" |
                sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
            name=$v
            [ "$v" = pocl ] && name="pocl-$pol"
            echo "$m $name $t"
        done
    done
done
