//===- NNAttrs.h - Attribute records of NN ops ------------------*- C++ -*-===//
//
/// \file
/// The attribute records of the neural-network operators (convolution, dense,
/// normalisation, pooling, ...), with TVM Relay's field names, order and
/// defaults (see nnir/IR/Attrs.h).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_NNATTRS_H
#define NNIR_OPS_NNATTRS_H

#include "nnir/IR/Attrs.h"

#include <optional>
#include <string>
#include <vector>

namespace nnir {

using IntList = std::vector<int64_t>;

/// nn.conv2d
struct Conv2DAttrs : AttrsNode<Conv2DAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.Conv2DAttrs";
  IntList strides, padding, dilation;
  int64_t groups = 1;
  std::optional<int64_t> channels;
  std::optional<IntList> kernelSize;
  std::string dataLayout, kernelLayout, outLayout;
  DataType outDtype;
  template <typename V> void visitFields(V &v) {
    v("strides", strides, {1, 1});
    v("padding", padding, {0, 0});
    v("dilation", dilation, {1, 1});
    v("groups", groups, 1);
    v("channels", channels, std::nullopt);
    v("kernel_size", kernelSize, std::nullopt);
    v("data_layout", dataLayout, "NCHW");
    v("kernel_layout", kernelLayout, "OIHW");
    v("out_layout", outLayout, "");
    v("out_dtype", outDtype, DataType());
  }
};

/// nn.dense
struct DenseAttrs : AttrsNode<DenseAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.DenseAttrs";
  std::optional<int64_t> units;
  DataType outDtype;
  template <typename V> void visitFields(V &v) {
    v("units", units);
    v("out_dtype", outDtype, DataType());
  }
};

/// nn.bias_add
struct BiasAddAttrs : AttrsNode<BiasAddAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.BiasAddAttrs";
  int64_t axis = 1;
  template <typename V> void visitFields(V &v) { v("axis", axis, 1); }
};

/// nn.batch_norm
struct BatchNormAttrs : AttrsNode<BatchNormAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.BatchNormAttrs";
  int64_t axis = 1;
  double epsilon = 1e-5;
  bool center = true;
  bool scale = true;
  template <typename V> void visitFields(V &v) {
    v("axis", axis, 1);
    v("epsilon", epsilon, 1e-5);
    v("center", center, true);
    v("scale", scale, true);
  }
};

/// nn.softmax, nn.log_softmax
struct SoftmaxAttrs : AttrsNode<SoftmaxAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.SoftmaxAttrs";
  int64_t axis = -1;
  template <typename V> void visitFields(V &v) { v("axis", axis, -1); }
};

/// nn.max_pool2d
struct MaxPool2DAttrs : AttrsNode<MaxPool2DAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.MaxPool2DAttrs";
  IntList poolSize, strides, dilation, padding;
  std::string layout, outLayout;
  bool ceilMode = false;
  template <typename V> void visitFields(V &v) {
    v("pool_size", poolSize);
    v("strides", strides, {1, 1});
    v("dilation", dilation, {1, 1});
    v("padding", padding, {0, 0});
    v("layout", layout, "NCHW");
    v("out_layout", outLayout, "");
    v("ceil_mode", ceilMode, false);
  }
};

/// nn.dropout
struct DropoutAttrs : AttrsNode<DropoutAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.DropoutAttrs";
  double rate = 0.5;
  template <typename V> void visitFields(V &v) { v("rate", rate, 0.5); }
};

} // namespace nnir

#endif // NNIR_OPS_NNATTRS_H
