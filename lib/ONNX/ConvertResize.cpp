//===- ConvertResize.cpp - Resize and Upsample ----------------------------===//
//
/// \file
/// Resize and Upsample as image.resize2d.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace llvm;

namespace nnir {
namespace onnximport {

/// Resize (opsets 10-17) and Upsample (7-9) as image.resize2d of the last two
/// axes of an NCHW tensor. Scales and sizes must be known at import time.
/// image.resize2d derives each axis's scale from the input and output
/// extents (as TVM does), so `scales` whose input * scale is not a whole
/// number (a downscale by 0.6 of 4 elements gives 2 of them, where ONNX
/// maps coordinates through 2.4) are refused rather than computed with
/// another scale than ONNX's.
Result convertResize(NodeContext &ctx, ResizeKind kind) {
  bool upsample = kind == ResizeKind::Upsample;
  int64_t opset = ctx.getOpset();
  if (Error err = ctx.checkNumInputs(1, upsample ? 2 : 4))
    return err;
  const Value &x = ctx.input(0);
  // Inputs: Upsample-9 (X, scales); Resize-10 (X, scales); Resize-11+ (X,
  // roi, scales, sizes).
  size_t roiInput = 1, scalesInput = opset >= 11 && !upsample ? 2 : 1,
         sizesInput = 3;
  std::vector<double> scales, roi;
  std::vector<int64_t> sizes;
  if (upsample && opset < 9) {
    TRY(attrScales, ctx.getFloats("scales"));
    scales = attrScales;
  } else if (ctx.hasInput(scalesInput)) {
    TRY(values, ctx.constantFloats(scalesInput, "scales"));
    scales = values;
  }
  if (!upsample && opset >= 11 && ctx.hasInput(sizesInput)) {
    TRY(values, ctx.constantInts(sizesInput, "sizes"));
    sizes = values;
  }
  size_t rank = x.rank();
  if (!sizes.empty() && !scales.empty())
    return ctx.error("scales and sizes are both given");
  if (sizes.empty() && scales.empty())
    return ctx.error("neither scales nor sizes is given");
  if ((!sizes.empty() && sizes.size() != rank) ||
      (!scales.empty() && scales.size() != rank))
    return ctx.error(formatv("scales or sizes must have {0} values (the "
                             "input's rank)",
                             rank)
                         .str());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (!sizes.empty()) {
      out[i] = sizes[i];
    } else {
      if (!(scales[i] > 0) || !std::isfinite(scales[i]))
        return ctx.error("scales must be positive and finite");
      double extent = std::floor(double(x.shape()[i]) * scales[i]);
      if (extent > double(int64_t(1) << 40))
        return ctx.error("the output is too large");
      out[i] = int64_t(extent);
    }
    if (out[i] <= 0)
      return ctx.error("the output would be empty");
  }

  std::string mode = "nearest", coordMode, nearestMode = "round_prefer_floor";
  double cubicA = -0.75, extrapolation = 0;
  int64_t excludeOutside = 0;
  {
    TRY(m, ctx.getString("mode", "nearest"));
    mode = m;
  }
  if (upsample || opset < 11) {
    // Upsample and Resize-10: asymmetric coordinates, nearest rounds down.
    coordMode = "asymmetric";
    nearestMode = "floor";
  } else {
    TRY(c, ctx.getString("coordinate_transformation_mode", "half_pixel"));
    TRY(n, ctx.getString("nearest_mode", "round_prefer_floor"));
    TRY(a, ctx.getFloat("cubic_coeff_a", -0.75));
    TRY(e, ctx.getInt("exclude_outside", 0));
    TRY(v, ctx.getFloat("extrapolation_value", 0));
    coordMode = c;
    nearestMode = n;
    cubicA = a;
    excludeOutside = e;
    extrapolation = v;
    if (coordMode == "tf_crop_and_resize") {
      if (!ctx.hasInput(roiInput))
        return ctx.error("tf_crop_and_resize needs the roi input");
      TRY(values, ctx.constantFloats(roiInput, "roi"));
      if (values.size() != 2 * rank)
        return ctx.error(
            formatv("roi must have {0} values (twice the input's rank)",
                    2 * rank)
                .str());
      roi = values;
    }
  }
  if (mode == "bilinear" || mode == "linear")
    mode = "linear";
  else if (mode != "nearest" && mode != "cubic")
    return ctx.error("unknown mode '" + mode + "'");
  if (mode == "cubic" && (upsample || opset < 11))
    return ctx.error("mode 'cubic' needs opset 11 or later");

  if (rank < 2 || rank > 4)
    return ctx.unsupported(formatv("{0} of a tensor of rank {1} (nnir resizes "
                                   "the last two axes of a 2-D to 4-D tensor)",
                                   ctx.getOpType(), rank)
                               .str());
  for (size_t i = 0; i + 2 < rank; ++i) {
    if (out[i] != x.shape()[i])
      return ctx.unsupported(formatv("resizing axis {0} (nnir resizes the "
                                     "last two axes)",
                                     i)
                                 .str());
    if (!roi.empty() && (roi[i] != 0 || roi[i + rank] != 1))
      return ctx.unsupported(
          formatv("a roi that crops axis {0} (nnir resizes the last two axes)",
                  i)
              .str());
  }
  // ONNX maps coordinates through input * scale, unrounded (align_corners
  // through input * scale - 1); image.resize2d through the output extent.
  if (!scales.empty())
    for (size_t i = rank - 2; i < rank; ++i)
      if (double(x.shape()[i]) * scales[i] != double(out[i]))
        return ctx.unsupported(
            formatv("scale {0} of axis {1}: {2} x {0} is not a whole number "
                    "(image.resize2d maps coordinates through the output "
                    "extent, ONNX through input x scale)",
                    scales[i], i, x.shape()[i]));

  // image.resize2d works on NCHW: give the tensor leading axes of 1.
  std::vector<int64_t> shape4(4 - rank, 1);
  shape4.insert(shape4.end(), x.shape().begin(), x.shape().end());
  TRY(x4, reshape(ctx, x, shape4));
  Ref<Resize2DAttrs> attrs = Resize2DAttrs::create();
  attrs->size = IntList{out[rank - 2], out[rank - 1]};
  attrs->layout = "NCHW";
  attrs->method = mode == "nearest" ? "nearest_neighbor" : mode;
  attrs->coordinateTransformationMode = coordMode;
  attrs->roundingMethod = mode == "nearest" ? nearestMode : "";
  attrs->cubicAlpha = cubicA;
  attrs->cubicExclude = excludeOutside;
  attrs->extrapolationValue = extrapolation;
  if (!roi.empty())
    attrs->roi = std::vector<double>{roi[rank - 2], roi[rank - 1],
                                     roi[2 * rank - 2], roi[2 * rank - 1]};
  TRY(resized, ctx.typed(ops::resize2d(x4, attrs)));
  TRY(y, reshape(ctx, resized, out));
  return one(y);
}

} // namespace onnximport
} // namespace nnir
