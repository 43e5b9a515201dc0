//===- TypeSolverTest.cpp - Tests of unification and constraints ----------===//
//
/// \file
/// The solver behind InferType: unification binds variables (and refuses a
/// type that contains its own variable), resolve() substitutes solutions,
/// and a constraint on an operator call runs the relation once the types it
/// waits for are bound, with the error of a contradiction located at the
/// call.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Transforms/TypeSolver.h"

#include "nnir/IR/Op.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Support/Diagnostics.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace nnir;

namespace {

class TypeSolverTest : public ::testing::Test {
protected:
  void SetUp() override { registerAllOps(); }
  static Ref<Type> f32(ArrayRef<int64_t> shape) {
    return TensorType::get(shape, DataType::float32());
  }
};

TEST_F(TypeSolverTest, UnifyBindsVariablesAndResolveSubstitutes) {
  TypeSolver solver;
  EXPECT_EQ(solver.getNumVars(), 0u);
  // Without variables, unification is equality.
  EXPECT_TRUE(solver.unify(f32({2}), f32({2})));
  EXPECT_FALSE(solver.unify(f32({2}), f32({3})));

  Ref<Type> a = solver.freshVar(), b = solver.freshVar();
  EXPECT_EQ(solver.getNumVars(), 2u);
  Ref<Type> pair = TupleType::get({a, b});
  EXPECT_TRUE(solver.mentionsVars(pair.get()));
  EXPECT_TRUE(solver.unify(pair, TupleType::get({f32({2}), a})));
  // a = f32[2], b = a.
  EXPECT_EQ(solver.findUnboundVar(pair.get()), nullptr);
  Ref<Type> resolved = solver.resolve(pair);
  ASSERT_TRUE(resolved);
  EXPECT_TRUE(isCompleteType(resolved.get()));
  EXPECT_EQ(resolved->str(), TupleType::get({f32({2}), f32({2})})->str());
  // A contradiction is refused.
  EXPECT_FALSE(solver.unify(b, f32({3})));

  // The occurs check: c cannot stand for a tuple holding c.
  Ref<Type> c = solver.freshVar();
  EXPECT_FALSE(solver.unify(c, TupleType::get({c})));
  EXPECT_EQ(solver.findUnboundVar(c.get()), c.get());

  // `_` in an annotation becomes a fresh variable.
  Ref<Type> annotated =
      solver.instantiate(TupleType::get({f32({1}), IncompleteType::get()}));
  EXPECT_TRUE(solver.mentionsVars(annotated.get()));
  EXPECT_EQ(solver.getNumVars(), 4u);

  solver.reset();
  EXPECT_EQ(solver.getNumVars(), 0u);
  EXPECT_FALSE(solver.mentionsVars(pair.get()));
}

TEST_F(TypeSolverTest, AConstraintRunsTheRelationWhenItsTypesAreKnown) {
  Op *add = Op::lookup("add");
  ASSERT_TRUE(add);
  const TypeRelationFn *relation = getTypeRelation(add);
  ASSERT_TRUE(relation);

  TypeSolver solver;
  Ref<Type> x = solver.freshVar();
  Ref<Expr> call = Call::get(add, {Var::get("x"), Var::get("y")});
  TypeConstraint constraint;
  constraint.expr = call.get();
  constraint.relation = relation;
  constraint.args = {x, f32({4})};
  Ref<Type> result = constraint.result = solver.freshVar();
  ASSERT_FALSE(errorToBool(solver.addConstraint(std::move(constraint))));
  // It waits for x.
  EXPECT_FALSE(solver.hasReady());
  EXPECT_NE(solver.findUnsolved(), nullptr);
  EXPECT_EQ(solver.findUnboundVar(result.get()), result.get());

  ASSERT_TRUE(solver.unify(x, f32({4})));
  EXPECT_TRUE(solver.hasReady());
  ASSERT_FALSE(errorToBool(solver.drain()));
  EXPECT_EQ(solver.findUnsolved(), nullptr);
  EXPECT_EQ(solver.resolve(result)->str(), f32({4})->str());
}

TEST_F(TypeSolverTest, AContradictedConstraintIsAnErrorAtTheCall) {
  Op *add = Op::lookup("add");
  TypeSolver solver;
  Ref<Type> x = solver.freshVar();
  Ref<Expr> call = Call::get(add, {Var::get("x"), Var::get("y")});
  TypeConstraint constraint;
  constraint.expr = call.get();
  constraint.relation = getTypeRelation(add);
  constraint.args = {x, f32({4})};
  constraint.result = f32({5}); // the uses need float32[5]
  ASSERT_FALSE(errorToBool(solver.addConstraint(std::move(constraint))));
  ASSERT_TRUE(solver.unify(x, f32({4})));
  Error err = solver.drain();
  ASSERT_TRUE(bool(err));
  std::string message = toString(std::move(err));
  EXPECT_EQ(message, "this expression has type " + f32({4})->str() +
                         " but its uses need " + f32({5})->str());
}

} // namespace
