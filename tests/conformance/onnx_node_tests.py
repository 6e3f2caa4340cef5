#!/usr/bin/python3
"""Run ONNX's own backend node tests through `lstmc run`: pass / WRONG / refused / crash.

A tool, not part of CI. Usage:

    /usr/bin/python3 tests/conformance/onnx_node_tests.py BUILD/lstmc PREFIX...

runs every test under $ONNX_NODE_DIR (default /tmp/onnxnodes/node, one folder per test with
model.onnx and test_data_set_0/*.pb, as onnx.backend.test's generator writes them) whose name
starts with test_PREFIX (every test when no prefix is given). Each test's inputs are written as
.npy, `lstmc run` computes the outputs, and they are compared with the test's outputs (floats:
rtol 1e-4, atol 1e-5, NaN equal NaN; integers and bools: exactly). It prints one line per test
that is not a pass and the counts; $CONF_WORK (default /tmp/conf-$USER) holds the work files
and summary.txt (kind, test, reason per line). WRONG (a result that differs) is the worst
outcome: a refusal names what lstmc lacks, a wrong number does not.

The tests come from Debian's python3-onnx (1.12), whose case generators need NumPy's old
aliases back on a current NumPy:

    /usr/bin/python3 -c 'import numpy as np, sys
    for k, v in (("float", float), ("int", int), ("bool", bool), ("object", object)):
        hasattr(np, k) or setattr(np, k, v)
    from onnx.backend.test import cmd_tools
    sys.argv = ["x", "generate-data", "-o", "/tmp/onnxnodes"]; cmd_tools.main()'

(922 node tests). On 2026-11-28, after issue 20, run over the prefixes of the ops lstmc imports
(LSTM, GRU, RNN, the layout and maths ops, every issue-20 op): no WRONG and no crash; the
refusals are dtypes lstmc does not have (double, float16, 8- and
16-bit integers), shape operands given as graph inputs (lstmc compiles static shapes), 3-D
convolutions and pools, and ops it does not import.
"""
import glob
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

LSTMC = sys.argv[1]
pats = sys.argv[2:]
root = os.environ.get("ONNX_NODE_DIR", "/tmp/onnxnodes/node")
wroot = os.environ.get("CONF_WORK", "/tmp/conf-" + os.environ.get("USER", "lstmc"))
res = {"pass": [], "WRONG": [], "refused": [], "crash": []}
for d in sorted(os.listdir(root)):
    if pats and not any(d.startswith("test_" + p) for p in pats):
        continue
    m = onnx.load(os.path.join(root, d, "model.onnx"))
    inits = {i.name for i in m.graph.initializer}
    gin = [i.name for i in m.graph.input if i.name not in inits]
    ds = os.path.join(root, d, "test_data_set_0")
    work = f"{wroot}/w/{d}"
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work + "/out")
    args = [LSTMC, "run", os.path.join(root, d, "model.onnx"), "--output-dir", work + "/out"]
    ok = True
    for k, name in enumerate(gin):
        t = onnx.TensorProto()
        p = os.path.join(ds, f"input_{k}.pb")
        if not os.path.exists(p):
            ok = False
            break
        t.ParseFromString(open(p, "rb").read())
        a = numpy_helper.to_array(t)
        f = f"{work}/in{k}.npy"
        np.save(f, a)
        args += ["--input", f"{name}={f}"]
    if not ok:
        continue
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        res["crash"].append((d, "timeout"))
        print(d, "TIMEOUT", flush=True)
        continue
    if r.returncode != 0:
        msg = (r.stderr.strip().splitlines() or [""])
        err = [l for l in msg if "error" in l] or msg
        key = "refused" if r.returncode in (1, 2) else "crash"
        res[key].append((d, f"rc={r.returncode} " + err[0][:300]))
        print(d, key, err[0][:200], flush=True)
        continue
    bad = []
    for k, o in enumerate(m.graph.output):
        t = onnx.TensorProto()
        t.ParseFromString(open(os.path.join(ds, f"output_{k}.pb"), "rb").read())
        want = numpy_helper.to_array(t)
        fn = f"{work}/out/{o.name}.npy"
        if not os.path.exists(fn):
            cands = glob.glob(f"{work}/out/*.npy")
            bad.append(f"no {o.name}.npy ({[os.path.basename(c) for c in cands]})")
            continue
        got = np.load(fn)
        if got.shape != want.shape:
            bad.append(f"{o.name}: shape {got.shape} want {want.shape}")
        elif want.dtype.kind == "f":
            if not np.allclose(got, want, rtol=1e-4, atol=1e-5, equal_nan=True):
                bad.append(f"{o.name}: max err {np.nanmax(np.abs(got.astype(np.float64) - want)):.3g}")
        elif not np.array_equal(got, want.astype(got.dtype)) or got.dtype != want.dtype and want.dtype.kind != got.dtype.kind:
            bad.append(f"{o.name}: ints differ ({got.dtype} vs {want.dtype})")
    if bad:
        res["WRONG"].append((d, "; ".join(bad)))
        print(d, "WRONG", "; ".join(bad), flush=True)
    else:
        res["pass"].append((d, ""))
print({k: len(v) for k, v in res.items()})
with open(f"{wroot}/summary.txt", "w") as f:
    for k, v in res.items():
        for d, why in v:
            f.write(f"{k}\t{d}\t{why}\n")
