#!/bin/sh
# cli.sh LSTMC SPARSE_CASES FIXTURE_CASES WORK — the sparse-weight options (passes/sparse.c):
# --sparse=auto stores a pruned model's W and U in eSELL where that is faster than the dense
# kernels of the build, and leaves a dense model alone;
# bad --prune / --sparse / --hsparse values exit 2 (usage errors, found before the model is
# read), and the combinations the eSELL kernels do not cover exit with status 1 and a message
# naming what is wrong.
set -u
lstmc=$1 cases=$2 fix=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
fail=0

# expect CODE SUBSTRING ARGS...: lstmc exits CODE and its stderr holds SUBSTRING
expect() {
    code=$1 want=$2
    shift 2
    "$lstmc" "$@" >"$work/out" 2>"$work/err"
    got=$?
    if [ "$got" != "$code" ] || ! grep -qF -- "$want" "$work/err"; then
        echo "FAIL: lstmc $* -> exit $got (want $code), stderr:" >&2
        cat "$work/err" >&2
        fail=1
    fi
}

# count_esell OUTDIR: calls with eSELL weights in the generated schedule
count_esell() {
    grep -c 'packed = 2' "$1/model.c"
}

# check_auto WANT ARGS...: compiling with ARGS puts WANT calls on eSELL weights
check_auto() {
    want=$1
    shift
    rm -rf "$work/auto"
    "$lstmc" "$@" --name=model -o "$work/auto" >/dev/null 2>&1 || fail=1
    n=$(count_esell "$work/auto")
    [ "$n" = "$want" ] || { echo "FAIL: lstmc $*: $n eSELL calls, want $want" >&2; fail=1; }
}
# two LSTM nodes (the first bidirectional): W (RnnProj) and U (RnnRec) of each in eSELL
# with the portable C kernels (96 % zeros >= 95 %); the LLVM kernels stay dense (faster)
check_auto 4 "$cases/pruned_w96_u96/model.onnx" --emit=c
check_auto 0 "$cases/pruned_w96_u96/model.onnx" --emit=llvm
check_auto 4 "$cases/pruned_w96_u96/model.onnx" --emit=llvm --sparse=auto:0.9
check_auto 0 "$cases/pruned_w96_u96/model.onnx" --emit=c --sparse=off
check_auto 0 "$cases/prune_w30_u50/model.onnx" --emit=c
# U (50 % zeros) passes auto:0.45, W (30 %) does not
check_auto 2 "$cases/prune_w30_u50/model.onnx" --prune=W:0.3,U:0.5 --sparse=auto:0.45

# the elstm target plans with the pruned weights: Sp_w, Sp_u (exact zeros) in elstm.txt
"$lstmc" "$fix/pt_har_lstm/model.onnx" --target=elstm --prune=W:0.5,U:0.75 -o "$work/elstm" \
    >/dev/null 2>&1 || fail=1
n=$(grep -c 'Spw 0.500 Spu 0.750' "$work/elstm/elstm.txt")
[ "$n" = 2 ] || { echo "FAIL: --target=elstm --prune: $n layers at Spw 0.5 Spu 0.75, want 2" >&2; fail=1; }

m="$cases/prune_w30_u50/model.onnx"
expect 2 "--prune takes W:F,U:F" "$m" -o "$work/x" --prune=X:0.3
expect 2 "--prune takes W:F,U:F" "$m" -o "$work/x" --prune=W:1.5
expect 2 "--prune takes W:F,U:F" "$m" -o "$work/x" --prune=W:0.3,
expect 2 "--prune takes W:F,U:F" "$m" -o "$work/x" --prune=W:abc
expect 2 "twice" "$m" -o "$work/x" --prune=U:0.3,R:0.2
# a bad value is a usage error found before the model is read (the model need not exist)
expect 2 "--prune takes W:F,U:F" "$work/no-such-model.onnx" -o "$work/x" --prune=W:2
expect 2 "--sparse takes auto, auto:F" "$work/no-such-model.onnx" -o "$work/x" --sparse=x
expect 2 "--hsparse takes thresholds >= 0" "$work/no-such-model.onnx" -o "$work/x" --hsparse=0.1,x
expect 2 "--hsparse needs at least one threshold" "$m" -o "$work/x" --hsparse=
expect 1 "no LSTM, GRU or RNN layer" "$fix/op_gemm/model.onnx" -o "$work/x" --prune=W:0.3
expect 2 "--sparse takes auto, auto:F" "$m" -o "$work/x" --sparse=dense
expect 2 "--sparse takes auto, auto:F" "$m" -o "$work/x" --sparse=auto:2
expect 1 "--sparse=esell does not combine with --alpha-inter / --alpha-intra" \
    "$m" -o "$work/x" --sparse=esell --alpha-inter=0.1
expect 1 "--sparse=esell does not combine with --alpha-inter / --alpha-intra" \
    "$m" -o "$work/x" --sparse=esell --alpha-intra=0.1
expect 1 "the GRU's U h is split around the reset gate" \
    "$fix/gru_fwd_lbr1/model.onnx" -o "$work/x" --sparse=esell
expect 1 "it needs the split_gates pass" "$m" -o "$work/x" --sparse=esell \
    --disable-pass=split_gates
expect 1 "does not combine with the OpenCL target 'pocl'" "$m" -o "$work/x" --sparse=esell \
    --target=pocl
exit $fail
