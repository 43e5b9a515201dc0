//===- ConvertResize.cpp - Resize and Upsample ----------------------------===//
//
/// \file
/// Resize and Upsample as image.resize2d (or interpolation matrices where
/// it cannot follow ONNX), GridSample as image.grid_sample.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace nnir {
namespace onnximport {

namespace {
/// What ONNX's interpolation of one axis depends on.
struct AxisResize {
  std::string mode, coordMode, nearestMode;
  double cubicA;
  bool excludeOutside;
};
} // namespace

/// The weights of ONNX's 1-D interpolation (the backend tests' reference,
/// interpolate_1d_with_x) as an (out x in) matrix: output o reads the n
/// (2, or 4 for cubic) input positions nearest x = the transformed
/// coordinate of o, within the input padded by ceil(n/2) edge copies, with
/// the mode's coefficients of x's fraction (1 when x is whole).
static std::vector<double> interpolationMatrix(const AxisResize &r,
                                               int64_t in, int64_t out,
                                               double scale) {
  std::vector<double> m(out * in, 0.0);
  double outWidth = scale * double(in);
  int n = r.mode == "cubic" ? 4 : 2, pad = (n + 1) / 2;
  for (int64_t o = 0; o < out; ++o) {
    double x = double(o), xo;
    if (r.coordMode == "align_corners")
      xo = outWidth == 1 ? 0 : x * double(in - 1) / (outWidth - 1);
    else if (r.coordMode == "asymmetric")
      xo = x / scale;
    else if (r.coordMode == "pytorch_half_pixel")
      xo = outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    else // half_pixel
      xo = (x + 0.5) / scale - 0.5;
    double floorX = std::floor(xo);
    bool whole = xo == floorX;
    double ratio = whole ? 1.0 : xo - floorX;
    double c[4];
    if (r.mode == "cubic") {
      double a = r.cubicA, t = ratio + 1, u = 1 - ratio, v = 2 - ratio;
      c[0] = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
      c[1] = ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1;
      c[2] = ((a + 2) * u - (a + 3)) * u * u + 1;
      c[3] = ((a * v - 5 * a) * v + 8 * a) * v - 4 * a;
    } else if (r.mode == "linear") {
      c[0] = 1 - ratio;
      c[1] = ratio;
    } else {
      bool up = whole || r.nearestMode == "ceil" ||
                (r.nearestMode == "round_prefer_floor" && ratio > 0.5) ||
                (r.nearestMode == "round_prefer_ceil" && ratio >= 0.5);
      c[0] = up ? 0 : 1;
      c[1] = up ? 1 : 0;
    }
    // The n nearest positions (ties to the smaller) among [-pad, in + pad).
    int64_t first = int64_t(floorX) - (whole ? n / 2 : n / 2 - 1);
    first = std::clamp<int64_t>(first, -pad, in + pad - n);
    if (r.excludeOutside) {
      double sum = 0;
      for (int k = 0; k < n; ++k) {
        if (first + k < 0 || first + k >= in)
          c[k] = 0;
        sum += c[k];
      }
      for (int k = 0; k < n; ++k)
        c[k] /= sum;
    }
    for (int k = 0; k < n; ++k)
      m[o * in + std::clamp<int64_t>(first + k, 0, in - 1)] += c[k];
  }
  return m;
}

/// Resizes \p x to \p out axis by axis, each resized axis contracted with
/// its interpolation matrix (einsum): ONNX's coordinate mapping exactly,
/// for any rank and any axis, where image.resize2d cannot follow it.
static Result resizeByMatrices(NodeContext &ctx, const Value &x,
                               ArrayRef<int64_t> out,
                               ArrayRef<double> scales,
                               const AxisResize &r) {
  if (!x.dtype().isFloat())
    return ctx.unsupported("resizing a " + x.dtype().str() +
                           " tensor along this axis (nnir interpolates "
                           "floating-point tensors)");
  Value y = x;
  for (int64_t i = 0; i < x.rank(); ++i) {
    int64_t in = x.shape()[i];
    double scale = scales.empty() ? double(out[i]) / double(in) : scales[i];
    if (out[i] == in && scale == 1)
      continue;
    TRY(next, contractAxis(ctx, y, i, out[i],
                           interpolationMatrix(r, in, out[i], scale)));
    y = next;
  }
  return one(y);
}

/// Resize of \p x with `?` extents: a nearest-neighbour upscale by whole
/// \p scales whose coordinate mapping takes output element o of each axis
/// from input element floor(o / scale) (asymmetric with nearest_mode floor;
/// half_pixel and pytorch_half_pixel, (o + 0.5) / scale - 0.5 rounded, with
/// any nearest_mode) repeats each element `scale` times: repeat, whose
/// relation keeps `?`. image.resize2d takes a static output size, so the
/// other resizes need the input's extents.
static Result resizeDynamic(NodeContext &ctx, const Value &x,
                            ArrayRef<double> scales) {
  TRY(mode, ctx.getString("mode", "nearest"));
  std::string coordMode = "asymmetric", nearestMode = "floor";
  if (ctx.getOpset() >= 11) {
    TRY(c, ctx.getString("coordinate_transformation_mode", "half_pixel"));
    TRY(n, ctx.getString("nearest_mode", "round_prefer_floor"));
    coordMode = c;
    nearestMode = n;
  }
  bool repeats = mode == "nearest" && !scales.empty() &&
                 ((coordMode == "asymmetric" && nearestMode == "floor") ||
                  coordMode == "half_pixel" ||
                  coordMode == "pytorch_half_pixel");
  for (double scale : scales)
    repeats &= scale >= 1 && scale <= double(1 << 20) &&
               scale == std::floor(scale);
  if (!repeats)
    if (Error err = ctx.staticShape(0).takeError())
      return err;
  Value y = x;
  for (size_t i = 0; i < scales.size(); ++i) {
    if (scales[i] == 1)
      continue;
    TRY(r, ctx.typed(ops::repeat(y, int64_t(scales[i]), i)));
    y = r;
  }
  return one(y);
}

/// Resize (opsets 10-17) and Upsample (7-9) as image.resize2d of the last two
/// axes of an NCHW tensor. Scales and sizes must be known at import time.
/// image.resize2d derives each axis's scale from the input and output
/// extents (as TVM does), so `scales` whose input * scale is not a whole
/// number (a downscale by 0.6 of 4 elements gives 2 of them, where ONNX
/// maps coordinates through 2.4), other axes and other ranks are resized
/// by interpolation matrices instead (resizeByMatrices).
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
  if (x.type().isDynamic())
    return resizeDynamic(ctx, x, scales);
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

  // image.resize2d resizes the last two axes of a 2-D to 4-D tensor and maps
  // coordinates through the output extent; ONNX through input * scale,
  // unrounded (align_corners through input * scale - 1). Elsewhere the
  // axes are resized one by one with ONNX's interpolation weights (but
  // tf_crop_and_resize, whose extrapolated values are not weights).
  bool byMatrices = rank < 2 || rank > 4;
  for (size_t i = 0; i + 2 < rank; ++i)
    byMatrices |= out[i] != x.shape()[i];
  if (!scales.empty())
    for (size_t i = 0; i < rank; ++i)
      byMatrices |= double(x.shape()[i]) * scales[i] != double(out[i]);
  if (byMatrices) {
    if (!roi.empty())
      return ctx.unsupported(
          "tf_crop_and_resize of a tensor of rank " + Twine(rank) +
          (rank >= 2 && rank <= 4 ? " along axes other than the last two, or "
                                    "with a scale that does not give a whole "
                                    "number of elements"
                                  : ""));
    return resizeByMatrices(
        ctx, x, out, scales,
        AxisResize{mode, coordMode, nearestMode, cubicA, excludeOutside != 0});
  }

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

/// GridSample (opsets 16 and 20; 20 names the modes linear and cubic) as
/// image.grid_sample of the grid moved to (N, 2, H', W').
Result convertGridSample(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  const Value &x = ctx.input(0), &grid = ctx.input(1);
  TRY(mode, ctx.getString("mode", ctx.getOpset() >= 20 ? "linear"
                                                        : "bilinear"));
  TRY(padding, ctx.getString("padding_mode", "zeros"));
  TRY(align, ctx.getInt("align_corners", 0));
  if (mode == "linear")
    mode = "bilinear";
  else if (mode == "cubic")
    mode = "bicubic";
  if (x.rank() != 4 || grid.rank() != 4)
    return ctx.unsupported(formatv("GridSample of rank {0} (nnir samples "
                                   "4-D NCHW tensors)",
                                   x.rank())
                               .str());
  if (grid.shape()[3] != 2)
    return ctx.error("grid must end in an axis of 2 (x, y)");
  TRY(moved, ctx.typed(ops::transpose(grid, std::vector<int64_t>{0, 3, 1, 2})));
  Ref<GridSampleAttrs> attrs = GridSampleAttrs::create();
  attrs->method = mode;
  attrs->layout = "NCHW";
  attrs->paddingMode = padding;
  attrs->alignCorners = align != 0;
  TRY(out, ctx.typed(ops::gridSample(x, moved, attrs)));
  return one(out);
}

} // namespace onnximport
} // namespace nnir
