//===- Pooling.cpp - 2-D pooling operators --------------------------------===//
//
/// \file
/// nn.max_pool2d, nn.avg_pool2d, nn.global_avg_pool2d, nn.global_max_pool2d,
/// nn.adaptive_avg_pool2d and nn.adaptive_max_pool2d, with Relay's type
/// relations (Pool2DRel, GlobalPool2DRel, AdaptivePool2DRel) on static
/// shapes. The layout may be any layout with whole H and W axes (NCHW, NHWC,
/// NCHW16c, ...); only H and W change. As in Relay, out_layout only guides
/// layout passes: the result stays in `layout`.
//
//===----------------------------------------------------------------------===//

#include "Window.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/TypeRelations.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::window;

/// nn.max_pool2d, nn.avg_pool2d: H and W become
/// (in + pad_before + pad_after - ((pool - 1) * dilation + 1)
/// [+ stride - 1 with ceil_mode]) / stride + 1.
template <typename AttrsT>
static RelationResult pool2dRelation(const AttrsT *pool,
                                     ArrayRef<const Type *> args,
                                     const TypeRelationContext &ctx) {
  const AttrsT &a = *pool;
  Expected<SpatialInput> input = getSpatialInput(args, a.layout, ctx);
  if (!input)
    return input.takeError();
  auto size = getWindowValues(a.poolSize, 2, "pool_size", ctx);
  if (!size)
    return size.takeError();
  auto strides = getWindowValues(a.strides, 2, "strides", ctx);
  if (!strides)
    return strides.takeError();
  auto dilation = getWindowValues(a.dilation, 2, "dilation", ctx);
  if (!dilation)
    return dilation.takeError();
  auto pads = getPadding(a.padding, 2, ctx);
  if (!pads)
    return pads.takeError();
  ArrayRef<int64_t> in = input->data->getShape();
  Shape out(in.begin(), in.end());
  for (unsigned i = 0; i != 2; ++i) {
    unsigned axis = input->spatial[i];
    Expected<int64_t> extent =
        windowOutput(in[axis], (*pads)[i].first, (*pads)[i].second, (*size)[i],
                     (*dilation)[i], (*strides)[i], a.ceilMode,
                     getSpatialName("HW"[i]), ctx);
    if (!extent)
      return extent.takeError();
    out[axis] = *extent;
  }
  return makeTensorType(out, input->data->getDType(), ctx);
}

/// nn.global_avg_pool2d, nn.global_max_pool2d: H and W become 1.
static RelationResult globalPool2dRelation(const GlobalPool2DAttrs *pool,
                                           ArrayRef<const Type *> args,
                                           const TypeRelationContext &ctx) {
  Expected<SpatialInput> input = getSpatialInput(args, pool->layout, ctx);
  if (!input)
    return input.takeError();
  ArrayRef<int64_t> in = input->data->getShape();
  Shape out(in.begin(), in.end());
  for (unsigned axis : input->spatial)
    out[axis] = 1;
  return makeTensorType(out, input->data->getDType(), ctx);
}

/// nn.adaptive_avg_pool2d, nn.adaptive_max_pool2d: H and W become
/// output_size (empty: unchanged; one value: both).
static RelationResult adaptivePool2dRelation(const AdaptivePool2DAttrs *pool,
                                             ArrayRef<const Type *> args,
                                             const TypeRelationContext &ctx) {
  const AdaptivePool2DAttrs &a = *pool;
  Expected<SpatialInput> input = getSpatialInput(args, a.layout, ctx);
  if (!input)
    return input.takeError();
  ArrayRef<int64_t> in = input->data->getShape();
  Shape out(in.begin(), in.end());
  if (!a.outputSize.empty()) {
    auto size = getWindowValues(a.outputSize, 2, "output_size", ctx);
    if (!size)
      return size.takeError();
    out[input->spatial[0]] = (*size)[0];
    out[input->spatial[1]] = (*size)[1];
  }
  return makeTensorType(out, input->data->getDType(), ctx);
}

void nnir::registerPoolingOps() {
  OpRegistry &registry = OpRegistry::instance();
  registry.add("nn.max_pool2d")
      .describe("2-D max pooling")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<MaxPool2DAttrs>()
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr,
          makeRelation<MaxPool2DAttrs>(pool2dRelation<MaxPool2DAttrs>))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::OutEWiseFusable);
  registry.add("nn.avg_pool2d")
      .describe("2-D average pooling")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<AvgPool2DAttrs>()
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr,
          makeRelation<AvgPool2DAttrs>(pool2dRelation<AvgPool2DAttrs>))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::OutEWiseFusable);
  for (const char *name : {"nn.global_avg_pool2d", "nn.global_max_pool2d"})
    registry.add(name)
        .describe("2-D pooling over the whole height and width")
        .setNumInputs(1)
        .addArgument("data", "Tensor")
        .setAttrsType<GlobalPool2DAttrs>()
        .setAttr<TypeRelationFn>(
            kTypeRelationAttr,
            makeRelation<GlobalPool2DAttrs>(globalPool2dRelation))
        .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::OutEWiseFusable);
  for (const char *name : {"nn.adaptive_avg_pool2d", "nn.adaptive_max_pool2d"})
    registry.add(name)
        .describe("2-D pooling to a given output height and width")
        .setNumInputs(1)
        .addArgument("data", "Tensor")
        .setAttrsType<AdaptivePool2DAttrs>()
        .setAttr<TypeRelationFn>(
            kTypeRelationAttr,
            makeRelation<AdaptivePool2DAttrs>(adaptivePool2dRelation))
        .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::OutEWiseFusable);
}
