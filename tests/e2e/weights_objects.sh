#!/bin/sh
# weights_objects.sh LSTMC MKMODEL WORK — a model past 16 MiB of weights gets several LLVM
# weight objects (NAME_weights.o, NAME_weights1.o, ...: LLVM holds a global twice while it
# writes it, so objects of bounded size bound lstmc's memory, issue 19), every one of them in
# the Makefile's KOBJS, every weight symbol in exactly one of them with the bytes the pointer
# placement's NAME_weights.bin holds at its offset (fwrite of the tensors, another writer),
# the library builds and its driver runs on both placements with the same output. A second
# compile of a smaller model into the same folder leaves no stale object. Needs objcopy, nm.
set -eu
lstmc=$1 mkmodel=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
status=0
fail() { echo "FAIL: $*" >&2; status=1; }
# 2 x 700 LSTM: 31.4 MB of fp32 weights, four tensors of 7.8 MB
"$mkmodel" --input 700 --hidden 700 --layers 2 --seq 3 -o "$work/big.onnx" --npy "$work/x.npy" > /dev/null
"$lstmc" "$work/big.onnx" --name=m --threads=1 -o "$work/const" > "$work/const.log" 2>&1 ||
    { cat "$work/const.log"; exit 1; }
"$lstmc" "$work/big.onnx" --name=m --threads=1 --weights-placement=pointer -o "$work/pointer" \
    > "$work/pointer.log" 2>&1 || { cat "$work/pointer.log"; exit 1; }
objs=$(cd "$work/const" && ls m_weights*.o)
n_obj=$(echo "$objs" | wc -l)
[ "$n_obj" -ge 2 ] || fail "one weight object for 31 MB of weights: $objs"
kobjs=$(sed -n 's/^KOBJS =//p' "$work/const/Makefile")
for o in $objs; do
    case " $kobjs " in *" $o "*) ;; *) fail "$o is not in KOBJS ($kobjs)" ;; esac
    sz=$(wc -c < "$work/const/$o")
    [ "$sz" -lt $((26 << 20)) ] || fail "$o has $sz bytes: more than a 7.8 MB tensor and the 16 MiB chunk"
done
n=0
for o in $objs; do
    objcopy -O binary --only-section=.rodata "$work/const/$o" "$work/rodata.bin"
    nm -S --defined-only "$work/const/$o" | awk '$4 ~ /^m_w_/ { print $1, $2, $4 }' > "$work/syms"
    while read -r off size name; do
        off=$((0x$off)) size=$((0x$size))
        woff=$(sed -n "s/^#define M${name#m}_OFFSET \([0-9]*\)u.*/\1/p" "$work/pointer/m_weights.h")
        [ -n "$woff" ] || { fail "$o: $name is not in the pointer placement's layout"; continue; }
        tail -c +$((off + 1)) "$work/rodata.bin" | head -c "$size" > "$work/a.bin"
        tail -c +$((woff + 1)) "$work/pointer/m_weights.bin" | head -c "$size" > "$work/b.bin"
        cmp -s "$work/a.bin" "$work/b.bin" || fail "$o: $name differs from the pointer placement's bytes"
        n=$((n + 1))
    done < "$work/syms"
done
want=$(grep -c '_OFFSET ' "$work/pointer/m_weights.h")
[ "$n" -eq "$want" ] || fail "$n weight symbols in $n_obj objects, $want tensors in the pointer placement"
make -s -C "$work/const" CFLAGS=-O1 > "$work/make.log" 2>&1 || { cat "$work/make.log"; fail "make (const)"; }
make -s -C "$work/pointer" CFLAGS=-O1 > "$work/makep.log" 2>&1 || { cat "$work/makep.log"; fail "make (pointer)"; }
mkdir -p "$work/yc" "$work/yp"
"$work/const/m_run" --output-dir "$work/yc" "$work/x.npy" > /dev/null 2>&1 || fail "m_run (const)"
"$work/pointer/m_run" --weights-file "$work/pointer/m_weights.bin" --output-dir "$work/yp" "$work/x.npy" \
    > /dev/null 2>&1 || fail "m_run (pointer)"
for f in "$work"/yp/*.npy; do
    cmp -s "$f" "$work/yc/$(basename "$f")" || fail "$(basename "$f"): const and pointer builds differ"
done
# a smaller model into the same folder: one object, no stale m_weights1.o linked or left
"$mkmodel" --input 16 --hidden 16 --layers 1 --seq 3 -o "$work/small.onnx" > /dev/null
"$lstmc" "$work/small.onnx" --name=m -o "$work/const" > /dev/null 2>&1 || fail "small model"
[ ! -e "$work/const/m_weights1.o" ] || fail "a stale m_weights1.o is left from the big model"
[ $status -eq 0 ] && echo "ok: $n weight symbols in $n_obj objects, bytes and outputs identical"
exit $status
