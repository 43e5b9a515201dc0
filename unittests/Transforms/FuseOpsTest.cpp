//===- FuseOpsTest.cpp - Tests of FuseOps and the normal forms ------------===//
//
/// \file
/// The C++ API of FuseOps, ToANormalForm and ToGraphNormalForm: identity on
/// what they need not change, the error on untyped input, the pass infos
/// and statistics, expressions that are not functions, and a
/// 1,000,000-let chain through both normal forms. The rules themselves are
/// tested on text in test/Transforms.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/FuseOps.h"
#include "nnir/Transforms/ToANormalForm.h"
#include "nnir/Transforms/ToGraphNormalForm.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/Printer.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Parser/Parser.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Transforms/InferType.h"
#include "nnir/Transforms/Passes.h"

#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace nnir;

namespace {

class FuseOpsTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerAllOps();
    registerTransformPasses();
  }

  Ref<IRModule> parse(StringRef text) {
    Expected<Ref<IRModule>> module = parseModule(text, sm, "test.nnir");
    if (!module) {
      ADD_FAILURE() << toString(module.takeError());
      return IRModule::create();
    }
    return *module;
  }

  SourceMgr sm;
};

Ref<TensorType> vectorType() {
  return TensorType::get({4}, DataType::float32());
}

TEST_F(FuseOpsTest, NeedsCheckedTypes) {
  Ref<Var> x = Var::get("x", vectorType());
  Ref<Expr> call = Call::get(Op::lookup("exp"), {x});
  Ref<Function> func = Function::get({x}, Call::get(Op::lookup("exp"), {call}));
  Expected<Ref<Expr>> fused = fuseOps(func.get(), FuseOpsOptions());
  ASSERT_FALSE(bool(fused));
  EXPECT_EQ(toString(fused.takeError()),
            "FuseOps needs checked types: this Call has none (run InferType "
            "first)");
}

TEST_F(FuseOpsTest, IdentityWithoutCalls) {
  Ref<Var> x = Var::get("x", vectorType());
  Ref<Function> func = Function::get({x}, Tuple::get({x, x}));
  Expected<Ref<Expr>> fused = fuseOps(func.get(), FuseOpsOptions());
  ASSERT_TRUE(bool(fused));
  EXPECT_EQ(fused->get(), func.get());
  // A primitive function is returned as it is.
  Ref<Function> primitive =
      Function::get({x}, Call::get(Op::lookup("exp"), {x}), vectorType(),
                    DictAttrs::get({{"Primitive", AttrValue::integer(1), {}}}));
  fused = fuseOps(primitive.get(), FuseOpsOptions());
  ASSERT_TRUE(bool(fused));
  EXPECT_EQ(fused->get(), primitive.get());
}

TEST_F(FuseOpsTest, PassInfoStatisticsAndIdentity) {
  Ref<Pass> pass = createFuseOpsPass();
  EXPECT_EQ(pass->getName(), "FuseOps");
  EXPECT_EQ(pass->getInfo().optLevel, 0);
  EXPECT_EQ(pass->getInfo().required, std::vector<std::string>{"InferType"});
  Expected<Ref<Pass>> registered =
      PassRegistry::instance().create("FuseOps", {{"fuse_opt_level", "0"}});
  ASSERT_TRUE(bool(registered)) << toString(registered.takeError());

  Ref<IRModule> module = parse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  %0 = exp(%x);
  %1 = negative(%0);
  add(%1, %0)
})");
  Expected<Ref<IRModule>> typed = inferTypes(module);
  ASSERT_TRUE(bool(typed));
  Ref<PassContext> ctx = PassContext::create();
  Expected<Ref<IRModule>> fused = (*registered)->run(*typed, *ctx);
  ASSERT_TRUE(bool(fused)) << toString(fused.takeError());
  // Fusion opt level 0: three primitive functions.
  EXPECT_EQ(ctx->getStatistics().get("FuseOps", "num-fused-functions"), 3);
  EXPECT_TRUE((*fused)->hasValidTypes());
  // Fusing the fused module changes nothing: the very same module.
  Expected<Ref<IRModule>> again = pass->run(*fused, *ctx);
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(again->get(), fused->get());
}

TEST_F(FuseOpsTest, ANormalFormOfAnExpression) {
  Ref<Var> x = Var::get("x", vectorType());
  Ref<Expr> exp = Call::get(Op::lookup("exp"), {x});
  Ref<Expr> add = Call::get(Op::lookup("add"), {exp, exp});
  Ref<Expr> anf = toANormalForm(add.get());
  EXPECT_EQ(toString(anf.get()), "free_var %x: Tensor[(4), float32];\n"
                                 "let %x_0 = exp(%x);\n"
                                 "let %x_1 = add(%x_0, %x_0);\n"
                                 "%x_1");
  // Atoms stay as they are; converting twice changes nothing.
  EXPECT_EQ(toANormalForm(x.get()).get(), x.get());
  unsigned numFresh = 0;
  Ref<Expr> again = toANormalForm(anf.get(), numFresh);
  EXPECT_EQ(numFresh, 0u);
  EXPECT_EQ(toString(again.get()), toString(anf.get()));
  // And back.
  Ref<Expr> graph = toGraphNormalForm(anf.get());
  auto *call = cast<Call>(graph.get());
  EXPECT_EQ(call->getArg(0), call->getArg(1));
  EXPECT_EQ(toString(graph.get()), "free_var %x: Tensor[(4), float32];\n"
                                   "%0 = exp(%x);\nadd(%0, %0)");
}

TEST_F(FuseOpsTest, NormalFormPassInfos) {
  Ref<Pass> anf = createToANormalFormPass();
  EXPECT_EQ(anf->getName(), "ToANormalForm");
  EXPECT_EQ(anf->getInfo().optLevel, 1);
  EXPECT_TRUE(isa<ModulePass>(anf.get()));
  Ref<Pass> gnf = createToGraphNormalFormPass();
  EXPECT_EQ(gnf->getName(), "ToGraphNormalForm");
  EXPECT_EQ(gnf->getInfo().optLevel, 1);
  EXPECT_TRUE(isa<FunctionPass>(gnf.get()));
  // Nothing to convert: the same module.
  Ref<IRModule> module = parse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) { %x })");
  Expected<Ref<IRModule>> result = anf->run(module);
  ASSERT_TRUE(bool(result));
  EXPECT_EQ(result->get(), module.get());
}

TEST_F(FuseOpsTest, MillionLetChainRoundTrip) {
  // let %v1 = negative(%x); ...; let %vN = negative(%vN-1); %vN
  constexpr int n = 1000000;
  Ref<Var> x = Var::get("x", vectorType());
  Op *negative = Op::lookup("negative");
  std::vector<Ref<Var>> vars;
  vars.reserve(n + 1);
  vars.push_back(x);
  for (int i = 1; i <= n; ++i)
    vars.push_back(Var::get("v"));
  Ref<Expr> body = vars.back();
  for (int i = n; i >= 1; --i)
    body = Let::get(vars[i], Call::get(negative, {vars[i - 1]}), body);
  Ref<Function> func = Function::get({x}, body);
  vars.clear();
  body = nullptr;

  // Graph form: a chain of 1,000,000 calls.
  Ref<Expr> graph = toGraphNormalForm(func.get());
  Expr *e = cast<Function>(graph.get())->getBody().get();
  int depth = 0;
  while (auto *call = dyn_cast<Call>(e)) {
    ++depth;
    e = call->getArg(0).get();
  }
  EXPECT_EQ(depth, n);
  EXPECT_EQ(e, x.get());

  // A-normal form of the A-normal form: the same lets, the same variables.
  Ref<Expr> anf = toANormalForm(func.get());
  auto *let = dyn_cast<Let>(cast<Function>(anf.get())->getBody().get());
  auto *original = cast<Let>(func->getBody().get());
  ASSERT_TRUE(let);
  EXPECT_EQ(let->getVar(), original->getVar());
  int lets = 0;
  for (Expr *cur = let; auto *l = dyn_cast<Let>(cur); cur = l->getBody().get())
    ++lets;
  EXPECT_EQ(lets, n);
}

} // namespace
