//===- Image.cpp - Resizing operators -------------------------------------===//
//
/// \file
/// nn.upsampling, image.resize2d and image.grid_sample with Relay's type
/// relations (UpSamplingRel, Resize2DRel, GridSampleRel) on static shapes. The layout may be any
/// layout with whole H and W axes (NCHW, NHWC, NCHW4c, ...); only H and W
/// change. The method and mode strings are checked against the values
/// Relay's computes accept.
//
//===----------------------------------------------------------------------===//

#include "Window.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/TypeRelations.h"

#include <cmath>

using namespace llvm;
using namespace nnir;
using namespace nnir::window;

/// round(in * scale), rounding halves to even as TVM's constant folding of
/// `round` (std::nearbyint) does; \p attrName names the scale in errors.
static Expected<int64_t> scaleExtent(int64_t in, double scale,
                                     StringRef attrName, StringRef dimName,
                                     const TypeRelationContext &ctx) {
  if (!(scale > 0) || !std::isfinite(scale))
    return ctx.error(attrName + " must be a positive finite number, got " +
                     formatDouble(scale));
  if (isAnyDim(in))
    return kAnyDim;
  double extent = std::nearbyint(static_cast<double>(in) * scale);
  // 2^63 is the first double beyond int64.
  if (!(extent < 9223372036854775808.0))
    return ctx.error("the " + dimName + " " + Twine(in) + " scaled by " +
                     attrName + "=" + formatDouble(scale) +
                     " does not fit int64");
  return static_cast<int64_t>(extent);
}

/// nn.upsampling: H and W become round(H * scale_h), round(W * scale_w).
static RelationResult upSamplingRelation(const UpSamplingAttrs *up,
                                         ArrayRef<const Type *> args,
                                         const TypeRelationContext &ctx) {
  const UpSamplingAttrs &a = *up;
  if (Error err = checkOneOf(
          a.method, {"nearest_neighbor", "bilinear", "bicubic"}, "method", ctx))
    return err;
  Expected<SpatialInput> input = getSpatialInput(args, a.layout, ctx);
  if (!input)
    return input.takeError();
  auto &[data, spatial] = *input;
  ArrayRef<int64_t> in = data->getShape();
  Shape out(in.begin(), in.end());
  Expected<int64_t> h =
      scaleExtent(in[spatial[0]], a.scaleH, "scale_h", "height", ctx);
  if (!h)
    return h.takeError();
  Expected<int64_t> w =
      scaleExtent(in[spatial[1]], a.scaleW, "scale_w", "width", ctx);
  if (!w)
    return w.takeError();
  out[spatial[0]] = *h;
  out[spatial[1]] = *w;
  return makeTensorType(out, data->getDType(), ctx);
}

/// image.resize2d: H and W become size; roi, when given, has 4 values. The
/// result has out_dtype, or the data's dtype.
static RelationResult resize2dRelation(const Resize2DAttrs *resize,
                                       ArrayRef<const Type *> args,
                                       const TypeRelationContext &ctx) {
  const Resize2DAttrs &a = *resize;
  if (Error err = checkOneOf(a.method, {"nearest_neighbor", "linear", "cubic"},
                             "method", ctx))
    return err;
  if (Error err = checkOneOf(a.coordinateTransformationMode,
                             {"half_pixel", "align_corners", "asymmetric",
                              "pytorch_half_pixel", "tf_half_pixel_for_nn",
                              "tf_crop_and_resize"},
                             "coordinate_transformation_mode", ctx))
    return err;
  if (Error err = checkOneOf(a.roundingMethod,
                             {"", "round", "round_prefer_floor",
                              "round_prefer_ceil", "floor", "ceil"},
                             "rounding_method", ctx))
    return err;
  if (!a.size || a.size->size() != 2)
    return ctx.error("size must have 2 values, got " +
                     (a.size ? formatIntList(*a.size) : "None"));
  for (int64_t extent : *a.size)
    if (extent <= 0)
      return ctx.error("size must be positive, got " + formatIntList(*a.size));
  if (a.roi && a.roi->size() != 4) {
    std::string values;
    for (double v : *a.roi)
      values += (values.empty() ? "" : ", ") + formatDouble(v);
    return ctx.error("roi must have 4 values, got (" + values + ")");
  }
  Expected<SpatialInput> input = getSpatialInput(args, a.layout, ctx);
  if (!input)
    return input.takeError();
  auto &[data, spatial] = *input;
  ArrayRef<int64_t> in = data->getShape();
  Shape out(in.begin(), in.end());
  out[spatial[0]] = (*a.size)[0];
  out[spatial[1]] = (*a.size)[1];
  DataType dtype = a.outDtype.isVoid() ? data->getDType() : a.outDtype;
  return makeTensorType(out, dtype, ctx);
}

/// image.grid_sample (Relay's GridSampleRel, 2-D): data (N, C, H, W) and
/// grid (N, 2, H', W') of the same floating-point dtype give
/// (N, C, H', W').
static RelationResult gridSampleRelation(const GridSampleAttrs *a,
                                         const TensorType *data,
                                         const TensorType *grid,
                                         ArrayRef<const Type *>,
                                         const TypeRelationContext &ctx) {
  if (Error err = checkOneOf(a->method, {"bilinear", "nearest", "bicubic"},
                             "method", ctx))
    return err;
  if (Error err = checkOneOf(a->paddingMode, {"zeros", "border", "reflection"},
                             "padding_mode", ctx))
    return err;
  if (a->layout != "NCHW")
    return ctx.error("layout must be \"NCHW\", got \"" + a->layout +
                     "\" (nnir samples 2-D grids)");
  if (!data->getDType().isFloatingPoint())
    return ctx.error("data must be a floating-point tensor, got " +
                     data->str());
  ArrayRef<int64_t> in = data->getShape(), g = grid->getShape();
  if (grid->getDType() != data->getDType() || !dimsMatch(g[0], in[0]) ||
      g[1] != 2)
    return ctx.error("grid must be (" + Twine(in[0]) + ", 2, H', W') of " +
                     data->getDType().str() + " for data " + data->str() +
                     ", got " + grid->str());
  return makeTensorType({isAnyDim(in[0]) ? g[0] : in[0], in[1], g[2], g[3]},
                        data->getDType(), ctx);
}

void nnir::registerImageOps() {
  OpRegistry &registry = OpRegistry::instance();
  registry.add("nn.upsampling")
      .describe("2-D upsampling by scale factors")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<UpSamplingAttrs>()
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr, makeRelation<UpSamplingAttrs>(upSamplingRelation))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::Injective);
  registry.add("image.resize2d")
      .describe("2-D resize to a given height and width")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<Resize2DAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr,
                               makeRelation<Resize2DAttrs>(resize2dRelation))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::Injective);
  registry.add("image.grid_sample")
      .describe("2-D sampling of data at the normalised positions of a grid")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("grid", "Tensor")
      .setAttrsType<GridSampleAttrs>()
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr,
          makeRelation<GridSampleAttrs>(gridSampleRelation,
                                        rankedArg("data", 4),
                                        rankedArg("grid", 4)))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::Injective);
  // A `?` extent passes through (upsampling scales it to `?`).
  markDynamicShapeRelations(
      {"nn.upsampling", "image.resize2d", "image.grid_sample"});
}
