#!/usr/bin/python3
"""precision_qact.py LSTMC MODEL_DIR WORK N_CALIB

Accuracy of a trained model (tests/train: model.onnx, eval_x.npy, eval_y.npy) compiled with
--activations=int8 and int16, and int8 with --io=int (issue 22, docs/PRECISION.md
"Full-integer recurrent layers"):
the first N_CALIB samples of the eval set are the calibration samples (--calib-data), the
rest are held out and scored against the labels, by the fp32 build and by each integer
build. Bounds (issue 22): int16 loses at most 0.3 points, int8 at most 1 point. Prints one
line per mode: accuracy, agreement of the argmax with fp32, max |logit - fp32|, and the
output error relative to the largest fp32 logit. Exit 0 when both bounds hold, 1 otherwise,
77 (skip) without numpy.
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not installed")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from precision_train import run_all  # noqa: E402

BOUND = {"int16": 0.3, "int8": 1.0}


def build(lstmc, model, out, flags):
    subprocess.run([lstmc, model, "--name=m", "-o", out, "--force"] + flags, check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["make", "-s", "-C", out, "CFLAGS=-O2"], check=True,
                   stdout=subprocess.DEVNULL)


def io_int(lstmc, mdir, work, x, y, ncal, calib, logits, acc):
    out = os.path.join(work, "int8io")
    build(lstmc, os.path.join(mdir, "model.onnx"), out,
          ["--activations=int8", "--calib-data=" + calib, "--io=int"])
    hdr = open(os.path.join(out, "m.h")).read()

    def macro(name):
        for line in hdr.splitlines():
            f = line.split()
            if len(f) >= 3 and f[0] == "#define" and f[1] == name:
                return float(f[2].rstrip("f"))
        raise SystemExit("m.h has no " + name)
    s_out = macro("M_OUTPUT_0_SCALE")
    qsamples = []
    for k in range(ncal, x.shape[0]):
        p = os.path.join(work, "q%d.npy" % k)
        if x.dtype == np.float32:  # quantised here, as the header says
            s_in, z_in = macro("M_INPUT_0_SCALE"), int(macro("M_INPUT_0_ZERO_POINT"))
            q = np.clip(np.round(x[k] / np.float32(s_in)) + z_in, -128, 127).astype(np.int8)
        else:  # token ids: the embedding's table is integer inside the library
            q = np.ascontiguousarray(x[k])
        np.save(p, q)
        qsamples.append(p)
    logits["int8 io=int"] = run_all(os.path.join(out, "m_run"), qsamples,
                                    os.path.join(work, "rint8io")).astype(np.float64) * s_out
    pred = logits["int8 io=int"].argmax(-1).reshape(y.shape)
    acc["int8 io=int"] = 100.0 * float((pred == y).mean())
    BOUND["int8 io=int"] = 1.0


def main():
    lstmc, mdir, work, ncal = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    os.makedirs(work, exist_ok=True)
    x = np.load(os.path.join(mdir, "eval_x.npy"))
    y = np.load(os.path.join(mdir, "eval_y.npy"))[ncal:]
    calib = os.path.join(work, "calib.npy")
    np.save(calib, np.ascontiguousarray(x[:ncal]))
    samples = []
    for k in range(ncal, x.shape[0]):
        p = os.path.join(work, "x%d.npy" % k)
        np.save(p, np.ascontiguousarray(x[k]))
        samples.append(p)
    logits, acc = {}, {}
    for mode in ["fp32", "int16", "int8"]:
        out = os.path.join(work, mode)
        flags = [] if mode == "fp32" else ["--activations=" + mode, "--calib-data=" + calib]
        build(lstmc, os.path.join(mdir, "model.onnx"), out, flags)
        if mode == "int8" and os.path.basename(os.path.normpath(mdir)) == "har":
            # the classifier reads Y's last step: the moves and the Gather run on the
            # integers and the float boundary dequantises that step alone (qact sink_moves)
            import json
            with open(os.path.join(out, "m_size.json")) as f:
                conv = json.load(f)["activations"]["conversions"]
            assert conv == ["node '/lstm/LSTM/xq' (lstmc.Quantize)",
                            "node '/Gather/dq' (lstmc.Dequantize)"], conv
        logits[mode] = run_all(os.path.join(out, "m_run"), samples, os.path.join(work, "r" + mode))
        pred = logits[mode].argmax(-1).reshape(y.shape)
        acc[mode] = 100.0 * float((pred == y).mean())
    # --io=int (no float anywhere): float samples quantised here with the header's scale and
    # zero point (token ids as they are: the embedding runs on an integer table), the int32
    # logits scaled back with the output's
    modes = ["fp32", "int16", "int8", "int8 io=int"]
    io_int(lstmc, mdir, work, x, y, ncal, calib, logits, acc)
    ok = True
    top = float(np.abs(logits["fp32"]).max())
    for mode in modes:
        agree = 100.0 * float((logits[mode].argmax(-1) == logits["fp32"].argmax(-1)).mean())
        diff = float(np.abs(logits[mode] - logits["fp32"]).max())
        loss = acc["fp32"] - acc[mode]
        verdict = ""
        if mode in BOUND:
            good = loss <= BOUND[mode]
            verdict = "ok" if good else "FAIL (bound %.1f points)" % BOUND[mode]
            ok = ok and good
        print("%-11s accuracy %6.2f %%  loss %+5.2f points  agreement with fp32 %6.2f %%  "
              "max |logit - fp32| %.3g (%.2g of max |logit|)  %s"
              % (mode, acc[mode], loss, agree, diff, diff / top, verdict))
    steps = logits["fp32"].reshape(-1, *logits["fp32"].shape[-2:]) if logits["fp32"].ndim >= 3 else None
    if steps is not None and steps.shape[1] > 1:  # an output per step: the error per step
        for mode in ["int16", "int8"]:
            e = np.abs(logits[mode].reshape(steps.shape) - steps).mean(axis=(0, 2))
            T = e.shape[0]
            print("%-5s mean |logit - fp32| per step: step 1 %.3g, step %d %.3g, step %d %.3g, "
                  "max over steps %.3g" % (mode, e[0], T // 2, e[T // 2 - 1], T, e[T - 1], e.max()))
    print("(%d held-out samples; the first %d are the calibration samples)"
          % (x.shape[0] - ncal, ncal))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
