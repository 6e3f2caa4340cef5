#!/usr/bin/python3
"""precision_train.py LSTMC MODEL_DIR WORK REF_ACC [FMT...]

Accuracy of a trained model (tests/train: model.onnx, eval_x.npy, eval_y.npy) compiled with
each --weights format, against its labels and against the fp32 build (issue 12,
docs/PRECISION.md). Checks:
  - fp32 reproduces the accuracy PyTorch measured (REF_ACC, %, from the model's REPORT.md)
    within 0.1 points, so the harness itself scores correctly ("-": not checked);
  - fp16 and bf16 lose less than 0.5 points, int8 less than 1 point, against the labels.
Prints one line per format: accuracy, agreement of the argmax with fp32, max |logit - fp32|.
Exit 0 when every bound holds, 1 otherwise, 77 (skip) without numpy.
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not installed")
    sys.exit(77)

BOUND = {"fp16": 0.5, "bf16": 0.5, "int8": 1.0}


def build(lstmc, model, out, fmt):
    subprocess.run([lstmc, model, "--name=m", "--weights=" + fmt, "-o", out, "--force"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["make", "-s", "-C", out, "CFLAGS=-O2"], check=True,
                   stdout=subprocess.DEVNULL)


def run_all(exe, samples, work, runner=()):
    outs = []
    for k, path in enumerate(samples):
        od = os.path.join(work, "o%d" % k)
        os.makedirs(od, exist_ok=True)
        subprocess.run(list(runner) + [exe, "--output-dir", od, path], check=True,
                       stdout=subprocess.DEVNULL)
        names = sorted(os.listdir(od))
        outs.append(np.load(os.path.join(od, names[0])))
    return np.stack(outs)


def main():
    lstmc, mdir, work = sys.argv[1], sys.argv[2], sys.argv[3]
    ref_acc = None if sys.argv[4] == "-" else float(sys.argv[4])
    fmts = sys.argv[5:] or ["fp16", "bf16", "int8"]
    os.makedirs(work, exist_ok=True)
    x = np.load(os.path.join(mdir, "eval_x.npy"))
    y = np.load(os.path.join(mdir, "eval_y.npy"))
    samples = []
    for k in range(x.shape[0]):
        p = os.path.join(work, "x%d.npy" % k)
        np.save(p, np.ascontiguousarray(x[k]))
        samples.append(p)
    logits, acc = {}, {}
    for fmt in ["fp32"] + fmts:
        out = os.path.join(work, fmt)
        build(lstmc, os.path.join(mdir, "model.onnx"), out, fmt)
        logits[fmt] = run_all(os.path.join(out, "m_run"), samples, os.path.join(work, "r" + fmt))
        pred = logits[fmt].argmax(-1).reshape(y.shape)
        acc[fmt] = 100.0 * float((pred == y).mean())
    ok = True
    if ref_acc is not None and abs(acc["fp32"] - ref_acc) > 0.1:
        print("fp32 accuracy %.2f %% is not PyTorch's %.2f %%" % (acc["fp32"], ref_acc))
        ok = False
    for fmt in ["fp32"] + fmts:
        agree = 100.0 * float((logits[fmt].argmax(-1) == logits["fp32"].argmax(-1)).mean())
        diff = float(np.abs(logits[fmt] - logits["fp32"]).max())
        loss = acc["fp32"] - acc[fmt]
        verdict = ""
        if fmt in BOUND:
            good = loss < BOUND[fmt]
            verdict = "ok" if good else "FAIL (bound %.1f points)" % BOUND[fmt]
            ok = ok and good
        print("%-5s accuracy %6.2f %%  loss %+5.2f points  agreement with fp32 %6.2f %%  "
              "max |logit - fp32| %.3g  %s" % (fmt, acc[fmt], loss, agree, diff, verdict))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
