#!/bin/sh
# kparams.sh LSTMC NPYCMP FIXTURES WORK — issue 23: the kernel parameters of a target profile
# ("kernels", docs/TARGETS.md "Kernel parameters") reach the kernels, every layer still
# matches ONNX Runtime's outputs (the fixtures' expected/) with odd tiles, prefetch distances,
# narrower vectors and threads, the size report says which values the profile set, and a bad
# or foreign parameter set is refused naming the field, with nothing written.
set -eu
lstmc=$1 npycmp=$2 fix=$3 work=$4
e2e=$(dirname "$0")
rm -rf "$work"
mkdir -p "$work"
host_caches='"l2_bytes": 1048576, "llc_bytes": 33554432'
# odd values for every kind and class, different per class, and threads for small layers
cat > "$work/odd.json" <<JSON
{"name": "odd", "cpu": {"cores": 2, $host_caches},
 "kernels": {"mt_min_hidden": 16,
   "rec": {"all": {"tile": 3, "prefetch": 0}, "l2": {"tile": 5, "prefetch": 3}},
   "proj": {"all": {"tile": 3, "rows": 2, "prefetch": 5}, "l2": {"tile": 1, "rows": 8}}}}
JSON
cat > "$work/big.json" <<JSON
{"name": "big", "cpu": {"cores": 2, $host_caches},
 "kernels": {"rec": {"all": {"tile": 16, "prefetch": 64, "alternate": 0}}, "proj": {"all": {"tile": 8, "rows": 1}}}}
JSON
cases="lstm_tiles_h37 gru_tiles_h70 pt_lstm3_batchfirst lstm_w_fp16 lstm_bidir_peephole_seqlens
       pt_embed_lstm2_cls rnn_bidir_seqlens lstm_w_qdq_channel"
case "${LSTMC_CFLAGS:-}" in # under the sanitizers, half of them (CI time; the same code)
*sanitize*) cases="lstm_tiles_h37 gru_tiles_h70 lstm_w_fp16 rnn_bidir_seqlens" ;;
esac
for c in $cases; do
    for p in odd big; do
        "$e2e/run_case.sh" "$lstmc" "$npycmp" "$fix/$c" "$work/run_${c}_$p" --target="$work/$p.json"
    done
    # on 2 threads (mt_min_hidden 16 above gives even these small layers threads by default)
    "$e2e/run_case.sh" "$lstmc" "$npycmp" "$fix/$c" "$work/run_${c}_t2" --target="$work/odd.json" --threads=2
done
"$e2e/run_case.sh" "$lstmc" "$npycmp" "$fix/ranged_lstm" "$work/run_ranged" --target="$work/odd.json"
# H 150 on 2 and 3 threads: the units cut at multiples of 8 on 16 lanes (rec_unit_slice: 72 and
# 78; 48, 56 and 46), U's panels cut alike (fp32 weights, whose values are bf16's: exact)
for t in 2 3; do
    "$e2e/run_case.sh" "$lstmc" "$npycmp" "$fix/lstm_w_bf16_h150" "$work/run_h150_t$t" --weights=fp32 \
        --threads=$t --target="$work/odd.json"
done

# the size report: the values and where they came from
m="$fix/lstm_tiles_h37/model.onnx"
"$lstmc" "$m" --target="$work/odd.json" --name=m -o "$work/odd_out" > "$work/odd_out.txt"
grep -q 'compiled with parameters from target profile' "$work/odd_out.txt"
grep -q '"kind": "rec", "class": "l2", "vector_bits": [0-9]*, "tile": 5, "prefetch": 3, "alternate": 1, "from_profile": \["tile", "prefetch"\]' \
    "$work/odd_out/m_size.json"
grep -q '"kind": "proj", "class": "l2", "vector_bits": [0-9]*, "tile": 1, "rows": 8, "prefetch": 5, "from_profile": \["tile", "rows", "prefetch"\]' \
    "$work/odd_out/m_size.json"
"$lstmc" "$m" --name=m -o "$work/def_out" > "$work/def_out.txt"
if grep -q 'parameters from target profile' "$work/def_out.txt"; then
    echo "the default profile reported parameters from a profile" >&2
    exit 1
fi
grep -q '"kind": "rec", "class": "l2", "vector_bits": [0-9]*, "tile": 8, "prefetch": 8, "alternate": 1, "from_profile": \[\]' \
    "$work/def_out/m_size.json"

# the kernels use them: no software prefetch when the profile says 0; vectors of the width
# it asks for (on a host with AVX-512, whose default is 512 bits)
if command -v llvm-objdump-19 >/dev/null 2>&1; then
    dis() { llvm-objdump-19 -d --no-show-raw-insn "$1"; }
    cat > "$work/narrow.json" <<JSON
{"kernels": {"vector_bits": 256, "rec": {"all": {"prefetch": 0}}, "proj": {"all": {"prefetch": 0}}}}
JSON
    "$lstmc" "$fix/pt_lstm3_batchfirst/model.onnx" --dim seq=20 --target="$work/narrow.json" --name=m \
        -o "$work/narrow_out" > /dev/null
    "$lstmc" "$fix/pt_lstm3_batchfirst/model.onnx" --dim seq=20 --name=m -o "$work/wide_out" > /dev/null
    [ "$(dis "$work/narrow_out/m_kernels.o" | grep -c prefetch)" -eq 0 ] ||
        { echo "prefetch 0 still prefetches" >&2; exit 1; }
    [ "$(dis "$work/wide_out/m_kernels.o" | grep -c prefetch)" -gt 0 ] ||
        { echo "the defaults do not prefetch" >&2; exit 1; }
    if grep -q avx512f /proc/cpuinfo 2>/dev/null; then
        [ "$(dis "$work/wide_out/m_kernels.o" | grep -c zmm)" -gt 0 ] ||
            { echo "the default kernels use no 512-bit vectors on an AVX-512 host" >&2; exit 1; }
        [ "$(dis "$work/narrow_out/m_kernels.o" | grep -c zmm)" -eq 0 ] ||
            { echo "vector_bits 256 still uses 512-bit vectors" >&2; exit 1; }
        "$e2e/run_case.sh" "$lstmc" "$npycmp" "$fix/pt_lstm3_batchfirst" "$work/run_narrow" \
            --target="$work/narrow.json"
    fi
fi

# bf16 weights with the AVX-512 BF16 dot product (kernels.{rec,proj}.<class>.dot: h and the
# rows of X in 1..3 bf16 pieces against U's and W's paired rows, docs/PRECISION.md), on the
# fixtures whose W and R are bf16 values (ONNX Runtime's outputs are then the exact bf16
# model's): 3 pieces (exact) within the fp32 tolerance, 2 (within 2^-16 of each product)
# within 1e-3 / 1e-4, 1 piece (h and X rounded to bf16) within bf16's; odd H and I (the last
# row outside the pairs), 256- and 128-bit vectors, thread slices, a stacked model and a GRU
# (linear_before_reset 0: U_h against r * h) in bf16 storage at bf16's tolerance
dotj() { # NAME DOT [KERNELS FIELDS]
    cat > "$work/$1.json" <<JSON
{"name": "$1", "cpu": {"cores": 2, $host_caches},
 "kernels": {"mt_min_hidden": 16 ${3:-}, "rec": {"all": {"dot": $2}}, "proj": {"all": {"dot": $2}}}}
JSON
}
if grep -q avx512_bf16 /proc/cpuinfo 2>/dev/null; then
    dotj dot1 1
    dotj dot2 2
    dotj dot3 3 ', "vector_bits": 256'
    dotj dot3n 3 ', "vector_bits": 128'
    dcases="lstm_w_bf16_h37 lstm_w_bf16_h150" dprofs="dot2 dot3 dot3n" dmodels="pt_lstm3_batchfirst gru_bidir_lbr0_seqlens_zero"
    case "${LSTMC_CFLAGS:-}" in # under the sanitizers (which do not see the LLVM kernels) fewer
    *sanitize*) dcases=lstm_w_bf16_h37 dprofs=dot3n dmodels=gru_bidir_lbr0_seqlens_zero ;;
    esac
    for c in $dcases; do
        for p in $dprofs; do
            tol="1e-4 1e-5"
            [ "$p" = dot2 ] && tol="1e-3 1e-4"
            RUN_CASE_TOL="$tol" "$e2e/run_case.sh" "$lstmc" "$npycmp" "$fix/$c" "$work/run_${c}_$p" \
                --target="$work/$p.json"
        done
        "$e2e/run_case.sh" "$lstmc" "$npycmp" "$fix/$c" "$work/run_${c}_t2" --target="$work/dot3.json" --threads=2
        RUN_CASE_TOL="3e-2 3e-2" "$e2e/run_case.sh" "$lstmc" "$npycmp" "$fix/$c" "$work/run_${c}_dot1" \
            --target="$work/dot1.json"
    done
    for c in $dmodels; do
        RUN_CASE_TOL="3e-2 3e-2" "$e2e/run_case.sh" "$lstmc" "$npycmp" "$fix/$c" "$work/run_${c}_dot2" \
            --target="$work/dot2.json" --weights=bf16
    done
    # a library for every sequence length: the run's rows of X cut into pieces as the fixed
    # library's, bit for bit
    case "${LSTMC_CFLAGS:-}" in
    *sanitize*) ;;
    *) "$e2e/ranged_vs_fixed.sh" "$lstmc" "$npycmp" "$fix/ranged_pt_lstm2_softmax" "$work/ranged_dot2" \
           --weights=bf16 --target="$work/dot2.json" ;;
    esac
    # the widened kernel (dot 0) as exact as ever
    dotj dot0 0
    "$e2e/run_case.sh" "$lstmc" "$npycmp" "$fix/lstm_w_bf16_h37" "$work/run_dot0" --target="$work/dot0.json"
    # the kernels use it, and the size report says so (dot 2 is this CPU's default); dot 0
    # does not
    b="$fix/lstm_w_bf16_h37/model.onnx"
    "$lstmc" "$b" --target="$work/dot2.json" --name=m -o "$work/dot_out" > /dev/null
    grep -q '"kind": "rec", "class": "l2", "vector_bits": 512, "tile": 8, "prefetch": 8, "alternate": 1, "dot": 2, "from_profile": \["dot"\]' \
        "$work/dot_out/m_size.json"
    grep -q '"kind": "proj", "class": "l2", "vector_bits": 512, "tile": 3, "rows": 8, "prefetch": 8, "dot": 2, "from_profile": \["dot"\]' \
        "$work/dot_out/m_size.json"
    "$lstmc" "$b" --name=m -o "$work/def_dot_out" > /dev/null
    grep -q '"kind": "rec", .*"alternate": 1, "dot": 2, "from_profile": \[\]' "$work/def_dot_out/m_size.json"
    grep -q '"kind": "proj", .*"prefetch": 8, "dot": 0, "from_profile": \[\]' "$work/def_dot_out/m_size.json"
    "$lstmc" "$b" --target="$work/dot0.json" --name=m -o "$work/nodot_out" > /dev/null
    grep -q '"kind": "rec", .*"alternate": 1, "dot": 0, "from_profile": \["dot"\]' "$work/nodot_out/m_size.json"
    if command -v llvm-objdump-19 >/dev/null 2>&1; then
        [ "$(llvm-objdump-19 -d "$work/dot_out/m_kernels.o" | grep -c vdpbf16ps)" -gt 0 ] ||
            { echo "dot 2 has no vdpbf16ps" >&2; exit 1; }
        [ "$(llvm-objdump-19 -d "$work/nodot_out/m_kernels.o" | grep -c vdpbf16ps)" -eq 0 ] ||
            { echo "dot 0 uses vdpbf16ps" >&2; exit 1; }
    fi
fi

# refused naming the field, exit 1, nothing written
refuse() { # NAME JSON WANT [LSTMC OPTION]
    printf '%s\n' "$2" > "$work/$1.json"
    if "$lstmc" "$m" --target="$work/$1.json" -o "$work/$1_out" $4 2> "$work/$1.err"; then
        echo "accepted: $2" >&2
        exit 1
    else
        rc=$?
    fi
    [ "$rc" -eq 1 ] || { echo "$1: exit $rc, not 1" >&2; exit 1; }
    grep -q "$3" "$work/$1.err" || { echo "$1: no '$3' in:" >&2; cat "$work/$1.err" >&2; exit 1; }
    [ ! -e "$work/$1_out" ] || { echo "$1: wrote $work/$1_out" >&2; exit 1; }
}
refuse tile '{"kernels": {"rec": {"all": {"tile": 99}}}}' "field 'kernels.rec.all.tile' must be an integer from 1 to 16" ""
refuse cls '{"kernels": {"proj": {"l1": {"tile": 2}}}}' "field 'kernels.proj.l1' is not a shape class" ""
refuse kind '{"kernels": {"gemv": {}}}' "field 'kernels.gemv' is not a kernels field" ""
refuse dotv '{"kernels": {"rec": {"all": {"dot": 4}}}}' "field 'kernels.rec.all.dot' must be an integer from 0 to 3" ""
refuse dotp '{"kernels": {"proj": {"l2": {"dot": -1}}}}' "field 'kernels.proj.l2.dot' must be an integer from 0 to 3" ""
# foreign: the bf16 dot product for a CPU without it (any model: the profile is wrong)
refuse dotc '{"cpu": {"triple": "x86_64-unknown-linux-gnu", "cpu": "skylake-avx512", "features": ""}, "kernels": {"rec": {"llc": {"dot": 2}}}}' \
    "field 'kernels.rec.llc.dot' asks for the AVX-512 BF16 dot product" ""
refuse dotcp '{"cpu": {"triple": "x86_64-unknown-linux-gnu", "cpu": "skylake-avx512", "features": ""}, "kernels": {"proj": {"all": {"dot": 3}}}}' \
    "field 'kernels.proj.all.dot' asks for the AVX-512 BF16 dot product" ""
# the full-integer VNNI kernel's parameters (the kernels themselves: tests/e2e/kparams_int.py)
refuse intp '{"kernels": {"int": {"all": {"prefetch": 4}}}}' "field 'kernels.int.all.prefetch' is not an int parameter (tile, rows, alternate, pipe)" ""
refuse intr '{"kernels": {"int": {"llc": {"rows": 3}}}}' "field 'kernels.int.llc.rows' must be 1, 2, 4, 8 or 16" ""
refuse intt '{"kernels": {"int": {"l2": {"tile": 9}}}}' "field 'kernels.int.l2.tile' must be an integer from 1 to 8" ""
refuse intq '{"kernels": {"int": {"dram": {"pipe": 2}}}}' "field 'kernels.int.dram.pipe' must be an integer from 0 to 1" ""
# foreign: the VNNI kernel's parameters for a CPU without AVX-512 VNNI (any model)
refuse intc '{"cpu": {"triple": "x86_64-unknown-linux-gnu", "cpu": "skylake-avx512", "features": ""}, "kernels": {"int": {"l2": {"pipe": 0}}}}' \
    "field 'kernels.int.l2.pipe' sets a parameter of the full-integer AVX-512 VNNI kernel; its CPU (skylake-avx512) has no AVX-512 VNNI" ""
# foreign: 256-bit vectors for a CPU whose vectors are 128 bits
refuse arm '{"cpu": {"triple": "armv7-unknown-linux-gnueabihf", "cpu": "cortex-a9", "features": "+neon"}, "kernels": {"vector_bits": 256}}' \
    "field 'kernels.vector_bits' asks for 256-bit vectors" ""
echo "kparams: ok"
