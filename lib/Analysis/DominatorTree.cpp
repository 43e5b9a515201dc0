//===- DominatorTree.cpp - Post-dominator tree of a dataflow graph --------===//
//
/// \file
/// The single reverse sweep with least common ancestors (Relay's PostDom).
//
//===----------------------------------------------------------------------===//

#include "nnir/Analysis/DominatorTree.h"

#include <algorithm>

using namespace llvm;
using namespace nnir;

static OpPatternKind maxPattern(OpPatternKind lhs, OpPatternKind rhs) {
  return std::max(lhs, rhs);
}

unsigned PostDominatorTree::leastCommonAncestor(unsigned lhs, unsigned rhs,
                                                OpPatternKind &pattern) const {
  while (lhs != rhs) {
    if (lhs == kNoParent || rhs == kNoParent)
      return kNoParent;
    const Node &l = nodes[lhs];
    const Node &r = nodes[rhs];
    if (l.depth < r.depth) {
      pattern = maxPattern(pattern, r.pattern);
      rhs = r.parent;
    } else if (r.depth < l.depth) {
      pattern = maxPattern(pattern, l.pattern);
      lhs = l.parent;
    } else {
      pattern = maxPattern(pattern, maxPattern(l.pattern, r.pattern));
      lhs = l.parent;
      rhs = r.parent;
    }
  }
  return lhs;
}

PostDominatorTree PostDominatorTree::compute(const IndexedForwardGraph &graph) {
  PostDominatorTree tree;
  tree.nodes.resize(graph.size());
  // Consumers come after their producers: walk backwards so that every
  // consumer's tree node is final when its producers are processed.
  for (size_t i = graph.size(); i-- > 0;) {
    const IndexedForwardGraph::Node &gnode = graph.getNode(i);
    Node &tnode = tree.nodes[i];
    if (gnode.externRef) {
      tnode.parent = kNoParent;
      tnode.depth = 1;
      tnode.pattern = OpPatternKind::Opaque;
      continue;
    }
    OpPatternKind pattern = OpPatternKind::ElemWise;
    unsigned parent = kNoParent;
    bool first = true;
    for (const IndexedForwardGraph::Edge &edge : gnode.outputs) {
      parent = first ? edge.node
                     : tree.leastCommonAncestor(parent, edge.node, pattern);
      first = false;
      pattern = maxPattern(pattern, edge.pattern);
    }
    tnode.parent = parent;
    tnode.depth = parent == kNoParent ? 1 : tree.nodes[parent].depth + 1;
    tnode.pattern = pattern;
  }
  return tree;
}
