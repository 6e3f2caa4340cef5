#!/bin/sh
# weights_placement.sh LSTMC NPYCMP CASE_DIR OTHER_CASE_DIR WORK_DIR
# --weights-placement=blob and =pointer (issue 9): the library reads its weights from
# m_weights.bin; a good file gives the fixture's reference outputs, and every bad one a
# clear status and exit 1 — truncated, one byte longer, a flipped payload byte (CRC-32), a
# flipped magic, a blob of another model, a missing file, a raw file of the wrong size.
set -eu
lstmc=$1 npycmp=$2 case=$3 other=$4 work=$5
rm -rf "$work"
mkdir -p "$work"
inputs() { # the --input options (lstmc run) or the paths (m_run) of a case
    while IFS='	' read -r name file; do
        [ -n "$name" ] || continue
        if [ "$2" = run ]; then printf -- '--input\n%s=%s/%s\n' "$name" "$1" "$file"; else printf '%s/%s\n' "$1" "$file"; fi
    done < "$1/inputs.txt"
}
compile() { # compile CASE PLACEMENT DIR: lstmc run builds and runs it once (must pass)
    # shellcheck disable=SC2046
    "$lstmc" run "$1/model.onnx" $(inputs "$1" run) --name=m --weights-placement="$2" \
        --keep-build="$3/build" --output-dir "$3/out" > /dev/null
    for want in "$1"/expected/*.npy; do
        "$npycmp" "$3/out/$(basename "$want")" "$want"
    done
}
status=0
expect() { # expect DIR FILE MESSAGE: m_run with weights FILE fails with MESSAGE
    rm -rf "$work/o" && mkdir -p "$work/o"
    # shellcheck disable=SC2046
    if out=$("$1/build/m_run" --weights-file "$2" --output-dir "$work/o" $(inputs "$case" m) 2>&1); then
        echo "FAIL: $2 was accepted (want: $3)" >&2
        status=1
    elif ! printf '%s\n' "$out" | grep -q "$3"; then
        echo "FAIL: $2: '$out' (want: $3)" >&2
        status=1
    else
        echo "ok: $(basename "$2"): $out"
    fi
}
flip() { # flip FILE OFFSET: invert one byte
    b=$(od -A n -t u1 -j "$2" -N 1 "$1" | tr -d ' ')
    printf "$(printf '\\%03o' $((255 - b)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null
}

compile "$case" blob "$work/blob"
bin=$work/blob/build/m_weights.bin
size=$(wc -c < "$bin")
head -c $((size - 100)) "$bin" > "$work/short.bin"
expect "$work/blob" "$work/short.bin" "weight blob: wrong size"
cp "$bin" "$work/long.bin" && printf 'x' >> "$work/long.bin"
expect "$work/blob" "$work/long.bin" "weight blob: wrong size"
cp "$bin" "$work/crc.bin" && flip "$work/crc.bin" 200
expect "$work/blob" "$work/crc.bin" "weight blob: checksum mismatch"
cp "$bin" "$work/magic.bin" && flip "$work/magic.bin" 0
expect "$work/blob" "$work/magic.bin" "weight blob: wrong format"
compile "$other" blob "$work/other"
expect "$work/blob" "$work/other/build/m_weights.bin" "made for another model"
expect "$work/blob" "$work/missing.bin" "cannot open the weights"

compile "$case" pointer "$work/pointer"
raw=$work/pointer/build/m_weights.bin
size=$(wc -c < "$raw")
head -c $((size - 4)) "$raw" > "$work/short_raw.bin"
expect "$work/pointer" "$work/short_raw.bin" "weight blob: wrong size"
exit $status
