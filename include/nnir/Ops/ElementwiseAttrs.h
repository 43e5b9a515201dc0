//===- ElementwiseAttrs.h - Attribute records of elementwise ops *- C++ -*-===//
//
/// \file
/// The attribute records of the unary and binary elementwise operators, with
/// TVM Relay's field names, order and defaults (see nnir/IR/Attrs.h).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_ELEMENTWISEATTRS_H
#define NNIR_OPS_ELEMENTWISEATTRS_H

#include "nnir/IR/Attrs.h"

#include <optional>
#include <string>
#include <vector>

namespace nnir {

using IntList = std::vector<int64_t>;

/// cast, reinterpret
struct CastAttrs : AttrsNode<CastAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.CastAttrs";
  DataType dtype;
  template <typename V> void visitFields(V &v) { v("dtype", dtype); }
};

/// clip
struct ClipAttrs : AttrsNode<ClipAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ClipAttrs";
  double aMin = 0;
  double aMax = 0;
  template <typename V> void visitFields(V &v) {
    v("a_min", aMin);
    v("a_max", aMax);
  }
};


} // namespace nnir

#endif // NNIR_OPS_ELEMENTWISEATTRS_H
