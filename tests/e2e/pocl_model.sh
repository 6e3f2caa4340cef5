#!/bin/sh
# pocl_model.sh LSTMC NPYCMP FIXTURES WORK — the cost-model policy (LSTMC_OCL_POLICY=model,
# issue 7) on PoCL with a split placement. For each (case, launch_us) below, a profile with
# that launch overhead, a device far faster than the CPU (1e6 vs 1 GFLOP/s) places a call
# on the CPU exactly when its flops take less than launch_us there: G1 and the time loop
# land on different sides, so the tensor between them (P) crosses over:
#   lstm_larger_h16 at 25 us            G1 on the CPU (20.5 us), time loop on the device
#                                       (32.8 us): P is uploaded before the loop;
#   lstm_bidir_peephole_seqlens at 2 us G1 on the device (2.3 us), time loop on the CPU
#                                       (1.7 us): P is read back before the loop.
# The generated comment table must show the split, and the outputs must match the ONNX
# Runtime references (run_case.sh) under the model policy.
set -eu
lstmc=$1 npycmp=$2 fix=$3 work=$4
e2e=$(cd "$(dirname "$0")" && pwd)
fail() { echo "pocl_model: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
for pair in lstm_larger_h16:25 lstm_bidir_peephole_seqlens:2; do
    c=${pair%%:*} us=${pair#*:}
    cat >"$work/$c.json" <<EOF
{"name": "split_$us", "gpu": {"name": "PoCL (cost-model test)", "opencl_device": "cpu",
 "work_group": 64, "launch_us": $us, "gflops": 1000000}, "cpu": {"gflops": 1}}
EOF
    "$lstmc" "$fix/$c/model.onnx" --target="$work/$c.json" -o "$work/$c.lib" >/dev/null ||
        fail "$c: compiling with the split profile failed"
    tbl=$work/$c.lib/model_ocl.c
    if [ "$(grep -c 'rnn_proj): .*-> CPU' "$tbl")" = "$(grep -c 'rnn_rec): .*-> CPU' "$tbl")" ]; then
        fail "$c: the cost model did not split G1 and the time loop at $us us"
    fi
    LSTMC_OCL_POLICY=model sh "$e2e/run_case.sh" "$lstmc" "$npycmp" "$fix/$c" "$work/$c.run" \
        --target="$work/$c.json" || fail "$c: wrong outputs under the model policy"
done
echo "pocl_model: split placements match the references"
