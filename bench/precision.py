#!/usr/bin/python3
"""precision.py — the seed configurations of bench/compare with lstmc's weights in fp32, fp16,
bf16 and int8 side by side with ONNX Runtime fp32, in one run (issue 12, docs/PRECISION.md).

    sh bench/precision.sh [--configs IMDB,MT,...] [--budget S] [--rounds N]

Measurement as bench/compare/compare.py (whose workers, rounds and roofline it reuses): one
long-lived worker per system, interleaved rounds, medians. lstmc is compiled once per format
with --weights-placement=pointer (the weights are read from m_weights.bin by
precision_worker.c: the big models would be hundreds of MB of C otherwise) and the LLVM
kernels for this CPU.

Columns:
  weights B/step  bytes of weights one time step reads: every layer's U (4H x H in the
                  format, int8 with its 4H row scales) plus W's bytes amortised over the T steps
                  (W is read once per sequence by the hoisted projection)
  bound ms        roofline bound of compare.work_model with those bytes: U served by the
                  smallest cache level that holds it, max(memory time, FMA time)
  % bound         bound / median
  vs ORT fp32     ORT's median / this median
  max |dy|        largest output difference from ONNX Runtime fp32
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "compare"))
import compare  # noqa: E402

FORMATS = ["fp32", "fp16", "bf16", "int8"]
# --formats may also name bf16.dotN (N 0..3): bf16 weights with kernels.rec.all.dot and
# kernels.proj.all.dot N (the AVX-512 BF16 dot product against h and X in N bf16 pieces, 0
# widening, docs/PRECISION.md; issue 23), or bf16.dotRpP: rec R, proj P; and FMT.tuned: FMT
# compiled with --target=PROFILE (--profile, e.g. what lstmc profile --search wrote)
ESIZE = {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1}
# every seed configuration by default (--configs IMDB,MT,PTB,E-PTB: the bandwidth-bound ones
# that build in seconds)
DEFAULT = [c[0] for c in compare.CONFIGS]


def weight_bytes(cfg, fmt):
    """(U bytes of all layers per step, W bytes of all layers per sequence) in fmt."""
    _, I, H, L, T, _ = cfg
    fmt = fmt.split(".")[0]
    e = ESIZE[fmt]
    scale = 4 * 4 * H if fmt == "int8" else 0
    u = L * (4 * H * H * e + scale)
    w = sum(4 * H * (I if l == 0 else H) * e + scale for l in range(L))
    return u, w


def bound(cfg, fmt, caches, roof):
    _, I, H, L, T, _ = cfg
    u, w = weight_bytes(cfg, fmt)
    flops = sum(T * 2 * 4 * H * ((I if l == 0 else H) + H) for l in range(L))

    def level(nbytes):
        for lv in (1, 2):
            if nbytes <= 0.9 * caches.get(lv, 0):
                return "L%d" % lv
        return "L3" if nbytes <= 0.9 * caches.get(3, 0) else "DRAM"

    lu, lw = level(u / L), level(w)
    bw = lambda lv: roof["%s_t1" % lv] * 1e9
    t_mem = T * u / bw(lu) + w / bw(lw)
    t_flop = flops / (roof["fma512_t1"] * 1e9)
    return max(t_mem, t_flop), lu


def prepare(cfg, a, fmt):
    name, I, H, L, T, _ = cfg
    d = os.path.join(a.work, "models", name)
    os.makedirs(d, exist_ok=True)
    if not os.path.exists(os.path.join(d, "x.bin")):
        compare.sh([a.mkmodel, "--hidden", str(H), "--input", str(I), "--layers", str(L),
                    "--seq", str(T), "-o", os.path.join(d, "model.onnx"),
                    "--npy", os.path.join(d, "x.npy")])
        np.load(os.path.join(d, "x.npy")).astype(np.float32).tofile(os.path.join(d, "x.bin"))
    out = os.path.join(d, "lstmc_" + fmt)
    extra = []
    if fmt.endswith(".tuned"):
        extra = ["--target=" + os.path.abspath(a.profile)]
    elif ".dot" in fmt:  # the host's caches, the bf16 dot product with that many pieces of h
        caches = compare.cache_sizes()
        prof = os.path.join(a.work, fmt + ".json")
        rd, _, pd = fmt.split(".dot")[1].partition("p")
        open(prof, "w").write(
            '{"name": "%s", "cpu": {"l2_bytes": %d, "llc_bytes": %d}, '
            '"kernels": {"rec": {"all": {"dot": %s}}, "proj": {"all": {"dot": %s}}}}\n'
            % (fmt, caches.get(2, 0), caches.get(3, 0), rd, pd or rd))
        extra = ["--target=" + prof]
    # 1 thread in every format (the reduced-precision kernels are 1-thread; fp32 would take
    # the target's cores by default), as ONNX Runtime here
    compare.sh(["nice", a.lstmc, os.path.join(d, "model.onnx"), "--name=m",
                "--weights=" + fmt.split(".")[0], "--weights-placement=pointer", "--threads=1",
                "-o", out, "--force"] + extra)
    compare.sh(["nice", "make", "-s", "-C", out, "libm.a", "CFLAGS=-O2 -march=native"])
    compare.sh(["cc", "-O2", "-march=native", "-I", out, "-I",
                os.path.join(out, "runtime", "include"), "-I", os.path.join(HERE, "compare"),
                os.path.join(HERE, "precision_worker.c"), os.path.join(out, "libm.a"), "-lm",
                "-o", os.path.join(out, "worker")])
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", help="comma-separated (default %s)" % ",".join(DEFAULT))
    ap.add_argument("--lstmc", required=True)
    ap.add_argument("--mkmodel", required=True)
    ap.add_argument("--roofline", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--budget", type=float, default=2.0, help="seconds per system and config")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--profile", help="the target profile of the FMT.tuned formats")
    ap.add_argument("--formats", help="comma-separated (default %s; also bf16.dot1..3)"
                    % ",".join(FORMATS))
    a = ap.parse_args()
    fmts = a.formats.split(",") if a.formats else FORMATS
    names = a.configs.split(",") if a.configs else DEFAULT
    cfgs = [c for c in compare.CONFIGS if c[0] in names]
    if len(cfgs) != len(names):
        sys.exit("precision: unknown config in %s" % names)
    os.makedirs(os.path.join(a.work, "logs"), exist_ok=True)
    load0 = os.getloadavg()
    compare.log("# bench/precision: %s, load average %.2f %.2f %.2f"
                % ((time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),) + load0))
    for c in cfgs:
        for f in fmts:
            prepare(c, a, f)
    caches = compare.cache_sizes()
    roof = compare.measure_roofline(a.roofline, caches, False)
    compare.log("roofline (1 thread): FMA %.0f GFLOP/s, read GB/s L1 %.0f L2 %.0f L3 %.0f DRAM %.1f"
                % (roof["fma512_t1"], roof["L1_t1"], roof["L2_t1"], roof["L3_t1"], roof["DRAM_t1"]))
    lines = ["| config | system | weights B/step | U served by | bound ms | median ms | "
             "min–max ms | % bound | vs ORT fp32 | max abs dy vs ORT |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for cfg in cfgs:
        name, I, H, L, T, _ = cfg
        d = os.path.join(a.work, "models", name)
        logdir = os.path.join(a.work, "logs")
        ws = [compare.Worker("ort", "ONNX Runtime fp32", 1,
                             ["node", os.path.join(HERE, "compare", "ort_worker.js"),
                              os.path.join(d, "model.onnx"), os.path.join(d, "x.bin"), str(T),
                              str(I), "1"], {}, logdir)]
        for f in fmts:
            out = os.path.join(d, "lstmc_" + f)
            ws.append(compare.Worker("lstmc_" + f, "lstmc " + f, 1,
                                     [os.path.join(out, "worker"), os.path.join(d, "x.bin"),
                                      os.path.join(out, "m_weights.bin")], {}, logdir))
        try:
            ref = ws[0].output(os.path.join(d, "y_ort.bin"))
            dy = {w.key: float(np.max(np.abs(w.output(os.path.join(d, "y_%s.bin" % w.key)) - ref)))
                  for w in ws}
            compare.measure(ws, a.budget, a.rounds, 10, 4000)
        finally:
            for w in ws:
                w.close()
        med = {w.key: float(np.median(w.samples)) * 1e-9 for w in ws}
        for w in ws:
            f = w.key.split("_", 1)[1] if w.key != "ort" else "fp32"
            u, wb = weight_bytes(cfg, f)
            b, lu = bound(cfg, f, caches, roof)
            s = np.array(w.samples) * 1e-9
            row = "| %s (H %d, L %d, T %d) | %s | %d | %s | %.3f | %.3f | %.3f–%.3f | %.0f%% | %.2fx | %.2g |" % (
                name, H, L, T, w.system, u + wb // T, lu, b * 1e3, med[w.key] * 1e3,
                s.min() * 1e3, s.max() * 1e3, 100 * b / med[w.key], med["ort"] / med[w.key],
                dy[w.key])
            lines.append(row)
            compare.log(row)
    load1 = os.getloadavg()
    text = ("load average (1 min) %.2f at start, %.2f at end; %d rounds, %.1f s per system\n\n"
            % (load0[0], load1[0], a.rounds, a.budget)) + "\n".join(lines) + "\n"
    open(os.path.join(a.work, "precision.md"), "w").write(text)
    compare.log("\n" + text)
    compare.log("wrote %s/precision.md" % a.work)


if __name__ == "__main__":
    main()
