#!/bin/sh
# tsan.sh LSTMC NPYCMP SOURCE_DIR WORK_DIR — ThreadSanitizer on the thread pool (issue 4):
#  1. tests/unit/test_rt_pool.c (slices, barrier, wavefront hand-over) built with
#     -fsanitize=thread (with tsan_shim/ for Criterion's header) and run;
#  2. a stacked fixture compiled with the wavefront on 2 threads and run with its host code,
#     runtime and pool under -fsanitize=thread (the LLVM kernels are object code TSan cannot
#     instrument: this checks the pool's own synchronisation and everything around it),
#     compared with the references.
# Exits 77 (a ctest skip) when the compiler cannot link a -fsanitize=thread program.
set -eu
lstmc=$1 npycmp=$2 src=$3 work=$4
cc=${CC:-cc}
rm -rf "$work"
mkdir -p "$work"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_signal_unsafe=0"
echo 'int main(void) { return 0; }' > "$work/probe.c"
if ! $cc -fsanitize=thread -o "$work/probe" "$work/probe.c" 2>/dev/null || ! "$work/probe"; then
    echo "SKIP: $cc cannot build or run a -fsanitize=thread program"
    exit 77
fi
# Criterion does not start under TSan: tsan_shim/ stands in for its header
$cc -std=c11 -O1 -g -fsanitize=thread -D_POSIX_C_SOURCE=200809L -I"$src/tests/e2e/tsan_shim" \
    -I"$src/runtime/include" -o "$work/test_rt_pool" "$src/tests/unit/test_rt_pool.c" -pthread
"$work/test_rt_pool"
LSTMC_CFLAGS="-g -fsanitize=thread" sh "$src/tests/e2e/run_case.sh" "$lstmc" "$npycmp" \
    "$src/tests/fixtures/cases/pt_lstm3_batchfirst" "$work/wave" --threads=2 --parallel=wave
