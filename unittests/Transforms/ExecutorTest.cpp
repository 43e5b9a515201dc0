//===- ExecutorTest.cpp - Compiling modules for execution -----------------===//
//
/// \file
/// The Executor (prepare, run, list kernels) and how FoldConstant finds its
/// engine: its options', else its PassContext's (given, or made by a
/// factory on first need), else a private one.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/Executor.h"

#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Parser/Parser.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Transforms/FoldConstant.h"
#include "nnir/Transforms/Passes.h"

#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <thread>

using namespace llvm;
using namespace nnir;

namespace {

class ExecutorTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerAllOps();
    registerTransformPasses();
  }
  Ref<IRModule> parse(StringRef text) {
    Expected<Ref<IRModule>> m = parseModule(text, sm);
    if (!m) {
      ADD_FAILURE() << toString(m.takeError());
      return nullptr;
    }
    return *m;
  }
  std::shared_ptr<ExecutionEngine> makeEngine() {
    return std::shared_ptr<ExecutionEngine>(
        cantFail(ExecutionEngine::create()));
  }
  SourceMgr sm;
};

constexpr StringLiteral kTwoOps = R"(
def @main(%x: Tensor[(3), float32]) {
  add(multiply(%x, 2f), 1f)
}
)";

constexpr StringLiteral kFoldable = R"(
def @main(%x: Tensor[(3), float32]) {
  add(%x, exp(dense<[0, 1, 2]> : Tensor[(3), float32]))
}
)";

TEST_F(ExecutorTest, FusesAndRuns) {
  std::shared_ptr<ExecutionEngine> engine = makeEngine();
  Expected<std::unique_ptr<Executor>> executor =
      Executor::create(parse(kTwoOps), *engine);
  ASSERT_TRUE(bool(executor)) << toString(executor.takeError());
  // One fused primitive function.
  std::vector<Executor::Primitive> primitives =
      (*executor)->getPrimitiveFunctions();
  ASSERT_EQ(primitives.size(), 1u);
  EXPECT_EQ(primitives[0].global, "main");
  Expected<std::string> ir =
      (*executor)->getKernelIR(*primitives[0].function, false);
  ASSERT_TRUE(bool(ir)) << toString(ir.takeError());
  EXPECT_NE(ir->find("define"), std::string::npos);

  NDArray x = cantFail(NDArray::create(DataType::float32(), {3}));
  for (int i = 0; i < 3; ++i)
    x.setElementFromDouble(i, i);
  Expected<RuntimeValue> result =
      (*executor)->call("main", {RuntimeValue::tensor(x)});
  ASSERT_TRUE(bool(result)) << toString(result.takeError());
  EXPECT_EQ(result->getTensor().getElementAsDouble(2), 5.0);
  EXPECT_EQ(engine->getStats().kernelsCompiled, 1u);

  Expected<RuntimeValue> missing = (*executor)->call("nothere", {});
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(toString(missing.takeError()), "no function @nothere in the module");
}

/// A tensor of \p shape counting 0, 1, 2, ...
static NDArray iota(ArrayRef<int64_t> shape) {
  NDArray a = cantFail(NDArray::create(DataType::float32(), shape));
  for (int64_t i = 0; i < a.getNumElements(); ++i)
    a.setElementFromDouble(i, double(i));
  return a;
}

TEST_F(ExecutorTest, DynamicBatchRunsOneKernelForEveryShape) {
  std::shared_ptr<ExecutionEngine> engine = makeEngine();
  Expected<std::unique_ptr<Executor>> executor = Executor::create(
      parse(R"(
def @main(%x: Tensor[(?, 3), float32], %w: Tensor[(2, 3), float32]) {
  nn.relu(add(nn.dense(%x, %w, units=None), 1f))
}
)"),
      *engine);
  ASSERT_TRUE(bool(executor)) << toString(executor.takeError());
  NDArray w = iota({2, 3});
  auto run = [&](int64_t batch) {
    Expected<RuntimeValue> result = (*executor)->call(
        "main", {RuntimeValue::tensor(iota({batch, 3})),
                 RuntimeValue::tensor(w)});
    EXPECT_TRUE(bool(result)) << toString(result.takeError());
    return result ? result->getTensor() : NDArray();
  };
  NDArray two = run(2);
  ASSERT_EQ(two.getShape(), ArrayRef<int64_t>({2, 2}));
  // Row 1 of x is (3, 4, 5); row 1 of w is (3, 4, 5): 9 + 16 + 25 + 1.
  EXPECT_EQ(two.getElementAsDouble(3), 51.0);
  uint64_t compiled = engine->getStats().kernelsCompiled;
  EXPECT_GE(compiled, 1u);
  // The fused dense, add and relu take the batch at run time: the batch of
  // 4 compiles nothing, and the function is not specialised whole.
  NDArray four = run(4);
  ASSERT_EQ(four.getShape(), ArrayRef<int64_t>({4, 2}));
  EXPECT_EQ(four.getElementAsDouble(3), 51.0);
  EXPECT_EQ(four.getElementAsDouble(7), 123.0);
  EXPECT_EQ(engine->getStats().kernelsCompiled, compiled);
  run(2);
  EXPECT_EQ(engine->getStats().kernelsCompiled, compiled);
  EXPECT_EQ((*executor)->getNumSpecializations(), 0u);

  // An argument that does not fit its parameter's type.
  Expected<RuntimeValue> bad = (*executor)->call(
      "main", {RuntimeValue::tensor(iota({2, 4})), RuntimeValue::tensor(w)});
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(toString(bad.takeError())
                .find("argument #0 of @main (parameter %x) has type "
                      "Tensor[(2, 4), float32], expected Tensor[(?, 3), "
                      "float32]"),
            std::string::npos);
}

TEST_F(ExecutorTest, DataDependentShapesRunConcurrently) {
  // A dynamic batch (specialised per call) and a data-dependent extent
  // (argwhere; the fused add after it is specialised at run time), called
  // from two threads at once: each sees its own shapes.
  std::shared_ptr<ExecutionEngine> engine = makeEngine();
  Expected<std::unique_ptr<Executor>> executor = Executor::create(
      parse(R"(
def @main(%x: Tensor[(?, 3), float32]) {
  add(argwhere(greater(%x, 4f)), 1)
}
)"),
      *engine);
  ASSERT_TRUE(bool(executor)) << toString(executor.takeError());
  auto run = [&](int64_t batch, int64_t &rows, std::string &error) {
    for (int repeat = 0; repeat != 20; ++repeat) {
      Expected<RuntimeValue> result =
          (*executor)->call("main", {RuntimeValue::tensor(iota({batch, 3}))});
      if (!result) {
        error = toString(result.takeError());
        return;
      }
      rows = result->getTensor().getShape()[0];
    }
  };
  int64_t rows2 = 0, rows4 = 0;
  std::string error2, error4;
  std::thread a([&] { run(2, rows2, error2); });
  std::thread b([&] { run(4, rows4, error4); });
  a.join();
  b.join();
  EXPECT_EQ(error2, "");
  EXPECT_EQ(error4, "");
  // Elements 5 of (0..5) and 5..11 of (0..11) exceed 4.
  EXPECT_EQ(rows2, 1);
  EXPECT_EQ(rows4, 7);
  // Run as prepared (the fused add after argwhere by the evaluator): no
  // whole-function specialisation.
  EXPECT_EQ((*executor)->getNumSpecializations(), 0u);
}

TEST_F(ExecutorTest, UnfusedRunsEachOperatorAsAKernel) {
  std::shared_ptr<ExecutionEngine> engine = makeEngine();
  ExecutorOptions options;
  options.fuseOptLevel = std::nullopt;
  Expected<std::unique_ptr<Executor>> executor =
      Executor::create(parse(kTwoOps), *engine, options);
  ASSERT_TRUE(bool(executor)) << toString(executor.takeError());
  EXPECT_TRUE((*executor)->getPrimitiveFunctions().empty());
  NDArray x = cantFail(NDArray::create(DataType::float32(), {3}));
  ASSERT_TRUE(bool((*executor)->call("main", {RuntimeValue::tensor(x)})));
  EXPECT_EQ(engine->getStats().kernelsCompiled, 2u);
}

TEST_F(ExecutorTest, PreparationErrorsAreReturned) {
  std::shared_ptr<ExecutionEngine> engine = makeEngine();
  Expected<std::unique_ptr<Executor>> executor = Executor::create(
      parse("def @main(%x: Tensor[(3), float32]) { add(%x, "
            "dense<[1, 2]> : Tensor[(2), float32]) }"),
      *engine);
  EXPECT_FALSE(bool(executor));
  consumeError(executor.takeError());
}

/// Runs FoldConstant over kFoldable under \p ctx.
Ref<IRModule> foldUnder(PassContext &ctx, Ref<IRModule> module) {
  Expected<Ref<IRModule>> result = createSequential(
      {createFoldConstantPass()}, PassInfo("pipeline", 0))->run(module, ctx);
  if (!result) {
    ADD_FAILURE() << toString(result.takeError());
    return nullptr;
  }
  return *result;
}

TEST_F(ExecutorTest, FoldConstantUsesTheContextsEngine) {
  std::shared_ptr<ExecutionEngine> engine = makeEngine();
  Ref<PassContext> ctx = PassContext::create();
  ctx->setResource(engine);
  ASSERT_TRUE(foldUnder(*ctx, parse(kFoldable)));
  EXPECT_EQ(engine->getStats().kernelsCompiled, 1u);
  // A second pipeline on the same engine: its cache serves.
  ASSERT_TRUE(foldUnder(*ctx, parse(kFoldable)));
  EXPECT_EQ(engine->getStats().kernelsCompiled, 1u);
  EXPECT_GE(engine->getStats().memoryHits, 1u);
}

TEST_F(ExecutorTest, FoldConstantMakesTheEngineOnlyWhenItFolds) {
  int made = 0;
  std::shared_ptr<ExecutionEngine> engine = makeEngine();
  Ref<PassContext> ctx = PassContext::create();
  ctx->setResourceFactory<ExecutionEngine>(
      [&]() -> Expected<std::shared_ptr<ExecutionEngine>> {
        ++made;
        return engine;
      });
  ASSERT_TRUE(foldUnder(*ctx, parse(kTwoOps)));
  EXPECT_EQ(made, 0);
  ASSERT_TRUE(foldUnder(*ctx, parse(kFoldable)));
  EXPECT_EQ(made, 1);
  EXPECT_EQ(engine->getStats().kernelsCompiled, 1u);

  // The factory's error is the pass's.
  Ref<PassContext> failing = PassContext::create();
  failing->setResourceFactory<ExecutionEngine>(
      []() -> Expected<std::shared_ptr<ExecutionEngine>> {
        return createStringError(inconvertibleErrorCode(), "no engine here");
      });
  Expected<Ref<IRModule>> result =
      createSequential({createFoldConstantPass()}, PassInfo("pipeline", 0))
          ->run(parse(kFoldable), *failing);
  ASSERT_FALSE(bool(result));
  EXPECT_NE(toString(result.takeError()).find("no engine here"),
            std::string::npos);
}

TEST_F(ExecutorTest, FoldConstantOptionsEngineComesFirst) {
  std::shared_ptr<ExecutionEngine> mine = makeEngine(), context = makeEngine();
  Ref<PassContext> ctx = PassContext::create();
  ctx->setResource(context);
  Ref<IRModule> module = parse(kFoldable);
  // foldConstant() needs types.
  Expected<Ref<Pass>> infer = PassRegistry::instance().create("InferType");
  ASSERT_TRUE(bool(infer));
  Expected<Ref<IRModule>> inferred = (*infer)->run(module, *ctx);
  ASSERT_TRUE(bool(inferred)) << toString(inferred.takeError());
  FoldConstantOptions options;
  options.engine = mine;
  Expected<Ref<Expr>> folded = foldConstant(
      (*inferred)->lookup("main"), inferred->get(), *ctx, options);
  ASSERT_TRUE(bool(folded)) << toString(folded.takeError());
  EXPECT_EQ(mine->getStats().kernelsCompiled, 1u);
  EXPECT_EQ(context->getStats().kernelsCompiled, 0u);
}

} // namespace
