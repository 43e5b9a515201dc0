//===- VerifierTest.cpp - Tests of the module verifier --------------------===//
//
/// \file
/// Every error of the verifier, with its message and location, and the
/// well-formed programs it must accept.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Verifier.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace nnir;

namespace {

struct Diag {
  std::string message;
  SMLoc loc;
};

/// The message and location of a DiagnosticError ("" for success).
Diag takeDiag(Error err) {
  Diag diag;
  handleAllErrors(std::move(err), [&](const DiagnosticError &d) {
    diag.message = d.getMessage();
    diag.loc = d.getLoc();
  });
  return diag;
}

class VerifierTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerAllOps();
    // Locations point into this buffer; only their identity matters.
    sm.AddNewSourceBuffer(
        MemoryBuffer::getMemBufferCopy(std::string(200, ' '), "test.nnir"),
        SMLoc());
  }

  /// A distinct location per column of line 1.
  SMLoc loc(unsigned column) {
    return SMLoc::getFromPointer(sm.getMemoryBuffer(1)->getBufferStart() +
                                 column - 1);
  }
  unsigned column(SMLoc l) { return getLineAndColumn(sm, l).second; }

  static Ref<Call> call(StringRef name, ArrayRef<Ref<Expr>> args,
                        Ref<Attrs> attrs = nullptr, SMLoc at = {}) {
    return Call::get(Op::lookup(name), args, std::move(attrs), at);
  }
  static Ref<Type> tensor(ArrayRef<int64_t> shape,
                          DataType dtype = DataType::float32()) {
    return TensorType::get(shape, dtype);
  }
  static Ref<Constant> scalar(double value) {
    return Constant::getScalar(DataType::float32(), value);
  }

  /// Verifies a module whose @main is \p main.
  static Diag verifyMain(Ref<Function> main) {
    Ref<IRModule> module = IRModule::create();
    module->addOrUpdate("main", std::move(main));
    return takeDiag(verifyModule(*module));
  }

  SourceMgr sm;
};

TEST_F(VerifierTest, AcceptsWellFormedPrograms) {
  Ref<Var> x = Var::get("x", tensor({1, 4})), t = Var::get("t");
  Ref<Var> c = Var::get("c", TensorType::getScalar(DataType::boolean()));
  Ref<Var> inner = Var::get("y");
  // A closure using an outer parameter, a let, a tuple, an if, a global.
  Ref<Function> closure = Function::get({inner}, call("add", {inner, x}));
  Ref<Function> main = Function::get(
      {x, c}, Let::get(t, Tuple::get({x, Call::get(closure, {x})}),
                       If::get(c, TupleGetItem::get(t, 1),
                               Call::get(GlobalVar::get("helper"), {x}))));
  Ref<Var> h = Var::get("h");
  Ref<IRModule> module = IRModule::create();
  module->addOrUpdate("main", main);
  module->addOrUpdate("helper", Function::get({h}, call("nn.relu", {h})));
  EXPECT_EQ(takeDiag(verifyModule(*module)).message, "");

  // A let binder is in scope in its own value (a recursive closure).
  Ref<Var> f = Var::get("f"), n = Var::get("n");
  Ref<Expr> rec = Let::get(f, Function::get({n}, Call::get(f, {n})), f);
  EXPECT_EQ(takeDiag(verifyExpr(rec.get())).message, "");

  // Variadic operators and typed records.
  Ref<Var> a = Var::get("a");
  EXPECT_EQ(takeDiag(verifyExpr(call("concatenate", {Tuple::get({a, a})},
                                     ConcatenateAttrs::create())
                                    .get(),
                                /*allowFreeVars=*/true))
                .message,
            "");
}

TEST_F(VerifierTest, VariableBoundTwice) {
  Ref<Var> x = Var::get("x");
  Diag diag = verifyMain(Function::get(
      {}, Let::get(x, scalar(1), Let::get(x, scalar(2), x, loc(20)), loc(10))));
  EXPECT_EQ(diag.message, "variable %x is bound more than once");
  EXPECT_EQ(column(diag.loc), 20u);

  Ref<Var> p = Var::get("p");
  Diag params = verifyMain(
      Function::get({p, p}, call("add", {p, p}), nullptr, nullptr, loc(3)));
  EXPECT_EQ(params.message, "variable %p is bound more than once");
  EXPECT_EQ(column(params.loc), 3u);

  // A parameter rebound by a let in the body.
  Diag rebound = verifyMain(Function::get(
      {p}, Let::get(p, scalar(1), p, loc(30)), nullptr, nullptr, loc(3)));
  EXPECT_EQ(rebound.message, "variable %p is bound more than once");
  EXPECT_EQ(column(rebound.loc), 30u);
}

TEST_F(VerifierTest, FreeVariableInAGlobalFunction) {
  Ref<Var> x = Var::get("x");
  Diag diag = verifyMain(Function::get(
      {}, call("nn.relu", {x}, nullptr, loc(7)), nullptr, nullptr, loc(1)));
  EXPECT_EQ(diag.message, "free variable %x in @main");
  EXPECT_EQ(column(diag.loc), 7u); // the use

  // Without a location on the user, the variable's own, then the function's.
  Ref<Var> y = Var::get("y", nullptr, loc(12));
  Diag atVar = verifyMain(Function::get({}, call("nn.relu", {y})));
  EXPECT_EQ(column(atVar.loc), 12u);
  Diag atFunc = verifyMain(
      Function::get({}, call("nn.relu", {x}), nullptr, nullptr, loc(2)));
  EXPECT_EQ(column(atFunc.loc), 2u);
}

TEST_F(VerifierTest, StandaloneExpressionsMayAllowFreeVariables) {
  Ref<Var> x = Var::get("x");
  Ref<Expr> e = call("nn.relu", {x});
  EXPECT_EQ(takeDiag(verifyExpr(e.get())).message, "free variable %x");
  EXPECT_EQ(takeDiag(verifyExpr(e.get(), /*allowFreeVars=*/true)).message, "");
  EXPECT_EQ(takeDiag(verifyExpr(x.get(), true)).message, "");
  EXPECT_EQ(takeDiag(verifyExpr(nullptr)).message, "expression is null");
}

TEST_F(VerifierTest, VariableUsedOutsideItsScope) {
  // (let %t = 1; %t, %t): the second %t is outside the let.
  Ref<Var> t = Var::get("t");
  Ref<Expr> e = Tuple::get({Let::get(t, scalar(1), t), t}, loc(5));
  Diag diag = takeDiag(verifyExpr(e.get(), /*allowFreeVars=*/true));
  EXPECT_EQ(diag.message,
            "variable %t is used outside the scope of its binding");
  EXPECT_EQ(column(diag.loc), 5u);

  // The use comes first in walk order, the binder later: still reported as
  // out of scope, not as free.
  Ref<Expr> reversed = Tuple::get({t, Let::get(t, scalar(1), t)}, loc(6));
  EXPECT_EQ(verifyMain(Function::get({}, reversed)).message,
            "variable %t is used outside the scope of its binding");

  // A parameter of an inner function used after it.
  Ref<Var> p = Var::get("p");
  Ref<Expr> leak = Tuple::get({Function::get({p}, p), p});
  EXPECT_EQ(verifyMain(Function::get({}, leak)).message,
            "variable %p is used outside the scope of its binding");
}

TEST_F(VerifierTest, UndefinedGlobal) {
  Ref<Var> x = Var::get("x");
  Diag diag = verifyMain(Function::get(
      {x}, Call::get(GlobalVar::get("g", loc(9)), {x}, nullptr, loc(4))));
  EXPECT_EQ(diag.message, "undefined global @g");
  // Reported at the use (the call), not at the GlobalVar node, which the
  // parser shares among every mention of @g.
  EXPECT_EQ(column(diag.loc), 4u);
  // Standalone expressions have no module to check against.
  EXPECT_EQ(takeDiag(verifyExpr(GlobalVar::get("g").get())).message, "");
}

TEST_F(VerifierTest, OperatorArity) {
  Ref<Var> x = Var::get("x");
  Diag diag =
      verifyMain(Function::get({x}, call("add", {x}, nullptr, loc(15))));
  EXPECT_EQ(diag.message, "add expects 2 arguments, got 1");
  EXPECT_EQ(column(diag.loc), 15u);
  EXPECT_EQ(verifyMain(Function::get({x}, call("nn.relu", {x, x}))).message,
            "nn.relu expects 1 argument, got 2");
}

TEST_F(VerifierTest, OperatorAttributeRecords) {
  Ref<Var> d = Var::get("d"), w = Var::get("w");
  Diag wrong = verifyMain(Function::get(
      {d, w}, call("nn.conv2d", {d, w}, DenseAttrs::create(), loc(8))));
  EXPECT_EQ(wrong.message, "operator 'nn.conv2d' expects attributes of type "
                           "relay.attrs.Conv2DAttrs, got "
                           "relay.attrs.DenseAttrs");
  EXPECT_EQ(column(wrong.loc), 8u);

  Ref<DictAttrs> dict =
      DictAttrs::get({{"strides", AttrValue::integer(1), SMLoc()}});
  EXPECT_EQ(verifyMain(Function::get({d, w}, call("nn.conv2d", {d, w}, dict)))
                .message,
            "operator 'nn.conv2d' expects attributes of type "
            "relay.attrs.Conv2DAttrs, got DictAttrs");

  EXPECT_EQ(verifyMain(Function::get(
                           {d, w}, call("add", {d, w}, Conv2DAttrs::create())))
                .message,
            "operator 'add' takes no attributes, got relay.attrs.Conv2DAttrs");

  // Null means "defaults"; an empty DictAttrs is the same as null.
  EXPECT_EQ(
      verifyMain(Function::get({d, w}, call("nn.conv2d", {d, w}))).message, "");
  EXPECT_EQ(verifyMain(Function::get({d}, call("nn.dense", {d, d}))).message,
            "");
  EXPECT_EQ(
      verifyMain(Function::get({d, w}, call("add", {d, w}, DictAttrs::get({}))))
          .message,
      "");
  EXPECT_EQ(verifyMain(Function::get({d, w}, call("nn.conv2d", {d, w},
                                                  Conv2DAttrs::create())))
                .message,
            "");
}

TEST_F(VerifierTest, FunctionCallArity) {
  Ref<Var> x = Var::get("x"), y = Var::get("y");
  Ref<IRModule> module = IRModule::create();
  module->addOrUpdate("f", Function::get({y}, y));
  module->addOrUpdate("main",
                      Function::get({x}, Call::get(GlobalVar::get("f"), {x, x},
                                                   nullptr, loc(11))));
  Diag diag = takeDiag(verifyModule(*module));
  EXPECT_EQ(diag.message, "@f expects 1 argument, got 2");
  EXPECT_EQ(column(diag.loc), 11u);

  Ref<Var> p = Var::get("p"), q = Var::get("q");
  Ref<Function> literal = Function::get({p, q}, p);
  EXPECT_EQ(verifyMain(Function::get({x}, Call::get(literal, {x}))).message,
            "function expects 2 arguments, got 1");
}

TEST_F(VerifierTest, InvalidTypes) {
  Ref<Var> neg = Var::get("x", tensor({2, -2}), loc(3));
  Diag diag = verifyMain(Function::get({neg}, neg));
  EXPECT_EQ(diag.message, "invalid type annotation of %x: negative dimension "
                          "-2 in tensor shape");
  EXPECT_EQ(column(diag.loc), 3u);

  // A dynamic extent (`?`) is valid in a type.
  Ref<Var> any = Var::get("a", tensor({kAnyDim, 3}));
  EXPECT_EQ(verifyMain(Function::get({any}, any)).message, "");

  Ref<Var> noDtype = Var::get("v", TensorType::get({2}, DataType()));
  EXPECT_EQ(verifyMain(Function::get({noDtype}, noDtype)).message,
            "invalid type annotation of %v: tensor type has no dtype");

  Ref<Var> vec =
      Var::get("v", TensorType::get({2}, DataType(DataType::Float, 32, 4)));
  EXPECT_EQ(verifyMain(Function::get({vec}, vec)).message,
            "invalid type annotation of %v: unsupported dtype 'float32x4'");

  Ref<Var> huge = Var::get("h", tensor({INT64_MAX, 4}));
  EXPECT_EQ(verifyMain(Function::get({huge}, huge)).message,
            "invalid type annotation of %h: tensor shape has more than "
            "2^63-1 elements");

  Ref<Var> tup = Var::get("t", TupleType::get({tensor({1}), tensor({-3})}));
  EXPECT_EQ(verifyMain(Function::get({tup}, tup)).message,
            "invalid type annotation of %t: negative dimension -3 in tensor "
            "shape");

  Ref<Var> x = Var::get("x");
  EXPECT_EQ(verifyMain(Function::get({x}, x, tensor({-2}))).message,
            "invalid return type of function: negative dimension -2 in "
            "tensor shape");

  Diag checked = verifyMain(Function::get(
      {x}, call("nn.relu", {x}, nullptr, loc(6)), nullptr, nullptr));
  EXPECT_EQ(checked.message, "");
  Ref<Expr> badChecked =
      Call::get(Op::lookup("nn.relu"), {x}, nullptr, loc(6), tensor({-5}));
  EXPECT_EQ(verifyMain(Function::get({x}, badChecked)).message,
            "invalid checked type of Call: negative dimension -5 in tensor "
            "shape");
}

TEST_F(VerifierTest, TupleGetItemIndexInRange) {
  Ref<Type> pair = TupleType::get({tensor({1}), tensor({2})});
  Ref<Var> t = Var::get("t", pair);
  Diag diag = verifyMain(Function::get({t}, TupleGetItem::get(t, 2, loc(13))));
  EXPECT_EQ(diag.message, "tuple index 2 out of range for a tuple of 2 fields");
  EXPECT_EQ(column(diag.loc), 13u);
  EXPECT_EQ(verifyMain(Function::get({t}, TupleGetItem::get(t, 1))).message,
            "");

  Ref<Var> x = Var::get("x", tensor({2}));
  EXPECT_EQ(verifyMain(Function::get({x}, TupleGetItem::get(x, 0))).message,
            "tuple index applied to an operand of non-tuple type "
            "Tensor[(2), float32]");
  // Without a type there is nothing to check.
  Ref<Var> u = Var::get("u");
  EXPECT_EQ(verifyMain(Function::get({u}, TupleGetItem::get(u, 7))).message,
            "");
  // The operand's checked type counts, whatever the operand.
  Ref<Expr> typedCall = Call::get(Op::lookup("nn.relu"), {u}, nullptr, SMLoc(),
                                  TupleType::get({tensor({1})}));
  EXPECT_EQ(
      verifyMain(Function::get({u}, TupleGetItem::get(typedCall, 1))).message,
      "tuple index 1 out of range for a tuple of 1 field");
}

TEST_F(VerifierTest, TupleAndFunctionCheckedTypes) {
  Ref<Var> x = Var::get("x", tensor({1}));
  Ref<Type> triple = TupleType::get({tensor({1}), tensor({1}), tensor({1})});
  EXPECT_EQ(verifyMain(Function::get({x}, Tuple::get({x, x}, loc(2), triple)))
                .message,
            "tuple has 2 fields but its checked type has 3");
  EXPECT_EQ(verifyMain(Function::get({x}, Tuple::get({x}, loc(2), tensor({1}))))
                .message,
            "checked type of tuple is not a tuple type: Tensor[(1), float32]");

  Ref<Type> binary = FuncType::get({tensor({1}), tensor({1})}, tensor({1}));
  Diag diag =
      verifyMain(Function::get({x}, x, nullptr, nullptr, loc(4), binary));
  EXPECT_EQ(diag.message,
            "function has 1 parameter but its checked type has 2");
  EXPECT_EQ(column(diag.loc), 4u);
  EXPECT_EQ(
      verifyMain(Function::get({x}, x, nullptr, nullptr, loc(4), tensor({1})))
          .message,
      "checked type of function is not a function type: "
      "Tensor[(1), float32]");
  Ref<Type> unary = FuncType::get({tensor({1})}, tensor({1}));
  EXPECT_EQ(verifyMain(Function::get({x}, x, nullptr, nullptr, loc(4), unary))
                .message,
            "");
}

TEST_F(VerifierTest, NullOperands) {
  Ref<Var> x = Var::get("x");
  EXPECT_EQ(
      verifyMain(Function::get({x}, call("add", {x, nullptr}, nullptr, loc(3))))
          .message,
      "Call has a null argument");
  EXPECT_EQ(verifyMain(Function::get({x}, nullptr)).message,
            "Function has a null body");
}

TEST_F(VerifierTest, FirstErrorInWalkOrderIsReported) {
  Ref<Var> x = Var::get("x"), free = Var::get("free");
  // (add(%x), @undefined, %free): three errors; the first in order wins.
  Ref<Expr> body =
      Tuple::get({call("add", {x}), GlobalVar::get("undefined"), free});
  EXPECT_EQ(verifyMain(Function::get({x}, body)).message,
            "add expects 2 arguments, got 1");
  Ref<Expr> freeFirst = Tuple::get({free, call("add", {x})});
  EXPECT_EQ(verifyMain(Function::get({x}, freeFirst)).message,
            "free variable %free in @main");
}

TEST_F(VerifierTest, EveryFunctionOfTheModuleIsChecked) {
  Ref<Var> x = Var::get("x"), y = Var::get("y");
  Ref<IRModule> module = IRModule::create();
  module->addOrUpdate("good", Function::get({x}, x));
  module->addOrUpdate("bad", Function::get({}, y));
  EXPECT_EQ(takeDiag(verifyModule(*module)).message,
            "free variable %y in @bad");
  // The same function may be shared by two globals.
  Ref<IRModule> shared = IRModule::create();
  Ref<Function> f = Function::get({x}, x);
  shared->addOrUpdate("a", f);
  shared->addOrUpdate("b", f);
  EXPECT_EQ(takeDiag(verifyModule(*shared)).message, "");
}

} // namespace
