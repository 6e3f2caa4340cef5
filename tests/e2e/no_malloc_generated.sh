#!/bin/sh
# no_malloc_generated.sh LSTMC MODEL WORK [LSTMC OPTION]... — compile MODEL, build lib<name>.a
# and check with nm that nothing in it imports an allocator, stdio or exit: the run path never
# allocates. EXPECT_IMPORT=SYM: also check that the library imports SYM (that the options
# really gave the code they are meant to test).
set -eu
lstmc=$1 model=$2 work=$3
shift 3
rm -rf "$work"
"$lstmc" "$model" --target=host --name=m "$@" -o "$work"
make -s -C "$work" libm.a
undef=$(nm -u "$work/libm.a" | awk '{print $NF}' | sort -u)
bad=$(printf '%s\n' "$undef" | grep -E '^(malloc|calloc|realloc|free|printf|fprintf|puts|exit|abort)$' || true)
if [ -n "$bad" ]; then
    echo "generated library imports: $bad" >&2
    exit 1
fi
if [ -n "${EXPECT_IMPORT:-}" ] && ! printf '%s\n' "$undef" | grep -qx "$EXPECT_IMPORT"; then
    echo "generated library does not import $EXPECT_IMPORT" >&2
    exit 1
fi
echo "libm.a imports only: $(printf '%s ' $undef)"
