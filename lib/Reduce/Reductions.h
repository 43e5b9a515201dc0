//===- Reductions.h - The reductions nnir-reduce tries ----------*- C++ -*-===//
//
/// \file
/// Each reduction finds its targets in a module in a fixed walk order and
/// rewrites the module, asking an Oracle, target by target, whether to
/// reduce it (llvm-reduce's delta passes). Applied with an Oracle that
/// reduces nothing, a reduction counts its targets.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_REDUCE_REDUCTIONS_H
#define NNIR_LIB_REDUCE_REDUCTIONS_H

#include "nnir/IR/Module.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace nnir {
namespace reduce {

/// Targets [begin, end).
struct Chunk {
  unsigned begin, end;
};

/// Numbers the targets of a reduction in the order it asks, and says which
/// to reduce: those outside the chunks to keep.
class Oracle {
public:
  /// Reduces nothing (counting).
  Oracle() = default;
  /// Reduces every target outside \p keep (sorted, disjoint).
  explicit Oracle(llvm::ArrayRef<Chunk> keep) : keep(keep), counting(false) {}

  bool shouldReduce() {
    unsigned index = next++;
    if (counting)
      return false;
    while (pos < keep.size() && keep[pos].end <= index)
      ++pos;
    return !(pos < keep.size() && keep[pos].begin <= index);
  }
  /// The number of targets asked about so far.
  unsigned getCount() const { return next; }

private:
  llvm::ArrayRef<Chunk> keep;
  bool counting = true;
  unsigned next = 0;
  size_t pos = 0;
};

struct Reduction {
  llvm::StringLiteral name;
  /// \p module (typed) with the targets \p oracle names reduced.
  Ref<IRModule> (*apply)(const IRModule &module, Oracle &oracle);
};

/// True for a constant whose every element is zero (nothing left to shrink).
bool isZeroConstant(const Constant &constant);

/// The reductions, in the order they are tried.
llvm::ArrayRef<Reduction> getReductions();

} // namespace reduce
} // namespace nnir

#endif // NNIR_LIB_REDUCE_REDUCTIONS_H
