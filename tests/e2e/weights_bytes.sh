#!/bin/sh
# weights_bytes.sh LSTMC WORK CASE_DIR... — the weights a built library holds are the same
# bytes in every placement and form (issue 19 point 4). For each case, each --emit (llvm:
# <name>_weights.o written by LLVM; c: <name>_weights.c as string literals, compiled by cc)
# and each --weights format (fp32, fp16, bf16, int8): every m_w_* symbol of the const
# build's m_weights.o, read from the object's .rodata, equals the bytes at its
# M_w_*_OFFSET in the pointer placement's m_weights.bin and in the blob placement's
# m_weights.bin after its 64-byte header (three writers: LLVM constants, cc reading C
# literals, fwrite of the tensors), and the symbol sizes add up to the payload's tensors.
# Also: an LLVM build's m_weights.o is there before make (lstmc wrote it, no C to compile),
# and an --emit=c build's m_weights.c holds no float literal. Needs objcopy and nm (binutils).
set -eu
lstmc=$1 work=$2
shift 2
CC=${CC:-cc}
rm -rf "$work"
mkdir -p "$work"
status=0
fail() { echo "FAIL: $*" >&2; status=1; }
# slice FILE OFFSET SIZE: the bytes of FILE at [OFFSET, OFFSET + SIZE) as hex
slice() { tail -c +$(($2 + 1)) "$1" | head -c "$3" | od -A n -v -t x1 | tr -d ' \n'; }
for case in "$@"; do
    cname=$(basename "$case")
    for emit in llvm c; do
        for fmt in fp32 fp16 bf16 int8; do
            d=$work/$cname/$emit/$fmt
            mkdir -p "$d"
            for pl in const pointer blob; do
                if ! "$lstmc" "$case/model.onnx" --name=m --emit=$emit --weights=$fmt \
                    --weights-placement=$pl -o "$d/$pl" > "$d/$pl.log" 2>&1; then
                    # a format the model's layers cannot take is refused for every
                    # placement alike: then the next format
                    grep -q "weights=$fmt" "$d/$pl.log" || fail "$cname $emit $fmt $pl: $(cat "$d/$pl.log")"
                    continue 2
                fi
            done
            if [ $emit = llvm ]; then
                [ -f "$d/const/m_weights.o" ] || fail "$cname $fmt: lstmc wrote no m_weights.o"
                [ ! -f "$d/const/m_weights.c" ] || fail "$cname $fmt: m_weights.c beside m_weights.o"
            else
                # the rows of bytes are the lines that start with '"'; float text is elsewhere
                if grep -vE '^("|/\*| \*)' "$d/const/m_weights.c" | grep -qE '[0-9]\.[0-9]*(e[-+]?[0-9]+)?f'; then
                    fail "$cname $fmt: m_weights.c holds float literals"
                fi
                make -s -C "$d/const" m_weights.o CC="$CC" \
                    CFLAGS="-O2 -Wall -Wextra -Wpedantic -Werror" > /dev/null 2>&1 ||
                    fail "$cname $fmt: m_weights.c does not compile cleanly (-Wpedantic)"
            fi
            obj=$d/const/m_weights.o
            [ -f "$obj" ] || continue
            objcopy -O binary --only-section=.rodata "$obj" "$d/rodata.bin"
            tail -c +65 "$d/blob/m_weights.bin" > "$d/blob_payload.bin"
            n=0 total=0
            # value (offset in .rodata), size, type, name of every weight symbol
            nm -S --defined-only "$obj" | awk '$4 ~ /^m_w_/ { print $1, $2, $4 }' > "$d/syms"
            while read -r off size name; do
                off=$((0x$off)) size=$((0x$size))
                macro=M${name#m}_OFFSET
                woff=$(sed -n "s/^#define $macro \([0-9]*\)u.*/\1/p" "$d/pointer/m_weights.h")
                if [ -z "$woff" ]; then
                    fail "$cname $emit $fmt: $name is not in the pointer placement's layout"
                    continue
                fi
                got=$(slice "$d/rodata.bin" "$off" "$size")
                [ "$got" = "$(slice "$d/pointer/m_weights.bin" "$woff" "$size")" ] ||
                    fail "$cname $emit $fmt: $name differs from the pointer placement's bytes"
                [ "$got" = "$(slice "$d/blob_payload.bin" "$woff" "$size")" ] ||
                    fail "$cname $emit $fmt: $name differs from the blob's bytes"
                n=$((n + 1)) total=$((total + size))
            done < "$d/syms"
            want=$(grep -c '_OFFSET ' "$d/pointer/m_weights.h")
            [ "$n" -eq "$want" ] || fail "$cname $emit $fmt: $n weight symbols, $want tensors in the blob"
            [ "$n" -gt 0 ] || fail "$cname $emit $fmt: no weight symbols"
            echo "ok: $cname --emit=$emit --weights=$fmt: $n tensors, $total bytes identical"
        done
    done
done
exit $status
