#!/bin/sh
# nothing_lost.sh LSTMC GOOD_MODEL BAD_MODEL WORK — a compiler that never destroys a user's
# files: -o onto a folder lstmc did not make is refused (unless --force), a failed compile
# leaves the previous output exactly as it was, and no temporary folder is left behind.
set -u
lstmc=$1 good=$2 bad=$3 work=$4
fail() { echo "nothing_lost: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work/user"
echo precious > "$work/user/notes.txt"

"$lstmc" "$good" -o "$work/user" 2>"$work/err" && fail "compiled into a folder it did not make"
grep -q "was not made by lstmc" "$work/err" || fail "no clear refusal: $(cat "$work/err")"
[ "$(cat "$work/user/notes.txt")" = precious ] || fail "the user's file changed"

"$lstmc" "$good" --name=first -o "$work/out" || fail "a good compile failed"
[ -f "$work/out/.lstmc-output" ] || fail "no marker in OUTDIR"
before=$(cd "$work/out" && find . -type f -exec md5sum {} + | sort)

"$lstmc" "$bad" --name=second -o "$work/out" 2>/dev/null && fail "a bad model compiled"
after=$(cd "$work/out" && find . -type f -exec md5sum {} + | sort)
[ "$before" = "$after" ] || fail "a failed compile changed the previous output"

"$lstmc" "$good" --name=third -o "$work/out" || fail "recompiling over lstmc's own output failed"
[ -f "$work/out/third.c" ] && [ ! -f "$work/out/first.c" ] || fail "the output was not replaced"

"$lstmc" "$good" -o "$work/user" --force || fail "--force did not replace the folder"
[ -f "$work/user/.lstmc-output" ] || fail "--force output lacks the marker"

leftovers=$(find "$work" -maxdepth 1 -name '.*lstmc-*')
[ -z "$leftovers" ] || fail "temporary folders left behind: $leftovers"
echo "nothing_lost: refused, preserved, replaced, no leftovers"
