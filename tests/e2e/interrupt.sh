#!/bin/sh
# interrupt.sh LSTMC MKMODEL WORK — interrupting lstmc (SIGTERM, SIGINT) while it writes a big
# library leaves the previous output as it was and no temporary folder behind.
set -u
lstmc=$1 mkmodel=$2 work=$3
fail() { echo "interrupt: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
"$mkmodel" --hidden 1024 --input 1024 --layers 2 --seq 4 -o "$work/big.onnx" >/dev/null || fail "mkmodel"
"$mkmodel" --hidden 8 --input 4 --layers 1 --seq 3 -o "$work/small.onnx" >/dev/null || fail "mkmodel"
"$lstmc" "$work/small.onnx" --emit=c --name=small -o "$work/out" || fail "the small compile failed"
before=$(cd "$work/out" && find . -type f -exec md5sum {} + | sort)
for sig in TERM INT; do
    "$lstmc" "$work/big.onnx" --emit=c --name=big -o "$work/out" >/dev/null &
    pid=$!
    # the signal lands while the library is being written: once its temporary folder holds
    # a file (the weights of this model take lstmc a while to write), not after a guess
    n=0
    while [ $n -lt 3000 ] && kill -0 $pid 2>/dev/null &&
          [ -z "$(find "$work" -path "$work/.out.lstmc-*/*" -type f 2>/dev/null | head -1)" ]; do
        sleep 0.01
        n=$((n + 1))
    done
    kill -s $sig $pid 2>/dev/null
    wait $pid
    status=$?
    [ $status -ne 0 ] || fail "lstmc finished before SIG$sig arrived; use a bigger model"
    after=$(cd "$work/out" && find . -type f -exec md5sum {} + | sort)
    [ "$before" = "$after" ] || fail "SIG$sig changed the previous output"
    leftovers=$(find "$work" -maxdepth 1 -name '.*lstmc-*')
    [ -z "$leftovers" ] || fail "SIG$sig left temporary folders: $leftovers"
    echo "interrupt: SIG$sig (status $status): previous output intact, nothing left behind"
done
