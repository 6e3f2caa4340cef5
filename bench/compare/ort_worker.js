#!/usr/bin/env node
// ort_worker.js — times ONNX Runtime (CPU, onnxruntime-node) in process on one model, with the
// command protocol of worker.h (ready / run N / out PATH / quit).
//
//   node ort_worker.js MODEL.onnx X.bin T I THREADS
//
// The session uses every graph optimisation (ORT's default, 'all') and THREADS intra-op
// threads, sequential execution. Each latency is one `await session.run(feeds)`, so it
// includes the N-API binding's per-call cost; compare.py measures that cost on an Identity
// model and prints it. onnxruntime-node is looked up in $ORT_NODE_MODULES, then in
// bench/compare/ort/node_modules (run.sh installs it there), then in tests/fixtures/.ort.
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

function loadOrt() {
  const tries = [];
  if (process.env.ORT_NODE_MODULES) tries.push(path.join(process.env.ORT_NODE_MODULES, 'onnxruntime-node'));
  tries.push(path.join(__dirname, 'ort', 'node_modules', 'onnxruntime-node'));
  tries.push(path.join(__dirname, '..', '..', 'tests', 'fixtures', '.ort', 'node_modules', 'onnxruntime-node'));
  for (const t of tries) {
    try { return require(t); } catch (e) { /* next */ }
  }
  throw new Error('cannot load onnxruntime-node; run: (cd bench/compare/ort && npm install --ignore-scripts)');
}

async function main() {
  const [model, xbin, T, I, threads] = process.argv.slice(2);
  if (!threads) { console.error('usage: node ort_worker.js MODEL.onnx X.bin T I THREADS'); process.exit(2); }
  const ort = loadOrt();
  const raw = fs.readFileSync(xbin);
  const x = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  const sess = await ort.InferenceSession.create(path.resolve(model), {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const feeds = { [sess.inputNames[0]]: new ort.Tensor('float32', x, [Number(T), 1, Number(I)]) };
  const outName = sess.outputNames[0];
  process.stdout.write('ready\n');
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (line.startsWith('run ')) {
      const [n, limit] = line.slice(4).trim().split(/\s+/).map(Number);
      const ts = [];
      const start = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        const t0 = process.hrtime.bigint();
        await sess.run(feeds);
        const t1 = process.hrtime.bigint();
        ts.push((t1 - t0).toString());
        if (limit > 0 && Number(t1 - start) > limit) break;
      }
      process.stdout.write(ts.join(' ') + '\n');
    } else if (line.startsWith('out ')) {
      const res = await sess.run(feeds);
      const d = res[outName].data;
      fs.writeFileSync(line.slice(4), Buffer.from(d.buffer, d.byteOffset, d.byteLength));
      process.stdout.write('ok\n');
    } else if (line.startsWith('quit')) {
      break;
    } else {
      throw new Error('unknown command ' + line);
    }
  }
  process.exit(0);
}

main().catch(e => { console.error(String(e && e.stack || e)); process.exit(1); });
