#!/bin/sh
# profile_search.sh LSTMC NPYCMP FIXTURES WORK — `lstmc profile --device=cpu --search`
# (issue 23) on a tiny budget and the l2 class only: it prints the table, writes a profile
# with the cpu caches and the search's provenance that the compiler accepts (and whose
# compiled fixture still matches ONNX Runtime), records its measurements in OUT.search, and
# --resume replays them to the same result; a foreign or corrupted state file is ignored or
# refused, and bad options are usage errors (exit 2).
set -eu
lstmc=$1 npycmp=$2 fix=$3 work=$4
e2e=$(dirname "$0")
rm -rf "$work"
mkdir -p "$work"
prof="profile --device=cpu --hidden=16 --max-tissue=2 --reps=3 --search --search-classes=l2"
# shellcheck disable=SC2086
"$lstmc" $prof --budget=60 -o "$work/board.json" > "$work/table.txt" 2> "$work/progress.txt"
grep -q '^| l2 | [0-9]* | rec.tile | 8 | [0-9]* |' "$work/table.txt"
grep -q '^| llc | - |' "$work/table.txt"
grep -q '"l2_bytes": [0-9]*, "llc_bytes": [0-9]*' "$work/board.json"
grep -q 'kernels searched .*, budget 60 s' "$work/board.json"
grep -q '^lstmc profile: search l2 H=[0-9]*: .* us .*best .* s left$' "$work/progress.txt"
head -1 "$work/board.json.search" | grep -qx 'lstmc-kernel-search 4'
# a bf16 U's dot product is searched on a CPU that has it (the class's model in bf16 weights)
if grep -q avx512_bf16 /proc/cpuinfo 2>/dev/null && ! grep -q 'budget is spent' "$work/progress.txt"; then
    grep -q '^| l2 | [0-9]* | rec.dot (bf16 weights) | 2 | [023] | [0-9.]*x ' "$work/table.txt"
    grep -q '^l2 [0-9]* 0 [0-9 ]* [134] 0 0 0 0 0 [0-9.]* [0-9.]* [0-9.]*$' "$work/board.json.search"
fi
# the full-integer VNNI kernel is searched on a CPU that has it (the model in --activations=int8:
# its int8 U, a quarter of the fp32 one, is in the l2 class too)
if grep -q avx512_vnni /proc/cpuinfo 2>/dev/null && ! grep -q 'budget is spent' "$work/progress.txt"; then
    grep -q '^| l2 | [0-9]* | int.tile (int8) | 8 | [468] | |$' "$work/table.txt"
    grep -q '^| l2 | [0-9]* | int.pipe (int8) | 1 | [01] | ' "$work/table.txt"
    grep -q '^lstmc profile: search l2 H=[0-9]*: int8 tile [468] rows [0-9]* alternate [01] pipe [01]: ' \
        "$work/progress.txt"
    grep -q '^l2 [0-9]* 0 [0-9 ]* 0 [468] \(4\|8\|16\) [01] [01] 0 [0-9.]* [0-9.]* [0-9.]*$' "$work/board.json.search"
fi
n=$(grep -c '^l2 ' "$work/board.json.search")
[ "$n" -ge 2 ] || { echo "only $n measurements recorded" >&2; exit 1; }
# the threads step (a machine with 2 cores or more): one thread against two per hidden size,
# the smallest H from which two win written as kernels.mt_min_hidden where it is not 128
if [ "$(nproc)" -ge 2 ]; then
    # shellcheck disable=SC2086
    "$lstmc" profile --device=cpu --hidden=16 --max-tissue=2 --reps=3 --search --search-classes=mt \
        --budget=30 -o "$work/mt.json" > "$work/mt.txt" 2> "$work/mt_progress.txt"
    grep -q '^| mt | 32 | threads (2 against 1) | | | [0-9.]*x ([0-9.]* -> [0-9.]* us)' "$work/mt.txt"
    grep -q '^| mt | - | mt_min_hidden | 128 | ' "$work/mt.txt"
    grep -q '^lstmc profile: search mt H=32: 2 threads: ' "$work/mt_progress.txt"
    grep -q '^mt 32 0 [0-9 ]* 0 [0-9.]* [0-9.]* [0-9.]*$' "$work/mt.json.search"
    grep -q '^mt 32 0 [0-9 ]* 2 [0-9.]* [0-9.]* [0-9.]*$' "$work/mt.json.search"
    if grep -q '^| mt | - | mt_min_hidden | 128 | [0-9]' "$work/mt.txt"; then
        v=$(sed -n 's/^| mt | - | mt_min_hidden | 128 | \([0-9]*\) .*/\1/p' "$work/mt.txt")
        if [ "$v" != 128 ]; then
            grep -q "\"mt_min_hidden\": $v" "$work/mt.json"
        elif grep -q mt_min_hidden "$work/mt.json"; then
            echo "the default 128 was written" >&2
            exit 1
        fi
    fi
    "$e2e/run_case.sh" "$lstmc" "$npycmp" "$fix/lstm_tiles_h37" "$work/run_mt" --target="$work/mt.json"
fi

# the profile is one the compiler takes, and the kernels it chose compute the right thing
"$e2e/run_case.sh" "$lstmc" "$npycmp" "$fix/lstm_tiles_h37" "$work/run" --target="$work/board.json"

# --resume: every comparison replayed from the state file; after a search that finished, the
# same choices (one the budget cut short goes on from where it stopped, and may choose others:
# a slow machine, or the sanitizer build under load)
cp "$work/board.json.search" "$work/saved.search"
# shellcheck disable=SC2086
"$lstmc" $prof --budget=20 --resume -o "$work/board.json" > "$work/table2.txt" 2> "$work/progress2.txt"
m=$(($(wc -l < "$work/saved.search") - 2))
grep -q "resuming from .*board.json.search ($m measurements)" "$work/progress2.txt"
if ! grep -q 'budget is spent' "$work/progress.txt"; then
    grep '^| l2' "$work/table.txt" > "$work/rows1.txt"
    grep '^| l2' "$work/table2.txt" > "$work/rows2.txt"
    cmp "$work/rows1.txt" "$work/rows2.txt"
fi

# another machine's measurements are ignored; a corrupted file is refused (exit 1)
sed 's/^machine .*/machine cpu=elsewhere/' "$work/saved.search" > "$work/board.json.search"
# shellcheck disable=SC2086
"$lstmc" $prof --budget=5 --resume -o "$work/board.json" > /dev/null 2> "$work/progress3.txt"
grep -q 'ignoring .*board.json.search: measured on another machine' "$work/progress3.txt"
{ head -2 "$work/saved.search"; echo 'l2 0 0 8 8 1 4 6 8 0 0 0 0 0 0 1 1 1'; } > "$work/board.json.search"
# shellcheck disable=SC2086
if "$lstmc" $prof --budget=5 --resume -o "$work/board.json" > /dev/null 2> "$work/err.txt"; then
    echo "a corrupted state file was accepted" >&2
    exit 1
fi
grep -q 'board.json.search: line 3 ' "$work/err.txt"

for bad in "--device=opencl --search" "--device=cpu --search --budget=0" \
           "--device=cpu --search --budget=x" "--device=cpu --resume"; do
    rc=0
    # shellcheck disable=SC2086
    "$lstmc" profile $bad -o "$work/x.json" 2> /dev/null || rc=$?
    [ "$rc" -eq 2 ] || { echo "lstmc profile $bad: exit $rc, want 2" >&2; exit 1; }
done
echo ok
