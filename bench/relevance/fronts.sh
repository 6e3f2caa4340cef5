#!/bin/sh
# fronts.sh [OUT] — issue 24's speed-accuracy fronts: `lstmc tune` (every knob by default:
# the threshold sets with --relevance=sensitivity, the forced-breakpoint windows, every weights
# format and integer mode) on the trained models har, charlm and charlm512, at 1 thread and
# at lstmc's default threads, with an --accuracy 0.98 goal. Each run's table goes to
# OUT/<model>_t<threads>.txt (and its TUNED, .svg). Run it on a quiet machine: the speed-ups
# are medians of interleaved runs against lstmc's own exact fp32 at the same threads.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$here/build/fronts}
lstmc=${LSTMC:-$here/build/lstmc}
mkdir -p "$out"
for m in har charlm charlm512; do
    d=$here/tests/train/$m
    for t in 1 default; do
        th=
        [ "$t" = default ] || th=--threads=$t
        # shellcheck disable=SC2086
        "$lstmc" tune "$d/model.onnx" --data "$d/eval_x.npy" --labels "$d/eval_y.npy" \
            --accuracy 0.98 $th -o "$out/${m}_t$t.tuned" >"$out/${m}_t$t.txt" 2>"$out/${m}_t$t.log"
        echo "== $m, threads $t"
        grep -E '^\|' "$out/${m}_t$t.txt" | head -40
        grep -E '^N_min|^Held out' "$out/${m}_t$t.txt"
    done
done
