#!/usr/bin/python3
"""Train two small REAL LSTM models for lstmc accuracy/speed experiments.

    /usr/bin/python3 tests/train/train_models.py            # both models
    /usr/bin/python3 tests/train/train_models.py charlm     # only one
    /usr/bin/python3 tests/train/train_models.py --quick    # smoke test (tiny epochs, writes to /tmp)

Needs Debian's /usr/bin/python3 with python3-torch (1.13), python3-onnx (1.12)
and python3-numpy.  The ONNX Runtime cross-check uses node + onnxruntime-node
from tests/fixtures/.ort (skipped with a note if it is not installed).

Models (written to tests/train/<name>/):

  charlm  character-level LM: Embedding(V, 64) + 2-layer LSTM(256) + Linear(V),
          trained on the license texts in /usr/share/common-licenses (package
          base-files, present on every Debian 12 system).  Exported for a fixed
          window: x int64 [1, 100] token ids -> y float [1, 100, V] logits.
  charlm512  the same with LSTM(512) (issue 24: U beyond the core's L2 cache),
          trained for 6 epochs.
  har     HAR-style classifier: 2-layer LSTM(9 -> 32) + Linear(6) on the last
          step, trained on a synthetic (generated, seeded) 9-channel 128-step
          activity dataset.  x float [1, 128, 9] -> y float [1, 6] logits.

Speed note: Debian's torch links the *reference* BLAS (libblas.so.3 from
package libblas3), which is ~10x slower than OpenBLAS for these GEMMs, and
torch's OpenMP loops are badly hurt by an oversubscribed machine.  The script
therefore (1) re-executes itself with an OpenBLAS libblas.so.3 first on
LD_LIBRARY_PATH when one is found (--openblas DIR, $OPENBLAS_DIR, the stock
Debian locations, or /tmp/openblas/... -- see README.md for how to unpack
libopenblas0-pthread without installing it) and (2) uses 1 thread by default
(--threads N).  Results are deterministic for a given BLAS and thread count;
a different BLAS gives slightly different (equally good) weights.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
ORT_JS = REPO / "tests" / "fixtures" / "ort_ref.js"

OPENBLAS_CANDIDATES = [
    "/usr/lib/x86_64-linux-gnu/openblas-pthread",
    "/usr/lib/x86_64-linux-gnu/openblas-openmp",
    "/tmp/openblas/usr/lib/x86_64-linux-gnu/openblas-pthread",
]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("models", nargs="*", help="charlm, charlm512 and/or har (default charlm, har)")
    p.add_argument("--threads", type=int, default=1, help="torch/BLAS threads (default 1)")
    p.add_argument("--openblas", default=os.environ.get("OPENBLAS_DIR"),
                   help="directory holding an OpenBLAS libblas.so.3 (default: search stock locations)")
    p.add_argument("--no-openblas", action="store_true", help="do not look for OpenBLAS")
    p.add_argument("--quick", action="store_true", help="smoke test: tiny training, output under /tmp")
    p.add_argument("--out", default=str(HERE), help="output root (default tests/train)")
    a = p.parse_args()
    a.models = a.models or ["charlm", "har"]
    for m in a.models:
        if m not in ("charlm", "charlm512", "har"):
            p.error(f"unknown model {m!r}")
    return a


def maybe_reexec_with_openblas(args):
    if args.no_openblas or os.environ.get("LSTMC_TRAIN_REEXEC") == "1":
        return
    cands = [args.openblas] if args.openblas else OPENBLAS_CANDIDATES
    for d in cands:
        if d and os.path.exists(os.path.join(d, "libblas.so.3")):
            env = dict(os.environ)
            env["LD_LIBRARY_PATH"] = d + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
            env["LSTMC_TRAIN_REEXEC"] = "1"
            env["OPENBLAS_NUM_THREADS"] = str(args.threads)
            env["OMP_NUM_THREADS"] = str(args.threads)
            print(f"[setup] re-executing with OpenBLAS from {d}", flush=True)
            os.execve(sys.executable, [sys.executable] + sys.argv, env)
    if args.openblas:
        sys.exit(f"--openblas {args.openblas}: no libblas.so.3 there")


ARGS = parse_args()
maybe_reexec_with_openblas(ARGS)

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(ARGS.threads)
# torch 1.13's exporter warns about batch sizes / prim::Constant shape inference; both harmless here
warnings.filterwarnings("ignore", category=UserWarning, module=r"torch\.onnx")


def blas_info():
    """Which libblas.so.3 did the process map?"""
    try:
        with open("/proc/self/maps") as f:
            libs = sorted({ln.split()[-1] for ln in f if "blas" in ln and ".so" in ln})
        return ", ".join(libs) or "?"
    except OSError:
        return "?"


def gemm_gflops():
    a = torch.randn(512, 512)
    a @ a
    t = time.time()
    for _ in range(8):
        a @ a
    return 8 * 2 * 512 ** 3 / (time.time() - t) / 1e9


def seed_all(s):
    torch.manual_seed(s)
    np.random.seed(s)


def fmt_s(s):
    return f"{s:.0f} s ({s / 60:.1f} min)"


# ----------------------------------------------------------------- ONNX checks
def ort_available():
    return (ORT_JS.exists() and (REPO / "tests/fixtures/.ort/node_modules/onnxruntime-node").exists()
            and subprocess.run(["sh", "-c", "command -v node"], capture_output=True).returncode == 0)


def run_ort(model_path, x):
    """Run one sample through ONNX Runtime (node ort_ref.js); returns output 'y'."""
    with tempfile.TemporaryDirectory() as td:
        td = Path(td)
        np.save(td / "x.npy", x)
        (td / "inputs.txt").write_text("x\tx.npy\n")
        r = subprocess.run(["node", str(ORT_JS), str(model_path), str(td / "inputs.txt"), str(td / "out")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"ort_ref.js failed: {r.stderr[-2000:]}")
        return np.load(td / "out" / "y.npy")


def export_and_check(module, example, path, torch_fn, samples):
    """Export at opset 14, run onnx.checker, compare ORT with PyTorch on samples.

    Returns a list of report lines."""
    module.eval()
    torch.onnx.export(module, (example,), str(path), opset_version=14, input_names=["x"],
                      output_names=["y"], do_constant_folding=True)
    m = onnx.load(str(path))
    onnx.checker.check_model(m)
    ops = sorted({n.op_type for n in m.graph.node})
    ins = [(i.name, [d.dim_value for d in i.type.tensor_type.shape.dim]) for i in m.graph.input]
    outs = [(o.name, [d.dim_value for d in o.type.tensor_type.shape.dim]) for o in m.graph.output]
    lines = [f"- `onnx.checker.check_model`: OK (opset {m.opset_import[0].version}, "
             f"IR version {m.ir_version}, {path.stat().st_size} bytes)",
             f"- graph inputs {ins}, outputs {outs}",
             f"- ops: {', '.join(ops)}"]
    if not ort_available():
        lines.append("- ONNX Runtime check: SKIPPED (tests/fixtures/.ort/node_modules or node missing)")
        return lines
    lines.append("- ONNX Runtime (onnxruntime-node via tests/fixtures/ort_ref.js, CPU, 1 thread, "
                 "graph optimisations off) vs PyTorch on eval samples:")
    worst = 0.0
    for k in samples:
        x = samples[k]
        y_ort = run_ort(path, x)
        y_pt = torch_fn(x)
        assert y_ort.shape == y_pt.shape, (y_ort.shape, y_pt.shape)
        d = float(np.max(np.abs(y_ort.astype(np.float64) - y_pt)))
        rel = d / float(np.max(np.abs(y_pt)))
        agree = float(np.mean(np.argmax(y_ort, -1) == np.argmax(y_pt, -1)))
        worst = max(worst, d)
        lines.append(f"  - sample {k}: max |ORT - PyTorch| = {d:.2e} (max |y| = {np.max(np.abs(y_pt)):.2f}, "
                     f"rel {rel:.1e}); argmax agreement {agree * 100:.0f} %")
        print(f"  [onnx] sample {k}: max abs diff {d:.2e}, argmax agree {agree:.3f}", flush=True)
    if worst > 1e-3:
        raise SystemExit(f"ORT/PyTorch mismatch {worst}")
    return lines


# ===================================================================== charlm
LICENSE_DIR = Path("/usr/share/common-licenses")
# Every regular file of base-files 12.x's /usr/share/common-licenses (the GFDL,
# GPL and LGPL entries without a version are symlinks and are left out).
# ASCII-only, 237,320 characters in total.  Order is fixed: the held-out 10 %
# is the tail of this concatenation (the end of MPL-1.1 and all of MPL-2.0).
LICENSE_FILES = ["Apache-2.0", "Artistic", "BSD", "CC0-1.0", "GFDL-1.2", "GFDL-1.3", "GPL-1", "GPL-2",
                 "GPL-3", "LGPL-2", "LGPL-2.1", "LGPL-3", "MPL-1.1", "MPL-2.0"]

CL = dict(emb=64, hidden=256, layers=2, dropout=0.2, batch=32, bptt=100, epochs=9, lr=3e-3, lr_end=3e-4,
          clip=1.0, eval_len=100, eval_k=50, seed=1234)
# issue 24: the same language model in the MICRO'18 regime, U (4 MiB per layer in fp32) far
# beyond the core's L2: hidden 512, 2 layers, on the same text and eval windows
CL512 = dict(CL, hidden=512, epochs=6, lr=2e-3, lr_end=2e-4, seed=5120)


class CharLM(nn.Module):
    def __init__(self, vocab, cfg=CL):
        super().__init__()
        self.emb = nn.Embedding(vocab, cfg["emb"])
        self.lstm = nn.LSTM(cfg["emb"], cfg["hidden"], num_layers=cfg["layers"], batch_first=True,
                            dropout=cfg["dropout"])
        self.fc = nn.Linear(cfg["hidden"], vocab)

    def forward(self, x, state=None):
        y, state = self.lstm(self.emb(x), state)
        return self.fc(y), state


class CharLMExport(nn.Module):
    """Zero initial state, logits for every position: x [1, T] int64 -> y [1, T, V]."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)[0]


def charlm_eval_stream(model, ids, streams=8, T=100):
    """Stateful held-out bits/char and accuracy: ids split into `streams` contiguous streams."""
    model.eval()
    L = (len(ids) - 1) // streams
    xs = torch.from_numpy(np.stack([ids[i * L:(i + 1) * L] for i in range(streams)]))
    ys = torch.from_numpy(np.stack([ids[i * L + 1:(i + 1) * L + 1] for i in range(streams)]))
    nll, correct, n, state = 0.0, 0, 0, None
    with torch.no_grad():
        for s in range(0, L, T):
            logits, state = model(xs[:, s:s + T], state)
            y = ys[:, s:s + T]
            nll += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), reduction="sum").item()
            correct += (logits.argmax(-1) == y).sum().item()
            n += y.numel()
    model.train()
    return nll / n / math.log(2), correct / n


def train_charlm(out, base=CL):
    t_start = time.time()
    seed_all(base["seed"])
    cfg = dict(base)
    if ARGS.quick:
        cfg["epochs"] = 1
    text = "".join((LICENSE_DIR / f).read_text(encoding="utf-8") for f in LICENSE_FILES)
    chars = sorted(set(text))
    V = len(chars)
    stoi = {c: i for i, c in enumerate(chars)}
    ids = np.array([stoi[c] for c in text], dtype=np.int64)
    split = int(len(ids) * 0.9)
    train, held = ids[:split], ids[split:]
    if ARGS.quick:
        train = train[:20000]
    print(f"[charlm] text {len(text)} chars, vocab {V}, train {len(train)}, held-out {len(held)}", flush=True)

    B, T = cfg["batch"], cfg["bptt"]
    Ls = len(train) // B
    data = torch.from_numpy(train[:B * Ls].reshape(B, Ls))
    model = CharLM(V, cfg)
    nparams = sum(p.numel() for p in model.parameters())
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    steps_per_epoch = (Ls - 1 - (T - 1)) // T  # conservative; offset < T
    total_steps = steps_per_epoch * cfg["epochs"]
    gamma = (cfg["lr_end"] / cfg["lr"]) ** (1.0 / max(1, total_steps - 1))
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma)
    rng = np.random.RandomState(cfg["seed"])
    history = []
    step = 0
    t_train = time.time()
    for ep in range(cfg["epochs"]):
        model.train()
        off = int(rng.randint(0, T))
        state = None
        tot, cnt = 0.0, 0
        for k in range(steps_per_epoch):
            s = off + k * T
            x, y = data[:, s:s + T], data[:, s + 1:s + T + 1]
            logits, state = model(x, state)
            state = tuple(h.detach() for h in state)
            loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
            opt.step()
            sched.step()
            step += 1
            tot += loss.item()
            cnt += 1
            if k % 20 == 0:
                el = time.time() - t_train
                print(f"[charlm] ep {ep + 1}/{cfg['epochs']} step {step}/{total_steps} loss {loss.item():.3f} "
                      f"lr {sched.get_last_lr()[0]:.1e} elapsed {el:.0f}s "
                      f"eta {el / step * (total_steps - step):.0f}s", flush=True)
        bpc, acc = charlm_eval_stream(model, held)
        history.append((ep + 1, tot / cnt, tot / cnt / math.log(2), bpc, acc, time.time() - t_train))
        print(f"[charlm] epoch {ep + 1}: train loss {tot / cnt:.3f} nats ({tot / cnt / math.log(2):.3f} bpc), "
              f"held-out {bpc:.3f} bpc, acc {acc * 100:.1f} %", flush=True)
    train_time = time.time() - t_train
    model.eval()

    # final train-set loss in eval mode (no dropout), stateful, first 40k chars
    tr_bpc, tr_acc = charlm_eval_stream(model, train[:40000])
    held_bpc, held_acc = charlm_eval_stream(model, held)

    # evaluation set: K windows of eval_len+1 chars spread evenly over the held-out part
    N, K = cfg["eval_len"], cfg["eval_k"]
    stride = (len(held) - (N + 1)) // (K - 1)
    wins = np.stack([held[i * stride:i * stride + N + 1] for i in range(K)])
    ex = wins[:, None, :N].astype(np.int64)           # [K, 1, N]
    ey = wins[:, None, 1:N + 1].astype(np.int64)      # [K, 1, N]
    with torch.no_grad():
        lg = torch.cat([model(torch.from_numpy(ex[i]))[0] for i in range(K)])  # [K, N, V]
    yt = torch.from_numpy(ey[:, 0])
    e_nll = F.cross_entropy(lg.reshape(-1, V), yt.reshape(-1)).item()
    e_acc = (lg.argmax(-1) == yt).float().mean().item()
    # accuracy restricted to positions >= 20 (after the zero-state warm-up)
    e_acc20 = (lg[:, 20:].argmax(-1) == yt[:, 20:]).float().mean().item()
    e_bpc20 = F.cross_entropy(lg[:, 20:].reshape(-1, V), yt[:, 20:].reshape(-1)).item() / math.log(2)

    out.mkdir(parents=True, exist_ok=True)
    np.save(out / "eval_x.npy", ex)
    np.save(out / "eval_y.npy", ey)
    with open(out / "vocab.txt", "w", encoding="utf-8") as f:
        f.write("# id<TAB>unicode code point (decimal)<TAB>python repr of the character\n")
        for i, c in enumerate(chars):
            f.write(f"{i}\t{ord(c)}\t{c!r}\n")

    exp = CharLMExport(model).eval()

    def torch_fn(x):
        with torch.no_grad():
            return exp(torch.from_numpy(x)).numpy().astype(np.float64)
    onnx_lines = export_and_check(exp, torch.from_numpy(ex[0]), out / "model.onnx", torch_fn,
                                  {k: ex[k] for k in (0, K // 2, K - 1)})
    total = time.time() - t_start

    sizes = {f: (out / f).stat().st_size for f in ("model.onnx", "eval_x.npy", "eval_y.npy", "vocab.txt")}
    hist = "\n".join(f"| {e} | {l:.3f} | {b:.3f} | {hb:.3f} | {ha * 100:.1f} | {t:.0f} |"
                     for e, l, b, hb, ha, t in history)
    rep = f"""# {out.name}: character-level LSTM language model

Generated by `/usr/bin/python3 tests/train/train_models.py {out.name}` (seed {cfg['seed']}).

## Data

- Source: the {len(LICENSE_FILES)} regular files of `/usr/share/common-licenses` (Debian package
  `base-files`, present on every Debian 12 system), concatenated in this order:
  {', '.join(LICENSE_FILES)}.
  English legal prose, ASCII only, {len(text):,} characters, vocabulary {V} characters (`vocab.txt`).
- Split: first 90 % ({len(train):,} chars) for training, last 10 % ({len(held):,} chars: the end of
  MPL-1.1 and all of MPL-2.0) held out.  Note the license texts share a lot of boiler-plate, so
  held-out text is "in-domain" (MPL-2.0 partly paraphrases MPL-1.1).
- Evaluation set: `eval_x.npy` int64 [{K}, 1, {N}] = {K} windows of {N} token ids spread evenly over
  the held-out part (stride {stride}); `eval_y.npy` int64 [{K}, 1, {N}] = the next character at each
  position (i.e. the window shifted by one).

## Model

Embedding({V}, {cfg['emb']}) -> LSTM({cfg['emb']} -> {cfg['hidden']}, {cfg['layers']} layers, batch_first)
-> Linear({cfg['hidden']} -> {V}); {nparams:,} parameters ({nparams * 4 / 1e6:.2f} MB float32).
Exported model (`model.onnx`): input `x` int64 [1, {N}] token ids, output `y` float32 [1, {N}, {V}]
logits (no softmax), zero initial state.  Predicted next char = argmax over the last axis.

## Training

Truncated BPTT, {B} parallel contiguous streams, sequence length {T}, hidden state carried across
chunks (detached), random start offset per epoch; Adam lr {cfg['lr']} decayed exponentially to
{cfg['lr_end']}, gradient-norm clip {cfg['clip']}, LSTM inter-layer dropout {cfg['dropout']};
{cfg['epochs']} epochs = {total_steps} steps.  torch {torch.__version__}, {ARGS.threads} thread(s),
BLAS: `{blas_info()}`.
Training time {fmt_s(train_time)}; whole charlm stage (incl. eval, export, checks) {fmt_s(total)}.

| epoch | train loss (nats, dropout on) | train bpc | held-out bpc | held-out acc % | elapsed s |
|---|---|---|---|---|---|
{hist}

## Accuracy (PyTorch, float32)

- Final train text (first 40k chars, stateful, dropout off): {tr_bpc:.3f} bits/char, next-char accuracy {tr_acc * 100:.1f} %.
- Held-out text (stateful over 8 streams): {held_bpc:.3f} bits/char, next-char accuracy {held_acc * 100:.1f} %.
- **Evaluation set** (`eval_x.npy`, each window from a zero state, exactly what `model.onnx` computes):
  next-char accuracy **{e_acc * 100:.2f} %**, {e_nll / math.log(2):.3f} bits/char
  ({K * N} predictions); positions 20..{N - 1} only: {e_acc20 * 100:.2f} %, {e_bpc20:.3f} bits/char.

## ONNX export check

{chr(10).join(onnx_lines)}

## Files

{chr(10).join(f'- `{f}`: {s:,} bytes' for f, s in sizes.items())}
"""
    (out / "REPORT.md").write_text(rep)
    print(f"[charlm] done in {fmt_s(total)}: eval-set acc {e_acc * 100:.2f} %, held-out {held_bpc:.3f} bpc",
          flush=True)
    return dict(acc=e_acc, bpc=e_nll / math.log(2), held_bpc=held_bpc, held_acc=held_acc, time=total)


# ======================================================================== har
HAR = dict(steps=128, chans=9, classes=6, hidden=32, layers=2, n_train=4000, n_test=1000, eval_k=200,
           batch=64, epochs=15, lr=3e-3, lr_end=2e-4, clip=1.0, seed=4321, data_seed=2024)
HAR_CLASSES = ["walking", "walking_upstairs", "walking_downstairs", "sitting", "standing", "laying"]


def har_class_templates(rng):
    """Fixed per-class structure: gait frequency, per-channel harmonic amplitudes and phases, gravity."""
    T = {}
    f0 = [1.8, 1.55, 2.05, 0.0, 0.0, 0.0]           # gait fundamental (Hz) for the dynamic classes
    amp = [1.0, 0.9, 1.25, 0.05, 0.04, 0.03]        # overall movement amplitude
    grav = [[0.95, 0.25, 0.15], [0.93, 0.30, 0.20], [0.96, 0.20, 0.18],   # gravity direction (x,y,z)
            [0.80, 0.45, 0.40], [0.93, 0.28, 0.22], [0.15, 0.25, 0.96]]
    base = rng.uniform(0.2, 1.0, size=(6, 6))        # per-channel amplitude profile (6 motion channels)
    for c in range(6):
        h = rng.uniform(0.0, 1.0, size=(6, 3))       # harmonic amplitudes per motion channel
        h[:, 0] += 0.5
        T[c] = dict(f0=f0[c], amp=amp[c], grav=np.array(grav[c]) / np.linalg.norm(grav[c]),
                    chan=base[c], harm=h, phase=rng.uniform(0, 2 * np.pi, size=(6, 3)))
    # make the three walking classes share most of their structure (harder)
    for c in (1, 2):
        T[c]["chan"] = 0.6 * T[0]["chan"] + 0.4 * T[c]["chan"]
        T[c]["harm"] = 0.6 * T[0]["harm"] + 0.4 * T[c]["harm"]
        T[c]["phase"] = T[0]["phase"] + 0.5 * (T[c]["phase"] - T[0]["phase"])
    return T


def har_make(n, rng, tmpl):
    t = np.arange(HAR["steps"]) / 50.0                    # 50 Hz, 2.56 s window
    X = np.zeros((n, HAR["steps"], HAR["chans"]), np.float64)
    y = rng.randint(0, 6, size=n)
    for i in range(n):
        p = tmpl[y[i]]
        motion = np.zeros((HAR["steps"], 6))
        if p["f0"] > 0:
            f = p["f0"] * np.exp(0.10 * rng.randn())        # per-sample cadence (overlaps between classes)
            a = p["amp"] * np.exp(0.25 * rng.randn())       # per-sample intensity
            ph0 = rng.uniform(0, 2 * np.pi)                  # where in the gait cycle the window starts
            harm = p["harm"] * np.exp(0.30 * rng.randn(6, 3))
            for ch in range(6):
                for k in range(3):
                    motion[:, ch] += harm[ch, k] * np.sin(2 * np.pi * (k + 1) * f * t + (k + 1) * ph0
                                                          + p["phase"][ch, k] + 0.3 * rng.randn())
                motion[:, ch] *= a * p["chan"][ch]
        else:
            # static postures: small random fidgeting (low-frequency)
            for ch in range(6):
                fr = rng.uniform(0.1, 1.5)
                motion[:, ch] = p["amp"] * rng.randn() * np.sin(2 * np.pi * fr * t + rng.uniform(0, 6.3))
        g = p["grav"] + 0.12 * rng.randn(3)                 # device orientation varies per sample
        g = g / np.linalg.norm(g)
        X[i, :, 0:3] = motion[:, 0:3]                       # body acceleration
        X[i, :, 3:6] = motion[:, 3:6]                       # gyroscope
        X[i, :, 6:9] = motion[:, 0:3] + g[None, :]          # total acceleration = body + gravity
        X[i] += 0.05 * rng.randn(1, 9)                      # sensor offsets
        X[i] += 0.25 * rng.randn(HAR["steps"], 9) * np.exp(0.3 * rng.randn())  # noise
    return X.astype(np.float32), y.astype(np.int64)


class HarLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(HAR["chans"], HAR["hidden"], num_layers=HAR["layers"], batch_first=True)
        self.fc = nn.Linear(HAR["hidden"], HAR["classes"])

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y[:, -1, :])


def train_har(out):
    t_start = time.time()
    cfg = dict(HAR)
    if ARGS.quick:
        cfg.update(n_train=1000, epochs=2)
    rng = np.random.RandomState(cfg["data_seed"])
    tmpl = har_class_templates(rng)
    Xtr, ytr = har_make(cfg["n_train"], rng, tmpl)
    Xte, yte = har_make(cfg["n_test"], rng, tmpl)
    print(f"[har] data: train {Xtr.shape}, test {Xte.shape}, class counts {np.bincount(ytr).tolist()}",
          flush=True)
    seed_all(cfg["seed"])
    model = HarLSTM()
    nparams = sum(p.numel() for p in model.parameters())
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    spe = cfg["n_train"] // cfg["batch"]
    total_steps = spe * cfg["epochs"]
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, (cfg["lr_end"] / cfg["lr"]) ** (1 / max(1, total_steps - 1)))
    xt, yt = torch.from_numpy(Xtr), torch.from_numpy(ytr)
    xe, ye = torch.from_numpy(Xte), torch.from_numpy(yte)
    g = torch.Generator().manual_seed(cfg["seed"])

    def test_acc():
        model.eval()
        with torch.no_grad():
            a = (model(xe).argmax(1) == ye).float().mean().item()
        model.train()
        return a
    history = []
    t_train = time.time()
    for ep in range(cfg["epochs"]):
        perm = torch.randperm(cfg["n_train"], generator=g)
        tot = 0.0
        for k in range(spe):
            idx = perm[k * cfg["batch"]:(k + 1) * cfg["batch"]]
            loss = F.cross_entropy(model(xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
            opt.step()
            sched.step()
            tot += loss.item()
        a = test_acc()
        history.append((ep + 1, tot / spe, a, time.time() - t_train))
        print(f"[har] epoch {ep + 1}/{cfg['epochs']}: train loss {tot / spe:.3f}, test acc {a * 100:.1f} %, "
              f"elapsed {time.time() - t_train:.0f}s", flush=True)
    train_time = time.time() - t_train
    model.eval()
    with torch.no_grad():
        tr_acc = (model(xt).argmax(1) == yt).float().mean().item()
        pe = model(xe).argmax(1)
    te_acc = (pe == ye).float().mean().item()
    conf = np.zeros((6, 6), int)
    for a, b in zip(yte, pe.numpy()):
        conf[a, b] += 1

    K = cfg["eval_k"]
    ex = Xte[:K, None]            # [K, 1, 128, 9]
    ey = yte[:K].copy()           # [K]
    with torch.no_grad():
        e_logits = model(torch.from_numpy(Xte[:K])).numpy()
    e_acc = float(np.mean(e_logits.argmax(1) == ey))
    srt = np.sort(e_logits, 1)
    margin = srt[:, -1] - srt[:, -2]

    out.mkdir(parents=True, exist_ok=True)
    np.save(out / "eval_x.npy", ex)
    np.save(out / "eval_y.npy", ey)

    def torch_fn(x):
        with torch.no_grad():
            return model(torch.from_numpy(x)).numpy().astype(np.float64)
    onnx_lines = export_and_check(model, torch.from_numpy(ex[0]), out / "model.onnx", torch_fn,
                                  {k: ex[k] for k in (0, K // 2, K - 1)})
    total = time.time() - t_start
    sizes = {f: (out / f).stat().st_size for f in ("model.onnx", "eval_x.npy", "eval_y.npy")}
    hist = "\n".join(f"| {e} | {l:.3f} | {a * 100:.1f} | {t:.0f} |" for e, l, a, t in history)
    conf_s = "\n".join(f"| {HAR_CLASSES[i]} | " + " | ".join(str(v) for v in conf[i]) + " |" for i in range(6))
    rep = f"""# har: HAR-style 2-layer LSTM classifier (synthetic data)

Generated by `/usr/bin/python3 tests/train/train_models.py har` (data seed {cfg['data_seed']},
training seed {cfg['seed']}).

## Data (synthetic -- the UCI HAR data set is not on the machine)

9 channels x 128 steps (2.56 s at 50 Hz), laid out like UCI HAR: body acceleration xyz (0-2),
gyroscope xyz (3-5), total acceleration xyz (6-8) = body acceleration + gravity direction.
6 classes ({', '.join(HAR_CLASSES)}), drawn uniformly.  Generated by `har_make()`:

- walking classes: a gait signal with a class cadence (1.8 / 1.55 / 2.05 Hz, per-sample
  log-normal jitter 10 %, so cadences overlap), 3 harmonics per channel with class-specific
  amplitude/phase templates (the two stairs classes share 60 % of the walking template),
  per-sample intensity (25 % log-normal), random gait phase, per-harmonic amplitude (30 %) and
  phase (0.3 rad) jitter;
- static classes (sitting / standing / laying): small low-frequency fidgeting; they differ only in
  the gravity direction, which gets per-sample gaussian jitter (sigma 0.12 per axis) -- sitting vs
  standing overlap, as in the real data set;
- all samples: per-channel offsets (sigma 0.05) and white noise (sigma 0.25 x log-normal 30 %).

Sizes: {cfg['n_train']} training, {cfg['n_test']} test samples.  Evaluation set = the first {K} test
samples: `eval_x.npy` float32 [{K}, 1, 128, 9], `eval_y.npy` int64 [{K}] (class ids, order above).

## Model

LSTM(9 -> {cfg['hidden']}, {cfg['layers']} layers, batch_first) -> last step -> Linear({cfg['hidden']} -> 6);
{nparams:,} parameters.  Exported model (`model.onnx`): input `x` float32 [1, 128, 9], output `y`
float32 [1, 6] **logits** (no softmax; predicted class = argmax).

## Training

Adam lr {cfg['lr']} decayed exponentially to {cfg['lr_end']}, batch {cfg['batch']}, {cfg['epochs']} epochs
({total_steps} steps), gradient-norm clip {cfg['clip']}, cross-entropy.  torch {torch.__version__},
{ARGS.threads} thread(s), BLAS: `{blas_info()}`.
Training time {fmt_s(train_time)}; whole har stage (incl. data generation, export, checks) {fmt_s(total)}.

| epoch | train loss | test acc % | elapsed s |
|---|---|---|---|
{hist}

## Accuracy (PyTorch, float32)

- Train set: {tr_acc * 100:.2f} %; full test set ({cfg['n_test']}): {te_acc * 100:.2f} %.
- **Evaluation set** ({K} samples): **{e_acc * 100:.2f} %** ({int(round(e_acc * K))}/{K}).
  Logit margin (top1 - top2) on the eval set: min {margin.min():.3f}, median {np.median(margin):.3f};
  {int(np.sum(margin < 0.5))} samples have a margin < 0.5 (these flip first under weight quantisation).

Confusion matrix on the test set (rows = true, columns = predicted, same class order):

| true \\ pred | {' | '.join(str(i) for i in range(6))} |
|---|{'---|' * 6}
{conf_s}

## ONNX export check

{chr(10).join(onnx_lines)}

## Files

{chr(10).join(f'- `{f}`: {s:,} bytes' for f, s in sizes.items())}
"""
    (out / "REPORT.md").write_text(rep)
    print(f"[har] done in {fmt_s(total)}: eval acc {e_acc * 100:.2f} %, test acc {te_acc * 100:.2f} %", flush=True)
    return dict(acc=e_acc, test_acc=te_acc, time=total)


def main():
    root = Path("/tmp/lstmc_train_quick") if ARGS.quick else Path(ARGS.out)
    print(f"[setup] torch {torch.__version__}, threads {torch.get_num_threads()}, BLAS {blas_info()}, "
          f"GEMM {gemm_gflops():.1f} GFLOP/s, output {root}", flush=True)
    res = {}
    t0 = time.time()
    if "har" in ARGS.models:
        res["har"] = train_har(root / "har")
    if "charlm" in ARGS.models:
        res["charlm"] = train_charlm(root / "charlm")
    if "charlm512" in ARGS.models:
        res["charlm512"] = train_charlm(root / "charlm512", CL512)
    print(f"[done] total {fmt_s(time.time() - t0)}: {json.dumps(res, indent=None)}", flush=True)


if __name__ == "__main__":
    main()
