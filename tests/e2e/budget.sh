#!/bin/sh
# budget.sh LSTMC FIXTURES WORK_DIR — the memory budget (issue 19, docs/TARGETS.md "Memory
# budget"): a model is checked against its target's ram_bytes and flash_bytes before
# anything is written. The sizes the messages must name are worked out here independently:
# the arenas by hand from the shapes (and the header's macros), sizeof(<name>_ctx) and
# sizeof(<name>_state) by the C compilers themselves (arm-none-eabi-gcc for Cortex-M when
# installed, else by hand for the AAPCS layout), the weights with nm on the compiled
# <name>_weights.o. Every check runs; the script fails if any failed.
set -u
lstmc=$1 fix=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
status=0
fail() { echo "budget: $*" >&2; status=1; }
has() { # has FILE TEXT WHAT
    grep -qF -- "$2" "$1" || fail "$3: '$2' not in $(basename "$1"):
$(cat "$1")"
}
hdr() { sed -n "s/^#define $2 \([0-9]*\)u$/\1/p" "$1"; }
# sum of the sizes of the m_w_* symbols of the compiled weights (as tests/e2e/size_report.sh)
weights_of() {
    make -s -C "$1" m_weights.o CFLAGS=-O0 > /dev/null 2>&1 || { echo 0; return; }
    nm -S -t d "$1/m_weights.o" | awk '$4 ~ /^m_w_/ { s += $2 } END { print s + 0 }'
}
run() { # run NAME lstmc-args...: stdout in NAME.out, stderr in NAME.err, the status echoed
    n=$1
    shift
    "$lstmc" "$@" > "$work/$n.out" 2> "$work/$n.err"
    echo $?
}

# sizeof(m_ctx), sizeof(m_state) on a Cortex-M4: arm-none-eabi-gcc sizes them when it is
# installed. By hand (AAPCS: int64_t 8-aligned): ctx = 3 pointers/size_t (12) + 2 floats (8)
# = 20 -> 24, + two structs of four int64_t (64) = 88; the GRU's state (N=4, H=3) = 12
# floats (48) + int64_t steps = 56.
ctx_m4=88 state_gru=56
cm_sizes() { # cm_sizes OUTDIR: "ctx state" by arm-none-eabi-gcc, or nothing
    command -v arm-none-eabi-gcc > /dev/null 2>&1 || return 0
    printf '#include "m.h"\nconst char ctx_size[sizeof(m_ctx)] = {1};\nconst char state_size[sizeof(m_state)] = {1};\n' > "$1/sz.c"
    arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -c \
        -I"$1" -I"$1/runtime/include" -o "$1/sz.o" "$1/sz.c" || return 0
    arm-none-eabi-nm -S -t d "$1/sz.o" | awk '$4 == "ctx_size" { c = $2 + 0 } $4 == "state_size" { s = $2 + 0 } END { print c, s }'
}

# 1. A model that does not fit and does not stream: a bidirectional LSTM (I=4, H=3) over
#    T=5000 steps, batch 2. Its input projection holds T*D*N*4H floats = 5000*2*2*12*4 =
#    960000 B, five times cortex-m4's 196608 B (192 KiB): refused, exit 1, nothing written.
bi="$fix/lstm_symbolic_bidir_seqlens/model.onnx --dim=seq=5000 --dim=batch=2"
# shellcheck disable=SC2086
rc=$(run bi_nb $bi --target=cortex-m4 --no-budget --name=m -o "$work/bi_nb")
[ "$rc" = 0 ] || fail "--no-budget: exit $rc, the model should compile: $(cat "$work/bi_nb.err")"
arena=$(hdr "$work/bi_nb/m.h" M_ARENA_SIZE)
[ "${arena:-0}" -ge 960000 ] || fail "bidir: M_ARENA_SIZE ${arena:-none} < the projection's 960000 B"
set -- $(cm_sizes "$work/bi_nb")
[ $# = 2 ] && { [ "$1" = $ctx_m4 ] || fail "sizeof(m_ctx) on cortex-m4 is $1, by hand $ctx_m4"; }
# shellcheck disable=SC2086
rc=$(run bi $bi --target=cortex-m4 --name=m -o "$work/bi")
[ "$rc" = 1 ] || fail "bidir: exit $rc, want 1 (does not fit)"
[ ! -e "$work/bi" ] || fail "bidir: refused, yet the output folder was written"
has "$work/bi.err" "m_run needs $((arena + ctx_m4)) B of RAM (M_ARENA_SIZE $arena + context $ctx_m4)" bidir
has "$work/bi.err" "more than the 196608 B of target cortex-m4 (ram_bytes)" bidir
has "$work/bi.err" "the largest buffers of the arena: '" bidir
has "$work/bi.err" "' 960000 B" "bidir: the projection, largest buffer"
has "$work/bi.err" "the model does not stream (node 'lstm_0' (LSTM) is bidirectional" bidir
has "$work/bi.err" "--no-budget compiles anyway" bidir
# the size report of a model that does not stream has no streaming figures
if grep -q "streaming only" "$work/bi_nb.out"; then
    fail "the size report of a model that does not stream prints a streaming figure: $(cat "$work/bi_nb.out")"
fi
has "$work/bi_nb.out" "RAM $arena B (arena; the model does not stream)" "size report"
grep -q '"stream_only_total": 0}' "$work/bi_nb/m_size.json" ||
    fail "m_size.json of a model that does not stream: stream_only_total is not 0"

# 2. Too big whole, but it streams: a GRU (I=4, H=3) over T=5000, batch 4, whose projection
#    is 5000*4*3H*4 = 720000 B; one step needs a few hundred bytes: it compiles, and the
#    note says to feed m_step.
g="$fix/gru_symbolic/model.onnx --dim=seq=5000 --dim=batch=4"
# shellcheck disable=SC2086
rc=$(run gru $g --target=cortex-m4 --name=m -o "$work/gru")
[ "$rc" = 0 ] || fail "gru: exit $rc, streaming fits cortex-m4: $(cat "$work/gru.err")"
if [ "$rc" = 0 ]; then
    sa=$(hdr "$work/gru/m.h" M_STREAM_ARENA_SIZE)
    arena=$(hdr "$work/gru/m.h" M_ARENA_SIZE)
    set -- $(cm_sizes "$work/gru")
    [ $# = 2 ] && { [ "$2" = $state_gru ] || fail "sizeof(m_state) on cortex-m4 is $2, by hand $state_gru"; }
    [ "$arena" -ge 720000 ] || fail "gru: M_ARENA_SIZE $arena < the projection's 720000 B"
    has "$work/gru.out" "m: fits cortex-m4 only streaming: m_run needs $((arena + ctx_m4)) B of RAM, more than its 196608 B" gru
    has "$work/gru.out" "m_step needs $((sa + state_gru + ctx_m4)) B (M_STREAM_ARENA_SIZE $sa + state $state_gru + context $ctx_m4)" gru
    has "$work/gru.out" "bind the arena with m_init_stream and feed m_step" gru
fi

# 3. A model that fits: the HAR classifier on cortex-m4; weights measured with nm.
har=$fix/pt_har_lstm/model.onnx
rc=$(run har "$har" --target=cortex-m4 --name=m -o "$work/har")
[ "$rc" = 0 ] || fail "har: exit $rc, it fits cortex-m4: $(cat "$work/har.err")"
if [ "$rc" = 0 ]; then
    arena=$(hdr "$work/har/m.h" M_ARENA_SIZE)
    w_m4=$(weights_of "$work/har")
    has "$work/har.out" "m: fits cortex-m4: RAM $((arena + ctx_m4)) of 196608 B" har
    has "$work/har.out" "flash $w_m4 of 1048576 B" har
fi

# 4. The host: RAM from the system, no flash (the weights load with the program); the
#    context's size is the host compiler's sizeof(m_ctx).
rc=$(run host "$har" --target=host --name=m -o "$work/host")
if [ "$rc" = 0 ]; then
    printf '#include <stdio.h>\n#include "m.h"\nint main(void) { printf("%%zu\\n", sizeof(m_ctx)); return 0; }\n' > "$work/ctx.c"
    cc -I"$work/host" -I"$work/host/runtime/include" -o "$work/ctx" "$work/ctx.c" || fail "ctx.c"
    ctx=$("$work/ctx")
    arena=$(hdr "$work/host/m.h" M_ARENA_SIZE)
    w=$(weights_of "$work/host")
    ram=$(($(getconf _PHYS_PAGES) * $(getconf PAGESIZE)))
    has "$work/host.out" "m: fits host: RAM $((arena + ctx + w)) of $ram B" host
    has "$work/host.out" "(M_ARENA_SIZE $arena + context $ctx + weights $w: no flash_bytes" host
else
    fail "host: exit $rc: $(cat "$work/host.err")"
fi

# 5. Profile files (Thumb ones, and host-triple ones where the host's sizes above apply).
sa=$(hdr "$work/host/m.h" M_STREAM_ARENA_SIZE)
# a RAM of 2048 B: neither whole nor streaming
printf '{"name": "tiny", "cpu": {"triple": "thumbv7em-none-eabihf", "cpu": "cortex-m4"}, "ram_bytes": 2048, "flash_bytes": 1048576}\n' > "$work/tiny.json"
rc=$(run tiny "$har" --target="$work/tiny.json" --name=m -o "$work/tiny")
[ "$rc" = 1 ] || fail "tiny: exit $rc, want 1"
has "$work/tiny.err" "more than the 2048 B of target tiny (ram_bytes)" tiny
has "$work/tiny.err" "streaming does not fit either: m_step needs" tiny
has "$work/tiny.err" "(M_STREAM_ARENA_SIZE $sa + state" tiny
rc=$(run tiny_nb "$har" --target="$work/tiny.json" --no-budget --name=m -o "$work/tiny_nb")
[ "$rc" = 0 ] || fail "tiny --no-budget: exit $rc"
grep -q "fits" "$work/tiny_nb.out" && fail "--no-budget still printed a fit note"
# a RAM of 8192 B: not whole (86 KB), but streaming
printf '{"name": "small", "cpu": {"triple": "thumbv7em-none-eabihf", "cpu": "cortex-m4"}, "ram_bytes": 8192, "flash_bytes": 1048576}\n' > "$work/small.json"
rc=$(run small "$har" --target="$work/small.json" --name=m -o "$work/small")
[ "$rc" = 0 ] || fail "small: exit $rc: $(cat "$work/small.err")"
has "$work/small.out" "m: fits small only streaming" small
# flash of 20 KiB: the 56 KB of fp32 weights do not fit; the hint's int8 size is what the
# int8 build's weights measure, and that build fits
printf '{"name": "lowflash", "cpu": {"triple": "thumbv7em-none-eabihf", "cpu": "cortex-m4"}, "ram_bytes": 1048576, "flash_bytes": 20480}\n' > "$work/lowflash.json"
rc=$(run lowflash "$har" --target="$work/lowflash.json" --name=m -o "$work/lowflash")
[ "$rc" = 1 ] || fail "lowflash: exit $rc, want 1"
has "$work/lowflash.err" "the weights take ${w_m4:-?} B, more than the 20480 B of flash of target lowflash" lowflash
rc=$(run lowflash8 "$har" --target="$work/lowflash.json" --weights=int8 --name=m -o "$work/lowflash8")
[ "$rc" = 0 ] || fail "lowflash --weights=int8: exit $rc: $(cat "$work/lowflash8.err")"
w8=$(weights_of "$work/lowflash8")
has "$work/lowflash.err" "--weights=int8 $w8 B" "lowflash hint"
has "$work/lowflash8.out" "flash $w8 of 20480 B" lowflash8
# --weights-placement=blob: the caller places the weights; too big for the flash, they go
# to RAM beside the arena
rc=$(run blob "$har" --target="$work/lowflash.json" --weights-placement=blob --name=m -o "$work/blob")
[ "$rc" = 0 ] || fail "blob: exit $rc: $(cat "$work/blob.err")"
has "$work/blob.out" "weights ${w_m4:-?}: placed in RAM, more than the flash" blob
# ram_bytes without flash_bytes (a Linux board): the weights count against the RAM
printf '{"name": "linux", "ram_bytes": 100000}\n' > "$work/linux.json"
rc=$(run linux "$har" --target="$work/linux.json" --name=m -o "$work/linux")
[ "$rc" = 0 ] || fail "linux: exit $rc: $(cat "$work/linux.err")"
has "$work/linux.out" "m: fits linux only streaming: m_run needs $((arena + ctx + w)) B of RAM" linux
# a profile without sizes: not checked, and said so
printf '{"name": "nosize"}\n' > "$work/nosize.json"
rc=$(run nosize "$har" --target="$work/nosize.json" --name=m -o "$work/nosize")
[ "$rc" = 0 ] || fail "nosize: exit $rc"
has "$work/nosize.out" "target nosize gives no RAM or flash size: memory not checked" nosize
# lstmc targets shows the built-ins' sizes (docs/TARGETS.md: an STM32F407's 192 KiB / 1 MiB)
"$lstmc" targets > "$work/targets.txt"
grep -q '^cortex-m4 .*; RAM 192 KiB, flash 1 MiB$' "$work/targets.txt" ||
    fail "lstmc targets: no sizes for cortex-m4: $(cat "$work/targets.txt")"
exit $status
