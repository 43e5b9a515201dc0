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

/// nn.leaky_relu. TVM's Python API defaults alpha to 0.01, so TVM-printed
/// modules usually show `alpha=0.01f`.
struct LeakyReluAttrs : AttrsNode<LeakyReluAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.LeakyReluAttrs";
  double alpha = 0.25;
  template <typename V> void visitFields(V &v) { v("alpha", alpha, 0.25); }
};

/// nn.prelu: the channel axis that alpha runs along.
struct PReluAttrs : AttrsNode<PReluAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.PReluAttrs";
  int64_t axis = 1;
  template <typename V> void visitFields(V &v) { v("axis", axis, 1); }
};

} // namespace nnir

#endif // NNIR_OPS_ELEMENTWISEATTRS_H
