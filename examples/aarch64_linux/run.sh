#!/bin/sh
# run.sh LSTMC WORK — the commands of README.md, as CI runs them (ctest example_aarch64_linux):
# compile the HAR model for the Jetson TX1's CPU, cross-build the library with the generated
# Makefile and this program with Debian's aarch64 gcc, and run it under qemu-aarch64 on the
# bundled window against ONNX Runtime's output for it (the pt_har_lstm fixture reference).
# Exits 77 (a ctest skip) when the cross compiler or qemu-user is not installed.
set -eu
lstmc=$1 work=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
ex=$root/examples/har_lstm
fix=$root/tests/fixtures/cases/pt_har_lstm
for tool in aarch64-linux-gnu-gcc aarch64-linux-gnu-ar aarch64-linux-gnu-nm qemu-aarch64; do
    command -v $tool >/dev/null 2>&1 || {
        echo "SKIP: $tool is not installed (sh scripts/deps.sh installs it)"
        exit 77
    }
done
# the reference belongs to the fixture's model and window: they must be the example's
cmp -s "$ex/model.onnx" "$fix/model.onnx" && cmp -s "$ex/input.npy" "$fix/inputs/input.npy" || {
    echo "run.sh: examples/har_lstm differs from the pt_har_lstm fixture" \
         "(regenerate both with tests/fixtures/make_fixtures.py)" >&2
    exit 1
}
rm -rf "$work"
mkdir -p "$work"

"$lstmc" "$ex/model.onnx" --target=tegra-x1-cpu --name=har -o "$work/har"
make -s -C "$work/har" CC=aarch64-linux-gnu-gcc AR=aarch64-linux-gnu-ar \
    CFLAGS="-O2 -Wall -Werror" libhar.a
aarch64-linux-gnu-gcc -O2 -Wall -Werror -static -I"$work/har" -I"$work/har/runtime/include" \
    "$root/examples/aarch64_linux/main.c" "$work/har/runtime/src/rt_npy.c" "$work/har/libhar.a" \
    -lm -o "$work/har_tx1"
# the recurrent layers run in LLVM's aarch64 kernels, not the portable C ones
aarch64-linux-gnu-nm "$work/har_tx1" | grep -q ' T har_k1$' || {
    echo "run.sh: har_tx1 does not contain the LLVM kernels (har_k*)" >&2
    exit 1
}
qemu-aarch64 "$work/har_tx1" "$ex/input.npy" "$fix/expected/probs.npy" --repeat 5
