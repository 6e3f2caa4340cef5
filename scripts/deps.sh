#!/bin/sh
# deps.sh — install the Debian packages lstmc needs to build and test, if any is missing.
# Runs apt-get as root (directly, or through sudo when not root).
set -eu
pkgs="build-essential cmake make libprotobuf-c-dev protobuf-c-compiler libonnx-dev libcriterion-dev libcjson-dev llvm-19-dev clang-19 libclang-rt-19-dev valgrind ocl-icd-opencl-dev opencl-headers pocl-opencl-icd"
# the tests' builds of the generated libraries, each file once per run (scripts/test.sh)
pkgs="$pkgs ccache"
# numpy for the e2e scripts that score the trained models (precision_*.py, qact_*.py, kparams_int.py)
pkgs="$pkgs python3-numpy"
# Arm cross builds run under user-mode emulation (tests/cross, examples/aarch64_linux)
pkgs="$pkgs qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-arm-linux-gnueabihf libc6-dev-armhf-cross"
# bare-metal Cortex-M firmware under system emulation (examples/cortex_m)
pkgs="$pkgs gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps.sh: installing$missing" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >&2
$sudo apt-get install -y -q --no-install-recommends $missing >&2
