#!/bin/sh
# interrupt.sh LSTMC MKMODEL WORK — interrupting lstmc (SIGTERM, SIGINT) while it writes a big
# library leaves the previous output as it was and no temporary folder behind.
set -u
lstmc=$1 mkmodel=$2 work=$3
fail() { echo "interrupt: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
"$mkmodel" --hidden 512 --input 512 --layers 2 --seq 4 -o "$work/big.onnx" >/dev/null || fail "mkmodel"
"$mkmodel" --hidden 8 --input 4 --layers 1 --seq 3 -o "$work/small.onnx" >/dev/null || fail "mkmodel"
"$lstmc" "$work/small.onnx" --emit=c --name=small -o "$work/out" || fail "the small compile failed"
before=$(cd "$work/out" && find . -type f -exec md5sum {} + | sort)
for sig in TERM INT; do
    "$lstmc" "$work/big.onnx" --emit=c --name=big -o "$work/out" &
    pid=$!
    sleep 1
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
