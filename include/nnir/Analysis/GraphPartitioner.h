//===- GraphPartitioner.h - Fusion groups of a dataflow graph ---*- C++ -*-===//
//
/// \file
/// Partitions an IndexedForwardGraph into fusion groups (TVM's
/// GraphPartitioner): union-find groups, one per node at first, merged by
/// fusing each node into its immediate post-dominator when every path
/// between them satisfies the rule of the node's pattern. Three phases walk
/// the nodes in post-DFS order:
///
///  - phase 0: an OutEWiseFusable node (conv2d, dense) fuses into its
///    post-dominator when the path pattern is ElemWise and every node on the
///    paths is at most Broadcast (conv + bias_add + relu);
///  - every phase: an ElemWise or Broadcast node fuses into a post-dominator
///    whose path pattern is at most Injective or CommReduce, when the nodes
///    in between are at most Injective and the sink is at most Broadcast,
///    Injective, CommReduce or OutEWiseFusable (reductions are sinks);
///  - phase 1: an Injective node or a Tuple fuses when every path is at most
///    Injective;
///  - phase 2: an Injective (or simpler) node fuses into a Tuple that was
///    itself fused into a later injective group.
/// CommReduce nodes never start a fusion; Opaque nodes never fuse; a node
/// never fuses into a group whose root is a Tuple (phases 0 and 1) and never
/// into a group that would grow beyond the maximum depth (number of nodes).
/// With opt level 0 every node stays its own group.
///
/// Path checks and merges are iterative (explicit stacks), so long chains
/// between a node and its post-dominator need no call stack.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_ANALYSIS_GRAPHPARTITIONER_H
#define NNIR_ANALYSIS_GRAPHPARTITIONER_H

#include "nnir/Analysis/DominatorTree.h"
#include "nnir/Analysis/IndexedForwardGraph.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace nnir {

class GraphPartitioner {
public:
  /// Relay's kMaxFusedOps.
  static constexpr size_t kDefaultMaxFuseDepth = 256;

  /// \p optLevel 0 keeps every node in its own group; \p maxFuseDepth bounds
  /// the number of nodes of a group.
  GraphPartitioner(int optLevel, size_t maxFuseDepth = kDefaultMaxFuseDepth)
      : optLevel(optLevel), maxFuseDepth(maxFuseDepth) {}

  /// Partitions \p graph. Afterwards getGroupRoot() and the other queries
  /// describe the groups.
  void partition(const IndexedForwardGraph &graph);

  /// The node that is the root (the last node, the group's output) of the
  /// group of node \p index.
  unsigned getGroupRoot(unsigned index);
  /// The pattern of the group whose root is \p root.
  OpPatternKind getGroupPattern(unsigned root) { return groups[root].pattern; }
  /// The number of nodes of the group whose root is \p root (as TVM counts
  /// them when checking the maximum depth).
  uint32_t getGroupSize(unsigned root) { return groups[root].numNodes; }

private:
  /// A union-find group. Groups and nodes share indices: group i starts as
  /// node i alone.
  struct Group {
    static constexpr unsigned kNone = ~0u;
    /// Parent in the union-find forest, or kNone for a root.
    unsigned parent = kNone;
    OpPatternKind pattern = OpPatternKind::Opaque;
    /// The OutEWiseFusable node of the group, or kNone.
    unsigned anchor = kNone;
    /// Number of nodes merged into this group when it was a root.
    uint32_t numNodes = 1;
  };

  unsigned findRoot(unsigned group);
  void mergeFromTo(unsigned child, unsigned parent);
  /// Starts a new set of visited marks.
  void resetVisited();
  bool visit(unsigned node);

  /// True if every node on the paths from \p src (excluded) to \p sink
  /// (included) satisfies \p fcond(pattern of its group, is it the sink).
  template <typename F> bool checkPath(unsigned src, unsigned sink, F fcond);
  /// Merges every node on the paths from \p src to \p sink into the group of
  /// \p sink.
  void commitFuse(unsigned src, unsigned sink);
  /// The size of the group of \p sink if \p child and the nodes between them
  /// joined it.
  size_t countFusedNodesWithNewChild(unsigned child, unsigned sink);

  void runFuse(const PostDominatorTree &tree, int phase);

  int optLevel;
  size_t maxFuseDepth;
  const IndexedForwardGraph *graph = nullptr;
  std::vector<Group> groups;
  /// visitMark[i] == visitEpoch when node i was visited in the current walk.
  std::vector<uint32_t> visitMark;
  uint32_t visitEpoch = 0;
  llvm::SmallVector<unsigned, 16> worklist;
};

} // namespace nnir

#endif // NNIR_ANALYSIS_GRAPHPARTITIONER_H
