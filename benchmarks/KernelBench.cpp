//===- KernelBench.cpp - Kernel throughput, compile latency and caching ---===//
//
/// \file
/// nnir-kernel-bench measures what issue 9 sets goals for, and prints one
/// line per figure (medians over repetitions):
///
///   add64       elementwise add of two 64 MiB float32 tensors, and a memcpy
///               of 64 MiB (the output's bytes) on this machine; the ratio
///   cold        compile latency of a small fused elementwise kernel
///               (relu(x * c + d) on 16x16 and 256x256) with the cache off,
///               per LLVM optimisation level, and its run time at each level
///   hit         the cost of a cache hit: a structurally equal function
///               node seen for the first time, and a node seen before
///   program     a 1,000-function program (x = add(multiply(x, c_i), d_i),
///               each call its own primitive function with its own
///               constants): total compile time without and with the
///               in-memory cache, and with a warm disk cache in a fresh
///               engine (a new LLJIT, as a second process would have)
///   conv2d      nn.conv2d 1x64x56x56 by 64x64x3x3 (padding 1) float32:
///               GFLOP/s (benchmarks/conv2d_numpy.py measures NumPy's
///               im2col + matmul on the same shapes)
///   reduce      float32 reductions: sum over the last axis of a 64 MiB
///               4096x4096 tensor and of a 64 MiB vector (to a scalar),
///               softmax over the rows of 4096x4096 (GB/s of input read),
///               and nn.dense 64x4096 by 4096x4096 (GFLOP/s); kernels
///               run into preallocated outputs
///
/// Run from a Release build: build/bin/nnir-kernel-bench [sections]
//
//===----------------------------------------------------------------------===//

#include "nnir/ExecutionEngine/Evaluator.h"
#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Transforms/InferType.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

using namespace llvm;
using namespace nnir;

namespace {
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename T> T check(Expected<T> value) {
  if (!value) {
    errs() << "nnir-kernel-bench: " << toString(value.takeError()) << "\n";
    exit(1);
  }
  return std::move(*value);
}

Ref<Expr> call(StringRef op, std::vector<Ref<Expr>> args,
               Ref<Attrs> attrs = nullptr) {
  return Call::get(Op::lookup(op), args, attrs);
}

Ref<Function> primitive(std::vector<Ref<Var>> params, Ref<Expr> body) {
  Ref<DictAttrs> attrs = DictAttrs::get(
      {NamedAttrValue{"Primitive", AttrValue::integer(1), SMLoc()}});
  return Function::get(params, body, nullptr, attrs);
}

/// Infers the types of a closed function.
Ref<Function> typed(Ref<Function> fn) {
  Ref<Expr> e = check(inferExprTypes(fn));
  return Ref<Function>(cast<Function>(e.get()));
}

NDArray filled(ArrayRef<int64_t> shape, float value) {
  NDArray a = check(NDArray::create(DataType::float32(), shape));
  float *p = static_cast<float *>(a.getMutableData());
  std::fill(p, p + a.getNumElements(), value);
  return a;
}

/// relu(x * c + d) on an extent x extent float32 tensor, c and d scalar
/// constants.
Ref<Function> smallKernel(float c, float d, int64_t extent = 256) {
  Ref<Var> x =
      Var::get("x", TensorType::get({extent, extent}, DataType::float32()));
  Ref<Expr> body = call(
      "nn.relu",
      {call("add", {call("multiply", {x, Constant::get(NDArray::scalar(
                                             DataType::float32(), c))}),
                    Constant::get(NDArray::scalar(DataType::float32(), d))})});
  return typed(primitive({x}, body));
}

void benchAdd64() {
  const int64_t n = (int64_t(64) << 20) / 4;
  Ref<Var> a = Var::get("a", TensorType::get({n}, DataType::float32()));
  Ref<Var> b = Var::get("b", TensorType::get({n}, DataType::float32()));
  Ref<Function> fn = typed(primitive({a, b}, call("add", {a, b})));
  NDArray x = filled({n}, 1.5f), y = filled({n}, 2.5f), out = filled({n}, 0);
  NDArray dst = filled({n}, 0);
  for (bool parallel : {true, false}) {
    EngineOptions options;
    if (!parallel)
      options.codegen.parallelWork = 0;
    std::unique_ptr<ExecutionEngine> engine =
        check(ExecutionEngine::create(options));
    KernelRef kernel = check(engine->getKernel(*fn));
    // The kernel into a preallocated output (as memcpy into a preallocated
    // destination), and through ExecutionEngine::run (a fresh 64 MiB output
    // each time: page faults included).
    void *buffers[] = {const_cast<void *>(x.getData()),
                       const_cast<void *>(y.getData()), out.getMutableData()};
    int64_t dims[] = {n};
    std::vector<double> add, run, copy;
    for (int i = 0; i < 15; ++i) {
      Clock::time_point start = Clock::now();
      kernel->fn(buffers, dims);
      add.push_back(msSince(start));
      start = Clock::now();
      std::memcpy(dst.getMutableData(), x.getData(), x.getByteSize());
      copy.push_back(msSince(start));
      start = Clock::now();
      check(engine->run(*fn, {x, y}));
      run.push_back(msSince(start));
    }
    outs() << formatv("add64 ({0}): kernel {1:f2} ms, memcpy of 64 MiB "
                      "{2:f2} ms, ratio {3:f2}; with a fresh output "
                      "(ExecutionEngine::run) {4:f2} ms\n",
                      parallel ? "parallel" : "one thread", median(add),
                      median(copy), median(add) / median(copy), median(run));
  }
}

void benchCold() {
  for (int64_t extent : {16, 256})
    for (int level : {-1, 0, 1, 2, 3}) {
      EngineOptions options;
      options.memoryCache = false;
      options.optLevel = level;
      std::unique_ptr<ExecutionEngine> engine =
          check(ExecutionEngine::create(options));
      NDArray x = filled({extent, extent}, -0.5f),
              out = filled({extent, extent}, 0);
      std::vector<double> compile, run;
      for (int i = 0; i < 25; ++i) {
        Ref<Function> fn = smallKernel(2.0f, float(i), extent);
        Clock::time_point start = Clock::now();
        KernelRef kernel = check(engine->getKernel(*fn));
        compile.push_back(msSince(start));
        float c = 2.0f, d = float(i);
        void *buffers[] = {const_cast<void *>(x.getData()), &c, &d,
                           out.getMutableData()};
        int64_t dims[] = {extent * extent};
        start = Clock::now();
        kernel->fn(buffers, dims);
        run.push_back(msSince(start) * 1000);
      }
      compile.erase(compile.begin()); // the first compile warms up LLVM
      outs() << formatv("cold: {0}x{0}, opt level {1}: compile {2:f3} ms, run "
                        "{3:f1} us\n",
                        extent,
                        level < 0 ? std::string("auto") : std::to_string(level),
                        median(compile), median(run));
    }
}

void benchHit() {
  std::unique_ptr<ExecutionEngine> engineOwner =
      check(ExecutionEngine::create());
  ExecutionEngine &engine = *engineOwner;
  check(engine.getKernel(*smallKernel(1, 1)));
  const int count = 20000;
  std::vector<Ref<Function>> fns;
  for (int i = 0; i < count; ++i)
    fns.push_back(smallKernel(float(i), 1));
  Clock::time_point start = Clock::now();
  for (const Ref<Function> &fn : fns)
    check(engine.getKernel(*fn));
  double structural = msSince(start) * 1000 / count;
  start = Clock::now();
  for (const Ref<Function> &fn : fns)
    check(engine.getKernel(*fn));
  double identity = msSince(start) * 1000 / count;
  outs() << formatv("hit: {0:f3} us (new node, structural key), {1:f3} us "
                    "(node seen before); {2} kernels compiled\n",
                    structural, identity,
                    engine.getStats().kernelsCompiled.load());
}

/// fn (%x) { x = add(multiply(x, c_i), d_i) for 1,000 i, each its own
/// primitive function }.
Ref<Function> thousandFunctions() {
  Ref<Var> x = Var::get("x", TensorType::get({64, 64}, DataType::float32()));
  Ref<Expr> value = x;
  for (int i = 0; i < 1000; ++i) {
    Ref<Var> p = Var::get("p", TensorType::get({64, 64}, DataType::float32()));
    Ref<Expr> body = call(
        "add", {call("multiply", {p, Constant::get(NDArray::scalar(
                                         DataType::float32(), 1 + i * 1e-4))}),
                Constant::get(NDArray::scalar(DataType::float32(), 0.5))});
    value = Call::get(primitive({p}, body), {value});
  }
  return typed(Function::get({x}, value));
}

void benchProgram() {
  Ref<Function> program = thousandFunctions();
  NDArray x = filled({64, 64}, 1.0f);
  auto runOnce = [&](EngineOptions options, StringRef label) {
    std::unique_ptr<ExecutionEngine> engineOwner =
        check(ExecutionEngine::create(options));
    ExecutionEngine &engine = *engineOwner;
    Evaluator evaluator(engine, nullptr);
    Clock::time_point start = Clock::now();
    check(evaluator.call(*program, {RuntimeValue::tensor(x)}));
    const EngineStats &s = engine.getStats();
    outs() << formatv("program: {0}: total {1:f1} ms, compile {2:f1} ms, "
                      "{3} kernels compiled, {4} memory hits, {5} disk "
                      "hits\n",
                      label, msSince(start), s.compileNanos / 1e6,
                      s.kernelsCompiled.load(), s.memoryHits.load(),
                      s.diskHits.load());
  };
  EngineOptions noCache;
  noCache.memoryCache = false;
  runOnce(noCache, "no cache");
  runOnce(EngineOptions(), "memory cache");
  SmallString<128> dir;
  if (sys::fs::createUniqueDirectory("nnir-kernel-cache", dir))
    exit(1);
  EngineOptions disk;
  disk.cacheDir = dir.str().str();
  runOnce(disk, "disk cache, cold");
  runOnce(disk, "disk cache, fresh engine");
  sys::fs::remove_directories(dir);
}

void benchConv2d() {
  std::unique_ptr<ExecutionEngine> engineOwner =
      check(ExecutionEngine::create());
  ExecutionEngine &engine = *engineOwner;
  Ref<Var> d =
      Var::get("d", TensorType::get({1, 64, 56, 56}, DataType::float32()));
  Ref<Var> w =
      Var::get("w", TensorType::get({64, 64, 3, 3}, DataType::float32()));
  Ref<Attrs> attrs = check(
      Op::lookup("nn.conv2d")
          ->createAttrs({NamedAttrValue{
              "padding",
              AttrValue::array({AttrValue::integer(1), AttrValue::integer(1)}),
              SMLoc()}}));
  Ref<Function> fn = typed(primitive({d, w}, call("nn.conv2d", {d, w}, attrs)));
  NDArray x = filled({1, 64, 56, 56}, 0.5f), k = filled({64, 64, 3, 3}, 0.25f);
  Clock::time_point start = Clock::now();
  check(engine.run(*fn, {x, k}));
  double compile = msSince(start);
  std::vector<double> times;
  for (int i = 0; i < 10; ++i) {
    start = Clock::now();
    check(engine.run(*fn, {x, k}));
    times.push_back(msSince(start));
  }
  double flops = 2.0 * 64 * 64 * 9 * 56 * 56;
  outs() << formatv("conv2d: {0:f2} ms, {1:f2} GFLOP/s (first run with "
                    "compile {2:f1} ms)\n",
                    median(times), flops / median(times) / 1e6, compile);
}
/// Median milliseconds of \p reps runs of \p fn's kernel on \p inputs into
/// preallocated outputs of the result type's shapes.
double timeKernel(ExecutionEngine &engine, const Function &fn,
                  ArrayRef<NDArray> inputs, ArrayRef<NDArray> outputs,
                  int reps) {
  SmallVector<int64_t, 4> dims;
  KernelRef kernel = check(engine.getKernel(fn, dims));
  std::vector<void *> buffers;
  for (const NDArray &a : inputs)
    buffers.push_back(const_cast<void *>(a.getData()));
  for (const NDArray &a : outputs)
    buffers.push_back(const_cast<void *>(a.getData()));
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    Clock::time_point start = Clock::now();
    kernel->fn(buffers.data(), dims.data());
    times.push_back(msSince(start));
  }
  return median(times);
}

void benchReduce() {
  std::unique_ptr<ExecutionEngine> engineOwner =
      check(ExecutionEngine::create());
  ExecutionEngine &engine = *engineOwner;
  const int64_t rows = 4096, cols = 4096, n = rows * cols;
  const double bytes = 4.0 * n;
  auto axisAttrs = [](StringRef op, int64_t axis) {
    return check(Op::lookup(op)->createAttrs({NamedAttrValue{
        "axis", AttrValue::array({AttrValue::integer(axis)}), SMLoc()}}));
  };
  // Values in [0, 1) without a pattern a kernel could exploit.
  auto ramp = [](ArrayRef<int64_t> shape) {
    NDArray a = filled(shape, 0);
    float *p = static_cast<float *>(a.getMutableData());
    for (int64_t i = 0, e = a.getNumElements(); i < e; ++i)
      p[i] = float((i * 7919) % 1000) / 1000.0f;
    return a;
  };
  NDArray matrix = ramp({rows, cols}), vector = ramp({n});

  Ref<Var> x =
      Var::get("x", TensorType::get({rows, cols}, DataType::float32()));
  Ref<Function> sumRows =
      typed(primitive({x}, call("sum", {x}, axisAttrs("sum", -1))));
  double ms = timeKernel(engine, *sumRows, {matrix}, {filled({rows}, 0)}, 15);
  outs() << formatv("reduce: sum 4096x4096 over the last axis: {0:f2} ms, "
                    "{1:f2} GB/s\n",
                    ms, bytes / ms / 1e6);

  Ref<Var> v = Var::get("v", TensorType::get({n}, DataType::float32()));
  Ref<Function> sumAll = typed(primitive(
      {v}, call("sum", {v}, check(Op::lookup("sum")->createAttrs({})))));
  ms = timeKernel(engine, *sumAll, {vector}, {filled({}, 0)}, 15);
  outs() << formatv("reduce: sum of 16M elements to a scalar: {0:f2} ms, "
                    "{1:f2} GB/s\n",
                    ms, bytes / ms / 1e6);

  Ref<Function> softmax = typed(primitive(
      {x}, call("nn.softmax", {x},
                check(Op::lookup("nn.softmax")
                          ->createAttrs({NamedAttrValue{
                              "axis", AttrValue::integer(-1), SMLoc()}})))));
  ms = timeKernel(engine, *softmax, {matrix}, {filled({rows, cols}, 0)}, 15);
  outs() << formatv("reduce: softmax 4096x4096 over the last axis: {0:f2} "
                    "ms, {1:f2} GB/s\n",
                    ms, bytes / ms / 1e6);

  const int64_t m = 64, k = 4096, units = 4096;
  Ref<Var> a = Var::get("a", TensorType::get({m, k}, DataType::float32()));
  Ref<Var> w = Var::get("w", TensorType::get({units, k}, DataType::float32()));
  Ref<Function> dense = typed(primitive(
      {a, w},
      call("nn.dense", {a, w},
           check(Op::lookup("nn.dense")
                     ->createAttrs({NamedAttrValue{
                         "units", AttrValue::integer(units), SMLoc()}})))));
  ms = timeKernel(engine, *dense, {ramp({m, k}), ramp({units, k})},
                  {filled({m, units}, 0)}, 3);
  outs() << formatv("reduce: dense 64x4096 by 4096x4096: {0:f1} ms, {1:f2} "
                    "GFLOP/s\n",
                    ms, 2.0 * m * k * units / ms / 1e6);
}
} // namespace

int main(int argc, char **argv) {
  registerAllOps();
  std::vector<StringRef> sections(argv + 1, argv + argc);
  auto want = [&](StringRef name) {
    return sections.empty() || llvm::is_contained(sections, name);
  };
  if (want("add64"))
    benchAdd64();
  if (want("cold"))
    benchCold();
  if (want("hit"))
    benchHit();
  if (want("program"))
    benchProgram();
  if (want("conv2d"))
    benchConv2d();
  if (want("reduce"))
    benchReduce();
  return 0;
}
