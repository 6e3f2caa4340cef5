#!/usr/bin/env python3
"""make_pruned.py — reference cases for lstmc's sparse weights (passes/sparse.c, issue 10).

Run with Debian's /usr/bin/python3 (python3-torch, python3-onnx, python3-numpy):

    /usr/bin/python3 tests/e2e/sparse/make_pruned.py

It writes two fixture cases under tests/e2e/sparse/cases/ in the layout of tests/fixtures
(model.onnx, inputs.txt, inputs/*.npy, expected/*.npy):

  prune_w30_u50   the DENSE model; expected = PyTorch on the weights pruned by magnitude
                  (W:0.3, U:0.5). lstmc must reproduce it with --prune=W:0.3,U:0.5.
  pruned_w96_u96  the model exported AFTER pruning (W:0.96, U:0.96): lstmc must detect the
                  zeros (--sparse=auto with the portable C kernels, or auto:F), store W and U
                  in eSELL, and match PyTorch.

The pruning rule is lstmc's (passes/sparse.c), applied here independently on PyTorch's
weight_ih / weight_hh (one matrix per layer and direction; the rule only looks at
magnitudes, so PyTorch's gate order i f g o versus ONNX's i o f c does not matter): with
k = floor(f * n), every element whose |w| is at most the k-th smallest |w| becomes 0.
"""
import io
import math
import os
import shutil

import numpy as np
import onnx
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


class Net(torch.nn.Module):
    """Two LSTM layers (the first bidirectional) and a linear head, batch first."""

    def __init__(self, i=12, h=24, classes=5):
        super().__init__()
        self.l1 = torch.nn.LSTM(i, h, batch_first=True, bidirectional=True)
        self.l2 = torch.nn.LSTM(2 * h, h, batch_first=True)
        self.fc = torch.nn.Linear(h, classes)

    def forward(self, x):
        y, _ = self.l1(x)
        y, (hn, _) = self.l2(y)
        return self.fc(y), hn


def prune_(w, f):
    """lstmc's rule on one matrix, in place."""
    k = int(math.floor(f * w.numel()))
    if k < 1:
        return
    t = torch.sort(w.abs().flatten()).values[k - 1]
    w[w.abs() <= t] = 0.0


def prune_net(net, fw, fu):
    with torch.no_grad():
        for name, p in net.named_parameters():
            if name.startswith("weight_ih", name.find(".") + 1):
                prune_(p, fw)
            elif name.startswith("weight_hh", name.find(".") + 1):
                prune_(p, fu)


def save_npy(path, a):
    np.save(path, np.ascontiguousarray(a))


def write_case(name, export_net, ref_net, x):
    d = os.path.join(HERE, "cases", name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "inputs"))
    os.makedirs(os.path.join(d, "expected"))
    export_net.eval()
    ref_net.eval()
    buf = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(export_net, (x,), buf, opset_version=14, input_names=["x"],
                          output_names=["logits", "h_last"], do_constant_folding=True)
        logits, hn = ref_net(x)
    model = onnx.load_from_string(buf.getvalue())
    model.graph.name = name
    onnx.save(model, os.path.join(d, "model.onnx"))
    save_npy(os.path.join(d, "inputs", "x.npy"), x.numpy().astype(np.float32))
    with open(os.path.join(d, "inputs.txt"), "w") as f:
        f.write("x\tinputs/x.npy\n")
    save_npy(os.path.join(d, "expected", "logits.npy"), logits.numpy().astype(np.float32))
    save_npy(os.path.join(d, "expected", "h_last.npy"), hn.numpy().astype(np.float32))


def main():
    torch.manual_seed(10)
    dense = Net()
    x = torch.randn(3, 9, 12)
    pruned = Net()
    pruned.load_state_dict(dense.state_dict())
    prune_net(pruned, 0.3, 0.5)
    write_case("prune_w30_u50", dense, pruned, x)

    heavy = Net()
    heavy.load_state_dict(dense.state_dict())
    prune_net(heavy, 0.96, 0.96)
    write_case("pruned_w96_u96", heavy, heavy, x)


if __name__ == "__main__":
    main()
