//===- Broadcast.h - NumPy broadcasting over tensor expressions --*- C++
//-*-===//
//
/// \file
/// NumPy's broadcasting rule for computes: shapes align from the right; an
/// extent of constant 1 stretches to the other extent. Extents that are the
/// same variable (shape-generic kernels) match without stretching.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TE_BROADCAST_H
#define NNIR_TE_BROADCAST_H

#include "nnir/TE/Tensor.h"

#include <optional>
#include <vector>

namespace nnir::te {

/// The broadcast of \p a and \p b, or std::nullopt if two constant extents
/// differ and neither is 1.
std::optional<std::vector<Expr>> broadcastShape(llvm::ArrayRef<Expr> a,
                                                llvm::ArrayRef<Expr> b);

/// Reads \p t at the output position \p outIndices of a broadcast whose rank
/// is outIndices.size(): leading output axes are dropped and axes where
/// \p t has extent 1 read index 0.
Expr broadcastRead(const Tensor &t, llvm::ArrayRef<Expr> outIndices);

} // namespace nnir::te

#endif // NNIR_TE_BROADCAST_H
