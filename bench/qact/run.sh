#!/bin/sh
# run.sh — the full-integer layers' table (issue 22, bench/RESULTS.md "Full-integer layers"):
# lstmc fp32, --weights=int8, --activations=int8 and int16 beside ONNX Runtime fp32, 1 thread.
#
#   sh bench/qact/run.sh [--configs IMDB,MT,...] [--budget S] [--rounds N] [--no-ort]
#
# Needs what bench/compare/run.sh installs (node, onnxruntime-node under bench/compare/ort or
# $ORT_NODE_MODULES, python3-numpy). Builds lstmc in build-bench-qact/ (LSTMC_BENCH_BUILD
# overrides) and writes build-bench-qact/qact/qact.md. Not part of CI.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${LSTMC_BENCH_BUILD:-$ROOT/build-bench-qact}
case " $* " in
*" --no-ort "*) ;;
*)
    if [ -z "${ORT_NODE_MODULES:-}" ] && [ ! -d "$ROOT/bench/compare/ort/node_modules/onnxruntime-node" ]; then
        (cd "$ROOT/bench/compare/ort" && npm install --ignore-scripts --no-audit --no-fund >&2)
    fi
    ;;
esac
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DLSTMC_TESTS=OFF >&2
fi
nice cmake --build "$BUILD" -j2 --target lstmc mkmodel >&2
mkdir -p "$BUILD/qact"
exec /usr/bin/python3 "$ROOT/bench/qact/qact.py" --lstmc "$BUILD/lstmc" \
    --mkmodel "$BUILD/bench/mkmodel" --work "$BUILD/qact" "$@"
