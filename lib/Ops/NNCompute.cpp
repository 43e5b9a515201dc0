//===- NNCompute.cpp - Computes of the neural-network operators -----------===//
//
/// \file
/// The TE computes of nn.bias_add, nn.dense, nn.conv2d, nn.softmax,
/// nn.log_softmax, nn.max_pool2d and nn.avg_pool2d. Convolutions and pools
/// are reductions over a window. A convolution reads a padded copy of its
/// input, materialised once (te::compute with materialize), so its loops need
/// no bounds checks; a pool treats padding as a condition on the reduction
/// (reads clamped in bounds, padded positions skipped). Softmax is the
/// example of a compute made of several stages (two reductions and an
/// elementwise tail). Layouts are read from their strings (NCHW, NHWC; OIHW,
/// HWIO, ...).
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Compute.h"
#include "nnir/TE/Inline.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

/// The (before, after) padding of \p rank spatial axes from 1, rank or
/// 2 * rank values (as the type relations read them).
static SmallVector<int64_t, 3> paddingBefore(ArrayRef<int64_t> values,
                                             unsigned rank) {
  SmallVector<int64_t, 3> before(rank, 0);
  for (unsigned i = 0; i < rank; ++i)
    before[i] = values.empty() ? 0 : values.size() == 1 ? values[0] : values[i];
  return before;
}

static SmallVector<int64_t, 3> paddingAfter(ArrayRef<int64_t> values,
                                            unsigned rank) {
  SmallVector<int64_t, 3> after(rank, 0);
  for (unsigned i = 0; i < rank; ++i)
    after[i] = values.empty()          ? 0
               : values.size() == 1    ? values[0]
               : values.size() == rank ? values[i]
                                       : values[rank + i];
  return after;
}

static int64_t window(ArrayRef<int64_t> values, unsigned i) {
  return values.size() == 1 ? values[0] : values[i];
}

/// The output extent of a window of \p span elements moved by \p stride
/// over \p in elements padded by \p pads in all: (in + pads - span) /
/// stride + 1, written so that a window that keeps the extent gives \p in
/// itself (a symbolic extent then matches the input's).
static te::Expr windowExtent(const te::Expr &in, int64_t pads, int64_t span,
                             int64_t stride) {
  int64_t offset = pads - span;
  if (stride == 1)
    return offset + 1 == 0 ? in : in + te::Expr(offset + 1);
  te::Expr padded = offset == 0 ? in : in + te::Expr(offset);
  return floorDiv(padded, te::Expr(stride)) + 1;
}

/// The position of \p letter in \p layout, or -1.
static int axisOf(StringRef layout, char letter) {
  size_t pos = layout.find(letter);
  return pos == StringRef::npos ? -1 : static_cast<int>(pos);
}

/// nn.conv1d, nn.conv2d and nn.conv3d over the spatial axes \p spatial
/// ("W", "HW", "DHW"): data in any ordering of N, C and the spatial letters,
/// the kernel in any ordering of O, I and them; groups split the channels
/// (depthwise when groups equals the channels).
template <typename AttrsT>
static Expected<std::vector<te::Tensor>> convolution(const ComputeArgs &args) {
  const auto *attrs = llvm::cast<AttrsT>(args.attrs);
  constexpr unsigned rank = AttrsT::spatialRank;
  StringRef spatial = StringRef("DHW").take_back(rank);
  const te::Tensor &data = args.arg(0);
  const te::Tensor &weight = args.arg(1);
  StringRef dl = attrs->dataLayout, kl = attrs->kernelLayout;
  StringRef ol = attrs->outLayout.empty() ? dl : StringRef(attrs->outLayout);
  auto isOrdering = [&](StringRef layout, StringRef letters) {
    if (layout.size() != letters.size() + rank)
      return false;
    for (char c : letters.str() + spatial.str())
      if (axisOf(layout, c) < 0)
        return false;
    return true;
  };
  // The type relation accepts split layouts (NCHW4c, OIHW2i4o); this
  // compute reads only plain orderings and refuses the rest rather than
  // guessing.
  for (StringRef layout : {dl, ol})
    if (!isOrdering(layout, "NC"))
      return computeError("layout '" + layout + "' is not supported (only " +
                          "orderings of NC" + spatial + ", no split axes)");
  if (!isOrdering(kl, "OI"))
    return computeError("kernel layout '" + kl + "' is not supported (only " +
                        "orderings of OI" + spatial + ", no split axes)");
  // The batch and the spatial extents may be symbolic (`?`); the channels
  // and the kernel are static.
  auto weightShape = getConstShape(weight.getShape());
  std::optional<int64_t> channelsOrNone =
      data.getShape()[axisOf(dl, 'C')].getConstInt();
  if (!channelsOrNone || !weightShape)
    return computeError("needs static channels and kernel shape");
  int64_t channels = *channelsOrNone;
  int64_t outChannels = (*weightShape)[axisOf(kl, 'O')];
  int64_t groupChannels = (*weightShape)[axisOf(kl, 'I')];
  int64_t groups = attrs->groups;
  if (groups < 1 || channels != groupChannels * groups || outChannels % groups)
    return computeError("channels do not divide into groups");
  int64_t outPerGroup = outChannels / groups;
  SmallVector<int64_t, 3> before = paddingBefore(attrs->padding, rank);
  SmallVector<int64_t, 3> after = paddingAfter(attrs->padding, rank);
  SmallVector<int64_t, 3> kernel, stride, dilation;
  SmallVector<te::Expr, 3> extent;
  for (unsigned s = 0; s < rank; ++s) {
    extent.push_back(data.getShape()[axisOf(dl, spatial[s])]);
    kernel.push_back((*weightShape)[axisOf(kl, spatial[s])]);
    stride.push_back(window(attrs->strides, s));
    dilation.push_back(window(attrs->dilation, s));
  }
  DataType outType = llvm::cast<TensorType>(args.resultType)->getDType();
  // The result's extents, for `?` ones: the relation's formula.
  std::vector<te::Expr> derived(rank + 2);
  derived[axisOf(ol, 'N')] = data.getShape()[axisOf(dl, 'N')];
  derived[axisOf(ol, 'C')] = te::Expr(outChannels);
  for (unsigned s = 0; s < rank; ++s)
    derived[axisOf(ol, spatial[s])] =
        windowExtent(extent[s], before[s] + after[s],
                     (kernel[s] - 1) * dilation[s] + 1, stride[s]);

  // A padded copy of the input, materialised once (every element is read
  // once per kernel position), so the convolution reads it without bounds
  // checks and its innermost loop stays contiguous.
  te::Tensor source = data;
  if (llvm::any_of(before, [](int64_t p) { return p != 0; }) ||
      llvm::any_of(after, [](int64_t p) { return p != 0; })) {
    std::vector<te::Expr> shape = data.getShape();
    for (unsigned s = 0; s < rank; ++s)
      shape[axisOf(dl, spatial[s])] = extent[s] + (before[s] + after[s]);
    source = compute(
        shape,
        [&](ArrayRef<te::Expr> i) {
          te::Expr inside = boolImm(true);
          SmallVector<te::Expr, 5> in(i.begin(), i.end());
          for (unsigned s = 0; s < rank; ++s) {
            int a = axisOf(dl, spatial[s]);
            te::Expr x = i[a] - before[s];
            inside = logicalAnd(inside, logicalAnd(x >= 0, x < extent[s]));
            in[a] = max(min(x, extent[s] - 1), te::Expr(0));
          }
          return select(inside, data(in), constant(data.getDType(), 0));
        },
        "pad", /*materialize=*/true);
  }
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> o) {
        te::Expr oc = o[axisOf(ol, 'C')];
        IterVar ic = reduceAxis(groupChannels, "ic");
        SmallVector<IterVar, 4> axes{ic};
        te::Expr c = ic.var;
        if (groups > 1)
          c = truncDiv(oc, te::Expr(outPerGroup)) * groupChannels + ic.var;
        SmallVector<te::Expr, 5> in(rank + 2), k(rank + 2);
        in[axisOf(dl, 'N')] = o[axisOf(ol, 'N')];
        in[axisOf(dl, 'C')] = c;
        k[axisOf(kl, 'O')] = oc;
        k[axisOf(kl, 'I')] = ic.var;
        for (unsigned s = 0; s < rank; ++s) {
          IterVar r = reduceAxis(kernel[s], std::string("r") + spatial[s]);
          axes.push_back(r);
          in[axisOf(dl, spatial[s])] =
              o[axisOf(ol, spatial[s])] * stride[s] + r.var * dilation[s];
          k[axisOf(kl, spatial[s])] = r.var;
        }
        return sum(te::cast(outType, source(in)) * te::cast(outType, weight(k)),
                   axes);
      },
      rank == 1   ? "conv1d"
      : rank == 2 ? "conv2d"
                  : "conv3d")};
}

/// nn.conv1d_transpose, nn.conv2d_transpose and nn.conv3d_transpose, the
/// gradient of a convolution: output position y gathers input position
/// (y + pad - ky * dilation) / stride of every kernel position ky where that
/// division is exact and in range, on each spatial axis. Computed as TVM's
/// topi does: the input spread out by the stride (zeros between) and padded
/// by dilation * (kernel - 1) - pad, materialised, then a convolution of
/// stride 1 with the flipped kernel, so the sum has no condition and its
/// reads walk the output's last axis contiguously (Codegen vectorises it).
template <typename AttrsT>
static Expected<std::vector<te::Tensor>>
convTranspose(const ComputeArgs &args) {
  constexpr unsigned rank = AttrsT::spatialRank;
  const auto *attrs = llvm::cast<AttrsT>(args.attrs);
  // The spatial letters: "W", "HW", "DHW".
  StringRef spatial = StringRef(AttrsT::defaultDataLayout).drop_front(2);
  const te::Tensor &data = args.arg(0);
  const te::Tensor &weight = args.arg(1);
  StringRef dl = attrs->dataLayout, kl = attrs->kernelLayout;
  StringRef ol = attrs->outLayout.empty() ? dl : StringRef(attrs->outLayout);
  auto isOrdering = [](StringRef layout, StringRef letters) {
    return layout.size() == rank + 2 && llvm::all_of(letters, [&](char c) {
             return axisOf(layout, c) >= 0;
           });
  };
  StringRef dataLetters = AttrsT::defaultDataLayout;
  StringRef kernelLetters = AttrsT::defaultKernelLayout;
  if (!isOrdering(dl, dataLetters) || !isOrdering(ol, dataLetters) ||
      !isOrdering(kl, kernelLetters))
    return computeError("layouts must be orderings of " + dataLetters +
                        " and " + kernelLetters);
  // The batch and the spatial extents may be symbolic (`?`); the channels
  // and the kernel are static.
  auto weightShape = getConstShape(weight.getShape());
  std::optional<int64_t> channelsOrNone =
      data.getShape()[axisOf(dl, 'C')].getConstInt();
  if (!channelsOrNone || !weightShape)
    return computeError("needs static channels and kernel shape");
  int64_t channels = *channelsOrNone;
  int64_t groups = attrs->groups;
  if (groups < 1 || channels % groups)
    return computeError("channels do not divide into groups");
  int64_t inPerGroup = channels / groups;
  int64_t outPerGroup = (*weightShape)[axisOf(kl, 'O')];
  SmallVector<int64_t, 3> before = paddingBefore(attrs->padding, rank);
  DataType outType = llvm::cast<TensorType>(args.resultType)->getDType();
  int64_t kernel[rank], stride[rank], dilation[rank], spread[rank];
  for (unsigned s = 0; s < rank; ++s) {
    kernel[s] = (*weightShape)[axisOf(kl, spatial[s])];
    stride[s] = window(attrs->strides, s);
    dilation[s] = window(attrs->dilation, s);
    // spread[y] = data[(y - spread) / stride] where exact and in range.
    spread[s] = dilation[s] * (kernel[s] - 1) - before[s];
  }
  SmallVector<int64_t, 3> after = paddingAfter(attrs->padding, rank);
  // The input's spatial extents and the result's: (in - 1) * stride +
  // dilation * (kernel - 1) + 1 - pads + output_padding (the relation's
  // formula, for `?` ones).
  SmallVector<te::Expr, 3> extent;
  std::vector<te::Expr> derived(rank + 2);
  derived[axisOf(ol, 'N')] = data.getShape()[axisOf(dl, 'N')];
  derived[axisOf(ol, 'C')] = te::Expr(outPerGroup * groups);
  for (unsigned s = 0; s < rank; ++s) {
    extent.push_back(data.getShape()[axisOf(dl, spatial[s])]);
    int64_t offset = dilation[s] * (kernel[s] - 1) + 1 - before[s] -
                     after[s] + window(attrs->outputPadding, s) - stride[s];
    te::Expr scaled = stride[s] == 1 ? extent[s] : extent[s] * stride[s];
    derived[axisOf(ol, spatial[s])] =
        offset == 0 ? scaled : scaled + te::Expr(offset);
  }
  std::vector<te::Expr> resultShape = args.getResultShape(derived);
  // A stride equal to the kernel (no dilation, no padding before: the
  // upsampling of segmentation and detection heads) gives each output
  // position exactly one kernel tap: the output interleaves, for each tap,
  // a 1x1 convolution of the input by that tap's weights (depth to space).
  // The taps are one materialised stage of shape (N, O, taps..., input's
  // spatial extents...), whose sum over the input channels reads the input
  // along its last axis (Codegen tiles it); no spread input, and a kernel's
  // area fewer products.
  bool subPixel = true;
  for (unsigned s = 0; s < rank; ++s)
    subPixel &= stride[s] == kernel[s] && dilation[s] == 1 && before[s] == 0;
  if (subPixel) {
    int64_t outChannels = outPerGroup * groups;
    std::vector<te::Expr> tapShape = {data.getShape()[axisOf(dl, 'N')],
                                      te::Expr(outChannels)};
    for (unsigned s = 0; s < rank; ++s)
      tapShape.push_back(te::Expr(kernel[s]));
    for (unsigned s = 0; s < rank; ++s)
      tapShape.push_back(extent[s]);
    te::Tensor taps = compute(
        tapShape,
        [&](ArrayRef<te::Expr> t) {
          te::Expr oc = t[1];
          IterVar ic = reduceAxis(inPerGroup, "ic");
          SmallVector<te::Expr, 5> in(rank + 2), k(rank + 2);
          in[axisOf(dl, 'N')] = t[0];
          in[axisOf(dl, 'C')] =
              truncDiv(oc, te::Expr(outPerGroup)) * inPerGroup + ic.var;
          k[axisOf(kl, 'I')] = in[axisOf(dl, 'C')];
          k[axisOf(kl, 'O')] = truncMod(oc, te::Expr(outPerGroup));
          for (unsigned s = 0; s < rank; ++s) {
            k[axisOf(kl, spatial[s])] = t[2 + s];
            in[axisOf(dl, spatial[s])] = t[2 + rank + s];
          }
          return sum(te::cast(outType, data(in)) *
                         te::cast(outType, weight(k)),
                     {ic});
        },
        "taps", /*materialize=*/true);
    return std::vector<te::Tensor>{compute(
        resultShape,
        [&](ArrayRef<te::Expr> o) {
          SmallVector<te::Expr, 8> t = {o[axisOf(ol, 'N')],
                                        o[axisOf(ol, 'C')]};
          t.resize(2 + 2 * rank);
          // Output rows past the input's reach (output_padding) are zero.
          te::Expr valid = boolImm(true);
          bool beyond = false;
          for (unsigned s = 0; s < rank; ++s) {
            const te::Expr &n = extent[s];
            te::Expr y = o[axisOf(ol, spatial[s])];
            te::Expr x = floorDiv(y, te::Expr(stride[s]));
            // The result reaches past the input's n * stride rows unless
            // its extent is provably within them.
            int64_t reach = window(attrs->outputPadding, s) - after[s];
            if (reach > 0) {
              beyond = true;
              valid = logicalAnd(valid, x < n);
              x = min(x, n - 1);
            }
            t[2 + s] = floorMod(y, te::Expr(stride[s]));
            t[2 + rank + s] = x;
          }
          if (!beyond)
            return taps(t);
          return select(valid, taps(t), constant(outType, 0));
        },
        rank == 1   ? "conv1d_transpose"
        : rank == 2 ? "conv2d_transpose"
                    : "conv3d_transpose")};
  }
  // The spread and padded input, as wide as the output plus the kernel's
  // reach, so the convolution reads it without bounds checks.
  std::vector<te::Expr> spreadShape = data.getShape();
  for (unsigned s = 0; s < rank; ++s) {
    int64_t reach = dilation[s] * (kernel[s] - 1);
    spreadShape[axisOf(dl, spatial[s])] =
        resultShape[axisOf(ol, spatial[s])] + reach;
  }
  te::Tensor spreadData = compute(
      spreadShape,
      [&](ArrayRef<te::Expr> i) {
        te::Expr valid = boolImm(true);
        SmallVector<te::Expr, 5> in(i.begin(), i.end());
        for (unsigned s = 0; s < rank; ++s) {
          int a = axisOf(dl, spatial[s]);
          const te::Expr &n = extent[s];
          te::Expr t = i[a] - spread[s];
          te::Expr x = floorDiv(t, te::Expr(stride[s]));
          valid = logicalAnd(
              valid, logicalAnd(floorMod(t, te::Expr(stride[s])) == 0,
                                logicalAnd(x >= 0, x < n)));
          in[a] = max(min(x, n - 1), te::Expr(0));
        }
        return select(valid, data(in), constant(data.getDType(), 0));
      },
      "spread", /*materialize=*/true);
  return std::vector<te::Tensor>{compute(
      resultShape,
      [&](ArrayRef<te::Expr> o) {
        te::Expr oc = o[axisOf(ol, 'C')];
        IterVar ic = reduceAxis(inPerGroup, "ic");
        SmallVector<IterVar, 4> axes{ic};
        SmallVector<te::Expr, 5> in(rank + 2), k(rank + 2);
        in[axisOf(dl, 'N')] = o[axisOf(ol, 'N')];
        in[axisOf(dl, 'C')] =
            truncDiv(oc, te::Expr(outPerGroup)) * inPerGroup + ic.var;
        k[axisOf(kl, 'I')] = in[axisOf(dl, 'C')];
        k[axisOf(kl, 'O')] = truncMod(oc, te::Expr(outPerGroup));
        for (unsigned s = 0; s < rank; ++s) {
          IterVar r = reduceAxis(kernel[s], std::string("r") + spatial[s]);
          axes.push_back(r);
          in[axisOf(dl, spatial[s])] =
              o[axisOf(ol, spatial[s])] + r.var * dilation[s];
          k[axisOf(kl, spatial[s])] = te::Expr(kernel[s] - 1) - r.var;
        }
        return sum(te::cast(outType, spreadData(in)) *
                       te::cast(outType, weight(k)),
                   axes);
      },
      rank == 1   ? "conv1d_transpose"
      : rank == 2 ? "conv2d_transpose"
                  : "conv3d_transpose")};
}

/// nn.max_pool2d and nn.avg_pool2d.
template <typename AttrsT>
static Expected<std::vector<te::Tensor>> pool2d(const ComputeArgs &args,
                                                bool isMax) {
  const auto *attrs = llvm::cast<AttrsT>(args.attrs);
  const te::Tensor &data = args.arg(0);
  StringRef layout = attrs->layout;
  int hAxis = axisOf(layout, 'H'), wAxis = axisOf(layout, 'W');
  if (hAxis < 0 || wAxis < 0 || layout.size() != data.getRank())
    return computeError("layout '" + layout + "' is not supported");
  // The batch, channels and spatial extents may be symbolic (`?`).
  te::Expr height = data.getShape()[hAxis], width = data.getShape()[wAxis];
  SmallVector<int64_t, 3> before = paddingBefore(attrs->padding, 2);
  SmallVector<int64_t, 3> after = paddingAfter(attrs->padding, 2);
  int64_t ph = window(attrs->poolSize, 0), pw = window(attrs->poolSize, 1);
  int64_t sh = window(attrs->strides, 0), sw = window(attrs->strides, 1);
  int64_t dh = window(attrs->dilation, 0), dw = window(attrs->dilation, 1);
  bool countPad = false;
  if constexpr (std::is_same_v<AttrsT, AvgPool2DAttrs>)
    countPad = attrs->countIncludePad;
  DataType dtype = data.getDType();
  // The result's extents, for `?` ones: ceil_mode rounds the division up
  // (stride - 1 more elements, as the relation counts them).
  std::vector<te::Expr> derived = data.getShape();
  int64_t ceilH = attrs->ceilMode ? sh - 1 : 0;
  int64_t ceilW = attrs->ceilMode ? sw - 1 : 0;
  derived[hAxis] = windowExtent(height, before[0] + after[0] + ceilH,
                                (ph - 1) * dh + 1, sh);
  derived[wAxis] = windowExtent(width, before[1] + after[1] + ceilW,
                                (pw - 1) * dw + 1, sw);
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> o) {
        IterVar ry = reduceAxis(ph, "ry"), rx = reduceAxis(pw, "rx");
        te::Expr ih = o[hAxis] * sh + ry.var * dh - before[0];
        te::Expr iw = o[wAxis] * sw + rx.var * dw - before[1];
        te::Expr inside = logicalAnd(logicalAnd(ih >= 0, ih < height),
                                     logicalAnd(iw >= 0, iw < width));
        SmallVector<te::Expr, 4> in(o.begin(), o.end());
        in[hAxis] = max(min(ih, height - 1), te::Expr(0));
        in[wAxis] = max(min(iw, width - 1), te::Expr(0));
        if (isMax)
          return reduce(ReduceKind::Max, data(in), {ry, rx}, inside);
        DataType accType = getAccumulationType(dtype);
        te::Expr total = reduce(ReduceKind::Sum, te::cast(accType, data(in)),
                                {ry, rx}, inside);
        // The divisor: window positions inside the input, or inside the
        // padded input with count_include_pad.
        te::Expr counted = inside;
        if (countPad)
          counted =
              logicalAnd(logicalAnd(ih >= -before[0], ih < height + after[0]),
                         logicalAnd(iw >= -before[1], iw < width + after[1]));
        IterVar cy = reduceAxis(ph, "cy"), cx = reduceAxis(pw, "cx");
        DenseMap<const ExprNode *, te::Expr> rename{{ry.var.get(), cy.var},
                                                    {rx.var.get(), cx.var}};
        te::Expr count = reduce(ReduceKind::Sum, constant(accType, 1), {cy, cx},
                                substitute(counted, rename));
        return te::cast(dtype, select(count > constant(accType, 0),
                                      total / count, constant(accType, 0)));
      },
      isMax ? "max_pool2d" : "avg_pool2d")};
}

/// nn.adaptive_{avg,max}_pool2d and nn.global_{avg,max}_pool2d (a 1 x 1
/// output): output position y of extent o pools the input rows
/// [floor(y * H / o), ceil((y + 1) * H / o)), as TVM and PyTorch do.
template <typename AttrsT>
static Expected<std::vector<te::Tensor>> adaptivePool2d(const ComputeArgs &args,
                                                        bool isMax) {
  const auto *attrs = llvm::cast<AttrsT>(args.attrs);
  const te::Tensor &data = args.arg(0);
  StringRef layout = attrs->layout;
  int axes[2] = {axisOf(layout, 'H'), axisOf(layout, 'W')};
  if (axes[0] < 0 || axes[1] < 0 || layout.size() != data.getRank())
    return computeError("layout '" + layout + "' is not supported");
  // The batch, channels and input extents may be symbolic (`?`); the
  // output extents are static.
  std::vector<te::Expr> derived = data.getShape();
  std::vector<te::Expr> shape = args.getResultShape(derived);
  te::Expr in[2], widest[2];
  int64_t out[2];
  for (unsigned s = 0; s < 2; ++s) {
    in[s] = data.getShape()[axes[s]];
    std::optional<int64_t> outExtent = shape[axes[s]].getConstInt();
    if (!outExtent || *outExtent < 1)
      return computeError("needs static output extents");
    out[s] = *outExtent;
    // The widest window: its extent bounds the reduction.
    if (std::optional<int64_t> inExtent = in[s].getConstInt()) {
      int64_t w = 0;
      for (int64_t y = 0; y < out[s]; ++y)
        w = std::max(w, divideCeilSigned((y + 1) * *inExtent, out[s]) -
                            y * *inExtent / out[s]);
      widest[s] = w;
    } else {
      // At most ceil(in / out) + 1 (the whole input for one output).
      widest[s] = out[s] == 1 ? in[s]
                              : floorDiv(in[s] + (out[s] - 1),
                                         te::Expr(out[s])) +
                                    1;
    }
  }
  DataType dtype = data.getDType();
  return std::vector<te::Tensor>{compute(
      shape,
      [&](ArrayRef<te::Expr> o) {
        SmallVector<IterVar, 2> rs;
        SmallVector<te::Expr, 5> idx(o.begin(), o.end());
        te::Expr inside = boolImm(true), count = 1;
        for (unsigned s = 0; s < 2; ++s) {
          te::Expr y = o[axes[s]];
          te::Expr start = floorDiv(y * in[s], te::Expr(out[s]));
          te::Expr end =
              floorDiv((y + 1) * in[s] + (out[s] - 1), te::Expr(out[s]));
          rs.push_back(reduceAxis(widest[s], s == 0 ? "ry" : "rx"));
          te::Expr pos = start + rs.back().var;
          inside = logicalAnd(inside, pos < end);
          idx[axes[s]] = min(pos, in[s] - 1);
          count = count * (end - start);
        }
        if (isMax)
          return reduce(ReduceKind::Max, data(idx), rs, inside);
        DataType accType = getAccumulationType(dtype);
        return te::cast(
            dtype,
            reduce(ReduceKind::Sum, te::cast(accType, data(idx)), rs, inside) /
                te::cast(accType, count));
      },
      isMax ? "adaptive_max_pool2d" : "adaptive_avg_pool2d")};
}

/// Softmax over \p axis: max, sum of exp, then the elementwise tail.
static Expected<std::vector<te::Tensor>> softmax(const ComputeArgs &args,
                                                 bool log) {
  const te::Tensor &x = args.arg(0);
  unsigned rank = x.getRank();
  int64_t axis = llvm::cast<SoftmaxAttrs>(args.attrs)->axis;
  if (axis < 0)
    axis += rank;
  std::vector<te::Expr> reducedShape;
  for (unsigned i = 0; i < rank; ++i)
    if (i != axis)
      reducedShape.push_back(x.getShape()[i]);
  auto withAxis = [&](ArrayRef<te::Expr> outer, te::Expr k) {
    SmallVector<te::Expr, 4> in(outer.begin(), outer.end());
    in.insert(in.begin() + axis, k);
    return in;
  };
  auto dropAxis = [&](ArrayRef<te::Expr> i) {
    SmallVector<te::Expr, 4> out(i.begin(), i.end());
    out.erase(out.begin() + axis);
    return out;
  };
  te::Tensor m = compute(
      reducedShape,
      [&](ArrayRef<te::Expr> i) {
        IterVar k = reduceAxis(x.getShape()[axis]);
        return reduce(ReduceKind::Max, x(withAxis(i, k.var)), {k});
      },
      "softmax_max");
  // The denominator in float32 for float16/bfloat16 (it reaches the
  // length of the axis).
  DataType dtype = x.getDType(), accType = getAccumulationType(dtype);
  te::Tensor s = compute(
      reducedShape,
      [&](ArrayRef<te::Expr> i) {
        IterVar k = reduceAxis(x.getShape()[axis]);
        te::Expr e = call(Intrinsic::Exp, {x(withAxis(i, k.var)) - m(i)});
        return sum(te::cast(accType, e), {k});
      },
      "softmax_sum");
  return std::vector<te::Tensor>{compute(
      x.getShape(),
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 4> outer = dropAxis(i);
        te::Expr shifted = x(i) - m(outer);
        if (log)
          return shifted - te::cast(dtype, call(Intrinsic::Log, {s(outer)}));
        te::Expr e = te::cast(accType, call(Intrinsic::Exp, {shifted}));
        return te::cast(dtype, e / s(outer));
      },
      log ? "log_softmax" : "softmax")};
}

/// nn.dense, nn.matmul and nn.batch_matmul: a [..., M, K] (transposed
/// [..., K, M]) times b [K, N] (transposed [N, K]), or with \p batched a
/// [B, M, K] times b [B, K, N] where a batch of 1 broadcasts; the products
/// are summed in the result dtype.
static Expected<std::vector<te::Tensor>> matmul(const ComputeArgs &args,
                                                bool transposeA,
                                                bool transposeB, bool batched) {
  const te::Tensor &a = args.arg(0);
  const te::Tensor &b = args.arg(1);
  unsigned aRank = a.getRank();
  DataType outType = llvm::cast<TensorType>(args.resultType)->getDType();
  te::Expr k = a.getShape()[transposeA ? aRank - 2 : aRank - 1];
  auto batchIndex = [](const te::Tensor &t, const te::Expr &i) {
    return t.getShape()[0].isConstInt(1) ? te::Expr(0) : i;
  };
  // The result's extents, for `?` ones: [batch or a's leading axes..., M, N].
  const std::vector<te::Expr> &as = a.getShape(), &bs = b.getShape();
  std::vector<te::Expr> derived;
  if (batched)
    derived.push_back(as[0].isConstInt(1) ? bs[0] : as[0]);
  else if (aRank >= 2)
    derived.insert(derived.end(), as.begin(), as.end() - 2);
  if (aRank >= 2)
    derived.push_back(as[transposeA ? aRank - 1 : aRank - 2]);
  derived.push_back(bs[transposeB ? b.getRank() - 2 : b.getRank() - 1]);
  if (derived.size() !=
      llvm::cast<TensorType>(args.resultType)->getRank())
    return computeError("operand ranks do not match the result's");
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> o) {
        unsigned r = o.size();
        IterVar rk = reduceAxis(k);
        te::Expr n = o[r - 1];
        SmallVector<te::Expr, 4> ai, bi;
        if (batched) {
          ai.push_back(batchIndex(a, o[0]));
          bi.push_back(batchIndex(b, o[0]));
        } else if (aRank >= 2) {
          ai.append(o.begin(), o.begin() + (r - 2));
        }
        if (aRank >= 2) {
          te::Expr m = o[r - 2];
          ai.append(transposeA ? std::initializer_list<te::Expr>{rk.var, m}
                               : std::initializer_list<te::Expr>{m, rk.var});
        } else {
          ai.push_back(rk.var);
        }
        bi.append(transposeB ? std::initializer_list<te::Expr>{n, rk.var}
                             : std::initializer_list<te::Expr>{rk.var, n});
        return sum(te::cast(outType, a(ai)) * te::cast(outType, b(bi)), {rk});
      },
      batched ? "batch_matmul" : "matmul")};
}

/// nn.pad: "constant" reads the pad value outside the data, "edge" the
/// nearest element, "reflect" the mirror image without repeating the edge
/// (NumPy's "reflect"). Negative widths crop.
static Expected<std::vector<te::Tensor>> pad(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  const te::Tensor &padValue = args.arg(1);
  const auto *attrs = llvm::cast<PadAttrs>(args.attrs);
  StringRef mode = attrs->padMode;
  // Every extent may be symbolic (`?`): the result's is the input's plus
  // the widths.
  const std::vector<te::Expr> &shape = data.getShape();
  std::vector<te::Expr> derived;
  for (unsigned a = 0; a < shape.size(); ++a) {
    int64_t widths = attrs->padWidth[a][0] + attrs->padWidth[a][1];
    derived.push_back(widths == 0 ? shape[a] : shape[a] + te::Expr(widths));
  }
  DataType dtype = data.getDType();
  // Empty data has nothing to read: constant padding is all pad value.
  bool empty = llvm::any_of(
      shape, [](const te::Expr &e) { return e.isConstInt(0); });
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> o) {
        if (empty)
          return te::cast(dtype, padValue({}));
        te::Expr inside = boolImm(true);
        SmallVector<te::Expr, 4> in;
        for (unsigned a = 0; a < o.size(); ++a) {
          int64_t before = attrs->padWidth[a][0];
          const te::Expr &n = shape[a];
          te::Expr j = o[a] - before;
          if (mode == "constant")
            inside = logicalAnd(inside, logicalAnd(j >= 0, j < n));
          if (mode == "reflect") {
            j = select(j < 0, -j, j);
            j = select(j >= n, (n - 1) * 2 - j, j);
          }
          in.push_back(max(min(j, n - 1), te::Expr(0)));
        }
        if (mode != "constant")
          return data(in);
        return select(inside, data(in), te::cast(dtype, padValue({})));
      },
      "pad")};
}

/// The mean and the biased variance of groups of elements: element s of
/// the statistics (shape \p statShape) reduces the data over \p extents at
/// the input index \p inIndex(s, k). Both are materialised stages.
struct Moments {
  te::Tensor mean, var;
};
static Moments
moments(const te::Tensor &data, ArrayRef<te::Expr> statShape,
        ArrayRef<te::Expr> extents,
        function_ref<SmallVector<te::Expr, 4>(ArrayRef<te::Expr>,
                                              ArrayRef<te::Expr>)>
            inIndex) {
  DataType dtype = data.getDType(), accType = getAccumulationType(dtype);
  // The number of elements reduced (a product of symbolic extents for
  // `?` ones; a constant otherwise).
  te::Expr count(int64_t(1));
  for (const te::Expr &e : extents)
    count = count.isConstInt(1) ? e : count * e;
  te::Expr divisor = constant(accType, 1.0);
  if (std::optional<int64_t> c = count.getConstInt())
    divisor = constant(accType, double(*c));
  else
    divisor = te::cast(accType, count);
  auto reduceOver = [&](ArrayRef<te::Expr> s,
                        function_ref<te::Expr(te::Expr)> term) {
    SmallVector<IterVar, 4> axes;
    SmallVector<te::Expr, 4> vars;
    for (const te::Expr &e : extents) {
      axes.push_back(reduceAxis(e));
      vars.push_back(axes.back().var);
    }
    te::Expr x = te::cast(accType, data(inIndex(s, vars)));
    return te::cast(dtype,
                    sum(term(x), axes) / divisor);
  };
  te::Tensor mean = compute(
      statShape,
      [&](ArrayRef<te::Expr> s) {
        return reduceOver(s, [](te::Expr x) { return x; });
      },
      "mean");
  te::Tensor var = compute(
      statShape,
      [&](ArrayRef<te::Expr> s) {
        te::Expr m = te::cast(accType, mean(s));
        return reduceOver(s, [&](te::Expr x) { return (x - m) * (x - m); });
      },
      "variance");
  return {mean, var};
}

/// (x - mean) / sqrt(var + epsilon) [* gamma] [+ beta], the tail of every
/// normalisation.
template <typename AttrsT>
static te::Expr normalized(const AttrsT *attrs, te::Expr x, te::Expr mean,
                           te::Expr var, te::Expr gamma, te::Expr beta) {
  DataType dtype = x.getDType();
  te::Expr y = (x - mean) /
               call(Intrinsic::Sqrt, {var + constant(dtype, attrs->epsilon)});
  if (attrs->scale)
    y = y * gamma;
  if (attrs->center)
    y = y + beta;
  return y;
}

/// nn.batch_norm at inference: normalises with the moving statistics along
/// the channel axis, and returns them unchanged as the other two fields.
static Expected<std::vector<te::Tensor>> batchNorm(const ComputeArgs &args) {
  const auto *attrs = llvm::cast<BatchNormAttrs>(args.attrs);
  const te::Tensor &x = args.arg(0);
  int64_t axis = attrs->axis < 0 ? attrs->axis + x.getRank() : attrs->axis;
  const te::Tensor &gamma = args.arg(1), &beta = args.arg(2);
  const te::Tensor &mean = args.arg(3), &var = args.arg(4);
  auto copy = [](const te::Tensor &t) {
    return compute(
        t.getShape(), [&](ArrayRef<te::Expr> i) { return t(i); }, "copy");
  };
  return std::vector<te::Tensor>{
      compute(
          x.getShape(),
          [&](ArrayRef<te::Expr> i) {
            te::Expr c = i[axis];
            return normalized(attrs, x(i), mean(c), var(c), gamma(c), beta(c));
          },
          "batch_norm"),
      copy(mean), copy(var)};
}

/// nn.layer_norm, nn.instance_norm and nn.group_norm: statistics over the
/// axis (layer), over every axis but the batch and the channel axis
/// (instance), or over each group of channels and every other axis but the
/// batch (group); gamma and beta along the channel axis.
template <typename AttrsT>
static Expected<std::vector<te::Tensor>> normalization(const ComputeArgs &args,
                                                       int64_t numGroups) {
  const auto *attrs = llvm::cast<AttrsT>(args.attrs);
  const te::Tensor &x = args.arg(0);
  const te::Tensor &gamma = args.arg(1), &beta = args.arg(2);
  unsigned rank = x.getRank();
  int64_t axis = attrs->axis < 0 ? attrs->axis + rank : attrs->axis;
  // Every extent may be symbolic (`?`) but a group norm's channels.
  const std::vector<te::Expr> &shape = x.getShape();
  bool isLayer = std::is_same_v<AttrsT, LayerNormAttrs>;
  int64_t groupSize = 1;
  if (numGroups > 0) {
    std::optional<int64_t> channels = shape[axis].getConstInt();
    if (!channels)
      return computeError("needs static channels");
    groupSize = *channels / numGroups;
  }
  // Which axes the statistics keep: the reduced ones are the rest. A group
  // norm keeps the group (channel / groupSize) and reduces within it.
  SmallVector<bool, 5> kept(rank, false);
  for (unsigned a = 0; a < rank; ++a)
    kept[a] = isLayer ? a != axis : (a == 0 || (a == axis && numGroups == 0));
  std::vector<te::Expr> statShape;
  SmallVector<te::Expr, 5> extents;
  for (unsigned a = 0; a < rank; ++a) {
    if (kept[a])
      statShape.push_back(shape[a]);
    else if (numGroups > 0 && a == axis) {
      statShape.push_back(te::Expr(numGroups));
      extents.push_back(te::Expr(groupSize));
    } else
      extents.push_back(shape[a]);
  }
  // The statistics index of output (or input) index i.
  auto statIndex = [&](ArrayRef<te::Expr> i) {
    SmallVector<te::Expr, 4> s;
    for (unsigned a = 0; a < rank; ++a)
      if (kept[a])
        s.push_back(i[a]);
      else if (numGroups > 0 && a == axis)
        s.push_back(floorDiv(i[a], te::Expr(groupSize)));
    return s;
  };
  Moments m = moments(x, statShape, extents,
                      [&](ArrayRef<te::Expr> s, ArrayRef<te::Expr> k) {
                        SmallVector<te::Expr, 4> in;
                        unsigned si = 0, ki = 0;
                        for (unsigned a = 0; a < rank; ++a) {
                          if (kept[a])
                            in.push_back(s[si++]);
                          else if (numGroups > 0 && a == axis)
                            in.push_back(s[si++] * groupSize + k[ki++]);
                          else
                            in.push_back(k[ki++]);
                        }
                        return in;
                      });
  return std::vector<te::Tensor>{compute(
      x.getShape(),
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 4> s = statIndex(i);
        te::Expr c = i[axis];
        return normalized(attrs, x(i), m.mean(s), m.var(s), gamma(c), beta(c));
      },
      isLayer     ? "layer_norm"
      : numGroups ? "group_norm"
                  : "instance_norm")};
}

/// nn.lrn (TVM's topi.nn.lrn): x / (bias + alpha / size * sum of x^2 over
/// the channels [c - size / 2, c - size / 2 + size))^beta.
static Expected<std::vector<te::Tensor>> lrn(const ComputeArgs &args) {
  const auto *attrs = llvm::cast<LRNAttrs>(args.attrs);
  const te::Tensor &x = args.arg(0);
  int64_t axis = attrs->axis < 0 ? attrs->axis + x.getRank() : attrs->axis;
  DataType dtype = x.getDType();
  te::Expr n = x.getShape()[axis];
  te::Tensor squares = compute(
      x.getShape(),
      [&](ArrayRef<te::Expr> i) {
        IterVar r = reduceAxis(attrs->size, "rc");
        te::Expr c = i[axis] - attrs->size / 2 + r.var;
        SmallVector<te::Expr, 4> in(i.begin(), i.end());
        in[axis] = max(min(c, n - 1), te::Expr(0));
        te::Expr v = x(in);
        return sum(v * v, {r}, logicalAnd(c >= 0, c < n));
      },
      "lrn_sum");
  return std::vector<te::Tensor>{compute(
      x.getShape(),
      [&](ArrayRef<te::Expr> i) {
        te::Expr scaled =
            constant(dtype, attrs->bias) +
            constant(dtype, attrs->alpha / double(attrs->size)) * squares(i);
        return x(i) / pow(scaled, constant(dtype, attrs->beta));
      },
      "lrn")};
}

/// nn.l2_normalize (TVM's topi.nn.l2_normalize): x / sqrt(max(sum of x^2
/// over the axes, eps)).
static Expected<std::vector<te::Tensor>> l2Normalize(const ComputeArgs &args) {
  const auto *attrs = llvm::cast<L2NormalizeAttrs>(args.attrs);
  const te::Tensor &x = args.arg(0);
  unsigned rank = x.getRank();
  SmallVector<bool, 5> reduced(rank, !attrs->axis || attrs->axis->empty());
  if (attrs->axis)
    for (int64_t a : *attrs->axis)
      reduced[a < 0 ? a + rank : a] = true;
  DataType dtype = x.getDType();
  // The sum of squares, with the reduced axes kept as extent 1.
  std::vector<te::Expr> shape = x.getShape();
  for (unsigned a = 0; a < rank; ++a)
    if (reduced[a])
      shape[a] = 1;
  te::Tensor squares = compute(
      shape,
      [&](ArrayRef<te::Expr> i) {
        SmallVector<IterVar, 4> axes;
        SmallVector<te::Expr, 4> in(i.begin(), i.end());
        for (unsigned a = 0; a < rank; ++a)
          if (reduced[a]) {
            axes.push_back(reduceAxis(x.getShape()[a]));
            in[a] = axes.back().var;
          }
        te::Expr v = x(in);
        return sum(v * v, axes);
      },
      "l2_sum");
  return std::vector<te::Tensor>{compute(
      x.getShape(),
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 4> s(i.begin(), i.end());
        for (unsigned a = 0; a < rank; ++a)
          if (reduced[a])
            s[a] = 0;
        return x(i) / call(Intrinsic::Sqrt,
                           {max(squares(s), constant(dtype, attrs->eps))});
      },
      "l2_normalize")};
}

void nnir::registerNNComputes() {
  auto set = [](StringRef name, TECompute compute) {
    setOpCompute(name, std::move(compute));
  };

  set("nn.bias_add",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        const te::Tensor &x = args.arg(0);
        const te::Tensor &bias = args.arg(1);
        int64_t axis = llvm::cast<BiasAddAttrs>(args.attrs)->axis;
        if (axis < 0)
          axis += x.getRank();
        return std::vector<te::Tensor>{compute(
            x.getShape(),
            [&](ArrayRef<te::Expr> i) { return x(i) + bias(i[axis]); },
            "bias_add")};
      });

  set("nn.dense", [](const ComputeArgs &args) {
    return matmul(args, /*transposeA=*/false, /*transposeB=*/true,
                  /*batched=*/false);
  });
  set("nn.matmul", [](const ComputeArgs &args) {
    const auto *attrs = llvm::cast<MatmulAttrs>(args.attrs);
    return matmul(args, attrs->transposeA, attrs->transposeB,
                  /*batched=*/false);
  });
  set("nn.batch_matmul", [](const ComputeArgs &args) {
    const auto *attrs = llvm::cast<BatchMatmulAttrs>(args.attrs);
    return matmul(args, attrs->transposeA, attrs->transposeB,
                  /*batched=*/true);
  });
  set("nn.pad", pad);
  set("nn.batch_norm", batchNorm);
  set("nn.layer_norm", [](const ComputeArgs &args) {
    return normalization<LayerNormAttrs>(args, 0);
  });
  set("nn.instance_norm", [](const ComputeArgs &args) {
    return normalization<InstanceNormAttrs>(args, 0);
  });
  set("nn.group_norm", [](const ComputeArgs &args) {
    return normalization<GroupNormAttrs>(
        args, llvm::cast<GroupNormAttrs>(args.attrs)->numGroups);
  });
  set("nn.lrn", lrn);
  set("nn.l2_normalize", l2Normalize);
  // Dropout computes as at inference (Relay's SimplifyInference): the data
  // unchanged, and a mask of ones.
  set("nn.dropout",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        const te::Tensor &x = args.arg(0);
        return std::vector<te::Tensor>{
            compute(
                x.getShape(), [&](ArrayRef<te::Expr> i) { return x(i); },
                "dropout"),
            compute(
                x.getShape(),
                [&](ArrayRef<te::Expr>) { return constant(x.getDType(), 1); },
                "dropout_mask")};
      });
  set("nn.conv1d", convolution<Conv1DAttrs>);
  set("nn.conv2d", convolution<Conv2DAttrs>);
  set("nn.conv3d", convolution<Conv3DAttrs>);
  set("nn.conv1d_transpose", convTranspose<Conv1DTransposeAttrs>);
  set("nn.conv2d_transpose", convTranspose<Conv2DTransposeAttrs>);
  set("nn.conv3d_transpose", convTranspose<Conv3DTransposeAttrs>);
  set("nn.softmax",
      [](const ComputeArgs &args) { return softmax(args, false); });
  set("nn.log_softmax",
      [](const ComputeArgs &args) { return softmax(args, true); });
  set("nn.max_pool2d", [](const ComputeArgs &args) {
    return pool2d<MaxPool2DAttrs>(args, true);
  });
  set("nn.avg_pool2d", [](const ComputeArgs &args) {
    return pool2d<AvgPool2DAttrs>(args, false);
  });
  set("nn.global_max_pool2d", [](const ComputeArgs &args) {
    return adaptivePool2d<GlobalPool2DAttrs>(args, true);
  });
  set("nn.global_avg_pool2d", [](const ComputeArgs &args) {
    return adaptivePool2d<GlobalPool2DAttrs>(args, false);
  });
  set("nn.adaptive_max_pool2d", [](const ComputeArgs &args) {
    return adaptivePool2d<AdaptivePool2DAttrs>(args, true);
  });
  set("nn.adaptive_avg_pool2d", [](const ComputeArgs &args) {
    return adaptivePool2d<AdaptivePool2DAttrs>(args, false);
  });
  // The computes above that derive every extent from their arguments (a
  // convolution needs static channels and kernel, which its refuses
  // otherwise).
  markSymbolicShapes({"nn.pad", "nn.batch_norm", "nn.layer_norm",
                      "nn.instance_norm", "nn.group_norm",
                      "nn.conv1d_transpose", "nn.conv2d_transpose",
                      "nn.conv3d_transpose"});
  markSymbolicShapes({"nn.bias_add", "nn.prelu", "nn.dense", "nn.matmul",
                      "nn.batch_matmul", "nn.dropout", "nn.lrn",
                      "nn.l2_normalize", "nn.conv1d", "nn.conv2d",
                      "nn.conv3d", "nn.softmax", "nn.log_softmax",
                      "nn.max_pool2d", "nn.avg_pool2d",
                      "nn.global_max_pool2d", "nn.global_avg_pool2d",
                      "nn.adaptive_max_pool2d", "nn.adaptive_avg_pool2d"});
}
