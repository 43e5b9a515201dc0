//===- PatternUtils.cpp - Building and matching operator calls ------------===//
//
/// \file
/// The helpers of PatternUtils.h.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"

#include "nnir/Support/Diagnostics.h"

#include <cassert>

using namespace llvm;
using namespace nnir;
using namespace nnir::patterns;

Expected<OpSet> OpSet::get(ArrayRef<StringRef> names) {
  OpSet set;
  for (StringRef name : names) {
    Op *op = Op::lookup(name);
    if (!op)
      return makeError("operator '" + name +
                       "' is not registered (call registerAllOps())");
    set.ops[name] = op;
  }
  return set;
}

Op *OpSet::operator[](StringRef name) const {
  auto it = ops.find(name);
  assert(it != ops.end() && "operator not in the OpSet");
  return it->second;
}

const TensorType *patterns::getTensorType(const Expr *e) {
  return e ? dyn_cast_or_null<TensorType>(e->getCheckedType().get()) : nullptr;
}

Ref<Expr> patterns::expandBiasToMatchAxis(Ref<Expr> bias, int64_t targetRank,
                                          ArrayRef<int64_t> axes, SMLoc loc) {
  // Pad after the last axis up to the target rank, then between each pair
  // of neighbours, from the last pair to the first. (Relay pads one
  // dimension too many between neighbours; every caller there uses one
  // axis.)
  for (size_t i = axes.size(); i != 0; --i) {
    int64_t count = i == axes.size() ? targetRank - axes[i - 1] - 1
                                     : axes[i] - axes[i - 1] - 1;
    if (count > 0)
      bias =
          ops::expandDims(std::move(bias), static_cast<int64_t>(i), count, loc);
  }
  return bias;
}

bool patterns::isEqualScalar(const Expr *a, const Expr *b) {
  const auto *ca = dyn_cast_or_null<Constant>(a);
  const auto *cb = dyn_cast_or_null<Constant>(b);
  if (!ca || !cb || !ca->isScalar() || !cb->isScalar())
    return false;
  const NDArray &da = ca->getData();
  const NDArray &db = cb->getData();
  return da.getDType() == db.getDType() && da.getBytes() == db.getBytes();
}
