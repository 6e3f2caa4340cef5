#!/bin/sh
# bench/relevance/qact_tissue.sh: breakpoints and tissues on the full-integer LSTM (issue 24)
# on charlm512: median time (m_run --bench 30, one window) and held-out accuracy (samples
# 20-49; 0-19 calibrate) of fp32, int8 layers, and both with tissues at each of $ALPHAS
# (--relevance=calibrated), and with dynamic row skip at each of $INTRA (--alpha-intra).
# Run from anywhere after building build/lstmc:
#   ALPHAS="2071 2293" INTRA="0.3 0.5" sh bench/relevance/qact_tissue.sh
set -e
R=$(cd "$(dirname "$0")/../.." && pwd); L=$R/build/lstmc; M=$R/tests/train/charlm512; W=${W:-/tmp/tqb}; mkdir -p $W; cd $W
/usr/bin/python3 -c "
import numpy as np
x=np.load('$M/eval_x.npy'); np.save('cal.npy', x[:20]); np.save('x.npy', x[30])
for k in range(20,50): np.save('h%d.npy'%k, x[k])"
$L calibrate $M/model.onnx --data cal.npy -o c.calib 2>&1 | grep "relevance S" || true
run() { tag=$1; shift
  $L $M/model.onnx --name=m -o $tag --force --weights-placement=pointer "$@" >/dev/null 2>&1
  make -s -C $tag CFLAGS="-O2 -march=native" >/dev/null
  us=$(./$tag/m_run --weights-file $tag/m_weights.bin --bench 30 x.npy 2>&1 | tail -1)
  acc=$(M=$M /usr/bin/python3 - $tag <<'PY'
import numpy as np, subprocess, sys, os, glob
tag=sys.argv[1]; y=np.load(os.environ['M'] + '/eval_y.npy'); ok=n=0
for k in range(20,50):
    od='%s/o%d'%(tag,k); os.makedirs(od,exist_ok=True)
    subprocess.run(['./%s/m_run'%tag,'--weights-file','%s/m_weights.bin'%tag,'--output-dir',od,'h%d.npy'%k],check=True,stdout=subprocess.DEVNULL)
    o=np.load(sorted(glob.glob(od+'/*.npy'))[0]); p=o.reshape(-1,o.shape[-1]).argmax(-1); t=y[k].reshape(-1)
    ok+=(p==t).sum(); n+=t.size
print('%.2f'%(100.0*ok/n))
PY
)
  echo "$tag: $us, held-out accuracy $acc %"
}
run fp32
run int8 --activations=int8 --calib-data=cal.npy
for a in $ALPHAS; do run int8_a$a --activations=int8 --calib-data=cal.npy --calib=c.calib --relevance=calibrated --alpha-inter=$a; done
for a in $ALPHAS; do run fp32_a$a --calib=c.calib --relevance=calibrated --alpha-inter=$a; done
for a in $INTRA; do run int8_drs$a --activations=int8 --calib-data=cal.npy --alpha-intra=$a; done
for a in $INTRA; do run fp32_drs$a --alpha-intra=$a; done
