//===- Reducer.cpp - Shrink a module while a test stays true --------------===//
//
/// \file
/// The driver: delta debugging over each reduction's targets (llvm-reduce's
/// runDeltaPass), with every candidate checked for well-formedness and for
/// being smaller before the test sees it.
//
//===----------------------------------------------------------------------===//

#include "nnir/Reduce/Reducer.h"

#include "Reductions.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/Printer.h"
#include "nnir/IR/Traversal.h"
#include "nnir/IR/Verifier.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Transforms/InferType.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <memory>
#include <tuple>
#include <vector>

using namespace llvm;
using namespace nnir;
using namespace nnir::reduce;

uint64_t nnir::countCalls(const IRModule &module) {
  uint64_t calls = 0;
  PostOrderWalker walker;
  for (const IRModule::Entry &entry : module.getFunctions())
    walker.walk(entry.func.get(), [&](Expr *e) {
      calls += isa<Call>(e);
      return WalkAction::Descend;
    });
  return calls;
}

std::string nnir::printForReduction(const IRModule &module) {
  std::string text = toString(module);
  if (!StringRef(text).ends_with("\n"))
    text += '\n';
  return text;
}

namespace {

/// What "smaller" means, compared lexicographically: fewer expression nodes
/// (everything but variables and leaves), then fewer parameters of global
/// functions, then fewer elements in constants that are not splats, then
/// fewer constants that are not all zeros, then fewer elements in the
/// parameters' types.
struct Size {
  uint64_t nodes = 0, params = 0, denseElements = 0, nonZeroConstants = 0,
           paramElements = 0;

  explicit Size(const IRModule &module) {
    PostOrderWalker walker;
    for (const IRModule::Entry &entry : module.getFunctions()) {
      params += entry.func->getNumParams();
      for (const Ref<Var> &param : entry.func->getParams())
        paramElements += countElements(param->getCheckedType().get());
      walker.walk(entry.func.get(), [&](Expr *e) {
        if (auto *constant = dyn_cast<Constant>(e)) {
          const NDArray &data = constant->getData();
          int64_t n = data.getNumElements();
          if (n > 1 && !data.isRepeated())
            denseElements += n;
          if (!isZeroConstant(*constant))
            ++nonZeroConstants;
        } else if (!isa<Var, GlobalVar, Op>(e)) {
          ++nodes;
        }
        return WalkAction::Descend;
      });
    }
  }
  static uint64_t countElements(const Type *type) {
    if (const auto *tensor = dyn_cast_or_null<TensorType>(type))
      return tensor->getNumElements();
    uint64_t n = 0;
    if (const auto *tuple = dyn_cast_or_null<TupleType>(type))
      for (const Ref<Type> &field : tuple->getFields())
        n += countElements(field.get());
    return n;
  }
  auto tie() const {
    return std::tie(nodes, params, denseElements, nonZeroConstants,
                    paramElements);
  }
  bool operator<(const Size &other) const { return tie() < other.tie(); }
};

/// A module as the test saw it: its text, parsed back and typed (the
/// source manager holds the buffer its locations point into).
struct Version {
  std::string text;
  std::unique_ptr<SourceMgr> sourceMgr;
  Ref<IRModule> module;
};

class Reducer {
public:
  Reducer(InterestingnessTest test, const ReduceOptions &options,
          ReduceStats &stats)
      : test(test), options(options), stats(stats),
        start(std::chrono::steady_clock::now()) {}

  Error run(Ref<IRModule> input);
  Ref<IRModule> getResult() const { return current.module; }

private:
  /// Parses, verifies and types \p text.
  Expected<Version> load(std::string text) const;
  /// Makes \p candidate the current module if it is well formed, smaller
  /// and interesting.
  Expected<bool> tryCandidate(const IRModule &candidate, StringRef name);
  /// One reduction, by delta debugging; true if it reduced anything.
  Expected<bool> runReduction(const Reduction &reduction);
  bool outOfBudget();

  InterestingnessTest test;
  const ReduceOptions &options;
  ReduceStats &stats;
  std::chrono::steady_clock::time_point start;
  Version current;
};

} // namespace

Expected<Version> Reducer::load(std::string text) const {
  Version version;
  version.text = std::move(text);
  version.sourceMgr = std::make_unique<SourceMgr>();
  Expected<Ref<IRModule>> module =
      parseModule(version.text, *version.sourceMgr, "<candidate>",
                  options.parserOptions);
  if (!module)
    return module.takeError();
  if (Error err = verifyModule(**module))
    return err;
  Expected<Ref<IRModule>> typed = inferTypes(*module);
  if (!typed)
    return typed.takeError();
  version.module = *typed;
  return version;
}

bool Reducer::outOfBudget() {
  double elapsed = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  if ((options.maxTestRuns && stats.testRuns >= options.maxTestRuns) ||
      (options.timeLimitSeconds > 0 && elapsed >= options.timeLimitSeconds))
    stats.stoppedEarly = true;
  return stats.stoppedEarly;
}

Expected<bool> Reducer::tryCandidate(const IRModule &candidate,
                                     StringRef name) {
  std::string text = printForReduction(candidate);
  if (text == current.text)
    return false;
  Expected<Version> version = load(std::move(text));
  if (!version) {
    consumeError(version.takeError());
    ++stats.illFormedCandidates;
    return false;
  }
  if (!(Size(*version->module) < Size(*current.module)))
    return false;
  ++stats.testRuns;
  Expected<bool> interesting = test(version->text);
  if (!interesting || !*interesting)
    return interesting;
  ++stats.interestingRuns;
  current = std::move(*version);
  if (options.log)
    *options.log << formatv("nnir-reduce: {0}: {1} calls, {2} functions "
                            "(test run {3})\n",
                            name, countCalls(*current.module),
                            current.module->size(), stats.testRuns);
  return true;
}

Expected<bool> Reducer::runReduction(const Reduction &reduction) {
  Ref<IRModule> base = current.module;
  Oracle counter;
  (void)reduction.apply(*base, counter);
  unsigned numTargets = counter.getCount();
  if (numTargets == 0)
    return false;
  // The chunks of targets not reduced yet; candidates are made from `base`
  // (whose numbering they use), reducing all but these and one more chunk.
  std::vector<Chunk> kept{{0, numTargets}};
  bool reduced = false;
  for (;;) {
    for (size_t i = 0; i < kept.size();) {
      if (outOfBudget())
        return reduced;
      std::vector<Chunk> trial = kept;
      trial.erase(trial.begin() + i);
      Oracle oracle(trial);
      Ref<IRModule> candidate = reduction.apply(*base, oracle);
      Expected<bool> accepted = tryCandidate(*candidate, reduction.name);
      if (!accepted)
        return accepted.takeError();
      if (*accepted) {
        kept = std::move(trial);
        reduced = true;
      } else {
        ++i;
      }
    }
    // Halve the chunks left; done when they are single targets.
    std::vector<Chunk> finer;
    for (Chunk chunk : kept) {
      if (chunk.end - chunk.begin < 2) {
        finer.push_back(chunk);
        continue;
      }
      unsigned mid = chunk.begin + (chunk.end - chunk.begin) / 2;
      finer.push_back({chunk.begin, mid});
      finer.push_back({mid, chunk.end});
    }
    if (finer.size() == kept.size())
      return reduced;
    kept = std::move(finer);
  }
}

Error Reducer::run(Ref<IRModule> input) {
  Expected<Ref<IRModule>> typed = inferTypes(input);
  if (!typed)
    return typed.takeError();
  stats.callsBefore = countCalls(**typed);
  stats.functionsBefore = (*typed)->size();
  Expected<Version> first = load(printForReduction(**typed));
  if (!first)
    return joinErrors(
        makeError("the input does not read back from its nnir text"),
        first.takeError());
  current = std::move(*first);

  ++stats.testRuns;
  Expected<bool> interesting = test(current.text);
  if (!interesting)
    return interesting.takeError();
  if (!*interesting)
    return makeError("the input is not interesting: the test exits non-zero "
                     "on it (it must exit 0 on the input; check the test "
                     "by hand on the input printed as nnir text)");
  ++stats.interestingRuns;

  // Rounds of every reduction, each repeated while it makes progress,
  // until a round changes nothing.
  for (bool progress = true; progress && !outOfBudget();) {
    progress = false;
    for (const Reduction &reduction : getReductions()) {
      for (;;) {
        Expected<bool> reduced = runReduction(reduction);
        if (!reduced)
          return reduced.takeError();
        if (!*reduced)
          break;
        progress = true;
      }
    }
  }
  return Error::success();
}

Expected<Ref<IRModule>> nnir::reduceModule(Ref<IRModule> module,
                                           InterestingnessTest test,
                                           const ReduceOptions &options,
                                           ReduceStats &stats) {
  auto start = std::chrono::steady_clock::now();
  Reducer reducer(test, options, stats);
  Error err = reducer.run(std::move(module));
  stats.seconds = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  if (err)
    return err;
  Ref<IRModule> result = reducer.getResult();
  stats.callsAfter = countCalls(*result);
  stats.functionsAfter = result->size();
  return result;
}
