//===- FunctorTest.cpp - Tests of ExprFunctor, ExprVisitor, ExprMutator ---===//
//
/// \file
/// Dispatch, visit order, memoisation, identity preservation of the mutator,
/// rewrite hooks, let chains and consistent variable substitution.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/ExprFunctor.h"
#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/ExprVisitor.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/StructuralEqual.h"
#include "nnir/Ops/Ops.h"

#include "gtest/gtest.h"

#include <map>
#include <string>
#include <vector>

using namespace llvm;
using namespace nnir;

namespace {

class FunctorTest : public ::testing::Test {
protected:
  void SetUp() override { registerAllOps(); }

  static Op *op(StringRef name) { return Op::lookup(name); }
  static Ref<Call> call(StringRef name, ArrayRef<Ref<Expr>> args) {
    return Call::get(Op::lookup(name), args);
  }
  static Ref<Constant> scalar(double value) {
    return Constant::getScalar(DataType::float32(), value);
  }
};

/// A short name of a node for order checks: op names, var names, constant
/// values, and the kind for the rest (a call prints its op's name).
std::string label(const Expr *e) {
  if (auto *o = dyn_cast<Op>(e))
    return o->getName().str();
  if (auto *v = dyn_cast<Var>(e))
    return ("%" + v->getNameHint()).str();
  if (auto *c = dyn_cast<Constant>(e))
    return std::to_string(static_cast<int>(c->getData().getElementAsDouble(0)));
  if (auto *g = dyn_cast<GlobalVar>(e))
    return ("@" + g->getName()).str();
  if (auto *c = dyn_cast<Call>(e))
    if (Op *o = c->getCalledOp())
      return (o->getName() + "()").str();
  return Expr::getKindName(e->getKind()).str();
}

/// Records every node in the order it is dispatched, then continues.
struct OrderRecorder : ExprVisitor {
  std::vector<std::string> order;
  void visitConstant(Constant *e) override { order.push_back(label(e)); }
  void visitVar(Var *e) override { order.push_back(label(e)); }
  void visitGlobalVar(GlobalVar *e) override { order.push_back(label(e)); }
  void visitOp(Op *e) override { order.push_back(label(e)); }
  void visitCall(Call *e) override {
    ExprVisitor::visitCall(e);
    order.push_back(label(e));
  }
  void visitTuple(Tuple *e) override {
    ExprVisitor::visitTuple(e);
    order.push_back(label(e));
  }
  void visitTupleGetItem(TupleGetItem *e) override {
    ExprVisitor::visitTupleGetItem(e);
    order.push_back(label(e));
  }
  void visitLet(Let *e) override {
    order.push_back("let " + label(e->getVar().get()));
    ExprVisitor::visitLet(e);
  }
  void visitIf(If *e) override {
    order.push_back("if");
    ExprVisitor::visitIf(e);
  }
  void visitFunction(Function *e) override {
    order.push_back("fn");
    ExprVisitor::visitFunction(e);
  }
};

//===----------------------------------------------------------------------===//
// ExprFunctor
//===----------------------------------------------------------------------===//

/// Returns a number per kind and passes an extra argument through.
struct KindNumber : ExprFunctor<int(Expr *, int)> {
  int visitCall(Call *, int bias) override { return 100 + bias; }
  int visitVar(Var *, int bias) override { return 200 + bias; }
  int visitExprDefault(Expr *, int bias) override { return -bias; }
};

TEST_F(FunctorTest, FunctorDispatchesOnKind) {
  KindNumber f;
  Ref<Var> x = Var::get("x");
  EXPECT_EQ(f.visit(call("nn.relu", {x}).get(), 1), 101);
  EXPECT_EQ(f.visit(x.get(), 2), 202);
  // Kinds without an override go to visitExprDefault.
  EXPECT_EQ(f.visit(scalar(1).get(), 3), -3);
  EXPECT_EQ(f.visit(Tuple::get({x}).get(), 4), -4);
  EXPECT_EQ(f.visit(Function::get({x}, x).get(), 5), -5);
  EXPECT_EQ(f.visit(op("add"), 6), -6);
}

/// Every per-kind method is reachable.
struct KindName : ExprFunctor<std::string(Expr *)> {
  std::string visitConstant(Constant *) override { return "Constant"; }
  std::string visitVar(Var *) override { return "Var"; }
  std::string visitGlobalVar(GlobalVar *) override { return "GlobalVar"; }
  std::string visitOp(Op *) override { return "Op"; }
  std::string visitCall(Call *) override { return "Call"; }
  std::string visitTuple(Tuple *) override { return "Tuple"; }
  std::string visitTupleGetItem(TupleGetItem *) override {
    return "TupleGetItem";
  }
  std::string visitLet(Let *) override { return "Let"; }
  std::string visitIf(If *) override { return "If"; }
  std::string visitFunction(Function *) override { return "Function"; }
};

TEST_F(FunctorTest, EveryKindHasItsMethod) {
  Ref<Var> x = Var::get("x");
  Ref<Expr> nodes[] = {scalar(1),
                       x,
                       GlobalVar::get("g"),
                       Ref<Expr>(op("add")),
                       call("nn.relu", {x}),
                       Tuple::get({x}),
                       TupleGetItem::get(Tuple::get({x}), 0),
                       Let::get(Var::get("t"), x, x),
                       If::get(x, x, x),
                       Function::get({}, x)};
  KindName f;
  for (const Ref<Expr> &node : nodes)
    EXPECT_EQ(f.visit(node.get()), Expr::getKindName(node->getKind()));
}

/// A void functor with two extra arguments, one of them by reference.
struct DepthSum : ExprFunctor<void(Expr *, int, int &)> {
  void visitCall(Call *call, int depth, int &sum) override {
    sum += depth;
    for (const Ref<Expr> &arg : call->getArgs())
      visit(arg.get(), depth + 1, sum);
  }
};

TEST_F(FunctorTest, ExtraArgumentsAreForwarded) {
  Ref<Var> x = Var::get("x");
  Ref<Expr> e = call("add", {call("nn.relu", {x}), call("negative", {x})});
  DepthSum f;
  int sum = 0;
  f.visit(e.get(), 1, sum);
  EXPECT_EQ(sum, 1 + 2 + 2);
}

//===----------------------------------------------------------------------===//
// ExprVisitor
//===----------------------------------------------------------------------===//

TEST_F(FunctorTest, VisitorIsPostOrderAlongDataflow) {
  Ref<Var> x = Var::get("x");
  // add(multiply(%x, 2), nn.relu(%x))
  Ref<Expr> e =
      call("add", {call("multiply", {x, scalar(2)}), call("nn.relu", {x})});
  OrderRecorder v;
  v.visit(e.get());
  std::vector<std::string> expected = {"add",       "multiply",   "%x",
                                       "2",         "multiply()", "nn.relu",
                                       "nn.relu()", "add()"};
  EXPECT_EQ(v.order, expected);
}

TEST_F(FunctorTest, VisitorVisitsSharedNodesOnce) {
  Ref<Var> x = Var::get("x");
  Ref<Expr> shared = call("exp", {x});
  // A diamond: both operands use the same node.
  Ref<Expr> e =
      call("add", {call("nn.relu", {shared}), call("negative", {shared})});
  struct CountCalls : ExprVisitor {
    std::map<std::string, int> counts;
    void visitCall(Call *call) override {
      ++counts[label(call)];
      ExprVisitor::visitCall(call);
    }
    void visitVar(Var *var) override { ++counts[label(var)]; }
  } v;
  v.visit(e.get());
  EXPECT_EQ(v.counts["exp()"], 1);
  EXPECT_EQ(v.counts["%x"], 1);
  EXPECT_EQ(v.counts["add()"], 1);
  EXPECT_TRUE(v.isVisited(shared.get()));
  // Visiting again is a no-op.
  v.visit(e.get());
  EXPECT_EQ(v.counts["add()"], 1);
}

TEST_F(FunctorTest, VisitorVisitsDataflowChildrenEvenWithoutTheBase) {
  // An override of visitCall that does not call the base still sees the
  // children visited first (the dataflow expansion), as in Relay's
  // MixedModeVisitor.
  struct NoBase : OrderRecorder {
    void visitCall(Call *e) override { order.push_back(label(e)); }
  } v;
  Ref<Var> x = Var::get("x");
  v.visit(call("nn.relu", {x}).get());
  std::vector<std::string> expected = {"nn.relu", "%x", "nn.relu()"};
  EXPECT_EQ(v.order, expected);
}

TEST_F(FunctorTest, VisitorOrderOfLetsTuplesFunctionsAndIfs) {
  Ref<Var> x = Var::get("x"), t = Var::get("t"), c = Var::get("c");
  // fn (%x, %c) { let %t = (%x, 1); if (%c) { %t.0 } else { %x } }
  Ref<Expr> body = Let::get(t, Tuple::get({x, scalar(1)}),
                            If::get(c, TupleGetItem::get(t, 0), x));
  Ref<Function> f = Function::get({x, c}, body);
  OrderRecorder v;
  v.visit(f.get());
  std::vector<std::string> expected = {"fn", "%x",    "%c", "let %t",      "%t",
                                       "1",  "Tuple", "if", "TupleGetItem"};
  EXPECT_EQ(v.order, expected);
}

TEST_F(FunctorTest, VisitorSeesEveryLetOfAChain) {
  Ref<Var> x = Var::get("x");
  Ref<Expr> body = x;
  std::vector<Ref<Var>> vars;
  for (int i = 0; i != 5; ++i)
    vars.push_back(Var::get("v" + std::to_string(i)));
  for (int i = 4; i >= 0; --i)
    body = Let::get(vars[i], call("negative", {x}), body);
  OrderRecorder v;
  v.visit(body.get());
  std::vector<std::string> expected = {
      "let %v0", "%v0",        "negative", "%x",  "negative()", "let %v1",
      "%v1",     "negative()", "let %v2",  "%v2", "negative()", "let %v3",
      "%v3",     "negative()", "let %v4",  "%v4", "negative()"};
  EXPECT_EQ(v.order, expected);
}

TEST_F(FunctorTest, VisitorLetOverrideWithoutBasePrunesTheBody) {
  struct StopAtSecondLet : ExprVisitor {
    int lets = 0;
    std::vector<std::string> vars;
    void visitLet(Let *let) override {
      if (++lets == 2)
        return;
      ExprVisitor::visitLet(let);
    }
    void visitVar(Var *var) override { vars.push_back(label(var)); }
  } v;
  Ref<Var> a = Var::get("a"), b = Var::get("b"), c = Var::get("c");
  Ref<Expr> e =
      Let::get(a, scalar(1), Let::get(b, scalar(2), Let::get(c, scalar(3), c)));
  v.visit(e.get());
  EXPECT_EQ(v.lets, 2);
  EXPECT_EQ(v.vars, std::vector<std::string>({"%a"}));
}

TEST_F(FunctorTest, VisitorDoesNotVisitTypes) {
  // Types are not expressions; a visitor sees only the expression graph,
  // and a null body or retType does not upset it.
  Ref<Var> x = Var::get("x", TensorType::get({2}, DataType::float32()));
  OrderRecorder v;
  v.visit(
      Function::get({x}, x, TensorType::get({2}, DataType::float32())).get());
  EXPECT_EQ(v.order, std::vector<std::string>({"fn", "%x"}));
  v.visit(static_cast<Expr *>(nullptr));
}

//===----------------------------------------------------------------------===//
// ExprMutator
//===----------------------------------------------------------------------===//

/// Rewrites add into multiply and counts the hook calls.
struct AddToMultiply : ExprMutator {
  int calls = 0, unchanged = 0;
  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    ++calls;
    if (pre == post)
      ++unchanged;
    if (post->getCalledOp() != Op::lookup("add"))
      return post;
    return Call::get(Op::lookup("multiply"), post->getArgs(), post->getAttrs(),
                     post->getLoc());
  }
};

TEST_F(FunctorTest, MutatorReturnsTheSameNodeWhenNothingChanges) {
  Ref<Var> x = Var::get("x"), t = Var::get("t"), c = Var::get("c");
  Ref<Expr> body =
      Let::get(t, Tuple::get({x, call("nn.relu", {x})}),
               If::get(c, TupleGetItem::get(t, 1), call("negative", {x})));
  Ref<Function> f = Function::get({x, c}, body);
  ExprMutator identity;
  Ref<Expr> result = identity.mutate(f.get());
  EXPECT_EQ(result.get(), f.get());

  AddToMultiply noAdds;
  EXPECT_EQ(noAdds.mutate(f.get()).get(), f.get());
  EXPECT_EQ(noAdds.calls, 2);
  EXPECT_EQ(noAdds.unchanged, 2);
}

TEST_F(FunctorTest, MutatorRebuildsOnlyThePathToAChange) {
  Ref<Var> x = Var::get("x");
  Ref<Expr> untouched = call("nn.relu", {x});
  Ref<Expr> changed = call("add", {x, x});
  Ref<Tuple> root = Tuple::get({untouched, call("exp", {changed})});
  AddToMultiply m;
  Ref<Expr> result = m.mutate(root.get());
  ASSERT_NE(result.get(), root.get());
  auto *tuple = cast<Tuple>(result.get());
  // The unchanged operand is shared, the changed path is new.
  EXPECT_EQ(tuple->getField(0), untouched);
  auto *exp = cast<Call>(tuple->getField(1).get());
  EXPECT_NE(exp, root->getField(1).get());
  EXPECT_EQ(exp->getCalledOp(), op("exp"));
  EXPECT_EQ(cast<Call>(exp->getArg(0).get())->getCalledOp(), op("multiply"));
  EXPECT_EQ(cast<Call>(exp->getArg(0).get())->getArg(0), x);
}

TEST_F(FunctorTest, MutatorKeepsSharing) {
  Ref<Var> x = Var::get("x");
  Ref<Expr> shared = call("add", {x, x});
  Ref<Expr> root =
      call("multiply", {call("nn.relu", {shared}), call("negative", {shared})});
  AddToMultiply m;
  Ref<Expr> result = m.mutate(root.get());
  auto *mul = cast<Call>(result.get());
  Expr *left = cast<Call>(mul->getArg(0).get())->getArg(0).get();
  Expr *right = cast<Call>(mul->getArg(1).get())->getArg(0).get();
  EXPECT_EQ(left, right);
  EXPECT_EQ(cast<Call>(left)->getCalledOp(), op("multiply"));
  // One hook call per distinct call node: add, relu, negative, multiply.
  EXPECT_EQ(m.calls, 4);
}

// add becomes an untyped multiply: every node above it loses its stale type.
TEST_F(FunctorTest, RebuiltNodesKeepLocationAndAttrsButDropAStaleType) {
  const char text[] = "nn.softmax(add(%x, %x), axis=0)";
  SMLoc loc = SMLoc::getFromPointer(text);
  Ref<Type> type = TensorType::get({4}, DataType::float32());
  Ref<Var> x = Var::get("x", type);
  Expected<Ref<Attrs>> attrs =
      op("nn.softmax")->createAttrs({{"axis", AttrValue::integer(0), SMLoc()}});
  ASSERT_TRUE(bool(attrs));
  Ref<Call> add = Call::get(op("add"), {x, x}, nullptr, loc, type);
  Ref<Call> softmax = Call::get(op("nn.softmax"), {add}, *attrs, loc, type);
  Ref<Tuple> tuple = Tuple::get({softmax}, loc, TupleType::get({type}));
  AddToMultiply m;
  Ref<Expr> result = m.mutate(tuple.get());
  auto *newTuple = cast<Tuple>(result.get());
  EXPECT_EQ(newTuple->getLoc(), loc);
  EXPECT_FALSE(newTuple->getCheckedType());
  auto *newSoftmax = cast<Call>(newTuple->getField(0).get());
  EXPECT_NE(newSoftmax, softmax.get());
  EXPECT_EQ(newSoftmax->getLoc(), loc);
  EXPECT_EQ(newSoftmax->getAttrs(), softmax->getAttrs());
  EXPECT_FALSE(newSoftmax->getCheckedType());
  // The var was not rebuilt and keeps its type.
  EXPECT_EQ(cast<Call>(newSoftmax->getArg(0).get())->getArg(0), x);
  EXPECT_EQ(x->getCheckedType(), type);
}

TEST_F(FunctorTest, MutatorSubstitutesVarsConsistently) {
  Ref<Type> type = TensorType::get({2}, DataType::float32());
  Ref<Var> x = Var::get("x", type), y = Var::get("y", type);
  Ref<Var> t = Var::get("t");
  // fn (%x, %y) { let %t = add(%x, %y); multiply(%t, %x) }
  Ref<Function> f = Function::get(
      {x, y}, Let::get(t, call("add", {x, y}), call("multiply", {t, x})));
  struct Rename : ExprMutator {
    std::map<Var *, Ref<Var>> renamed;
    Ref<Expr> visitVar(Var *var) override {
      Ref<Var> fresh =
          Var::get((var->getNameHint() + "2").str(), var->getTypeAnnotation());
      renamed[var] = fresh;
      return fresh;
    }
  } m;
  Ref<Expr> result = m.mutate(f.get());
  auto *g = cast<Function>(result.get());
  ASSERT_EQ(m.renamed.size(), 3u); // one fresh var per var, not per use
  Var *x2 = m.renamed[x.get()].get(), *y2 = m.renamed[y.get()].get();
  Var *t2 = m.renamed[t.get()].get();
  EXPECT_EQ(g->getParam(0).get(), x2);
  EXPECT_EQ(g->getParam(1).get(), y2);
  auto *let = cast<Let>(g->getBody().get());
  EXPECT_EQ(let->getVar().get(), t2);
  auto *add = cast<Call>(let->getValue().get());
  EXPECT_EQ(add->getArg(0).get(), x2);
  EXPECT_EQ(add->getArg(1).get(), y2);
  auto *mul = cast<Call>(let->getBody().get());
  EXPECT_EQ(mul->getArg(0).get(), t2);
  EXPECT_EQ(mul->getArg(1).get(), x2);
  // Renaming bound variables keeps the function alpha-equivalent.
  EXPECT_TRUE(structuralEqual(f.get(), g));
}

TEST_F(FunctorTest, BinderMappedToANonVarKeepsItsVar) {
  // Substituting a constant for %x replaces the uses; the parameter stays.
  Ref<Var> x = Var::get("x");
  Ref<Function> f = Function::get({x}, call("nn.relu", {x}));
  struct SubstituteX : ExprMutator {
    Var *target;
    Ref<Expr> value;
    Ref<Expr> visitVar(Var *var) override {
      return var == target ? value : Ref<Expr>(var);
    }
  } m;
  m.target = x.get();
  m.value = scalar(3);
  auto *g = cast<Function>(m.mutate(f.get()).get());
  EXPECT_NE(g, f.get());
  EXPECT_EQ(g->getParam(0), x);
  EXPECT_EQ(cast<Call>(g->getBody().get())->getArg(0), m.value);
}

TEST_F(FunctorTest, RewriteHooksSeePreAndPost) {
  Ref<Var> x = Var::get("x");
  Ref<Tuple> inner = Tuple::get({x, scalar(1)});
  Ref<TupleGetItem> item = TupleGetItem::get(inner, 0);
  Ref<Tuple> root = Tuple::get({item, inner});
  struct Hooks : ExprMutator {
    std::vector<std::string> log;
    Ref<Expr> visitConstant(Constant *c) override {
      return Constant::getScalar(DataType::float32(), 5);
    }
    Ref<Expr> rewriteTuple(Tuple *pre, Tuple *post) override {
      log.push_back("tuple" + std::to_string(pre->size()) +
                    (pre == post ? " same" : " new"));
      return post;
    }
    Ref<Expr> rewriteTupleGetItem(TupleGetItem *pre,
                                  TupleGetItem *post) override {
      log.push_back(pre == post ? "item same" : "item new");
      // Fold a projection of a literal tuple.
      if (auto *t = dyn_cast<Tuple>(post->getTuple().get()))
        return t->getField(post->getIndex());
      return post;
    }
  } m;
  Ref<Expr> result = m.mutate(root.get());
  EXPECT_EQ(m.log,
            std::vector<std::string>({"tuple2 new", "item new", "tuple2 new"}));
  auto *t = cast<Tuple>(result.get());
  EXPECT_EQ(t->getField(0), x);
  auto *newInner = cast<Tuple>(t->getField(1).get());
  EXPECT_EQ(newInner->getField(0), x);
  EXPECT_EQ(cast<Constant>(newInner->getField(1).get())
                ->getData()
                .getElementAsDouble(0),
            5.0);
}

TEST_F(FunctorTest, OverridingVisitCallAndCallingTheBase) {
  // The older style: override visitCall and post-process the base result.
  struct CountAndWrap : ExprMutator {
    int seen = 0;
    Ref<Expr> visitCall(Call *call) override {
      ++seen;
      Ref<Expr> post = ExprMutator::visitCall(call);
      if (call->getCalledOp() == Op::lookup("nn.relu"))
        return Call::get(Op::lookup("negative"), {post});
      return post;
    }
  } m;
  Ref<Var> x = Var::get("x");
  Ref<Expr> result = m.mutate(call("exp", {call("nn.relu", {x})}).get());
  EXPECT_EQ(m.seen, 2);
  auto *exp = cast<Call>(result.get());
  auto *neg = cast<Call>(exp->getArg(0).get());
  EXPECT_EQ(neg->getCalledOp(), op("negative"));
  EXPECT_EQ(cast<Call>(neg->getArg(0).get())->getCalledOp(), op("nn.relu"));
}

TEST_F(FunctorTest, LetChainsAreRebuiltBottomUp) {
  Ref<Var> x = Var::get("x");
  std::vector<Ref<Var>> vars;
  for (int i = 0; i != 4; ++i)
    vars.push_back(Var::get("v" + std::to_string(i)));
  Ref<Expr> body = call("add", {vars[3], x});
  for (int i = 3; i >= 0; --i)
    body = Let::get(vars[i], i == 2 ? call("add", {x, x}) : Ref<Expr>(x), body);
  struct LetLog : AddToMultiply {
    std::vector<std::string> lets;
    Ref<Expr> rewriteLet(Let *pre, Let *post) override {
      lets.push_back(label(pre->getVar().get()) +
                     (pre == post ? " same" : " new"));
      return post;
    }
  } m;
  Ref<Expr> result = m.mutate(body.get());
  // Innermost first; %v3 is rebuilt because its body changed, %v2 because
  // its value did, and the outer ones because their bodies did.
  EXPECT_EQ(m.lets, std::vector<std::string>(
                        {"%v3 new", "%v2 new", "%v1 new", "%v0 new"}));
  auto *outer = cast<Let>(result.get());
  EXPECT_EQ(outer->getVar(), vars[0]);

  // A chain that does not change is returned as it is, and every let still
  // reaches the hook once.
  LetLog same;
  Ref<Expr> chain = Let::get(vars[0], x, Let::get(vars[1], x, vars[1]));
  EXPECT_EQ(same.mutate(chain.get()), chain);
  EXPECT_EQ(same.lets, std::vector<std::string>({"%v1 same", "%v0 same"}));
}

TEST_F(FunctorTest, MutatorVisitLetSeesTheHeadOfAChainOnly) {
  // visitLet is dispatched for the outermost let of a chain; the nested lets
  // are handled by its loop and reach rewriteLet. A let that is not in the
  // body position of another (here, a let in a value) starts its own chain.
  struct Log : ExprMutator {
    std::vector<std::string> visited, rewritten;
    Ref<Expr> visitLet(Let *let) override {
      visited.push_back(label(let->getVar().get()));
      return ExprMutator::visitLet(let);
    }
    Ref<Expr> rewriteLet(Let *pre, Let *post) override {
      rewritten.push_back(label(pre->getVar().get()));
      return post;
    }
  } m;
  Ref<Var> a = Var::get("a"), b = Var::get("b"), c = Var::get("c");
  Ref<Var> d = Var::get("d");
  Ref<Expr> e = Let::get(
      a, Let::get(d, scalar(0), d),
      Let::get(b, scalar(1), Let::get(c, scalar(2), call("add", {b, c}))));
  EXPECT_EQ(m.mutate(e.get()), e);
  EXPECT_EQ(m.visited, std::vector<std::string>({"%a", "%d"}));
  EXPECT_EQ(m.rewritten, std::vector<std::string>({"%d", "%c", "%b", "%a"}));
}

TEST_F(FunctorTest, RewritePostOrderSeesEveryNodeOnce) {
  Ref<Var> x = Var::get("x"), t = Var::get("t");
  Ref<Expr> shared = call("add", {x, scalar(1)});
  // fn (%x) { let %t = add(%x, 1); (%t, add(%x, 1)) } with add shared
  Ref<Function> f =
      Function::get({x}, Let::get(t, shared, Tuple::get({t, shared})));
  std::vector<std::string> seen;
  Ref<Expr> result =
      rewritePostOrder(f.get(), [&](Expr *pre, Expr *post) -> Ref<Expr> {
        seen.push_back(label(pre));
        if (auto *c = dyn_cast<Call>(post))
          if (c->getCalledOp() == Op::lookup("add"))
            return Call::get(Op::lookup("subtract"), c->getArgs());
        return post;
      });
  std::vector<std::string> expected = {"%x",    "%t",    "add", "1",
                                       "add()", "Tuple", "Let", "Function"};
  EXPECT_EQ(seen, expected);
  auto *g = cast<Function>(result.get());
  auto *let = cast<Let>(g->getBody().get());
  auto *sub = cast<Call>(let->getValue().get());
  EXPECT_EQ(sub->getCalledOp(), op("subtract"));
  // The rewritten node is shared like the original.
  EXPECT_EQ(cast<Tuple>(let->getBody().get())->getField(1).get(), sub);

  // A rewrite that returns post everywhere is the identity.
  EXPECT_EQ(rewritePostOrder(
                f.get(), [](Expr *, Expr *post) -> Ref<Expr> { return post; }),
            f);
}

TEST_F(FunctorTest, RewritePostOrderPrunesWhereEnterSays) {
  // (negative(add(%x, 1)), add(%x, 1)) with the add shared, every add
  // rewritten to a subtract, and the negative pruned in three ways.
  Ref<Var> x = Var::get("x");
  Ref<Expr> shared = call("add", {x, scalar(1)});
  Ref<Call> neg = call("negative", {shared});
  Ref<Tuple> tuple = Tuple::get({neg, shared});
  std::vector<std::string> seen;
  auto addToSub = [&](Expr *pre, Expr *post) -> Ref<Expr> {
    seen.push_back(label(pre) + (pre == post ? "" : "*"));
    if (auto *c = dyn_cast<Call>(post))
      if (c->getCalledOp() == op("add"))
        return Call::get(op("subtract"), c->getArgs());
    return post;
  };
  auto run = [&](WalkAction onNeg) {
    seen.clear();
    return rewritePostOrder(tuple.get(), addToSub, [&](Expr *e) {
      return e == neg.get() ? onNeg : WalkAction::Descend;
    });
  };

  // SkipChildren: the negative's rewrite sees itself (post == pre), its
  // add is rewritten only as the tuple's second field.
  Ref<Expr> result = run(WalkAction::SkipChildren);
  std::vector<std::string> expected = {"negative()", "add",   "%x",
                                       "1",          "add()", "Tuple*"};
  EXPECT_EQ(seen, expected);
  auto *out = cast<Tuple>(result.get());
  EXPECT_EQ(out->getField(0), neg);
  EXPECT_EQ(cast<Call>(out->getField(1).get())->getCalledOp(),
            op("subtract"));

  // Skip: the negative is kept as it is, without a call of fn.
  result = run(WalkAction::Skip);
  expected = {"add", "%x", "1", "add()", "Tuple*"};
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(cast<Tuple>(result.get())->getField(0), neg);

  // Descend: both uses of the add see its one rewrite.
  result = run(WalkAction::Descend);
  out = cast<Tuple>(result.get());
  auto *newNeg = cast<Call>(out->getField(0).get());
  EXPECT_EQ(newNeg->getArg(0), out->getField(1));
  EXPECT_EQ(seen.size(), 7u);

  // A let chain pruned in the middle: the inner let is kept as a whole.
  Ref<Var> a = Var::get("a"), b = Var::get("b");
  Ref<Let> inner = Let::get(b, call("add", {a, a}), b);
  Ref<Let> outer = Let::get(a, call("add", {x, x}), inner);
  seen.clear();
  result = rewritePostOrder(outer.get(), addToSub, [&](Expr *e) {
    return e == inner.get() ? WalkAction::Skip : WalkAction::Descend;
  });
  auto *let = cast<Let>(result.get());
  EXPECT_EQ(let->getBody(), inner);
  EXPECT_EQ(cast<Call>(let->getValue().get())->getCalledOp(), op("subtract"));
}

TEST_F(FunctorTest, RebuiltNodesKeepTheirTypeWhenTheOperandsKeptTheirs) {
  // fn (%x: float32[4], %c: bool) {
  //   if (%c) { (nn.relu(%x),) } else { (negative(%x),) } }
  // fully typed; renaming %x to a var of the same type keeps every type.
  Ref<Type> t = TensorType::get({4}, DataType::float32());
  Ref<Type> b = TensorType::getScalar(DataType::boolean());
  Ref<Type> tt = TupleType::get({t});
  Ref<Var> x = Var::get("x", t), c = Var::get("c", b);
  Ref<Expr> relu = Call::get(op("nn.relu"), {x}, nullptr, {}, t);
  Ref<Expr> neg = Call::get(op("negative"), {x}, nullptr, {}, t);
  Ref<Expr> ifExpr =
      If::get(c, Tuple::get({relu}, {}, tt), Tuple::get({neg}, {}, tt), {}, tt);
  Ref<Type> fnType = FuncType::get({t, b}, tt);
  Ref<Function> f = Function::get({x, c}, ifExpr, nullptr, nullptr, {}, fnType);
  Ref<Var> y = Var::get("y", t);
  struct Rename : ExprMutator {
    Var *from;
    Ref<Var> to;
    Ref<Expr> visitVar(Var *var) override {
      return var == from ? Ref<Expr>(to) : Ref<Expr>(var);
    }
  } m;
  m.from = x.get();
  m.to = y;
  auto *g = cast<Function>(m.mutate(f.get()).get());
  ASSERT_NE(g, f.get());
  EXPECT_EQ(g->getParam(0), y);
  EXPECT_EQ(g->getCheckedType(), fnType);
  auto *newIf = cast<If>(g->getBody().get());
  EXPECT_NE(newIf, ifExpr.get());
  EXPECT_EQ(newIf->getCheckedType(), tt);
  auto *then = cast<Tuple>(newIf->getThen().get());
  EXPECT_EQ(then->getCheckedType(), tt);
  EXPECT_EQ(then->getField(0)->getCheckedType(), t);
  EXPECT_EQ(cast<Call>(then->getField(0).get())->getArg(0), Ref<Expr>(y));

  // A var of another type: the types above it are stale and dropped, the
  // unrelated condition keeps its own.
  Rename other;
  other.from = x.get();
  other.to = Var::get("z", TensorType::get({5}, DataType::float32()));
  auto *h = cast<Function>(other.mutate(f.get()).get());
  EXPECT_FALSE(h->getCheckedType());
  EXPECT_FALSE(h->getBody()->getCheckedType());
  EXPECT_EQ(cast<If>(h->getBody().get())->getCond()->getCheckedType(), b);
}

TEST_F(FunctorTest, IfAndFunctionHooksSeePreAndPost) {
  Ref<Var> x = Var::get("x"), c = Var::get("c");
  Ref<Function> f = Function::get(
      {x, c}, If::get(c, call("add", {x, x}), call("nn.relu", {x})));
  struct Hooks : AddToMultiply {
    std::vector<std::string> log;
    Ref<Expr> rewriteIf(If *pre, If *post) override {
      log.push_back(pre == post ? "if same" : "if new");
      // Swap the branches of every if.
      return If::get(post->getCond(), post->getElse(), post->getThen());
    }
    Ref<Expr> rewriteFunction(Function *pre, Function *post) override {
      log.push_back(pre == post ? "fn same" : "fn new");
      return post;
    }
  } m;
  auto *g = cast<Function>(m.mutate(f.get()).get());
  EXPECT_EQ(m.log, std::vector<std::string>({"if new", "fn new"}));
  auto *swapped = cast<If>(g->getBody().get());
  EXPECT_EQ(cast<Call>(swapped->getThen().get())->getCalledOp(),
            op("nn.relu"));
  EXPECT_EQ(cast<Call>(swapped->getElse().get())->getCalledOp(),
            op("multiply"));

  // Nothing to rewrite: the hooks see pre == post.
  Hooks same;
  Ref<Function> plain =
      Function::get({x, c}, If::get(c, x, call("nn.relu", {x})));
  same.mutate(plain.get());
  EXPECT_EQ(same.log, std::vector<std::string>({"if same", "fn new"}));
}

TEST_F(FunctorTest, AFailedRewriteStopsAndReturnsTheError) {
  // exp(nn.relu(add(%x, %x))): the hook fails at nn.relu; exp is not seen.
  struct FailAtRelu : ExprMutator {
    std::vector<std::string> seen;
    Ref<Expr> rewriteCall(Call *pre, Call *post) override {
      seen.push_back(label(pre));
      if (pre->getCalledOp() == Op::lookup("nn.relu")) {
        fail(createStringError(inconvertibleErrorCode(), "cannot fold relu"));
        fail(createStringError(inconvertibleErrorCode(), "second error"));
        return post;
      }
      return Call::get(Op::lookup("negative"), post->getArgs());
    }
  } m;
  Ref<Var> x = Var::get("x");
  Ref<Expr> root = call("exp", {call("nn.relu", {call("add", {x, x})})});
  Expected<Ref<Expr>> result = m.mutateOrError(root.get());
  ASSERT_FALSE(bool(result));
  EXPECT_EQ(toString(result.takeError()), "cannot fold relu");
  EXPECT_EQ(m.seen, std::vector<std::string>({"add()", "nn.relu()"}));
  EXPECT_FALSE(m.hasFailed());

  // The mutator can be used again; what it rewrote is remembered.
  m.seen.clear();
  Expected<Ref<Expr>> again = m.mutateOrError(call("exp", {x}).get());
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(cast<Call>(again->get())->getCalledOp(), op("negative"));

  // Inside a let chain and a function body too.
  FailAtRelu inLet;
  Ref<Var> t = Var::get("t");
  Ref<Function> f = Function::get(
      {x}, Let::get(t, call("nn.relu", {x}), call("exp", {t})));
  Expected<Ref<Expr>> fromLet = inLet.mutateOrError(f.get());
  ASSERT_FALSE(bool(fromLet));
  consumeError(fromLet.takeError());
  EXPECT_EQ(inLet.seen, std::vector<std::string>({"nn.relu()"}));
}

TEST_F(FunctorTest, RewritePostOrderOrError) {
  Ref<Var> x = Var::get("x");
  Ref<Expr> root = call("exp", {call("add", {x, x})});
  unsigned calls = 0;
  Expected<Ref<Expr>> failed = rewritePostOrderOrError(
      root.get(), [&](Expr *pre, Expr *post) -> Expected<Ref<Expr>> {
        ++calls;
        if (isa<Call>(post))
          return createStringError(inconvertibleErrorCode(), "no calls");
        return post;
      });
  ASSERT_FALSE(bool(failed));
  EXPECT_EQ(toString(failed.takeError()), "no calls");
  // The operators exp and add, %x, and the add call, which fails: the exp
  // call is not seen.
  EXPECT_EQ(calls, 4u);

  Expected<Ref<Expr>> ok = rewritePostOrderOrError(
      root.get(), [](Expr *, Expr *post) -> Expected<Ref<Expr>> {
        return post;
      });
  ASSERT_TRUE(bool(ok));
  EXPECT_EQ(*ok, root);
}

} // namespace
