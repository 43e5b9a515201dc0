// paddleocr_ort.js - runs one ONNX model in ONNX Runtime (onnxruntime-node)
// for benchmarks/paddleocr.py: all graph optimisations, 2 intra-op threads,
// one warm-up run, then the median of RUNS timed runs.
//
//   node paddleocr_ort.js NODE_MODULES MODEL.onnx INPUT.bin DIMS OUT_PREFIX [RUNS]
//
// INPUT.bin is the float32 input (little-endian, row-major) of shape DIMS
// (comma-separated); each output is written as OUT_PREFIX<i>.bin with its
// shape in OUT_PREFIX<i>.shape. Prints "ort_ms <median>".
'use strict';
const fs = require('fs');
const path = require('path');

async function main() {
  const [nodeModules, model, inputPath, dimsText, outPrefix, runsText] =
      process.argv.slice(2);
  const ort = require(path.resolve(nodeModules, 'onnxruntime-node'));
  const runs = Number(runsText || 10);
  const session = await ort.InferenceSession.create(model, {
    graphOptimizationLevel: 'all',
    intraOpNumThreads: 2,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const bytes = fs.readFileSync(inputPath);
  const data = new Float32Array(bytes.buffer, bytes.byteOffset,
                                bytes.byteLength / 4);
  const dims = dimsText.split(',').map(Number);
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', data, dims)};
  let results = await session.run(feeds);
  const times = [];
  for (let i = 0; i < runs; ++i) {
    const start = process.hrtime.bigint();
    results = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  session.outputNames.forEach((name, i) => {
    const t = results[name];
    fs.writeFileSync(outPrefix + i + '.bin', Buffer.from(t.data.buffer,
                     t.data.byteOffset, t.data.byteLength));
    fs.writeFileSync(outPrefix + i + '.shape', t.dims.join(','));
  });
  console.log('ort_ms ' + times[Math.floor(runs / 2)].toFixed(3));
}

main().catch((e) => { console.error(e); process.exit(1); });
