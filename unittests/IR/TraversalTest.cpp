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

#include "llvm/ADT/DenseSet.h"

#include "gtest/gtest.h"

#include <algorithm>
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

TEST_F(TraversalTest, PostOrderWalkerEntersBeforeAndExitsAfterTheChildren) {
  // (x + x) * (x + x) with the sum shared: entered and exited once, by its
  // first user.
  Ref<Var> x = Var::get("x");
  Ref<Call> sum = call("add", {x, x});
  Ref<Call> product = call("multiply", {sum, sum});
  Expr *add = Op::lookup("add"), *mul = Op::lookup("multiply");

  std::vector<std::string> events;
  auto name = [&](const Expr *e) -> std::string {
    if (e == product.get())
      return "product";
    if (e == sum.get())
      return "sum";
    if (e == x.get())
      return "x";
    return e == add ? "add" : e == mul ? "mul" : e ? "?" : "null";
  };
  WalkResult result = walkPostOrder(
      product.get(),
      [&](Expr *e, Expr *parent) {
        events.push_back("enter " + name(e) + " from " + name(parent));
        return WalkAction::Descend;
      },
      [&](Expr *e) { events.push_back("exit " + name(e)); });
  EXPECT_FALSE(result.wasInterrupted());
  Strings expected = {"enter product from null",
                      "enter mul from product",
                      "exit mul",
                      "enter sum from product",
                      "enter add from sum",
                      "exit add",
                      "enter x from sum",
                      "exit x",
                      "exit sum",
                      "exit product"};
  EXPECT_EQ(events, expected);

  // Vars at every use (Memo::NodesButVars): x is entered twice, the
  // shared sum still once.
  unsigned xEntered = 0, sumEntered = 0, xExited = 0;
  PostOrderWalker scoped(PostOrderWalker::Memo::NodesButVars);
  scoped.walk(
      product.get(),
      [&](Expr *e) {
        xEntered += e == x.get();
        sumEntered += e == sum.get();
      },
      [&](Expr *e) { xExited += e == x.get(); });
  EXPECT_EQ(xEntered, 2u);
  EXPECT_EQ(xExited, 2u);
  EXPECT_EQ(sumEntered, 1u);

  // The memo outlives walk(): a second root shares what the first walked.
  PostOrderWalker walker;
  std::vector<const Expr *> exited;
  auto record = [&](Expr *e) { exited.push_back(e); };
  walker.walk(sum.get(), nullptr, record);
  EXPECT_TRUE(walker.isVisited(x.get()));
  EXPECT_FALSE(walker.isVisited(product.get()));
  exited.clear();
  walker.walk(product.get(), nullptr, record);
  std::vector<const Expr *> rest = {mul, product.get()};
  EXPECT_EQ(exited, rest);
  walker.clear();
  EXPECT_FALSE(walker.isVisited(x.get()));
}

TEST_F(TraversalTest, PostOrderWalkerPrunesAndInterrupts) {
  // f(g(x), g(x)) where h = g(x) is reached through a pruned node first:
  // tuple(neg(h), h). Pruning neg does not hide h from the tuple.
  Ref<Var> x = Var::get("x");
  Ref<Call> h = call("exp", {x});
  Ref<Call> neg = call("negative", {h});
  Ref<Tuple> tuple = Tuple::get({neg, h});

  std::vector<const Expr *> exited;
  walkPostOrder(
      tuple.get(),
      [&](Expr *e) {
        return e == neg.get() ? WalkAction::SkipChildren
                              : WalkAction::Descend;
      },
      [&](Expr *e) { exited.push_back(e); });
  // neg is exited without its children; h is walked from the tuple.
  std::vector<const Expr *> expected = {neg.get(), Op::lookup("exp"), x.get(),
                                        h.get(), tuple.get()};
  EXPECT_EQ(exited, expected);

  // Skip: neither the children nor the exit.
  exited.clear();
  walkPostOrder(
      tuple.get(),
      [&](Expr *e) {
        return isa<Call>(e) ? WalkAction::Skip : WalkAction::Descend;
      },
      [&](Expr *e) { exited.push_back(e); });
  expected = {tuple.get()};
  EXPECT_EQ(exited, expected);

  // Interrupt from enter: nothing after it is entered or exited.
  unsigned entered = 0;
  exited.clear();
  WalkResult result = walkPostOrder(
      tuple.get(),
      [&](Expr *e) {
        ++entered;
        return isa<Var>(e) ? WalkAction::Interrupt : WalkAction::Descend;
      },
      [&](Expr *e) { exited.push_back(e); });
  EXPECT_TRUE(result.wasInterrupted());
  EXPECT_EQ(entered, 6u); // tuple, neg, negative, h, exp, x
  expected = {Op::lookup("negative"), Op::lookup("exp")};
  EXPECT_EQ(exited, expected);

  // Interrupt from exit.
  unsigned exits = 0;
  result = walkPostOrder(tuple.get(), nullptr, [&](Expr *e) {
    ++exits;
    return e == h.get() ? WalkResult::interrupt() : WalkResult::advance();
  });
  EXPECT_TRUE(result.wasInterrupted());
  EXPECT_EQ(exits, 4u); // negative, exp, x, h

  // A null root is an empty walk.
  EXPECT_FALSE(walkPostOrder(nullptr, nullptr, [&](Expr *) {
                 ADD_FAILURE() << "no node to exit";
               }).wasInterrupted());
}

TEST_F(TraversalTest, PostOrderWalkerFollowsTheChildrenItIsGiven) {
  // A call's arguments before its callee (Relay's evaluation order), and no
  // binders: the children function decides.
  Ref<Var> x = Var::get("x"), y = Var::get("y");
  Ref<Call> sum = call("add", {x, y});
  Ref<Function> func = Function::get({x, y}, sum);
  std::vector<const Expr *> exited;
  walkPostOrder(
      func.get(), nullptr, [&](Expr *e) { exited.push_back(e); },
      [](Expr *e, SmallVectorImpl<Expr *> &children) {
        forEachChild(e, [&](Expr *child, ChildRole role) {
          if (!isBinder(role) && role != ChildRole::Callee)
            children.push_back(child);
        });
        if (auto *c = dyn_cast<Call>(e))
          children.push_back(c->getCallee().get());
      });
  std::vector<const Expr *> expected = {x.get(), y.get(), Op::lookup("add"),
                                        sum.get(), func.get()};
  EXPECT_EQ(exited, expected);

  // Memo::Hooks: the caller's memo decides; enter is asked at every reach
  // until the node is exited.
  Ref<Call> twice = call("multiply", {sum, sum});
  DenseSet<const Expr *> done;
  unsigned asked = 0, exits = 0;
  PostOrderWalker walker(PostOrderWalker::Memo::Hooks);
  walker.walk(
      twice.get(),
      [&](Expr *e) {
        asked += e == sum.get();
        return done.count(e) ? WalkAction::Skip : WalkAction::Descend;
      },
      [&](Expr *e) {
        exits += e == sum.get();
        done.insert(e);
      });
  EXPECT_EQ(asked, 2u);
  EXPECT_EQ(exits, 1u);
  EXPECT_FALSE(walker.isVisited(sum.get()));
}

TEST_F(TraversalTest, PostOrderWalkerWalksAMillionNodeChain) {
  // 1,000,000 nested calls: a recursive walk would overflow the stack.
  Ref<Expr> chain = Var::get("x");
  for (unsigned i = 0; i != 1000000; ++i)
    chain = call("negative", {chain});
  unsigned depth = 0, maxDepth = 0, exits = 0;
  const Expr *first = nullptr;
  walkPostOrder(
      chain.get(),
      [&](Expr *e) {
        if (isa<Call>(e))
          maxDepth = std::max(maxDepth, ++depth);
      },
      [&](Expr *e) {
        if (!first)
          first = e;
        if (isa<Call>(e)) {
          --depth;
          ++exits;
        }
      });
  EXPECT_EQ(maxDepth, 1000000u);
  EXPECT_EQ(exits, 1000000u);
  EXPECT_EQ(depth, 0u);
  EXPECT_EQ(first, Op::lookup("negative")); // the innermost call's callee
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
