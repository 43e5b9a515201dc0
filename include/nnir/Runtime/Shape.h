//===- Shape.h - Static tensor shapes ----------------------------*- C++ -*-===//
//
/// \file
/// Shapes are lists of int64 extents. Every function that turns a shape into
/// an element or byte count checks for negative extents and int64 overflow, so
/// absurd shapes are errors, never undefined behaviour.
///
/// A type's shape may hold kAnyDim, Relay's `Any` (printed `?`): an extent
/// known only at run time. It is negative, so every element and byte count of
/// a shape that holds it is std::nullopt: a dynamic shape can never size an
/// allocation by accident. Arrays (NDArray) always have static shapes.
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

/// The extent of a dynamic dimension (Relay's `Any`, written `?`).
inline constexpr int64_t kAnyDim = -1;

/// True if \p dim is a dynamic extent.
inline bool isAnyDim(int64_t dim) { return dim == kAnyDim; }

/// True if no extent of \p shape is dynamic.
bool isStaticShape(llvm::ArrayRef<int64_t> shape);

/// The number of elements of \p shape (1 for a 0-d shape), or std::nullopt if
/// an extent is negative or the product overflows int64.
std::optional<int64_t> getNumElements(llvm::ArrayRef<int64_t> shape);

/// The number of bytes of a tensor of \p shape with \p elementBytes bytes per
/// element, or std::nullopt on a negative extent or on int64 overflow.
std::optional<int64_t> getByteSize(llvm::ArrayRef<int64_t> shape,
                                   unsigned elementBytes);

/// Prints `(1, 3, 224, 224)` the way the text format writes shapes (a 1-d
/// shape prints as `(3)`, a 0-d one as `()`, a dynamic extent as `?`).
void printShape(llvm::raw_ostream &os, llvm::ArrayRef<int64_t> shape);

/// Prints a list of integers as printShape does, but every value as a number
/// (attribute values such as reshape's `(-1, 3)`, where -1 is no `Any`).
void printIntList(llvm::raw_ostream &os, llvm::ArrayRef<int64_t> values);

} // namespace nnir

#endif // NNIR_RUNTIME_SHAPE_H
