#!/bin/sh
# elt_refusals.sh LSTMC BAD_DIR WORK: issue 20's refusal messages, one lstmc run per model,
# every line checked (fixed strings):
#   dyn_shape_operands.onnx  every shape operand computed from a graph input's values is
#                            named in one run, with the graph input behind it; the Reshape
#                            whose shape comes from Shape (dims only) is not named
#   unsupported_softsign.onnx  the PyTorch construct of an unsupported op; the summary says it
#                            is the only obstacle and one node reads its result
#   unsupported_and_other.onnx  the summary counts the other refusal
#   unsupported_rest_bad.onnx   the rest of the graph (what does not read the unsupported
#                            op's result) is compiled too, and its own error reported
set -u
lstmc=$1 bad=$2 work=$3
status=0
mkdir -p "$work"
check() { # MODEL SUBSTRING...
    model=$1
    shift
    out=$("$lstmc" "$bad/$model" --target=host -o "$work/${model%.onnx}" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -ne 1 ]; then
        echo "$model: exit status $rc, want 1" >&2
        status=1
    fi
    for want in "$@"; do
        if ! printf '%s\n' "$out" | grep -qF -- "$want"; then
            echo "$model: output lacks '$want'" >&2
            status=1
        fi
    done
    printf '%s\n' "$out" >&2
}
check dyn_shape_operands.onnx \
    "node 'reshape_a' (Reshape): shape operand 'shape' (tensor 'ids1', computed from the values of graph input 'ids') is not constant once the input dims are bound" \
    "node 'tile_a' (Tile): shape operand 'repeats' (graph input 'ids') is not constant" \
    "node 'expand_a' (Expand): shape operand 'shape' (graph input 'ids') is not constant" \
    "node 'zeros_a' (ConstantOfShape): shape operand 'input' (graph input 'ids') is not constant" \
    "node 'range_a' (Range): shape operand 'limit' (tensor 'n0', computed from the values of graph input 'ids')" \
    "a shape operand must not depend on a graph input's values"
if printf '%s\n' "$out" | grep -qF "reshape_ok"; then
    echo "dyn_shape_operands.onnx: the Reshape whose shape comes from Shape is named" >&2
    status=1
fi
check unsupported_softsign.onnx \
    "node 'softsign_a' (Softsign): unsupported operator 'Softsign' (in PyTorch usually from nn.Softsign" \
    "1 of the 3 nodes use operators lstmc does not support (Softsign); they are the only obstacle the import found: every other node is supported as written (1 of them read their results" \
    "note: the rest of the graph compiles: the 1 node that does not read the unsupported operators' results passes shape inference, constant folding and lowering to kernels"
check unsupported_and_other.onnx \
    "node 'cast_str' (Cast): attribute 'to' is STRING" \
    "1 of the 2 nodes use operators lstmc does not support (Softsign); besides them, the import refused 1 other thing"
check unsupported_rest_bad.onnx \
    "the rest of the graph would not compile either: node 'add_bad' (Add): inputs 'A' [2,3] and 'B' [4] do not broadcast"
if printf '%s\n' "$out" | grep -qF "would not compile either: node 'softsign_a'"; then
    echo "unsupported_rest_bad.onnx: the import's message repeated as the rest's" >&2
    status=1
fi
exit $status
