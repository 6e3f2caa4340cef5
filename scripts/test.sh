#!/bin/sh
# test.sh — every test: install what is missing, then build and run the unit (Criterion)
# and end-to-end (ctest) suites twice: a normal -Werror build, and one under
# AddressSanitizer + UndefinedBehaviorSanitizer (the generated libraries are built with the
# sanitizers too).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
jobs=$(nproc)
# The tests build thousands of generated libraries, each with the same runtime sources
# (lstmc run, the e2e scripts, the Makefiles they drive): ccache's masquerade folder in front
# of PATH compiles each runtime file once per flag set. The cache lives in the build folder,
# so a run reuses nothing from an earlier one; hash_dir off, since every library is built in
# a fresh temporary folder; the runtime's copies are new files, hence the mtime sloppiness.
ccache_env() {
    if [ -x /usr/lib/ccache/cc ]; then
        export PATH="/usr/lib/ccache:$PATH" CCACHE_DIR="$PWD/$1/ccache" CCACHE_NOHASHDIR=1 \
            CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime,time_macros
    fi
}
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLSTMC_WERROR=ON >/dev/null
cmake --build build-test -j"$jobs"
(ccache_env build-test && cd build-test && ctest --output-on-failure -j"$jobs")
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DLSTMC_WERROR=ON -DLSTMC_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
# LSTMC_BLOB_MIN=1: every constant is a blob (compiler/core/ir_data.c), shared by the programs
# and sealed, so a stage that writes a shared constant in place faults here
(ccache_env build-asan && cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 LSTMC_BLOB_MIN=1 \
    ctest --output-on-failure -j"$jobs")
# the fuzz targets, 15 s each (clang-19 + libFuzzer, ASan + UBSan; CI stays under 20 min):
# fuzz/run.sh
sh fuzz/run.sh 15
