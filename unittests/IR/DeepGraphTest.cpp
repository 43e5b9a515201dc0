//===- DeepGraphTest.cpp - Traversals of 1,000,000-node graphs ------------===//
//
/// \file
/// A chain of 1,000,000 calls and a chain of 1,000,000 lets are visited,
/// mutated, hashed, compared, verified, searched for free variables and
/// destroyed on the default stack. Any recursion on graph depth would
/// overflow it. (Timing belongs to benchmarks/; this only has to finish.)
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/ExprVisitor.h"
#include "nnir/IR/FreeVars.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/StructuralEqual.h"
#include "nnir/IR/Verifier.h"
#include "nnir/Ops/Ops.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace nnir;

namespace {

constexpr unsigned kDepth = 1000000;

/// fn (%x) { opName(...opName(opName(%x, 1f), 1f)..., 1f) }
Ref<Function> buildCallChain(StringRef opName) {
  Ref<Var> x = Var::get("x", TensorType::get({4}, DataType::float32()));
  Ref<Expr> one = Constant::getScalar(DataType::float32(), 1);
  Op *op = Op::lookup(opName);
  Ref<Expr> chain = x;
  for (unsigned i = 0; i != kDepth; ++i)
    chain = Call::get(op, {chain, one});
  return Function::get({x}, chain);
}

/// fn (%x) { let %v1 = opName(%x, 1f); let %v2 = opName(%v1, 1f); ... %vN }
Ref<Function> buildLetChain(StringRef opName) {
  Ref<Var> x = Var::get("x", TensorType::get({4}, DataType::float32()));
  Ref<Expr> one = Constant::getScalar(DataType::float32(), 1);
  Op *op = Op::lookup(opName);
  std::vector<Ref<Var>> vars;
  vars.reserve(kDepth + 1);
  vars.push_back(x);
  for (unsigned i = 1; i <= kDepth; ++i)
    vars.push_back(Var::get("v" + std::to_string(i)));
  Ref<Expr> body = vars.back();
  for (unsigned i = kDepth; i >= 1; --i)
    body = Let::get(vars[i], Call::get(op, {vars[i - 1], one}), body);
  return Function::get({x}, body);
}

Ref<IRModule> wrapInModule(Ref<Function> func) {
  Ref<IRModule> module = IRModule::create();
  module->addOrUpdate("main", std::move(func));
  return module;
}

class DeepGraphTest : public ::testing::Test {
protected:
  void SetUp() override { registerAllOps(); }
};

/// Counts calls per operator and lets.
struct Census : ExprVisitor {
  unsigned adds = 0, multiplies = 0, lets = 0;
  void visitCall(Call *call) override {
    if (call->getCalledOp() == Op::lookup("add"))
      ++adds;
    else if (call->getCalledOp() == Op::lookup("multiply"))
      ++multiplies;
    ExprVisitor::visitCall(call);
  }
  void visitLet(Let *let) override {
    ++lets;
    ExprVisitor::visitLet(let);
  }
};

/// Rewrites every add into a multiply.
struct AddToMultiply : ExprMutator {
  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    if (post->getCalledOp() != Op::lookup("add"))
      return post;
    return Call::get(Op::lookup("multiply"), post->getArgs(), post->getAttrs(),
                     post->getLoc());
  }
};

/// Checks every traversal on a deep function built by \p build.
void exerciseDeepFunction(Ref<Function> (*build)(StringRef), bool isLetChain) {
  Ref<Function> func = build("add");

  Census census;
  census.visit(func.get());
  EXPECT_EQ(census.adds, kDepth);
  EXPECT_EQ(census.lets, isLetChain ? kDepth : 0u);

  // Mutate (every add becomes a multiply) and count the result.
  Ref<Expr> mutated;
  {
    AddToMultiply mutator;
    mutated = mutator.mutate(func.get());
  }
  ASSERT_TRUE(mutated);
  ASSERT_NE(mutated.get(), func.get());
  Census after;
  after.visit(mutated.get());
  EXPECT_EQ(after.adds, 0u);
  EXPECT_EQ(after.multiplies, kDepth);
  EXPECT_EQ(after.lets, census.lets);
  {
    // The identity mutation returns the very same graph.
    ExprMutator identity;
    EXPECT_EQ(identity.mutate(func.get()), func);
  }

  // Structural hash and equality of independently built copies.
  Ref<Function> copy = build("add");
  EXPECT_EQ(structuralHash(func.get()), structuralHash(copy.get()));
  EXPECT_TRUE(structuralEqual(func.get(), copy.get()));
  EXPECT_FALSE(structuralEqual(func.get(), mutated.get()));
  if (!isLetChain) {
    // The mutated graph is exactly an independently built multiply chain.
    // (Done for one shape only, to keep the test short.)
    Ref<Function> expected = build("multiply");
    EXPECT_TRUE(structuralEqual(mutated.get(), expected.get()))
        << explainStructuralDifference(mutated.get(), expected.get());
    EXPECT_EQ(structuralHash(mutated.get()), structuralHash(expected.get()));
    EXPECT_EQ(explainStructuralDifference(func.get(), expected.get()),
              "operators differ: add vs multiply");
    EXPECT_TRUE(structuralEqual(*wrapInModule(func), *wrapInModule(copy)));
  }

  // Verification, free variables.
  EXPECT_FALSE(bool(verifyModule(*wrapInModule(func))));
  std::vector<Ref<Var>> free = getFreeVars(func->getBody().get());
  ASSERT_EQ(free.size(), 1u);
  EXPECT_EQ(free[0], func->getParam(0));
  // The free variable deep inside is found and reported by the verifier.
  EXPECT_EQ(toString(verifyExpr(func->getBody().get())), "free variable %x");

  // Destruction of every graph (the last references go here).
  Var *param = func->getParam(0).get();
  Ref<Var> keepParam = param;
  func = nullptr;
  mutated = nullptr; // shares the parameter (binders are kept)
  free.clear();
  EXPECT_EQ(keepParam->getRefCount(), 1u);
  copy = nullptr;
}

TEST_F(DeepGraphTest, MillionCallChain) {
  exerciseDeepFunction(&buildCallChain, /*isLetChain=*/false);
}

TEST_F(DeepGraphTest, MillionLetChain) {
  exerciseDeepFunction(&buildLetChain, /*isLetChain=*/true);
}

TEST_F(DeepGraphTest, DeepTupleAndProjectionChain) {
  // Alternating tuples and projections: ((... (%x,).0 ...,).0
  Ref<Var> x = Var::get("x");
  Ref<Expr> chain = x;
  for (unsigned i = 0; i != kDepth / 2; ++i)
    chain = TupleGetItem::get(Tuple::get({chain}), 0);
  Ref<Function> func = Function::get({x}, chain);
  struct CountItems : ExprVisitor {
    unsigned items = 0;
    void visitTupleGetItem(TupleGetItem *item) override {
      ++items;
      ExprVisitor::visitTupleGetItem(item);
    }
  } counter;
  counter.visit(func.get());
  EXPECT_EQ(counter.items, kDepth / 2);
  // Fold every projection of a literal tuple: the chain collapses to %x.
  Ref<Expr> folded =
      rewritePostOrder(func.get(), [](Expr *pre, Expr *post) -> Ref<Expr> {
        if (auto *item = dyn_cast<TupleGetItem>(post))
          if (auto *tuple = dyn_cast<Tuple>(item->getTuple().get()))
            return tuple->getField(item->getIndex());
        return post;
      });
  EXPECT_EQ(cast<Function>(folded.get())->getBody(), x);
  EXPECT_FALSE(bool(verifyExpr(func.get())));
  EXPECT_NE(structuralHash(func.get()), structuralHash(folded.get()));
}

} // namespace
