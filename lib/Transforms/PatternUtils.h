//===- PatternUtils.h - Building and matching operator calls ----*- C++ -*-===//
//
/// \file
/// Helpers the graph rewrites share (Relay's pattern_utils.h): an OpSet that
/// looks up the operators a pass builds or matches once, with an error when
/// one is not registered; typed access to a call's attribute record; Relay's
/// ExpandBiasToMatchAxis; and IsEqualScalar. Rewrites build calls with the
/// operators' builders (nnir/Ops/Builders.h), which they share with the ONNX
/// importer; a pass lists the operators it builds in its OpSet too, so a
/// missing registration is its error rather than a builder's abort. Private
/// to the Transforms library.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_TRANSFORMS_PATTERNUTILS_H
#define NNIR_LIB_TRANSFORMS_PATTERNUTILS_H

#include "nnir/IR/Expr.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Ops/Builders.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

namespace nnir {
namespace patterns {

/// The operators a pass uses, looked up once by name.
class OpSet {
public:
  /// Looks up every name in \p names; an error names the first operator
  /// that is not registered (the tool did not call registerAllOps()).
  static llvm::Expected<OpSet> get(llvm::ArrayRef<llvm::StringRef> names);

  /// The operator \p name, which must be one of the names given to get().
  Op *operator[](llvm::StringRef name) const;

private:
  llvm::StringMap<Op *> ops;
};

/// The attribute record of \p call as an AttrsT, or null when the call
/// carries another record type or none.
template <typename AttrsT> const AttrsT *getAttrsAs(const Call &call) {
  const Attrs *attrs = call.getAttrs().get();
  if (!attrs || attrs->isDictAttrs() || attrs->getTypeKey() != AttrsT::typeKey)
    return nullptr;
  return static_cast<const AttrsT *>(attrs);
}

/// The checked type of \p e as a tensor type, or null.
const TensorType *getTensorType(const Expr *e);

/// Relay's ExpandBiasToMatchAxis: expands the dimensions of \p bias, whose
/// axes are the (increasing) \p axes of a rank-\p targetRank tensor, with
/// expand_dims so that it broadcasts against that tensor.
Ref<Expr> expandBiasToMatchAxis(Ref<Expr> bias, int64_t targetRank,
                                llvm::ArrayRef<int64_t> axes,
                                llvm::SMLoc loc = {});

/// Relay's IsEqualScalar: both are 0-d constants of one dtype holding the
/// same value (bitwise, so NaN equals the same NaN).
bool isEqualScalar(const Expr *a, const Expr *b);

} // namespace patterns
} // namespace nnir

#endif // NNIR_LIB_TRANSFORMS_PATTERNUTILS_H
