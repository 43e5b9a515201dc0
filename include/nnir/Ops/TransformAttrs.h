//===- TransformAttrs.h - Attribute records of transform ops ----*- C++ -*-===//
//
/// \file
/// The attribute records of the data movement operators, with TVM Relay's field
/// names, order and defaults (see nnir/IR/Attrs.h).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_TRANSFORMATTRS_H
#define NNIR_OPS_TRANSFORMATTRS_H

#include "nnir/IR/Attrs.h"

#include <optional>
#include <string>
#include <vector>

namespace nnir {

using IntList = std::vector<int64_t>;

/// reshape
struct ReshapeAttrs : AttrsNode<ReshapeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ReshapeAttrs";
  IntList newshape;
  bool allowzero = false;
  template <typename V> void visitFields(V &v) {
    v("newshape", newshape);
    v("allowzero", allowzero, false);
  }
};

/// transpose
struct TransposeAttrs : AttrsNode<TransposeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.TransposeAttrs";
  std::optional<IntList> axes;
  template <typename V> void visitFields(V &v) { v("axes", axes); }
};

/// concatenate
struct ConcatenateAttrs : AttrsNode<ConcatenateAttrs> {
  static constexpr llvm::StringLiteral typeKey =
      "relay.attrs.ConcatenateAttrs";
  int64_t axis = 0;
  template <typename V> void visitFields(V &v) { v("axis", axis, 0); }
};

/// split: `indices_or_sections` is an int (sections) or a list (indices).
struct SplitAttrs : AttrsNode<SplitAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.SplitAttrs";
  AttrValue indicesOrSections;
  int64_t axis = 0;
  template <typename V> void visitFields(V &v) {
    v("indices_or_sections", indicesOrSections);
    v("axis", axis, 0);
  }
};


} // namespace nnir

#endif // NNIR_OPS_TRANSFORMATTRS_H
