//===- IRBench.cpp - Throughput of IR traversals, parser and printer ------===//
//
/// \file
/// nnir-ir-bench measures, on deep graphs, the time per node of the IR's
/// walks (visit, mutate, structural hash and equality, verify, free
/// variables, build and destroy), and the throughput in MB/s of the parser
/// and the printer on a large generated module.
///
/// Graphs: /0 is a chain of 1,000,000 calls `add(prev, 1f)`; /1 is a chain
/// of 1,000,000 lets `let %vi = add(%v(i-1), 1f);` (three nodes per link: the
/// let, the call and the var). The `per_node` counter is the time per
/// distinct node of the graph (shared leaves count once).
///
/// Run from a Release build:
///   build/benchmarks/nnir-ir-bench --benchmark_counters_tabular=true
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/ExprVisitor.h"
#include "nnir/IR/FreeVars.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Printer.h"
#include "nnir/IR/StructuralEqual.h"
#include "nnir/IR/Verifier.h"
#include "nnir/Parser/Parser.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "benchmark/benchmark.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace nnir;

namespace {

constexpr unsigned kChainLength = 1000000;
constexpr unsigned kModuleBindings = 200000;

enum GraphKind { CallChain = 0, LetChain = 1 };

/// fn (%x) { add(...add(add(%x, 1f), 1f)..., 1f) } with \p opName for add.
Ref<Function> buildCallChain(StringRef opName) {
  Ref<Var> x = Var::get("x", TensorType::get({4}, DataType::float32()));
  Ref<Expr> one = Constant::getScalar(DataType::float32(), 1);
  Op *op = Op::lookup(opName);
  Ref<Expr> chain = x;
  for (unsigned i = 0; i != kChainLength; ++i)
    chain = Call::get(op, {chain, one});
  return Function::get({x}, chain);
}

/// fn (%x) { let %v1 = add(%x, 1f); ...; let %vN = add(%vN-1, 1f); %vN }
Ref<Function> buildLetChain(StringRef opName) {
  Ref<Var> x = Var::get("x", TensorType::get({4}, DataType::float32()));
  Ref<Expr> one = Constant::getScalar(DataType::float32(), 1);
  Op *op = Op::lookup(opName);
  std::vector<Ref<Var>> vars;
  vars.reserve(kChainLength + 1);
  vars.push_back(x);
  for (unsigned i = 1; i <= kChainLength; ++i)
    vars.push_back(Var::get("v" + std::to_string(i)));
  Ref<Expr> body = vars.back();
  for (unsigned i = kChainLength; i >= 1; --i)
    body = Let::get(vars[i], Call::get(op, {vars[i - 1], one}), body);
  return Function::get({x}, body);
}

Ref<Function> build(GraphKind kind, StringRef opName = "add") {
  return kind == CallChain ? buildCallChain(opName) : buildLetChain(opName);
}

/// Counts the distinct nodes of a graph.
struct NodeCounter : ExprVisitor {
  size_t count = 0;
  void visitConstant(Constant *e) override { ++count; }
  void visitVar(Var *e) override { ++count; }
  void visitGlobalVar(GlobalVar *e) override { ++count; }
  void visitOp(Op *e) override { ++count; }
  void visitCall(Call *e) override {
    ++count;
    ExprVisitor::visitCall(e);
  }
  void visitTuple(Tuple *e) override {
    ++count;
    ExprVisitor::visitTuple(e);
  }
  void visitTupleGetItem(TupleGetItem *e) override {
    ++count;
    ExprVisitor::visitTupleGetItem(e);
  }
  void visitLet(Let *e) override {
    ++count;
    ExprVisitor::visitLet(e);
  }
  void visitIf(If *e) override {
    ++count;
    ExprVisitor::visitIf(e);
  }
  void visitFunction(Function *e) override {
    ++count;
    ExprVisitor::visitFunction(e);
  }
};

/// The graphs, built once per process, and their node counts.
struct Graphs {
  Ref<Function> graph[2];
  Ref<Function> copy[2];
  size_t nodes[2] = {0, 0};

  static Graphs &get() {
    static Graphs graphs;
    return graphs;
  }

  Function *getGraph(GraphKind kind) {
    if (!graph[kind]) {
      graph[kind] = build(kind);
      NodeCounter counter;
      counter.visit(graph[kind].get());
      nodes[kind] = counter.count;
    }
    return graph[kind].get();
  }
  Function *getCopy(GraphKind kind) {
    if (!copy[kind])
      copy[kind] = build(kind);
    return copy[kind].get();
  }
};

/// Labels the run and reports the time per node.
void reportPerNode(benchmark::State &state, GraphKind kind) {
  Graphs::get().getGraph(kind);
  state.SetLabel(kind == CallChain ? "1M-call chain" : "1M-let chain");
  state.counters["nodes"] = static_cast<double>(Graphs::get().nodes[kind]);
  state.counters["per_node"] =
      benchmark::Counter(static_cast<double>(Graphs::get().nodes[kind]),
                         benchmark::Counter::kIsIterationInvariantRate |
                             benchmark::Counter::kInvert);
}

//===----------------------------------------------------------------------===//
// Traversals of deep graphs
//===----------------------------------------------------------------------===//

/// Building a graph and freeing it again.
void BM_BuildAndDestroy(benchmark::State &state) {
  auto kind = static_cast<GraphKind>(state.range(0));
  for (auto _ : state) {
    Ref<Function> func = build(kind);
    benchmark::DoNotOptimize(func.get());
  }
  reportPerNode(state, kind);
}

/// A visitor that overrides nothing: the cost of the walk itself.
void BM_Visit(benchmark::State &state) {
  auto kind = static_cast<GraphKind>(state.range(0));
  Function *func = Graphs::get().getGraph(kind);
  for (auto _ : state) {
    ExprVisitor visitor;
    visitor.visit(func);
    benchmark::DoNotOptimize(visitor.isVisited(func));
  }
  reportPerNode(state, kind);
}

/// A mutator that changes nothing (returns the same graph).
void BM_MutateIdentity(benchmark::State &state) {
  auto kind = static_cast<GraphKind>(state.range(0));
  Function *func = Graphs::get().getGraph(kind);
  for (auto _ : state) {
    ExprMutator mutator;
    Ref<Expr> result = mutator.mutate(func);
    if (result.get() != func)
      state.SkipWithError("identity mutation changed the graph");
  }
  reportPerNode(state, kind);
}

/// Rewrites every add into a multiply, so every call and let is rebuilt.
/// Freeing the result is not timed.
void BM_MutateRewrite(benchmark::State &state) {
  struct AddToMultiply : ExprMutator {
    Op *add = Op::lookup("add"), *multiply = Op::lookup("multiply");
    Ref<Expr> rewriteCall(Call *pre, Call *post) override {
      if (post->getCalledOp() != add)
        return post;
      return Call::get(multiply, post->getArgs(), post->getAttrs(),
                       post->getLoc());
    }
  };
  auto kind = static_cast<GraphKind>(state.range(0));
  Function *func = Graphs::get().getGraph(kind);
  for (auto _ : state) {
    Ref<Expr> result;
    {
      AddToMultiply mutator;
      result = mutator.mutate(func);
      state.PauseTiming();
    }
    result = nullptr;
    state.ResumeTiming();
  }
  reportPerNode(state, kind);
}

void BM_StructuralHash(benchmark::State &state) {
  auto kind = static_cast<GraphKind>(state.range(0));
  Function *func = Graphs::get().getGraph(kind);
  for (auto _ : state)
    benchmark::DoNotOptimize(structuralHash(func));
  reportPerNode(state, kind);
}

/// Two independently built, equal graphs.
void BM_StructuralEqual(benchmark::State &state) {
  auto kind = static_cast<GraphKind>(state.range(0));
  Function *func = Graphs::get().getGraph(kind);
  Function *copy = Graphs::get().getCopy(kind);
  for (auto _ : state)
    if (!structuralEqual(func, copy))
      state.SkipWithError("copies are not structurally equal");
  reportPerNode(state, kind);
}

void BM_Verify(benchmark::State &state) {
  auto kind = static_cast<GraphKind>(state.range(0));
  Ref<IRModule> module = IRModule::create();
  module->addOrUpdate("main", Graphs::get().getGraph(kind));
  for (auto _ : state)
    if (Error err = verifyModule(*module))
      state.SkipWithError(toString(std::move(err)).c_str());
  reportPerNode(state, kind);
}

void BM_FreeVars(benchmark::State &state) {
  auto kind = static_cast<GraphKind>(state.range(0));
  Function *func = Graphs::get().getGraph(kind);
  for (auto _ : state)
    benchmark::DoNotOptimize(getFreeVars(func).size());
  reportPerNode(state, kind);
}

BENCHMARK(BM_BuildAndDestroy)
    ->Arg(CallChain)
    ->Arg(LetChain)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Visit)->Arg(CallChain)->Arg(LetChain)->Unit(
    benchmark::kMillisecond);
BENCHMARK(BM_MutateIdentity)
    ->Arg(CallChain)
    ->Arg(LetChain)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MutateRewrite)
    ->Arg(CallChain)
    ->Arg(LetChain)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StructuralHash)
    ->Arg(CallChain)
    ->Arg(LetChain)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StructuralEqual)
    ->Arg(CallChain)
    ->Arg(LetChain)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Verify)->Arg(CallChain)->Arg(LetChain)->Unit(
    benchmark::kMillisecond);
BENCHMARK(BM_FreeVars)
    ->Arg(CallChain)
    ->Arg(LetChain)
    ->Unit(benchmark::kMillisecond);

//===----------------------------------------------------------------------===//
// Parser and printer
//===----------------------------------------------------------------------===//

/// A module of kModuleBindings graph bindings: repeated conv2d / add / relu
/// blocks with attributes, as TVM prints a CNN.
const std::string &getModuleText() {
  static const std::string text = [] {
    std::string s;
    raw_string_ostream os(s);
    os << "#[version = \"0.0.5\"]\n"
          "def @main(%data: Tensor[(1, 16, 32, 32), float32], "
          "%weight: Tensor[(16, 16, 3, 3), float32], "
          "%bias: Tensor[(1, 16, 32, 32), float32]) {\n";
    std::string prev = "%data";
    for (unsigned i = 0; i != kModuleBindings; ++i) {
      os << "  %" << i << " = ";
      switch (i % 3) {
      case 0:
        os << "nn.conv2d(" << prev
           << ", %weight, padding=[1, 1, 1, 1], channels=16, "
              "kernel_size=[3, 3])";
        break;
      case 1:
        os << "add(" << prev << ", %bias)";
        break;
      case 2:
        os << "nn.relu(" << prev << ")";
        break;
      }
      os << ";\n";
      prev = "%" + std::to_string(i);
    }
    os << "  " << prev << "\n}\n";
    return s;
  }();
  return text;
}

void BM_Parse(benchmark::State &state) {
  const std::string &text = getModuleText();
  for (auto _ : state) {
    SourceMgr sourceMgr;
    Expected<Ref<IRModule>> module = parseModule(text, sourceMgr, "bench");
    if (!module) {
      state.SkipWithError(toString(module.takeError()).c_str());
      break;
    }
    // Freeing the module is not part of parsing.
    state.PauseTiming();
    *module = nullptr;
    state.ResumeTiming();
  }
  state.SetLabel(std::to_string(kModuleBindings) + " bindings, " +
                 std::to_string(text.size() / 1024) + " KiB");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}

void BM_Print(benchmark::State &state) {
  SourceMgr sourceMgr;
  Expected<Ref<IRModule>> module =
      parseModule(getModuleText(), sourceMgr, "bench");
  if (!module) {
    state.SkipWithError(toString(module.takeError()).c_str());
    return;
  }
  std::string out;
  for (auto _ : state) {
    out.clear();
    raw_string_ostream os(out);
    printModule(**module, os);
    os.flush();
  }
  state.SetLabel(std::to_string(kModuleBindings) + " bindings, " +
                 std::to_string(out.size() / 1024) + " KiB");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(out.size()));
}

BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Print)->Unit(benchmark::kMillisecond);

} // namespace
