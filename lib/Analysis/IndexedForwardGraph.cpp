//===- IndexedForwardGraph.cpp - Dataflow graph for fusion ----------------===//
//
/// \file
/// Builds the graph with a PostOrderWalker: a node is created once all its
/// children are (post-DFS order), and its incoming edges and the extern
/// marks of its children are recorded at that moment.
//
//===----------------------------------------------------------------------===//

#include "nnir/Analysis/IndexedForwardGraph.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/Traversal.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

/// Calls \p fn on the children of \p e that are graph nodes, in evaluation
/// order (forEachChild's, without operators as callees and without the
/// insides of opaque functions).
template <typename Fn> static void forEachGraphChild(Expr *e, Fn &&fn) {
  if (auto *func = dyn_cast<Function>(e); func && func->isOpaque())
    return;
  forEachChild(e, [&](Expr *child, ChildRole role) {
    if (role != ChildRole::Callee || !isa<Op>(child))
      fn(child);
  });
}

/// Relay's rule for constants FuseOps may fuse (it must agree with the code
/// generator): scalars of the simple dtypes.
static bool isFusableConstant(const Constant *constant) {
  if (!constant->isScalar())
    return false;
  DataType dtype = constant->getData().getDType();
  return dtype == DataType::int32() || dtype == DataType::int64() ||
         dtype == DataType::float32() || dtype == DataType::float64() ||
         dtype == DataType::boolean();
}

static const TensorType *getTensorType(const Expr *e) {
  return dyn_cast_or_null<TensorType>(e->getCheckedType().get());
}

/// True if \p e is typed as a tuple whose fields are all tensors.
static bool isTupleOfTensors(const Expr *e) {
  auto *type = dyn_cast_or_null<TupleType>(e->getCheckedType().get());
  if (!type)
    return false;
  return llvm::all_of(type->getFields(), [](const Ref<Type> &field) {
    return isa<TensorType>(field.get());
  });
}

IndexedForwardGraph IndexedForwardGraph::create(Expr *root) {
  IndexedForwardGraph graph;
  if (!root)
    return graph;
  std::vector<Node> &nodes = graph.nodes;
  DenseMap<const Expr *, unsigned> &index = graph.index;

  auto nodeOf = [&](const Expr *e) -> Node * {
    auto it = index.find(e);
    return it == index.end() ? nullptr : &nodes[it->second];
  };
  /// Records that \p consumer reads \p producer under \p pattern.
  auto addEdge = [&](const Expr *producer, unsigned consumer,
                     OpPatternKind pattern) {
    if (Node *node = nodeOf(producer))
      node->outputs.push_back({consumer, pattern});
  };
  auto markExtern = [&](const Expr *e) {
    if (Node *node = nodeOf(e))
      node->externRef = true;
  };

  /// Creates the node of \p e, whose children are all nodes already.
  auto addNode = [&](Expr *e) {
    unsigned id = nodes.size();
    index[e] = id;
    nodes.emplace_back();
    Node &node = nodes.back();
    node.ref = e;
    node.index = id;
    switch (e->getKind()) {
    case Expr::Kind::Constant:
      node.pattern = isFusableConstant(cast<Constant>(e))
                         ? OpPatternKind::ElemWise
                         : OpPatternKind::Opaque;
      return;
    case Expr::Kind::Call: {
      auto *call = cast<Call>(e);
      Op *op = call->getCalledOp();
      OpPatternKind pattern = op ? getOpPattern(op) : OpPatternKind::Opaque;
      node.pattern = pattern;
      if (!op) {
        addEdge(call->getCallee().get(), id, OpPatternKind::Opaque);
        markExtern(call->getCallee().get());
      }
      const TensorType *resultType = getTensorType(call);
      for (const Ref<Expr> &arg : call->getArgs()) {
        OpPatternKind edgePattern = pattern;
        // A broadcast that does not broadcast this argument reads it
        // elementwise.
        if (edgePattern == OpPatternKind::Broadcast && resultType)
          if (const TensorType *argType = getTensorType(arg.get()))
            if (argType->getShape() == resultType->getShape())
              edgePattern = OpPatternKind::ElemWise;
        addEdge(arg.get(), id, edgePattern);
      }
      return;
    }
    case Expr::Kind::Tuple:
      node.pattern = OpPatternKind::Tuple;
      for (const Ref<Expr> &field : cast<Tuple>(e)->getFields()) {
        if (getTensorType(field.get()))
          addEdge(field.get(), id, OpPatternKind::Injective);
        else
          markExtern(field.get());
      }
      return;
    case Expr::Kind::TupleGetItem: {
      const Expr *tuple = cast<TupleGetItem>(e)->getTuple().get();
      // Lowering expects tuples of tensors; do not fuse through others.
      if (isTupleOfTensors(tuple)) {
        node.pattern = OpPatternKind::Injective;
        addEdge(tuple, id, OpPatternKind::Injective);
      } else {
        markExtern(tuple);
      }
      return;
    }
    case Expr::Kind::Let:
    case Expr::Kind::If:
    case Expr::Kind::Function:
      // Nothing fuses through scopes: everything they hold is extern.
      forEachGraphChild(e, markExtern);
      return;
    case Expr::Kind::Var:
    case Expr::Kind::GlobalVar:
    case Expr::Kind::Op:
      return;
    }
  };

  // The index is the memo; children are numbered in evaluation order.
  PostOrderWalker walker(PostOrderWalker::Memo::Hooks);
  walker.walk(
      root,
      [&](Expr *e) {
        return index.count(e) ? WalkAction::Skip : WalkAction::Descend;
      },
      addNode,
      [](Expr *e, SmallVectorImpl<Expr *> &children) {
        forEachGraphChild(e, [&](Expr *child) { children.push_back(child); });
      });
  markExtern(root);
  return graph;
}

const IndexedForwardGraph::Node *
IndexedForwardGraph::lookup(const Expr *expr) const {
  auto it = index.find(expr);
  return it == index.end() ? nullptr : &nodes[it->second];
}

void IndexedForwardGraph::print(raw_ostream &os) const {
  for (const Node &node : nodes) {
    os << "node[" << node.index << "] "
       << Expr::getKindName(node.ref->getKind());
    if (Op *op =
            isa<Call>(node.ref) ? cast<Call>(node.ref)->getCalledOp() : nullptr)
      os << "(" << op->getName() << ")";
    os << " " << getOpPatternKindName(node.pattern);
    if (node.externRef)
      os << " extern";
    os << " ->";
    for (const Edge &edge : node.outputs)
      os << " " << edge.node << ":" << getOpPatternKindName(edge.pattern);
    os << "\n";
  }
}
