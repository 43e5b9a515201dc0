//===- NumPyPrinter.h - Print arrays as NumPy's str() does ------*- C++ -*-===//
//
/// \file
/// printArrayLikeNumPy() writes an NDArray exactly as NumPy 1.24's `str()`
/// does with the default print options (numpy/core/arrayprint.py:
/// linewidth 75, precision 8 with floatmode 'maxprec', threshold 1000,
/// edgeitems 3, sign '-'), which is what `nnir-run --print` promises:
///
///  - floats (FloatingFormat): the shortest digits that identify each value
///    in its own precision (float16, float32, float64), at most 8 after the
///    point, all aligned on the point (left and right padding); scientific
///    notation when the largest nonzero magnitude is at least 1e8, the
///    smallest below 1e-4, or their ratio above 1000, with one mantissa
///    width and exponent width for all; `nan`, `inf`, `-inf` right-aligned
///    to the common width;
///  - integers right-aligned to the widest of the smallest and largest;
///    booleans as ` True`/`False`;
///  - rows wrapped at 75 columns under the opening brackets, blank lines
///    between blocks of higher rank;
///  - arrays of more than 1000 elements summarised: 3 items at each end of
///    every longer axis around `...`, the widths taken from those items;
///  - an empty array as `[]`; a 0-d array as its scalar (`1.5`, `1e+16`,
///    `True`).
///
/// bfloat16, which NumPy lacks, follows the float rules with bfloat16's own
/// precision.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TOOLS_NUMPYPRINTER_H
#define NNIR_TOOLS_NUMPYPRINTER_H

#include "nnir/Runtime/NDArray.h"

#include "llvm/Support/raw_ostream.h"

namespace nnir {

/// Prints \p array as NumPy's str() does (see the file comment).
void printArrayLikeNumPy(const NDArray &array, llvm::raw_ostream &os);

} // namespace nnir

#endif // NNIR_TOOLS_NUMPYPRINTER_H
