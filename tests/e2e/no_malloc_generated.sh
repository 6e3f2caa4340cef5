#!/bin/sh
# no_malloc_generated.sh LSTMC MODEL WORK — compile MODEL, build lib<name>.a and check with
# nm that nothing in it imports an allocator, stdio or exit: the run path never allocates.
set -eu
lstmc=$1 model=$2 work=$3
rm -rf "$work"
"$lstmc" "$model" --target=host --name=m -o "$work"
make -s -C "$work" libm.a
undef=$(nm -u "$work/libm.a" | awk '{print $NF}' | sort -u)
bad=$(printf '%s\n' "$undef" | grep -E '^(malloc|calloc|realloc|free|printf|fprintf|puts|exit|abort)$' || true)
if [ -n "$bad" ]; then
    echo "generated library imports: $bad" >&2
    exit 1
fi
echo "libm.a imports only: $(printf '%s ' $undef)"
