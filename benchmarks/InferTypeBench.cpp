//===- InferTypeBench.cpp - Time per node of type inference ---------------===//
//
/// \file
/// nnir-infer-bench measures InferType on deep graphs, in ns per node:
///
///  - BM_InferType/0: a chain of 1,000,000 calls `add(prev, 1f)` in a
///    function with an annotated parameter (every node is rebuilt with its
///    type); /1: the same as a chain of 1,000,000 lets.
///  - BM_InferTypeTyped: the same graphs once typed: inference finds every
///    node already typed and returns the module itself.
///  - BM_InferTypeUnannotated: `let %f = fn (%x) { <chain on %x> }; %f(%a)`,
///    where the parameter's type comes from the call by unification (the
///    chain's relations wait for it), then the function is typed again with
///    the solved parameter type.
///  - BM_InferTypeText: the whole `nnir-opt --passes=InferType` path minus
///    the printing: parse the 1M-call chain's text, verify, infer (the
///    figure to compare with parsing alone, BM_ParseOnly).
///
/// Run from a Release build:
///   build/benchmarks/nnir-infer-bench --benchmark_counters_tabular=true
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/ExprVisitor.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Verifier.h"
#include "nnir/Parser/Parser.h"
#include "nnir/Transforms/InferType.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "benchmark/benchmark.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace nnir;

namespace {

constexpr unsigned kChainLength = 1000000;

enum GraphKind { CallChain = 0, LetChain = 1 };

Ref<TensorType> getTensorType() {
  return TensorType::get({4}, DataType::float32());
}

/// add(...add(add(%x, 1f), 1f)..., 1f) over \p x.
Ref<Expr> buildCallChain(Ref<Var> x) {
  Ref<Expr> one = Constant::getScalar(DataType::float32(), 1);
  Op *add = Op::lookup("add");
  Ref<Expr> chain = x;
  for (unsigned i = 0; i != kChainLength; ++i)
    chain = Call::get(add, {chain, one});
  return chain;
}

/// let %v1 = add(%x, 1f); ...; let %vN = add(%vN-1, 1f); %vN
Ref<Expr> buildLetChain(Ref<Var> x) {
  Ref<Expr> one = Constant::getScalar(DataType::float32(), 1);
  Op *add = Op::lookup("add");
  std::vector<Ref<Var>> vars;
  vars.reserve(kChainLength + 1);
  vars.push_back(x);
  for (unsigned i = 1; i <= kChainLength; ++i)
    vars.push_back(Var::get("v" + std::to_string(i)));
  Ref<Expr> body = vars.back();
  for (unsigned i = kChainLength; i >= 1; --i)
    body = Let::get(vars[i], Call::get(add, {vars[i - 1], one}), body);
  return body;
}

Ref<Expr> buildChain(GraphKind kind, Ref<Var> x) {
  return kind == CallChain ? buildCallChain(std::move(x))
                           : buildLetChain(std::move(x));
}

/// A module whose @main is fn (%x: Tensor[(4), float32]) { <chain> }.
Ref<IRModule> buildAnnotated(GraphKind kind) {
  Ref<Var> x = Var::get("x", getTensorType());
  Ref<IRModule> module = IRModule::create();
  module->addOrUpdate("main", Function::get({x}, buildChain(kind, x)));
  return module;
}

/// fn (%a: Tensor[(4), float32]) { let %f = fn (%x) { <chain> }; %f(%a) }
Ref<IRModule> buildUnannotated(GraphKind kind) {
  Ref<Var> x = Var::get("x");
  Ref<Var> a = Var::get("a", getTensorType());
  Ref<Var> f = Var::get("f");
  Ref<Expr> inner = Function::get({x}, buildChain(kind, x));
  Ref<Expr> body = Let::get(f, inner, Call::get(f, {a}));
  Ref<IRModule> module = IRModule::create();
  module->addOrUpdate("main", Function::get({a}, body));
  return module;
}

/// Counts the distinct nodes of a module's functions (each node is visited
/// once; shared leaves count once).
size_t countNodes(const IRModule &module) {
  struct Counter : ExprVisitor {
    size_t count = 0;
    void visitConstant(Constant *) override { ++count; }
    void visitVar(Var *) override { ++count; }
    void visitGlobalVar(GlobalVar *) override { ++count; }
    void visitOp(Op *) override { ++count; }
    void visitCall(Call *e) override { ++count, ExprVisitor::visitCall(e); }
    void visitTuple(Tuple *e) override { ++count, ExprVisitor::visitTuple(e); }
    void visitTupleGetItem(TupleGetItem *e) override {
      ++count, ExprVisitor::visitTupleGetItem(e);
    }
    void visitLet(Let *e) override { ++count, ExprVisitor::visitLet(e); }
    void visitIf(If *e) override { ++count, ExprVisitor::visitIf(e); }
    void visitFunction(Function *e) override {
      ++count, ExprVisitor::visitFunction(e);
    }
  } counter;
  for (const IRModule::Entry &entry : module.getFunctions())
    counter.visit(entry.func.get());
  return counter.count;
}

void report(benchmark::State &state, const IRModule &module, StringRef label) {
  size_t nodes = countNodes(module);
  state.SetLabel(label.str());
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["per_node"] =
      benchmark::Counter(static_cast<double>(nodes),
                         benchmark::Counter::kIsIterationInvariantRate |
                             benchmark::Counter::kInvert);
}

StringRef kindLabel(GraphKind kind) {
  return kind == CallChain ? "1M-call chain" : "1M-let chain";
}

/// Runs inferTypes on \p module once per iteration; freeing the result is
/// not timed.
void runInfer(benchmark::State &state, const Ref<IRModule> &module) {
  for (auto _ : state) {
    Expected<Ref<IRModule>> typed = inferTypes(module);
    if (!typed) {
      state.SkipWithError(toString(typed.takeError()).c_str());
      return;
    }
    state.PauseTiming();
    *typed = nullptr;
    state.ResumeTiming();
  }
}

void BM_InferType(benchmark::State &state) {
  auto kind = static_cast<GraphKind>(state.range(0));
  Ref<IRModule> module = buildAnnotated(kind);
  runInfer(state, module);
  report(state, *module, kindLabel(kind));
}

void BM_InferTypeTyped(benchmark::State &state) {
  auto kind = static_cast<GraphKind>(state.range(0));
  Expected<Ref<IRModule>> typed = inferTypes(buildAnnotated(kind));
  if (!typed) {
    state.SkipWithError(toString(typed.takeError()).c_str());
    return;
  }
  for (auto _ : state) {
    Expected<Ref<IRModule>> again = inferTypes(*typed);
    if (!again || *again != *typed) {
      state.SkipWithError("a typed module was not returned unchanged");
      if (!again)
        consumeError(again.takeError());
      return;
    }
  }
  report(state, **typed, kindLabel(kind));
}

void BM_InferTypeUnannotated(benchmark::State &state) {
  auto kind = static_cast<GraphKind>(state.range(0));
  Ref<IRModule> module = buildUnannotated(kind);
  runInfer(state, module);
  report(state, *module, kindLabel(kind));
}

/// The text nnir-opt reads: a 1M-call chain with a scalar constant operand
/// per call, as TVM prints it.
const std::string &getChainText() {
  static const std::string text = [] {
    std::string s;
    raw_string_ostream os(s);
    os << "#[version = \"0.0.5\"]\n"
          "def @main(%x: Tensor[(4), float32]) {\n";
    os << "  %0 = add(%x, 1f);\n";
    for (unsigned i = 1; i != kChainLength; ++i)
      os << "  %" << i << " = " << (i % 2 ? "multiply" : "add") << "(%" << i - 1
         << ", 1f);\n";
    os << "  %" << kChainLength - 1 << "\n}\n";
    return s;
  }();
  return text;
}

/// Parses and verifies the chain text; with \p infer, infers types too.
void runText(benchmark::State &state, bool infer) {
  const std::string &text = getChainText();
  for (auto _ : state) {
    SourceMgr sourceMgr;
    Expected<Ref<IRModule>> module = parseModule(text, sourceMgr, "bench");
    if (!module) {
      state.SkipWithError(toString(module.takeError()).c_str());
      return;
    }
    if (Error err = verifyModule(**module)) {
      state.SkipWithError(toString(std::move(err)).c_str());
      return;
    }
    if (infer) {
      Expected<Ref<IRModule>> typed = inferTypes(*module);
      if (!typed) {
        state.SkipWithError(toString(typed.takeError()).c_str());
        return;
      }
      state.PauseTiming();
      *typed = nullptr;
    } else {
      state.PauseTiming();
    }
    *module = nullptr;
    state.ResumeTiming();
  }
  state.SetLabel("1M-call chain text, " +
                 std::to_string(text.size() / (1024 * 1024)) + " MiB");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}

void BM_ParseOnly(benchmark::State &state) { runText(state, false); }
void BM_InferTypeText(benchmark::State &state) { runText(state, true); }

BENCHMARK(BM_InferType)
    ->Arg(CallChain)
    ->Arg(LetChain)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InferTypeTyped)
    ->Arg(CallChain)
    ->Arg(LetChain)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InferTypeUnannotated)
    ->Arg(CallChain)
    ->Arg(LetChain)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InferTypeText)->Unit(benchmark::kMillisecond);

} // namespace
