#!/bin/sh
# precision.sh — one command for the reduced-precision table (issue 12, docs/PRECISION.md):
# the seed configurations with lstmc's weights in fp32, fp16, bf16 and int8 beside ONNX Runtime
# fp32 in the same run, weights bytes per step and the fraction of the roofline bound.
#
#   sh bench/precision.sh [--configs IMDB,MT,...] [--budget S] [--rounds N]
#
# Without --configs: all twelve seed configurations of bench/compare.
#
# Needs what bench/compare/run.sh installs (node, onnxruntime-node under bench/compare/ort or
# $ORT_NODE_MODULES, python3-numpy). Builds lstmc in build-bench-prec/ (LSTMC_BENCH_BUILD
# overrides) and writes build-bench-prec/precision/precision.md. Not part of CI.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${LSTMC_BENCH_BUILD:-$ROOT/build-bench-prec}
if [ -z "${ORT_NODE_MODULES:-}" ] && [ ! -d "$ROOT/bench/compare/ort/node_modules/onnxruntime-node" ]; then
    (cd "$ROOT/bench/compare/ort" && npm install --ignore-scripts --no-audit --no-fund >&2)
fi
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DLSTMC_TESTS=OFF >&2
fi
nice cmake --build "$BUILD" -j2 --target lstmc mkmodel >&2
mkdir -p "$BUILD/precision"
cc -O2 -march=native -Wall -Wextra -pthread -o "$BUILD/precision/roofline" \
    "$ROOT/bench/compare/roofline.c"
exec /usr/bin/python3 "$ROOT/bench/precision.py" --lstmc "$BUILD/lstmc" \
    --mkmodel "$BUILD/bench/mkmodel" --roofline "$BUILD/precision/roofline" \
    --work "$BUILD/precision" "$@"
