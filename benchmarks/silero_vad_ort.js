// silero_vad_ort.js - run an ONNX model with ONNX Runtime (onnxruntime-node)
// on .npy inputs, write its outputs as .npy and print its run times.
//
// Usage: node silero_vad_ort.js MODULES MODEL.onnx IN_DIR OUT_DIR REPEATS
//   MODULES  the node_modules folder that holds onnxruntime-node
//   IN_DIR   one NAME.npy per graph input (float32 or int64, C order)
//   OUT_DIR  receives output_<i>.npy, in the model's output order
// Prints one JSON line: {"first_ms": ..., "median_ms": ..., "runs": N}
// (the first run, then the median of REPEATS more). The driver is
// benchmarks/silero_vad.py; fetching nothing, it reads what
//   npm install --ignore-scripts onnxruntime-node@1.30.0
// installed.
'use strict';
const fs = require('fs');
const path = require('path');

const [modules, modelPath, inDir, outDir, repeatsArg] = process.argv.slice(2);
const ort = require(path.join(path.resolve(modules), 'onnxruntime-node'));

const DTYPES = {'<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array]};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  const headerLen = buf.readUInt16LE(8);
  const header = buf.toString('latin1', 10, 10 + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)[1];
  const dims = shapeText.split(',').map(s => s.trim()).filter(s => s).map(Number);
  if (!(descr in DTYPES)) throw new Error(`${file}: unsupported dtype ${descr}`);
  const [type, Array] = DTYPES[descr];
  const data = buf.subarray(10 + headerLen);
  const copy = new Uint8Array(data.length);
  copy.set(data);
  return new ort.Tensor(type, new Array(copy.buffer), dims);
}

function writeNpy(file, tensor) {
  const descr = {float32: '<f4', int64: '<i8'}[tensor.type];
  if (!descr) throw new Error(`unsupported output type ${tensor.type}`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` :
                                           `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head.writeUInt8(1, 6);
  head.writeUInt8(0, 7);
  head.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset,
                           tensor.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), data]));
}

async function main() {
  const session = await ort.InferenceSession.create(modelPath);
  const feeds = {};
  for (const name of session.inputNames)
    feeds[name] = readNpy(path.join(inDir, `${name}.npy`));
  const repeats = Number(repeatsArg || 20);
  let t = process.hrtime.bigint();
  let results = await session.run(feeds);
  const first = Number(process.hrtime.bigint() - t) / 1e6;
  const times = [];
  for (let i = 0; i < repeats; ++i) {
    t = process.hrtime.bigint();
    results = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  fs.mkdirSync(outDir, {recursive: true});
  session.outputNames.forEach((name, i) =>
      writeNpy(path.join(outDir, `output_${i}.npy`), results[name]));
  console.log(JSON.stringify({first_ms: first,
                              median_ms: times.length ? times[times.length >> 1] : first,
                              runs: times.length}));
}

main().catch(err => { console.error(err.message || err); process.exit(1); });
