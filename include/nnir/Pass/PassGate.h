//===- PassGate.h - Deciding which passes run -------------------*- C++ -*-===//
//
/// \file
/// A PassGate decides, before each pass that may be skipped, whether it runs
/// (LLVM's OptPassGate). A pass may be skipped unless it is a Sequential (a
/// container: its children are asked), it establishes types (InferType: the
/// passes after it need them) or the context requires it by name. The
/// PassContext holds at most one gate; Pass::run asks it before the
/// instruments.
///
/// PassBisect is LLVM's OptBisect for nnir's passes (nnir-opt
/// --pass-bisect-limit=N): the first N passes that may be skipped run, the
/// others do not, and each decision is printed as
///
///   BISECT: running pass (1) FoldConstant
///   BISECT: NOT running pass (2) SimplifyExpr
///
/// so that bisecting N finds the pass that breaks a pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PASS_PASSGATE_H
#define NNIR_PASS_PASSGATE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace nnir {

class PassGate {
public:
  virtual ~PassGate();
  /// True if the pass named \p name (one that may be skipped) runs.
  virtual bool shouldRunPass(llvm::StringRef name) = 0;
};

class PassBisect final : public PassGate {
public:
  /// Runs the first \p limit passes (negative: all, still numbered and
  /// printed), printing each decision on \p os.
  PassBisect(int64_t limit, llvm::raw_ostream &os) : limit(limit), os(os) {}

  bool shouldRunPass(llvm::StringRef name) override;
  /// The number of passes asked about so far.
  int64_t getCount() const { return count; }

private:
  int64_t limit;
  int64_t count = 0;
  llvm::raw_ostream &os;
};

} // namespace nnir

#endif // NNIR_PASS_PASSGATE_H
