//===- DataMovementCompute.cpp - Computes of the data-movement operators --===//
//
/// \file
/// The TE computes of the common data-movement operators: the example of
/// *injective* computes, where each output element reads one input element
/// at an index computed from the output index. They use the static result
/// type (te::getConstShape) where the attributes alone do not fix the
/// mapping (reshape, split, strided_slice).
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Compute.h"
#include "nnir/TE/Broadcast.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

/// The static shape of a tensor result type.
static std::vector<te::Expr> resultShape(const nnir::Type *type) {
  return makeShape(llvm::cast<TensorType>(type)->getShape());
}

static DataType resultDType(const nnir::Type *type) {
  return llvm::cast<TensorType>(type)->getDType();
}

/// Row-major linear index of \p index in \p shape.
static te::Expr ravel(ArrayRef<te::Expr> index, ArrayRef<te::Expr> shape) {
  te::Expr linear = 0;
  for (unsigned i = 0; i < index.size(); ++i)
    linear = linear * shape[i] + index[i];
  return linear;
}

/// The index in \p shape of the row-major linear index \p linear.
static SmallVector<te::Expr, 4> unravel(te::Expr linear,
                                        ArrayRef<te::Expr> shape) {
  SmallVector<te::Expr, 4> index(shape.size());
  for (unsigned i = shape.size(); i-- > 0;) {
    index[i] = i == 0 ? linear : floorMod(linear, shape[i]);
    linear = floorDiv(linear, shape[i]);
  }
  return index;
}

static bool provablyEqualShapes(ArrayRef<te::Expr> a, ArrayRef<te::Expr> b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!provablyEqual(a[i], b[i]))
      return false;
  return true;
}

/// Reshape-like operators: the output's element f (row-major) is the
/// input's element f.
static Expected<std::vector<te::Tensor>>
reshapeCompute(const ComputeArgs &args) {
  const te::Tensor &data = args.arg(0);
  std::vector<te::Expr> shape = resultShape(args.resultType);
  std::vector<te::Expr> inShape = data.getShape();
  return std::vector<te::Tensor>{compute(
      shape,
      [&](ArrayRef<te::Expr> i) {
        if (provablyEqualShapes(shape, inShape))
          return data(i);
        return data(unravel(ravel(i, shape), inShape));
      },
      "reshape")};
}

static int64_t normalize(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

void nnir::registerDataMovementComputes() {
  auto set = [](StringRef name, TECompute compute) {
    setOpCompute(name, std::move(compute));
  };

  for (const char *name : {"reshape", "reshape_like", "expand_dims", "squeeze",
                           "nn.batch_flatten"})
    set(name, reshapeCompute);

  set("transpose",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
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
        return std::vector<te::Tensor>{compute(
            resultShape(args.resultType),
            [&](ArrayRef<te::Expr> i) {
              SmallVector<te::Expr, 4> in(rank);
              for (unsigned k = 0; k < rank; ++k)
                in[axes[k]] = i[k];
              return data(in);
            },
            "transpose")};
      });

  auto broadcastTo =
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
    const te::Tensor &data = args.arg(0);
    return std::vector<te::Tensor>{compute(
        resultShape(args.resultType),
        [&](ArrayRef<te::Expr> i) { return broadcastRead(data, i); },
        "broadcast_to")};
  };
  set("broadcast_to", broadcastTo);
  set("broadcast_to_like", broadcastTo);

  set("concatenate",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        ArrayRef<te::Tensor> parts = args.args[0];
        unsigned rank = parts[0].getRank();
        int64_t axis =
            normalize(llvm::cast<ConcatenateAttrs>(args.attrs)->axis, rank);
        return std::vector<te::Tensor>{compute(
            resultShape(args.resultType),
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
                in[axis] = max(
                    min(i[axis] - offsets[p], parts[p].getShape()[axis] - 1),
                    te::Expr(0));
                te::Expr read = parts[p](in);
                value =
                    value ? select(i[axis] >= offsets[p], read, value) : read;
              }
              return value;
            },
            "concatenate")};
      });

  set("split",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        const te::Tensor &data = args.arg(0);
        int64_t axis =
            normalize(llvm::cast<SplitAttrs>(args.attrs)->axis, data.getRank());
        std::vector<te::Tensor> outs;
        int64_t offset = 0;
        for (const Ref<nnir::Type> &field :
             llvm::cast<TupleType>(args.resultType)->getFields()) {
          std::vector<te::Expr> shape = resultShape(field.get());
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
      });

  set("strided_slice",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        const te::Tensor &data = args.arg(0);
        const auto *attrs = llvm::cast<StridedSliceAttrs>(args.attrs);
        std::optional<SmallVector<int64_t, 4>> inShape =
            getConstShape(data.getShape());
        if (!inShape)
          return computeError("strided_slice needs a static input shape");
        unsigned rank = data.getRank();
        SmallVector<int64_t, 4> begin(rank, 0), stride(rank, 1);
        SmallVector<unsigned, 4> axes;
        if (attrs->axes) {
          for (int64_t a : *attrs->axes)
            axes.push_back(normalize(a, rank));
        } else {
          size_t n = attrs->begin ? attrs->begin->size() : 0;
          for (unsigned a = 0; a < std::min<size_t>(n, rank); ++a)
            axes.push_back(a);
        }
        bool sizeMode = attrs->sliceMode == "size";
        for (unsigned k = 0; k < axes.size(); ++k) {
          unsigned a = axes[k];
          int64_t dim = (*inShape)[a];
          int64_t s = 1;
          if (!sizeMode && attrs->strides && !attrs->strides->empty())
            s = k < attrs->strides->size()    ? (*attrs->strides)[k]
                : attrs->strides->size() == 1 ? (*attrs->strides)[0]
                                              : 1;
          std::optional<int64_t> b;
          if (attrs->begin && k < attrs->begin->size())
            b = (*attrs->begin)[k];
          int64_t v;
          if (!b) {
            v = s > 0 ? 0 : dim - 1;
          } else {
            v = *b < 0 ? *b + dim : *b;
            v = s > 0 ? std::clamp<int64_t>(v, 0, dim)
                      : std::clamp<int64_t>(v, -1, dim - 1);
          }
          begin[a] = v;
          stride[a] = s;
        }
        return std::vector<te::Tensor>{compute(
            resultShape(args.resultType),
            [&](ArrayRef<te::Expr> i) {
              SmallVector<te::Expr, 4> in;
              for (unsigned a = 0; a < rank; ++a)
                in.push_back(te::Expr(begin[a]) + i[a] * te::Expr(stride[a]));
              return data(in);
            },
            "strided_slice")};
      });

  set("take", [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
    const te::Tensor &data = args.arg(0);
    const te::Tensor &indices = args.arg(1);
    const auto *attrs = llvm::cast<TakeAttrs>(args.attrs);
    if (attrs->batchDims != 0)
      return computeError("batch_dims other than 0 are not supported yet");
    bool flat = !attrs->axis.has_value();
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
    return std::vector<te::Tensor>{compute(
        resultShape(args.resultType),
        [&](ArrayRef<te::Expr> i) {
          unsigned before = flat ? 0 : axis;
          SmallVector<te::Expr, 4> idx(i.begin() + before,
                                       i.begin() + before + indices.getRank());
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
          for (unsigned a = before + indices.getRank(); a < i.size(); ++a)
            in.push_back(i[a]);
          return data(in);
        },
        "take")};
  });

  // full(fill_value), full_like(data, fill_value), zeros, ones.
  set("full", [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
    const te::Tensor &fill = args.arg(0);
    DataType dtype = resultDType(args.resultType);
    return std::vector<te::Tensor>{compute(
        resultShape(args.resultType),
        [&](ArrayRef<te::Expr>) { return te::cast(dtype, fill({})); }, "full")};
  });
  set("full_like",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        const te::Tensor &fill = args.arg(1);
        DataType dtype = resultDType(args.resultType);
        return std::vector<te::Tensor>{compute(
            args.arg(0).getShape(),
            [&](ArrayRef<te::Expr>) { return te::cast(dtype, fill({})); },
            "full_like")};
      });
  for (auto [name, value] : {std::pair("zeros", 0.0), std::pair("ones", 1.0)})
    set(name,
        [value = value](
            const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
          DataType dtype = resultDType(args.resultType);
          return std::vector<te::Tensor>{compute(
              resultShape(args.resultType),
              [&](ArrayRef<te::Expr>) { return constant(dtype, value); },
              "init")};
        });

  set("arange",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        const te::Tensor &start = args.arg(0);
        const te::Tensor &step = args.arg(2);
        DataType dtype = resultDType(args.resultType);
        return std::vector<te::Tensor>{compute(
            resultShape(args.resultType),
            [&](ArrayRef<te::Expr> i) {
              return start({}) + te::cast(dtype, i[0]) * step({});
            },
            "arange")};
      });
}
