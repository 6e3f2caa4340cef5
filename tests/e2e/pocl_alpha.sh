#!/bin/sh
# pocl_alpha.sh LSTMC NPYCMP SRC WORK SAMPLE [LSTMC OPTION]...
# The approximate schedules on PoCL against the C runtime (issue 7): the trained HAR model
# (tests/train/har) on eval sample SAMPLE, run by `lstmc run` three times:
#   exact      no option: the plain schedule;
#   c          the options (e.g. --alpha-inter=510.5 --calib, --alpha-intra=0.1) with
#              --emit=c: the C runtime kernels (rt_tissue.c / rt_drs.c), the reference;
#   pocl       the same options with --target=pocl: the OpenCL kernels.
# pocl must match c (npycmp's rtol 1e-4, atol 1e-5), and c must differ from exact, so the
# options really cut links / skip rows (a test that cannot pass by running the exact
# schedule). The calibration (h_pred / c_pred, Eq. 6) is made from the eval set when an
# option names @CALIB@.
set -eu
lstmc=$1 npycmp=$2 src=$3 work=$4 k=$5
shift 5
har=$src/tests/train/har
fail() { echo "pocl_alpha: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"

# sample k of eval_x.npy [200, 1, 128, 9] as its own [1, 128, 9] file (header 128 bytes)
head -c 128 "$har/eval_x.npy" | sed 's/(200, 1, 128, 9), }/(1, 128, 9), }     /' >"$work/x.npy"
tail -c +$((129 + k * 4608)) "$har/eval_x.npy" | head -c 4608 >>"$work/x.npy"
[ "$(wc -c <"$work/x.npy")" -eq 4736 ] || fail "cannot cut sample $k out of eval_x.npy"

opts=
for o in "$@"; do
    case $o in
    *@CALIB@*)
        "$lstmc" calibrate "$har/model.onnx" --data "$har/eval_x.npy" -o "$work/har.calib" \
            >/dev/null 2>&1 || fail "lstmc calibrate failed"
        o=$(echo "$o" | sed "s|@CALIB@|$work/har.calib|")
        ;;
    esac
    opts="$opts $o"
done
run() {
    out=$1
    shift
    "$lstmc" run "$har/model.onnx" --input "x=$work/x.npy" "$@" --output-dir "$work/$out" \
        >"$work/$out.log" 2>&1 || { cat "$work/$out.log"; fail "lstmc run $* failed"; }
}
run exact
# shellcheck disable=SC2086
run c $opts --emit=c
# shellcheck disable=SC2086
run pocl $opts --target=pocl
"$npycmp" "$work/pocl/y.npy" "$work/c/y.npy" || fail "PoCL differs from the C runtime"
if "$npycmp" "$work/c/y.npy" "$work/exact/y.npy" >/dev/null 2>&1; then
    fail "the options$opts change nothing: the test would not see a wrong approximation"
fi
echo "pocl_alpha: PoCL matches the C runtime with$opts"
