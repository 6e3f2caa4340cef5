#!/usr/bin/python3
"""make_drs_fixture.py — the alpha_intra > 0 fixture of issue 6 (MICRO'18 §V, Algorithm 3).

Writes tests/e2e/drs/case/: model.onnx (one bidirectional ONNX LSTM, random weights, batch 2,
sequence_lens) and an input x.npy, then runs an independent numpy float64 implementation of
Algorithm 3 at alpha_intra = ALPHA and writes expected/Y.npy, Y_h.npy, Y_c.npy and
expected/counts.txt ("alpha cells rows_total rows_skipped"). tests/e2e/drs/check_drs.sh compiles
the model, sets alpha per run through <name>_set_thresholds and compares.

Algorithm 3 per cell (gates i o f c as ONNX stores them; "." element-wise):
  line 4-5  o = sigmoid(W_o x + U_o h + b_o)
  line 6    R = { j : |o_j| >= alpha }
  line 7-8  for j in R: i, f, g from rows j of U_i, U_f, U_c; c_j = f c_j + i g; h_j = o_j tanh(c_j)
            for j not in R: c_j = 0, h_j = o_j tanh(0) = 0        (§V-A: c_t approximated to 0)
ALPHA is chosen (from a list) so that no |o| lies within MARGIN of it, so float32 rounding in
the compiled code cannot flip a decision.

Issue 24: the same at ALPHA with W and R as --weights=fp16, bf16 and int8 store them (rounded by
tests/e2e/relevance/make_relevance_fixture.py's rnd16, rndbf, rnd8, the margin held for every
format too): expected/<fmt>/Y.npy, Y_h.npy, Y_c.npy, counts.txt.

    /usr/bin/python3 tests/e2e/drs/make_drs_fixture.py
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "relevance"))
from make_relevance_fixture import rnd8, rnd16, rndbf  # noqa: E402

T, N, I, H = 10, 2, 4, 16
SEQ = np.array([10, 7], dtype=np.int32)
MARGIN = 2e-3
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "case")


def sig(v):
    return 1.0 / (1.0 + np.exp(-v))


def drs_layer(x, W, R, B, alpha):
    """Algorithm 3 over one bidirectional layer: Y [T,2,N,H], Y_h, Y_c [2,N,H], counts and
    the smallest distance of any |o| to alpha."""
    Y = np.zeros((T, 2, N, H))
    Yh = np.zeros((2, N, H))
    Yc = np.zeros((2, N, H))
    cells = skipped = 0
    near = np.inf
    for d in range(2):
        Wd, Rd, bd = W[d].astype(np.float64), R[d].astype(np.float64), B[d].astype(np.float64)
        bias = bd[:4 * H] + bd[4 * H:]
        Wi, Wo, Wf, Wc = np.split(Wd, 4)
        Ri, Ro, Rf, Rc = np.split(Rd, 4)
        bi, bo, bf, bc = np.split(bias, 4)
        for n in range(N):
            h = np.zeros(H)
            c = np.zeros(H)
            s = SEQ[n]
            for step in range(s):
                t = step if d == 0 else s - 1 - step
                xt = x[t, n].astype(np.float64)
                o = sig(Wo @ xt + Ro @ h + bo)                      # lines 4-5
                near = min(near, np.min(np.abs(np.abs(o) - alpha)))
                keep = np.abs(o) >= alpha                            # line 6
                hn = np.zeros(H)
                cn = np.zeros(H)
                for j in np.nonzero(keep)[0]:                        # line 7: rows in R only
                    it = sig(Wi[j] @ xt + Ri[j] @ h + bi[j])
                    ft = sig(Wf[j] @ xt + Rf[j] @ h + bf[j])
                    gt = np.tanh(Wc[j] @ xt + Rc[j] @ h + bc[j])
                    cn[j] = ft * c[j] + it * gt                      # line 8
                    hn[j] = o[j] * np.tanh(cn[j])
                # skipped units: c = 0, h = o tanh(0) = 0 (already zero)
                h, c = hn, cn
                Y[t, d, n] = h
                cells += 1
                skipped += 3 * int(np.count_nonzero(~keep))
            Yh[d, n] = h
            Yc[d, n] = c
    return Y, Yh, Yc, cells, 3 * H * cells, skipped, near


def main():
    rng = np.random.default_rng(6)
    W = (rng.standard_normal((2, 4 * H, I)) * 0.6).astype(np.float32)
    R = (rng.standard_normal((2, 4 * H, H)) * 0.4).astype(np.float32)
    B = (rng.standard_normal((2, 8 * H)) * 0.5).astype(np.float32)
    x = rng.standard_normal((T, N, I)).astype(np.float32)

    fmts = (("fp16", rnd16), ("bf16", rndbf), ("int8", rnd8))
    for alpha in (0.3, 0.31, 0.29, 0.32, 0.28, 0.33):
        res = drs_layer(x, W, R, B, alpha)
        lowp = [(f, drs_layer(x, rnd(W), rnd(R), B, alpha)) for f, rnd in fmts]
        if min([res[6]] + [r[6] for _, r in lowp]) > MARGIN:
            break
    else:
        sys.exit("no alpha with a safe margin")
    Y, Yh, Yc, cells, total, skipped, near = res
    assert 0 < skipped < total

    node = helper.make_node("LSTM", ["x", "W", "R", "B", "seq"], ["Y", "Y_h", "Y_c"],
                            name="lstm_drs", hidden_size=H, direction="bidirectional")
    graph = helper.make_graph(
        [node], "drs_case",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [T, N, I])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [T, 2, N, H]),
         helper.make_tensor_value_info("Y_h", TensorProto.FLOAT, [2, N, H]),
         helper.make_tensor_value_info("Y_c", TensorProto.FLOAT, [2, N, H])],
        [numpy_helper.from_array(W, "W"), numpy_helper.from_array(R, "R"),
         numpy_helper.from_array(B, "B"), numpy_helper.from_array(SEQ, "seq")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)],
                              producer_name="make_drs_fixture.py")
    onnx.checker.check_model(model)
    os.makedirs(os.path.join(OUT, "expected"), exist_ok=True)
    onnx.save(model, os.path.join(OUT, "model.onnx"))
    np.save(os.path.join(OUT, "x.npy"), x)
    for name, v in (("Y", Y), ("Y_h", Yh), ("Y_c", Yc)):
        np.save(os.path.join(OUT, "expected", name + ".npy"), v.astype(np.float32))
    with open(os.path.join(OUT, "expected", "counts.txt"), "w") as f:
        f.write("%r %d %d %d\n" % (alpha, cells, total, skipped))
    for fmt, r in lowp:
        os.makedirs(os.path.join(OUT, "expected", fmt), exist_ok=True)
        for name, v in (("Y", r[0]), ("Y_h", r[1]), ("Y_c", r[2])):
            np.save(os.path.join(OUT, "expected", fmt, name + ".npy"), v.astype(np.float32))
        with open(os.path.join(OUT, "expected", fmt, "counts.txt"), "w") as f:
            f.write("%r %d %d %d\n" % (alpha, r[3], r[4], r[5]))
        assert 0 < r[5] < r[4]
        print("%s: %d of %d rows skipped, largest |Y| change from fp32 %.4f" %
              (fmt, r[5], r[4], float(np.max(np.abs(r[0] - Y)))))
    print("alpha %r: %d cells, %d of %d rows skipped (%.1f %%), nearest |o| %.4f from alpha"
          % (alpha, cells, skipped, total, 100.0 * skipped / total, near))


if __name__ == "__main__":
    main()
