#!/usr/bin/python3
"""qact.py — full-integer recurrent layers (issue 22, docs/PRECISION.md "Full-integer
recurrent layers") against lstmc fp32, lstmc --weights=int8 and ONNX Runtime fp32, in one run.

    sh bench/qact/run.sh [--configs IMDB,MT,...] [--budget S] [--rounds N] [--threads N]

Measurement as bench/precision.py (bench/compare's workers, interleaved rounds, medians,
precision_worker.c with --weights-placement=pointer). With --threads 1 (the default) every
lstmc build is --threads=1; with N > 1 equal to this machine's cores, lstmc's default for the
host (N threads where a layer pays for them: H >= 128 sliced by units, stacked fp32 layers
on the wavefront; a small layer stays on one), as a user compiling for this machine gets;
another N is passed as --threads=N, which slices every layer. ONNX Runtime runs N intra-op
threads. The integer builds are calibrated on the benchmark's own random input
(--calib-data: 2 samples [T, 1, I] of standard normal values): speed does not depend on the ranges.

Columns: median ms, min–max ms, vs ORT fp32 (ORT's median / this median), vs lstmc fp32, vs
lstmc w-int8 (the same ratio against lstmc's fp32 and int8-weights builds).

--base LSTMC adds "a-int8 base" and "a-int16 base": the same builds by another lstmc (the
branch point of a change), measured in the same interleaved rounds (an A/B on one run).
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "compare"))
import compare  # noqa: E402

VARIANTS = [("fp32", ["--weights=fp32"]), ("w-int8", ["--weights=int8"]),
            ("a-int8", ["--activations=int8"]), ("a-int16", ["--activations=int16"])]
DEFAULT = ["IMDB", "MT", "PTB", "E-PTB", "Arm-H1024", "HAR", "Arm-H64"]


def default_threads(a):
    """lstmc's own default (the host's cores) stands for N threads on an N-core machine."""
    return a.threads > 1 and a.threads == os.cpu_count()


def outdir(d, a, key):
    return os.path.join(d, "lstmc_" + key + ("" if a.threads == 1 else "_t%d%s" % (a.threads, "d" if default_threads(a) else "")))


def prepare(cfg, a, key, flags, lstmc):
    name, I, H, L, T, _ = cfg
    d = os.path.join(a.work, "models", name)
    os.makedirs(d, exist_ok=True)
    if not os.path.exists(os.path.join(d, "x.bin")):
        compare.sh([a.mkmodel, "--hidden", str(H), "--input", str(I), "--layers", str(L),
                    "--seq", str(T), "-o", os.path.join(d, "model.onnx"),
                    "--npy", os.path.join(d, "x.npy")])
        np.load(os.path.join(d, "x.npy")).astype(np.float32).tofile(os.path.join(d, "x.bin"))
    out = outdir(d, a, key)
    if key.startswith("a-"):  # random calibration samples: speed does not depend on them
        calib = os.path.join(d, "calib.npy")
        if not os.path.exists(calib):
            rng = np.random.default_rng(22)
            np.save(calib, rng.standard_normal((2, T, 1, I)).astype(np.float32))
        flags = flags + ["--calib-data=" + calib]
    tf = [] if default_threads(a) else ["--threads=%d" % a.threads]
    compare.sh(["nice", lstmc, os.path.join(d, "model.onnx"), "--name=m",
                "--weights-placement=pointer", "-o", out, "--force"] + tf + flags)
    compare.sh(["nice", "make", "-s", "-C", out, "libm.a", "CFLAGS=-O2 -march=native"])
    compare.sh(["cc", "-O2", "-march=native", "-I", out, "-I",
                os.path.join(out, "runtime", "include"), "-I", os.path.join(HERE, "..", "compare"),
                os.path.join(HERE, "..", "precision_worker.c"), os.path.join(out, "libm.a"), "-lm", "-pthread",
                "-o", os.path.join(out, "worker")])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", help="comma-separated (default %s)" % ",".join(DEFAULT))
    ap.add_argument("--lstmc", required=True)
    ap.add_argument("--mkmodel", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--budget", type=float, default=2.0, help="seconds per system and config")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--no-ort", action="store_true", help="lstmc only")
    ap.add_argument("--threads", type=int, default=1, help="lstmc --threads and ORT's threads")
    ap.add_argument("--base", help="another lstmc: its a-int8 and a-int16 builds too (A/B)")
    a = ap.parse_args()
    variants = [(k, f, a.lstmc) for k, f in VARIANTS]
    if a.base:
        variants += [(k + " base", f, os.path.abspath(a.base)) for k, f in VARIANTS
                     if k.startswith("a-")]
    names = a.configs.split(",") if a.configs else DEFAULT
    cfgs = [c for c in compare.CONFIGS if c[0] in names]
    if len(cfgs) != len(names):
        sys.exit("qact: unknown config in %s" % names)
    os.makedirs(os.path.join(a.work, "logs"), exist_ok=True)
    load0 = os.getloadavg()
    compare.log("# bench/qact: %s, %d thread(s), load average %.2f %.2f %.2f"
                % ((time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), a.threads) + load0))
    for c in cfgs:
        for key, flags, lstmc in variants:
            prepare(c, a, key.replace(" ", "_"), flags, lstmc)
    lines = ["| config | system | median ms | min–max ms | vs ORT fp32 | vs lstmc fp32 | "
             "vs lstmc w-int8 |", "|---|---|---|---|---|---|---|"]
    for cfg in cfgs:
        name, I, H, L, T, _ = cfg
        d = os.path.join(a.work, "models", name)
        logdir = os.path.join(a.work, "logs")
        ws = []
        if not a.no_ort:
            ws.append(compare.Worker("ort", "ONNX Runtime fp32", 1,
                                     ["node", os.path.join(HERE, "..", "compare", "ort_worker.js"),
                                      os.path.join(d, "model.onnx"), os.path.join(d, "x.bin"),
                                      str(T), str(I), str(a.threads)], {}, logdir))
        for key, _, _ in variants:
            out = outdir(d, a, key.replace(" ", "_"))
            ws.append(compare.Worker(key, "lstmc " + key, a.threads,
                                     [os.path.join(out, "worker"), os.path.join(d, "x.bin"),
                                      os.path.join(out, "m_weights.bin")], {}, logdir))
        try:
            compare.measure(ws, a.budget, a.rounds, 10, 4000)
        finally:
            for w in ws:
                w.close()
        med = {w.key: float(np.median(w.samples)) * 1e-9 for w in ws}

        def ratio(k, w):
            return "%.2fx" % (med[k] / med[w.key]) if k in med else "—"

        for w in ws:
            s = np.array(w.samples) * 1e-9
            row = "| %s (I %d, H %d, L %d, T %d) | %s | %.3f | %.3f–%.3f | %s | %s | %s |" % (
                name, I, H, L, T, w.system, med[w.key] * 1e3, s.min() * 1e3, s.max() * 1e3,
                ratio("ort", w), ratio("fp32", w), ratio("w-int8", w))
            lines.append(row)
            compare.log(row)
    load1 = os.getloadavg()
    text = ("%d thread(s)%s; load average (1 min) %.2f at start, %.2f at end; %d rounds, %.1f s "
            "per system\n\n" % (a.threads, " (lstmc: its default for this machine's cores)"
                                 if default_threads(a) else "", load0[0], load1[0], a.rounds,
                                 a.budget)) + "\n".join(lines) + "\n"
    open(os.path.join(a.work, "qact.md"), "w").write(text)
    compare.log("\n" + text)
    compare.log("wrote %s/qact.md" % a.work)


if __name__ == "__main__":
    main()
