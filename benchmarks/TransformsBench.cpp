//===- TransformsBench.cpp - Throughput of the graph transforms -----------===//
//
/// \file
/// nnir-transforms-bench measures, on 1,000,000-call chains
/// `add(prev, 1f)` over a typed (4)-float32 parameter, the time per node of
/// the fusion analyses (dataflow graph, post-dominator tree, partition),
/// FuseOps as a whole (analysis and rewrite into 3,907 primitive functions),
/// ToANormalForm (binds 1,000,001 values) and ToGraphNormalForm (on the
/// A-normal form). The `per_node` counter is the time per call of the chain.
/// Freeing the results is not timed.
///
/// Run from a Release build:
///   build/benchmarks/nnir-transforms-bench --benchmark_counters_tabular=true
//
//===----------------------------------------------------------------------===//

#include "nnir/Analysis/DominatorTree.h"
#include "nnir/Analysis/GraphPartitioner.h"
#include "nnir/Analysis/IndexedForwardGraph.h"
#include "nnir/IR/Op.h"
#include "nnir/Transforms/FuseOps.h"
#include "nnir/Transforms/ToANormalForm.h"
#include "nnir/Transforms/ToGraphNormalForm.h"

#include "benchmark/benchmark.h"

using namespace llvm;
using namespace nnir;

namespace {

constexpr unsigned kChainLength = 1000000;

/// fn (%x: Tensor[(4), float32]) { add(...add(%x, 1f)..., 1f) }, typed.
Ref<Function> buildChain() {
  Ref<TensorType> type = TensorType::get({4}, DataType::float32());
  Ref<Var> x = Var::get("x", type);
  Ref<Expr> one = Constant::getScalar(DataType::float32(), 1);
  Op *add = Op::lookup("add");
  Ref<Expr> chain = x;
  for (unsigned i = 0; i != kChainLength; ++i)
    chain = Call::get(add, {chain, one}, nullptr, {}, type);
  return Function::get({x}, chain, type);
}

Function *getChain() {
  static Ref<Function> chain = buildChain();
  return chain.get();
}

Function *getANormalChain() {
  static Ref<Expr> chain = toANormalForm(getChain());
  return cast<Function>(chain.get());
}

void reportPerNode(benchmark::State &state) {
  state.counters["per_node"] = benchmark::Counter(
      kChainLength, benchmark::Counter::kIsIterationInvariantRate |
                        benchmark::Counter::kInvert);
}

/// Runs \p fn and frees its result outside the timing.
template <typename Fn> void runUntimedFree(benchmark::State &state, Fn fn) {
  for (auto _ : state) {
    Ref<Expr> result = fn();
    state.PauseTiming();
    result = nullptr;
    state.ResumeTiming();
  }
  reportPerNode(state);
}

void BM_ForwardGraph(benchmark::State &state) {
  Function *chain = getChain();
  for (auto _ : state) {
    IndexedForwardGraph graph = IndexedForwardGraph::create(chain);
    benchmark::DoNotOptimize(graph.size());
  }
  reportPerNode(state);
}

void BM_PostDominatorTree(benchmark::State &state) {
  IndexedForwardGraph graph = IndexedForwardGraph::create(getChain());
  for (auto _ : state)
    benchmark::DoNotOptimize(PostDominatorTree::compute(graph).size());
  reportPerNode(state);
}

void BM_Partition(benchmark::State &state) {
  IndexedForwardGraph graph = IndexedForwardGraph::create(getChain());
  for (auto _ : state) {
    GraphPartitioner partitioner(/*optLevel=*/2);
    partitioner.partition(graph);
    benchmark::DoNotOptimize(partitioner.getGroupRoot(1));
  }
  reportPerNode(state);
}

void BM_FuseOps(benchmark::State &state) {
  Function *chain = getChain();
  FuseOpsOptions options;
  options.optLevel = static_cast<int>(state.range(0));
  runUntimedFree(state, [&] {
    Expected<Ref<Expr>> fused = fuseOps(chain, options);
    if (!fused) {
      state.SkipWithError(toString(fused.takeError()).c_str());
      return Ref<Expr>();
    }
    return *fused;
  });
}

void BM_ToANormalForm(benchmark::State &state) {
  Function *chain = getChain();
  runUntimedFree(state, [&] { return toANormalForm(chain); });
}

void BM_ToGraphNormalForm(benchmark::State &state) {
  Function *chain = getANormalChain();
  runUntimedFree(state, [&] { return toGraphNormalForm(chain); });
}

BENCHMARK(BM_ForwardGraph)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PostDominatorTree)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Partition)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FuseOps)->Arg(2)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ToANormalForm)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ToGraphNormalForm)->Unit(benchmark::kMillisecond);

} // namespace
