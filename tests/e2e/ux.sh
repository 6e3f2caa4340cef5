#!/bin/sh
# ux.sh LSTMC NPYCMP SRC WORK — issue 19, points 5 and 6: what users run into.
#  - A PyTorch export whose only symbolic dim is the batch compiles without --dim as batch 1,
#    with a note, and its NAME_run gives the PyTorch/ONNX Runtime reference (batch_first LSTM;
#    seq-first tokens through an embedding into a GRU: the batch is axis 1).
#  - lstmc calibrate with --data [N, T, C] (no batch axis) writes the same CALIB as with
#    [N, 1, T, C], and its means of h_t are PyTorch's (calib_hmean.txt, make_fixtures.py);
#    lstmc tune takes [N, T, C] too.
#  - NAME_run takes its inputs by ONNX name (--input NAME=FILE.npy, in any order) as well as
#    by position; an unknown name is a usage error naming the inputs.
#  - lstmc --help lists profile, and --parallel's entry gives its own default.
set -u
lstmc=$1 npycmp=$2 src=$3 work=$4
fix=$src/tests/fixtures/cases
fail() { echo "ux: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
cflags="-O2 ${LSTMC_CFLAGS:-}"

# compare every expected output of case $1 with the files in folder $2
same_outputs() {
    for want in "$fix/$1"/expected/*.npy; do
        "$npycmp" "$2/$(basename "$want")" "$want" || fail "$1: $(basename "$want") differs"
    done
}

# 1. a symbolic batch compiles as batch 1, with a note; the reference at batch 1
for spec in "pt_ux_batch_lstm:input 'x': dim 0 ('batch_size') is the batch" \
    "pt_ux_batch_gru_seqfirst:input 'tokens': dim 1 ('N') is the batch"; do
    c=${spec%%:*} note=${spec#*:}
    "$lstmc" "$fix/$c/model.onnx" --name=m -o "$work/$c" 2>"$work/$c.err" ||
        { cat "$work/$c.err"; fail "$c: a model whose only symbolic dim is the batch is refused"; }
    grep -qF "note: $note" "$work/$c.err" || { cat "$work/$c.err"; fail "$c: no note '$note'"; }
    grep -qF "compiled with batch 1" "$work/$c.err" || fail "$c: the note does not say batch 1"
    make -s -C "$work/$c" CFLAGS="$cflags" >/dev/null || fail "$c: make failed"
    mkdir -p "$work/$c.out"
    "$work/$c/m_run" --output-dir "$work/$c.out" "$fix/$c/$(cut -f2 "$fix/$c/inputs.txt")" ||
        fail "$c: m_run failed"
    same_outputs "$c" "$work/$c.out"
done

# 2. calibrate: [N, T, C] is read as N samples of batch 1, the same as [N, 1, T, C]
c=$fix/pt_ux_batch_lstm
(cd "$c" && "$lstmc" calibrate model.onnx --data calib_x.npy -o "$work/ntc.calib") \
    2>"$work/ntc.err" || { cat "$work/ntc.err"; fail "calibrate refuses [N, T, C] data"; }
(cd "$c" && "$lstmc" calibrate model.onnx --data calib_x4.npy -o "$work/n1tc.calib") \
    2>"$work/n1tc.err" || { cat "$work/n1tc.err"; fail "calibrate refuses [N, 1, T, C] data"; }
grep -v '^#' "$work/ntc.calib" >"$work/ntc.body"
grep -v '^#' "$work/n1tc.calib" >"$work/n1tc.body"
cmp -s "$work/ntc.body" "$work/n1tc.body" || fail "the CALIB of [N, T, C] differs from [N, 1, T, C]"
grep -q '^layer 1 10 192 ' "$work/ntc.calib" || fail "not 16 samples x 12 steps = 192 cells"
# the means of h_t over the 192 cells, per unit, as PyTorch computes them
grep '^h 0 ' "$work/ntc.calib" | cut -d' ' -f3- >"$work/h.got"
awk 'NR == FNR { for (i = 1; i <= NF; i++) want[i] = $i; n = NF; next }
     { if (NF != n) exit 1
       for (i = 1; i <= NF; i++) { d = $i - want[i]; if (d < 0) d = -d
                                   if (d > 1e-5) { print "unit " i ": " $i " vs " want[i]; exit 1 } } }' \
    "$c/calib_hmean.txt" "$work/h.got" || fail "calibrate's means of h_t are not PyTorch's"
# tune takes [N, T, C] as well
"$lstmc" tune "$c/model.onnx" --data "$c/calib_x.npy" --accuracy 0.9 --reps 1 \
    -o "$work/ntc.tuned" >"$work/tune.out" 2>"$work/tune.err" ||
    { cat "$work/tune.err"; fail "tune refuses [N, T, C] data"; }
head -1 "$work/ntc.tuned" | grep -qx 'lstmc-thresholds 1' || fail "tune wrote no TUNED"
# a sample with two dims fewer than the input is refused, saying what is expected
"$lstmc" calibrate "$c/model.onnx" --data "$fix/op_gemm/inputs/A.npy" \
    -o "$work/bad.calib" 2>"$work/bad.err" && fail "calibrate takes [4, 3] for [batch, 12, 6]"
grep -qF "without the batch axis" "$work/bad.err" || { cat "$work/bad.err"; fail "no hint"; }

# 3. NAME_run: inputs by name, in any order, or by position; unknown names refused
c=lstm_bidir_init
"$lstmc" "$fix/$c/model.onnx" --name=m -o "$work/$c" 2>/dev/null || fail "$c: compile failed"
make -s -C "$work/$c" CFLAGS="$cflags" >/dev/null || fail "$c: make failed"
mkdir -p "$work/byname" "$work/mixed"
set --
while IFS='	' read -r name file; do
    set -- --input "$name=$fix/$c/$file" "$@" # reversed: the last input first
done <"$fix/$c/inputs.txt"
"$work/$c/m_run" --output-dir "$work/byname" "$@" || fail "m_run --input NAME=FILE failed"
same_outputs "$c" "$work/byname"
# by name and by position together: the positional files fill the others in graph order
"$work/$c/m_run" --output-dir "$work/mixed" --input=initial_c="$fix/$c/inputs/initial_c.npy" \
    "$fix/$c/inputs/X.npy" "$fix/$c/inputs/initial_h.npy" || fail "m_run with both forms failed"
same_outputs "$c" "$work/mixed"
"$work/$c/m_run" --input nope="$fix/$c/inputs/X.npy" 2>"$work/nope.err"
[ $? -eq 2 ] || fail "m_run --input with an unknown name: exit status is not 2"
grep -qF "the model has no input of that name" "$work/nope.err" || fail "no message for nope"
grep -qF "'initial_h'" "$work/nope.err" || fail "the message does not list the inputs"
"$work/$c/m_run" --input X="$fix/$c/inputs/X.npy" 2>"$work/missing.err"
[ $? -eq 2 ] || fail "m_run with an input missing: exit status is not 2"
grep -qF "no data for input 'initial_h'" "$work/missing.err" || fail "no message for the missing"
grep -qF -- "--input NAME=FILE.npy" "$work/missing.err" || fail "the usage does not give --input"

# 4. lstmc --help
"$lstmc" --help >"$work/help.txt" 2>&1 || fail "lstmc --help failed"
grep -q '^  lstmc profile ' "$work/help.txt" || fail "lstmc --help does not list profile"
awk '/--parallel=/ { p = 1; next } /^  --/ { p = 0 } p && /default: llvm/ { exit 1 }' \
    "$work/help.txt" || fail "--parallel's help entry gives --emit's default"
awk '/--parallel=/ { p = 1; next } /^  --/ { p = 0 } p && /default: auto/ { f = 1 } END { exit !f }' \
    "$work/help.txt" || fail "--parallel's help entry does not give its default"
echo "ux: OK"
