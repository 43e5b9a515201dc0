//===- StridedSlice.h - strided_slice's per-axis resolution -----*- C++ -*-===//
//
/// \file
/// Private to lib/Ops. The one place that turns strided_slice's attributes
/// and a static input shape into a first index, a stride and an extent per
/// sliced axis, so the type relation (DataMovement.cpp) and the compute
/// (DataMovementCompute.cpp) cannot disagree. Defined in DataMovement.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_STRIDEDSLICE_H
#define NNIR_OPS_STRIDEDSLICE_H

#include "nnir/IR/TypeRelation.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace nnir {

struct StridedSliceAttrs;

/// One sliced axis: output element i of the axis reads input element
/// begin + i * stride; begin is in [0, extent of the input axis) unless the
/// axis is empty.
struct SlicedAxis {
  unsigned axis;
  int64_t begin;
  int64_t stride;
  int64_t extent;
};

/// Resolves \p attrs against the static shape \p shape (Relay's
/// StridedSliceRel and topi's CanonicalizeIndex): a negative index counts
/// from the end; then a begin or end is clamped to [0, n] for a positive
/// stride and to [-1, n - 1] for a negative one, so `end` -n-1 (or anything
/// below) with stride -1 runs through element 0. A None begin is the start
/// of the axis in the stride's direction, a None end its end, except that
/// Relay takes a None end with a negative stride as 0. Errors (a zero stride,
/// a begin past the end, mismatched lengths, ...) go through \p ctx and name
/// the input as \p dataText.
llvm::Expected<llvm::SmallVector<SlicedAxis, 4>>
resolveStridedSlice(const StridedSliceAttrs &attrs,
                    llvm::ArrayRef<int64_t> shape, llvm::StringRef dataText,
                    const TypeRelationContext &ctx);

} // namespace nnir

#endif // NNIR_OPS_STRIDEDSLICE_H
