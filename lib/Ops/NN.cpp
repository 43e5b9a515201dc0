//===- NN.cpp - Neural-network operators ----------------------------------===//
//
/// \file
/// Relay's neural-network operators other than pooling and resizing:
/// convolutions (nn.conv1d/2d/3d, nn.conv1d/2d/3d_transpose), matrix products
/// (nn.dense, nn.matmul, nn.batch_matmul), nn.bias_add, normalisations
/// (nn.batch_norm, nn.layer_norm, nn.group_norm, nn.instance_norm, nn.lrn,
/// nn.l2_normalize), nn.softmax / nn.log_softmax, nn.dropout,
/// nn.batch_flatten and nn.pad, with their type relations (Relay's rules on
/// static shapes), fusion patterns and flags; and the layout and window
/// helpers of Window.h. registerNNOps() also registers Pooling.cpp's and
/// Image.cpp's operators.
///
/// Convolution layouts may be any ordering of the canonical letters: data
/// NCW / NCHW / NCDHW (NWC, NHWC, NDHWC, ...), kernels OIW / OIHW / OIDHW
/// (WIO, HWIO, OHWI, HWOI, DHWIO, ...), transposed convolutions' kernels
/// IOW / IOHW / IODHW.
/// nn.conv1d/2d/3d also accept split axes (NCHW4c, OIHW2i4o), as Relay's
/// relations do through its layout converters; their computes do not.
///
/// The operators whose Relay relations assign argument types also register
/// FInferArgTypes (TypeRelation.h): convolutions propose their weight,
/// nn.dense and nn.matmul theirs (from units), nn.bias_add and the
/// normalisations their 1-d parameters.
//
//===----------------------------------------------------------------------===//

#include "Window.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Ops/TypeRelations.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::window;

//===----------------------------------------------------------------------===//
// Window.h: layouts, window attributes, sliding-window arithmetic
//===----------------------------------------------------------------------===//

Expected<SpatialInput>
window::getSpatialInput(ArrayRef<const Type *> args, StringRef layoutText,
                        const TypeRelationContext &ctx) {
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  Expected<Layout> layout = parseLayoutAttr(layoutText, "layout", ctx);
  if (!layout)
    return layout.takeError();
  auto spatial = getSpatialAxes(*data, *layout, layoutText, "HW", ctx);
  if (!spatial)
    return spatial.takeError();
  return SpatialInput{*data, std::move(*spatial)};
}

Expected<SmallVector<unsigned, 3>>
window::getSpatialAxes(const TensorType *data, const Layout &layout,
                       StringRef layoutText, StringRef spatial,
                       const TypeRelationContext &ctx) {
  if (data->getRank() != layout.getRank())
    return ctx.error("layout '" + layoutText + "' has " +
                     Twine(layout.getRank()) + " axes, but data " +
                     data->str() + " has rank " + Twine(data->getRank()));
  for (unsigned i = 0, e = layout.getRank(); i != e; ++i) {
    const LayoutAxis &axis = layout[i];
    if (axis.factor && !dimsMatch(data->getShape()[i], axis.factor))
      return ctx.error("data " + data->str() + " does not fit layout '" +
                       layoutText + "': axis " + Twine(i) + " (" +
                       Twine(axis.factor) + Twine(axis.name) + ") has extent " +
                       Twine(data->getShape()[i]));
  }
  SmallVector<unsigned, 3> positions;
  for (char name : spatial) {
    if (layout.contains(toLower(name)))
      return ctx.error("layout '" + layoutText + "' splits the " + Twine(name) +
                       " axis, which must stay whole");
    int at = layout.find(name);
    if (at < 0)
      return ctx.error("layout '" + layoutText + "' has no " + Twine(name) +
                       " axis");
    positions.push_back(at);
  }
  return positions;
}

std::string window::formatAttrList(ArrayRef<int64_t> values) {
  std::string text = "[";
  raw_string_ostream os(text);
  interleave(values, os, ", ");
  os << ']';
  return text;
}

Expected<SmallVector<int64_t, 3>>
window::getWindowValues(ArrayRef<int64_t> values, unsigned rank,
                        StringRef attrName, const TypeRelationContext &ctx,
                        int64_t minValue) {
  if (values.size() != 1 && values.size() != rank) {
    std::string counts =
        rank == 1 ? "1 value" : "1 or " + std::to_string(rank) + " values";
    return ctx.error(attrName + " must have " + counts + ", got " +
                     formatIntList(values));
  }
  for (int64_t v : values)
    if (v < minValue)
      return ctx.error(attrName + " must be " +
                       (minValue > 0 ? "positive" : "non-negative") + ", got " +
                       formatIntList(values));
  if (values.size() == 1)
    return SmallVector<int64_t, 3>(rank, values[0]);
  return SmallVector<int64_t, 3>(values.begin(), values.end());
}

Expected<SmallVector<std::pair<int64_t, int64_t>, 3>>
window::getPadding(ArrayRef<int64_t> values, unsigned rank,
                   const TypeRelationContext &ctx) {
  for (int64_t v : values)
    if (v < 0)
      return ctx.error("padding must not be negative, got " +
                       formatIntList(values));
  SmallVector<std::pair<int64_t, int64_t>, 3> pads;
  for (unsigned i = 0; i != rank; ++i) {
    if (values.size() == 1)
      pads.push_back({values[0], values[0]});
    else if (values.size() == rank)
      pads.push_back({values[i], values[i]});
    else if (values.size() == 2 * rank)
      pads.push_back({values[i], values[i + rank]});
    else if (rank == 1)
      return ctx.error("padding must have 1 or 2 values, got " +
                       formatIntList(values));
    else
      return ctx.error("padding must have 1, " + Twine(rank) + " or " +
                       Twine(2 * rank) + " values, got " +
                       formatIntList(values));
  }
  return pads;
}

Expected<int64_t> window::windowOutput(int64_t in, int64_t before,
                                       int64_t after, int64_t kernel,
                                       int64_t dilation, int64_t stride,
                                       bool ceilMode, StringRef dimName,
                                       const TypeRelationContext &ctx) {
  if (kernel <= 0)
    return ctx.error("the kernel " + dimName + " must be positive, got " +
                     Twine(kernel));
  // A dynamic extent slides to a dynamic extent (TVM's Conv2DRel and
  // Pool2DRel give `?`).
  if (isAnyDim(in))
    return kAnyDim;
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

StringRef window::getSpatialName(char axis) {
  switch (axis) {
  case 'D':
    return "depth";
  case 'H':
    return "height";
  case 'W':
    return "width";
  default:
    return "spatial";
  }
}

Error window::checkOneOf(StringRef value, ArrayRef<StringRef> allowed,
                         StringRef attrName, const TypeRelationContext &ctx) {
  if (is_contained(allowed, value))
    return Error::success();
  std::string list;
  for (size_t i = 0, e = allowed.size(); i != e; ++i) {
    if (i)
      list += i + 1 == e ? " or " : ", ";
    list += allowed[i].empty() ? "\"\"" : allowed[i].str();
  }
  return ctx.error("unsupported " + attrName + " \"" + value + "\" (expected " +
                   list + ")");
}

//===----------------------------------------------------------------------===//
// Local helpers
//===----------------------------------------------------------------------===//

/// A 1-d parameter (bias, gamma, ...) must be [extent] of the data's dtype.
static Error checkChannelParam(const TensorType *param, StringRef name,
                               const TensorType *data, unsigned axis,
                               const TypeRelationContext &ctx) {
  Ref<TensorType> expected =
      TensorType::get({data->getShape()[axis]}, data->getDType());
  if (typesCompatible(param, expected.get()))
    return Error::success();
  return ctx.error(name + " " + param->str() + " does not match axis " +
                   Twine(axis) + " of data " + data->str() + ": expected " +
                   expected->str());
}

/// \p shape laid out by \p positions: element i goes to positions[i].
static Shape permute(ArrayRef<int64_t> shape, ArrayRef<unsigned> positions) {
  Shape out(shape.size());
  for (unsigned i = 0, e = shape.size(); i != e; ++i)
    out[positions[i]] = shape[i];
  return out;
}

/// \p shape read in canonical order: element i comes from positions[i].
static Shape canonicalize(ArrayRef<int64_t> shape,
                          ArrayRef<unsigned> positions) {
  Shape out(shape.size());
  for (unsigned i = 0, e = shape.size(); i != e; ++i)
    out[i] = shape[positions[i]];
  return out;
}

/// "1 group" / "4 groups".
static std::string groupsText(int64_t groups) {
  return (Twine(groups) + (groups == 1 ? " group" : " groups")).str();
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

namespace {
/// The attributes of nn.conv1d/2d/3d, whatever the record.
struct ConvView {
  unsigned rank;
  StringRef dataCanonical, kernelCanonical;
  ArrayRef<int64_t> strides, padding, dilation;
  int64_t groups;
  std::optional<int64_t> channels;
  const std::optional<IntList> &kernelSize;
  StringRef dataLayout, kernelLayout, outLayout;
  DataType outDtype;
};
} // namespace

namespace {
/// The parsed layouts of a convolution.
struct ConvLayouts {
  Layout data, kernel, out;
};
} // namespace

/// The data, kernel and output layouts of \p a: orderings of the canonical
/// letters whose axes may be split (NCHW4c, OIHW2i4o), as Relay's layout
/// converters accept them.
static Expected<ConvLayouts> getConvLayouts(const ConvView &a,
                                            const TypeRelationContext &ctx) {
  Expected<Layout> data =
      parseConvertibleLayout(a.dataLayout, a.dataCanonical, "data_layout", ctx);
  if (!data)
    return data.takeError();
  Expected<Layout> kernel = parseConvertibleLayout(
      a.kernelLayout, a.kernelCanonical, "kernel_layout", ctx);
  if (!kernel)
    return kernel.takeError();
  Expected<Layout> out =
      a.outLayout.empty() ? Expected<Layout>(*data)
                          : parseConvertibleLayout(a.outLayout, a.dataCanonical,
                                                   "out_layout", ctx);
  if (!out)
    return out.takeError();
  return ConvLayouts{*data, *kernel, *out};
}

/// The data argument of a convolution, of the rank \p layouts give its
/// layout (the error of \p layouts, if it is one, comes first).
static Expected<const TensorType *>
getConvData(Expected<ConvLayouts> &layouts, ArrayRef<const Type *> args,
            const TypeRelationContext &ctx) {
  if (!layouts)
    return layouts.takeError();
  return getTensorArgOfRank(args, 0, "data", layouts->data.getRank(), ctx);
}

/// \p canonical laid out in \p layout (the attribute \p attrName), or an
/// error naming \p what does not fit it.
static Expected<Shape> layOut(const Layout &layout, ArrayRef<int64_t> canonical,
                              StringRef canonicalLetters, StringRef attrName,
                              StringRef layoutText, const Twine &what,
                              const TypeRelationContext &ctx) {
  Expected<Shape> shape = layout.fromCanonicalShape(canonical, canonicalLetters);
  if (!shape)
    return ctx.error(what + " " + formatIntList(canonical) + " (" +
                     canonicalLetters + ") does not fit " + attrName + " '" +
                     layoutText + "': " + toString(shape.takeError()));
  return shape;
}

/// The weight shape Relay derives from channels and kernel_size for data of
/// \p c channels, laid out in the kernel layout: in canonical order
/// [channels, c / groups, kernel...], or [c, channels / c, kernel...] for a
/// \p depthwise convolution.
static Expected<Shape> getDerivedWeightShape(const ConvView &a,
                                             const ConvLayouts &layouts,
                                             int64_t c, bool depthwise,
                                             StringRef dataText,
                                             const TypeRelationContext &ctx) {
  ArrayRef<int64_t> size = *a.kernelSize;
  int64_t channels = *a.channels, groups = a.groups;
  if (size.size() != a.rank)
    return ctx.error("kernel_size must have " + Twine(a.rank) +
                     (a.rank == 1 ? " value" : " values") + ", got " +
                     formatIntList(size));
  if (channels <= 0)
    return ctx.error("channels must be positive, got " + Twine(channels));
  Shape expected(a.rank + 2);
  if (depthwise) {
    // Relay: groups = C = the weight's O. ONNX's [C * M, 1, ...] is the
    // grouped case below.
    if (channels % c != 0)
      return ctx.error("channels=" + Twine(channels) +
                       " of a depthwise convolution is not a multiple of "
                       "the " +
                       Twine(c) + " channels of data " + dataText);
    expected[0] = c;
    expected[1] = channels / c;
  } else {
    if (c % groups != 0)
      return ctx.error("the " + Twine(c) + " input channels of " + dataText +
                       " are not divisible by groups=" + Twine(groups));
    if (channels % groups != 0)
      return ctx.error("channels=" + Twine(channels) +
                       " is not divisible by groups=" + Twine(groups));
    expected[0] = channels;
    expected[1] = c / groups;
  }
  llvm::copy(size, expected.begin() + 2);
  return layOut(layouts.kernel, expected, a.kernelCanonical, "kernel_layout",
                a.kernelLayout, "the weight shape", ctx);
}

/// Relay's Conv1DRel / Conv2DRel / Conv3DRel. In canonical order, data
/// [N, C, spatial...] and weight [O, C / groups, kernel...] give
/// [N, O, out...] in the output layout (out_layout, or data_layout). Layouts
/// may split axes (NCHW4c, OIHW2i4o); shapes are converted to canonical
/// order and back. When both channels and kernel_size are given, Relay
/// derives the weight's shape from them ([C, channels / C, ...] for a
/// depthwise convolution, groups = C = the weight's O > 1) and the weight
/// must have it; otherwise they must agree with the weight.
static Expected<Ref<Type>> convolution(const ConvView &a,
                                       ArrayRef<const Type *> args,
                                       const TypeRelationContext &ctx) {
  unsigned rank = a.rank + 2;
  Expected<ConvLayouts> layouts = getConvLayouts(a, ctx);
  Expected<const TensorType *> data = getConvData(layouts, args, ctx);
  if (!data)
    return data.takeError();
  Expected<const TensorType *> weight =
      getTensorArgOfRank(args, 1, "weight", layouts->kernel.getRank(), ctx);
  if (!weight)
    return weight.takeError();
  if (a.groups <= 0)
    return ctx.error("groups must be positive, got " + Twine(a.groups));
  auto strides = getWindowValues(a.strides, a.rank, "strides", ctx);
  if (!strides)
    return strides.takeError();
  auto dilation = getWindowValues(a.dilation, a.rank, "dilation", ctx);
  if (!dilation)
    return dilation.takeError();
  auto pads = getPadding(a.padding, a.rank, ctx);
  if (!pads)
    return pads.takeError();

  // A dynamic batch or spatial extent passes through (TVM's Conv2DRel);
  // the channels and the weight must be static.
  if (Error err = requireStaticShape(*weight, "weight",
                                     "the convolution needs a static weight",
                                     ctx))
    return err;
  for (unsigned i = 0, e = layouts->data.getRank(); i != e; ++i)
    if (toUpper(layouts->data[i].name) == 'C')
      if (Error err = requireStaticDim(*data, i, "data",
                                       "the convolution needs static channels",
                                       ctx))
        return err;
  Shape d = layouts->data.toCanonicalShape((*data)->getShape(),
                                           a.dataCanonical);
  Shape w = layouts->kernel.toCanonicalShape((*weight)->getShape(),
                                             a.kernelCanonical);
  int64_t c = d[1], groups = a.groups;
  std::string dataText = (*data)->str(), weightText = (*weight)->str();
  int64_t outChannels;
  SmallVector<int64_t, 3> kernel(w.begin() + 2, w.end());

  if (a.channels && a.kernelSize) {
    bool depthwise = groups > 1 && groups == c && groups == w[0];
    Expected<Shape> laidOut =
        getDerivedWeightShape(a, *layouts, c, depthwise, dataText, ctx);
    if (!laidOut)
      return laidOut.takeError();
    if (ArrayRef<int64_t>(*laidOut) != (*weight)->getShape())
      return ctx.error("weight " + weightText + " does not match the shape " +
                       formatIntList(*laidOut) + " that channels=" +
                       Twine(*a.channels) + ", kernel_size=" +
                       formatAttrList(*a.kernelSize) + " and groups=" +
                       Twine(groups) + " give for data " + dataText);
    outChannels = *a.channels;
    kernel.assign(a.kernelSize->begin(), a.kernelSize->end());
  } else {
    if (a.kernelSize &&
        ArrayRef<int64_t>(*a.kernelSize) != ArrayRef<int64_t>(kernel))
      return ctx.error("kernel_size " + formatIntList(*a.kernelSize) +
                       " does not match weight " + weightText);
    if (a.channels && *a.channels != w[0])
      return ctx.error("channels=" + Twine(*a.channels) +
                       " does not match the " + Twine(w[0]) +
                       " output channels of weight " + weightText);
    if (c % groups != 0)
      return ctx.error("the " + Twine(c) + " input channels of " + dataText +
                       " are not divisible by groups=" + Twine(groups));
    if (w[1] != c / groups)
      return ctx.error("weight " + weightText + " has " + Twine(w[1]) +
                       " input channels per group, but data " + dataText +
                       " has " + Twine(c) + " channels in " +
                       groupsText(groups));
    if (w[0] % groups != 0)
      return ctx.error("the " + Twine(w[0]) + " output channels of weight " +
                       weightText +
                       " are not divisible by groups=" + Twine(groups));
    outChannels = w[0];
  }

  Shape out(rank);
  out[0] = d[0];
  out[1] = outChannels;
  for (unsigned i = 0; i != a.rank; ++i) {
    Expected<int64_t> extent =
        windowOutput(d[i + 2], (*pads)[i].first, (*pads)[i].second, kernel[i],
                     (*dilation)[i], (*strides)[i], /*ceilMode=*/false,
                     getSpatialName(a.dataCanonical[i + 2]), ctx);
    if (!extent)
      return extent.takeError();
    out[i + 2] = *extent;
  }
  StringRef outText = a.outLayout.empty() ? a.dataLayout : a.outLayout;
  Expected<Shape> laidOut =
      layOut(layouts->out, out, a.dataCanonical, "out_layout", outText,
             "the output shape", ctx);
  if (!laidOut)
    return laidOut.takeError();
  DataType dtype = a.outDtype.isVoid() ? (*data)->getDType() : a.outDtype;
  return makeTensorType(*laidOut, dtype, ctx);
}

/// The view of the attributes of nn.conv1d/2d/3d.
template <typename AttrsT> static ConvView getConvView(const AttrsT &a) {
  return ConvView{AttrsT::spatialRank,
                  AttrsT::defaultDataLayout,
                  AttrsT::defaultKernelLayout,
                  a.strides,
                  a.padding,
                  a.dilation,
                  a.groups,
                  a.channels,
                  a.kernelSize,
                  a.dataLayout,
                  a.kernelLayout,
                  a.outLayout,
                  a.outDtype};
}

/// nn.conv1d, nn.conv2d, nn.conv3d.
template <typename AttrsT>
static RelationResult convRelation(const AttrsT *conv,
                                   ArrayRef<const Type *> args,
                                   const TypeRelationContext &ctx) {
  return convolution(getConvView(*conv), args, ctx);
}

/// The weight type of nn.conv1d/2d/3d from data, channels and kernel_size
/// (Relay's Conv2DRel assigns it): [channels, C, kernel...] in
/// kernel_layout, of the data's dtype. As in Relay, a grouped convolution
/// needs its weight typed.
template <typename AttrsT>
static Error inferConvArgTypes(ArrayRef<const Type *> args,
                               const Attrs *attrs,
                               const TypeRelationContext &ctx,
                               MutableArrayRef<Ref<Type>> proposed) {
  if (!args[0] || args[1])
    return Error::success();
  Expected<const AttrsT *> conv = getAttrs<AttrsT>(attrs, ctx);
  if (!conv)
    return conv.takeError();
  ConvView a = getConvView(**conv);
  if (!a.channels || !a.kernelSize || a.groups != 1)
    return Error::success();
  Expected<ConvLayouts> layouts = getConvLayouts(a, ctx);
  Expected<const TensorType *> data = getConvData(layouts, args, ctx);
  if (!data)
    return data.takeError();
  Shape d = layouts->data.toCanonicalShape((*data)->getShape(),
                                           a.dataCanonical);
  Expected<Shape> laidOut = getDerivedWeightShape(
      a, *layouts, d[1], /*depthwise=*/false, (*data)->str(), ctx);
  if (!laidOut)
    return laidOut.takeError();
  proposed[1] = TensorType::get(*laidOut, (*data)->getDType());
  return Error::success();
}

/// nn.conv1d_transpose, nn.conv2d_transpose and nn.conv3d_transpose
/// (Relay's Conv1DTransposeRel, Conv2DTransposeRel, Conv3DTransposeRel):
/// data [N, C, H, W] and weight [C, O / groups, KH, KW] (canonical IOHW) give
/// [N, O, OH, OW] with OH = (H - 1) * stride + (KH - 1) * dilation + 1 -
/// pad_top - pad_bottom + output_padding, and so for each spatial axis of
/// AttrsT's rank. With channels and kernel_size both given, the weight must
/// be [C, channels / groups, kernel_size...].
template <typename AttrsT>
static RelationResult convTransposeRelation(const AttrsT *conv,
                                            const TensorType *data,
                                            const TensorType *weight,
                                            ArrayRef<const Type *>,
                                            const TypeRelationContext &ctx) {
  constexpr unsigned rank = AttrsT::spatialRank;
  const AttrsT &a = *conv;
  StringRef dataCanonical = AttrsT::defaultDataLayout;
  auto dataPos = parseLayoutPermutation(a.dataLayout, dataCanonical,
                                        "data_layout", ctx);
  if (!dataPos)
    return dataPos.takeError();
  auto kernelPos = parseLayoutPermutation(
      a.kernelLayout, AttrsT::defaultKernelLayout, "kernel_layout", ctx);
  if (!kernelPos)
    return kernelPos.takeError();
  auto outPos = a.outLayout.empty()
                    ? *dataPos
                    : parseLayoutPermutation(a.outLayout, dataCanonical,
                                             "out_layout", ctx);
  if (!outPos)
    return outPos.takeError();
  if (a.groups <= 0)
    return ctx.error("groups must be positive, got " + Twine(a.groups));
  auto strides = getWindowValues(a.strides, rank, "strides", ctx);
  if (!strides)
    return strides.takeError();
  auto dilation = getWindowValues(a.dilation, rank, "dilation", ctx);
  if (!dilation)
    return dilation.takeError();
  auto outputPadding =
      getWindowValues(a.outputPadding, rank, "output_padding", ctx, 0);
  if (!outputPadding)
    return outputPadding.takeError();
  auto pads = getPadding(a.padding, rank, ctx);
  if (!pads)
    return pads.takeError();

  Shape d = canonicalize(data->getShape(), *dataPos);
  Shape w = canonicalize(weight->getShape(), *kernelPos);
  if (Error err = requireStaticDim(data, (*dataPos)[1], "data",
                                   "the input channels must be static", ctx))
    return err;
  int64_t c = d[1], groups = a.groups;
  std::string dataText = data->str(), weightText = weight->str();
  if (c % groups != 0)
    return ctx.error("the " + Twine(c) + " input channels of " + dataText +
                     " are not divisible by groups=" + Twine(groups));
  int64_t outChannels;
  SmallVector<int64_t, 3> kernel(w.begin() + 2, w.end());
  if (a.channels && a.kernelSize) {
    ArrayRef<int64_t> size = *a.kernelSize;
    int64_t channels = *a.channels;
    if (size.size() != rank)
      return ctx.error("kernel_size must have " + Twine(rank) +
                       " values, got " + formatIntList(size));
    if (channels <= 0 || channels % groups != 0)
      return ctx.error(
          "channels=" + Twine(channels) +
          " must be a positive multiple of groups=" + Twine(groups));
    Shape canonical{c, channels / groups};
    canonical.append(size.begin(), size.end());
    Shape laidOut = permute(canonical, *kernelPos);
    if (ArrayRef<int64_t>(laidOut) != weight->getShape())
      return ctx.error(
          "weight " + weightText + " does not match the shape " +
          formatIntList(laidOut) + " that channels=" + Twine(channels) +
          ", kernel_size=" + formatAttrList(size) +
          " and groups=" + Twine(groups) + " give for data " + dataText);
    outChannels = channels;
    kernel.assign(size.begin(), size.end());
  } else {
    if (a.kernelSize &&
        ArrayRef<int64_t>(*a.kernelSize) != ArrayRef<int64_t>(kernel))
      return ctx.error("kernel_size " + formatIntList(*a.kernelSize) +
                       " does not match weight " + weightText);
    if (w[0] != c)
      return ctx.error("weight " + weightText + " has " + Twine(w[0]) +
                       " input channels, but data " + dataText + " has " +
                       Twine(c));
    if (MulOverflow(w[1], groups, outChannels))
      return ctx.error("the number of output channels overflows");
    if (a.channels && *a.channels != outChannels)
      return ctx.error("channels=" + Twine(*a.channels) +
                       " does not match the " + Twine(outChannels) +
                       " output channels of weight " + weightText + " in " +
                       groupsText(groups));
  }

  Shape out(rank + 2, 0);
  out[0] = d[0];
  out[1] = outChannels;
  for (unsigned i = 0; i != rank; ++i) {
    int64_t in = d[i + 2], stride = (*strides)[i], span, extent;
    auto [before, after] = (*pads)[i];
    StringRef name = getSpatialName(dataCanonical[i + 2]);
    if (kernel[i] <= 0)
      return ctx.error("the kernel " + name + " must be positive, got " +
                       Twine(kernel[i]));
    if (isAnyDim(in)) {
      out[i + 2] = kAnyDim;
      continue;
    }
    // (in - 1) * stride + (kernel - 1) * dilation + 1 + output_padding
    //   - before - after
    if (MulOverflow(in - 1, stride, span) ||
        MulOverflow(kernel[i] - 1, (*dilation)[i], extent) ||
        AddOverflow(extent, span, extent) ||
        AddOverflow(extent, (*outputPadding)[i], extent) ||
        AddOverflow(extent, int64_t(1), extent) ||
        SubOverflow(extent, before, extent) ||
        SubOverflow(extent, after, extent))
      return ctx.error("the " + name + " computation overflows");
    if (in == 0)
      return ctx.error("the input " + name + " of data " + dataText +
                       " is empty");
    if (extent <= 0)
      return ctx.error("the output " + name + " would be " + Twine(extent) +
                       " (input " + name + " " + Twine(in) + ", kernel " +
                       name + " " + Twine(kernel[i]) + ", padding " +
                       Twine(before) + " + " + Twine(after) + ")");
    out[i + 2] = extent;
  }
  DataType dtype = a.outDtype.isVoid() ? data->getDType() : a.outDtype;
  return makeTensorType(permute(out, *outPos), dtype, ctx);
}

//===----------------------------------------------------------------------===//
// Dense and matrix products
//===----------------------------------------------------------------------===//

/// Relay's MatmulRel: a [..., M, K] (transposed: [..., K, M]) times b [K, N]
/// (transposed: [N, K]) is [..., M, N]; units, when given, is N. nn.dense is
/// the case transpose_b. The result has out_dtype, or a's dtype.
static Expected<Ref<Type>>
matmulShape(ArrayRef<const Type *> args, StringRef aName, StringRef bName,
            bool transposeA, bool transposeB, std::optional<int64_t> units,
            DataType outDtype, const TypeRelationContext &ctx) {
  Expected<const TensorType *> a = getTensorArg(args, 0, aName, ctx);
  if (!a)
    return a.takeError();
  Expected<const TensorType *> b = getTensorArgOfRank(args, 1, bName, 2, ctx);
  if (!b)
    return b.takeError();
  unsigned minRank = transposeA ? 2 : 1;
  ArrayRef<int64_t> as = (*a)->getShape(), bs = (*b)->getShape();
  if (as.size() < minRank)
    return ctx.error("expected a tensor of rank " + Twine(minRank) +
                     " or more for '" + aName + "', got " + (*a)->str());
  size_t n = as.size();
  int64_t k = transposeA ? as[n - 2] : as[n - 1];
  int64_t bk = transposeB ? bs[1] : bs[0];
  int64_t bn = transposeB ? bs[0] : bs[1];
  if (!dimsMatch(k, bk))
    return ctx.error(aName + " " + (*a)->str() + " and " + bName + " " +
                     (*b)->str() + " disagree on the reduced dimension (" +
                     Twine(k) + " vs " + Twine(bk) + ")");
  if (units && !dimsMatch(*units, bn))
    return ctx.error("units=" + Twine(*units) + " does not match " + bName +
                     " " + (*b)->str());
  Shape shape(as.begin(), as.end());
  if (transposeA)
    shape[n - 2] = as[n - 1];
  shape[n - 1] = units ? *units : bn;
  return makeTensorType(shape, outDtype.isVoid() ? (*a)->getDType() : outDtype,
                        ctx);
}

/// nn.dense: data [..., K] and weight [units, K] give [..., units].
static RelationResult denseRelation(const DenseAttrs *dense,
                                    ArrayRef<const Type *> args,
                                    const TypeRelationContext &ctx) {
  return matmulShape(args, "data", "weight", /*transposeA=*/false,
                     /*transposeB=*/true, dense->units, dense->outDtype, ctx);
}

/// The weight type Relay's MatmulRel assigns when units is given: [units, K]
/// (transposed b) or [K, units], K from a, of a's dtype.
static void inferMatmulWeight(ArrayRef<const Type *> args, bool transposeA,
                              bool transposeB, std::optional<int64_t> units,
                              MutableArrayRef<Ref<Type>> proposed) {
  const auto *a = dyn_cast_or_null<TensorType>(args[0]);
  if (!a || args[1] || !units || a->getRank() < (transposeA ? 2u : 1u))
    return;
  ArrayRef<int64_t> shape = a->getShape();
  int64_t k = transposeA ? shape[shape.size() - 2] : shape.back();
  proposed[1] = TensorType::get(transposeB ? Shape{*units, k}
                                           : Shape{k, *units},
                                a->getDType());
}

static Error inferDenseArgTypes(ArrayRef<const Type *> args,
                                const Attrs *attrs,
                                const TypeRelationContext &ctx,
                                MutableArrayRef<Ref<Type>> proposed) {
  Expected<const DenseAttrs *> dense = getAttrs<DenseAttrs>(attrs, ctx);
  if (!dense)
    return dense.takeError();
  inferMatmulWeight(args, /*transposeA=*/false, /*transposeB=*/true,
                    (*dense)->units, proposed);
  return Error::success();
}

static Error inferMatmulArgTypes(ArrayRef<const Type *> args,
                                 const Attrs *attrs,
                                 const TypeRelationContext &ctx,
                                 MutableArrayRef<Ref<Type>> proposed) {
  Expected<const MatmulAttrs *> matmul = getAttrs<MatmulAttrs>(attrs, ctx);
  if (!matmul)
    return matmul.takeError();
  const MatmulAttrs &a = **matmul;
  inferMatmulWeight(args, a.transposeA, a.transposeB, a.units, proposed);
  return Error::success();
}

/// nn.matmul
static RelationResult matmulRelation(const MatmulAttrs *matmul,
                                     ArrayRef<const Type *> args,
                                     const TypeRelationContext &ctx) {
  const MatmulAttrs &a = *matmul;
  return matmulShape(args, "tensor_a", "tensor_b", a.transposeA, a.transposeB,
                     a.units, a.outDtype, ctx);
}

/// nn.batch_matmul (Relay's BatchMatmulRel): a [B, M, K] (transposed:
/// [B, K, M]) and b [B, K, N] (transposed: [B, N, K]) give [B, M, N]; a batch
/// of 1 broadcasts. Rank 3 only.
static RelationResult batchMatmulRelation(const BatchMatmulAttrs *batchMatmul,
                                          const TensorType *x,
                                          const TensorType *y,
                                          ArrayRef<const Type *>,
                                          const TypeRelationContext &ctx) {
  const BatchMatmulAttrs &a = *batchMatmul;
  ArrayRef<int64_t> xs = x->getShape(), ys = y->getShape();
  int64_t xb = xs[0], xi = xs[a.transposeA ? 2 : 1];
  int64_t xk = xs[a.transposeA ? 1 : 2];
  int64_t yb = ys[0], yk = ys[a.transposeB ? 2 : 1];
  int64_t yj = ys[a.transposeB ? 1 : 2];
  if (!dimsMatch(xb, yb) && xb != 1 && yb != 1)
    return ctx.error("the batch dimensions of tensor_a " + x->str() +
                     " and tensor_b " + y->str() + " do not broadcast (" +
                     Twine(xb) + " vs " + Twine(yb) + ")");
  if (!dimsMatch(xk, yk))
    return ctx.error("tensor_a " + x->str() + " and tensor_b " + y->str() +
                     " disagree on the reduced dimension (" + Twine(xk) +
                     " vs " + Twine(yk) + ")");
  // Broadcast as ConcreteBroadcast does: 1 gives way, then `?`.
  int64_t batch = broadcastShapes({xb}, {yb})->front();
  DataType dtype = a.outDtype.isVoid() ? x->getDType() : a.outDtype;
  return makeTensorType({batch, xi, yj}, dtype, ctx);
}

/// Relay's BiasAddRel, BatchNormRel, LayerNormRel, GroupNormRel and
/// InstanceNormRel assign their 1-d parameters: arguments \p first to
/// \p first + \p count - 1, when unknown, are [data.shape[axis]] of the
/// data's dtype (the record's `axis`).
template <typename AttrsT>
static ArgTypeInferenceFn inferChannelParams(unsigned first, unsigned count) {
  return [first, count](ArrayRef<const Type *> args, const Attrs *attrs,
                        const TypeRelationContext &ctx,
                        MutableArrayRef<Ref<Type>> proposed) -> Error {
    const auto *data = dyn_cast_or_null<TensorType>(args[0]);
    if (!data)
      return Error::success();
    Expected<const AttrsT *> record = getAttrs<AttrsT>(attrs, ctx);
    if (!record)
      return record.takeError();
    Expected<unsigned> axis =
        normalizeAxis((*record)->axis, data->getRank(), ctx);
    if (!axis)
      return axis.takeError();
    Ref<Type> param =
        TensorType::get({data->getShape()[*axis]}, data->getDType());
    for (unsigned i = first; i != first + count && i < args.size(); ++i)
      if (!args[i])
        proposed[i] = param;
    return Error::success();
  };
}

/// nn.bias_add: bias is [data.shape[axis]]; the result is the data's type.
static RelationResult biasAddRelation(const BiasAddAttrs *biasAdd,
                                      const TensorType *data,
                                      const TensorType *bias,
                                      ArrayRef<const Type *> args,
                                      const TypeRelationContext &ctx) {
  Expected<unsigned> axis = normalizeAxis(biasAdd->axis, data->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  if (Error err = checkChannelParam(bias, "bias", data, *axis, ctx))
    return err;
  return Ref<Type>(const_cast<TensorType *>(data));
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

/// nn.batch_norm: gamma, beta, moving_mean and moving_var are [C] with
/// C = data.shape[axis]; the result is (data, [C], [C]). As in Relay, -1 is
/// the only negative axis accepted.
static RelationResult batchNormRelation(const BatchNormAttrs *batchNorm,
                                        const TensorType *data,
                                        ArrayRef<const Type *> args,
                                        const TypeRelationContext &ctx) {
  int64_t axisValue = batchNorm->axis;
  if (axisValue < -1)
    return ctx.error(
        "axis " + Twine(axisValue) + " is out of range for a tensor of rank " +
        Twine(data->getRank()) + " (-1 is the only negative axis)");
  Expected<unsigned> axis = normalizeAxis(axisValue, data->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  static const char *const paramNames[] = {"gamma", "beta", "moving_mean",
                                           "moving_var"};
  for (unsigned p = 0; p != 4; ++p) {
    Expected<const TensorType *> param =
        getTensorArg(args, p + 1, paramNames[p], ctx);
    if (!param)
      return param.takeError();
    if (Error err = checkChannelParam(*param, paramNames[p], data, *axis, ctx))
      return err;
  }
  Ref<Type> stats =
      TensorType::get({data->getShape()[*axis]}, data->getDType());
  Ref<Type> out(const_cast<TensorType *>(data));
  return Ref<Type>(TupleType::get({out, stats, stats}));
}

/// nn.layer_norm, nn.instance_norm, nn.group_norm: gamma and beta are [C]
/// with C = data.shape[axis]; the result is the data's type. \p numGroups,
/// for group_norm, must divide C.
static Expected<Ref<Type>> normalization(ArrayRef<const Type *> args,
                                         int64_t axisValue,
                                         std::optional<int64_t> numGroups,
                                         const TypeRelationContext &ctx) {
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  Expected<unsigned> axis = normalizeAxis(axisValue, (*data)->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  for (unsigned p = 0; p != 2; ++p) {
    StringRef name = p == 0 ? "gamma" : "beta";
    Expected<const TensorType *> param = getTensorArg(args, p + 1, name, ctx);
    if (!param)
      return param.takeError();
    if (Error err = checkChannelParam(*param, name, *data, *axis, ctx))
      return err;
  }
  if (numGroups) {
    int64_t channels = (*data)->getShape()[*axis];
    if (*numGroups <= 0)
      return ctx.error("num_groups must be positive, got " + Twine(*numGroups));
    if (!isAnyDim(channels) && channels % *numGroups != 0)
      return ctx.error("num_groups=" + Twine(*numGroups) +
                       " does not divide the " + Twine(channels) +
                       " channels (axis " + Twine(*axis) + ") of data " +
                       (*data)->str());
  }
  return Ref<Type>(const_cast<TensorType *>(*data));
}

static RelationResult layerNormRelation(const LayerNormAttrs *a,
                                        ArrayRef<const Type *> args,
                                        const TypeRelationContext &ctx) {
  return normalization(args, a->axis, std::nullopt, ctx);
}

static RelationResult instanceNormRelation(const InstanceNormAttrs *a,
                                           ArrayRef<const Type *> args,
                                           const TypeRelationContext &ctx) {
  return normalization(args, a->axis, std::nullopt, ctx);
}

static RelationResult groupNormRelation(const GroupNormAttrs *a,
                                        ArrayRef<const Type *> args,
                                        const TypeRelationContext &ctx) {
  return normalization(args, a->axis, a->numGroups, ctx);
}

/// nn.lrn: the data's type; the axis must exist and size be positive.
static RelationResult lrnRelation(const LRNAttrs *lrn, const TensorType *data,
                                  ArrayRef<const Type *> args,
                                  const TypeRelationContext &ctx) {
  if (lrn->size <= 0)
    return ctx.error("size must be positive, got " + Twine(lrn->size));
  Expected<unsigned> axis = normalizeAxis(lrn->axis, data->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  return Ref<Type>(const_cast<TensorType *>(data));
}

/// nn.l2_normalize: the data's type; every listed axis must exist (None
/// normalises over every axis).
static RelationResult l2NormalizeRelation(const L2NormalizeAttrs *l2,
                                          const TensorType *data,
                                          ArrayRef<const Type *> args,
                                          const TypeRelationContext &ctx) {
  if (l2->axis)
    for (int64_t axis : *l2->axis)
      if (Expected<unsigned> a = normalizeAxis(axis, data->getRank(), ctx); !a)
        return a.takeError();
  return Ref<Type>(const_cast<TensorType *>(data));
}

/// nn.softmax, nn.log_softmax (Relay's SoftmaxRel): the data's type; the
/// axis must exist.
static RelationResult softmaxRelation(const SoftmaxAttrs *softmax,
                                      const TensorType *data,
                                      ArrayRef<const Type *> args,
                                      const TypeRelationContext &ctx) {
  Expected<unsigned> axis = normalizeAxis(softmax->axis, data->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  return Ref<Type>(const_cast<TensorType *>(data));
}

//===----------------------------------------------------------------------===//
// Dropout, flattening, padding
//===----------------------------------------------------------------------===//

/// nn.dropout: (data, mask), both of the data's type.
static RelationResult dropoutRelation(const DropoutAttrs *dropout,
                                      const TensorType *data,
                                      ArrayRef<const Type *>,
                                      const TypeRelationContext &ctx) {
  Ref<Type> type(const_cast<TensorType *>(data));
  return Ref<Type>(TupleType::get({type, type}));
}

/// nn.batch_flatten: [d0, d1 * d2 * ...] (a 1-d input gives [d0, 1]).
static RelationResult batchFlattenRelation(const TensorType *data,
                                           ArrayRef<const Type *>,
                                           const TypeRelationContext &ctx) {
  ArrayRef<int64_t> shape = data->getShape();
  if (shape.empty())
    return ctx.error("expected a tensor of rank 1 or more for 'data', got " +
                     data->str());
  int64_t rest = 1;
  for (int64_t dim : shape.drop_front()) {
    std::optional<int64_t> product = mulDims(rest, dim);
    if (!product)
      return ctx.error("the flattened extent of data " + data->str() +
                       " overflows");
    rest = *product;
  }
  return makeTensorType({shape[0], rest}, data->getDType(), ctx);
}

/// nn.pad (Relay's PadRel): data and a 0-d pad value (of any dtype); axis i
/// grows by pad_width[i][0] + pad_width[i][1] (negative widths crop, as long
/// as the extent stays non-negative). Reflect padding must be smaller than
/// the axis; edge padding needs a non-empty axis.
static RelationResult padRelation(const PadAttrs *pad, const TensorType *data,
                                  const TensorType *padValue,
                                  ArrayRef<const Type *>,
                                  const TypeRelationContext &ctx) {
  const PadAttrs &a = *pad;
  if (Error err = checkOneOf(a.padMode, {"constant", "edge", "reflect"},
                             "pad_mode", ctx))
    return err;
  ArrayRef<int64_t> in = data->getShape();
  std::string dataText = data->str();
  if (a.padWidth.size() != in.size())
    return ctx.error("pad_width has " + Twine(a.padWidth.size()) +
                     " pairs, but data " + dataText + " has rank " +
                     Twine(in.size()));
  Shape out(in.size());
  for (unsigned i = 0, e = in.size(); i != e; ++i) {
    ArrayRef<int64_t> pair = a.padWidth[i];
    if (pair.size() != 2)
      return ctx.error("pad_width[" + Twine(i) +
                       "] must be a (before, after) pair, got " +
                       formatIntList(pair));
    if (isAnyDim(in[i])) {
      // Checked against the extent at run time.
      out[i] = kAnyDim;
      continue;
    }
    if (a.padMode == "reflect" && (pair[0] >= in[i] || pair[1] >= in[i]))
      return ctx.error("reflect padding " + formatIntList(pair) + " of axis " +
                       Twine(i) + " must be less than its extent " +
                       Twine(in[i]) + " in data " + dataText);
    if (a.padMode == "edge" && in[i] == 0 && (pair[0] > 0 || pair[1] > 0))
      return ctx.error("edge padding " + formatIntList(pair) + " of axis " +
                       Twine(i) + " needs a non-empty axis, but data " +
                       dataText + " has extent 0 there");
    int64_t extent;
    if (AddOverflow(in[i], pair[0], extent) ||
        AddOverflow(extent, pair[1], extent))
      return ctx.error("padding axis " + Twine(i) + " of data " + dataText +
                       " by " + formatIntList(pair) + " overflows");
    if (extent < 0)
      return ctx.error("padding " + formatIntList(pair) + " of axis " +
                       Twine(i) + " leaves a negative extent " + Twine(extent) +
                       " of data " + dataText);
    out[i] = extent;
  }
  return makeTensorType(out, data->getDType(), ctx);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Registers the convolution operator \p name (data, weight) with AttrsT and
/// \p relation, fusable as Relay's convolutions are.
template <typename AttrsT>
static OpBuilder addConvOp(OpRegistry &registry, StringRef name,
                           StringRef description, TypeRelationFn relation) {
  OpBuilder builder = registry.add(name);
  builder.describe(description)
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("weight", "Tensor")
      .setAttrsType<AttrsT>();
  builder.setAttr<TypeRelationFn>(kTypeRelationAttr, std::move(relation));
  builder.setAttr<OpPatternKind>(kOpPatternAttr,
                                 OpPatternKind::OutEWiseFusable);
  return builder;
}

/// Registers a convolution nn.conv<N>d.
template <typename AttrsT>
static void registerConv(OpRegistry &registry, StringRef name,
                         StringRef description) {
  OpBuilder builder = addConvOp<AttrsT>(
      registry, name, description, makeRelation<AttrsT>(convRelation<AttrsT>));
  builder.setAttr<ArgTypeInferenceFn>(kArgTypeInferenceAttr,
                                      inferConvArgTypes<AttrsT>);
}

/// Registers nn.conv{1,2,3}d_transpose \p name with AttrsT.
template <typename AttrsT>
static void registerConvTranspose(OpRegistry &registry, StringRef name,
                                  StringRef description) {
  constexpr unsigned rank = AttrsT::spatialRank + 2;
  addConvOp<AttrsT>(registry, name, description,
                    makeRelation<AttrsT>(convTransposeRelation<AttrsT>,
                                         rankedArg("data", rank),
                                         rankedArg("weight", rank)));
}

/// The normalisations: batch_norm, layer_norm, group_norm, instance_norm,
/// l2_normalize and lrn.
static void registerNormalizationOps(OpRegistry &registry) {
  // Relay registers no pattern for the normalisations (SimplifyInference
  // decomposes them before fusion), so they stay Opaque.
  registry.add("nn.batch_norm")
      .describe("batch normalisation; returns (out, mean, var)")
      .setNumInputs(5)
      .addArgument("data", "Tensor")
      .addArgument("gamma", "Tensor")
      .addArgument("beta", "Tensor")
      .addArgument("moving_mean", "Tensor")
      .addArgument("moving_var", "Tensor")
      .setAttrsType<BatchNormAttrs>()
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr,
          makeRelation<BatchNormAttrs>(batchNormRelation, "data"))
      .setAttr<ArgTypeInferenceFn>(kArgTypeInferenceAttr,
                                   inferChannelParams<BatchNormAttrs>(1, 4));
  registry.add("nn.layer_norm")
      .describe("layer normalisation along an axis")
      .setNumInputs(3)
      .addArgument("data", "Tensor")
      .addArgument("gamma", "Tensor")
      .addArgument("beta", "Tensor")
      .setAttrsType<LayerNormAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr,
                               makeRelation<LayerNormAttrs>(layerNormRelation))
      .setAttr<ArgTypeInferenceFn>(kArgTypeInferenceAttr,
                                   inferChannelParams<LayerNormAttrs>(1, 2));
  registry.add("nn.group_norm")
      .describe("group normalisation: channels split into num_groups")
      .setNumInputs(3)
      .addArgument("data", "Tensor")
      .addArgument("gamma", "Tensor")
      .addArgument("beta", "Tensor")
      .setAttrsType<GroupNormAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr,
                               makeRelation<GroupNormAttrs>(groupNormRelation))
      .setAttr<ArgTypeInferenceFn>(kArgTypeInferenceAttr,
                                   inferChannelParams<GroupNormAttrs>(1, 2));
  registry.add("nn.instance_norm")
      .describe("instance normalisation")
      .setNumInputs(3)
      .addArgument("data", "Tensor")
      .addArgument("gamma", "Tensor")
      .addArgument("beta", "Tensor")
      .setAttrsType<InstanceNormAttrs>()
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr,
          makeRelation<InstanceNormAttrs>(instanceNormRelation))
      .setAttr<ArgTypeInferenceFn>(kArgTypeInferenceAttr,
                                   inferChannelParams<InstanceNormAttrs>(1, 2));
  registry.add("nn.l2_normalize")
      .describe("L2 normalisation over axes")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<L2NormalizeAttrs>()
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr,
          makeRelation<L2NormalizeAttrs>(l2NormalizeRelation, "data"));
  registry.add("nn.lrn")
      .describe("local response normalisation")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<LRNAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr,
                               makeRelation<LRNAttrs>(lrnRelation, "data"))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::Opaque);
}

void nnir::registerNNOps() {
  OpRegistry &registry = OpRegistry::instance();
  registerConv<Conv1DAttrs>(registry, "nn.conv1d", "1-D convolution");
  registerConv<Conv2DAttrs>(registry, "nn.conv2d", "2-D convolution");
  registerConv<Conv3DAttrs>(registry, "nn.conv3d", "3-D convolution");
  registerConvTranspose<Conv1DTransposeAttrs>(
      registry, "nn.conv1d_transpose", "transposed 1-D convolution");
  registerConvTranspose<Conv2DTransposeAttrs>(
      registry, "nn.conv2d_transpose", "transposed 2-D convolution");
  registerConvTranspose<Conv3DTransposeAttrs>(
      registry, "nn.conv3d_transpose", "transposed 3-D convolution");
  registry.add("nn.dense")
      .describe("dense layer: data * weight^T")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("weight", "Tensor")
      .setAttrsType<DenseAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr,
                               makeRelation<DenseAttrs>(denseRelation))
      .setAttr<ArgTypeInferenceFn>(kArgTypeInferenceAttr, inferDenseArgTypes)
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::OutEWiseFusable);
  registry.add("nn.matmul")
      .describe("matrix product, either operand optionally transposed")
      .setNumInputs(2)
      .addArgument("tensor_a", "Tensor")
      .addArgument("tensor_b", "Tensor")
      .setAttrsType<MatmulAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr,
                               makeRelation<MatmulAttrs>(matmulRelation))
      .setAttr<ArgTypeInferenceFn>(kArgTypeInferenceAttr, inferMatmulArgTypes)
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::OutEWiseFusable);
  registry.add("nn.batch_matmul")
      .describe("batched matrix product of 3-D tensors")
      .setNumInputs(2)
      .addArgument("tensor_a", "Tensor")
      .addArgument("tensor_b", "Tensor")
      .setAttrsType<BatchMatmulAttrs>()
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr, makeRelation<BatchMatmulAttrs>(
                                 batchMatmulRelation, rankedArg("tensor_a", 3),
                                 rankedArg("tensor_b", 3)))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::OutEWiseFusable);
  registry.add("nn.bias_add")
      .describe("add a 1-D bias along an axis")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("bias", "Tensor")
      .setAttrsType<BiasAddAttrs>()
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr,
          makeRelation<BiasAddAttrs>(biasAddRelation, "data", "bias"))
      .setAttr<ArgTypeInferenceFn>(kArgTypeInferenceAttr,
                                   inferChannelParams<BiasAddAttrs>(1, 1))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::Broadcast);

  registerNormalizationOps(registry);
  registry.add("nn.softmax")
      .describe("softmax along an axis")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<SoftmaxAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, makeRelation<SoftmaxAttrs>(
                                                      softmaxRelation, "data"))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::OutEWiseFusable);
  registry.add("nn.log_softmax")
      .describe("log of the softmax along an axis")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<SoftmaxAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, makeRelation<SoftmaxAttrs>(
                                                      softmaxRelation, "data"))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::OutEWiseFusable);
  registry.add("nn.dropout")
      .describe("dropout; returns (out, mask)")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<DropoutAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, makeRelation<DropoutAttrs>(
                                                      dropoutRelation, "data"))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::Opaque)
      .setAttr<bool>(kOpIsStatefulAttr, true);
  registry.add("nn.batch_flatten")
      .describe("flatten every axis but the first")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttr<TypeRelationFn>(kTypeRelationAttr,
                               makeRelation(batchFlattenRelation, "data"))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::Injective);
  registry.add("nn.pad")
      .describe("pad with a constant, the edge values or a reflection")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("pad_value", "Tensor")
      .setAttrsType<PadAttrs>()
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr, makeRelation<PadAttrs>(padRelation, "data",
                                                    rankedArg("pad_value", 0)))
      .setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::Injective);

  registerPoolingOps();
  registerImageOps();

  // The relations that keep `?` extents with TVM's rules (a dynamic batch
  // or spatial extent passes through; channels and weights stay static).
  markDynamicShapeRelations(
      {"nn.conv1d", "nn.conv2d", "nn.conv3d", "nn.conv1d_transpose",
       "nn.conv2d_transpose", "nn.conv3d_transpose",
       "nn.batch_norm",
       "nn.layer_norm", "nn.group_norm", "nn.instance_norm", "nn.l2_normalize",
       "nn.lrn", "nn.dense", "nn.matmul", "nn.batch_matmul", "nn.bias_add",
       "nn.softmax", "nn.log_softmax", "nn.dropout", "nn.batch_flatten",
       "nn.pad", "nn.max_pool2d", "nn.avg_pool2d", "nn.global_avg_pool2d",
       "nn.global_max_pool2d", "nn.adaptive_avg_pool2d",
       "nn.adaptive_max_pool2d"});
}
