//===- ReductionAttrs.h - Attribute records of reduction ops ----*- C++ -*-===//
//
/// \file
/// The attribute records of the reduction operators, with TVM Relay's field
/// names, order and defaults (see nnir/IR/Attrs.h).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_REDUCTIONATTRS_H
#define NNIR_OPS_REDUCTIONATTRS_H

#include "nnir/IR/Attrs.h"

#include <optional>
#include <string>
#include <vector>

namespace nnir {

using IntList = std::vector<int64_t>;

/// sum, mean, max, min, prod, all, any
struct ReduceAttrs : AttrsNode<ReduceAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ReduceAttrs";
  std::optional<IntList> axis;
  bool keepdims = false;
  bool exclude = false;
  template <typename V> void visitFields(V &v) {
    v("axis", axis, std::nullopt);
    v("keepdims", keepdims, false);
    v("exclude", exclude, false);
  }
};


} // namespace nnir

#endif // NNIR_OPS_REDUCTIONATTRS_H
