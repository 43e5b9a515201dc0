//===- StructuralEqualTest.cpp - Tests of structural equality and hash ----===//
//
/// \file
/// Alpha-equivalence, free variables, graph shape, attributes, constants,
/// types, the explanations, hash consistency and module equality.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/StructuralEqual.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace llvm;
using namespace nnir;

namespace {

class StructuralEqualTest : public ::testing::Test {
protected:
  void SetUp() override { registerAllOps(); }

  static Ref<Call> call(StringRef name, ArrayRef<Ref<Expr>> args,
                        Ref<Attrs> attrs = nullptr) {
    return Call::get(Op::lookup(name), args, std::move(attrs));
  }
  static Ref<Constant> scalar(double value,
                              DataType dtype = DataType::float32()) {
    return Constant::getScalar(dtype, value);
  }
  static Ref<Type> tensor(ArrayRef<int64_t> shape,
                          DataType dtype = DataType::float32()) {
    return TensorType::get(shape, dtype);
  }

  /// Checks equality both ways and, when equal, equal hashes.
  static void expectEqual(const Expr *a, const Expr *b,
                          bool mapFreeVars = false) {
    EXPECT_TRUE(structuralEqual(a, b, mapFreeVars))
        << explainStructuralDifference(a, b, mapFreeVars);
    EXPECT_TRUE(structuralEqual(b, a, mapFreeVars));
    EXPECT_EQ(explainStructuralDifference(a, b, mapFreeVars), "");
    EXPECT_EQ(structuralHash(a, mapFreeVars), structuralHash(b, mapFreeVars));
  }
  /// Checks inequality both ways and returns the explanation for (a, b).
  static std::string expectDifferent(const Expr *a, const Expr *b,
                                     bool mapFreeVars = false) {
    EXPECT_FALSE(structuralEqual(a, b, mapFreeVars));
    EXPECT_FALSE(structuralEqual(b, a, mapFreeVars));
    return explainStructuralDifference(a, b, mapFreeVars);
  }
};

TEST_F(StructuralEqualTest, BoundVariablesAreAlphaEquivalent) {
  Ref<Var> x = Var::get("x", tensor({2})), y = Var::get("y", tensor({2}));
  Ref<Function> f = Function::get({x}, call("nn.relu", {x}));
  Ref<Function> g = Function::get({y}, call("nn.relu", {y}));
  expectEqual(f.get(), g.get());

  Ref<Var> a = Var::get("a"), b = Var::get("b");
  Ref<Expr> letA = Let::get(a, scalar(1), call("add", {a, a}));
  Ref<Expr> letB = Let::get(b, scalar(1), call("add", {b, b}));
  expectEqual(letA.get(), letB.get());

  // The same variable node on both sides is fine too.
  expectEqual(f.get(), Function::get({x}, call("nn.relu", {x})).get());
}

TEST_F(StructuralEqualTest, BindingsMustCorrespondPositionally) {
  // fn (%x, %y) { subtract(%x, %y) } vs fn (%y, %x) { subtract(%x, %y) }:
  // the bodies are the very same node but mean different things.
  Ref<Var> x = Var::get("x"), y = Var::get("y");
  Ref<Expr> body = call("subtract", {x, y});
  Ref<Function> f = Function::get({x, y}, body);
  Ref<Function> g = Function::get({y, x}, body);
  EXPECT_EQ(expectDifferent(f.get(), g.get()),
            "variable %x is matched with %y but met against %x");

  // Two uses of one binder against uses of two binders.
  Ref<Var> p = Var::get("p"), q = Var::get("q"), r = Var::get("r");
  Ref<Function> same = Function::get({p, q}, call("add", {p, p}));
  Ref<Function> mixed = Function::get({q, r}, call("add", {q, r}));
  EXPECT_EQ(expectDifferent(same.get(), mixed.get()),
            "variable %p is matched with %q but met against %r");
}

TEST_F(StructuralEqualTest, FreeVariablesAreEqualOnlyToThemselves) {
  Ref<Var> x = Var::get("x"), y = Var::get("y");
  expectEqual(call("nn.relu", {x}).get(), call("nn.relu", {x}).get());
  EXPECT_EQ(
      expectDifferent(call("nn.relu", {x}).get(), call("nn.relu", {y}).get()),
      "free variables differ: %x vs %y");
  // With mapFreeVars they are mapped at first use, consistently.
  expectEqual(call("nn.relu", {x}).get(), call("nn.relu", {y}).get(),
              /*mapFreeVars=*/true);
  expectEqual(call("add", {x, y}).get(), call("add", {y, x}).get(),
              /*mapFreeVars=*/true);
  EXPECT_EQ(expectDifferent(call("add", {x, x}).get(),
                            call("add", {x, y}).get(), /*mapFreeVars=*/true),
            "variable %x is matched with %x but met against %y");
  // Mapped free variables must have equal annotations.
  Ref<Var> f32 = Var::get("a", tensor({2})),
           i32 = Var::get("b", tensor({2}, DataType::int32()));
  EXPECT_EQ(expectDifferent(call("nn.relu", {f32}).get(),
                            call("nn.relu", {i32}).get(), true),
            "type annotations of %a and %b differ: Tensor[(2), float32] vs "
            "Tensor[(2), int32]");
}

TEST_F(StructuralEqualTest, TypeAnnotationsOfBindersAreCompared) {
  Ref<Var> x = Var::get("x", tensor({1, 3})), y = Var::get("y", tensor({3}));
  Ref<Var> z = Var::get("z");
  EXPECT_EQ(
      expectDifferent(Function::get({x}, x).get(), Function::get({y}, y).get()),
      "type annotations of %x and %y differ: Tensor[(1, 3), float32] "
      "vs Tensor[(3), float32]");
  EXPECT_EQ(
      expectDifferent(Function::get({x}, x).get(), Function::get({z}, z).get()),
      "type annotations of %x and %z differ: Tensor[(1, 3), float32] "
      "vs <none>");
  EXPECT_EQ(expectDifferent(Function::get({z}, z, tensor({1})).get(),
                            Function::get({z}, z, tensor({2})).get()),
            "function return types differ: Tensor[(1), float32] vs "
            "Tensor[(2), float32]");
}

TEST_F(StructuralEqualTest, LocationsNameHintsAndCheckedTypesAreIgnored) {
  const char text[] = "nn.relu(%x)";
  SMLoc loc = SMLoc::getFromPointer(text);
  Ref<Var> x = Var::get("x"), renamed = Var::get("something_else");
  Ref<Expr> a =
      Call::get(Op::lookup("nn.relu"), {x}, nullptr, loc, tensor({4}));
  Ref<Expr> b = Call::get(Op::lookup("nn.relu"), {x});
  expectEqual(a.get(), b.get());
  expectEqual(Function::get({x}, a).get(),
              Function::get({renamed}, call("nn.relu", {renamed})).get());
}

TEST_F(StructuralEqualTest, GraphShapeMustMatch) {
  Ref<Var> x = Var::get("x");
  Ref<Expr> shared = call("exp", {x});
  Ref<Expr> dag = call("add", {shared, shared});
  Ref<Expr> tree = call("add", {call("exp", {x}), call("exp", {x})});
  EXPECT_EQ(expectDifferent(dag.get(), tree.get()),
            "graph shapes differ: a Call shared on the left is matched with "
            "two different nodes on the right");
  EXPECT_EQ(explainStructuralDifference(tree.get(), dag.get()),
            "graph shapes differ: a Call shared on the right is matched "
            "with two different nodes on the left");
  // Equal when both sides share the same way.
  Ref<Expr> shared2 = call("exp", {x});
  expectEqual(dag.get(), call("add", {shared2, shared2}).get());

  // Leaves are values: one constant used twice equals two equal constants.
  Ref<Constant> one = scalar(1);
  expectEqual(call("add", {one, one}).get(),
              call("add", {scalar(1), scalar(1)}).get());
  // So is the empty tuple.
  Ref<Expr> unit = Tuple::get({});
  expectEqual(Tuple::get({unit, unit}).get(),
              Tuple::get({Tuple::get({}), Tuple::get({})}).get());
}

TEST_F(StructuralEqualTest, OperatorsAndKinds) {
  Ref<Var> x = Var::get("x");
  EXPECT_EQ(expectDifferent(call("add", {x, x}).get(),
                            call("multiply", {x, x}).get()),
            "operators differ: add vs multiply");
  EXPECT_EQ(expectDifferent(call("nn.relu", {x}).get(), Tuple::get({x}).get()),
            "kinds differ: Call vs Tuple");
  EXPECT_EQ(expectDifferent(call("add", {x, x}).get(),
                            Call::get(Op::lookup("add"), {x}).get()),
            "numbers of call arguments differ: 2 vs 1");
  EXPECT_EQ(expectDifferent(Tuple::get({x}).get(), Tuple::get({x, x}).get()),
            "tuple sizes differ: 1 vs 2");
  Ref<Expr> t = Tuple::get({x, x});
  EXPECT_EQ(expectDifferent(TupleGetItem::get(t, 0).get(),
                            TupleGetItem::get(t, 1).get()),
            "tuple indices differ: 0 vs 1");
  expectEqual(TupleGetItem::get(t, 1).get(),
              TupleGetItem::get(Tuple::get({x, x}), 1).get());
  Ref<Var> c = Var::get("c");
  expectEqual(If::get(c, x, scalar(0)).get(), If::get(c, x, scalar(0)).get());
  EXPECT_EQ(expectDifferent(If::get(c, x, scalar(0)).get(),
                            If::get(c, x, scalar(1)).get()),
            "constant values differ");
  EXPECT_EQ(
      expectDifferent(Function::get({x}, x).get(), Function::get({}, x).get()),
      "numbers of function parameters differ: 1 vs 0");
}

TEST_F(StructuralEqualTest, GlobalVarsCompareByName) {
  Ref<Var> x = Var::get("x");
  expectEqual(Call::get(GlobalVar::get("f"), {x}).get(),
              Call::get(GlobalVar::get("f"), {x}).get());
  EXPECT_EQ(expectDifferent(Call::get(GlobalVar::get("f"), {x}).get(),
                            Call::get(GlobalVar::get("g"), {x}).get()),
            "global variables differ: @f vs @g");
}

TEST_F(StructuralEqualTest, ConstantsCompareDtypeShapeAndBytes) {
  expectEqual(scalar(1.5).get(), scalar(1.5).get());
  EXPECT_EQ(expectDifferent(scalar(1.5).get(), scalar(2.5).get()),
            "constant values differ");
  EXPECT_EQ(
      expectDifferent(scalar(1).get(), scalar(1, DataType::int32()).get()),
      "constant dtypes differ: float32 vs int32");
  Expected<NDArray> a = NDArray::create(DataType::float32(), {2, 3});
  Expected<NDArray> b = NDArray::create(DataType::float32(), {3, 2});
  Expected<NDArray> c = NDArray::create(DataType::float32(), {2, 3});
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(expectDifferent(Constant::get(*a).get(), Constant::get(*b).get()),
            "constant shapes differ: (2, 3) vs (3, 2)");
  expectEqual(Constant::get(*a).get(), Constant::get(*c).get());
  c->setElementFromDouble(5, 1.0);
  EXPECT_EQ(expectDifferent(Constant::get(*a).get(), Constant::get(*c).get()),
            "constant values differ");
  // Bitwise: -0 differs from 0, NaN equals the same NaN.
  EXPECT_FALSE(structuralEqual(scalar(0.0).get(), scalar(-0.0).get()));
  expectEqual(scalar(std::nan("")).get(), scalar(std::nan("")).get());
}

TEST_F(StructuralEqualTest, CallAttributesAreCompared) {
  Ref<Var> d = Var::get("d"), w = Var::get("w");
  Ref<Conv2DAttrs> a1 = Conv2DAttrs::create(), a2 = Conv2DAttrs::create();
  expectEqual(call("nn.conv2d", {d, w}, a1).get(),
              call("nn.conv2d", {d, w}, a2).get());
  a2->strides = {2, 2};
  EXPECT_EQ(expectDifferent(call("nn.conv2d", {d, w}, a1).get(),
                            call("nn.conv2d", {d, w}, a2).get()),
            "attribute 'strides' differs: [1, 1] vs [2, 2]");
  Ref<Conv2DAttrs> a3 = Conv2DAttrs::create();
  a3->dataLayout = "NHWC";
  EXPECT_EQ(expectDifferent(call("nn.conv2d", {d, w}, a1).get(),
                            call("nn.conv2d", {d, w}, a3).get()),
            "attribute 'data_layout' differs: \"NCHW\" vs \"NHWC\"");
  // No record on an operator call means the operator's defaults.
  expectEqual(call("nn.conv2d", {d, w}, a1).get(),
              call("nn.conv2d", {d, w}).get());
  EXPECT_EQ(expectDifferent(call("nn.conv2d", {d, w}, a2).get(),
                            call("nn.conv2d", {d, w}).get()),
            "attribute 'strides' differs: [2, 2] vs [1, 1]");
  EXPECT_EQ(
      expectDifferent(call("add", {d, w}, a1).get(), call("add", {d, w}).get()),
      "attributes differ: relay.attrs.Conv2DAttrs vs none");

  Ref<SoftmaxAttrs> s = SoftmaxAttrs::create();
  Ref<BiasAddAttrs> b = BiasAddAttrs::create();
  EXPECT_EQ(expectDifferent(call("nn.softmax", {d}, s).get(),
                            call("nn.softmax", {d}, b).get()),
            "attribute records differ: relay.attrs.SoftmaxAttrs vs "
            "relay.attrs.BiasAddAttrs");

  // Null and an empty DictAttrs are the same.
  expectEqual(Call::get(GlobalVar::get("f"), {d}).get(),
              Call::get(GlobalVar::get("f"), {d}, DictAttrs::get({})).get());
}

TEST_F(StructuralEqualTest, FunctionAttributesAreCompared) {
  Ref<Var> x = Var::get("x");
  Ref<DictAttrs> prim =
      DictAttrs::get({{"Primitive", AttrValue::integer(1), SMLoc()}});
  Ref<DictAttrs> notPrim =
      DictAttrs::get({{"Primitive", AttrValue::integer(0), SMLoc()}});
  expectEqual(Function::get({x}, x, nullptr, prim).get(),
              Function::get({x}, x, nullptr,
                            prim->with("Primitive", AttrValue::integer(1)))
                  .get());
  EXPECT_EQ(expectDifferent(Function::get({x}, x, nullptr, prim).get(),
                            Function::get({x}, x, nullptr, notPrim).get()),
            "function attribute 'Primitive' differs: 1 vs 0");
  EXPECT_EQ(expectDifferent(
                Function::get({x}, x, nullptr, prim).get(),
                Function::get({x}, x, nullptr,
                              prim->with("Compiler", AttrValue::string("c")))
                    .get()),
            "function attribute 'Compiler' is present on the right only");
  expectEqual(Function::get({x}, x).get(),
              Function::get({x}, x, nullptr, DictAttrs::get({})).get());
}

TEST_F(StructuralEqualTest, HashIsConsistentAndDiscriminates) {
  auto build = [&](StringRef opName, double c) -> Ref<Expr> {
    Ref<Var> x = Var::get("x", tensor({4})), t = Var::get("t");
    Ref<Expr> body =
        Let::get(t, call(opName, {x, scalar(c)}),
                 Tuple::get({t, TupleGetItem::get(Tuple::get({t, x}), 1)}));
    return Function::get({x}, body);
  };
  Ref<Expr> a = build("add", 1), b = build("add", 1);
  expectEqual(a.get(), b.get());
  EXPECT_NE(structuralHash(a.get()), structuralHash(build("add", 2).get()));
  EXPECT_NE(structuralHash(a.get()),
            structuralHash(build("multiply", 1).get()));
  // Free variables hash by identity unless they are mapped.
  Ref<Var> x = Var::get("x"), y = Var::get("y");
  EXPECT_NE(structuralHash(call("nn.relu", {x}).get()),
            structuralHash(call("nn.relu", {y}).get()));
  EXPECT_EQ(structuralHash(call("nn.relu", {x}).get(), true),
            structuralHash(call("nn.relu", {y}).get(), true));
  // Binding order matters to the hash as it does to equality.
  Ref<Var> p = Var::get("p"), q = Var::get("q");
  Ref<Expr> body = call("subtract", {p, q});
  EXPECT_NE(structuralHash(Function::get({p, q}, body).get()),
            structuralHash(Function::get({q, p}, body).get()));
  EXPECT_EQ(structuralHash(nullptr), structuralHash(nullptr));
  EXPECT_TRUE(structuralEqual(nullptr, nullptr));
  EXPECT_FALSE(structuralEqual(x.get(), nullptr));
}

TEST_F(StructuralEqualTest, ModulesCompareFunctionsByName) {
  auto relu = [&] {
    Ref<Var> x = Var::get("x");
    return Function::get({x}, call("nn.relu", {x}));
  };
  auto callF = [&] {
    Ref<Var> y = Var::get("y");
    return Function::get({y}, Call::get(GlobalVar::get("f"), {y}));
  };
  Ref<IRModule> m1 = IRModule::create(), m2 = IRModule::create();
  m1->addOrUpdate("f", relu());
  m1->addOrUpdate("main", callF());
  m2->addOrUpdate("main", callF());
  m2->addOrUpdate("f", relu());
  EXPECT_TRUE(structuralEqual(*m1, *m2));
  EXPECT_EQ(explainStructuralDifference(*m1, *m2), "");
  EXPECT_EQ(structuralHash(*m1), structuralHash(*m2));

  Ref<IRModule> m3 = m2->shallowCopy();
  m3->addOrUpdate("g", relu());
  EXPECT_FALSE(structuralEqual(*m1, *m3));
  EXPECT_EQ(explainStructuralDifference(*m1, *m3),
            "function @g is missing on the left");
  EXPECT_EQ(explainStructuralDifference(*m3, *m1),
            "function @g is missing on the right");

  Ref<IRModule> m4 = m2->shallowCopy();
  Ref<Var> x = Var::get("x");
  m4->addOrUpdate("f", Function::get({x}, call("negative", {x})));
  EXPECT_FALSE(structuralEqual(*m1, *m4));
  EXPECT_NE(structuralHash(*m1), structuralHash(*m4));
  EXPECT_EQ(explainStructuralDifference(*m1, *m4),
            "@f: operators differ: nn.relu vs negative");

  Ref<IRModule> m5 = m2->shallowCopy();
  m5->setAttrs(
      DictAttrs::get({{"executor", AttrValue::string("graph"), SMLoc()}}));
  EXPECT_FALSE(structuralEqual(*m1, *m5));
  EXPECT_EQ(explainStructuralDifference(*m1, *m5),
            "module attributes differ: none vs DictAttrs");
  m1->setAttrs(DictAttrs::get({}));
  EXPECT_TRUE(structuralEqual(*m1, *m2));
}

} // namespace
