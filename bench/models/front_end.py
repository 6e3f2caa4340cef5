#!/usr/bin/python3
"""front_end.py MODEL.onnx OUT.onnx — the front end of a recurrent model: the subgraph from
the graph inputs to the X input of its first LSTM / GRU / RNN node (onnx.utils.extract_model),
for bench/models/run.sh. Prints the graph inputs the front end reads, space-separated; exits
3 when the first recurrent layer reads a graph input directly, or when what lies before it
computes nothing worth timing (layout ops and shape subgraphs that fold to constants)."""
import sys

import onnx
import onnx.utils

# ops that cost time in a front end (the rest move bytes or fold away)
COMPUTE = {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool",
           "GlobalMaxPool", "BatchNormalization", "LayerNormalization", "ReduceMean",
           "ReduceSum", "MatMul", "Gemm", "Pad", "Log", "Exp", "Pow", "Sqrt"}


def main():
    src, out = sys.argv[1], sys.argv[2]
    m = onnx.load(src)
    g = m.graph
    inits = {t.name for t in g.initializer}
    inputs = [i.name for i in g.input if i.name not in inits]
    rec = next((n for n in g.node if n.op_type in ("LSTM", "GRU", "RNN")), None)
    if rec is None or rec.input[0] in inputs:
        sys.exit(3)
    x = rec.input[0]
    producer = {o: n for n in g.node for o in n.output}
    need, stack, seen = set(), [x], set()
    while stack:  # the graph inputs x depends on
        t = stack.pop()
        if t in seen:
            continue
        seen.add(t)
        if t in inputs:
            need.add(t)
        elif t in producer:
            stack.extend(i for i in producer[t].input if i)
    names = [i for i in inputs if i in need]
    ops = {producer[t].op_type for t in seen if t in producer}
    if not ops & COMPUTE:
        sys.exit(3)
    onnx.utils.extract_model(src, out, names, [x])
    print(" ".join(names))


main()
