//===- ConvertLinalg.cpp - Det --------------------------------------------===//
//
/// \file
/// Det of small matrices by the Leibniz formula over elementwise operators:
/// a sum over the n! permutations of signed products of one element per
/// row, for n up to 4 (24 products), where it is as exact as elimination.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include <algorithm>
#include <numeric>

using namespace llvm;

namespace nnir {
namespace onnximport {

/// Det: [..., n, n] -> [...].
Result convertDet(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  int64_t rank = x.rank();
  if (rank < 2 || x.shape()[rank - 1] != x.shape()[rank - 2])
    return ctx.error("the input must be [..., n, n]");
  if (!x.dtype().isFloatingPoint())
    return ctx.error("the input must be a floating-point tensor");
  int64_t n = x.shape()[rank - 1];
  if (n < 1 || n > 4)
    return ctx.unsupported("Det of " + Twine(n) + " x " + Twine(n) +
                           " matrices (nnir computes 1 x 1 to 4 x 4)");
  // element[i][j]: x[..., i, j].
  std::vector<std::vector<Value>> element(n);
  for (int64_t i = 0; i < n; ++i) {
    TRY(row, ctx.typed(ops::take(x, ctx.scalar(DataType::int64(), i),
                                 rank - 2, "fast")));
    for (int64_t j = 0; j < n; ++j) {
      TRY(e, ctx.typed(ops::take(row, ctx.scalar(DataType::int64(), j),
                                 rank - 2, "fast")));
      element[i].push_back(e);
    }
  }
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::optional<Value> total;
  do {
    int inversions = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j)
        inversions += perm[i] > perm[j];
    Value term = element[0][perm[0]];
    for (int64_t i = 1; i < n; ++i) {
      TRY(t, ctx.typed(ops::multiply(term, element[i][perm[i]])));
      term = t;
    }
    if (!total) {
      total = term;
      continue;
    }
    TRY(sum, ctx.typed(inversions % 2 ? ops::subtract(*total, term)
                                      : ops::add(*total, term)));
    total = sum;
  } while (std::next_permutation(perm.begin(), perm.end()));
  return one(*total);
}

} // namespace onnximport
} // namespace nnir
