#!/bin/sh
# run.sh — one command for the exact-fp32 latency comparison of bench/compare (issue 4):
# lstmc vs ONNX Runtime (onnxruntime-node), oneDNN's LSTM primitive (default ISA and AVX2) and
# PyTorch (torch.nn.LSTM on OpenBLAS), batch 1, whole sequence, 1 and 2 threads, plus the
# machine's roofline. Installs what is missing, builds lstmc (build-bench/), then runs
# compare.py. Not part of CI.
#
#   sh bench/compare/run.sh [--quick] [--configs IMDB,HAR,...] [--torch-blas openblas|blis]
#                           [--budget SECONDS] [--target PROFILE.json]
#
# --target compiles lstmc with that profile (e.g. the kernel parameters `lstmc profile
# --device=cpu --search` chose); the results list the parameters each lstmc library used.
# Results: build-bench/compare/results.{md,csv} (LSTMC_BENCH_BUILD overrides build-bench).
# The first full run also compiles the 12 models' generated libraries (the weights of the big
# ones are hundreds of MB of C; several minutes); they are cached until lstmc changes.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/compare"
BUILD=${LSTMC_BENCH_BUILD:-$ROOT/build-bench}

# Debian packages for the benchmark only (not in scripts/deps.sh: CI does not run this).
sh "$ROOT/scripts/deps.sh"
pkgs="libdnnl-dev libopenblas0-pthread libblis4-pthread python3-torch python3-onnx python3-numpy"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# node and npm: any install will do (this machine's come from NodeSource, not Debian).
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
    echo "run.sh: installing$missing" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    # Installing a BLAS switches the system's libblas.so.3 alternative; keep whatever was
    # selected (the benchmark points PyTorch at OpenBLAS through LD_LIBRARY_PATH instead).
    blas_before=$(update-alternatives --query libblas.so.3-x86_64-linux-gnu 2>/dev/null | sed -n 's/^Value: //p')
    lapack_before=$(update-alternatives --query liblapack.so.3-x86_64-linux-gnu 2>/dev/null | sed -n 's/^Value: //p')
    DEBIAN_FRONTEND=noninteractive $sudo apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing >&2
    [ -n "$blas_before" ] && $sudo update-alternatives --set libblas.so.3-x86_64-linux-gnu "$blas_before" >&2
    [ -n "$lapack_before" ] && $sudo update-alternatives --set liblapack.so.3-x86_64-linux-gnu "$lapack_before" >&2
fi

# ONNX Runtime for node, without its install script (that script downloads GPU providers).
if [ -z "${ORT_NODE_MODULES:-}" ] && [ ! -d "$HERE/ort/node_modules/onnxruntime-node" ]; then
    (cd "$HERE/ort" && npm install --ignore-scripts --no-audit --no-fund >&2)
fi

# lstmc and mkmodel, an optimised build of this tree.
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DLSTMC_TESTS=OFF >&2
fi
cmake --build "$BUILD" -j2 --target lstmc mkmodel >&2

mkdir -p "$BUILD/compare"
cc -O2 -march=native -Wall -Wextra -I "$HERE" -o "$BUILD/compare/dnnl_worker" "$HERE/dnnl_worker.c" -ldnnl
cc -O2 -march=native -Wall -Wextra -pthread -o "$BUILD/compare/roofline" "$HERE/roofline.c"

exec /usr/bin/python3 "$HERE/compare.py" --lstmc "$BUILD/lstmc" --mkmodel "$BUILD/bench/mkmodel" \
    --dnnl-worker "$BUILD/compare/dnnl_worker" --roofline "$BUILD/compare/roofline" \
    --work "$BUILD/compare" "$@"
