#!/bin/sh
# example.sh — the main job: install what is missing, build lstmc, compile the bundled
# example model (a 2-layer LSTM activity classifier, 9 sensor channels x 128 steps) into a
# C library, build it, run it on the bundled input and print the output.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLSTMC_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
ex=examples/har_lstm
./build/lstmc inspect $ex/model.onnx | head -5
./build/lstmc $ex/model.onnx --target=host --name=har -o build/har
make -s -C build/har
echo "generated: $(ls build/har | tr '\n' ' ')"
./build/har/har_run --print --output-dir build/har $ex/input.npy
./build/har/har_run --bench 200 --output-dir build/har $ex/input.npy
# the same library from firmware-style C: static arena, no heap
cc -O2 -Ibuild/har -Ibuild/har/runtime/include $ex/main.c build/har/libhar.a -lm -o build/har_demo
./build/har_demo
