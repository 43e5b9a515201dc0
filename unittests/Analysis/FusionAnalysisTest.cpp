//===- FusionAnalysisTest.cpp - Tests of the fusion analyses --------------===//
//
/// \file
/// The dataflow graph (node order, patterns, edges, extern marks), the
/// post-dominator tree (chains, diamonds, extern nodes) and the partition
/// into fusion groups, on small typed programs and on 1,000,000-node graphs
/// (a chain, and a diamond whose two paths are 500,000 nodes apart, which
/// Relay's recursive path check would walk on the call stack).
//
//===----------------------------------------------------------------------===//

#include "nnir/Analysis/DominatorTree.h"
#include "nnir/Analysis/GraphPartitioner.h"
#include "nnir/Analysis/IndexedForwardGraph.h"

#include "nnir/IR/Op.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Parser/Parser.h"
#include "nnir/Transforms/InferType.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>

using namespace llvm;
using namespace nnir;

namespace {

class FusionAnalysisTest : public ::testing::Test {
protected:
  void SetUp() override { registerAllOps(); }

  /// Parses and type-checks \p text; returns @main.
  Ref<Function> parseMain(StringRef text) {
    Expected<Ref<IRModule>> module = parseModule(text, sm, "test.nnir");
    if (!module) {
      ADD_FAILURE() << toString(module.takeError());
      return nullptr;
    }
    Expected<Ref<IRModule>> typed = inferTypes(*module);
    if (!typed) {
      ADD_FAILURE() << toString(typed.takeError());
      return nullptr;
    }
    modules.push_back(*typed);
    return (*typed)->lookup("main");
  }

  /// The graph's debug dump.
  static std::string dump(const IndexedForwardGraph &graph) {
    std::string text;
    raw_string_ostream os(text);
    graph.print(os);
    return text;
  }

  /// The group roots of every node, as "root root ...".
  static std::string groupRoots(GraphPartitioner &partitioner, size_t size) {
    std::string text;
    for (unsigned i = 0; i < size; ++i)
      text += (i ? " " : "") + std::to_string(partitioner.getGroupRoot(i));
    return text;
  }

  SourceMgr sm;
  std::vector<Ref<IRModule>> modules;
};

/// A chain of \p n negative calls on a typed (2)-float32 parameter.
Ref<Function> makeChain(int n) {
  Ref<TensorType> type = TensorType::get({2}, DataType::float32());
  Ref<Var> x = Var::get("x", type);
  Op *negative = Op::lookup("negative");
  Ref<Expr> e = x;
  for (int i = 0; i < n; ++i)
    e = Call::get(negative, {e}, nullptr, {}, type);
  return Function::get({x}, e);
}

//===----------------------------------------------------------------------===//
// IndexedForwardGraph
//===----------------------------------------------------------------------===//

TEST_F(FusionAnalysisTest, GraphOrderPatternsAndEdges) {
  Ref<Function> main = parseMain(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4, 8), float32], %b: Tensor[(8), float32]) {
  %0 = add(%x, %b);
  %1 = add(%0, 1f);
  %2 = sum(%1, axis=[1]);
  (%2, %1)
})");
  ASSERT_TRUE(main);
  IndexedForwardGraph graph = IndexedForwardGraph::create(main.get());
  // Post-DFS: parameters, then each call after its arguments; operators are
  // not nodes; the function and its body are extern.
  EXPECT_EQ(dump(graph), // %x has the shape of the add: ElemWise.
            "node[0] Var Opaque extern -> 2:ElemWise\n"
            "node[1] Var Opaque extern -> 2:Broadcast\n"
            "node[2] Call(add) Broadcast -> 4:ElemWise\n"
            "node[3] Constant ElemWise -> 4:Broadcast\n"
            "node[4] Call(add) Broadcast -> 5:CommReduce 6:Injective\n"
            "node[5] Call(sum) CommReduce -> 6:Injective\n"
            "node[6] Tuple Tuple extern ->\n"
            "node[7] Function Opaque extern ->\n");
  EXPECT_EQ(graph.lookup(main.get())->index, 7u);
  EXPECT_EQ(graph.lookup(Op::lookup("add")), nullptr);
}

TEST_F(FusionAnalysisTest, GraphExternAndConstants) {
  Ref<Function> main = parseMain(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32], %c: bool) {
  %0 = exp(%x);
  %1 = (%0, (%x, %x));
  %2 = %1.1;
  let %y = multiply(%0, dense<[1, 2, 3, 4]> : Tensor[(4), float32]);
  %3 = if (%c) { %y } else { %2.0 };
  %4 = fn (%p: Tensor[(4), float32], Primitive=1) { negative(%p) };
  %4(%3)
})");
  ASSERT_TRUE(main);
  IndexedForwardGraph graph = IndexedForwardGraph::create(main.get());
  auto nodeOf = [&](const Expr *e) { return graph.lookup(e); };
  // Nothing fuses through a let: its var, value and body are extern.
  auto *let = cast<Let>(main->getBody().get());
  EXPECT_TRUE(nodeOf(let->getVar().get())->externRef);
  EXPECT_TRUE(nodeOf(let->getValue().get())->externRef);
  EXPECT_TRUE(nodeOf(let->getBody().get())->externRef);
  auto *call = cast<Call>(let->getBody().get());
  // The call of a primitive function is Opaque; the function is an extern
  // leaf whose body is not in the graph.
  auto *func = cast<Function>(call->getCallee().get());
  EXPECT_EQ(nodeOf(call)->pattern, OpPatternKind::Opaque);
  EXPECT_TRUE(nodeOf(func)->externRef);
  EXPECT_EQ(nodeOf(func->getBody().get()), nullptr);
  // Nor through an if.
  auto *ifExpr = cast<If>(call->getArg(0).get());
  EXPECT_TRUE(nodeOf(ifExpr->getCond().get())->externRef);
  EXPECT_TRUE(nodeOf(ifExpr->getThen().get())->externRef);
  EXPECT_TRUE(nodeOf(ifExpr->getElse().get())->externRef);
  // A tuple field that is not a tensor is extern; a projection of a tuple
  // holding a tuple is Opaque and makes the tuple extern.
  auto *item = cast<TupleGetItem>(ifExpr->getElse().get());
  auto *inner = cast<TupleGetItem>(item->getTuple().get());
  auto *outer = cast<Tuple>(inner->getTuple().get());
  EXPECT_EQ(nodeOf(item)->pattern, OpPatternKind::Injective);
  EXPECT_EQ(nodeOf(inner)->pattern, OpPatternKind::Opaque);
  EXPECT_TRUE(nodeOf(outer)->externRef);
  EXPECT_TRUE(nodeOf(outer->getField(1).get())->externRef);
  EXPECT_FALSE(nodeOf(outer->getField(0).get())->externRef);
  // A scalar float32 constant is ElemWise (see the first test); a tensor
  // constant is Opaque.
  for (const IndexedForwardGraph::Node &node : graph.getNodes()) {
    if (auto *constant = dyn_cast<Constant>(node.ref)) {
      EXPECT_EQ(node.pattern, constant->isScalar() ? OpPatternKind::ElemWise
                                                   : OpPatternKind::Opaque);
    }
  }
}

TEST_F(FusionAnalysisTest, ScalarConstantDTypes) {
  for (DataType dtype :
       {DataType::int32(), DataType::int64(), DataType::float32(),
        DataType::float64(), DataType::boolean()}) {
    Ref<Constant> c = Constant::getScalar(dtype, 1);
    EXPECT_EQ(IndexedForwardGraph::create(c.get()).getNode(0).pattern,
              OpPatternKind::ElemWise)
        << dtype.str();
  }
  for (DataType dtype :
       {DataType::int8(), DataType::uint8(), DataType::float16()}) {
    Ref<Constant> c = Constant::getScalar(dtype, 1);
    EXPECT_EQ(IndexedForwardGraph::create(c.get()).getNode(0).pattern,
              OpPatternKind::Opaque)
        << dtype.str();
  }
}

//===----------------------------------------------------------------------===//
// PostDominatorTree
//===----------------------------------------------------------------------===//

TEST_F(FusionAnalysisTest, PostDominatorsOfADiamond) {
  Ref<Function> main = parseMain(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  %0 = exp(%x);
  %1 = log(%0);
  %2 = transpose(%0, axes=[0]);
  %3 = add(%1, %2);
  negative(%3)
})");
  ASSERT_TRUE(main);
  IndexedForwardGraph graph = IndexedForwardGraph::create(main.get());
  PostDominatorTree tree = PostDominatorTree::compute(graph);
  auto *negative = cast<Call>(main->getBody().get());
  auto *add = cast<Call>(negative->getArg(0).get());
  auto *log = cast<Call>(add->getArg(0).get());
  auto *transpose = cast<Call>(add->getArg(1).get());
  auto *exp = cast<Call>(log->getArg(0).get());
  auto index = [&](const Expr *e) { return graph.lookup(e)->index; };
  // exp's two paths meet at the add; the path crosses an injective op.
  EXPECT_EQ(tree.getParent(index(exp)), index(add));
  EXPECT_EQ(tree.getNode(index(exp)).pattern, OpPatternKind::Injective);
  EXPECT_EQ(tree.getParent(index(log)), index(add));
  EXPECT_EQ(tree.getNode(index(log)).pattern, OpPatternKind::ElemWise);
  EXPECT_EQ(tree.getParent(index(transpose)), index(add));
  EXPECT_EQ(tree.getNode(index(transpose)).pattern, OpPatternKind::ElemWise);
  EXPECT_EQ(tree.getParent(index(add)), index(negative));
  // The body is extern: a root of depth 1.
  EXPECT_EQ(tree.getParent(index(negative)), PostDominatorTree::kNoParent);
  EXPECT_EQ(tree.getNode(index(negative)).depth, 1u);
  EXPECT_EQ(tree.getNode(index(exp)).depth, 3u);
  // The parameter is extern too.
  EXPECT_EQ(tree.getParent(index(main->getParam(0).get())),
            PostDominatorTree::kNoParent);
}

TEST_F(FusionAnalysisTest, NoCommonPostDominator) {
  // exp feeds the tuple (an extern root) and a call: the least common
  // ancestor is the tuple.
  Ref<Function> main = parseMain(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  %0 = exp(%x);
  (%0, negative(%0))
})");
  ASSERT_TRUE(main);
  IndexedForwardGraph graph = IndexedForwardGraph::create(main.get());
  PostDominatorTree tree = PostDominatorTree::compute(graph);
  auto *tuple = cast<Tuple>(main->getBody().get());
  unsigned exp = graph.lookup(tuple->getField(0).get())->index;
  EXPECT_EQ(tree.getParent(exp), graph.lookup(tuple)->index);
}

//===----------------------------------------------------------------------===//
// GraphPartitioner
//===----------------------------------------------------------------------===//

TEST_F(FusionAnalysisTest, PartitionOptLevelZeroKeepsSingletons) {
  Ref<Function> main = makeChain(3);
  IndexedForwardGraph graph = IndexedForwardGraph::create(main.get());
  GraphPartitioner partitioner(/*optLevel=*/0);
  partitioner.partition(graph);
  EXPECT_EQ(groupRoots(partitioner, graph.size()), "0 1 2 3 4");
  GraphPartitioner fusing(/*optLevel=*/2);
  fusing.partition(graph);
  // x | the three calls | the function.
  EXPECT_EQ(groupRoots(fusing, graph.size()), "0 3 3 3 4");
  EXPECT_EQ(fusing.getGroupSize(3), 3u);
  EXPECT_EQ(fusing.getGroupPattern(3), OpPatternKind::ElemWise);
}

TEST_F(FusionAnalysisTest, PartitionConvGroupsTakeElementwiseOps) {
  Ref<Function> main = parseMain(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  sum(%2, axis=[1])
})");
  ASSERT_TRUE(main);
  IndexedForwardGraph graph = IndexedForwardGraph::create(main.get());
  GraphPartitioner partitioner(2);
  partitioner.partition(graph);
  auto *sum = cast<Call>(main->getBody().get());
  auto *relu = cast<Call>(sum->getArg(0).get());
  auto *bias = cast<Call>(relu->getArg(0).get());
  auto *conv = cast<Call>(bias->getArg(0).get());
  unsigned root = partitioner.getGroupRoot(graph.lookup(conv)->index);
  // conv2d, bias_add and relu form one OutEWiseFusable group; the reduction
  // after it stays apart.
  EXPECT_EQ(root, graph.lookup(relu)->index);
  EXPECT_EQ(partitioner.getGroupRoot(graph.lookup(bias)->index), root);
  EXPECT_EQ(partitioner.getGroupPattern(root), OpPatternKind::OutEWiseFusable);
  EXPECT_EQ(partitioner.getGroupSize(root), 3u);
  unsigned sumIndex = graph.lookup(sum)->index;
  EXPECT_EQ(partitioner.getGroupRoot(sumIndex), sumIndex);
}

TEST_F(FusionAnalysisTest, PartitionMaxDepth) {
  Ref<Function> main = makeChain(20);
  IndexedForwardGraph graph = IndexedForwardGraph::create(main.get());
  GraphPartitioner partitioner(2, /*maxFuseDepth=*/10);
  partitioner.partition(graph);
  // Nodes 1..10 and 11..20 (node 0 is x, node 21 the function).
  for (unsigned i = 1; i <= 10; ++i)
    EXPECT_EQ(partitioner.getGroupRoot(i), 10u) << i;
  for (unsigned i = 11; i <= 20; ++i)
    EXPECT_EQ(partitioner.getGroupRoot(i), 20u) << i;
}

TEST_F(FusionAnalysisTest, MillionNodeChain) {
  Ref<Function> main = makeChain(1000000);
  IndexedForwardGraph graph = IndexedForwardGraph::create(main.get());
  ASSERT_EQ(graph.size(), 1000002u);
  PostDominatorTree tree = PostDominatorTree::compute(graph);
  EXPECT_EQ(tree.getParent(1), 2u);
  // Depth grows along the chain: the first call is 1,000,000 deep.
  EXPECT_EQ(tree.getNode(1).depth, 1000000u);
  GraphPartitioner partitioner(2);
  partitioner.partition(graph);
  // Groups of 256 calls; the last one holds the remaining 64.
  EXPECT_EQ(partitioner.getGroupRoot(1), 256u);
  EXPECT_EQ(partitioner.getGroupSize(256), 256u);
  EXPECT_EQ(partitioner.getGroupRoot(1000000), 1000000u);
  EXPECT_EQ(partitioner.getGroupSize(1000000), 64u);
}

TEST_F(FusionAnalysisTest, MillionNodeDiamond) {
  // add(exp(x), <500,000 negatives of exp(x)>) and the same on the other
  // side: exp's post-dominator is the add, 500,000 nodes away on each path.
  Ref<TensorType> type = TensorType::get({2}, DataType::float32());
  Ref<Var> x = Var::get("x", type);
  Op *negative = Op::lookup("negative");
  Ref<Expr> exp = Call::get(Op::lookup("exp"), {x}, nullptr, {}, type);
  Ref<Expr> left = exp, right = exp;
  for (int i = 0; i < 500000; ++i) {
    left = Call::get(negative, {left}, nullptr, {}, type);
    right = Call::get(negative, {right}, nullptr, {}, type);
  }
  Ref<Expr> add =
      Call::get(Op::lookup("add"), {left, right}, nullptr, {}, type);
  Ref<Function> main = Function::get({x}, add);
  left = right = add = nullptr;
  IndexedForwardGraph graph = IndexedForwardGraph::create(main.get());
  PostDominatorTree tree = PostDominatorTree::compute(graph);
  unsigned expIndex = graph.lookup(exp.get())->index;
  unsigned addIndex = graph.lookup(cast<Call>(main->getBody().get()))->index;
  EXPECT_EQ(tree.getParent(expIndex), addIndex);
  // Without a depth limit the whole diamond is one group, found by path
  // checks that walk 1,000,000 nodes.
  GraphPartitioner partitioner(2, /*maxFuseDepth=*/2000000);
  partitioner.partition(graph);
  EXPECT_EQ(partitioner.getGroupRoot(expIndex), addIndex);
  EXPECT_EQ(partitioner.getGroupSize(addIndex), 1000002u);
}

} // namespace
