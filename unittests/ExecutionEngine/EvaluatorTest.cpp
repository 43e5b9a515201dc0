//===- EvaluatorTest.cpp - Tests of the evaluator -------------------------===//
//
/// \file
/// Let, if (both branches), tuples and projections, calls of global
/// functions (recursion, and its depth limit), closures, unbound variables,
/// and a 50,000-binding let chain (no native recursion along it).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nnir/ExecutionEngine/Evaluator.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

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

} // namespace
