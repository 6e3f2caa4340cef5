#!/usr/bin/python3
"""make_onnx_seeds.py — the fuzz_onnx seeds that are not copies of test models: an LSTM
whose W is external data in w.bin, the 1024-byte file fuzz_onnx.c puts beside the model
(in range, and past its end). Debian's python3-onnx 1.12; deterministic output.

The other seeds in fuzz/corpus/onnx are copies of the smallest tests/fixtures/cases/*/
model.onnx (named after the case) and of tests/bad/*.onnx (bad_*.onnx).
"""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "onnx")
I, H = 4, 3


def ext_lstm(offset):
    rs = np.random.RandomState(5)
    R = rs.standard_normal((1, 4 * H, H)).astype(np.float32)
    B = rs.standard_normal((1, 8 * H)).astype(np.float32)
    W = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[1, 4 * H, I])
    W.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "w.bin"), ("offset", str(offset)), ("length", str(4 * H * I * 4))):
        e = W.external_data.add()
        e.key, e.value = k, v
    g = helper.make_graph(
        [helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h"], hidden_size=H)], "ext",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["seq", 1, I])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["seq", 1, 1, H]),
         helper.make_tensor_value_info("Y_h", TensorProto.FLOAT, [1, 1, H])],
        [W, numpy_helper.from_array(R, "R"), numpy_helper.from_array(B, "B")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)],
                          producer_name="lstmc-fuzz")
    m.ir_version = 8
    return m.SerializeToString()


os.makedirs(OUT, exist_ok=True)
for name, data in (("ext_lstm_ok.onnx", ext_lstm(64)), ("ext_lstm_past_end.onnx", ext_lstm(900))):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
