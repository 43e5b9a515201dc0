//===- EvaluatorTest.cpp - Tests of the evaluator -------------------------===//
//
/// \file
/// Let, if (both branches), tuples and projections, calls of global
/// functions (recursion, and its depth limit), closures, recursive let-bound
/// functions (tail calls run as iterations), unbound variables,
/// a 50,000-binding let chain (no native recursion along it), and the
/// budget of an evaluation (buffers, scratch buffers and work, refused
/// before anything runs).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nnir/ExecutionEngine/Evaluator.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <string>

using namespace nnir;
using namespace nnir::test;

namespace {

class EvaluatorTest : public ::testing::Test {
protected:
  void SetUp() override {
    engine = llvm::cantFail(ExecutionEngine::create());
  }

  /// Runs @main of \p text; returns the flattened result's elements as
  /// doubles, or the error message.
  std::string run(const std::string &text, EvaluatorOptions options = {}) {
    llvm::SourceMgr sm;
    Ref<IRModule> m = parseTyped(text, sm);
    if (!m)
      return "<parse error>";
    Evaluator evaluator(*engine, m.get(), options);
    llvm::Expected<RuntimeValue> v = evaluator.call(*m->lookup("main"), {});
    if (!v)
      return "error: " + llvm::toString(v.takeError());
    std::vector<NDArray> flat;
    v->flatten(flat);
    std::string out;
    llvm::raw_string_ostream os(out);
    for (const NDArray &a : flat) {
      os << "[";
      for (int64_t i = 0; i < a.getNumElements(); ++i)
        os << (i ? " " : "") << llvm::format("%g", a.getElementAsDouble(i));
      os << "]";
    }
    return out;
  }

  std::unique_ptr<ExecutionEngine> engine;
};

TEST_F(EvaluatorTest, LetIfAndTuples) {
  EXPECT_EQ(run("def @main() {\n"
                "  let %x = dense<[1, 2]> : Tensor[(2), float32];\n"
                "  let %t = (%x, multiply(%x, 3f));\n"
                "  if (greater(sum(%x), 2f)) { %t.1 } else { %t.0 }\n"
                "}\n"),
            "[3 6]");
  EXPECT_EQ(run("def @main() {\n"
                "  let %x = dense<[1, 2]> : Tensor[(2), float32];\n"
                "  let %t = (%x, (%x, negative(%x)));\n"
                "  let %u = %t.1;\n"
                "  if (less(sum(%x), 2f)) { %x } else { %u.1 }\n"
                "}\n"),
            "[-1 -2]");
  EXPECT_EQ(run("def @main() {\n"
                "  (1f, (2i64, True))\n"
                "}\n"),
            "[1][2][1]");
}

TEST_F(EvaluatorTest, GlobalCallsAndRecursion) {
  std::string fact = "def @fact(%n: int32) -> int32 {\n"
                     "  if (less_equal(%n, 1)) { 1 } else {\n"
                     "    multiply(%n, @fact(subtract(%n, 1)))\n"
                     "  }\n"
                     "}\n"
                     "def @main() { @fact(10) }\n";
  EXPECT_EQ(run(fact), "[3.6288e+06]");
  EvaluatorOptions shallow;
  shallow.maxCallDepth = 5;
  std::string error = run(fact, shallow);
  EXPECT_NE(error.find("calls nest deeper than 5 levels"), std::string::npos)
      << error;
}

TEST_F(EvaluatorTest, Closures) {
  EXPECT_EQ(run("def @main() {\n"
                "  let %k = 10f;\n"
                "  let %f = fn (%y: float32) { add(%y, %k) };\n"
                "  (%f(1f), %f(2f))\n"
                "}\n"),
            "[11][12]");
}

TEST_F(EvaluatorTest, RecursiveLetLoopRunsInOneFrame) {
  // A let-bound function sees itself; its tail call continues in the same
  // frame, so 100,000 iterations pass a call-depth limit of 5.
  std::string loop =
      "def @main() {\n"
      "  let %k = 2f;\n"
      "  let %loop = fn (%i: int64, %acc: float32) -> (int64, float32) {\n"
      "    if (less(%i, 100000i64)) {\n"
      "      %loop(add(%i, 1i64), add(%acc, %k))\n"
      "    } else { (%i, %acc) }\n"
      "  };\n"
      "  %loop(0i64, 0f)\n"
      "}\n";
  EvaluatorOptions shallow;
  shallow.maxCallDepth = 5;
  EXPECT_EQ(run(loop, shallow), "[100000][200000]");
  // In A-normal form the tail call is a let whose body is its variable.
  std::string anf =
      "def @main() {\n"
      "  let %loop = fn (%i: int64) -> int64 {\n"
      "    let %c = less(%i, 50000i64);\n"
      "    let %r = if (%c) {\n"
      "      let %n = add(%i, 1i64);\n"
      "      let %t = %loop(%n);\n"
      "      %t\n"
      "    } else { %i };\n"
      "    %r\n"
      "  };\n"
      "  %loop(0i64)\n"
      "}\n";
  EXPECT_EQ(run(anf, shallow), "[50000]");
  // A recursive call that is not a tail call still nests, up to the limit.
  std::string sum =
      "def @main() {\n"
      "  let %sum = fn (%n: int64) -> int64 {\n"
      "    if (less(%n, 1i64)) { 0i64 } else {\n"
      "      add(%n, %sum(subtract(%n, 1i64)))\n"
      "    }\n"
      "  };\n"
      "  %sum(10i64)\n"
      "}\n";
  EXPECT_EQ(run(sum), "[55]");
  std::string error = run(sum, shallow);
  EXPECT_NE(error.find("calls nest deeper than 5 levels"), std::string::npos)
      << error;
}

TEST_F(EvaluatorTest, LongLetChainIsIterative) {
  std::string text = "def @main() {\n  let %v0 = 0f;\n";
  const int n = 50000;
  for (int i = 1; i <= n; ++i)
    text += "  let %v" + std::to_string(i) + " = add(%v" +
            std::to_string(i - 1) + ", 1f);\n";
  text += "  %v" + std::to_string(n) + "\n}\n";
  EXPECT_EQ(run(text), "[50000]");
  // Every add shares one kernel.
  EXPECT_EQ(engine->getStats().kernelsCompiled, 1u);
}

/// True when \p error (consumed) is a ResourceLimitError.
bool isResourceLimit(llvm::Error error) {
  bool limit = false;
  llvm::handleAllErrors(
      std::move(error), [&](const ResourceLimitError &) { limit = true; },
      [](const llvm::ErrorInfoBase &) {});
  return limit;
}

TEST_F(EvaluatorTest, BudgetBoundsBuffersAndWorkBeforeRunning) {
  // Two kernels of 4,000 bytes and 1,000 elements each.
  const std::string twoKernels =
      "def @main(%x: Tensor[(1000), float32]) { exp(negative(%x)) }\n";
  llvm::SourceMgr sm;
  Ref<IRModule> m = parseTyped(twoKernels, sm);
  ASSERT_TRUE(m);
  NDArray x = llvm::cantFail(NDArray::create(DataType::float32(), {1000}));
  RuntimeValue arg = RuntimeValue::tensor(x);

  // The first kernel's work, from the message of a budget of 1.
  EvaluatorOptions work;
  work.maxWork = 1;
  llvm::Expected<RuntimeValue> none =
      Evaluator(*engine, m.get(), work).call(*m->lookup("main"), arg);
  ASSERT_FALSE(bool(none));
  std::string first = llvm::toString(none.takeError());
  size_t at = first.find("(this kernel ");
  ASSERT_NE(at, std::string::npos) << first;
  uint64_t kernelWork = std::stoull(first.substr(at + 13));
  EXPECT_GE(kernelWork, 1000u);
  EXPECT_EQ(engine->getStats().kernelRuns, 0u);

  // Room for the first kernel only.
  work.maxWork = kernelWork;
  Evaluator bounded(*engine, m.get(), work);
  llvm::Expected<RuntimeValue> refused = bounded.call(*m->lookup("main"), arg);
  ASSERT_FALSE(bool(refused));
  std::string message;
  llvm::Error error = llvm::handleErrors(
      refused.takeError(), [&](std::unique_ptr<ResourceLimitError> e) {
        message = e->getMessage();
        return llvm::Error(std::move(e));
      });
  EXPECT_TRUE(isResourceLimit(std::move(error)));
  EXPECT_NE(message.find("the kernels before it " + std::to_string(kernelWork)),
            std::string::npos)
      << message;
  // The first kernel ran, the second did not.
  EXPECT_EQ(engine->getStats().kernelRuns, 1u);
  // The budget is per evaluation: a second call starts afresh.
  work.maxWork = 10 * kernelWork;
  Evaluator enough(*engine, m.get(), work);
  EXPECT_TRUE(bool(enough.call(*m->lookup("main"), arg)));
  EXPECT_TRUE(bool(enough.call(*m->lookup("main"), arg)));

  EvaluatorOptions buffers;
  buffers.maxBufferBytes = 3999;
  uint64_t allocated = engine->getStats().bytesAllocated;
  Evaluator small(*engine, m.get(), buffers);
  llvm::Expected<RuntimeValue> tooBig = small.call(*m->lookup("main"), arg);
  ASSERT_FALSE(bool(tooBig));
  EXPECT_TRUE(isResourceLimit(tooBig.takeError()));
  EXPECT_EQ(engine->getStats().bytesAllocated, allocated);
}

TEST_F(EvaluatorTest, BudgetBoundsScratchBuffers) {
  // The softmax's row maxima and sums are 4,000-byte scratch buffers of a
  // kernel whose result is 4 bytes.
  std::string text = "def @main(%x: Tensor[(1000, 4), float32]) {\n"
                     "  %0 = fn (%a: Tensor[(1000, 4), float32], Primitive=1) "
                     "{\n"
                     "    sum(nn.softmax(%a, axis=1))\n"
                     "  };\n"
                     "  %0(%x)\n"
                     "}\n";
  llvm::SourceMgr sm;
  Ref<IRModule> m = parseTyped(text, sm);
  ASSERT_TRUE(m);
  NDArray x = llvm::cantFail(NDArray::create(DataType::float32(), {1000, 4}));
  EvaluatorOptions options;
  options.maxBufferBytes = 1000;
  Evaluator evaluator(*engine, m.get(), options);
  llvm::Expected<RuntimeValue> v =
      evaluator.call(*m->lookup("main"), RuntimeValue::tensor(x));
  ASSERT_FALSE(bool(v));
  std::string message = llvm::toString(v.takeError());
  EXPECT_NE(message.find("the kernel needs a scratch buffer of 4000 bytes, "
                         "more than the limit of 1000 bytes per buffer"),
            std::string::npos)
      << message;
  EXPECT_EQ(engine->getStats().kernelRuns, 0u);
}

} // namespace

namespace {
/// A float32 vector 0, 1, ..., n - 1.
NDArray iota(int64_t n, llvm::ArrayRef<int64_t> shape = {}) {
  NDArray a = llvm::cantFail(NDArray::create(
      DataType::float32(), shape.empty() ? llvm::ArrayRef<int64_t>(n) : shape));
  for (int64_t i = 0; i < n; ++i)
    a.setElementFromDouble(i, double(i));
  return a;
}
} // namespace

TEST_F(EvaluatorTest, DynamicShapesRunOneKernelAndBoundTheSpecialisations) {
  // exp computes symbolic shapes: one kernel for every length, its result
  // sized by the relation (the function specialised, cached). An
  // upsampling by 1.6 does not (its extent's rounding is not exact in
  // integers): a kernel per length.
  llvm::SourceMgr sm;
  Ref<IRModule> m = parseTyped("def @main(%x: Tensor[(1, 1, 1, ?), float32]) {\n"
                               "  (exp(%x), nn.upsampling(%x, scale_h=1f, "
                               "scale_w=1.6f))\n"
                               "}\n",
                               sm);
  ASSERT_TRUE(m);
  EvaluatorOptions options;
  options.maxSpecializations = 2;
  Evaluator evaluator(*engine, m.get(), options);
  uint64_t compiledBefore = engine->getStats().kernelsCompiled;
  for (int64_t n : {3, 5, 7, 3}) {
    llvm::Expected<RuntimeValue> v =
        evaluator.call(*m->lookup("main"), RuntimeValue::tensor(iota(n, {1, 1, 1, n})));
    ASSERT_TRUE(bool(v)) << llvm::toString(v.takeError());
    std::vector<NDArray> flat;
    v->flatten(flat);
    ASSERT_EQ(flat.size(), 2u);
    ASSERT_EQ(flat[0].getShape(), llvm::ArrayRef<int64_t>({1, 1, 1, n}));
    // round(n * 1.6) nearest elements: 5, 8, 11 (from 3, 5, 7).
    int64_t up = int64_t(std::nearbyint(double(n) * 1.6));
    ASSERT_EQ(flat[1].getShape(), llvm::ArrayRef<int64_t>({1, 1, 1, up}));
    EXPECT_FLOAT_EQ(flat[0].getElementAsDouble(n - 1), std::exp(float(n - 1)));
    EXPECT_EQ(flat[1].getElementAsDouble(0), 0.0);
    EXPECT_EQ(flat[1].getElementAsDouble(up - 1), double(n - 1));
    // Never more than the bound kept.
    EXPECT_LE(evaluator.getNumSpecializations(), 2u);
  }
  EXPECT_EQ(evaluator.getNumSpecializations(), 2u);
  // One kernel for exp, one per distinct length for the upsampling (cached
  // by the engine, so length 3 again compiles nothing).
  EXPECT_EQ(engine->getStats().kernelsCompiled - compiledBefore, 1u + 3u);
}
