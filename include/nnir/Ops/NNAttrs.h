//===- NNAttrs.h - Attribute records of NN ops ------------------*- C++ -*-===//
//
/// \file
/// The attribute records of the neural-network and image operators
/// (convolution, dense / matmul, normalisation, pooling, padding, resizing,
/// ...), with TVM Relay's field names, declaration order and C++ defaults
/// (see nnir/IR/Attrs.h). Where TVM's Python API passes other values than the
/// C++ defaults (conv2d's 4-value padding, batch_matmul's transpose_b=True,
/// resize2d's roi and rounding_method), those values are simply printed, as
/// TVM prints them.
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

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// The fields shared by nn.conv1d, nn.conv2d and nn.conv3d (Relay's
/// Conv1DAttrs, Conv2DAttrs, Conv3DAttrs): \p Rank spatial dimensions, with
/// the default layouts \p DataLayout and \p KernelLayout.
template <typename Derived, unsigned Rank>
struct ConvAttrsBase : AttrsNode<Derived> {
  static constexpr unsigned spatialRank = Rank;
  IntList strides, padding, dilation;
  int64_t groups = 1;
  std::optional<int64_t> channels;
  std::optional<IntList> kernelSize;
  std::string dataLayout, kernelLayout, outLayout;
  DataType outDtype;
  template <typename V> void visitFields(V &v) {
    v("strides", strides, IntList(Rank, 1));
    // Relay's default padding has two values for 1-D and 2-D, three for 3-D.
    v("padding", padding, IntList(Rank == 3 ? 3 : 2, 0));
    v("dilation", dilation, IntList(Rank, 1));
    v("groups", groups, 1);
    v("channels", channels, std::nullopt);
    v("kernel_size", kernelSize, std::nullopt);
    v("data_layout", dataLayout, Derived::defaultDataLayout.str());
    v("kernel_layout", kernelLayout, Derived::defaultKernelLayout.str());
    v("out_layout", outLayout, "");
    v("out_dtype", outDtype, DataType());
  }
};

/// nn.conv1d
struct Conv1DAttrs : ConvAttrsBase<Conv1DAttrs, 1> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.Conv1DAttrs";
  static constexpr llvm::StringLiteral defaultDataLayout = "NCW";
  static constexpr llvm::StringLiteral defaultKernelLayout = "OIW";
};

/// nn.conv2d
struct Conv2DAttrs : ConvAttrsBase<Conv2DAttrs, 2> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.Conv2DAttrs";
  static constexpr llvm::StringLiteral defaultDataLayout = "NCHW";
  static constexpr llvm::StringLiteral defaultKernelLayout = "OIHW";
};

/// nn.conv3d
struct Conv3DAttrs : ConvAttrsBase<Conv3DAttrs, 3> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.Conv3DAttrs";
  static constexpr llvm::StringLiteral defaultDataLayout = "NCDHW";
  static constexpr llvm::StringLiteral defaultKernelLayout = "OIDHW";
};

/// The fields shared by nn.conv1d_transpose, nn.conv2d_transpose and
/// nn.conv3d_transpose (Relay's Conv1DTransposeAttrs, ...): \p Rank spatial
/// dimensions; the weight is IOW / IOHW / IODHW by default.
template <typename Derived, unsigned Rank>
struct ConvTransposeAttrsBase : AttrsNode<Derived> {
  static constexpr unsigned spatialRank = Rank;
  std::optional<int64_t> channels;
  std::optional<IntList> kernelSize;
  IntList strides, outputPadding, padding, dilation;
  int64_t groups = 1;
  std::string dataLayout, kernelLayout, outLayout;
  DataType outDtype;
  template <typename V> void visitFields(V &v) {
    v("channels", channels, std::nullopt);
    v("kernel_size", kernelSize, std::nullopt);
    v("strides", strides, IntList(Rank, 1));
    v("output_padding", outputPadding, IntList(Rank, 0));
    v("padding", padding, IntList(Rank, 0));
    v("dilation", dilation, IntList(Rank, 1));
    v("groups", groups, 1);
    v("data_layout", dataLayout, Derived::defaultDataLayout.str());
    v("kernel_layout", kernelLayout, Derived::defaultKernelLayout.str());
    v("out_layout", outLayout, "");
    v("out_dtype", outDtype, DataType());
  }
};

/// nn.conv1d_transpose
struct Conv1DTransposeAttrs
    : ConvTransposeAttrsBase<Conv1DTransposeAttrs, 1> {
  static constexpr llvm::StringLiteral typeKey =
      "relay.attrs.Conv1DTransposeAttrs";
  static constexpr llvm::StringLiteral defaultDataLayout = "NCW";
  static constexpr llvm::StringLiteral defaultKernelLayout = "IOW";
};

/// nn.conv2d_transpose
struct Conv2DTransposeAttrs
    : ConvTransposeAttrsBase<Conv2DTransposeAttrs, 2> {
  static constexpr llvm::StringLiteral typeKey =
      "relay.attrs.Conv2DTransposeAttrs";
  static constexpr llvm::StringLiteral defaultDataLayout = "NCHW";
  static constexpr llvm::StringLiteral defaultKernelLayout = "IOHW";
};

/// nn.conv3d_transpose
struct Conv3DTransposeAttrs
    : ConvTransposeAttrsBase<Conv3DTransposeAttrs, 3> {
  static constexpr llvm::StringLiteral typeKey =
      "relay.attrs.Conv3DTransposeAttrs";
  static constexpr llvm::StringLiteral defaultDataLayout = "NCDHW";
  static constexpr llvm::StringLiteral defaultKernelLayout = "IODHW";
};

//===----------------------------------------------------------------------===//
// Dense and matrix products
//===----------------------------------------------------------------------===//

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

/// nn.matmul
struct MatmulAttrs : AttrsNode<MatmulAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.MatmulAttrs";
  std::optional<int64_t> units;
  DataType outDtype;
  bool transposeA = false;
  bool transposeB = false;
  template <typename V> void visitFields(V &v) {
    v("units", units);
    v("out_dtype", outDtype, DataType());
    v("transpose_a", transposeA, false);
    v("transpose_b", transposeB, false);
  }
};

/// nn.batch_matmul (TVM's Python API passes transpose_b=True, so it prints).
struct BatchMatmulAttrs : AttrsNode<BatchMatmulAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.BatchMatmulAttrs";
  DataType outDtype;
  bool transposeA = false;
  bool transposeB = false;
  template <typename V> void visitFields(V &v) {
    v("out_dtype", outDtype, DataType());
    v("transpose_a", transposeA, false);
    v("transpose_b", transposeB, false);
  }
};

/// nn.bias_add
struct BiasAddAttrs : AttrsNode<BiasAddAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.BiasAddAttrs";
  int64_t axis = 1;
  template <typename V> void visitFields(V &v) { v("axis", axis, 1); }
};

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

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

/// nn.layer_norm
struct LayerNormAttrs : AttrsNode<LayerNormAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.LayerNormAttrs";
  int64_t axis = -1;
  double epsilon = 1e-5;
  bool center = true;
  bool scale = true;
  template <typename V> void visitFields(V &v) {
    v("axis", axis, -1);
    v("epsilon", epsilon, 1e-5);
    v("center", center, true);
    v("scale", scale, true);
  }
};

/// nn.group_norm
struct GroupNormAttrs : AttrsNode<GroupNormAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.GroupNormAttrs";
  int64_t numGroups = 0;
  int64_t axis = 1;
  double epsilon = 1e-5;
  bool center = true;
  bool scale = true;
  template <typename V> void visitFields(V &v) {
    v("num_groups", numGroups, 0);
    v("axis", axis, 1);
    v("epsilon", epsilon, 1e-5);
    v("center", center, true);
    v("scale", scale, true);
  }
};

/// nn.instance_norm
struct InstanceNormAttrs : AttrsNode<InstanceNormAttrs> {
  static constexpr llvm::StringLiteral typeKey =
      "relay.attrs.InstanceNormAttrs";
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

/// nn.lrn
struct LRNAttrs : AttrsNode<LRNAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.LRNAttrs";
  int64_t size = 5;
  int64_t axis = 1;
  double bias = 2;
  double alpha = 0.0001;
  double beta = 0.75;
  template <typename V> void visitFields(V &v) {
    v("size", size, 5);
    v("axis", axis, 1);
    v("bias", bias, 2.0);
    v("alpha", alpha, 0.0001);
    v("beta", beta, 0.75);
  }
};

/// nn.l2_normalize (axis None: every axis).
struct L2NormalizeAttrs : AttrsNode<L2NormalizeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.L2NormalizeAttrs";
  double eps = 0;
  std::optional<IntList> axis;
  template <typename V> void visitFields(V &v) {
    v("eps", eps);
    v("axis", axis);
  }
};

/// nn.softmax, nn.log_softmax
struct SoftmaxAttrs : AttrsNode<SoftmaxAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.SoftmaxAttrs";
  int64_t axis = -1;
  template <typename V> void visitFields(V &v) { v("axis", axis, -1); }
};

/// nn.dropout
struct DropoutAttrs : AttrsNode<DropoutAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.DropoutAttrs";
  double rate = 0.5;
  template <typename V> void visitFields(V &v) { v("rate", rate, 0.5); }
};

/// nn.pad: one (before, after) pair per axis.
struct PadAttrs : AttrsNode<PadAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.PadAttrs";
  std::vector<IntList> padWidth;
  std::string padMode = "constant";
  template <typename V> void visitFields(V &v) {
    v("pad_width", padWidth);
    v("pad_mode", padMode, "constant");
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

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

/// nn.avg_pool2d
struct AvgPool2DAttrs : AttrsNode<AvgPool2DAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.AvgPool2DAttrs";
  IntList poolSize, strides, dilation, padding;
  std::string layout, outLayout;
  bool ceilMode = false;
  bool countIncludePad = false;
  template <typename V> void visitFields(V &v) {
    v("pool_size", poolSize);
    v("strides", strides, {1, 1});
    v("dilation", dilation, {1, 1});
    v("padding", padding, {0, 0});
    v("layout", layout, "NCHW");
    v("out_layout", outLayout, "");
    v("ceil_mode", ceilMode, false);
    v("count_include_pad", countIncludePad, false);
  }
};

/// nn.global_avg_pool2d, nn.global_max_pool2d
struct GlobalPool2DAttrs : AttrsNode<GlobalPool2DAttrs> {
  static constexpr llvm::StringLiteral typeKey =
      "relay.attrs.GlobalPool2DAttrs";
  std::string layout, outLayout;
  template <typename V> void visitFields(V &v) {
    v("layout", layout, "NCHW");
    v("out_layout", outLayout, "");
  }
};

/// nn.adaptive_avg_pool2d, nn.adaptive_max_pool2d
struct AdaptivePool2DAttrs : AttrsNode<AdaptivePool2DAttrs> {
  static constexpr llvm::StringLiteral typeKey =
      "relay.attrs.AdaptivePool2DAttrs";
  IntList outputSize;
  std::string layout, outLayout;
  template <typename V> void visitFields(V &v) {
    v("output_size", outputSize, IntList());
    v("layout", layout, "NCHW");
    v("out_layout", outLayout, "");
  }
};

//===----------------------------------------------------------------------===//
// Resizing
//===----------------------------------------------------------------------===//

/// nn.upsampling
struct UpSamplingAttrs : AttrsNode<UpSamplingAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.UpSamplingAttrs";
  double scaleH = 0, scaleW = 0;
  std::string layout, method;
  bool alignCorners = false;
  template <typename V> void visitFields(V &v) {
    v("scale_h", scaleH);
    v("scale_w", scaleW);
    v("layout", layout, "NCHW");
    v("method", method, "nearest_neighbor");
    v("align_corners", alignCorners, false);
  }
};

/// image.resize2d (TVM's Python API passes roi=[0f, 0f, 0f, 0f] and
/// rounding_method="", so both print).
struct Resize2DAttrs : AttrsNode<Resize2DAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.Resize2DAttrs";
  std::optional<IntList> size;
  std::optional<std::vector<double>> roi;
  std::string layout, method, coordinateTransformationMode, roundingMethod;
  double cubicAlpha = -0.5;
  int64_t cubicExclude = 0;
  double extrapolationValue = 0;
  DataType outDtype;
  template <typename V> void visitFields(V &v) {
    v("size", size, std::nullopt);
    v("roi", roi, std::nullopt);
    v("layout", layout, "NCHW");
    v("method", method, "linear");
    v("coordinate_transformation_mode", coordinateTransformationMode,
      "half_pixel");
    v("rounding_method", roundingMethod, "round");
    v("cubic_alpha", cubicAlpha, -0.5);
    v("cubic_exclude", cubicExclude, 0);
    v("extrapolation_value", extrapolationValue, 0.0);
    v("out_dtype", outDtype, DataType());
  }
};

/// image.grid_sample: `method` "bilinear", "nearest" or "bicubic";
/// `padding_mode` "zeros", "border" or "reflection".
struct GridSampleAttrs : AttrsNode<GridSampleAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.GridSampleAttrs";
  std::string method, layout, paddingMode;
  bool alignCorners = true;
  template <typename V> void visitFields(V &v) {
    v("method", method, "bilinear");
    v("layout", layout, "NCHW");
    v("padding_mode", paddingMode, "zeros");
    v("align_corners", alignCorners, true);
  }
};

} // namespace nnir

#endif // NNIR_OPS_NNATTRS_H
