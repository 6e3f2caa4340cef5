#!/bin/sh
# fuzz/run.sh [SECONDS] — build the libFuzzer harnesses (clang-19, ASan + UBSan, in
# build-fuzz/) and run each target for SECONDS (default 60) from its seed corpus, the three
# side by side.
#
#   fuzz_onnx  fuzz/corpus/onnx  ONNX import → prepare → passes → verify → lower → memplan
#   fuzz_npy   fuzz/corpus/npy   the .npy reader
#   fuzz_text  fuzz/corpus/text  the JSON target-profile and calibration-file readers
#
# New inputs go to build-fuzz/corpus/<target> (the committed seeds stay as they are). The
# reproducers of past findings (tests/bad/fuzz/) are seeds too, so each run replays them
# under clang's sanitizers (gcc's UBSan misses some, e.g. memcpy from NULL).
# Exits non-zero when any target finds a crash, a sanitizer report, a leak, a timeout
# (FUZZ_TIMEOUT, default 20 s for one input) or an RSS above FUZZ_RSS_MB (default 2048);
# the input is saved as fuzz/crashes/<target>-<kind>-<sha1>. Replay one with
#   build-fuzz/fuzz/fuzz_onnx fuzz/crashes/FILE      (FUZZ_VERBOSE=1 says how far it got)
# Logs: build-fuzz/fuzz_<target>.log. LSTMC_FUZZ_CC overrides the compiler (clang-19).
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
cc=${LSTMC_FUZZ_CC:-clang-19}
command -v "$cc" >/dev/null 2>&1 || sh scripts/deps.sh
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DLSTMC_SANITIZE=ON -DLSTMC_FUZZ=ON -DLSTMC_TESTS=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_onnx fuzz_npy fuzz_text >/dev/null
mkdir -p fuzz/crashes
# the three targets side by side (CI time: they share the machine's cores), reported in turn
fuzz_one() {
    t=$1
    case $t in
    onnx) max_len=8192 dict="-dict=fuzz/onnx.dict" regress=tests/bad/fuzz ;;
    npy) max_len=4096 dict="" regress="" ;;
    text) max_len=4096 dict="" regress="" ;;
    esac
    work=build-fuzz/corpus/$t
    log=build-fuzz/fuzz_$t.log
    mkdir -p "$work"
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "build-fuzz/fuzz/fuzz_$t" "$work" "fuzz/corpus/$t" $regress -max_total_time="$secs" \
        -max_len="$max_len" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
        -timeout="${FUZZ_TIMEOUT:-20}" -artifact_prefix="fuzz/crashes/$t-" \
        -print_final_stats=1 $dict >"$log" 2>&1
}
for t in onnx npy text; do
    echo "fuzz_$t: ${secs}s" >&2
    fuzz_one "$t" &
    eval "pid_$t=\$!"
done
status=0
for t in onnx npy text; do
    eval "pid=\$pid_$t"
    log=build-fuzz/fuzz_$t.log
    if wait "$pid"; then
        grep -E "^#[0-9]+[[:space:]]+DONE" "$log" | tail -1 >&2 || true
        grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$log" >&2 || true
    else
        status=1
        echo "fuzz_$t: FAILED (log: $log)" >&2
        tail -60 "$log" >&2
    fi
done
exit $status
