#!/bin/sh
# check_object.sh LSTMC ELFCHECK MODEL WORK TARGET KIND
# Compiles MODEL for the target profile TARGET and checks with elfcheck that the LLVM object
# NAME_kernels.o is a valid KIND (aarch64, armv7, cortex-m) object defining every kernel
# the generated host C (NAME.c) calls. Needs no cross tools: LLVM writes the object.
set -eu
lstmc=$1 elfcheck=$2 model=$3 work=$4 target=$5 kind=$6
rm -rf "$work"
"$lstmc" "$model" --target="$target" --name=net -o "$work"
# the kernels the host code calls: net_k<call index>
syms=$(grep -oE '\bnet_k[0-9]+\(' "$work/net.c" | tr -d '(' | sort -u)
if [ -z "$syms" ]; then
    echo "check_object: net.c calls no LLVM kernel" >&2
    exit 1
fi
# shellcheck disable=SC2086 # one argument per symbol
"$elfcheck" "$work/net_kernels.o" "$kind" $syms
