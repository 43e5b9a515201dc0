//===- QNNAttrs.h - Attribute records of the QNN operators ------*- C++ -*-===//
//
/// \file
/// The attribute records of the quantized operators (qnn.*), with TVM
/// Relay's field names, order and defaults (relay/qnn/attrs.h), so
/// TVM-printed calls parse unchanged. qnn.conv2d and qnn.dense take
/// nn.conv2d's and nn.dense's records, as in TVM. Scales and zero points are
/// not attributes: they are tensor arguments of the calls.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_QNNATTRS_H
#define NNIR_OPS_QNNATTRS_H

#include "nnir/IR/Attrs.h"

#include <string>

namespace nnir {

/// The fields quantize and dequantize share: the result's dtype and the
/// channel axis of per-channel parameters.
template <typename Derived> struct QuantizationAttrsBase : AttrsNode<Derived> {
  DataType outDtype;
  int64_t axis = -1;
  template <typename V> void visitFields(V &v) {
    v("out_dtype", outDtype);
    v("axis", axis, -1);
  }
};

/// qnn.quantize: float32 -> out_dtype, per tensor or along `axis`.
struct QuantizeAttrs : QuantizationAttrsBase<QuantizeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.QuantizeAttrs";
};

/// qnn.dequantize: a quantized tensor -> out_dtype (float32 or float16).
struct DequantizeAttrs : QuantizationAttrsBase<DequantizeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.DequantizeAttrs";
};

/// qnn.requantize. `rounding` is "UPWARD", "TONEAREST" or "None" (the
/// default, UPWARD); `compute_dtype` is "int64", "float32", "float64" or
/// "None" (the default, int64).
struct RequantizeAttrs : AttrsNode<RequantizeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.RequantizeAttrs";
  int64_t axis = -1;
  std::string rounding = "None";
  std::string computeDtype = "None";
  DataType outDtype;
  template <typename V> void visitFields(V &v) {
    v("axis", axis, -1);
    v("rounding", rounding, "None");
    v("compute_dtype", computeDtype, "None");
    v("out_dtype", outDtype);
  }
};

/// qnn.add, qnn.subtract, qnn.mul: the channel axes of per-channel lhs and
/// rhs scales.
struct QnnBroadcastAttrs : AttrsNode<QnnBroadcastAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.BroadcastAttrs";
  int64_t lhsAxis = -1;
  int64_t rhsAxis = -1;
  template <typename V> void visitFields(V &v) {
    v("lhs_axis", lhsAxis, -1);
    v("rhs_axis", rhsAxis, -1);
  }
};

} // namespace nnir

#endif // NNIR_OPS_QNNATTRS_H
