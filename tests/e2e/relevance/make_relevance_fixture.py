#!/usr/bin/python3
"""make_relevance_fixture.py — the fixture of issue 24's calibrated relevance (docs/TUNING.md
"The relevance"): an independent numpy float64 reference of lstmc calibrate's bound of U h and
of the cut rule of --relevance=calibrated and --relevance=sensitivity.

Writes tests/e2e/relevance/case/: model.onnx (one bidirectional ONNX LSTM, random weights,
batch 1, no sequence_lens: what lstmc calibrate takes), x_cal.npy (K calibration samples
[K, T, 1, I]) and x.npy (the run's input [T, 1, I]), and in expected/:
  calib_u.txt   per direction the lines "um DIR ..." and "ur DIR ..." lstmc calibrate must
                write: the mean over every link (t >= 1 of each direction's order, every
                calibration sample) of u = R_r h_{t-1} per gate row r, and the 0.99 quantile of
                |u - mean| (sorted, index floor(0.99 (n - 1)));
  MODE.txt      "alpha cells links sub_layers" for MODE calibrated and sensitivity: alpha cuts
                between a fifth and a half of the run's links and no S lies within MARGIN
                (relative) of it; for MODE window, the sensitivity at alpha 0 with
                --max-sublayer=L (a fifth field): the forced cuts of rt_tissue.c's plan, a
                sub-layer about to reach L + 1 cells cut at the lowest S of its steps
                (start + L // 2, step];
  MODE_Y.npy, MODE_Y_h.npy, MODE_Y_c.npy   the layer with those links cut: at a cut link into
                step t the cell starts from h_pred, c_pred (the means of h and c over every cell
                of the calibration samples) instead of h_{t-1}, c_{t-1}.
S (runtime/src/rt_tissue.c), with x the P row (W x_t + Wb + Rb), z = x + um, r = ur, per unit j:
  calibrated:  Algorithm 2 on z and r: S += S_o (S_f + S_i S_c), S_f = min(4, max(z_f + r_f + 2,
               0)), S_g = max(0, min(2 + min(2, |z_g|), min(2, 2 + r_g - max(2, |z_g|))));
  sensitivity: S += 1/4 (T4(z_i) r_i + T4(z_o) r_o + T4(z_f) r_f) + T2(z_c) r_c, Tk(z) =
               max(0, 1 - |z| / k), with r = ur / sum_j (1/4 (ur_i + ur_o + ur_f) + ur_c)
               per direction (S in [0, 1]).

    /usr/bin/python3 tests/e2e/relevance/make_relevance_fixture.py
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

T, I, H, K = 16, 4, 8, 24
MARGIN = 1e-3
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "case")


def sig(v):
    return 1.0 / (1.0 + np.exp(-v))


def rel_calibrated(x, r, m):
    z = x + m
    zi, zo, zf, zc = np.split(z, 4)
    ri, ro, rf, rc = np.split(r, 4)

    def ov(a, d):
        a = np.abs(a)
        return np.maximum(0.0, np.minimum(2 + np.minimum(2, a), np.minimum(2, 2 + d - np.maximum(2, a))))
    sf = np.minimum(4, np.maximum(zf + rf + 2, 0))
    return float(np.sum(ov(zo, ro) * (sf + ov(zi, ri) * ov(zc, rc))))


def rel_sensitivity(x, r, m):
    ri, ro, rf, rc = np.split(r, 4)
    r = r / np.sum(0.25 * (ri + ro + rf) + rc)
    z = x + m
    zi, zo, zf, zc = np.split(z, 4)
    ri, ro, rf, rc = np.split(r, 4)

    def tri(v, k):
        return np.maximum(0.0, 1.0 - np.abs(v) / k)
    return float(np.sum(0.25 * (tri(zi, 4) * ri + tri(zo, 4) * ro + tri(zf, 4) * rf) + tri(zc, 2) * rc))


def rnd16(a):
    """a rounded to fp16 (round to nearest even), as float32"""
    return a.astype(np.float16).astype(np.float32)


def rndbf(a):
    """a rounded to bf16 (round to nearest even on the float32 bits), as float32"""
    u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def rnd8(a):
    """a [D, G, K] as --weights=int8 stores it (passes/lowp.c, lowp_quant_row): per output row
    g a float32 scale s = max|row| / 127 and q = roundf(w / s) (half away from zero), as s * q"""
    a = a.astype(np.float32)
    s = (np.max(np.abs(a), axis=2, keepdims=True) / np.float32(127)).astype(np.float32)
    r = np.where(s > 0, a / np.where(s > 0, s, 1), 0).astype(np.float32)
    q = np.clip(np.sign(r) * np.floor(np.abs(r) + np.float32(0.5)), -127, 127)
    return (s * q).astype(np.float32)


def forced_cuts(S, L):
    """--max-sublayer=L at alpha 0 (rt_tissue.c): the steps of one chain (S[step] the relevance
    of the link into step) where a sub-layer about to reach L + 1 cells is cut, at the lowest S
    of the steps (start + L // 2, step], the first of equals."""
    cuts, start = set(), 0
    for step in range(1, len(S)):
        if step - start == L:
            lo = start + L // 2 + 1
            w = np.sort(S[lo:step + 1])
            assert len(w) < 2 or w[1] - w[0] > MARGIN * abs(w[0]), "a window's two lowest S tie"
            cpos = lo + int(np.argmin(S[lo:step + 1]))
            cuts.add(cpos)
            start = cpos
    return cuts


def layer(x, W, R, B, cut=None, pred=None):
    """One bidirectional LSTM over x [T, I]: Y [T, 2, H], the states, the P rows and h_{t-1} of
    every step in each direction's order; cut(d, step, P row) says which links to cut."""
    Y = np.zeros((T, 2, H))
    hs, cs, links = [[], []], [[], []], [[], []]
    Yh, Yc = np.zeros((2, H)), np.zeros((2, H))
    ncut = 0
    for d in range(2):
        Wd, Rd = W[d].astype(np.float64), R[d].astype(np.float64)
        b = B[d, :4 * H].astype(np.float64) + B[d, 4 * H:].astype(np.float64)
        h, c = np.zeros(H), np.zeros(H)
        for step in range(T):
            t = step if d == 0 else T - 1 - step
            P = Wd @ x[t].astype(np.float64) + b
            if step > 0:
                links[d].append((P, h.copy()))
                if cut is not None and cut(d, P, step):
                    h, c = pred[0][d].copy(), pred[1][d].copy()
                    ncut += 1
            z = P + Rd @ h
            i, o, f, g = sig(z[:H]), sig(z[H:2 * H]), sig(z[2 * H:3 * H]), np.tanh(z[3 * H:])
            c = f * c + i * g
            h = o * np.tanh(c)
            Y[t, d] = h
            hs[d].append(h)
            cs[d].append(c)
        Yh[d], Yc[d] = h, c
    return Y, Yh, Yc, hs, cs, links, ncut


def main():
    rng = np.random.default_rng(24)
    W = (rng.standard_normal((2, 4 * H, I)) * 0.7).astype(np.float32)
    R = (rng.standard_normal((2, 4 * H, H)) * 0.5).astype(np.float32)
    B = (rng.standard_normal((2, 8 * H)) * 0.6).astype(np.float32)
    x_cal = rng.standard_normal((K, T, 1, I)).astype(np.float32)
    x = rng.standard_normal((T, 1, I)).astype(np.float32)

    # calibration: h_pred, c_pred over every cell; um, ur over every link
    hsum, csum = np.zeros((2, H)), np.zeros((2, H))
    us = [[], []]
    for k in range(K):
        _, _, _, hs, cs, links, _ = layer(x_cal[k, :, 0], W, R, B)
        for d in range(2):
            hsum[d] += np.sum(hs[d], axis=0)
            csum[d] += np.sum(cs[d], axis=0)
            us[d] += [R[d].astype(np.float64) @ hp for _, hp in links[d]]
    pred = (hsum / (K * T), csum / (K * T))
    um = np.array([np.mean(us[d], axis=0) for d in range(2)])
    ur = np.zeros((2, 4 * H))
    for d in range(2):
        dev = np.sort(np.abs(np.array(us[d]) - um[d]), axis=0)
        ur[d] = dev[int(0.99 * (len(us[d]) - 1))]

    os.makedirs(os.path.join(OUT, "expected"), exist_ok=True)
    with open(os.path.join(OUT, "expected", "calib_u.txt"), "w") as f:
        for d in range(2):
            f.write("um %d %s\n" % (d, " ".join("%.9g" % v for v in um[d])))
            f.write("ur %d %s\n" % (d, " ".join("%.9g" % v for v in ur[d])))

    _, _, _, _, _, links, _ = layer(x[:, 0], W, R, B)
    nlinks = sum(len(v) for v in links)
    for mode, fn in (("calibrated", rel_calibrated), ("sensitivity", rel_sensitivity)):
        S = np.array(sorted(fn(P, ur[d], um[d]) for d in range(2) for P, _ in links[d]))
        for q in (0.3, 0.35, 0.25, 0.4, 0.45, 0.22):
            alpha = float(np.float32(np.quantile(S, q)))
            alpha = float(np.float32(alpha * (1 + 2 * MARGIN)))
            if np.min(np.abs(S - alpha)) > MARGIN * abs(alpha):
                break
        else:
            sys.exit("%s: no alpha with a safe margin" % mode)
        Y, Yh, Yc, _, _, _, ncut = layer(
            x[:, 0], W, R, B, lambda d, P, step: fn(P, ur[d], um[d]) < alpha, pred)
        assert nlinks // 5 <= ncut <= nlinks // 2, (mode, ncut, nlinks)
        with open(os.path.join(OUT, "expected", mode + ".txt"), "w") as f:
            f.write("%r %d %d %d\n" % (alpha, 2 * T, nlinks, 2 + ncut))
        for name, v in (("Y", Y[:, :, None, :]), ("Y_h", Yh[:, None, :]), ("Y_c", Yc[:, None, :])):
            np.save(os.path.join(OUT, "expected", "%s_%s.npy" % (mode, name)), v.astype(np.float32))
        print("%s: alpha %r cuts %d of %d links" % (mode, alpha, ncut, nlinks))

    # window: sensitivity at alpha 0 with --max-sublayer=5, the forced cuts only; with fp16,
    # bf16 or int8 weights (W and R rounded, the calibration the fp32 model's) as well
    L = 5
    for fmt, Wf, Rf in (("", W, R), ("_fp16", rnd16(W), rnd16(R)), ("_bf16", rndbf(W), rndbf(R)),
                        ("_int8", rnd8(W), rnd8(R))):
        _, _, _, _, _, lk, _ = layer(x[:, 0], Wf, Rf, B)
        Sw = [[0.0] + [rel_sensitivity(P, ur[d], um[d]) for P, _ in lk[d]] for d in range(2)]
        cuts = [forced_cuts(np.array(Sw[d]), L) for d in range(2)]
        Y, Yh, Yc, _, _, _, ncut = layer(x[:, 0], Wf, Rf, B,
                                         lambda d, P, step: step in cuts[d], pred)
        with open(os.path.join(OUT, "expected", "window%s.txt" % fmt), "w") as f:
            f.write("0 %d %d %d %d\n" % (2 * T, nlinks, 2 + ncut, L))
        for name, v in (("Y", Y[:, :, None, :]), ("Y_h", Yh[:, None, :]), ("Y_c", Yc[:, None, :])):
            np.save(os.path.join(OUT, "expected", "window%s_%s.npy" % (fmt, name)),
                    v.astype(np.float32))
        print("window%s: --max-sublayer=%d cuts %d of %d links" % (fmt, L, ncut, nlinks))

    node = helper.make_node("LSTM", ["x", "W", "R", "B"], ["Y", "Y_h", "Y_c"], name="lstm_rel",
                            hidden_size=H, direction="bidirectional")
    graph = helper.make_graph(
        [node], "relevance_case",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [T, 1, I])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [T, 2, 1, H]),
         helper.make_tensor_value_info("Y_h", TensorProto.FLOAT, [2, 1, H]),
         helper.make_tensor_value_info("Y_c", TensorProto.FLOAT, [2, 1, H])],
        [numpy_helper.from_array(W, "W"), numpy_helper.from_array(R, "R"),
         numpy_helper.from_array(B, "B")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)],
                              producer_name="make_relevance_fixture.py")
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, "model.onnx"))
    np.save(os.path.join(OUT, "x_cal.npy"), x_cal)
    np.save(os.path.join(OUT, "x.npy"), x)


if __name__ == "__main__":
    main()
