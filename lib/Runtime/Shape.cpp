//===- Shape.cpp - Static tensor shapes -----------------------------------===//
//
/// \file
/// Overflow-checked element and byte counts.
//
//===----------------------------------------------------------------------===//

#include "nnir/Runtime/Shape.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

std::optional<int64_t> nnir::getNumElements(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return std::nullopt;
    int64_t product;
    if (MulOverflow(count, dim, product))
      return std::nullopt;
    count = product;
  }
  return count;
}

std::optional<int64_t> nnir::getByteSize(ArrayRef<int64_t> shape,
                                         unsigned elementBytes) {
  std::optional<int64_t> count = getNumElements(shape);
  if (!count)
    return std::nullopt;
  int64_t bytes;
  if (MulOverflow(*count, static_cast<int64_t>(elementBytes), bytes))
    return std::nullopt;
  return bytes;
}

bool nnir::isStaticShape(ArrayRef<int64_t> shape) {
  return llvm::none_of(shape, isAnyDim);
}

static void printList(raw_ostream &os, ArrayRef<int64_t> values,
                      bool anyAsQuestion) {
  os << '(';
  for (size_t i = 0, e = values.size(); i != e; ++i) {
    if (i)
      os << ", ";
    if (anyAsQuestion && isAnyDim(values[i]))
      os << '?';
    else
      os << values[i];
  }
  os << ')';
}

void nnir::printShape(raw_ostream &os, ArrayRef<int64_t> shape) {
  printList(os, shape, /*anyAsQuestion=*/true);
}

void nnir::printIntList(raw_ostream &os, ArrayRef<int64_t> values) {
  printList(os, values, /*anyAsQuestion=*/false);
}
