#!/usr/bin/python3
"""make_big_consts.py — tiny valid models that ask for huge data (issue 11, resource
bounds): reproducers for the weights/arena limit the compiler does not have yet.

  const_blowup_20x60MB.onnx  (~2 KB) 20 x ConstantOfShape([15,000,000]) + Add: each
                             constant is folded (60 MB, under FOLD_MAX_BYTES), so lstmc
                             holds 1.2 GB and writes a 2.1 GB NAME_weights.c.
  const_arena_8GB.onnx       (~150 B) ConstantOfShape([2^31 - 1]) + Add: too big to fold,
                             so the generated arena is 8 GiB.

Debian's python3-onnx 1.12; deterministic output.
"""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def cos_model(k, n):
    nodes, outs = [], []
    for i in range(k):
        v = helper.make_tensor("v", TensorProto.FLOAT, [1], [float(i + 1)])
        nodes.append(helper.make_node("ConstantOfShape", ["shp"], ["c%d" % i], value=v))
        nodes.append(helper.make_node("Add", ["c%d" % i, "X"], ["y%d" % i]))
        outs.append(helper.make_tensor_value_info("y%d" % i, TensorProto.FLOAT, [n]))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1])],
                          outs, [numpy_helper.from_array(np.array([n], np.int64), "shp")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    return m.SerializeToString()


for name, data in (("const_blowup_20x60MB.onnx", cos_model(20, 15_000_000)),
                   ("const_arena_8GB.onnx", cos_model(1, 2**31 - 1))):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)
