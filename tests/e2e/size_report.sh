#!/bin/sh
# size_report.sh LSTMC MODEL WORK_DIR — <name>_size.json (issue 9) against measurements made
# here independently of lstmc's arithmetic: the weights against the symbol sizes `nm -S`
# reads from the compiled <name>_weights.o, the LLVM kernels against `size` of the objects,
# the state against sizeof(<name>_state) compiled by cc, the arenas against the header.
set -eu
lstmc=$1 model=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
"$lstmc" "$model" --target=host --name=m -o "$work/m" > "$work/stdout.txt"
grep -q '^lstmc: m: flash [0-9]* B known' "$work/stdout.txt"
json=$work/m/m_size.json
field() { grep -o "\"$1\": [0-9]*" "$json" | head -n 1 | sed 's/.*: //'; }
make -s -C "$work/m" m_weights.o m.o CFLAGS=-O2 > /dev/null
status=0
check() { # check WHAT GOT WANT
    if [ "$2" != "$3" ]; then echo "size_report: $1: the report says $2, measured $3" >&2; status=1; else echo "ok: $1 $2"; fi
}
w=$(nm -S -t d "$work/m/m_weights.o" | awk '$4 ~ /^m_w_/ { s += $2 } END { print s + 0 }')
check weights "$(field weights)" "$w"
k=$(size "$work/m/m_kernels.o" | awk 'NR == 2 { print $4 }')
check llvm_kernels "$(field llvm_kernels)" "$k"
k=$(size "$work/m/m_stream_kernels.o" | awk 'NR == 2 { print $4 }')
check stream_llvm_kernels "$(field stream_llvm_kernels)" "$k"
cat > "$work/sz.c" <<'C'
#include <stdio.h>
#include "m.h"
int main(void) { printf("%zu %u %u\n", sizeof(m_state), (unsigned)M_ARENA_SIZE, (unsigned)M_STREAM_ARENA_SIZE); return 0; }
C
cc -I"$work/m" -I"$work/m/runtime/include" -o "$work/sz" "$work/sz.c"
set -- $("$work/sz")
check state "$(field state)" "$1"
check arena "$(field arena)" "$2"
check stream_arena "$(field stream_arena)" "$3"
# per layer: the weights add up to the total, the LLVM code to at most the object
check "layer weights sum" "$(grep -o '"weights": [0-9]*' "$json" | sed 1d | sed 's/.*: //' | awk '{ s += $1 } END { print s }')" "$(field weights)"
exit $status
