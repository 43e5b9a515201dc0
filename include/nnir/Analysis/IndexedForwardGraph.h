//===- IndexedForwardGraph.h - Dataflow graph for fusion --------*- C++ -*-===//
//
/// \file
/// The dataflow graph of an expression as operator fusion sees it (TVM's
/// IndexedForwardGraph): one node per expression, numbered in post-DFS order
/// (every node after the nodes it reads), with edges from producer to
/// consumer. Each edge carries the fusion pattern under which the consumer
/// reads the producer; each node carries its own pattern and whether it is
/// referenced from outside the dataflow fragment ("extern"), which forbids
/// fusing it into a consumer.
///
/// The rules are Relay FuseOps' (IndexedForwardGraphCreator):
///  - a call has its operator's pattern (Opaque when the callee is not an
///    operator); the edge from each argument carries that pattern, except
///    that a Broadcast edge whose argument has the call's shape is ElemWise;
///    a callee that is not an operator is extern;
///  - a scalar constant of int32, int64, float32, float64 or bool is
///    ElemWise, any other constant Opaque;
///  - a tuple is Tuple; its tensor fields feed it with Injective edges, its
///    other fields are extern;
///  - a tuple projection is Injective, fed by its tuple with an Injective
///    edge, unless a field of the tuple is not a tensor: then the tuple is
///    extern and the projection Opaque;
///  - variables, let, if and functions are Opaque, and everything they bind
///    or hold (let var, value and body; condition and branches; parameters
///    and body) is extern, so nothing fuses through them;
///  - the root is extern.
/// Operator nodes are not part of the graph. Primitive functions and
/// functions for an external compiler (`Compiler=...`) are leaves: their
/// bodies are not entered (TVM enters Primitive bodies, whose nodes cannot
/// fuse with anything outside).
///
/// The graph reads checked types (argument shapes, tuple fields); a node
/// without one is treated conservatively (no ElemWise downgrade, extern
/// field). Building is iterative: a 1,000,000-node chain needs no stack.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_ANALYSIS_INDEXEDFORWARDGRAPH_H
#define NNIR_ANALYSIS_INDEXEDFORWARDGRAPH_H

#include "nnir/IR/Expr.h"
#include "nnir/IR/OpProperties.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace nnir {

class IndexedForwardGraph {
public:
  /// An edge to a consumer.
  struct Edge {
    /// Index of the consumer.
    unsigned node;
    /// How the consumer reads the producer.
    OpPatternKind pattern;
  };

  struct Node {
    /// The expression (not owned: the root keeps it alive).
    Expr *ref = nullptr;
    /// Position in post-DFS order.
    unsigned index = 0;
    /// Referenced from outside the dataflow fragment; never fused into a
    /// consumer.
    bool externRef = false;
    OpPatternKind pattern = OpPatternKind::Opaque;
    /// The consumers, one edge per use (a call reading a value twice has two
    /// edges to it).
    llvm::SmallVector<Edge, 1> outputs;
  };

  /// Builds the graph of \p root (typically a function). \p root must stay
  /// alive as long as the graph is used.
  static IndexedForwardGraph create(Expr *root);

  /// The nodes in post-DFS order: producers before consumers.
  llvm::ArrayRef<Node> getNodes() const { return nodes; }
  size_t size() const { return nodes.size(); }
  const Node &getNode(unsigned index) const { return nodes[index]; }

  /// The node of \p expr, or null if \p expr is not in the graph (an
  /// operator, or an expression inside a Primitive function).
  const Node *lookup(const Expr *expr) const;

  /// One line per node: `node[i] Kind pattern [extern] -> consumers`, for
  /// tests and debugging.
  void print(llvm::raw_ostream &os) const;

private:
  std::vector<Node> nodes;
  llvm::DenseMap<const Expr *, unsigned> index;
};

} // namespace nnir

#endif // NNIR_ANALYSIS_INDEXEDFORWARDGRAPH_H
