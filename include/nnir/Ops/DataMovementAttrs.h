//===- DataMovementAttrs.h - Attribute records of data movement -*- C++ -*-===//
//
/// \file
/// The attribute records of the data movement operators, with TVM Relay's field
/// names, declaration order and defaults (see nnir/IR/Attrs.h). A field that
/// Relay declares without a default is required here too, so TVM always
/// prints it and the parser insists on it; `std::optional` fields of such
/// records accept `None` (TVM prints `axes=None`, `begin=None`).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_DATAMOVEMENTATTRS_H
#define NNIR_OPS_DATAMOVEMENTATTRS_H

#include "nnir/IR/Attrs.h"

#include <optional>
#include <string>
#include <vector>

namespace nnir {

using IntList = std::vector<int64_t>;
/// A list whose entries may be None (strided_slice's begin and end).
using OptionalIntList = std::vector<std::optional<int64_t>>;

/// A field that Relay types as an expression (arange's start, stop and
/// step). TVM prints the constants it holds as `meta[relay.Constant][i]`;
/// a number literal (`0f`, `1i64`) is read as the 0-d constant it denotes,
/// so both spellings of one value give equal records. Any other expression
/// or None is kept as written.
struct ExprAttr {
  AttrValue value;
};

template <> struct AttrFieldTraits<ExprAttr> {
  static std::string typeName() { return "expr"; }
  static AttrValue toValue(const ExprAttr &v) { return v.value; }
  static llvm::Error fromValue(const AttrValue &v, ExprAttr &out);
  static bool equal(const ExprAttr &a, const ExprAttr &b) {
    return a.value == b.value;
  }
  static llvm::hash_code hash(const ExprAttr &v) { return hash_value(v.value); }
};

/// reshape
struct ReshapeAttrs : AttrsNode<ReshapeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ReshapeAttrs";
  IntList newshape;
  bool allowzero = false;
  template <typename V> void visitFields(V &v) {
    v("newshape", newshape);
    v("allowzero", allowzero, false);
  }
};

/// reshape_like: data dimensions [lhs_begin, lhs_end) are replaced by the
/// dimensions [rhs_begin, rhs_end) of shape_like; None ends are the rank.
struct ReshapeLikeAttrs : AttrsNode<ReshapeLikeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ReshapeLikeAttrs";
  int64_t lhsBegin = 0;
  std::optional<int64_t> lhsEnd;
  int64_t rhsBegin = 0;
  std::optional<int64_t> rhsEnd;
  template <typename V> void visitFields(V &v) {
    v("lhs_begin", lhsBegin, 0);
    v("lhs_end", lhsEnd, std::nullopt);
    v("rhs_begin", rhsBegin, 0);
    v("rhs_end", rhsEnd, std::nullopt);
  }
};

/// transpose: `axes` is required but may be None (reverse the axes), which
/// TVM's Python API always prints as `axes=None`.
struct TransposeAttrs : AttrsNode<TransposeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.TransposeAttrs";
  std::optional<IntList> axes;
  template <typename V> void visitFields(V &v) { v("axes", axes); }
};

/// expand_dims
struct ExpandDimsAttrs : AttrsNode<ExpandDimsAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ExpandDimsAttrs";
  int64_t axis = 0;
  int64_t numNewaxis = 1;
  template <typename V> void visitFields(V &v) {
    v("axis", axis);
    v("num_newaxis", numNewaxis, 1);
  }
};

/// squeeze: None drops every dimension of extent 1.
struct SqueezeAttrs : AttrsNode<SqueezeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.SqueezeAttrs";
  std::optional<IntList> axis;
  template <typename V> void visitFields(V &v) {
    v("axis", axis, std::nullopt);
  }
};

/// concatenate
struct ConcatenateAttrs : AttrsNode<ConcatenateAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ConcatenateAttrs";
  int64_t axis = 0;
  template <typename V> void visitFields(V &v) { v("axis", axis, 0); }
};

/// split: `indices_or_sections` is an int (sections) or a list (indices).
struct SplitAttrs : AttrsNode<SplitAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.SplitAttrs";
  AttrValue indicesOrSections;
  int64_t axis = 0;
  template <typename V> void visitFields(V &v) {
    v("indices_or_sections", indicesOrSections);
    v("axis", axis, 0);
  }
};

/// stack
struct StackAttrs : AttrsNode<StackAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.StackAttrs";
  int64_t axis = 0;
  template <typename V> void visitFields(V &v) { v("axis", axis, 0); }
};

/// strided_slice. TVM's Python API defaults strides to [1] and axes to None
/// and prints both: `begin=[0, 0], end=[1, 2], strides=[1], axes=None`.
/// Entries of begin and end may be None (the start or the end of the axis).
struct StridedSliceAttrs : AttrsNode<StridedSliceAttrs> {
  static constexpr llvm::StringLiteral typeKey =
      "relay.attrs.StridedSliceAttrs";
  std::optional<OptionalIntList> begin;
  std::optional<OptionalIntList> end;
  std::optional<IntList> strides;
  std::string sliceMode = "end";
  std::optional<IntList> axes;
  template <typename V> void visitFields(V &v) {
    v("begin", begin);
    v("end", end);
    v("strides", strides);
    v("slice_mode", sliceMode, "end");
    v("axes", axes);
  }
};

/// take: `mode` is "clip", "wrap" or "fast"; axis None indexes the
/// flattened data.
struct TakeAttrs : AttrsNode<TakeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.TakeAttrs";
  int64_t batchDims = 0;
  std::optional<int64_t> axis;
  std::string mode = "clip";
  template <typename V> void visitFields(V &v) {
    v("batch_dims", batchDims, 0);
    v("axis", axis, std::nullopt);
    v("mode", mode, "clip");
  }
};

/// gather: Relay's default is None, but the axis must be set.
struct GatherAttrs : AttrsNode<GatherAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.GatherAttrs";
  std::optional<int64_t> axis;
  template <typename V> void visitFields(V &v) {
    v("axis", axis, std::nullopt);
  }
};

/// gather_nd
struct GatherNDAttrs : AttrsNode<GatherNDAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.GatherNDAttrs";
  int64_t batchDims = 0;
  std::optional<int64_t> indexRank;
  template <typename V> void visitFields(V &v) {
    v("batch_dims", batchDims, 0);
    v("index_rank", indexRank, std::nullopt);
  }
};

/// full, zeros, ones, broadcast_to: `shape` is required (None is a dynamic
/// shape, which nnir does not support); a void dtype (`""`) means the fill
/// value's or the data's dtype where there is one.
struct InitOpAttrs : AttrsNode<InitOpAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.InitOpAttrs";
  std::optional<IntList> shape;
  DataType dtype;
  template <typename V> void visitFields(V &v) {
    v("shape", shape);
    v("dtype", dtype, DataType());
  }
};

/// layout_transform: layouts such as "NCHW", "NHWC", "NCHW4c".
struct LayoutTransformAttrs : AttrsNode<LayoutTransformAttrs> {
  static constexpr llvm::StringLiteral typeKey =
      "relay.attrs.LayoutTransformAttrs";
  std::string srcLayout;
  std::string dstLayout;
  template <typename V> void visitFields(V &v) {
    v("src_layout", srcLayout);
    v("dst_layout", dstLayout);
  }
};

/// shape_of. The C++ default is void; TVM's Python API passes "int32", so
/// TVM-printed modules show `dtype="int32"`.
struct ShapeOfAttrs : AttrsNode<ShapeOfAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ShapeOfAttrs";
  DataType dtype;
  template <typename V> void visitFields(V &v) {
    v("dtype", dtype, DataType());
  }
};

/// ndarray_size (printed like shape_of's: `dtype="int32"`).
struct NdarraySizeAttrs : AttrsNode<NdarraySizeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.NdarraySizeAttrs";
  DataType dtype;
  template <typename V> void visitFields(V &v) {
    v("dtype", dtype, DataType());
  }
};

/// arange: start, stop and step are expressions (see ExprAttr).
struct ArangeAttrs : AttrsNode<ArangeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ArangeAttrs";
  ExprAttr start;
  ExprAttr stop;
  ExprAttr step;
  DataType dtype;
  template <typename V> void visitFields(V &v) {
    v("start", start);
    v("stop", stop);
    v("step", step);
    v("dtype", dtype);
  }
};

/// tile
struct TileAttrs : AttrsNode<TileAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.TileAttrs";
  IntList reps;
  template <typename V> void visitFields(V &v) { v("reps", reps); }
};

/// repeat: Relay's default axis is None, but the axis must be set.
struct RepeatAttrs : AttrsNode<RepeatAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.RepeatAttrs";
  int64_t repeats = 0;
  std::optional<int64_t> axis;
  template <typename V> void visitFields(V &v) {
    v("repeats", repeats);
    v("axis", axis, std::nullopt);
  }
};

/// reverse: Relay's default axis is None, but the axis must be set.
struct ReverseAttrs : AttrsNode<ReverseAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ReverseAttrs";
  std::optional<int64_t> axis;
  template <typename V> void visitFields(V &v) {
    v("axis", axis, std::nullopt);
  }
};

/// scatter_elements: reduction is "update", "add", "mul", "min" or "max"
/// (TVM's "mean" is not supported).
struct ScatterElementsAttrs : AttrsNode<ScatterElementsAttrs> {
  static constexpr llvm::StringLiteral typeKey =
      "relay.attrs.ScatterElementsAttrs";
  int64_t axis = 0;
  std::string reduction = "update";
  template <typename V> void visitFields(V &v) {
    v("axis", axis, 0);
    v("reduction", reduction, "update");
  }
};

/// scatter_nd: mode is "update", "add", "sub", "mul", "min" or "max".
struct ScatterNDAttrs : AttrsNode<ScatterNDAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ScatterNDAttrs";
  std::string mode = "update";
  template <typename V> void visitFields(V &v) { v("mode", mode, "update"); }
};

/// reverse_sequence
struct ReverseSequenceAttrs : AttrsNode<ReverseSequenceAttrs> {
  static constexpr llvm::StringLiteral typeKey =
      "relay.attrs.ReverseSequenceAttrs";
  int64_t seqAxis = 1;
  int64_t batchAxis = 0;
  template <typename V> void visitFields(V &v) {
    v("seq_axis", seqAxis, 1);
    v("batch_axis", batchAxis, 0);
  }
};

/// one_hot: axis -1 appends the new axis.
struct OneHotAttrs : AttrsNode<OneHotAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.OneHotAttrs";
  int64_t depth = 1;
  int64_t axis = -1;
  DataType dtype;
  template <typename V> void visitFields(V &v) {
    v("depth", depth, 1);
    v("axis", axis, -1);
    v("dtype", dtype, DataType());
  }
};

/// slice_like: `axes` is required but may be None (every axis that
/// shape_like has).
struct SliceLikeAttrs : AttrsNode<SliceLikeAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.SliceLikeAttrs";
  std::optional<IntList> axes;
  template <typename V> void visitFields(V &v) { v("axes", axes); }
};

} // namespace nnir

#endif // NNIR_OPS_DATAMOVEMENTATTRS_H
