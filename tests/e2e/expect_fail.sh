#!/bin/sh
# expect_fail.sh CODE SUBSTRING COMMAND...
# Passes when COMMAND exits with status CODE within 60 s, was not killed by a signal, and
# printed SUBSTRING (fixed string) on stderr.
set -u
code=$1 want=$2
shift 2
err=$(mktemp)
timeout -s KILL 60 "$@" 2>"$err" >/dev/null
status=$?
cat "$err" >&2
if [ "$status" -ne "$code" ]; then
    echo "expect_fail: exit status $status, want $code" >&2
    rm -f "$err"
    exit 1
fi
if ! grep -qF -- "$want" "$err"; then
    echo "expect_fail: stderr lacks '$want'" >&2
    rm -f "$err"
    exit 1
fi
rm -f "$err"
exit 0
