#!/bin/sh
# example_host.sh LSTMC NPYCMP SRC WORK — the README's host example (scripts/example.sh) as CI
# runs it: compile examples/har_lstm for the host, build the library with its Makefile, run
# the driver on the bundled window and compare with ONNX Runtime's output for it (the
# pt_har_lstm fixture reference: the example's model and input are that fixture's), then
# build examples/har_lstm/main.c (static arena, no heap) and check what it prints.
set -u
lstmc=$1 npycmp=$2 src=$3 work=$4
ex=$src/examples/har_lstm
fix=$src/tests/fixtures/cases/pt_har_lstm
fail() { echo "example_host: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work/out"
cmp -s "$ex/model.onnx" "$fix/model.onnx" && cmp -s "$ex/input.npy" "$fix/inputs/input.npy" ||
    fail "examples/har_lstm differs from the pt_har_lstm fixture"
"$lstmc" "$ex/model.onnx" --target=host --name=har -o "$work/har" >/dev/null ||
    fail "compile failed"
make -s -C "$work/har" CFLAGS="${LSTMC_CFLAGS:--O2}" || fail "make failed"
"$work/har/har_run" --output-dir "$work/out" "$ex/input.npy" || fail "har_run failed"
"$npycmp" "$work/out/probs.npy" "$fix/expected/probs.npy" ||
    fail "the example's output differs from ONNX Runtime's"
${CC:-cc} ${LSTMC_CFLAGS:--O2} -I"$work/har" -I"$work/har/runtime/include" "$ex/main.c" \
    "$work/har/libhar.a" -lm -o "$work/har_demo" || fail "building main.c failed"
"$work/har_demo" >"$work/demo.txt" || fail "the demo failed"
cat "$work/demo.txt"
# six class probabilities (a softmax) that sum to 1, and the argmax it names
awk '/class probabilities:/ { n = 0; s = 0; best = 2; for (i = NF - 5; i <= NF; i++) {
         s += $i; n++; if ($i > mx || n == 1) { mx = $i; best = n - 1 } }
         if (n != 6 || s < 0.999 || s > 1.001) exit 1; want = best }
     /most likely class:/ { got = $NF }
     END { exit !(want == got) }' "$work/demo.txt" ||
    fail "main.c did not print six probabilities summing to 1 and their argmax"
echo "example_host: ok"
