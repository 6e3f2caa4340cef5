#!/usr/bin/env node
// ort_bench.js — median latency of ONNX Runtime (CPU, onnxruntime-node) on one model with its
// inputs as .npy files, for bench/models/run.sh.
//
//   node ort_bench.js MODEL.onnx THREADS RUNS NAME=FILE.npy...
//
// Graph optimisations 'all' (ORT's default), THREADS intra-op threads, sequential. Warms up
// with 3 runs, then prints "median_ms MS" over RUNS runs of `await session.run(feeds)`.
// onnxruntime-node is looked up in $ORT_NODE_MODULES, bench/compare/ort/node_modules, then
// tests/fixtures/.ort/node_modules.
'use strict';
const fs = require('fs');
const path = require('path');

function loadOrt() {
  const root = path.join(__dirname, '..', '..');
  const tries = [];
  if (process.env.ORT_NODE_MODULES) tries.push(path.join(process.env.ORT_NODE_MODULES, 'onnxruntime-node'));
  tries.push(path.join(root, 'bench', 'compare', 'ort', 'node_modules', 'onnxruntime-node'));
  tries.push(path.join(root, 'tests', 'fixtures', '.ort', 'node_modules', 'onnxruntime-node'));
  for (const t of tries) {
    try { return require(t); } catch (e) { /* next */ }
  }
  throw new Error('cannot load onnxruntime-node; run: (cd tests/fixtures/.ort && npm install --ignore-scripts)');
}

// A .npy file (version 1 or 2, C order) as an ort.Tensor.
function readNpy(ort, file) {
  const b = fs.readFileSync(file);
  if (b.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(file + ': not a .npy file');
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const off = (major === 1 ? 10 : 12) + hlen;
  const header = b.toString('latin1', major === 1 ? 10 : 12, off);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(file + ': Fortran order');
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim())
    .filter(s => s.length).map(Number);
  const data = b.buffer.slice(b.byteOffset + off, b.byteOffset + b.length);
  const kinds = {
    '<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array],
    '<i4': ['int32', Int32Array], '|b1': ['bool', Uint8Array], '|u1': ['uint8', Uint8Array],
  };
  const k = kinds[descr];
  if (!k) throw new Error(file + ': dtype ' + descr);
  return new ort.Tensor(k[0], new k[1](data), shape);
}

async function main() {
  const [model, threads, runs, ...ins] = process.argv.slice(2);
  if (!runs) { console.error('usage: node ort_bench.js MODEL.onnx THREADS RUNS NAME=FILE.npy...'); process.exit(2); }
  const ort = loadOrt();
  const sess = await ort.InferenceSession.create(path.resolve(model), {
    executionProviders: ['cpu'], graphOptimizationLevel: 'all',
    intraOpNumThreads: Number(threads), interOpNumThreads: 1, executionMode: 'sequential',
  });
  const feeds = {};
  for (const a of ins) {
    const eq = a.indexOf('=');
    feeds[a.slice(0, eq)] = readNpy(ort, a.slice(eq + 1));
  }
  for (let i = 0; i < 3; i++) await sess.run(feeds);
  const ms = [];
  for (let i = 0; i < Number(runs); i++) {
    const t0 = process.hrtime.bigint();
    await sess.run(feeds);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  process.stdout.write('median_ms ' + ms[Math.floor(ms.length / 2)].toFixed(4) + '\n');
}

main().catch(e => { console.error(String(e && e.stack || e)); process.exit(1); });
