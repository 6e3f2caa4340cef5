#!/usr/bin/python3
"""compare.py — batch-1, fp32, whole-sequence latency of lstmc against ONNX Runtime, oneDNN and
PyTorch on stacked-LSTM configurations from the papers, with the machine's roofline.

Run it through run.sh (which installs and builds what this needs):

    sh bench/compare/run.sh [--quick] [--configs NAME,NAME] [--out DIR]

How it measures (see also the section in bench/RESULTS.md):
- Every system runs in its own long-lived worker process (lstmc_worker.c, ort_worker.js,
  dnnl_worker.c, torch_worker.py) that loads the model once and then times whole-sequence calls
  in process, one clock reading around each call.
- All workers of a configuration are alive at once, and the timing is done in rounds: in each
  round every worker times a batch of calls, in an order that rotates from round to round, so
  slow drift of the machine (other jobs, frequency) hits every system alike.
- Before timing, every worker's output is compared with ONNX Runtime's (1 thread): the largest
  absolute difference must be <= 1e-4, else the run stops with an error.
- lstmc: the 1-thread rows are the library compiled with --threads=1, the 2-thread rows the
  one compiled with --threads=2 (its LSTM time loops split across a pool of 2 threads), for
  H >= 128; for smaller H lstmc does not use threads (the per-step barrier costs more than
  the slices save) and its 2-thread rows repeat the 1-thread samples, marked (1T).
- Roofline: roofline.c measures the peak FMA rate and the read bandwidth of L1, L2, L3 and DRAM
  with 1 and 2 threads. Model of the work (schedule of every system here: one layer at a time,
  the input projection W x_t of all steps hoisted into one GEMM): per layer, U (4H x H floats)
  is read at every step, W (4H x I) once per sequence; U is served by the smallest cache level
  that holds it (for L1/L2, the per-core share U / threads), W by the level that holds all the
  weights. Bound = max(bytes / bandwidth summed over those reads, FLOPs / peak FMA rate), with
  FLOPs = sum over layers of T * 2 * 4H * (I_l + H). Fraction of roofline = bound / median.
"""
import argparse
import concurrent.futures
import csv
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name, input size, hidden size, layers, steps, source
CONFIGS = [
    ("IMDB", 512, 512, 3, 80, "MICRO'18 Table II"),
    ("MR", 256, 256, 1, 22, "MICRO'18 Table II"),
    ("BABI", 256, 256, 3, 86, "MICRO'18 Table II"),
    ("SNLI", 300, 300, 2, 100, "MICRO'18 Table II"),
    ("PTB", 650, 650, 3, 200, "MICRO'18 Table II"),
    ("MT", 500, 500, 4, 50, "MICRO'18 Table II"),
    ("HAR", 9, 32, 2, 128, "MobiRNN"),
    ("E-MNIST", 28, 128, 2, 28, "E-LSTM Table 2"),
    ("E-PTB", 800, 800, 2, 35, "E-LSTM Table 2"),
    ("E-Wiki", 1500, 1500, 2, 35, "E-LSTM Table 2"),
    ("Arm-H1024", 1024, 1024, 2, 100, "Arm'19 corner"),
    ("Arm-H64", 64, 64, 1, 10, "Arm'19 corner"),
]
QUICK = ["MR", "HAR", "Arm-H64"]
# lstmc gets a 2-thread library from this hidden size on (llvm_kernels.c MT_MIN_HIDDEN)
MT_MIN_HIDDEN = 128
TOL = 1e-4
BLAS_DIRS = {
    "openblas": "/usr/lib/x86_64-linux-gnu/openblas-pthread",
    "blis": "/usr/lib/x86_64-linux-gnu/blis-pthread",
}


def log(*a):
    print(*a, flush=True)


def sh(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0:
        sys.exit("compare: command failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stdout))
    return r.stdout


def file_hash(*paths):
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


# ------------------------------------------------------------------ machine

def cache_sizes():
    """Data/unified cache size per level from sysfs (bytes); L1/L2 per core, L3 shared."""
    sizes = {}
    base = "/sys/devices/system/cpu/cpu0/cache"
    for d in sorted(os.listdir(base)):
        if not d.startswith("index"):
            continue
        rd = lambda n: open(os.path.join(base, d, n)).read().strip()
        if rd("type") == "Instruction":
            continue
        s = rd("size")
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1], 1)
        sizes[int(rd("level"))] = int(s.rstrip("KMG")) * mult
    return sizes


def lscpu_summary():
    keep = ("Model name", "CPU family", "Model", "CPU(s)", "Thread(s) per core", "L1d", "L2", "L3",
            "L1d cache", "L2 cache",
            "L3 cache", "Flags")
    out = []
    for line in sh(["lscpu"]).splitlines():
        k = line.split(":")[0].strip()
        if k in keep:
            if k == "Flags":
                fl = line.split(":", 1)[1].split()
                line = "Flags (SIMD): " + " ".join(f for f in fl if f.startswith(("avx", "fma", "amx")))
            out.append(" ".join(line.split()))
    return out


def measure_roofline(bin_path, caches, quick):
    # Buffers: a third of L1d, half of L2 (per core), 4x L2 x 2 threads but well inside L3
    # when L3 is big, and 1 GiB for DRAM (this VM reports a 480 MiB L3; the DRAM buffer must
    # be far past it).
    l1 = caches.get(1, 48 << 10) // 3
    l2 = caches.get(2, 2 << 20) // 2
    l3 = min(caches.get(3, 32 << 20) // 4, 4 * caches.get(2, 2 << 20))
    dram = max(1 << 30, 4 * caches.get(3, 0))
    args = [bin_path] + (["--quick"] if quick else ["--full"]) + [str(l1), str(l2), str(l3), str(dram)]
    return json.loads(sh(args))


# ------------------------------------------------------------------ models

def prepare(cfg, a, stamp):
    """Model, inputs, weights, generated library (cached by stamp) and lstmc worker of cfg."""
    name, I, H, L, T, _ = cfg
    d = os.path.join(a.work, "models", name)
    out = os.path.join(d, "lstmc_out")
    out2 = os.path.join(d, "lstmc_out2") if H >= MT_MIN_HIDDEN else None
    if not (os.path.exists(os.path.join(d, "stamp")) and open(os.path.join(d, "stamp")).read() == stamp):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        t0 = time.time()
        sh([a.mkmodel, "--hidden", str(H), "--input", str(I), "--layers", str(L), "--seq", str(T),
            "-o", os.path.join(d, "model.onnx"), "--npy", os.path.join(d, "x.npy")])
        np.load(os.path.join(d, "x.npy")).astype(np.float32).tofile(os.path.join(d, "x.bin"))
        import onnx
        from onnx import numpy_helper
        m = onnx.load(os.path.join(d, "model.onnx"))
        for init in m.graph.initializer:
            if init.name[:2] in ("W_", "R_", "B_"):
                numpy_helper.to_array(init).astype(np.float32).tofile(os.path.join(d, init.name + ".bin"))
        for o, thr in ((out, 1), (out2, 2)):
            if not o:
                continue
            sh(["nice", a.lstmc, os.path.join(d, "model.onnx"), "--name=m", "--threads=%d" % thr,
                "-o", o] + (["--target=" + a.target] if a.target else []))
            # The generated Makefile's library, built the way a user would (make), for this CPU.
            sh(["nice", "make", "-C", o, "libm.a", "CFLAGS=-O2 -march=native"])
            if os.path.exists(os.path.join(o, "m_weights.c")):  # big models: objects instead
                os.remove(os.path.join(o, "m_weights.c"))  # hundreds of MB of C
        open(os.path.join(d, "stamp"), "w").write(stamp)
        log("  built %-10s in %5.1f s" % (name, time.time() - t0))
    for o, wname in ((out, "lstmc_worker"), (out2, "lstmc_worker2")):
        if o:
            sh(["cc", "-O2", "-march=native", "-I", o, "-I", os.path.join(o, "runtime", "include"),
                "-I", HERE, os.path.join(HERE, "lstmc_worker.c"), os.path.join(o, "libm.a"), "-lm",
                "-pthread", "-o", os.path.join(d, wname)])
    return d


def dnnl_isa(a, d, dims, env):
    """The ISA oneDNN says it uses (ONEDNN_VERBOSE's info line) under env."""
    e = dict(os.environ, ONEDNN_VERBOSE="1", DNNL_VERBOSE="1", **env)
    r = subprocess.run([a.dnnl_worker, d] + dims, input="out /dev/null\nquit\n", text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=e)
    isa = [l for l in r.stdout.splitlines() if "isa:" in l]
    return isa[0].split("isa:", 1)[1].strip() if isa else "unknown (no verbose line)"


def identity_model(path):
    import onnx
    from onnx import TensorProto, helper
    g = helper.make_graph([helper.make_node("Identity", ["X"], ["Y"])], "id",
                          [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 1, 1])],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 1, 1])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 7
    onnx.save(m, path)


# ------------------------------------------------------------------ workers

class Worker:
    def __init__(self, key, system, threads, cmd, env, logdir):
        self.key, self.system, self.threads = key, system, threads
        self.errpath = os.path.join(logdir, key + ".err")
        e = dict(os.environ)
        e.update(env)
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=open(self.errpath, "w"), text=True, bufsize=1, env=e)
        self.expect("ready")
        self.samples = []

    def fail(self, what):
        err = open(self.errpath).read()
        raise SystemExit("compare: worker %s %s\n%s" % (self.key, what, err[-3000:]))

    def expect(self, word):
        line = self.p.stdout.readline()
        if line.strip() != word:
            self.fail("said %r instead of %r" % (line, word))

    def run(self, n, limit_s=0.0):
        self.p.stdin.write("run %d %d\n" % (n, int(limit_s * 1e9)))
        line = self.p.stdout.readline()
        if not line:
            self.fail("died")
        return [int(v) for v in line.split()]

    def output(self, path):
        self.p.stdin.write("out %s\n" % path)
        self.expect("ok")
        return np.fromfile(path, dtype=np.float32)

    def stderr_text(self):
        return open(self.errpath).read()

    def close(self):
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.close()
            self.p.wait(timeout=20)
        except Exception:
            self.p.kill()


def start_workers(cfg, d, a, logdir):
    name, I, H, L, T, _ = cfg
    ws = []
    node = ["node", os.path.join(HERE, "ort_worker.js"), os.path.join(d, "model.onnx"),
            os.path.join(d, "x.bin"), str(T), str(I)]
    dims = [str(I), str(H), str(L), str(T)]
    blas = {"LD_LIBRARY_PATH": BLAS_DIRS[a.torch_blas]}
    ws.append(Worker("lstmc", "lstmc", 1, [os.path.join(d, "lstmc_worker"), os.path.join(d, "x.bin")], {}, logdir))
    if H >= MT_MIN_HIDDEN:
        ws.append(Worker("lstmc_t2", "lstmc", 2, [os.path.join(d, "lstmc_worker2"), os.path.join(d, "x.bin")],
                         {}, logdir))
    for t in (1, 2):
        omp = {"OMP_NUM_THREADS": str(t)}
        ws.append(Worker("ort_t%d" % t, "onnxruntime", t, node + [str(t)], {}, logdir))
        ws.append(Worker("dnnl_t%d" % t, "oneDNN", t, [a.dnnl_worker, d] + dims, omp, logdir))
        ws.append(Worker("dnnl_avx2_t%d" % t, "oneDNN AVX2", t, [a.dnnl_worker, d] + dims,
                         dict(omp, ONEDNN_MAX_CPU_ISA="AVX2", DNNL_MAX_CPU_ISA="AVX2"), logdir))
        ws.append(Worker("torch_t%d" % t, "PyTorch", t,
                         ["/usr/bin/python3", os.path.join(HERE, "torch_worker.py"), d] + dims + [str(t)],
                         dict(blas, OPENBLAS_NUM_THREADS=str(t), BLIS_NUM_THREADS=str(t), **omp), logdir))
    return ws


def check_outputs(cfg, ws, d):
    ref_w = next(w for w in ws if w.key == "ort_t1")
    ref = ref_w.output(os.path.join(d, "y_ort_t1.bin"))
    bad = []
    for w in ws:
        if w is ref_w:
            continue
        y = w.output(os.path.join(d, "y_%s.bin" % w.key))
        diff = float(np.max(np.abs(y - ref))) if y.shape == ref.shape else math.inf
        if not diff <= TOL:
            bad.append("%s: max |diff| vs ONNX Runtime = %g (shape %s vs %s)" % (w.key, diff, y.shape, ref.shape))
    if bad:
        for w in ws:
            w.close()
        raise SystemExit("compare: %s: outputs disagree beyond %g:\n  %s" % (cfg[0], TOL, "\n  ".join(bad)))


def measure(ws, budget_s, rounds, min_reps, max_reps):
    """Interleaved rounds; per worker, reps chosen so it gets about budget_s in total. A batch
    also stops once it has used its share of the budget (after at least one call), so a system
    whose calls are far slower than its warm-up said (oversubscribed threads on a busy
    machine) cannot stretch the run."""
    per_round = {}
    for w in ws:
        w.run(1)  # warm
        t = float(np.median(w.run(3))) * 1e-9
        reps = max(min_reps, min(max_reps, int(budget_s / max(t, 1e-7))))
        per_round[w.key] = max(1, math.ceil(reps / rounds))
    for r in range(rounds):
        k = r % len(ws)
        for w in ws[k:] + ws[:k]:
            w.samples += w.run(per_round[w.key], 2.0 * budget_s / rounds)
            time.sleep(0.01)  # let the previous system's spinning threads go idle


# ------------------------------------------------------------------ roofline model

def work_model(cfg, caches, roof, threads):
    name, I, H, L, T, _ = cfg
    flops = sum(T * 2 * 4 * H * ((I if l == 0 else H) + H) for l in range(L))
    u_bytes = 16 * H * H
    w_all = sum(16 * H * ((I if l == 0 else H) + H) for l in range(L))

    def level(nbytes, shared_cache_ok=True):
        share = nbytes / threads
        if share <= 0.9 * caches.get(1, 0):
            return "L1"
        if share <= 0.9 * caches.get(2, 0):
            return "L2"
        if nbytes <= 0.9 * caches.get(3, 0):
            return "L3"
        return "DRAM"

    bw = lambda lv: roof["%s_t%d" % (lv, threads)] * 1e9
    lu, lw = level(u_bytes), level(w_all)
    t_mem = L * T * u_bytes / bw(lu) + sum(16 * H * (I if l == 0 else H) for l in range(L)) / bw(lw)
    t_flop = flops / (roof["fma512_t%d" % threads] * 1e9)
    return flops, max(t_mem, t_flop), lu, t_mem, t_flop


# ------------------------------------------------------------------ main

def kernel_params(outdir):
    """The LLVM kernel parameters lstmc compiled the model with (issue 23), from its size report:
    one string per distinct (kind, class) set, e.g. "rec llc: 512b tile 8 pf 8 alt 1 (profile:
    tile)"; [] when the report has none."""
    try:
        rep = json.load(open(os.path.join(outdir, "m_size.json")))
    except (OSError, ValueError):
        return []
    seen = []
    for layer in rep.get("layers", []):
        for k in layer.get("kernels", []):
            txt = "%s %s: %db tile %d%s pf %d%s" % (
                k["kind"], k["class"], k["vector_bits"], k["tile"],
                " rows %d" % k["rows"] if "rows" in k else "", k["prefetch"],
                " alt %d" % k["alternate"] if "alternate" in k else "")
            txt += " (profile: %s)" % ", ".join(k["from_profile"]) if k["from_profile"] else " (defaults)"
            if txt not in seen:
                seen.append(txt)
    return seen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smoke run: 3 small configs, few reps")
    ap.add_argument("--configs", help="comma-separated config names (default: all)")
    ap.add_argument("--lstmc", required=True)
    ap.add_argument("--mkmodel", required=True)
    ap.add_argument("--dnnl-worker", required=True)
    ap.add_argument("--roofline", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--torch-blas", default="openblas", choices=sorted(BLAS_DIRS))
    ap.add_argument("--budget", type=float, help="seconds of timing per system and config")
    ap.add_argument("--target", help="lstmc --target (a profile, e.g. one lstmc profile --search wrote)")
    a = ap.parse_args()
    names = a.configs.split(",") if a.configs else (QUICK if a.quick else [c[0] for c in CONFIGS])
    unknown = [n for n in names if n not in [c[0] for c in CONFIGS]]
    if unknown:
        sys.exit("compare: unknown config(s) %s; known: %s" % (unknown, ", ".join(c[0] for c in CONFIGS)))
    cfgs = [c for c in CONFIGS if c[0] in names]
    budget = a.budget or (0.25 if a.quick else 4.0)
    rounds = 2 if a.quick else 6
    os.makedirs(a.work, exist_ok=True)
    logdir = os.path.join(a.work, "logs")
    os.makedirs(logdir, exist_ok=True)

    load0 = os.getloadavg()
    log("# bench/compare: %s, %d config(s)" % (time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), len(cfgs)))
    log("load average at start: %.2f %.2f %.2f" % load0)
    for line in lscpu_summary():
        log("  " + line)

    # Build every model first, so no compiler runs while we time.
    stamp_base = file_hash(a.lstmc, a.mkmodel, *([a.target] if a.target else []))
    log("building models (cached under %s/models; lstmc %s)" % (a.work, stamp_base))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        dirs = dict(zip([c[0] for c in cfgs],
                        ex.map(lambda c: prepare(c, a, stamp_base + repr(c)), cfgs)))

    caches = cache_sizes()
    roof = measure_roofline(a.roofline, caches, a.quick)
    log("caches (sysfs): " + ", ".join("L%d %d KiB" % (k, v >> 10) for k, v in sorted(caches.items())))
    log("roofline: peak FMA GFLOP/s 512-bit %.1f (1T) %.1f (2T), 256-bit %.1f (1T) %.1f (2T)"
        % (roof["fma512_t1"], roof["fma512_t2"], roof["fma256_t1"], roof["fma256_t2"]))
    for t in (1, 2):
        log("roofline: read GB/s %dT: L1 %.1f  L2 %.1f  L3 %.1f  DRAM %.1f (buffers %s bytes per thread)"
            % (t, roof["L1_t%d" % t], roof["L2_t%d" % t], roof["L3_t%d" % t], roof["DRAM_t%d" % t], roof["sizes"]))

    # Overheads and provenance, printed once.
    idm = os.path.join(a.work, "identity.onnx")
    identity_model(idm)
    np.zeros(1, np.float32).tofile(os.path.join(a.work, "one.bin"))
    w = Worker("ort_identity", "onnxruntime", 1, ["node", os.path.join(HERE, "ort_worker.js"), idm,
               os.path.join(a.work, "one.bin"), "1", "1", "1"], {}, logdir)
    w.run(200)
    ort_overhead_us = float(np.median(w.run(2000))) / 1e3
    w.close()
    log("onnxruntime-node per-call cost on an Identity model (binding + session overhead): %.1f us" % ort_overhead_us)

    rows = []
    params = {}  # (config, threads): the lstmc kernel parameters, kernel_params()
    for cfg in cfgs:
        name, I, H, L, T, src = cfg
        d = dirs[name]
        log("\n## %s (%s): I %d, H %d, %d layer(s), T %d" % (name, src, I, H, L, T))
        for o, thr in (("lstmc_out", 1), ("lstmc_out2", 2)):
            for kp in kernel_params(os.path.join(d, o)):
                log("  lstmc %dT kernels: %s" % (thr, kp))
                params.setdefault((name, thr), []).append(kp)
        ws = start_workers(cfg, d, a, logdir)
        try:
            if cfg is cfgs[0]:
                tw = next(w for w in ws if w.key == "torch_t1")
                torch_blas_line = tw.stderr_text().strip().splitlines()[-1]
                log("  " + torch_blas_line)
                dims = [str(I), str(H), str(L), str(T)]
                isa_default = dnnl_isa(a, d, dims, {})
                isa_avx2 = dnnl_isa(a, d, dims, {"ONEDNN_MAX_CPU_ISA": "AVX2", "DNNL_MAX_CPU_ISA": "AVX2"})
                log("  oneDNN ISA: default: %s; with ONEDNN_MAX_CPU_ISA=AVX2: %s" % (isa_default, isa_avx2))
                head = ["Machine: " + "; ".join(lscpu_summary()) + ".", "",
                        "Machine ceilings (roofline.c): peak FMA %.0f GFLOP/s (1T), %.0f (2T); read GB/s "
                        "1T: L1 %.0f, L2 %.0f, L3 %.0f, DRAM %.1f; 2T: L1 %.0f, L2 %.0f, L3 %.0f, DRAM %.1f."
                        % tuple(roof[k] for k in ("fma512_t1", "fma512_t2", "L1_t1", "L2_t1", "L3_t1",
                                                  "DRAM_t1", "L1_t2", "L2_t2", "L3_t2", "DRAM_t2")), "",
                        "onnxruntime-node per-call cost on an Identity model: %.1f us." % ort_overhead_us, "",
                        "PyTorch: " + torch_blas_line + ".", "",
                        "oneDNN ISA: default: %s; with ONEDNN_MAX_CPU_ISA=AVX2: %s." % (isa_default, isa_avx2), ""]
            check_outputs(cfg, ws, d)
            log("  outputs agree within %g (vs ONNX Runtime, 1 thread)" % TOL)
            measure(ws, budget, rounds, 3 if a.quick else 10, 400 if a.quick else 4000)
        finally:
            for w in ws:
                w.close()
        for t in (1, 2):
            flops, bound, lvl, t_mem, t_flop = work_model(cfg, caches, roof, t)
            group = [w for w in ws if w.threads == t]
            if not any(w.system == "lstmc" for w in group):  # lstmc without threads: its 1T samples
                group = [w for w in ws if w.key == "lstmc"] + group
            med = {w.key: float(np.median(w.samples)) * 1e-9 for w in group}
            for w in group:
                s = np.array(w.samples) * 1e-9
                others = [med[o.key] for o in group if o.system != "lstmc"]
                row = dict(config=name, I=I, H=H, L=L, T=T, threads=t,
                           system=w.system + (" (1T)" if w.system == "lstmc" and w.threads != t else ""),
                           median_ms=med[w.key] * 1e3, min_ms=s.min() * 1e3, max_ms=s.max() * 1e3,
                           n=len(s), gflops=flops / med[w.key] / 1e9,
                           vs_best_other=(min(others) / med[w.key]) if w.system == "lstmc" else None,
                           roofline=bound / med[w.key], bound_ms=bound * 1e3, u_level=lvl,
                           t_mem_ms=t_mem * 1e3, t_flop_ms=t_flop * 1e3)
                rows.append(row)
                log("  %dT %-18s median %10.4f ms  [%9.4f .. %9.4f]  n %5d  %6.1f GFLOP/s  %5.1f%% of bound%s"
                    % (t, row["system"], row["median_ms"], row["min_ms"], row["max_ms"], row["n"],
                       row["gflops"], 100 * row["roofline"],
                       "  %.2fx vs fastest other" % row["vs_best_other"] if row["vs_best_other"] else ""))
        write_results(a.work, rows, head, load0, None, params)

    load1 = os.getloadavg()
    prelim = max(load0[0], load1[0]) > 0.5
    log("\nload average at end: %.2f %.2f %.2f%s" % (load1 + (
        "  -> PRELIMINARY: the machine was not quiet (load > 0.5)" if prelim else "",)))
    md = write_results(a.work, rows, head, load0, load1, params)
    log("\n" + md)
    log("wrote %s/results.csv and %s/results.md" % (a.work, a.work))


def write_results(work, rows, head, load0, load1, params):
    """results.csv and results.md in work (after every configuration, so a cut run keeps
    what it measured); load1 None: the run is still going."""
    with open(os.path.join(work, "results.csv"), "w", newline="") as f:
        cw = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        cw.writeheader()
        for r in rows:
            cw.writerow({k: ("%.6g" % v if isinstance(v, float) else v) for k, v in r.items()})
    busy = max(load0[0], load1[0] if load1 else 0) > 0.5
    md = ["%sload average (1 min) %.2f at start, %s at end" % (
        "PRELIMINARY (machine busy, load > 0.5): " if busy else "", load0[0],
        "%.2f" % load1[0] if load1 else "(run not finished)"), ""] + head
    md.append("| config | thr | system | median ms | min–max ms | GFLOP/s | lstmc speed-up vs fastest other | % of roofline bound |")
    md.append("|---|---|---|---|---|---|---|---|")
    for r in rows:
        md.append("| %s | %d | %s | %.4g | %.4g–%.4g | %.1f | %s | %.0f%% |" % (
            r["config"], r["threads"], r["system"], r["median_ms"], r["min_ms"], r["max_ms"], r["gflops"],
            "%.2fx" % r["vs_best_other"] if r["vs_best_other"] else "", 100 * r["roofline"]))
    md.append("")
    md.append("| config | thr | U per layer | U served by | t_mem ms | t_flop ms | bound ms |")
    md.append("|---|---|---|---|---|---|---|")
    for r in rows:
        if r["system"].startswith("lstmc"):
            md.append("| %s | %d | %.0f KiB | %s | %.4g | %.4g | %.4g |" % (
                r["config"], r["threads"], 16 * r["H"] * r["H"] / 1024, r["u_level"], r["t_mem_ms"],
                r["t_flop_ms"], r["bound_ms"]))
    if params:
        md += ["", "lstmc's kernel parameters (its size report; docs/TARGETS.md \"Kernel parameters\"):", "",
               "| config | thr | kernels |", "|---|---|---|"]
        for (name, thr), kps in params.items():
            md.append("| %s | %d | %s |" % (name, thr, "; ".join(kps)))
    text = "\n".join(md) + "\n"
    open(os.path.join(work, "results.md"), "w").write(text)
    return text

if __name__ == "__main__":
    main()
