//===- Numbers.h - Locale-independent number text ---------------*- C++ -*-===//
//
/// \file
/// The one place that turns floating-point values into text and back. Every
/// printer (the text format, attribute values, the metadata JSON, pass
/// options, diagnostics) and every reader goes through these functions, which
/// use std::to_chars/std::from_chars and llvm::APFloat: no locale, no
/// snprintf/strtod loops.
///
/// Formats are named by their llvm::fltSemantics: APFloat::IEEEhalf()
/// (float16), BFloat() (bfloat16), IEEEsingle() (float32) and IEEEdouble()
/// (float64); a value is its raw bit pattern in that format.
///
/// Text forms, the same for every format:
///   - finite values: the fewest significant digits that read back to the
///     same bits, written as C's `%g` would with at least 6 digits when that
///     needs no exponent (`0.1`, `120`, `100000`, `1e-05`, `1e+06`, `-0`);
///   - `inf`, `-inf`;
///   - NaN: `nan` is the default quiet NaN (only the quiet bit set), `-nan`
///     the same with the sign bit, and any other significand is spelled as
///     WebAssembly's text format does: `nan:0x1`, `-nan:0x400001` (the hex
///     number is the significand field, quiet bit included).
/// Reading rounds decimal text to the nearest representable value, ties to
/// even (IEEE round-to-nearest), and fails with Overflow only when the value
/// rounds past the largest finite value of the format.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_SUPPORT_NUMBERS_H
#define NNIR_SUPPORT_NUMBERS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
struct fltSemantics;
} // namespace llvm

namespace nnir {

/// Formats the value with bit pattern \p bits in format \p sem (see the file
/// comment). \p suffix goes right after the number, before a NaN payload:
/// `1.5f16`, `nanf:0x1`.
std::string formatFloatBits(const llvm::fltSemantics &sem, uint64_t bits,
                            llvm::StringRef suffix = "");
/// formatFloatBits for a float64 / float32 value.
std::string formatDouble(double value);
std::string formatFloat(float value);

enum class FloatParseStatus { Ok, Invalid, Overflow };

/// Reads \p text: an optional `-`, then decimal digits with an optional
/// fraction and exponent (`1`, `.5`, `1.`, `1e-05`, `2E+3`), or `inf`, `nan`,
/// `nan:0xHEX`. Sets \p bits to the value in format \p sem. Invalid for any
/// other text (including a NaN payload that is zero or does not fit the
/// significand); Overflow when the value rounds past the largest finite one.
FloatParseStatus parseFloatBits(llvm::StringRef text,
                                const llvm::fltSemantics &sem, uint64_t &bits);

/// The value of \p bits in \p sem as a double, exactly. A NaN keeps its sign
/// and payload: the significand moves to the top of the double's significand
/// (as hardware conversions do), without being quieted.
double widenToDouble(const llvm::fltSemantics &sem, uint64_t bits);
/// The inverse of widenToDouble: the bits of \p value in \p sem when it is
/// exactly representable there (a NaN when its payload fits), else nullopt.
std::optional<uint64_t> narrowFromDouble(double value,
                                         const llvm::fltSemantics &sem);

uint64_t getDoubleBits(double value);
double getDoubleFromBits(uint64_t bits);

} // namespace nnir

#endif // NNIR_SUPPORT_NUMBERS_H
