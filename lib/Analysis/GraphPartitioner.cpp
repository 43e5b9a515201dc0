//===- GraphPartitioner.cpp - Grouping of a dataflow graph for fusion -----===//
//
/// \file
/// Relay's fusion algorithm (graph_partitioner.cc) with its recursive path
/// walks made iterative. The walks share one visited array whose marks are
/// invalidated by bumping an epoch, so starting a walk costs nothing.
//
//===----------------------------------------------------------------------===//

#include "nnir/Analysis/GraphPartitioner.h"

#include <algorithm>
#include <cassert>

using namespace llvm;
using namespace nnir;

unsigned GraphPartitioner::findRoot(unsigned group) {
  unsigned root = group;
  while (groups[root].parent != Group::kNone)
    root = groups[root].parent;
  // Path compression.
  while (group != root) {
    unsigned next = groups[group].parent;
    groups[group].parent = root;
    group = next;
  }
  return root;
}

unsigned GraphPartitioner::getGroupRoot(unsigned index) {
  return findRoot(index);
}

void GraphPartitioner::mergeFromTo(unsigned child, unsigned parent) {
  child = findRoot(child);
  parent = findRoot(parent);
  if (child == parent)
    return;
  Group &c = groups[child];
  Group &p = groups[parent];
  p.numNodes += c.numNodes;
  c.parent = parent;
  if (c.anchor != Group::kNone) {
    // The rules never put two complex (above Broadcast) groups together.
    assert(p.anchor == Group::kNone && "two anchors in one fusion group");
    assert((c.pattern <= OpPatternKind::Broadcast ||
            p.pattern <= OpPatternKind::Broadcast) &&
           "cannot merge two complex groups");
    p.anchor = c.anchor;
    p.pattern = std::max(c.pattern, p.pattern);
  }
}

void GraphPartitioner::resetVisited() {
  if (++visitEpoch == 0) {
    // The epoch wrapped around: clear the marks for real.
    std::fill(visitMark.begin(), visitMark.end(), 0);
    visitEpoch = 1;
  }
}

bool GraphPartitioner::visit(unsigned node) {
  if (visitMark[node] == visitEpoch)
    return false;
  visitMark[node] = visitEpoch;
  return true;
}

template <typename F>
bool GraphPartitioner::checkPath(unsigned src, unsigned sink, F fcond) {
  assert(src != sink && !graph->getNode(src).externRef);
  resetVisited();
  worklist.clear();
  for (const IndexedForwardGraph::Edge &edge : graph->getNode(src).outputs)
    worklist.push_back(edge.node);
  // Hand-written: follows the IndexedForwardGraph's forward edges by index.
  while (!worklist.empty()) {
    unsigned node = worklist.pop_back_val();
    if (!visit(node))
      continue;
    if (!fcond(groups[findRoot(node)].pattern, node == sink))
      return false;
    if (node == sink)
      continue;
    for (const IndexedForwardGraph::Edge &edge : graph->getNode(node).outputs)
      worklist.push_back(edge.node);
  }
  return true;
}

void GraphPartitioner::commitFuse(unsigned src, unsigned sink) {
  assert(src != sink);
  resetVisited();
  worklist.clear();
  worklist.push_back(src);
  // Hand-written: follows the IndexedForwardGraph's forward edges by index.
  while (!worklist.empty()) {
    unsigned node = worklist.pop_back_val();
    if (node == sink || !visit(node))
      continue;
    mergeFromTo(node, sink);
    for (const IndexedForwardGraph::Edge &edge : graph->getNode(node).outputs)
      worklist.push_back(edge.node);
  }
}

size_t GraphPartitioner::countFusedNodesWithNewChild(unsigned child,
                                                     unsigned sink) {
  assert(child != sink);
  size_t count = groups[findRoot(sink)].numNodes;
  resetVisited();
  worklist.clear();
  worklist.push_back(child);
  // Hand-written: follows the IndexedForwardGraph's forward edges by index.
  while (!worklist.empty()) {
    unsigned node = worklist.pop_back_val();
    if (node == sink || !visit(node))
      continue;
    // As in Relay, each node on the way counts the size its own group had
    // when it was last a root, not the size of the group it is in now.
    count += groups[node].numNodes;
    for (const IndexedForwardGraph::Edge &edge : graph->getNode(node).outputs)
      worklist.push_back(edge.node);
  }
  return count;
}

void GraphPartitioner::runFuse(const PostDominatorTree &tree, int phase) {
  auto upToInjective = [](OpPatternKind kind, bool) {
    return kind <= OpPatternKind::Injective;
  };
  for (unsigned nid = 0, e = groups.size(); nid != e; ++nid) {
    const PostDominatorTree::Node &domNode = tree.getNode(nid);
    // The node's own group (not its root), as Relay reads it.
    OpPatternKind pattern = groups[nid].pattern;
    if (pattern == OpPatternKind::Opaque)
      continue;
    if (domNode.parent == PostDominatorTree::kNoParent)
      continue;
    unsigned domParent = domNode.parent;
    if (countFusedNodesWithNewChild(nid, domParent) > maxFuseDepth)
      continue;

    if (phase == 2) {
      // Fuse injective nodes into intermediate tuples that were fused into
      // a later injective group.
      if (pattern > OpPatternKind::Injective)
        continue;
      OpPatternKind parentPattern = groups[domParent].pattern;
      OpPatternKind rootPattern = groups[findRoot(domParent)].pattern;
      if (rootPattern == OpPatternKind::Tuple)
        continue;
      if (parentPattern == OpPatternKind::Tuple &&
          rootPattern <= OpPatternKind::Injective &&
          checkPath(nid, domParent, upToInjective))
        commitFuse(nid, domParent);
      continue;
    }

    if (findRoot(nid) == findRoot(domParent))
      continue;
    // Do not fuse into tuples (phase 2 handles the injective case).
    if (groups[domParent].pattern == OpPatternKind::Tuple)
      continue;

    if (pattern == OpPatternKind::OutEWiseFusable) {
      if (phase != 0)
        continue;
      // conv2d followed by elementwise ops, with only broadcasts between.
      if (domNode.pattern == OpPatternKind::ElemWise &&
          checkPath(nid, domParent, [](OpPatternKind kind, bool) {
            return kind <= OpPatternKind::Broadcast;
          }))
        commitFuse(nid, domParent);
    } else if (pattern <= OpPatternKind::Broadcast) {
      // Into an injective or reducing post-dominator; the nodes in between
      // must be injective, and the sink may already hold a conv2d.
      if (domNode.pattern <= OpPatternKind::Injective ||
          domNode.pattern == OpPatternKind::CommReduce) {
        auto fcond = [](OpPatternKind kind, bool isSink) {
          if (!isSink)
            return kind <= OpPatternKind::Injective;
          return kind <= OpPatternKind::Injective ||
                 kind == OpPatternKind::CommReduce ||
                 kind == OpPatternKind::OutEWiseFusable;
        };
        if (checkPath(nid, domParent, fcond))
          commitFuse(nid, domParent);
      }
    } else if (pattern == OpPatternKind::Injective ||
               pattern == OpPatternKind::Tuple) {
      // Deferred to phase 1, so that conv2d groups are complete first.
      if (phase == 1 && checkPath(nid, domParent, upToInjective))
        commitFuse(nid, domParent);
    }
    // CommReduce never starts a fusion.
  }
}

void GraphPartitioner::partition(const IndexedForwardGraph &graph) {
  this->graph = &graph;
  groups.assign(graph.size(), Group());
  visitMark.assign(graph.size(), 0);
  visitEpoch = 0;
  for (const IndexedForwardGraph::Node &node : graph.getNodes()) {
    Group &group = groups[node.index];
    group.pattern = node.pattern;
    if (node.pattern == OpPatternKind::OutEWiseFusable)
      group.anchor = node.index;
  }
  if (optLevel == 0)
    return;
  PostDominatorTree tree = PostDominatorTree::compute(graph);
  for (int phase = 0; phase < 3; ++phase)
    runFuse(tree, phase);
}
