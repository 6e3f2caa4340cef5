#!/bin/sh
# arena_init.sh LSTMC MODEL SRC WORK — compile MODEL as library "m" and run arena_init.c
# against it.
set -eu
lstmc=$1 model=$2 src=$3 work=$4
rm -rf "$work"
"$lstmc" "$model" --target=host --name=m -o "$work"
make -s -C "$work" libm.a
${CC:-cc} -std=c99 -Wall -Werror -I"$work" -I"$work/runtime/include" "$src" "$work/libm.a" -lm \
    -o "$work/arena_init"
"$work/arena_init"
