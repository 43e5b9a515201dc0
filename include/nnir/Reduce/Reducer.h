//===- Reducer.h - Shrink a module while a test stays true ------*- C++ -*-===//
//
/// \file
/// The test-case reducer behind nnir-reduce (LLVM's llvm-reduce, MLIR's
/// mlir-reduce): given a module and an interestingness test, finds a smaller
/// module the test still accepts. Reductions, each applied to the targets it
/// finds in the module (numbered in a fixed walk order) with delta debugging
/// (try reducing all the targets, then halves, quarters, ... of those still
/// unreduced; keep every reduction the test accepts):
///
///   remove-functions    a global function whose every use is a call; each
///                       call of it becomes zeros of its type
///   remove-lets         `let %x = v; b` becomes `b` with v for %x
///   operand             an expression becomes one of its operands of its
///                       own type (a call's argument, an if's branch)
///   parameter           an expression becomes a new parameter of the
///                       enclosing global function (when nothing calls it)
///   zero                an expression becomes zeros of its type
///   unused-parameters   a parameter no one uses is dropped (and the
///                       matching argument of every call of its function)
///   constants           a constant becomes a splat of its first element; a
///                       splat or scalar becomes zeros
///   shapes              a dimension of a parameter of a function nothing
///                       calls is halved (the function's let annotations and
///                       return types are dropped for type inference to fill)
///
/// The reductions run in that order, again and again until a whole round
/// changes nothing. Every candidate is well formed before the test sees it:
/// it is printed, parsed back, verified and type-checked (InferType); a
/// candidate that fails is dropped without running the test. A candidate is
/// accepted only when it is smaller than the current module (fewer
/// expression nodes, then fewer parameters, then fewer elements in
/// constants that are not splats, then fewer non-zero constants, then fewer
/// elements in parameter types), so the reduction always ends.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_REDUCE_REDUCER_H
#define NNIR_REDUCE_REDUCER_H

#include "nnir/IR/Module.h"
#include "nnir/Parser/Parser.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace nnir {

/// Decides whether a candidate, given as nnir text (what the reducer would
/// write), is interesting. An error stops the reduction.
using InterestingnessTest =
    llvm::function_ref<llvm::Expected<bool>(llvm::StringRef text)>;

struct ReduceOptions {
  /// Stop after this many test runs (0: no bound).
  uint64_t maxTestRuns = 0;
  /// Stop starting new test runs after this many seconds (0: no bound).
  double timeLimitSeconds = 0;
  /// Where to log every accepted reduction (null: nowhere).
  llvm::raw_ostream *log = nullptr;
  /// How candidates are parsed back.
  ParserOptions parserOptions;
};

struct ReduceStats {
  /// Calls and global functions of the input and of the result.
  uint64_t callsBefore = 0, callsAfter = 0;
  uint64_t functionsBefore = 0, functionsAfter = 0;
  /// Interestingness test runs (the first, on the input, included), how
  /// many said yes, and the candidates dropped as ill-formed (never tested).
  uint64_t testRuns = 0, interestingRuns = 0, illFormedCandidates = 0;
  double seconds = 0;
  /// A bound (maxTestRuns, timeLimitSeconds) stopped the reduction early.
  bool stoppedEarly = false;
};

/// The number of call nodes of \p module (each shared node once).
uint64_t countCalls(const IRModule &module);

/// Reduces \p module, which must be well formed (it is type-checked first),
/// while \p test accepts it. The input itself must be interesting: if
/// \p test rejects it, that is an error. Returns the smallest interesting
/// module found (typed), with figures in \p stats.
llvm::Expected<Ref<IRModule>> reduceModule(Ref<IRModule> module,
                                           InterestingnessTest test,
                                           const ReduceOptions &options,
                                           ReduceStats &stats);

/// The text the reducer writes for \p module (and hands to the test).
std::string printForReduction(const IRModule &module);

} // namespace nnir

#endif // NNIR_REDUCE_REDUCER_H
