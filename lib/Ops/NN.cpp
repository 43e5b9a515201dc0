//===- NN.cpp - Neural-network operators ----------------------------------===//
//
/// \file
/// nn.conv2d, nn.dense, nn.bias_add, nn.batch_norm, nn.softmax,
/// nn.max_pool2d, nn.dropout, and their type relations (Relay's Conv2DRel,
/// DenseRel, BiasAddRel, BatchNormRel, Pool2DRel, DropoutRel on static
/// shapes). 2-D layouts may be any ordering of the letters NCHW (data) and
/// OIHW (kernel): NCHW/OIHW, NHWC/HWIO, NHWC/OHWI, ...
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Ops/TypeRelations.h"

#include "llvm/Support/MathExtras.h"

#include <array>

using namespace llvm;
using namespace nnir;

//===----------------------------------------------------------------------===//
// Shared helpers of the 2-D window operators
//===----------------------------------------------------------------------===//

namespace {
/// Where each dimension of a 4-d layout is: pos[i] is the position of
/// letter i of the canonical order ("NCHW" or "OIHW").
using Layout4 = std::array<unsigned, 4>;

/// Vertical and horizontal values of a 2-d window attribute.
struct Pair {
  int64_t h, w;
};

/// Padding as (top, left, bottom, right).
struct Padding {
  int64_t top, left, bottom, right;
};
} // namespace

/// Parses \p layout as an ordering of the four letters of \p canonical.
static Expected<Layout4> parseLayout(StringRef layout, StringRef canonical,
                                     StringRef attrName,
                                     const TypeRelationContext &ctx) {
  Layout4 pos;
  bool ok = layout.size() == 4;
  for (unsigned i = 0; ok && i != 4; ++i) {
    size_t at = layout.find(canonical[i]);
    ok = at != StringRef::npos;
    pos[i] = at;
  }
  if (!ok)
    return ctx.error("unsupported " + attrName + " '" + layout +
                     "' (expected an ordering of " + canonical + ")");
  return pos;
}

/// A 1- or 2-value window attribute (strides, dilation, pool_size), every
/// value positive.
static Expected<Pair> getPair(ArrayRef<int64_t> values, StringRef attrName,
                              const TypeRelationContext &ctx) {
  if (values.size() != 1 && values.size() != 2)
    return ctx.error(attrName + " must have 1 or 2 values, got " +
                     formatIntList(values));
  for (int64_t v : values)
    if (v <= 0)
      return ctx.error(attrName + " must be positive, got " +
                       formatIntList(values));
  return Pair{values.front(), values.back()};
}

/// Padding of 1 (all sides), 2 (vertical, horizontal) or 4 (top, left,
/// bottom, right) non-negative values.
static Expected<Padding> getPadding(ArrayRef<int64_t> values,
                                    const TypeRelationContext &ctx) {
  for (int64_t v : values)
    if (v < 0)
      return ctx.error("padding must not be negative, got " +
                       formatIntList(values));
  switch (values.size()) {
  case 1:
    return Padding{values[0], values[0], values[0], values[0]};
  case 2:
    return Padding{values[0], values[1], values[0], values[1]};
  case 4:
    return Padding{values[0], values[1], values[2], values[3]};
  default:
    return ctx.error("padding must have 1, 2 or 4 values, got " +
                     formatIntList(values));
  }
}

/// The output extent of a sliding window over \p in extents padded with
/// \p before and \p after: (in + before + after - ((kernel - 1) * dilation +
/// 1) [+ stride - 1 with ceil mode]) / stride + 1. \p dimName ("height")
/// names the dimension in errors.
static Expected<int64_t> windowOutput(int64_t in, int64_t before, int64_t after,
                                      int64_t kernel, int64_t dilation,
                                      int64_t stride, bool ceilMode,
                                      StringRef dimName,
                                      const TypeRelationContext &ctx) {
  if (kernel <= 0)
    return ctx.error("the kernel " + dimName + " must be positive, got " +
                     Twine(kernel));
  int64_t padded, dilated, span;
  if (AddOverflow(in, before, padded) || AddOverflow(padded, after, padded) ||
      MulOverflow(kernel - 1, dilation, dilated) ||
      AddOverflow(dilated, int64_t(1), dilated))
    return ctx.error("the " + dimName + " window computation overflows");
  if (padded < dilated)
    return ctx.error("the dilated kernel " + dimName + " " + Twine(dilated) +
                     " exceeds the padded input " + dimName + " " +
                     Twine(padded));
  span = padded - dilated;
  if (ceilMode && AddOverflow(span, stride - 1, span))
    return ctx.error("the " + dimName + " window computation overflows");
  return span / stride + 1;
}

/// A 4-d shape from N, C, H, W values laid out as \p layout says.
static Shape layOut(const Layout4 &layout, int64_t n, int64_t c, int64_t h,
                    int64_t w) {
  Shape shape(4);
  shape[layout[0]] = n;
  shape[layout[1]] = c;
  shape[layout[2]] = h;
  shape[layout[3]] = w;
  return shape;
}

/// A 1-d parameter (bias, gamma, ...) must be [extent] of the data's dtype.
static Error checkChannelParam(const TensorType *param, StringRef name,
                               const TensorType *data, unsigned axis,
                               const TypeRelationContext &ctx) {
  Ref<TensorType> expected =
      TensorType::get({data->getShape()[axis]}, data->getDType());
  if (typesEqual(param, expected.get()))
    return Error::success();
  return ctx.error(name + " " + param->str() + " does not match axis " +
                   Twine(axis) + " of data " + data->str() + ": expected " +
                   expected->str());
}

//===----------------------------------------------------------------------===//
// Type relations
//===----------------------------------------------------------------------===//

/// nn.conv2d: data [N, C, H, W] and weight [O, C/groups, KH, KW] (in their
/// layouts) give [N, O, OH, OW] in the output layout; channels and
/// kernel_size, when given, must agree with the weight.
static Expected<Ref<Type>> conv2dRelation(ArrayRef<const Type *> args,
                                          const Attrs *attrs,
                                          const TypeRelationContext &ctx) {
  Expected<const Conv2DAttrs *> conv = getAttrs<Conv2DAttrs>(attrs, ctx);
  if (!conv)
    return conv.takeError();
  const Conv2DAttrs &a = **conv;
  Expected<const TensorType *> data =
      getTensorArgOfRank(args, 0, "data", 4, ctx);
  if (!data)
    return data.takeError();
  Expected<const TensorType *> weight =
      getTensorArgOfRank(args, 1, "weight", 4, ctx);
  if (!weight)
    return weight.takeError();
  Expected<Layout4> dataLayout =
      parseLayout(a.dataLayout, "NCHW", "data_layout", ctx);
  if (!dataLayout)
    return dataLayout.takeError();
  Expected<Layout4> kernelLayout =
      parseLayout(a.kernelLayout, "OIHW", "kernel_layout", ctx);
  if (!kernelLayout)
    return kernelLayout.takeError();
  Expected<Layout4> outLayout =
      a.outLayout.empty() ? *dataLayout
                          : parseLayout(a.outLayout, "NCHW", "out_layout", ctx);
  if (!outLayout)
    return outLayout.takeError();

  ArrayRef<int64_t> d = (*data)->getShape(), k = (*weight)->getShape();
  int64_t n = d[(*dataLayout)[0]], c = d[(*dataLayout)[1]];
  int64_t h = d[(*dataLayout)[2]], w = d[(*dataLayout)[3]];
  int64_t o = k[(*kernelLayout)[0]], i = k[(*kernelLayout)[1]];
  int64_t kh = k[(*kernelLayout)[2]], kw = k[(*kernelLayout)[3]];

  if (a.groups <= 0)
    return ctx.error("groups must be positive, got " + Twine(a.groups));
  int64_t outChannels = o;
  if (a.groups > 1 && a.groups == c && a.groups == o) {
    // Depthwise (groups = input channels = O): Relay reads the weight as
    // [C, multiplier, KH, KW], giving C * multiplier output channels.
    if (MulOverflow(o, i, outChannels))
      return ctx.error("the number of output channels overflows");
  } else {
    if (c % a.groups != 0)
      return ctx.error("the " + Twine(c) + " input channels of " +
                       (*data)->str() +
                       " are not divisible by groups=" + Twine(a.groups));
    if (i != c / a.groups)
      return ctx.error("weight " + (*weight)->str() + " has " + Twine(i) +
                       " input channels per group, but data " + (*data)->str() +
                       " has " + Twine(c) + " channels in " + Twine(a.groups) +
                       (a.groups == 1 ? " group" : " groups"));
    if (o % a.groups != 0)
      return ctx.error("the " + Twine(o) + " output channels of weight " +
                       (*weight)->str() +
                       " are not divisible by groups=" + Twine(a.groups));
  }
  if (a.channels && *a.channels != outChannels)
    return ctx.error("channels=" + Twine(*a.channels) + " does not match the " +
                     Twine(outChannels) + " output channels of weight " +
                     (*weight)->str());
  if (a.kernelSize) {
    ArrayRef<int64_t> size = *a.kernelSize;
    if (size.size() != 2 || size[0] != kh || size[1] != kw)
      return ctx.error("kernel_size " + formatIntList(size) +
                       " does not match weight " + (*weight)->str());
  }
  Expected<Pair> strides = getPair(a.strides, "strides", ctx);
  if (!strides)
    return strides.takeError();
  Expected<Pair> dilation = getPair(a.dilation, "dilation", ctx);
  if (!dilation)
    return dilation.takeError();
  Expected<Padding> pad = getPadding(a.padding, ctx);
  if (!pad)
    return pad.takeError();
  Expected<int64_t> oh = windowOutput(h, pad->top, pad->bottom, kh, dilation->h,
                                      strides->h, false, "height", ctx);
  if (!oh)
    return oh.takeError();
  Expected<int64_t> ow = windowOutput(w, pad->left, pad->right, kw, dilation->w,
                                      strides->w, false, "width", ctx);
  if (!ow)
    return ow.takeError();
  DataType dtype = a.outDtype.isVoid() ? (*data)->getDType() : a.outDtype;
  return makeTensorType(layOut(*outLayout, n, outChannels, *oh, *ow), dtype,
                        ctx);
}

/// nn.dense: data [..., K] and weight [units, K] give [..., units].
static Expected<Ref<Type>> denseRelation(ArrayRef<const Type *> args,
                                         const Attrs *attrs,
                                         const TypeRelationContext &ctx) {
  Expected<const DenseAttrs *> dense = getAttrs<DenseAttrs>(attrs, ctx);
  if (!dense)
    return dense.takeError();
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  Expected<const TensorType *> weight =
      getTensorArgOfRank(args, 1, "weight", 2, ctx);
  if (!weight)
    return weight.takeError();
  if ((*data)->getRank() == 0)
    return ctx.error("expected a tensor of rank 1 or more for 'data', got " +
                     (*data)->str());
  int64_t k = (*data)->getShape().back();
  int64_t units = (*weight)->getShape()[0];
  if ((*weight)->getShape()[1] != k)
    return ctx.error("data " + (*data)->str() + " and weight " +
                     (*weight)->str() + " disagree on the reduced dimension (" +
                     Twine(k) + " vs " + Twine((*weight)->getShape()[1]) + ")");
  if ((*dense)->units && *(*dense)->units != units)
    return ctx.error("units=" + Twine(*(*dense)->units) +
                     " does not match weight " + (*weight)->str());
  Shape shape((*data)->getShape().begin(), (*data)->getShape().end());
  shape.back() = units;
  DataType dtype =
      (*dense)->outDtype.isVoid() ? (*data)->getDType() : (*dense)->outDtype;
  return makeTensorType(shape, dtype, ctx);
}

/// nn.bias_add: bias is [data.shape[axis]]; the result is the data's type.
static Expected<Ref<Type>> biasAddRelation(ArrayRef<const Type *> args,
                                           const Attrs *attrs,
                                           const TypeRelationContext &ctx) {
  Expected<const BiasAddAttrs *> biasAdd = getAttrs<BiasAddAttrs>(attrs, ctx);
  if (!biasAdd)
    return biasAdd.takeError();
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  Expected<const TensorType *> bias = getTensorArg(args, 1, "bias", ctx);
  if (!bias)
    return bias.takeError();
  Expected<unsigned> axis =
      normalizeAxis((*biasAdd)->axis, (*data)->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  if (Error err = checkChannelParam(*bias, "bias", *data, *axis, ctx))
    return err;
  return identityRelation(args, attrs, ctx);
}

/// nn.batch_norm: gamma, beta, moving_mean and moving_var are [C] with
/// C = data.shape[axis]; the result is (data, [C], [C]).
static Expected<Ref<Type>> batchNormRelation(ArrayRef<const Type *> args,
                                             const Attrs *attrs,
                                             const TypeRelationContext &ctx) {
  Expected<const BatchNormAttrs *> batchNorm =
      getAttrs<BatchNormAttrs>(attrs, ctx);
  if (!batchNorm)
    return batchNorm.takeError();
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  Expected<unsigned> axis =
      normalizeAxis((*batchNorm)->axis, (*data)->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  static const char *const paramNames[] = {"gamma", "beta", "moving_mean",
                                           "moving_var"};
  for (unsigned p = 0; p != 4; ++p) {
    Expected<const TensorType *> param =
        getTensorArg(args, p + 1, paramNames[p], ctx);
    if (!param)
      return param.takeError();
    if (Error err = checkChannelParam(*param, paramNames[p], *data, *axis, ctx))
      return err;
  }
  Ref<Type> stats =
      TensorType::get({(*data)->getShape()[*axis]}, (*data)->getDType());
  Ref<Type> out(const_cast<TensorType *>(*data));
  return Ref<Type>(TupleType::get({out, stats, stats}));
}

/// nn.softmax, nn.log_softmax: the data's type; the axis must exist.
static Expected<Ref<Type>> softmaxRelation(ArrayRef<const Type *> args,
                                           const Attrs *attrs,
                                           const TypeRelationContext &ctx) {
  Expected<const SoftmaxAttrs *> softmax = getAttrs<SoftmaxAttrs>(attrs, ctx);
  if (!softmax)
    return softmax.takeError();
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  Expected<unsigned> axis =
      normalizeAxis((*softmax)->axis, (*data)->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  return identityRelation(args, attrs, ctx);
}

/// nn.max_pool2d: [N, C, H, W] (in its layout) gives [N, C, OH, OW].
static Expected<Ref<Type>> maxPool2dRelation(ArrayRef<const Type *> args,
                                             const Attrs *attrs,
                                             const TypeRelationContext &ctx) {
  Expected<const MaxPool2DAttrs *> pool = getAttrs<MaxPool2DAttrs>(attrs, ctx);
  if (!pool)
    return pool.takeError();
  const MaxPool2DAttrs &a = **pool;
  Expected<const TensorType *> data =
      getTensorArgOfRank(args, 0, "data", 4, ctx);
  if (!data)
    return data.takeError();
  Expected<Layout4> layout = parseLayout(a.layout, "NCHW", "layout", ctx);
  if (!layout)
    return layout.takeError();
  Expected<Layout4> outLayout =
      a.outLayout.empty() ? *layout
                          : parseLayout(a.outLayout, "NCHW", "out_layout", ctx);
  if (!outLayout)
    return outLayout.takeError();
  Expected<Pair> size = getPair(a.poolSize, "pool_size", ctx);
  if (!size)
    return size.takeError();
  Expected<Pair> strides = getPair(a.strides, "strides", ctx);
  if (!strides)
    return strides.takeError();
  Expected<Pair> dilation = getPair(a.dilation, "dilation", ctx);
  if (!dilation)
    return dilation.takeError();
  Expected<Padding> pad = getPadding(a.padding, ctx);
  if (!pad)
    return pad.takeError();

  ArrayRef<int64_t> d = (*data)->getShape();
  Expected<int64_t> oh =
      windowOutput(d[(*layout)[2]], pad->top, pad->bottom, size->h, dilation->h,
                   strides->h, a.ceilMode, "height", ctx);
  if (!oh)
    return oh.takeError();
  Expected<int64_t> ow =
      windowOutput(d[(*layout)[3]], pad->left, pad->right, size->w, dilation->w,
                   strides->w, a.ceilMode, "width", ctx);
  if (!ow)
    return ow.takeError();
  return makeTensorType(
      layOut(*outLayout, d[(*layout)[0]], d[(*layout)[1]], *oh, *ow),
      (*data)->getDType(), ctx);
}

/// nn.dropout: (data, mask), both of the data's type.
static Expected<Ref<Type>> dropoutRelation(ArrayRef<const Type *> args,
                                           const Attrs *attrs,
                                           const TypeRelationContext &ctx) {
  Expected<const DropoutAttrs *> dropout = getAttrs<DropoutAttrs>(attrs, ctx);
  if (!dropout)
    return dropout.takeError();
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  Ref<Type> type(const_cast<TensorType *>(*data));
  return Ref<Type>(TupleType::get({type, type}));
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void nnir::registerNNOps() {
  OpRegistry &registry = OpRegistry::instance();
  registry.add("nn.conv2d")
      .describe("2-D convolution")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("weight", "Tensor")
      .setAttrsType<Conv2DAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, conv2dRelation);
  registry.add("nn.dense")
      .describe("dense layer: data * weight^T")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("weight", "Tensor")
      .setAttrsType<DenseAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, denseRelation);
  registry.add("nn.bias_add")
      .describe("add a 1-D bias along an axis")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("bias", "Tensor")
      .setAttrsType<BiasAddAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, biasAddRelation);
  registry.add("nn.batch_norm")
      .describe("batch normalisation; returns (out, mean, var)")
      .setNumInputs(5)
      .addArgument("data", "Tensor")
      .addArgument("gamma", "Tensor")
      .addArgument("beta", "Tensor")
      .addArgument("moving_mean", "Tensor")
      .addArgument("moving_var", "Tensor")
      .setAttrsType<BatchNormAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, batchNormRelation);
  for (const char *name : {"nn.softmax", "nn.log_softmax"})
    registry.add(name)
        .describe("softmax along an axis")
        .setNumInputs(1)
        .addArgument("data", "Tensor")
        .setAttrsType<SoftmaxAttrs>()
        .setAttr<TypeRelationFn>(kTypeRelationAttr, softmaxRelation);
  registry.add("nn.max_pool2d")
      .describe("2-D max pooling")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<MaxPool2DAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, maxPool2dRelation);
  registry.add("nn.dropout")
      .describe("dropout; returns (out, mask)")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<DropoutAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, dropoutRelation);
}
