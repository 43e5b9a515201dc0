//===- DominatorTree.h - Post-dominator tree for fusion ---------*- C++ -*-===//
//
/// \file
/// The post-dominator tree of an IndexedForwardGraph (TVM's
/// DominatorTree::PostDom). A node's immediate post-dominator is the closest
/// node that every path from it to the graph's outputs passes through; a
/// node is fused into its post-dominator when the paths between them allow.
///
/// Because the graph is a DAG in post-DFS order, one sweep in reverse order
/// suffices: a node's parent is the least common ancestor, in the tree built
/// so far, of all its consumers. Alongside, each node records the combined
/// (maximum) pattern of the edges and tree nodes crossed on the way to that
/// ancestor. Extern nodes have no parent. Iterative and linear for chains.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_ANALYSIS_DOMINATORTREE_H
#define NNIR_ANALYSIS_DOMINATORTREE_H

#include "nnir/Analysis/IndexedForwardGraph.h"

#include <vector>

namespace nnir {

class PostDominatorTree {
public:
  static constexpr unsigned kNoParent = ~0u;

  struct Node {
    /// Index of the immediate post-dominator, or kNoParent.
    unsigned parent = kNoParent;
    /// Depth in the tree; roots have depth 1.
    unsigned depth = 1;
    /// The combined pattern of the paths to the parent (Opaque for roots
    /// that are extern).
    OpPatternKind pattern = OpPatternKind::Opaque;
  };

  /// Computes the tree of \p graph.
  static PostDominatorTree compute(const IndexedForwardGraph &graph);

  /// The tree node of graph node \p index.
  const Node &getNode(unsigned index) const { return nodes[index]; }
  /// The immediate post-dominator of \p index, or kNoParent.
  unsigned getParent(unsigned index) const { return nodes[index].parent; }
  size_t size() const { return nodes.size(); }

private:
  /// The least common ancestor of \p lhs and \p rhs, combining the patterns
  /// of the nodes walked into \p pattern; kNoParent if there is none.
  unsigned leastCommonAncestor(unsigned lhs, unsigned rhs,
                               OpPatternKind &pattern) const;

  std::vector<Node> nodes;
};

} // namespace nnir

#endif // NNIR_ANALYSIS_DOMINATORTREE_H
