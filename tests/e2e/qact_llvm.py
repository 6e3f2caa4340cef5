#!/usr/bin/python3
"""qact_llvm.py LSTMC MODEL_DIR WORK N_CALIB N_RUN

The LLVM kernel of the full-integer layer (codegen/llvm/rnnq.c, issue 22) against the C
reference (lstmc_rt_rnn_q) end to end: a trained model (tests/train) compiled with
--activations=int8 and int16, calibrated on the first N_CALIB samples of its eval set, once
with --emit=c and once with the default LLVM kernels; the next N_RUN samples must give the same
outputs bit for bit (the layers' integers are equal, and what follows them is the same C code).
Also checks that the LLVM build really replaced every lstmc_rt_rnn_q call. Exit 0 on success,
1 on a difference, 77 (skip) without numpy.

Cross mode, as run_case.sh's: with CROSS_TARGET (a profile name or file), CROSS_CC, CROSS_AR and
CROSS_RUN set, both builds are for that target, linked statically and run under CROSS_RUN
(qemu-aarch64: the AArch64 kernels, SDOT or NEON); 77 when a tool is missing.
QACT_LLVM_FLAGS (e.g. --threads=2): more flags for the LLVM build.
"""
import shutil
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


CROSS = os.environ.get("CROSS_TARGET")


def build(lstmc, model, out, flags):
    if CROSS:
        flags = flags + ["--target=" + CROSS]
    subprocess.run([lstmc, model, "--name=m", "-o", out, "--force"] + flags, check=True,
                   stdout=subprocess.DEVNULL)
    make = ["make", "-s", "-C", out, "CFLAGS=-O2"]
    if CROSS:
        make += ["CC=" + os.environ["CROSS_CC"], "AR=" + os.environ["CROSS_AR"],
                 "LDFLAGS=-static"]
    subprocess.run(make, check=True, stdout=subprocess.DEVNULL)


def main():
    lstmc, mdir, work = sys.argv[1], sys.argv[2], sys.argv[3]
    ncal, nrun = int(sys.argv[4]), int(sys.argv[5])
    runner = []
    if CROSS:
        tools = [os.environ.get(k, "") for k in ("CROSS_CC", "CROSS_AR", "CROSS_RUN")]
        if not all(t and shutil.which(t) for t in tools):
            print("SKIP: cross tools missing: %s" % tools)
            sys.exit(77)
        runner = [os.environ["CROSS_RUN"]]
    os.makedirs(work, exist_ok=True)
    x = np.load(os.path.join(mdir, "eval_x.npy"))
    calib = os.path.join(work, "calib.npy")
    np.save(calib, np.ascontiguousarray(x[:ncal]))
    samples = []
    for k in range(ncal, min(ncal + nrun, x.shape[0])):
        p = os.path.join(work, "x%d.npy" % k)
        np.save(p, np.ascontiguousarray(x[k]))
        samples.append(p)
    ok = True
    for mode in ["int8", "int16"]:
        flags = ["--activations=" + mode, "--calib-data=" + calib]
        res = {}
        for emit in ["c", "llvm"]:
            out = os.path.join(work, mode + "_" + emit)
            build(lstmc, os.path.join(mdir, "model.onnx"), out,
                  flags + (["--emit=c"] if emit == "c" else
                           os.environ.get("QACT_LLVM_FLAGS", "").split()))
            with open(os.path.join(out, "m.c")) as f:
                calls = f.read().count("lstmc_rt_rnn_q(")
            if (emit == "c") != (calls > 0):
                print("%s --emit=%s: %d lstmc_rt_rnn_q calls in m.c" % (mode, emit, calls))
                ok = False
            res[emit] = run_all(os.path.join(out, "m_run"), samples,
                                os.path.join(work, "r_" + mode + "_" + emit), runner)
        same = res["c"].tobytes() == res["llvm"].tobytes()
        print("%-5s: %d samples, LLVM vs C outputs %s (max |diff| %g)" %
              (mode, len(samples), "bit-identical" if same else "DIFFER",
               float(np.abs(res["c"] - res["llvm"]).max())))
        ok = ok and same
    sys.exit(0 if ok else 1)


main()
