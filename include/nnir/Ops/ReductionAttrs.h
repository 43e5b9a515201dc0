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

/// argmax, argmin
struct ArgReduceAttrs : AttrsNode<ArgReduceAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ArgReduceAttrs";
  std::optional<IntList> axis;
  bool keepdims = false;
  /// Among equal extremes, the index of the last one instead of the first.
  bool selectLastIndex = false;
  bool exclude = false;
  template <typename V> void visitFields(V &v) {
    v("axis", axis, std::nullopt);
    v("keepdims", keepdims, false);
    v("select_last_index", selectLastIndex, false);
    v("exclude", exclude, false);
  }
};

/// variance(data, mean)
struct VarianceAttrs : AttrsNode<VarianceAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.VarianceAttrs";
  std::optional<IntList> axis;
  bool keepdims = false;
  bool exclude = false;
  /// Divide by N - 1 instead of N.
  bool unbiased = false;
  template <typename V> void visitFields(V &v) {
    v("axis", axis, std::nullopt);
    v("keepdims", keepdims, false);
    v("exclude", exclude, false);
    v("unbiased", unbiased, false);
  }
};

} // namespace nnir

#endif // NNIR_OPS_REDUCTIONATTRS_H
