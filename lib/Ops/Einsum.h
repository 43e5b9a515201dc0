//===- Einsum.h - Einsum equations, shared by relation and compute -*- C++
//-*-===//
//
/// \file
/// Private to lib/Ops. The parsed form of an einsum equation for operands of
/// known ranks: every subscript letter and every axis covered by an
/// ellipsis gets a label; the output's labels are the explicit ones after
/// `->` or, without an arrow, NumPy's implicit output (the ellipsis axes,
/// then the letters used once, in alphabetical order). Ellipsis axes are
/// aligned from the right and broadcast; letters must have one extent.
/// Defined in Algorithm.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_EINSUM_H
#define NNIR_OPS_EINSUM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace nnir {

struct EinsumSpec {
  /// Per operand, one label per axis.
  std::vector<llvm::SmallVector<unsigned, 4>> operands;
  /// One label per output axis.
  llvm::SmallVector<unsigned, 4> output;
  /// The number of labels (labels are 0 .. numLabels-1).
  unsigned numLabels = 0;
  /// Labels that come from an ellipsis (they broadcast).
  llvm::SmallVector<bool, 8> isEllipsis;
};

/// Parses \p equation for operands of the given ranks; the error says what
/// is wrong with it.
llvm::Expected<EinsumSpec> parseEinsum(llvm::StringRef equation,
                                       llvm::ArrayRef<unsigned> ranks);

} // namespace nnir

#endif // NNIR_OPS_EINSUM_H
