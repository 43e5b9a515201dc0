//===- Vision.cpp - Vision operators ---------------------------------------===//
//
/// \file
/// Relay's vision operators: vision.roi_align (Relay's ROIAlignRel), its
/// type relation and registration; the compute is in VisionCompute.cpp.
//
//===----------------------------------------------------------------------===//

#include "Window.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Ops/TypeRelations.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace llvm;
using namespace nnir;
using namespace nnir::window;

/// vision.roi_align: data [N, C, H, W] (or NHWC) and rois [R, 5] (batch
/// index, x1, y1, x2, y2) of data's floating-point dtype give [R, C, PH, PW]
/// (or [R, PH, PW, C]).
static RelationResult roiAlignRelation(const ROIAlignAttrs *a,
                                       const TensorType *data,
                                       const TensorType *rois,
                                       ArrayRef<const Type *>,
                                       const TypeRelationContext &ctx) {
  if (Error err = checkOneOf(a->mode, {"avg", "max"}, "mode", ctx))
    return err;
  if (Error err = checkOneOf(a->layout, {"NCHW", "NHWC"}, "layout", ctx))
    return err;
  if (a->pooledSize.size() != 2 || a->pooledSize[0] <= 0 ||
      a->pooledSize[1] <= 0 || a->pooledSize[0] > (int64_t(1) << 31) ||
      a->pooledSize[1] > (int64_t(1) << 31))
    return ctx.error("pooled_size must be two positive extents up to 2^31, "
                     "got " +
                     formatAttrList(a->pooledSize));
  if (!std::isfinite(a->spatialScale) || a->spatialScale <= 0)
    return ctx.error("spatial_scale must be positive and finite, got " +
                     formatv("{0}", a->spatialScale));
  if (!data->getDType().isFloatingPoint())
    return ctx.error("data must be a floating-point tensor, got " +
                     data->str());
  ArrayRef<int64_t> in = data->getShape(), r = rois->getShape();
  if (rois->getDType() != data->getDType() || r[1] != 5)
    return ctx.error("rois must be (R, 5) of " + data->getDType().str() +
                     " (batch index, x1, y1, x2, y2), got " + rois->str());
  bool nchw = a->layout == "NCHW";
  int64_t channels = in[nchw ? 1 : 3];
  if (in[0] == 0 || in[nchw ? 2 : 1] == 0 || in[nchw ? 3 : 2] == 0)
    return ctx.error("data " + data->str() + " is empty");
  int64_t ph = a->pooledSize[0], pw = a->pooledSize[1];
  Shape out = nchw ? Shape{r[0], channels, ph, pw}
                   : Shape{r[0], ph, pw, channels};
  return makeTensorType(out, data->getDType(), ctx);
}

void nnir::registerVisionOps() {
  OpRegistry &registry = OpRegistry::instance();
  registry.add("vision.roi_align")
      .describe("region-of-interest align: bilinear samples averaged (or "
                "maxed) over each bin of each roi")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("rois", "Tensor")
      .setAttrsType<ROIAlignAttrs>()
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr,
          makeRelation<ROIAlignAttrs>(roiAlignRelation, rankedArg("data", 4),
                                      rankedArg("rois", 2)))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::OutEWiseFusable);
  // A `?` extent passes through (the rois' count) or is only compared with
  // 0.
  markDynamicShapeRelations({"vision.roi_align"});
}
