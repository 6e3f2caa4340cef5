#!/usr/bin/python3
"""cut_study.py — does the relevance S rank the links by how much cutting them costs?
(issue 24; docs/TUNING.md "The relevance")

For a trained model of the shape [Embedding] + stacked one-direction ONNX LSTMs + Linear (on
the last step or on every step), its eval set and a CALIB file that `lstmc calibrate` wrote
from the first --cal samples, this script (numpy float64, independent of lstmc's kernels):

  1. runs the exact model on the scored samples (those after the first --cal) and computes,
     for every link (cell t >= 1 of a layer), S of each --relevance: Algorithm 2 with the
     paper's bound D = sum|U| (bound), Algorithm 2 with the calibrated bound (centre
     X + b + um, radius ur, from CALIB: calibrated) and the gates' sensitivity to U h over that
     range (sensitivity; runtime/src/rt_tissue.c);
  2. prints the S distributions per layer (percentiles and a 10-bin histogram);
  4. cuts with --max-sublayer=L (T/2 .. T/8) at alpha 0 and scores accuracy;
  3. for each fraction f, cuts in every layer the f of the links with the lowest S (the
     threshold is the layer's f-quantile of S on the uncut run; the rule S < alpha is then
     applied to the cut run's own P rows, as the kernels do), or f of them at random, starting
     the next sub-layer from CALIB's h_pred / c_pred as the tissue kernels do, and scores
     accuracy against the labels.

    /usr/bin/python3 bench/relevance/cut_study.py MODEL.onnx EVAL_X.npy EVAL_Y.npy CALIB \
        --cal N [--fractions 0.05,0.1,0.2,0.3]
"""
import argparse

import numpy as np
import onnx
from onnx import numpy_helper


def sig(v):
    return 1.0 / (1.0 + np.exp(-v))


def read_calib(path):
    layers, cur = [], None
    for line in open(path):
        w = line.split()
        if not w or w[0].startswith("#") or w[0].startswith("lstmc-calib"):
            continue
        if w[0] == "layer":
            cur = {"name": " ".join(w[4:])}
            layers.append(cur)
        else:
            cur[w[0] + w[1]] = np.array([float(v) for v in w[2:]])
    return layers


def load_model(path):
    m = onnx.load(path)
    init = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    for n in m.graph.node:  # Constant nodes too
        if n.op_type == "Constant":
            init[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    emb, lstms, head = None, [], None
    for n in m.graph.node:
        if n.op_type == "Gather" and n.input[0] in init and emb is None and not lstms:
            emb = init[n.input[0]].astype(np.float64)
        elif n.op_type == "LSTM":
            W, R = init[n.input[1]][0].astype(np.float64), init[n.input[2]][0].astype(np.float64)
            H = R.shape[1]
            B = init[n.input[3]][0].astype(np.float64) if len(n.input) > 3 and n.input[3] else np.zeros(8 * H)
            lstms.append((W, R, B[:4 * H] + B[4 * H:]))
        elif n.op_type == "Gemm":
            tb = [a.i for a in n.attribute if a.name == "transB"]
            Wf = init[n.input[1]].astype(np.float64)
            head = ("last", Wf.T if tb and tb[0] else Wf, init[n.input[2]].astype(np.float64))
        elif n.op_type == "MatMul" and n.input[1] in init:
            head = ["every", init[n.input[1]].astype(np.float64), None]
        elif n.op_type == "Add" and head is not None and head[0] == "every":
            head[2] = init[[i for i in n.input if i in init][0]].astype(np.float64)
    return emb, lstms, tuple(head)


def relevance(x, rad, shift):
    """Algorithm 2 (lstmc_rt_lstm_relevance_shifted) for P rows x [B, 4H]."""
    H = x.shape[1] // 4
    z = x + shift
    zi, zo, zf, zc = z[:, :H], z[:, H:2 * H], z[:, 2 * H:3 * H], z[:, 3 * H:]
    ri, ro, rf, rc = rad[:H], rad[H:2 * H], rad[2 * H:3 * H], rad[3 * H:]

    def ov(xb, d):
        a = np.abs(xb)
        s = np.minimum(2 + np.minimum(2, a), np.minimum(2, 2 + d - np.maximum(2, a)))
        return np.maximum(s, 0)
    sf = np.minimum(4, np.maximum(zf + rf + 2, 0))
    return np.sum(ov(zo, ro) * (sf + ov(zi, ri) * ov(zc, rc)), axis=1)


def sensitivity(x, rad, shift):
    """lstmc_rt_lstm_sensitivity for P rows x [B, 4H]: the triangles under sigmoid' and tanh',
    the radii scaled as lstmc_rt_lstm_sensitivity_scale does (S in [0, 1])."""
    H = x.shape[1] // 4
    rad = rad / np.sum(0.25 * (rad[:H] + rad[H:2 * H] + rad[2 * H:3 * H]) + rad[3 * H:])
    z = x + shift

    def tri(v, k):
        return np.maximum(0.0, 1.0 - np.abs(v) * k)
    s3 = (tri(z[:, :H], 0.25) * rad[:H] + tri(z[:, H:2 * H], 0.25) * rad[H:2 * H]
          + tri(z[:, 2 * H:3 * H], 0.25) * rad[2 * H:3 * H])
    return np.sum(0.25 * s3 + tri(z[:, 3 * H:], 0.5) * rad[3 * H:], axis=1)


MODES = ("bound", "calibrated", "sensitivity")


def run(x, emb, lstms, head, cal, mode=None, alphas=None, frac=0.0, rng=None, collect=False):
    """The model on x [B, T, I] (or token ids [B, T]); cuts per mode. Returns logits and the
    links cut, and, with collect, S per layer [3][B, T-1] (MODES)."""
    seq = emb[x] if emb is not None else x
    Bn, T = seq.shape[0], seq.shape[1]
    Ss = []
    ncut = 0
    for li, (W, R, b) in enumerate(lstms):
        H = R.shape[1]
        P = seq @ W.T + b  # [B, T, 4H]
        dsum = np.abs(R).sum(axis=1)
        c_l = cal[li]
        hp, cp, um, ur = c_l["h0"], c_l["c0"], c_l["um0"], c_l["ur0"]
        h = np.zeros((Bn, H))
        c = np.zeros((Bn, H))
        forced = None
        if mode is not None and mode.startswith("window"):  # --max-sublayer (rt_tissue.c)
            L = int(mode[6:])
            Sall = np.stack([sensitivity(P[:, t], ur, um) for t in range(T)], axis=1)
            forced = np.zeros((Bn, T), bool)
            for b_ in range(Bn):
                start = 0
                for step in range(1, T):
                    if step - start == L:
                        lo = start + L // 2 + 1
                        cpos = lo + int(np.argmin(Sall[b_, lo:step + 1]))
                        forced[b_, cpos] = True
                        start = cpos
        out = np.zeros((Bn, T, H))
        S3 = np.zeros((3, Bn, T - 1))
        for t in range(T):
            if t > 0:
                s3 = (relevance(P[:, t], dsum, 0.0), relevance(P[:, t], ur, um),
                      sensitivity(P[:, t], ur, um))
                for k in range(3):
                    S3[k, :, t - 1] = s3[k]
                if forced is not None:
                    cut = forced[:, t]
                    ncut += int(np.sum(cut))
                    h = np.where(cut[:, None], hp[None, :], h)
                    c = np.where(cut[:, None], cp[None, :], c)
                elif mode is not None:
                    if mode == "random":
                        cut = rng.random(Bn) < frac
                    else:
                        cut = s3[MODES.index(mode)] < alphas[li]
                    ncut += int(np.sum(cut))
                    h = np.where(cut[:, None], hp[None, :], h)
                    c = np.where(cut[:, None], cp[None, :], c)
            z = P[:, t] + h @ R.T
            i, o, f, g = sig(z[:, :H]), sig(z[:, H:2 * H]), sig(z[:, 2 * H:3 * H]), np.tanh(z[:, 3 * H:])
            c = f * c + i * g
            h = o * np.tanh(c)
            out[:, t] = h
        Ss.append(S3)
        seq = out
    kind, Wh, bh = head
    logits = (seq[:, -1] @ Wh + bh) if kind == "last" else (seq @ Wh + bh)
    return (logits, ncut, Ss) if collect else (logits, ncut)


def hist(v, lo, hi, bins=10):
    c, e = np.histogram(v, bins=bins, range=(lo, hi))
    return " ".join("%d" % k for k in c), e


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("x")
    ap.add_argument("y")
    ap.add_argument("calib")
    ap.add_argument("--cal", type=int, required=True)
    ap.add_argument("--fractions", default="0.02,0.05,0.1,0.2,0.3")
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args()
    emb, lstms, head = load_model(a.model)
    cal = read_calib(a.calib)
    X, Y = np.load(a.x), np.load(a.y)
    X = X[:, 0] if X.ndim >= 3 and X.shape[1] == 1 else X  # [K, 1, ...] -> [K, ...]
    Y = Y[:, 0] if Y.ndim == 3 else Y
    Xs, Ys = X[a.cal:], Y[a.cal:]
    logits, _, Ss = run(Xs, emb, lstms, head, cal, collect=True)
    acc0 = np.mean(np.argmax(logits, -1) == Ys)
    links = sum(s[0].size for s in Ss)
    print("# %s: %d scored samples (after the %d calibration ones), %d links; exact accuracy %.4f"
          % (a.model, len(Xs), a.cal, links, acc0))
    for li, S3 in enumerate(Ss):
        H = lstms[li][1].shape[1]
        for k, name in enumerate(MODES):
            s = S3[k]
            q = np.percentile(s, [0, 1, 10, 50, 90, 99, 100])
            top = 16 * H if k < 2 else max(q[6], 1e-12)
            h, _ = hist(s, 0, top)
            print("layer %d %-11s p0 %.4g p1 %.4g p10 %.4g p50 %.4g p90 %.4g p99 %.4g p100 %.4g"
                  "  (p90-p10)/p50 %.3f; histogram of [0, %.4g] in 10 bins: %s"
                  % (li, name, *q, (q[4] - q[2]) / max(q[3], 1e-12), top, h))
    print("\naccuracy (links actually cut, %), the lowest S of each layer cut or random ones:\n")
    print("| cut per layer | %s | random (mean of %d) |" % (" | ".join(MODES), a.seeds))
    print("|---|---|---|---|---|")
    for f in [float(v) for v in a.fractions.split(",")]:
        row = []
        for k, mode in enumerate(MODES):
            alphas = [np.quantile(s[k], f) for s in Ss]
            lg, nc = run(Xs, emb, lstms, head, cal, mode, alphas)
            row.append("%.4f (%.1f %%)" % (np.mean(np.argmax(lg, -1) == Ys), 100.0 * nc / links))
        rs = [np.mean(np.argmax(run(Xs, emb, lstms, head, cal, "random", None, f,
                                    np.random.default_rng(s))[0], -1) == Ys) for s in range(a.seeds)]
        print("| %.0f %% | %s | %.4f |" % (100 * f, " | ".join(row), np.mean(rs)))
    print("\nforced breakpoints (--max-sublayer=L, sensitivity, alpha 0):\n")
    print("| L | accuracy | links cut |")
    print("|---|---|---|")
    T = Ss[0][0].shape[1] + 1
    for L in sorted({max(2, T // k) for k in (2, 4, 6, 8)}, reverse=True):
        lg, nc = run(Xs, emb, lstms, head, cal, "window%d" % L, None)
        print("| %d | %.4f | %.1f %% |" % (L, np.mean(np.argmax(lg, -1) == Ys), 100.0 * nc / links))

if __name__ == "__main__":
    main()
