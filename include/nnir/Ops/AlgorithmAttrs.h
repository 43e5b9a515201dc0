//===- AlgorithmAttrs.h - Records of scans, sorts and einsum ----*- C++ -*-===//
//
/// \file
/// The attribute records of the algorithm operators (cumsum, topk, argsort,
/// sort, einsum),
/// with TVM Relay's field names, declaration order and defaults (see
/// nnir/IR/Attrs.h).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_ALGORITHMATTRS_H
#define NNIR_OPS_ALGORITHMATTRS_H

#include "nnir/IR/Attrs.h"

#include <optional>
#include <string>

namespace nnir {

/// cumsum: axis None scans the flattened data; a void dtype keeps the
/// data's; exclusive None is false.
struct ScanopAttrs : AttrsNode<ScanopAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ScanopAttrs";
  std::optional<int64_t> axis;
  DataType dtype;
  std::optional<bool> exclusive;
  template <typename V> void visitFields(V &v) {
    v("axis", axis, std::nullopt);
    v("dtype", dtype, DataType());
    v("exclusive", exclusive, std::nullopt);
  }
};

/// topk: k None (or < 1) keeps every element; ret_type is "both" (a tuple
/// of values and indices), "values" or "indices"; dtype is the indices'.
struct TopKAttrs : AttrsNode<TopKAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.TopKAttrs";
  std::optional<int64_t> k;
  int64_t axis = -1;
  std::string retType = "both";
  bool isAscend = false;
  DataType dtype = DataType::int32();
  template <typename V> void visitFields(V &v) {
    v("k", k, std::nullopt);
    v("axis", axis, -1);
    v("ret_type", retType, "both");
    v("is_ascend", isAscend, false);
    v("dtype", dtype, DataType::int32());
  }
};

/// argsort and sort (TVM's one record for both): the axis to sort along,
/// the order, and argsort's index dtype (an integer or floating-point type;
/// TVM's record leaves it unset, its Python API and nnir's default int32;
/// sort ignores it).
struct ArgsortAttrs : AttrsNode<ArgsortAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ArgsortAttrs";
  int64_t axis = -1;
  bool isAscend = true;
  DataType dtype = DataType::int32();
  template <typename V> void visitFields(V &v) {
    v("axis", axis, -1);
    v("is_ascend", isAscend, true);
    v("dtype", dtype, DataType::int32());
  }
};

/// einsum: the equation in NumPy's notation ("ij,jk->ik", "...ii->...i").
struct EinsumAttrs : AttrsNode<EinsumAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.EinsumAttrs";
  std::string equation;
  template <typename V> void visitFields(V &v) { v("equation", equation); }
};

} // namespace nnir

#endif // NNIR_OPS_ALGORITHMATTRS_H
