//===- DataMovementCompute.cpp - Computes of the data-movement operators --===//
//
/// \file
/// The TE computes of the common data-movement operators: the example of
/// *injective* computes, where each output element reads one input element
/// at an index computed from the output index. Most derive their result's
/// extents from their arguments' (symbolic ones included) and attributes,
/// and use the result type's static extents where those fix the mapping
/// (split's parts, collapse_sum_to's and broadcast_to's target).
//
//===----------------------------------------------------------------------===//

#include "StridedSlice.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Compute.h"
#include "nnir/Ops/Layout.h"
#include "nnir/TE/Broadcast.h"
#include "nnir/TE/Stmt.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

static DataType resultDType(const nnir::Type *type) {
  return llvm::cast<TensorType>(type)->getDType();
}

/// The index of \p inShape's element at \p index of \p shape, which holds
/// the same elements in row-major order. Extents equal at both ends map
/// their indices as they are and only the middle ravels and unravels, its
/// extents of 1 left out: a reshape that keeps its last axis reads it
/// contiguously, with no division per element.
static SmallVector<te::Expr, 4> reshapeIndex(ArrayRef<te::Expr> index,
                                             ArrayRef<te::Expr> shape,
                                             ArrayRef<te::Expr> inShape) {
  size_t n = shape.size(), m = inShape.size(), lead = 0, tail = 0;
  while (lead < n && lead < m && provablyEqual(shape[lead], inShape[lead]))
    ++lead;
  while (lead + tail < n && lead + tail < m &&
         provablyEqual(shape[n - 1 - tail], inShape[m - 1 - tail]))
    ++tail;
  SmallVector<te::Expr, 4> result(m, te::Expr(int64_t(0)));
  for (size_t k = 0; k < lead; ++k)
    result[k] = index[k];
  for (size_t k = 0; k < tail; ++k)
    result[m - 1 - k] = index[n - 1 - k];
  SmallVector<te::Expr, 4> outIndex, outExtents, inExtents;
  SmallVector<size_t, 4> inPositions;
  for (size_t k = lead; k < n - tail; ++k)
    if (!shape[k].isConstInt(1)) {
      outIndex.push_back(index[k]);
      outExtents.push_back(shape[k]);
    }
  for (size_t k = lead; k < m - tail; ++k)
    if (!inShape[k].isConstInt(1)) {
      inExtents.push_back(inShape[k]);
      inPositions.push_back(k);
    }
  if (inPositions.empty())
    return result;
  SmallVector<te::Expr, 4> inIndex =
      unravel(ravel(outIndex, outExtents), inExtents);
  for (size_t k = 0; k < inPositions.size(); ++k)
    result[inPositions[k]] = inIndex[k];
  return result;
}

/// The product of \p extents.
static te::Expr product(ArrayRef<te::Expr> extents) {
  te::Expr p = 1;
  for (const te::Expr &e : extents)
    p = p * e;
  return p;
}

/// Relay's reshape codes (InferNewShape) over the extents \p in, which may
/// be symbolic: 0 copies an extent, -1 is inferred from the element count,
/// -2 copies the rest, -3 merges two extents, -4 splits one into the next
/// two values. std::nullopt for codes it does not know.
static std::optional<std::vector<te::Expr>>
deriveReshape(const ReshapeAttrs &attrs, ArrayRef<te::Expr> in) {
  std::vector<te::Expr> out;
  std::optional<size_t> inferred;
  ArrayRef<int64_t> codes = attrs.newshape;
  size_t src = 0;
  for (size_t i = 0; i < codes.size(); ++i) {
    int64_t code = codes[i];
    if (code > 0 || (code == 0 && attrs.allowzero)) {
      out.push_back(te::Expr(code));
      ++src;
    } else if (code == 0) {
      if (src >= in.size())
        return std::nullopt;
      out.push_back(in[src++]);
    } else if (code == -1) {
      if (inferred)
        return std::nullopt;
      inferred = out.size();
      out.push_back(te::Expr(1));
      ++src;
    } else if (code == -2) {
      for (; src < in.size(); ++src)
        out.push_back(in[src]);
    } else if (code == -3) {
      if (src + 1 >= in.size())
        return std::nullopt;
      out.push_back(in[src] * in[src + 1]);
      src += 2;
    } else if (code == -4) {
      if (i + 2 >= codes.size() || src >= in.size())
        return std::nullopt;
      int64_t a = codes[i + 1], b = codes[i + 2];
      te::Expr whole = in[src++];
      if ((a == -1 && b <= 0) || (b == -1 && a <= 0) ||
          (a != -1 && a <= 0) || (b != -1 && b <= 0))
        return std::nullopt;
      out.push_back(a == -1 ? floorDiv(whole, te::Expr(b)) : te::Expr(a));
      out.push_back(b == -1 ? floorDiv(whole, te::Expr(a)) : te::Expr(b));
      i += 2;
    } else {
      return std::nullopt;
    }
  }
  if (inferred) {
    std::vector<te::Expr> others = out;
    others.erase(others.begin() + *inferred);
    out[*inferred] = floorDiv(product(in), product(others));
  }
  return out;
}

/// The result shape of a re-shaping operator (its attributes read against
/// the data's extents, which may be symbolic), or std::nullopt.
static std::optional<std::vector<te::Expr>>
deriveReshapeLike(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  std::vector<te::Expr> in = data.getShape();
  unsigned resultRank = llvm::cast<TensorType>(args.resultType)->getRank();
  if (const auto *reshape = dyn_cast_or_null<ReshapeAttrs>(args.attrs))
    return deriveReshape(*reshape, in);
  if (const auto *expand = dyn_cast_or_null<ExpandDimsAttrs>(args.attrs)) {
    int64_t axis = expand->axis < 0 ? expand->axis + in.size() + 1
                                    : expand->axis;
    if (axis < 0 || axis > int64_t(in.size()) || expand->numNewaxis < 0)
      return std::nullopt;
    in.insert(in.begin() + axis, expand->numNewaxis, te::Expr(1));
    return in;
  }
  if (const auto *squeeze = dyn_cast_or_null<SqueezeAttrs>(args.attrs)) {
    SmallVector<bool, 4> drop(in.size(), false);
    if (squeeze->axis && !squeeze->axis->empty()) {
      for (int64_t a : *squeeze->axis) {
        a = a < 0 ? a + int64_t(in.size()) : a;
        if (a < 0 || a >= int64_t(in.size()))
          return std::nullopt;
        drop[a] = true;
      }
    } else {
      // Every extent of 1: a symbolic one might be.
      for (auto [a, e] : llvm::enumerate(in)) {
        if (!e.getConstInt())
          return std::nullopt;
        drop[a] = e.isConstInt(1);
      }
    }
    std::vector<te::Expr> out;
    for (auto [a, e] : llvm::enumerate(in))
      if (!drop[a])
        out.push_back(e);
    return out;
  }
  if (!args.attrs && resultRank == 2 && !in.empty()) // nn.batch_flatten
    return std::vector<te::Expr>{in[0], product(ArrayRef(in).drop_front())};
  return std::nullopt;
}

/// Reshape-like operators: the output's element f (row-major) is the
/// input's element f.
static Expected<std::vector<te::Tensor>>
reshapeCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  std::vector<te::Expr> shape = args.getResultShape();
  if (!args.genericResultShape &&
      llvm::cast<TensorType>(args.resultType)->isDynamic()) {
    std::optional<std::vector<te::Expr>> derived = deriveReshapeLike(args);
    if (!derived || derived->size() != shape.size())
      return computeError("cannot derive the `?` extents of the result");
    shape = args.getResultShape(*derived);
  }
  std::vector<te::Expr> inShape = data.getShape();
  return std::vector<te::Tensor>{compute(
      shape,
      [&](ArrayRef<te::Expr> i) {
        return data(reshapeIndex(i, shape, inShape));
      },
      "reshape")};
}

static int64_t normalize(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// A data-dependent index \p k into an axis of \p extent, made safe to read:
/// negative values count from the end (as NumPy and ONNX), and what is still
/// out of range is clamped.
static te::Expr wrapNegativeAndClamp(te::Expr k, te::Expr extent) {
  k = te::cast(DataType::int64(), k);
  k = select(k < 0, k + extent, k);
  return max(min(k, extent - 1), te::Expr(0));
}

/// An error unless extent \p inner is known to fit in \p outer: both are
/// constants (the type relation compared them) or one `?` extent (one
/// variable). A symbolic kernel reads or writes \p outer's tensor at
/// \p inner's indices.
static Error requireFits(const te::Expr &inner, const te::Expr &outer) {
  if ((inner.getConstInt() && outer.getConstInt()) ||
      provablyEqual(inner, outer))
    return Error::success();
  return computeError("`?` extents that may differ need static shapes");
}

/// stack: output element i reads part i[axis] at i without that axis.
static Expected<std::vector<te::Tensor>> stackCompute(const ComputeArgs &args) {
  ArrayRef<te::Tensor> parts = args.args[0];
  unsigned rank = parts[0].getRank() + 1;
  int64_t axis = normalize(llvm::cast<StackAttrs>(args.attrs)->axis, rank);
  std::vector<te::Expr> derived = parts[0].getShape();
  for (const te::Tensor &p : parts)
    for (unsigned d = 0; d < p.getRank(); ++d)
      if (Error err = requireFits(derived[d], p.getShape()[d]))
        return err;
  derived.insert(derived.begin() + axis, te::Expr(int64_t(parts.size())));
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 4> in(i.begin(), i.end());
        in.erase(in.begin() + axis);
        te::Expr value = parts.back()(in);
        for (unsigned p = parts.size() - 1; p-- > 0;)
          value = select(i[axis] == te::Expr(int64_t(p)), parts[p](in), value);
        return value;
      },
      "stack")};
}

/// tile: the data's axes align with the output's from the right; each reads
/// its index modulo the data's extent.
static Expected<std::vector<te::Tensor>> tileCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  ArrayRef<int64_t> reps = llvm::cast<TileAttrs>(args.attrs)->reps;
  // The data and the repetitions align from the right, the shorter padded
  // with 1s.
  size_t rank = std::max<size_t>(reps.size(), data.getRank());
  std::vector<te::Expr> derived(rank, te::Expr(1));
  for (size_t a = 0; a < rank; ++a) {
    if (a + data.getRank() >= rank)
      derived[a] = data.getShape()[a + data.getRank() - rank];
    if (a + reps.size() >= rank)
      derived[a] = derived[a] * te::Expr(reps[a + reps.size() - rank]);
  }
  std::vector<te::Expr> shape = args.getResultShape(derived);
  unsigned lead = shape.size() - data.getRank();
  return std::vector<te::Tensor>{compute(
      shape,
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 4> in;
        for (unsigned a = 0; a < data.getRank(); ++a)
          in.push_back(floorMod(i[lead + a], data.getShape()[a]));
        return data(in);
      },
      "tile")};
}

/// repeat: output index j on the axis reads data index j / repeats.
static Expected<std::vector<te::Tensor>>
repeatCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  const auto *attrs = llvm::cast<RepeatAttrs>(args.attrs);
  int64_t axis = normalize(attrs->axis.value_or(0), data.getRank());
  int64_t repeats = attrs->repeats;
  std::vector<te::Expr> derived = data.getShape();
  if (repeats < 1 || (axis >= int64_t(derived.size()) && !attrs->axis))
    return computeError("needs a positive count and an axis");
  derived[axis] = derived[axis] * repeats;
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 4> in(i.begin(), i.end());
        in[axis] = floorDiv(i[axis], te::Expr(repeats));
        return data(in);
      },
      "repeat")};
}

static Expected<std::vector<te::Tensor>>
reverseCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  int64_t axis = normalize(
      llvm::cast<ReverseAttrs>(args.attrs)->axis.value_or(0), data.getRank());
  return std::vector<te::Tensor>{compute(
      data.getShape(),
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 4> in(i.begin(), i.end());
        in[axis] = data.getShape()[axis] - 1 - i[axis];
        return data(in);
      },
      "reverse")};
}

/// gather: out[i] = data[i with i[axis] replaced by indices[i]].
static Expected<std::vector<te::Tensor>>
gatherCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  const te::Tensor &indices = args.arg(1);
  int64_t axis = normalize(
      llvm::cast<GatherAttrs>(args.attrs)->axis.value_or(0), data.getRank());
  if (indices.getRank() != data.getRank())
    return computeError("indices of another rank than the data");
  for (unsigned d = 0; d < data.getRank(); ++d)
    if (d != axis)
      if (Error err = requireFits(indices.getShape()[d], data.getShape()[d]))
        return err;
  return std::vector<te::Tensor>{compute(
      indices.getShape(),
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 4> in(i.begin(), i.end());
        in[axis] = wrapNegativeAndClamp(indices(i), data.getShape()[axis]);
        return data(in);
      },
      "gather")};
}

/// gather_nd: indices [M, Y...]; out[y..., r...] = data[b..., indices[0,
/// y...], ..., indices[M-1, y...], r...], where the first batch_dims of y
/// are the batch indices b.
static Expected<std::vector<te::Tensor>>
gatherNDCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  const te::Tensor &indices = args.arg(1);
  int64_t batchDims = llvm::cast<GatherNDAttrs>(args.attrs)->batchDims;
  std::optional<int64_t> m = indices.getShape()[0].getConstInt();
  if (!m)
    return computeError("needs a static index depth");
  unsigned yRank = indices.getRank() - 1;
  std::vector<te::Expr> derived(indices.getShape().begin() + 1,
                                indices.getShape().end());
  if (batchDims + *m > int64_t(data.getRank()) ||
      batchDims > int64_t(yRank))
    return computeError("indexes more axes than the data has");
  for (int64_t d = 0; d < batchDims; ++d)
    if (Error err = requireFits(indices.getShape()[d + 1], data.getShape()[d]))
      return err;
  derived.insert(derived.end(), data.getShape().begin() + batchDims + *m,
                 data.getShape().end());
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> o) {
        SmallVector<te::Expr, 4> in(o.begin(), o.begin() + batchDims);
        for (int64_t k = 0; k < *m; ++k) {
          SmallVector<te::Expr, 4> idx{te::Expr(k)};
          idx.append(o.begin(), o.begin() + yRank);
          in.push_back(wrapNegativeAndClamp(indices(idx),
                                            data.getShape()[batchDims + k]));
        }
        in.append(o.begin() + yRank, o.end());
        return data(in);
      },
      "gather_nd")};
}

/// The value a scatter stores at an element that holds \p old for an
/// update \p value: the update itself, or their sum, difference, product,
/// minimum or maximum.
static te::Expr scatterCombine(StringRef mode, te::Expr old, te::Expr value) {
  if (mode == "add")
    return old + value;
  if (mode == "sub")
    return old - value;
  if (mode == "mul")
    return old * value;
  if (mode == "min")
    return te::min(old, value);
  if (mode == "max")
    return te::max(old, value);
  return value;
}

/// A scatter: an extern stage that copies the data to the output, then runs
/// \p scatter (which stores the updates in order, so the last of equal
/// indices wins).
static std::vector<te::Tensor>
scatterStage(StringRef name, ArrayRef<te::Tensor> inputs,
             function_ref<Stmt(const te::Tensor &out)> scatter) {
  const te::Tensor &data = inputs[0];
  std::vector<te::Expr> shape(data.getShape());
  return externOp(
      name, inputs, {{shape, data.getDType()}},
      [&](ArrayRef<te::Tensor>, ArrayRef<te::Tensor> outs) {
        Stmt copy = forNest(shape, [&](ArrayRef<te::Expr> i) {
          return store(outs[0], i, data(i));
        });
        return seq({copy, scatter(outs[0])});
      });
}

/// scatter_elements: out[i with i[axis] = indices[q]] = updates[q] for every
/// position q of the indices (negative indices count from the end; out of
/// range ones are clamped).
static Expected<std::vector<te::Tensor>>
scatterElementsCompute(const ComputeArgs &args) {
  const auto *attrs = llvm::cast<ScatterElementsAttrs>(args.attrs);
  const te::Tensor &data = args.arg(0);
  const te::Tensor &indices = args.arg(1);
  const te::Tensor &updates = args.arg(2);
  int64_t axis = normalize(attrs->axis, data.getRank());
  if (indices.getRank() != data.getRank())
    return computeError("indices of another rank than the data");
  for (unsigned d = 0; d < data.getRank(); ++d)
    if (Error err = requireFits(indices.getShape()[d], updates.getShape()[d]))
      return err;
  for (unsigned d = 0; d < data.getRank(); ++d)
    if (d != axis)
      if (Error err = requireFits(indices.getShape()[d], data.getShape()[d]))
        return err;
  return scatterStage(
      "scatter_elements", {data, indices, updates}, [&](const te::Tensor &out) {
        return forNest(indices.getShape(), [&](ArrayRef<te::Expr> q) {
          SmallVector<te::Expr, 4> at(q.begin(), q.end());
          at[axis] = wrapNegativeAndClamp(indices(q), data.getShape()[axis]);
          return store(out, at,
                       scatterCombine(attrs->reduction, out(at), updates(q)));
        });
      });
}

/// scatter_nd: indices (M, Y...); out[indices[:, y...], r...] =
/// updates[y..., r...].
static Expected<std::vector<te::Tensor>>
scatterNDCompute(const ComputeArgs &args) {
  const auto *attrs = llvm::cast<ScatterNDAttrs>(args.attrs);
  const te::Tensor &data = args.arg(0);
  const te::Tensor &indices = args.arg(1);
  const te::Tensor &updates = args.arg(2);
  std::optional<int64_t> m = indices.getShape()[0].getConstInt();
  if (!m)
    return computeError("needs a static index depth");
  unsigned yRank = indices.getRank() - 1;
  if (*m > int64_t(data.getRank()) ||
      updates.getRank() != yRank + data.getRank() - *m)
    return computeError("updates of another rank than the indices address");
  for (unsigned d = 0; d < updates.getRank(); ++d)
    if (Error err = requireFits(updates.getShape()[d],
                                d < yRank ? indices.getShape()[d + 1]
                                          : data.getShape()[*m + d - yRank]))
      return err;
  return scatterStage(
      "scatter_nd", {data, indices, updates}, [&](const te::Tensor &out) {
        return forNest(updates.getShape(), [&](ArrayRef<te::Expr> u) {
          SmallVector<te::Expr, 4> at;
          for (int64_t k = 0; k < *m; ++k) {
            SmallVector<te::Expr, 4> idx{te::Expr(k)};
            idx.append(u.begin(), u.begin() + yRank);
            at.push_back(
                wrapNegativeAndClamp(indices(idx), data.getShape()[k]));
          }
          at.append(u.begin() + yRank, u.end());
          return store(out, at,
                       scatterCombine(attrs->mode, out(at), updates(u)));
        });
      });
}

/// reverse_sequence: along seq_axis, the first seq_lengths[b] elements of
/// batch entry b are reversed and the rest copied (lengths are clamped to
/// [0, extent]).
static Expected<std::vector<te::Tensor>>
reverseSequenceCompute(const ComputeArgs &args) {
  const auto *attrs = llvm::cast<ReverseSequenceAttrs>(args.attrs);
  const te::Tensor &data = args.arg(0);
  const te::Tensor &lengths = args.arg(1);
  int64_t seqAxis = normalize(attrs->seqAxis, data.getRank());
  int64_t batchAxis = normalize(attrs->batchAxis, data.getRank());
  te::Expr extent = data.getShape()[seqAxis];
  if (lengths.getRank() != 1)
    return computeError("seq_lengths must be 1-d");
  if (Error err =
          requireFits(data.getShape()[batchAxis], lengths.getShape()[0]))
    return err;
  return std::vector<te::Tensor>{compute(
      data.getShape(),
      [&](ArrayRef<te::Expr> i) {
        te::Expr length = te::cast(DataType::int64(), lengths(i[batchAxis]));
        length = max(min(length, extent), te::Expr(0));
        SmallVector<te::Expr, 4> in(i.begin(), i.end());
        in[seqAxis] =
            select(i[seqAxis] < length, length - 1 - i[seqAxis], i[seqAxis]);
        return data(in);
      },
      "reverse_sequence")};
}

/// one_hot: on_value where the new axis's index equals the index, else
/// off_value (an index outside [0, depth) gives a row of off_value).
static Expected<std::vector<te::Tensor>>
oneHotCompute(const ComputeArgs &args) {
  const te::Tensor &indices = args.arg(0);
  const te::Tensor &on = args.arg(1);
  const te::Tensor &off = args.arg(2);
  const auto *attrs = llvm::cast<OneHotAttrs>(args.attrs);
  int64_t axis = attrs->axis;
  if (axis < 0)
    axis += indices.getRank() + 1;
  std::vector<te::Expr> derived = indices.getShape();
  derived.insert(derived.begin() + axis, te::Expr(attrs->depth));
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 4> in(i.begin(), i.end());
        in.erase(in.begin() + axis);
        return select(te::cast(DataType::int64(), indices(in)) == i[axis],
                      on({}), off({}));
      },
      "one_hot")};
}

/// slice_like and annotation-free identities: the output's element i is the
/// data's element i (slice_like keeps the leading part of each axis).
static Expected<std::vector<te::Tensor>>
leadingSliceCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  std::vector<te::Expr> derived = data.getShape();
  if (const auto *attrs = dyn_cast_or_null<SliceLikeAttrs>(args.attrs)) {
    // Each named axis (every axis of shape_like without axes) takes
    // shape_like's extent.
    ArrayRef<te::Expr> like = args.arg(1).getShape();
    SmallVector<int64_t, 4> axes;
    if (attrs->axes && !attrs->axes->empty())
      for (int64_t a : *attrs->axes)
        axes.push_back(normalize(a, data.getRank()));
    else
      for (size_t a = 0; a < std::min(like.size(), derived.size()); ++a)
        axes.push_back(a);
    for (int64_t a : axes) {
      if (a < 0 || a >= int64_t(derived.size()) || a >= int64_t(like.size()))
        return computeError("an axis out of range");
      if (!provablyEqual(like[a], derived[a]) &&
          !(like[a].getConstInt() && derived[a].getConstInt()))
        return computeError("slicing a `?` extent needs static shapes");
      derived[a] = like[a];
    }
  }
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> i) { return data(i); }, "slice_like")};
}

/// layout_transform: each primal axis's full coordinate is rebuilt from the
/// output's (outer, inner) pair and split again as the source layout says.
static Expected<std::vector<te::Tensor>>
layoutTransformCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  const auto *attrs = llvm::cast<LayoutTransformAttrs>(args.attrs);
  Expected<Layout> src = Layout::parse(attrs->srcLayout);
  if (!src)
    return src.takeError();
  Expected<Layout> dst = Layout::parse(attrs->dstLayout);
  if (!dst)
    return dst.takeError();
  // Each primal axis's full extent, from the source's axes; the
  // destination splits it again (a `?` extent only where unsplit).
  std::vector<te::Expr> derived;
  for (const LayoutAxis &axis : dst->getAxes()) {
    if (!axis.isPrimal()) {
      derived.push_back(te::Expr(axis.factor));
      continue;
    }
    int at = src->find(axis.name);
    if (at < 0 || at >= int(data.getRank()))
      return computeError("the layouts name different axes");
    te::Expr full = data.getShape()[at];
    int sub = src->find(axis.name - 'A' + 'a');
    if (sub >= 0)
      full = full * te::Expr((*src)[sub].factor);
    int64_t f = dst->getSplitFactor(axis.name);
    if (f != 1) {
      std::optional<int64_t> c = full.getConstInt();
      if (!c)
        return computeError("splitting a `?` extent needs static shapes");
      full = te::Expr((*c + f - 1) / f);
    }
    derived.push_back(full);
  }
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> o) {
        // The full coordinate of every primal axis, by letter.
        te::Expr full[26];
        for (unsigned a = 0; a < dst->getRank(); ++a) {
          const LayoutAxis &axis = (*dst)[a];
          if (!axis.isPrimal())
            continue;
          te::Expr c = o[a];
          int sub = dst->find(axis.name - 'A' + 'a');
          if (sub >= 0)
            c = c * (*dst)[sub].factor + o[sub];
          full[axis.name - 'A'] = c;
        }
        SmallVector<te::Expr, 6> in;
        for (const LayoutAxis &axis : src->getAxes()) {
          if (axis.isPrimal()) {
            int64_t f = src->getSplitFactor(axis.name);
            te::Expr c = full[axis.name - 'A'];
            in.push_back(f == 1 ? c : floorDiv(c, te::Expr(f)));
          } else {
            in.push_back(
                floorMod(full[axis.name - 'a'], te::Expr(axis.factor)));
          }
        }
        return data(in);
      },
      "layout_transform")};
}

/// collapse_sum_like, collapse_sum_to: sums the data's leading axes and the axes where the
/// target has extent 1 but the data has not.
static Expected<std::vector<te::Tensor>>
collapseSumLikeCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  // collapse_sum_like: the target's extents; collapse_sum_to: the
  // attribute's (static).
  std::vector<te::Expr> shape = isa_and_nonnull<InitOpAttrs>(args.attrs)
                                    ? args.getResultShape()
                                    : args.arg(1).getShape().vec();
  if (shape.size() > data.getRank())
    return computeError("the target has a higher rank than the data");
  unsigned lead = data.getRank() - shape.size();
  // A `?` target extent is kept only where it is the data's own: one that
  // might be 1 at run time would have to be summed.
  for (unsigned d = 0; d < shape.size(); ++d)
    if (!shape[d].getConstInt() &&
        !provablyEqual(shape[d], data.getShape()[d + lead]))
      return computeError("a `?` target extent needs static shapes");
  return std::vector<te::Tensor>{compute(
      shape,
      [&](ArrayRef<te::Expr> o) {
        SmallVector<IterVar, 4> axes;
        SmallVector<te::Expr, 4> in;
        for (unsigned d = 0; d < data.getRank(); ++d) {
          const te::Expr &extent = data.getShape()[d];
          if (d < lead ||
              (shape[d - lead].isConstInt(1) && !extent.isConstInt(1))) {
            axes.push_back(reduceAxis(extent));
            in.push_back(axes.back().var);
          } else {
            in.push_back(o[d - lead]);
          }
        }
        if (axes.empty())
          return data(in);
        return sum(data(in), axes);
      },
      "collapse_sum_like")};
}

/// A tensor of \p values (constants or extents of run time), as a select
/// chain over the only axis.
static te::Tensor vectorOf(ArrayRef<te::Expr> values, DataType dtype,
                           StringRef name) {
  return compute(
      makeShape({int64_t(values.size())}),
      [&](ArrayRef<te::Expr> i) {
        te::Expr value = te::cast(dtype, values.back());
        for (size_t k = values.size() - 1; k-- > 0;)
          value = select(i[0] == te::Expr(int64_t(k)),
                         te::cast(dtype, values[k]), value);
        return value;
      },
      name);
}

/// transpose: output element i reads the data at i permuted by `axes`
/// (reversed when none are given).
static Expected<std::vector<te::Tensor>>
transposeCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  unsigned rank = data.getRank();
  const auto *attrs = llvm::cast<TransposeAttrs>(args.attrs);
  SmallVector<int64_t, 4> axes;
  if (attrs->axes && !attrs->axes->empty()) {
    for (int64_t a : *attrs->axes)
      axes.push_back(normalize(a, rank));
  } else {
    for (unsigned i = rank; i-- > 0;)
      axes.push_back(i);
  }
  if (axes.size() != rank)
    return computeError("axes do not permute the data's");
  std::vector<te::Expr> derived;
  for (int64_t a : axes)
    derived.push_back(data.getShape()[a]);
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 4> in(rank);
        for (unsigned k = 0; k < rank; ++k)
          in[axes[k]] = i[k];
        return data(in);
      },
      "transpose")};
}

/// concatenate: each part covers its range of the axis; a read is clamped
/// into every part and select picks the right one.
static Expected<std::vector<te::Tensor>>
concatenateCompute(const ComputeArgs &args) {
  ArrayRef<te::Tensor> parts = args.args[0];
  unsigned rank = parts[0].getRank();
  int64_t axis =
      normalize(llvm::cast<ConcatenateAttrs>(args.attrs)->axis, rank);
  std::vector<te::Expr> derived = parts[0].getShape();
  derived[axis] = 0;
  for (const te::Tensor &p : parts)
    derived[axis] = derived[axis] + p.getShape()[axis];
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> i) {
        // Part p covers [offset_p, offset_p + extent_p): later parts take
        // over from their offset on.
        SmallVector<te::Expr, 4> offsets;
        te::Expr offset = 0;
        for (const te::Tensor &p : parts) {
          offsets.push_back(offset);
          offset = offset + p.getShape()[axis];
        }
        te::Expr value;
        for (unsigned p = 0; p < parts.size(); ++p) {
          SmallVector<te::Expr, 4> in(i.begin(), i.end());
          // Clamp so that every read is in bounds; select picks the right
          // part.
          in[axis] =
              max(min(i[axis] - offsets[p], parts[p].getShape()[axis] - 1),
                  te::Expr(0));
          te::Expr read = parts[p](in);
          value = value ? select(i[axis] >= offsets[p], read, value) : read;
        }
        return value;
      },
      "concatenate")};
}

/// split: one output per field of the result tuple, each reading the data
/// from its offset along the axis.
static Expected<std::vector<te::Tensor>> splitCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  int64_t axis =
      normalize(llvm::cast<SplitAttrs>(args.attrs)->axis, data.getRank());
  if (!data.getShape()[axis].getConstInt())
    return computeError("splitting a `?` axis needs static shapes");
  std::vector<te::Tensor> outs;
  int64_t offset = 0;
  for (const Ref<nnir::Type> &field :
       llvm::cast<TupleType>(args.resultType)->getFields()) {
    // The split axis's extent is the field's (static); the others the
    // data's.
    std::vector<te::Expr> shape = data.getShape();
    shape[axis] = te::Expr(
        llvm::cast<TensorType>(field.get())->getShape()[axis]);
    int64_t start = offset;
    outs.push_back(compute(
        shape,
        [&](ArrayRef<te::Expr> i) {
          SmallVector<te::Expr, 4> in(i.begin(), i.end());
          in[axis] = i[axis] + start;
          return data(in);
        },
        "split"));
    offset += *shape[axis].getConstInt();
  }
  return outs;
}

/// strided_slice: output element i reads begin + i * stride per axis, with
/// begin and stride resolved from the attributes and the static shape as the
/// type relation resolves them (resolveStridedSlice).
static Expected<std::vector<te::Tensor>>
stridedSliceCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  const auto *attrs = llvm::cast<StridedSliceAttrs>(args.attrs);
  // A symbolic extent stands as a sentinel no attribute reaches; it may
  // only be taken whole (the axis's extent is kept).
  constexpr int64_t kSymbolic = int64_t(1) << 60;
  SmallVector<int64_t, 4> inShape;
  for (const te::Expr &e : data.getShape())
    inShape.push_back(e.getConstInt().value_or(kSymbolic));
  Expected<SmallVector<SlicedAxis, 4>> sliced = resolveStridedSlice(
      *attrs, inShape, "the input", TypeRelationContext{"strided_slice", {}});
  if (!sliced)
    return sliced.takeError();
  unsigned rank = data.getRank();
  SmallVector<int64_t, 4> begin(rank, 0), stride(rank, 1);
  std::vector<te::Expr> derived = data.getShape();
  for (const SlicedAxis &axis : *sliced) {
    begin[axis.axis] = axis.begin;
    stride[axis.axis] = axis.stride;
    if (inShape[axis.axis] != kSymbolic)
      derived[axis.axis] = te::Expr(axis.extent);
    else if (axis.begin != 0 || axis.stride != 1 || axis.extent != kSymbolic)
      return computeError("slicing an axis of a `?` extent needs static "
                          "shapes");
  }
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 4> in;
        for (unsigned a = 0; a < rank; ++a)
          in.push_back(te::Expr(begin[a]) + i[a] * te::Expr(stride[a]));
        return data(in);
      },
      "strided_slice")};
}

/// take: the index read from `indices` (clipped or wrapped by `mode`)
/// selects along the axis, or into the flattened data without one.
static Expected<std::vector<te::Tensor>> takeCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  const te::Tensor &indices = args.arg(1);
  const auto *attrs = llvm::cast<TakeAttrs>(args.attrs);
  bool flat = !attrs->axis.has_value();
  // The first batch_dims axes of the output index both data and indices.
  int64_t batchDims = flat ? 0 : attrs->batchDims;
  if (batchDims < 0)
    batchDims += indices.getRank();
  unsigned rank = data.getRank();
  int64_t axis = flat ? 0 : normalize(*attrs->axis, rank);
  std::vector<te::Expr> dataShape = data.getShape();
  te::Expr extent = 1;
  if (flat)
    for (const te::Expr &e : dataShape)
      extent = extent * e;
  else
    extent = dataShape[axis];
  std::string mode = attrs->mode;
  // data[:axis] (the batch axes among them), indices[batch_dims:],
  // data[axis + 1:]; flat: the indices' shape.
  std::vector<te::Expr> derived;
  if (!flat)
    derived.assign(dataShape.begin(), dataShape.begin() + axis);
  if (batchDims > int64_t(indices.getRank()) || batchDims > axis)
    return computeError("batch_dims out of range");
  for (int64_t d = 0; d < batchDims; ++d)
    if (Error err = requireFits(dataShape[d], indices.getShape()[d]))
      return err;
  derived.insert(derived.end(), indices.getShape().begin() + batchDims,
                 indices.getShape().end());
  if (!flat)
    derived.insert(derived.end(), dataShape.begin() + axis + 1,
                   dataShape.end());
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> i) {
        unsigned before = flat ? 0 : axis;
        unsigned own = indices.getRank() - batchDims;
        SmallVector<te::Expr, 4> idx(i.begin(), i.begin() + batchDims);
        idx.append(i.begin() + before, i.begin() + before + own);
        te::Expr k = te::cast(DataType::int64(), indices(idx));
        // "clip" clamps, "wrap" wraps; "fast" (unchecked in TVM) clamps
        // too, so a bad index never reads out of bounds.
        if (mode == "wrap")
          k = floorMod(k, extent);
        else
          k = max(min(k, extent - 1), te::Expr(0));
        if (flat)
          return data(unravel(k, dataShape));
        SmallVector<te::Expr, 4> in(i.begin(), i.begin() + before);
        in.push_back(k);
        for (unsigned a = before + own; a < i.size(); ++a)
          in.push_back(i[a]);
        return data(in);
      },
      "take")};
}

/// full(fill_value): every element is the 0-d fill value, cast.
static Expected<std::vector<te::Tensor>> fullCompute(const ComputeArgs &args) {
  const te::Tensor &fill = args.arg(0);
  if (llvm::cast<TensorType>(args.resultType)->isDynamic())
    return computeError("needs a static shape");
  DataType dtype = resultDType(args.resultType);
  return std::vector<te::Tensor>{compute(
      args.getResultShape(),
      [&](ArrayRef<te::Expr>) { return te::cast(dtype, fill({})); }, "full")};
}

/// full_like(data, fill_value): the data's shape filled with the value.
static Expected<std::vector<te::Tensor>>
fullLikeCompute(const ComputeArgs &args) {
  const te::Tensor &fill = args.arg(1);
  DataType dtype = resultDType(args.resultType);
  return std::vector<te::Tensor>{compute(
      args.arg(0).getShape(),
      [&](ArrayRef<te::Expr>) { return te::cast(dtype, fill({})); },
      "full_like")};
}

/// arange(start, stop, step): element i is start + i * step.
static Expected<std::vector<te::Tensor>>
arangeCompute(const ComputeArgs &args) {
  const te::Tensor &start = args.arg(0);
  const te::Tensor &step = args.arg(2);
  DataType dtype = resultDType(args.resultType);
  return std::vector<te::Tensor>{compute(
      args.getResultShape(),
      [&](ArrayRef<te::Expr> i) {
        return start({}) + te::cast(dtype, i[0]) * step({});
      },
      "arange")};
}

/// shape_of: the input's extents (constants, or the run time's) as a
/// vector.
static Expected<std::vector<te::Tensor>>
shapeOfCompute(const ComputeArgs &args) {
  std::vector<te::Expr> shape = args.arg(0).getShape();
  if (shape.empty())
    return computeError("the shape of a 0-d tensor has no elements");
  return std::vector<te::Tensor>{
      vectorOf(shape, resultDType(args.resultType), "shape_of")};
}

/// ndarray_size: the element count as a 0-d tensor.
static Expected<std::vector<te::Tensor>>
ndarraySizeCompute(const ComputeArgs &args) {
  te::Expr size = 1;
  for (const te::Expr &e : args.arg(0).getShape())
    size = size * e;
  DataType dtype = resultDType(args.resultType);
  return std::vector<te::Tensor>{compute(
      {}, [&](ArrayRef<te::Expr>) { return te::cast(dtype, size); },
      "ndarray_size")};
}

/// broadcast_to, broadcast_to_like: NumPy's broadcasting read.
static Expected<std::vector<te::Tensor>>
broadcastToCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  // broadcast_to_like: the like's extents; broadcast_to: the attribute's.
  std::vector<te::Expr> shape = args.args.size() > 1
                                    ? args.arg(1).getShape().vec()
                                    : args.getResultShape();
  // A `?` data extent broadcasts only onto itself (one that is 1 at run
  // time would have to be read at 0).
  if (shape.size() < data.getRank())
    return computeError("the target has a lower rank than the data");
  size_t lead = shape.size() - data.getRank();
  for (size_t a = 0; a < data.getRank(); ++a) {
    const te::Expr &e = data.getShape()[a];
    if (!e.getConstInt() && !provablyEqual(e, shape[lead + a]))
      return computeError("broadcasting a `?` extent needs static shapes");
  }
  return std::vector<te::Tensor>{compute(
      args.getResultShape(shape),
      [&](ArrayRef<te::Expr> i) { return broadcastRead(data, i); },
      "broadcast_to")};
}

/// zeros, ones: every element is \p value in the result's dtype.
static TECompute initCompute(double value) {
  return [value](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
    if (llvm::cast<TensorType>(args.resultType)->isDynamic())
      return computeError("needs a static shape");
    DataType dtype = resultDType(args.resultType);
    return std::vector<te::Tensor>{compute(
        args.getResultShape(),
        [&](ArrayRef<te::Expr>) { return constant(dtype, value); }, "init")};
  };
}

void nnir::registerDataMovementComputes() {
  OpRegistry &registry = OpRegistry::instance();
  for (const char *name : {"reshape", "reshape_like", "reverse_reshape",
                           "expand_dims", "squeeze", "nn.batch_flatten"}) {
    setOpCompute(name, reshapeCompute);
    registry.getAttrMap<bool>(kTEReshapeAttr).set(registry.lookup(name), true);
  }

  std::pair<StringRef, TECompute> computes[] = {
      {"transpose", transposeCompute},
      {"broadcast_to", broadcastToCompute},
      {"broadcast_to_like", broadcastToCompute},
      {"concatenate", concatenateCompute},
      {"split", splitCompute},
      {"strided_slice", stridedSliceCompute},
      {"take", takeCompute},
      {"full", fullCompute},
      {"full_like", fullLikeCompute},
      {"zeros", initCompute(0.0)},
      {"ones", initCompute(1.0)},
      {"arange", arangeCompute},
      {"stack", stackCompute},
      {"tile", tileCompute},
      {"repeat", repeatCompute},
      {"reverse", reverseCompute},
      {"gather", gatherCompute},
      {"gather_nd", gatherNDCompute},
      {"scatter_elements", scatterElementsCompute},
      {"scatter_nd", scatterNDCompute},
      {"reverse_sequence", reverseSequenceCompute},
      {"one_hot", oneHotCompute},
      {"slice_like", leadingSliceCompute},
      {"layout_transform", layoutTransformCompute},
      {"collapse_sum_like", collapseSumLikeCompute},
      {"collapse_sum_to", collapseSumLikeCompute},
      {"shape_of", shapeOfCompute},
      {"ndarray_size", ndarraySizeCompute},
  };
  for (auto &[name, compute] : computes)
    setOpCompute(name, std::move(compute));
  // The computes above that derive every extent from their arguments and
  // attributes (the re-shapes from Relay's reshape codes, squeeze of named
  // axes, expand_dims and batch_flatten; strided_slice of static axes, and
  // of `?` ones taken whole), refusing what they cannot.
  markSymbolicShapes({"reshape", "expand_dims", "squeeze", "nn.batch_flatten",
                      "transpose", "concatenate", "strided_slice", "repeat",
                      "reverse"});
  // Those that derive their extents from their arguments' (indices,
  // shape_like, the target of a broadcast or a collapse) and attributes,
  // refusing a `?` extent that would need a static one.
  markSymbolicShapes({"split", "take", "gather", "gather_nd",
                      "scatter_elements", "scatter_nd", "reverse_sequence",
                      "one_hot", "slice_like", "layout_transform",
                      "collapse_sum_like", "collapse_sum_to", "stack", "tile",
                      "broadcast_to", "broadcast_to_like", "full_like",
                      "shape_of", "ndarray_size"});
  // The attribute's static shape (a `?` one is refused).
  markSymbolicShapes({"full", "zeros", "ones"});
}
