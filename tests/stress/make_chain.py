#!/usr/bin/python3
"""make_chain.py — chain_20k.onnx: a graph of 20,000 nodes in one dependency chain,
alternating Add (with one shared [1, 8] constant) and Relu, on an input X of shape [1, 8].

Issue 11: a huge graph compiles, or fails cleanly, in bounded time (tests/e2e/bad_inputs.cmake
runs `lstmc` on it under a time limit). Value names are short base-36 numbers to keep the
file small. Debian's python3-onnx 1.12; deterministic output.

    /usr/bin/python3 tests/stress/make_chain.py [N]
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
HERE = os.path.dirname(os.path.abspath(__file__))


def b36(i):
    s = ""
    while True:
        i, r = divmod(i, 36)
        s = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + s
        if i == 0:
            return s


nodes = []
prev = "X"
for i in range(N):
    out = "Y" if i == N - 1 else b36(i)
    if i % 2 == 0:
        nodes.append(helper.make_node("Add", [prev, "C"], [out]))
    else:
        nodes.append(helper.make_node("Relu", [prev], [out]))
    prev = out
C = numpy_helper.from_array(np.full((1, 8), -0.001, np.float32), "C")
g = helper.make_graph(nodes, "chain",
                      [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 8])],
                      [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 8])], [C])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)], producer_name="lstmc")
m.ir_version = 8
name = "chain_20k.onnx" if N == 20000 else "chain_%d.onnx" % N
with open(os.path.join(HERE, name), "wb") as f:
    f.write(m.SerializeToString())
