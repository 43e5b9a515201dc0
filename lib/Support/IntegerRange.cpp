//===- IntegerRange.cpp - The integers a setting accepts ------------------===//
//
/// \file
/// How range bounds are written (IntegerRange.h).
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/IntegerRange.h"

using namespace nnir;

std::string nnir::formatIntegerBound(int64_t value) {
  if (value < 0) {
    if (value == std::numeric_limits<int64_t>::min())
      return "-2^63";
    if (value == std::numeric_limits<int32_t>::min())
      return "-2^31";
    return std::to_string(value);
  }
  return formatIntegerBound(static_cast<uint64_t>(value));
}

std::string nnir::formatIntegerBound(uint64_t value) {
  for (unsigned bits : {31, 32, 63, 64})
    if (value == (bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1))
      return "2^" + std::to_string(bits) + "-1";
  return std::to_string(value);
}
