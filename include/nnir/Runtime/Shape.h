//===- Shape.h - Static tensor shapes ----------------------------*- C++ -*-===//
//
/// \file
/// Shapes are lists of int64 extents. Every function that turns a shape into
/// an element or byte count checks for negative extents and int64 overflow, so
/// absurd shapes are errors, never undefined behaviour.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_RUNTIME_SHAPE_H
#define NNIR_RUNTIME_SHAPE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace nnir {

using Shape = llvm::SmallVector<int64_t, 4>;

/// The number of elements of \p shape (1 for a 0-d shape), or std::nullopt if
/// an extent is negative or the product overflows int64.
std::optional<int64_t> getNumElements(llvm::ArrayRef<int64_t> shape);

/// The number of bytes of a tensor of \p shape with \p elementBytes bytes per
/// element, or std::nullopt on a negative extent or on int64 overflow.
std::optional<int64_t> getByteSize(llvm::ArrayRef<int64_t> shape,
                                   unsigned elementBytes);

/// Prints `(1, 3, 224, 224)` the way the text format writes shapes (a 1-d
/// shape prints as `(3)`, a 0-d one as `()`).
void printShape(llvm::raw_ostream &os, llvm::ArrayRef<int64_t> shape);

} // namespace nnir

#endif // NNIR_RUNTIME_SHAPE_H
