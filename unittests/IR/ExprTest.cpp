//===- ExprTest.cpp - Tests of the expression nodes -----------------------===//
//
/// \file
/// Construction of every node kind, LLVM-style RTTI, reference counting and
/// checked types.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Expr.h"
#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"

#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace nnir;

namespace {

class ExprTest : public ::testing::Test {
protected:
  void SetUp() override { registerAllOps(); }

  static Ref<Type> tensor(ArrayRef<int64_t> shape,
                          DataType dtype = DataType::float32()) {
    return TensorType::get(shape, dtype);
  }
};

TEST_F(ExprTest, ConstantHoldsDataAndItsType) {
  Ref<Constant> c = Constant::getScalar(DataType::int32(), 7);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->getKind(), Expr::Kind::Constant);
  EXPECT_TRUE(c->isScalar());
  EXPECT_EQ(c->getData().getElementAsInt(0), 7);
  ASSERT_TRUE(c->getCheckedType());
  EXPECT_TRUE(typesEqual(c->getCheckedType().get(),
                         TensorType::getScalar(DataType::int32()).get()));
  EXPECT_EQ(c->getType(), c->getCheckedType().get());

  Expected<NDArray> array = NDArray::create(DataType::float32(), {2, 3});
  ASSERT_TRUE(bool(array)) << toString(array.takeError());
  Ref<Constant> m = Constant::get(*array);
  EXPECT_FALSE(m->isScalar());
  EXPECT_EQ(m->getType()->getShape(), ArrayRef<int64_t>({2, 3}));
  EXPECT_EQ(m->getType()->getDType(), DataType::float32());
  EXPECT_TRUE(m->getData().sameAs(*array));
}

TEST_F(ExprTest, VarCheckedTypeDefaultsToAnnotation) {
  Ref<Type> t = tensor({1, 4});
  Ref<Var> x = Var::get("x", t);
  EXPECT_EQ(x->getNameHint(), "x");
  EXPECT_EQ(x->getTypeAnnotation(), t);
  EXPECT_EQ(x->getCheckedType(), t);

  Ref<Var> y = Var::get("y");
  EXPECT_FALSE(y->getTypeAnnotation());
  EXPECT_FALSE(y->getCheckedType());

  Ref<Type> checked = tensor({2});
  Ref<Var> z = Var::get("z", t, SMLoc(), checked);
  EXPECT_EQ(z->getTypeAnnotation(), t);
  EXPECT_EQ(z->getCheckedType(), checked);
}

TEST_F(ExprTest, EveryKindHasItsAccessors) {
  Ref<Var> x = Var::get("x", tensor({4}));
  Ref<Var> y = Var::get("y", tensor({4}));
  Op *add = Op::lookup("add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->getKind(), Expr::Kind::Op);
  EXPECT_EQ(add->getName(), "add");

  Ref<Call> call = Call::get(add, {x, y});
  EXPECT_EQ(call->getCallee().get(), add);
  EXPECT_EQ(call->getCalledOp(), add);
  ASSERT_EQ(call->getNumArgs(), 2u);
  EXPECT_EQ(call->getArg(0), x);
  EXPECT_EQ(call->getArg(1), y);
  EXPECT_FALSE(call->getAttrs());

  Ref<Tuple> tuple = Tuple::get({x, call});
  ASSERT_EQ(tuple->size(), 2u);
  EXPECT_EQ(tuple->getField(1), call);
  EXPECT_EQ(Tuple::get({})->size(), 0u);

  Ref<TupleGetItem> item = TupleGetItem::get(tuple, 1);
  EXPECT_EQ(item->getTuple(), tuple);
  EXPECT_EQ(item->getIndex(), 1u);

  Ref<Var> t = Var::get("t");
  Ref<Let> let = Let::get(t, call, Tuple::get({t, t}));
  EXPECT_EQ(let->getVar(), t);
  EXPECT_EQ(let->getValue(), call);
  EXPECT_TRUE(isa<Tuple>(let->getBody().get()));

  Ref<Var> cond = Var::get("c", TensorType::getScalar(DataType::boolean()));
  Ref<If> ifExpr = If::get(cond, x, y);
  EXPECT_EQ(ifExpr->getCond(), cond);
  EXPECT_EQ(ifExpr->getThen(), x);
  EXPECT_EQ(ifExpr->getElse(), y);

  Ref<DictAttrs> attrs =
      DictAttrs::get({{"Primitive", AttrValue::integer(1), SMLoc()}});
  Ref<Function> func = Function::get({x, y}, call, tensor({4}), attrs);
  ASSERT_EQ(func->getNumParams(), 2u);
  EXPECT_EQ(func->getParam(0), x);
  EXPECT_EQ(func->getBody(), call);
  EXPECT_TRUE(typesEqual(func->getRetType().get(), tensor({4}).get()));
  EXPECT_TRUE(func->isPrimitive());
  ASSERT_NE(func->getAttr("Primitive"), nullptr);
  EXPECT_EQ(func->getAttr("Primitive")->getInt(), 1);
  EXPECT_EQ(func->getAttr("Compiler"), nullptr);
  EXPECT_FALSE(Function::get({}, x)->isPrimitive());

  Ref<GlobalVar> g = GlobalVar::get("main");
  EXPECT_EQ(g->getName(), "main");
  Ref<Call> callG = Call::get(g, {x});
  EXPECT_EQ(callG->getCalledOp(), nullptr);
}

TEST_F(ExprTest, RttiFollowsTheKind) {
  Ref<Var> x = Var::get("x");
  Ref<Expr> e = Call::get(Op::lookup("nn.relu"), {x});
  EXPECT_TRUE(isa<Call>(e));
  EXPECT_TRUE(isa<Call>(e.get()));
  EXPECT_FALSE(isa<Tuple>(e.get()));
  EXPECT_EQ(dyn_cast<Tuple>(e.get()), nullptr);
  Call *call = cast<Call>(e.get());
  EXPECT_EQ(call->getArg(0), x);
  EXPECT_TRUE(isa<Op>(call->getCallee().get()));
  EXPECT_TRUE(isa<Var>(x.get()));
  EXPECT_FALSE(isa<GlobalVar>(static_cast<Expr *>(x.get())));
  EXPECT_EQ(dyn_cast_or_null<Var>(static_cast<Expr *>(nullptr)), nullptr);

  Ref<Expr> kinds[] = {Constant::getScalar(DataType::float32(), 1), x,
                       GlobalVar::get("g"), Op::lookup("add"), e};
  EXPECT_TRUE(isa<Constant>(kinds[0]));
  EXPECT_TRUE(isa<Var>(kinds[1]));
  EXPECT_TRUE(isa<GlobalVar>(kinds[2]));
  EXPECT_TRUE(isa<Op>(kinds[3]));
  EXPECT_TRUE(isa<Call>(kinds[4]));
}

TEST_F(ExprTest, KindNames) {
  EXPECT_EQ(Expr::getKindName(Expr::Kind::Constant), "Constant");
  EXPECT_EQ(Expr::getKindName(Expr::Kind::TupleGetItem), "TupleGetItem");
  EXPECT_EQ(Expr::getKindName(Expr::Kind::Function), "Function");
  EXPECT_EQ(Expr::getKindName(Expr::Kind::If), "If");
}

TEST_F(ExprTest, ReferenceCountsTrackOwners) {
  Ref<Var> x = Var::get("x");
  EXPECT_EQ(x->getRefCount(), 1u);
  {
    Ref<Call> a = Call::get(Op::lookup("nn.relu"), {x});
    EXPECT_EQ(x->getRefCount(), 2u);
    Ref<Tuple> t = Tuple::get({x, x, a});
    EXPECT_EQ(x->getRefCount(), 4u);
    EXPECT_EQ(a->getRefCount(), 2u);
    Ref<Expr> copy = t;
    EXPECT_EQ(t->getRefCount(), 2u);
  }
  EXPECT_EQ(x->getRefCount(), 1u);
}

TEST_F(ExprTest, ReleasingTheRootFreesTheGraph) {
  // A node kept alive by the test sees its count drop when the graph that
  // used it goes away, including through several levels of nesting.
  Ref<Var> x = Var::get("x");
  Ref<Expr> root = x;
  for (int i = 0; i != 1000; ++i)
    root = Call::get(Op::lookup("negative"), {root});
  root = Function::get({x}, root);
  EXPECT_EQ(x->getRefCount(), 3u); // x, the first call, the function
  root = nullptr;
  EXPECT_EQ(x->getRefCount(), 1u);
}

TEST_F(ExprTest, CallKeepsAttrsAndCheckedType) {
  Expected<Ref<Attrs>> attrs =
      Op::lookup("nn.conv2d")
          ->createAttrs({{"strides",
                          AttrValue::array(
                              {AttrValue::integer(2), AttrValue::integer(2)}),
                          SMLoc()}});
  ASSERT_TRUE(bool(attrs)) << toString(attrs.takeError());
  Ref<Type> type = tensor({1, 8, 4, 4});
  Ref<Call> call =
      Call::get(Op::lookup("nn.conv2d"), {Var::get("d"), Var::get("w")}, *attrs,
                SMLoc(), type);
  ASSERT_TRUE(call->getAttrs());
  EXPECT_EQ(call->getAttrs()->getTypeKey(), "relay.attrs.Conv2DAttrs");
  auto *conv = static_cast<const Conv2DAttrs *>(call->getAttrs().get());
  EXPECT_EQ(conv->strides, IntList({2, 2}));
  EXPECT_EQ(call->getCheckedType(), type);
}

TEST_F(ExprTest, NodesKeepTheirLocation) {
  SourceMgr sm;
  sm.AddNewSourceBuffer(MemoryBuffer::getMemBuffer("add(%x, %y)"), SMLoc());
  const char *start = sm.getMemoryBuffer(1)->getBufferStart();
  SMLoc loc = SMLoc::getFromPointer(start);
  SMLoc xLoc = SMLoc::getFromPointer(start + 4);
  Ref<Var> x = Var::get("x", nullptr, xLoc);
  Ref<Call> call = Call::get(Op::lookup("add"), {x, x}, nullptr, loc);
  EXPECT_EQ(call->getLoc(), loc);
  EXPECT_EQ(x->getLoc(), xLoc);
  EXPECT_EQ(getLineAndColumn(sm, xLoc), std::make_pair(1u, 5u));
  EXPECT_FALSE(Var::get("y")->getLoc().isValid());
}

TEST_F(ExprTest, CheckedTypesOfEveryKind) {
  Ref<Type> t = tensor({3});
  Ref<Type> tt = TupleType::get({t, t});
  Ref<Var> x = Var::get("x", t);
  EXPECT_EQ(Tuple::get({x, x}, SMLoc(), tt)->getCheckedType(), tt);
  EXPECT_EQ(
      TupleGetItem::get(Tuple::get({x, x}), 0, SMLoc(), t)->getCheckedType(),
      t);
  Ref<Type> ft = FuncType::get({t}, t);
  EXPECT_EQ(Function::get({x}, x, t, nullptr, SMLoc(), ft)->getCheckedType(),
            ft);
  EXPECT_EQ(GlobalVar::get("f", SMLoc(), ft)->getCheckedType(), ft);
  EXPECT_EQ(Let::get(Var::get("v"), x, x, SMLoc(), t)->getCheckedType(), t);
  EXPECT_EQ(If::get(x, x, x, SMLoc(), t)->getCheckedType(), t);
  EXPECT_FALSE(Call::get(Op::lookup("add"), {x, x})->getCheckedType());
  EXPECT_FALSE(Op::lookup("add")->getCheckedType());
}

} // namespace
