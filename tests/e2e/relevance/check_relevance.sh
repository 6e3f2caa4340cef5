#!/bin/sh
# check_relevance.sh LSTMC NPYCMP WORK MODE [LSTMC OPTION]... — issue 24's calibrated relevance
# against the numpy reference (make_relevance_fixture.py); MODE calibrated, sensitivity, or
# window (sensitivity at alpha 0 with the fixture's --max-sublayer):
#   1. lstmc calibrate on case/x_cal.npy writes the bound of U h the reference computes (um, ur
#      lines; rtol 1e-4, atol 1e-5);
#   2. the model compiled with --alpha-inter=0 --calib (that file) --relevance=MODE (plus the
#      options, e.g. --emit=c), run at alpha 0 (nothing cut: 2 sub-layers) and at the fixture's
#      alpha (alpha_check.c): the reference's sub-layer count, and its outputs with those links
#      cut (npycmp rtol 1e-4, atol 1e-5).
set -eu
lstmc=$1 npycmp=$2 work=$3 mode=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
case=$here/case
fail() { echo "check_relevance: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work/out"
"$lstmc" calibrate "$case/model.onnx" --data "$case/x_cal.npy" -o "$work/got.calib" \
    2>"$work/calibrate.err" || { cat "$work/calibrate.err" >&2; fail "lstmc calibrate failed"; }
grep '^u[mr] ' "$work/got.calib" > "$work/got_u.txt" || fail "no um / ur lines in the CALIB file"
awk 'NR == FNR { want[FNR] = $0; n = FNR; next }
     { split(want[FNR], w, " "); if (NF != split(want[FNR], w, " ") || $1 != w[1] || $2 != w[2]) {
           print "line " FNR ": " $1 " " $2 ", want " w[1] " " w[2]; bad = 1; next }
       for (i = 3; i <= NF; i++) { d = $i - w[i]; if (d < 0) d = -d; a = w[i] < 0 ? -w[i] : w[i]
           if (d > 1e-5 + 1e-4 * a) { print $1 " " $2 " value " i - 3 ": " $i ", want " w[i]; bad = 1 } } }
     END { if (FNR != n) { print "lines: " FNR ", want " n; bad = 1 } exit bad }' \
    "$case/expected/calib_u.txt" "$work/got_u.txt" >&2 || fail "calibrate's bound of U h is not the reference's"
if [ "$mode" = window ]; then # refusals: a CALIB file without the bound, and bad options
    sed -e '1s/.*/lstmc-calib 1/' -e '/^u[mr] /d' "$work/got.calib" > "$work/v1.calib"
    set +e
    "$lstmc" "$case/model.onnx" --alpha-inter=0 --calib="$work/v1.calib" \
        --relevance=sensitivity -o "$work/refused" 2>"$work/v1.err"
    rc=$?
    "$lstmc" "$case/model.onnx" --max-sublayer=4 -o "$work/refused" 2>/dev/null
    rc2=$?
    "$lstmc" "$case/model.onnx" --alpha-inter=0 --max-sublayer=0 -o "$work/refused" 2>/dev/null
    rc3=$?
    set -e
    [ $rc -eq 1 ] && grep -q "run lstmc calibrate again" "$work/v1.err" ||
        fail "a CALIB file of format 1 with --relevance=sensitivity: exit $rc, $(cat "$work/v1.err")"
    [ $rc2 -eq 2 ] && [ $rc3 -eq 2 ] || fail "bad --max-sublayer uses: exit $rc2, $rc3 (want 2)"
    [ ! -e "$work/refused" ] || fail "a refused compile wrote $work/refused"
fi
read -r alpha cells links subs maxrun < "$case/expected/$mode.txt"
case $mode in
window_*) set -- --weights="${mode#window_}" "$@" ;; # issue 24: tissues with fp16 / bf16 U
esac
case $mode in
window*)
    set -- --relevance=sensitivity --max-sublayer="$maxrun" "$@"
    ;;
*)
    set -- --relevance="$mode" "$@"
    ;;
esac
"$lstmc" "$case/model.onnx" --name=m --alpha-inter=0 --calib="$work/got.calib" "$@" \
    -o "$work/lib" >/dev/null
make -s -C "$work/lib" CFLAGS="${LSTMC_CFLAGS:--O2}" libm.a
${CC:-cc} -std=c99 ${LSTMC_CFLAGS:--O2} -I"$work/lib" -I"$work/lib/runtime/include" \
    "$here/../alpha_check.c" "$work/lib/runtime/src/rt_npy.c" "$work/lib/libm.a" -lm \
    -o "$work/alpha_check"
"$work/alpha_check" "$case/x.npy" "$work/out" "$alpha" inter > "$work/counts.txt"
cat "$work/counts.txt"
status=0
s0=2
case $mode in window*) s0=$subs ;; esac # the forced cuts do not wait for alpha
awk -v c="$cells" -v l="$links" -v s="$subs" -v s0="$s0" '
    NR == 1 && !($2 == c && $3 == l && $4 == s0) { print "alpha 0: " $0 " (want " c " " l " " s0 ")"; bad = 1 }
    NR == 2 && !($2 == c && $3 == l && $4 == s) { print "alpha: " $0 " (want " c " " l " " s ")"; bad = 1 }
    END { exit bad }' "$work/counts.txt" >&2 || status=1
for f in Y Y_h Y_c; do
    "$npycmp" "$work/out/$f.npy" "$case/expected/${mode}_$f.npy" || status=1
done
exit $status
