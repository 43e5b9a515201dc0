//===- Broadcast.cpp - NumPy broadcasting over tensor expressions ---------===//

#include "nnir/TE/Broadcast.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

std::optional<std::vector<Expr>> te::broadcastShape(ArrayRef<Expr> a,
                                                    ArrayRef<Expr> b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<Expr> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    Expr ea = i < a.size() ? a[a.size() - 1 - i] : Expr(1);
    Expr eb = i < b.size() ? b[b.size() - 1 - i] : Expr(1);
    Expr &slot = out[rank - 1 - i];
    if (provablyEqual(ea, eb) || eb.isConstInt(1))
      slot = ea;
    else if (ea.isConstInt(1))
      slot = eb;
    else
      return std::nullopt;
  }
  return out;
}

Expr te::broadcastRead(const Tensor &t, ArrayRef<Expr> outIndices) {
  assert(outIndices.size() >= t.getRank() &&
         "reading a broadcast of lower rank");
  size_t offset = outIndices.size() - t.getRank();
  SmallVector<Expr, 4> indices;
  for (unsigned i = 0; i < t.getRank(); ++i)
    indices.push_back(t.getShape()[i].isConstInt(1) ? Expr(0)
                                                    : outIndices[offset + i]);
  return t(indices);
}
