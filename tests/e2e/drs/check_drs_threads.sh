#!/bin/sh
# check_drs_threads.sh LSTMC NPYCMP WORK [LSTMC OPTION]... — issue 24: the LLVM DRS kernel on
# threads (units sliced, h double-buffered) gives the one-thread kernel's floats bit for bit:
# tests/e2e/drs/case compiled at the fixture's alpha_intra with --threads=1, 2 and 3 (plus the
# options, e.g. --weights=int8), run on its input, every output compared exactly.
set -eu
lstmc=$1 npycmp=$2 work=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
case=$here/case
rm -rf "$work"
mkdir -p "$work"
read -r alpha _ < "$case/expected/counts.txt"
for t in 1 2 3; do
    "$lstmc" "$case/model.onnx" --name=m --alpha-intra="$alpha" --threads=$t "$@" \
        -o "$work/t$t" >/dev/null
    make -s -C "$work/t$t" CFLAGS="${LSTMC_CFLAGS:--O2}" >/dev/null
    mkdir -p "$work/out$t"
    "$work/t$t/m_run" --output-dir "$work/out$t" "$case/x.npy" >/dev/null
done
# the DRS layer's kernel meets at the pool's barrier once per step (the only one that does here)
grep -q lstmc_rt_pool_barrier "$work/t2/m_kernels.o" ||
    { echo "the --threads=2 library's DRS kernel does not run on threads" >&2; exit 1; }
status=0
for t in 2 3; do
    for f in Y Y_h Y_c; do
        "$npycmp" "$work/out$t/$f.npy" "$work/out1/$f.npy" 0 0 ||
            { echo "$t threads: $f differs from one thread's" >&2; status=1; }
    done
done
exit $status
