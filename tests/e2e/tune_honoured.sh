#!/bin/sh
# tune_honoured.sh LSTMC NPYCMP SRC WORK — thresholds from a TUNED file are the library's
# defaults at run time: tests/e2e/drs/case compiled with --thresholds (row skip at the fixture's
# alpha_intra, no call to NAME_set_thresholds) must give the outputs of the independent numpy
# reference of Algorithm 3 (tests/e2e/drs/make_drs_fixture.py) at that alpha, which differ from
# the exact ones.
set -u
lstmc=$1 npycmp=$2 src=$3 work=$4
case=$src/tests/e2e/drs/case
fail() { echo "tune_honoured: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
read -r alpha cells total skipped < "$case/expected/counts.txt"
cat >"$work/m.tuned" <<EOT
lstmc-thresholds 1
# written by hand: what lstmc tune --vary=intra writes when set 5 of 0..0.56 is AO
vary intra
schedule approx
alpha_inter 0
alpha_intra $alpha
alpha_inter_max 0
alpha_intra_max 0.56
EOT
"$lstmc" run "$case/model.onnx" --thresholds="$work/m.tuned" --input "$case/x.npy" \
    --output-dir "$work/out" || fail "lstmc run --thresholds failed"
for f in Y Y_h Y_c; do
    "$npycmp" "$work/out/$f.npy" "$case/expected/$f.npy" ||
        fail "$f differs from the reference at alpha_intra $alpha"
done
# and without the thresholds the exact result, which is not the reference's
"$lstmc" run "$case/model.onnx" --input "$case/x.npy" --output-dir "$work/exact" ||
    fail "lstmc run failed"
"$npycmp" "$work/exact/Y.npy" "$case/expected/Y.npy" >/dev/null 2>&1 &&
    fail "the exact run matches the alpha $alpha reference: the test cannot tell"
echo "tune_honoured: ok (alpha_intra $alpha from TUNED)"
