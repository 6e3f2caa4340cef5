#!/bin/sh
# check_drs.sh LSTMC NPYCMP WORK [LSTMC OPTION]... — issue 6's alpha_intra > 0 test: compile
# tests/e2e/drs/case/model.onnx with --alpha-intra=0 (plus the options, e.g. --emit=c or
# --alpha-inter=0 for DRS inside tissues, --weights=FMT for the reference with W and R rounded
# to FMT), run it at alpha 0 and at the fixture's alpha set
# per run (alpha_check.c), and compare the skipped-row counts and the outputs with the numpy
# reference of Algorithm 3 (make_drs_fixture.py; npycmp rtol 1e-4, atol 1e-5).
set -eu
lstmc=$1 npycmp=$2 work=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
case=$here/case
rm -rf "$work"
mkdir -p "$work/out"
"$lstmc" "$case/model.onnx" --name=m --alpha-intra=0 "$@" -o "$work/lib" >/dev/null
make -s -C "$work/lib" CFLAGS="${LSTMC_CFLAGS:--O2}" libm.a
${CC:-cc} -std=c99 ${LSTMC_CFLAGS:--O2} -I"$work/lib" -I"$work/lib/runtime/include" \
    "$here/../alpha_check.c" "$work/lib/runtime/src/rt_npy.c" "$work/lib/libm.a" -lm \
    -o "$work/alpha_check"
exp=$case/expected # issue 24: --weights=FMT compares with the reference of rounded weights
for o in "$@"; do
    case $o in --weights=*) exp=$case/expected/${o#--weights=} ;; esac
done
read -r alpha cells total skipped < "$exp/counts.txt"
"$work/alpha_check" "$case/x.npy" "$work/out" "$alpha" intra > "$work/counts.txt"
cat "$work/counts.txt"
status=0
# alpha 0: nothing skipped; alpha: the reference's cells, rows and skipped rows
awk -v c="$cells" -v t="$total" -v s="$skipped" '
    NR == 1 && !($2 == c && $3 == t && $4 == 0) { print "alpha 0: " $0 " (want " c " " t " 0)"; bad = 1 }
    NR == 2 && !($2 == c && $3 == t && $4 == s) { print "alpha: " $0 " (want " c " " t " " s ")"; bad = 1 }
    END { exit bad }' "$work/counts.txt" >&2 || status=1
for f in Y Y_h Y_c; do
    "$npycmp" "$work/out/$f.npy" "$exp/$f.npy" || status=1
done
exit $status
