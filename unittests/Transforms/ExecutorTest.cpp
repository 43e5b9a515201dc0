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
