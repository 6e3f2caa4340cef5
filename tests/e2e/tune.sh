#!/bin/sh
# tune.sh LSTMC SRC WORK — lstmc tune end to end on the trained HAR model (tests/train/har):
# it writes TUNED, the table, the SVG plot and the calibration; the thresholds it reports
# compile in with --thresholds and appear as the generated defaults; bad options are refused;
# an interrupted tune writes nothing.
set -u
lstmc=$1 src=$2 work=$3
har=$src/tests/train/har
fail() { echo "tune: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"

"$lstmc" tune "$har/model.onnx" --data "$har/eval_x.npy" --labels "$har/eval_y.npy" \
    --accuracy 0.98 --reps 1 -o "$work/har.tuned" >"$work/stdout" 2>"$work/stderr" ||
    { cat "$work/stderr"; fail "lstmc tune failed"; }
for f in har.tuned har.tuned.txt har.tuned.svg har.tuned.calib; do
    [ -s "$work/$f" ] || fail "$f not written"
done
head -1 "$work/har.tuned" | grep -qx 'lstmc-thresholds 1' || fail "TUNED has no magic line"
grep -q '^| 10' "$work/stdout" || fail "the table of 11 sets is not on stdout"
grep -q 'Held out (60 samples)' "$work/stdout" || fail "no held-out line (200 samples, 0.3)"
grep -q '^<svg' "$work/har.tuned.svg" || fail "the plot is not SVG"
grep -q '\[11/11\]' "$work/stderr" || fail "no progress lines on stderr"
# N_min = ceil(128 / MTS 8) = 16 on the host (MTS unknown: the breakpoints pass's default 8)
grep -q 'N_min = ceil(128 / 8) = 16' "$work/stderr" || fail "N_min is not 16"

# the exact model's held-out accuracy: ONNX Runtime 1.23.2 (onnxruntime-node) classifies 56
# of the held-out samples 140..199 of tests/train/har/eval_x.npy correctly (0.9333)
grep -q 'Held out (60 samples): exact 0.9333' "$work/stdout" ||
    fail "the exact model's held-out accuracy is not ONNX Runtime's 56/60"

# compile with the tuned thresholds: the range and the AO values become the defaults
"$lstmc" "$har/model.onnx" --thresholds="$work/har.tuned" --name=har -o "$work/lib" ||
    fail "compiling with --thresholds failed"
max=$(awk '$1 == "alpha_inter_max" { print $2 }' "$work/har.tuned")
grep -q "define HAR_ALPHA_INTER_MAX" "$work/lib/har.h" || fail "no HAR_ALPHA_INTER_MAX"
got=$(awk '$2 == "HAR_ALPHA_INTER_MAX" { print $3 }' "$work/lib/har.h" | tr -d 'f')
awk -v a="$got" -v b="$max" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-3 * b) }' ||
    fail "HAR_ALPHA_INTER_MAX $got is not TUNED's $max"

# refused: bad accuracy, missing data, both --thresholds and --alpha-inter, a bad TUNED
"$lstmc" tune "$har/model.onnx" --data "$har/eval_x.npy" --accuracy 1.5 -o "$work/x" \
    2>/dev/null; [ $? -eq 2 ] || fail "--accuracy 1.5 was not a usage error"
"$lstmc" tune "$har/model.onnx" --data "$work/missing.npy" --accuracy 0.9 -o "$work/x" \
    2>"$work/err"; [ $? -eq 1 ] || fail "missing data did not exit 1"
grep -q 'missing.npy' "$work/err" || fail "the message does not name the missing file"
"$lstmc" "$har/model.onnx" --thresholds="$work/har.tuned" --alpha-inter=1 -o "$work/y" \
    2>/dev/null; [ $? -eq 2 ] || fail "--thresholds with --alpha-inter was accepted"
echo "garbage" >"$work/bad.tuned"
"$lstmc" "$har/model.onnx" --thresholds="$work/bad.tuned" -o "$work/y" 2>"$work/err" &&
    fail "a bad TUNED file was accepted"
grep -q 'bad.tuned' "$work/err" || fail "the message does not name the bad TUNED file"
[ ! -e "$work/y" ] || fail "a failed compile left an output folder"

# interrupted: exit 130, no TUNED, no work folder left in TMPDIR
mkdir -p "$work/tmp"
TMPDIR="$work/tmp" "$lstmc" tune "$har/model.onnx" --data "$har/eval_x.npy" \
    --accuracy 0.98 --reps 3 -o "$work/int.tuned" >/dev/null 2>"$work/int.err" &
pid=$!
sleep 3
kill -s INT $pid
wait $pid
st=$?
[ $st -eq 130 ] || fail "an interrupted tune exited $st, not 130"
grep -q 'interrupted; nothing written' "$work/int.err" || fail "no 'interrupted' message"
[ ! -e "$work/int.tuned" ] || fail "an interrupted tune wrote TUNED"
[ -z "$(ls -A "$work/tmp")" ] || fail "an interrupted tune left $(ls "$work/tmp")"
echo "tune: ok"
