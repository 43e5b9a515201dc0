//===- TraversalTest.cpp - Tests of the child enumeration and walks -------===//
//
/// \file
/// forEachChild's order and roles for every node kind, the indexed accessors,
/// walk() (orders, sharing, skip, interrupt, depth), and rebuildWithChildren()
/// with its rule for keeping checked types.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Traversal.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/TypeRelation.h"
#include "nnir/Ops/Ops.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace nnir;

namespace {

class TraversalTest : public ::testing::Test {
protected:
  void SetUp() override { registerAllOps(); }

  static Ref<Call> call(StringRef name, ArrayRef<Ref<Expr>> args,
                        Ref<Type> type = nullptr) {
    return Call::get(Op::lookup(name), args, nullptr, {}, std::move(type));
  }
  static Ref<Constant> scalar(double value) {
    return Constant::getScalar(DataType::float32(), value);
  }
  static Ref<Type> f32() { return TensorType::getScalar(DataType::float32()); }
  static Ref<Type> i32() { return TensorType::getScalar(DataType::int32()); }
};

/// "role:kind" of every child of \p e, from forEachChild.
std::vector<std::string> describeChildren(const Expr *e) {
  std::vector<std::string> out;
  forEachChild(e, [&](Expr *child, ChildRole role) {
    out.push_back((getChildRoleName(role) + ":" +
                   (child ? Expr::getKindName(child->getKind()) : "null"))
                      .str());
  });
  return out;
}

using Strings = std::vector<std::string>;

TEST_F(TraversalTest, ChildrenOfEveryKind) {
  Ref<Var> x = Var::get("x"), y = Var::get("y");
  Ref<Call> add = call("add", {x, scalar(1)});
  EXPECT_EQ(describeChildren(add.get()),
            (Strings{"callee:Op", "argument:Var", "argument:Constant"}));
  Ref<Tuple> tuple = Tuple::get({x, add});
  EXPECT_EQ(describeChildren(tuple.get()), (Strings{"field:Var", "field:Call"}));
  Ref<TupleGetItem> item = TupleGetItem::get(tuple, 1);
  EXPECT_EQ(describeChildren(item.get()), (Strings{"operand:Tuple"}));
  Ref<Let> let = Let::get(y, add, y);
  EXPECT_EQ(describeChildren(let.get()),
            (Strings{"variable:Var", "value:Call", "body:Var"}));
  Ref<If> ifExpr = If::get(x, add, y);
  EXPECT_EQ(describeChildren(ifExpr.get()),
            (Strings{"condition:Var", "then branch:Call", "else branch:Var"}));
  Ref<Function> func = Function::get({x, y}, let);
  EXPECT_EQ(describeChildren(func.get()),
            (Strings{"parameter:Var", "parameter:Var", "body:Let"}));
  Ref<Expr> leaves[] = {x, scalar(2), Op::lookup("add"), GlobalVar::get("main")};
  for (const Ref<Expr> &leaf : leaves)
    EXPECT_TRUE(describeChildren(leaf.get()).empty());

  // Ill-formed IR: a null child is passed on.
  Ref<Tuple> holey = Tuple::get({x, nullptr});
  EXPECT_EQ(describeChildren(holey.get()), (Strings{"field:Var", "field:null"}));

  EXPECT_TRUE(isBinder(ChildRole::LetVar));
  EXPECT_TRUE(isBinder(ChildRole::Param));
  EXPECT_FALSE(isBinder(ChildRole::LetValue));
  EXPECT_TRUE(isDataflowNode(add.get()));
  EXPECT_TRUE(isDataflowNode(item.get()));
  EXPECT_FALSE(isDataflowNode(let.get()));
}

TEST_F(TraversalTest, IndexedAccessAgreesWithForEachChild) {
  Ref<Var> x = Var::get("x"), y = Var::get("y");
  Ref<Call> add = call("add", {x, y});
  Ref<Expr> nodes[] = {add,
                       Tuple::get({x, y, add}),
                       TupleGetItem::get(Tuple::get({x}), 0),
                       Let::get(y, add, y),
                       If::get(x, add, y),
                       Function::get({x, y}, add),
                       x};
  for (const Ref<Expr> &node : nodes) {
    SmallVector<Child, 4> children = getChildren(node.get());
    ASSERT_EQ(getNumChildren(node.get()), children.size());
    for (unsigned i = 0; i != children.size(); ++i) {
      EXPECT_EQ(getChild(node.get(), i), children[i].expr);
      EXPECT_EQ(getChildRole(node.get(), i), children[i].role);
    }
  }
}

TEST_F(TraversalTest, WalkOrdersSharingSkipAndInterrupt) {
  // (x + x) * (x + x) with the sum shared.
  Ref<Var> x = Var::get("x");
  Ref<Call> sum = call("add", {x, x});
  Ref<Call> product = call("multiply", {sum, sum});

  std::vector<const Expr *> post;
  walk(product.get(), [&](Expr *e) { post.push_back(e); });
  std::vector<const Expr *> expected = {Op::lookup("multiply"),
                                        Op::lookup("add"), x.get(), sum.get(),
                                        product.get()};
  EXPECT_EQ(post, expected);

  std::vector<const Expr *> pre;
  walk(
      product.get(), [&](Expr *e) { pre.push_back(e); }, WalkOrder::PreOrder);
  expected = {product.get(), Op::lookup("multiply"), sum.get(),
              Op::lookup("add"), x.get()};
  EXPECT_EQ(pre, expected);

  // skip(): the children of the sum are not visited.
  std::vector<const Expr *> skipped;
  walk(
      product.get(),
      [&](Expr *e) {
        skipped.push_back(e);
        return e == sum.get() ? WalkResult::skip() : WalkResult::advance();
      },
      WalkOrder::PreOrder);
  expected = {product.get(), Op::lookup("multiply"), sum.get()};
  EXPECT_EQ(skipped, expected);

  // interrupt(): the walk stops at once and says so.
  unsigned calls = 0;
  WalkResult result = walk(product.get(), [&](Expr *e) {
    ++calls;
    return isa<Var>(e) ? WalkResult::interrupt() : WalkResult::advance();
  });
  EXPECT_TRUE(result.wasInterrupted());
  EXPECT_EQ(calls, 3u);
  EXPECT_FALSE(walk(product.get(), [](Expr *) {
                 return WalkResult::advance();
               }).wasInterrupted());

  // Binders are visited; null children are skipped.
  Ref<Var> y = Var::get("y");
  Ref<Function> func = Function::get({y}, Tuple::get({y, nullptr}));
  unsigned vars = 0, nodes = 0;
  walk(func.get(), [&](Expr *e) {
    ++nodes;
    vars += isa<Var>(e);
  });
  EXPECT_EQ(vars, 1u);
  EXPECT_EQ(nodes, 3u);
}

TEST_F(TraversalTest, WalkDoesNotRecurseAlongDataflowEdges) {
  // 1,000,000 nested calls: a recursive walk would overflow the stack.
  Ref<Expr> chain = Var::get("x");
  for (unsigned i = 0; i != 1000000; ++i)
    chain = call("negative", {chain});
  unsigned calls = 0;
  walk(chain.get(), [&](Expr *e) { calls += isa<Call>(e); });
  EXPECT_EQ(calls, 1000000u);
  unsigned preCalls = 0;
  walk(
      chain.get(), [&](Expr *e) { preCalls += isa<Call>(e); },
      WalkOrder::PreOrder);
  EXPECT_EQ(preCalls, 1000000u);
}

TEST_F(TraversalTest, RebuildKeepsNodeLocalFields) {
  Ref<Var> x = Var::get("x"), y = Var::get("y"), z = Var::get("z");
  Ref<Attrs> attrs = Op::lookup("nn.softmax")->getDefaultAttrs();
  Ref<Call> softmax = Call::get(Op::lookup("nn.softmax"), {x}, attrs);
  Ref<Expr> rebuiltExpr = rebuildWithChildren(
      softmax.get(), {Ref<Expr>(Op::lookup("nn.softmax")), y});
  auto *rebuilt = cast<Call>(rebuiltExpr.get());
  EXPECT_NE(rebuilt, softmax.get());
  EXPECT_EQ(rebuilt->getAttrs(), attrs);
  EXPECT_EQ(rebuilt->getArg(0), Ref<Expr>(y));

  Ref<Expr> item =
      rebuildWithChildren(TupleGetItem::get(x, 3).get(), {Ref<Expr>(y)});
  EXPECT_EQ(cast<TupleGetItem>(item.get())->getIndex(), 3u);

  Ref<Function> func = Function::get({x}, x, f32());
  Ref<Expr> newFuncExpr = rebuildWithChildren(func.get(), {z, z});
  auto *newFunc = cast<Function>(newFuncExpr.get());
  EXPECT_EQ(newFunc->getParam(0), z);
  EXPECT_EQ(newFunc->getBody(), Ref<Expr>(z));
  EXPECT_EQ(newFunc->getRetType(), func->getRetType());

  Ref<Expr> let = rebuildWithChildren(Let::get(x, y, x).get(), {z, y, z});
  EXPECT_EQ(cast<Let>(let.get())->getVar(), z);

  // Leaves are returned as they are.
  EXPECT_EQ(rebuildWithChildren(x.get(), {}).get(), x.get());
}

TEST_F(TraversalTest, RebuildKeepsTheCheckedTypeOnlyWhenItStillHolds) {
  Ref<Var> a = Var::get("a", f32()), b = Var::get("b", f32());
  Ref<Var> c = Var::get("c", i32()), untyped = Var::get("u");
  Ref<Expr> op = Op::lookup("add");
  Ref<Call> add = call("add", {a, a}, f32());

  // Same operand types: the type is kept.
  Ref<Expr> same = rebuildWithChildren(add.get(), {op, a, b});
  EXPECT_EQ(same->getCheckedType(), add->getCheckedType());
  // A child of another type, or without one: dropped.
  EXPECT_FALSE(rebuildWithChildren(add.get(), {op, a, c})->getCheckedType());
  EXPECT_FALSE(
      rebuildWithChildren(add.get(), {op, untyped, a})->getCheckedType());
  // A node that was not typed stays untyped.
  Ref<Call> untypedAdd = call("add", {a, a});
  EXPECT_FALSE(
      rebuildWithChildren(untypedAdd.get(), {op, b, b})->getCheckedType());

  // A tuple and an if follow their children too.
  Ref<Tuple> tuple = Tuple::get({a}, {}, TupleType::get({f32()}));
  EXPECT_TRUE(rebuildWithChildren(tuple.get(), {b})->getCheckedType());
  EXPECT_FALSE(rebuildWithChildren(tuple.get(), {c})->getCheckedType());

  // arange's type is read from its arguments' values: replacing 1f by 2f
  // (both float32 scalars) must drop it.
  Ref<Expr> arangeOp = Op::lookup("arange");
  Ref<Constant> zero = scalar(0), one = scalar(1), two = scalar(2);
  Ref<Call> arange =
      call("arange", {zero, one, one}, TensorType::get({1}, DataType::float32()));
  EXPECT_TRUE(typeDependsOnArgValues(Op::lookup("arange")));
  EXPECT_FALSE(typeDependsOnArgValues(Op::lookup("add")));
  EXPECT_FALSE(rebuildWithChildren(arange.get(), {arangeOp, zero, two, one})
                   ->getCheckedType());
  EXPECT_EQ(getPreservedType(arange.get(), {arangeOp, zero, two, one}),
            nullptr);
  // Unchanged arguments keep it.
  EXPECT_EQ(getPreservedType(arange.get(), {arangeOp, zero, one, one}),
            arange->getCheckedType());
}

} // namespace
