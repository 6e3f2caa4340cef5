#!/usr/bin/python3
"""torch_worker.py — times PyTorch's torch.nn.LSTM (CPU, fp32, inference mode) on a stack of
LSTM layers with an ONNX model's weights, with the command protocol of worker.h.

    torch_worker.py DIR I H L T THREADS

DIR holds x.bin and W_l.bin / R_l.bin / B_l.bin per layer in ONNX's layout and gate order
(i, o, f, c); they are reordered to PyTorch's (i, f, g, o). torch.set_num_threads(THREADS).
The BLAS PyTorch calls is whatever libblas.so.3 the dynamic loader finds: compare.py sets
LD_LIBRARY_PATH to a fast one, and this worker prints the BLAS it actually mapped (from
/proc/self/maps) on stderr before "ready".
"""
import sys
import time

import numpy as np
import torch


def loaded_blas():
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.split()[-1] if len(line.split()) >= 6 else ""
            if any(k in p for k in ("libblas", "openblas", "blis", "mkl_rt", "libmkl")):
                libs.add(p)
    return sorted(libs)


def main():
    d, I, H, L, T, threads = sys.argv[1], *map(int, sys.argv[2:7])
    torch.set_num_threads(threads)
    order = [0, 2, 3, 1]  # torch gate k is ONNX gate order[k]

    def reorder(a):
        return np.concatenate([a[g * H:(g + 1) * H] for g in order])

    lstm = torch.nn.LSTM(input_size=I, hidden_size=H, num_layers=L)
    with torch.no_grad():
        for l in range(L):
            il = I if l == 0 else H
            W = np.fromfile(f"{d}/W_{l}.bin", dtype=np.float32).reshape(4 * H, il)
            R = np.fromfile(f"{d}/R_{l}.bin", dtype=np.float32).reshape(4 * H, H)
            B = np.fromfile(f"{d}/B_{l}.bin", dtype=np.float32)
            getattr(lstm, f"weight_ih_l{l}").copy_(torch.from_numpy(reorder(W)))
            getattr(lstm, f"weight_hh_l{l}").copy_(torch.from_numpy(reorder(R)))
            getattr(lstm, f"bias_ih_l{l}").copy_(torch.from_numpy(reorder(B[:4 * H])))
            getattr(lstm, f"bias_hh_l{l}").copy_(torch.from_numpy(reorder(B[4 * H:])))
    lstm.eval()
    x = torch.from_numpy(np.fromfile(f"{d}/x.bin", dtype=np.float32).reshape(T, 1, I))
    with torch.inference_mode():
        lstm(x)
    print("torch %s, threads %d, BLAS mapped: %s" % (torch.__version__, torch.get_num_threads(),
          ", ".join(loaded_blas()) or "none"), file=sys.stderr, flush=True)
    out = sys.stdout
    out.write("ready\n")
    out.flush()
    clock = time.perf_counter_ns
    with torch.inference_mode():
        for line in sys.stdin:
            if line.startswith("run "):
                f = line.split()
                n, limit = int(f[1]), int(f[2]) if len(f) > 2 else 0
                ts = []
                start = clock()
                for _ in range(n):
                    t0 = clock()
                    lstm(x)
                    t1 = clock()
                    ts.append(t1 - t0)
                    if limit > 0 and t1 - start > limit:
                        break
                out.write(" ".join(map(str, ts)) + "\n")
            elif line.startswith("out "):
                y, _ = lstm(x)
                y.numpy().astype(np.float32).tofile(line[4:].strip())
                out.write("ok\n")
            elif line.startswith("quit"):
                break
            else:
                sys.exit("torch_worker: unknown command " + line)
            out.flush()


if __name__ == "__main__":
    main()
