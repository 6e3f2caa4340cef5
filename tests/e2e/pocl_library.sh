#!/bin/sh
# pocl_library.sh LSTMC NPYCMP CASE_DIR WORK — the library lstmc generates for --target=pocl:
#   - neither its OpenCL host code nor the runtime import an allocator, stdio or exit
#     (the OpenCL implementation underneath may allocate; our code does not);
#   - <name>_init fails cleanly, with LSTMC_RT_ERR_NO_DEVICE, when there is no OpenCL
#     platform at all (the ICD loader finds no vendor) or the override names none;
#   - with the device, it runs, and the GPU/CPU policy (LSTMC_OCL_POLICY=gpu|cpu|auto, auto
#     over several runs: device, CPU, then the faster) gives the reference result each way.
set -eu
lstmc=$1 npycmp=$2 case=$3 work=$4
rm -rf "$work"
"$lstmc" "$case/model.onnx" --target=pocl --name=m -o "$work"
make -s -C "$work"
undef=$(nm -u "$work/libm.a" | awk '{print $NF}' | sort -u)
bad=$(printf '%s\n' "$undef" | grep -E '^(malloc|calloc|realloc|free|printf|fprintf|puts|exit|abort)$' || true)
if [ -n "$bad" ]; then
    echo "generated OpenCL library imports: $bad" >&2
    exit 1
fi
printf '%s\n' "$undef" | grep -q '^clEnqueueNDRangeKernel$' || { echo "no OpenCL calls in libm.a" >&2; exit 1; }
set --
while IFS='	' read -r name file; do
    [ -n "$name" ] && set -- "$@" "$case/$file"
done < "$case/inputs.txt"
mkdir -p "$work/empty" "$work/out"
# no platform: an ICD loader with no vendor
if OCL_ICD_VENDORS="$work/empty" "$work/m_run" --output-dir "$work/out" "$@" 2>"$work/err1"; then
    echo "m_run succeeded without an OpenCL platform" >&2
    exit 1
fi
grep -q "no OpenCL device" "$work/err1" || { cat "$work/err1" >&2; exit 1; }
# an override naming a platform that does not exist
if LSTMC_OCL_PLATFORM=9 "$work/m_run" --output-dir "$work/out" "$@" 2>"$work/err2"; then
    echo "m_run succeeded on a platform that does not exist" >&2
    exit 1
fi
grep -q "no OpenCL device" "$work/err2" || { cat "$work/err2" >&2; exit 1; }
for pol in gpu cpu auto; do
    mkdir -p "$work/out_$pol"
    LSTMC_OCL_POLICY=$pol "$work/m_run" --bench 4 --output-dir "$work/out_$pol" "$@"
    for want in "$case"/expected/*.npy; do
        "$npycmp" "$work/out_$pol/$(basename "$want")" "$want"
    done
done
echo "ok: no allocator imported, no device reported cleanly, right on the device and the CPU"
