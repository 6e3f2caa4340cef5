/*
 * onnx_hints.c — what PyTorch code usually produced an ONNX operator lstmc refuses, so the
 * message says what to change in the model rather than only the op type (issue 20):
 *
 *   unsupported operator 'TopK' (in PyTorch usually from pack_padded_sequence(
 *   enforce_sorted=False), which sorts the batch by length; or torch.topk / torch.sort)
 *
 * One row per op type, from the exports of torch 1.13 - 2.x at opsets 11-17 (the ops a
 * layer or a tensor method becomes). An op lstmc supports never reaches this table.
 */
#include "onnx_impl.h"

#include <string.h>

/* what to do instead of a model quantised dynamically by ONNX Runtime */
#define ORT_DYNAMIC                                                                                \
    "give lstmc the float model: --weights=int8 stores its weights in int8, "                      \
    "--activations=int8 --calib-data=X.npy runs its recurrent layers in integers"

static const struct {
    const char *op_type;
    const char *construct;
} hints[] = {
    {"Conv", "nn.Conv1d / nn.Conv2d"},
    {"ConvTranspose", "nn.ConvTranspose1d / nn.ConvTranspose2d"},
    {"BatchNormalization", "nn.BatchNorm1d / nn.BatchNorm2d"},
    {"LayerNormalization", "nn.LayerNorm at opset 17"},
    {"ReduceMean", "nn.LayerNorm exported at opset <= 16, or tensor.mean(dim)"},
    {"ReduceSum", "tensor.sum(dim)"},
    {"ReduceMax", "tensor.max(dim) / torch.amax"},
    {"ReduceMin", "tensor.min(dim) / torch.amin"},
    {"ReduceL2", "torch.norm / F.normalize"},
    {"MaxPool", "nn.MaxPool1d / nn.MaxPool2d"},
    {"AveragePool", "nn.AvgPool1d / nn.AvgPool2d"},
    {"GlobalAveragePool", "nn.AdaptiveAvgPool1d(1) / nn.AdaptiveAvgPool2d(1)"},
    {"GlobalMaxPool", "nn.AdaptiveMaxPool1d(1)"},
    {"Pad", "F.pad / nn.ConstantPad1d / nn.ReflectionPad1d, or a Conv's padding_mode"},
    {"Split", "torch.split / torch.chunk, e.g. the gates of nn.GRUCell / nn.LSTMCell"},
    {"TopK", "pack_padded_sequence(enforce_sorted=False), which sorts the batch by length; or "
             "torch.topk / torch.sort"},
    {"ScatterElements", "pack_padded_sequence(enforce_sorted=False), which restores the batch "
                        "order; or tensor.scatter"},
    {"Scatter", "tensor.scatter"},
    {"ScatterND", "index assignment (x[idx] = v)"},
    {"GatherElements", "torch.gather"},
    {"GatherND", "advanced indexing (x[idx_a, idx_b])"},
    {"NonZero", "torch.nonzero or boolean-mask indexing (x[mask])"},
    {"Tile", "tensor.repeat"},
    {"Expand", "tensor.expand / expand_as"},
    {"Einsum", "torch.einsum"},
    {"Loop", "a Python loop compiled by torch.jit.script (export the traced model instead)"},
    {"If", "Python control flow compiled by torch.jit.script (export the traced model instead)"},
    {"SequenceConstruct", "a list of tensors returned or built in forward"},
    {"SplitToSequence", "torch.unbind / a list built from a tensor"},
    {"ConcatFromSequence", "torch.stack / torch.cat of a list built in a loop"},
    {"Resize", "nn.Upsample / F.interpolate"},
    {"Upsample", "nn.Upsample / F.interpolate"},
    {"Dropout", "nn.Dropout exported in training mode (call model.eval() before exporting)"},
    {"Sum", "a sum of several tensors (sum(list))"},
    {"Mean", "torch.mean of a list"},
    {"Celu", "nn.CELU"},
    {"Softsign", "nn.Softsign"},
    {"Gelu", "nn.GELU at opset 20"},
    {"Mish", "nn.Mish"},
    {"ThresholdedRelu", "nn.Threshold"},
    {"Mod", "the % operator / torch.remainder"},
    {"Xor", "the ^ operator on bool tensors"},
    {"IsNaN", "torch.isnan"},
    {"IsInf", "torch.isinf"},
    {"Trilu", "torch.triu / torch.tril, e.g. a causal attention mask"},
    {"OneHot", "F.one_hot"},
    {"LpNormalization", "F.normalize"},
    {"MatMulInteger", "torch.quantization.quantize_dynamic (dynamic int8 Linear), or ONNX "
                      "Runtime's quantize_dynamic: " ORT_DYNAMIC},
    {"DynamicQuantizeLinear", "torch.quantization.quantize_dynamic (dynamic int8 Linear), or ONNX "
                              "Runtime's quantize_dynamic: " ORT_DYNAMIC},
    {"NonMaxSuppression", "torchvision.ops.nms"},
    {"Attention", "nn.MultiheadAttention fused by an optimiser (export without fusion)"},
    {"MultiHeadAttention", "nn.MultiheadAttention fused by an optimiser (export without fusion)"},
};

/* ONNX Runtime's own operators (domain com.microsoft) that its quantisers write */
static const char *const ort_quant_ops[] = {
    "DynamicQuantizeLSTM", "DynamicQuantizeMatMul", "MatMulIntegerToFloat", "QLinearAdd",
    "QLinearMul",          "QLinearSigmoid",        "QLinearConcat",        "QGemm",
    "QAttention",          "QLinearConv",           "QLinearMatMul",        "QLinearSoftmax"};

const char *
onnx_ort_domain_hint(const char *op_type)
{
    size_t i;
    for (i = 0; op_type && i < sizeof ort_quant_ops / sizeof ort_quant_ops[0]; i++)
        if (strcmp(ort_quant_ops[i], op_type) == 0)
            return "ONNX Runtime's quantize_dynamic / quantize_static (QOperator "
                   "format): " ORT_DYNAMIC ", or quantise in the QDQ format, which lstmc imports";
    return NULL;
}

const char *
onnx_pytorch_hint(const char *op_type)
{
    size_t i;
    for (i = 0; op_type && i < sizeof hints / sizeof hints[0]; i++)
        if (strcmp(hints[i].op_type, op_type) == 0)
            return hints[i].construct;
    return NULL;
}
