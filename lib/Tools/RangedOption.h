//===- RangedOption.h - Numeric options with a range ------------*- C++ -*-===//
//
/// \file
/// Every numeric option of nnir-opt and nnir-run accepts an IntegerRange:
///
///   RangedOpt<unsigned> optLevel{"opt-level", cl::desc("..."),
///                                valueRange(0u, 3u)};
///
/// The range is added to the option's --help description ("(0 to 3)") and
/// checked when the command line is parsed: a value outside it, or no
/// integer, is refused the way llvm::cl refuses a bad value, with the range
/// (`nnir-opt: for the --opt-level option: expected an integer from 0 to 3,
/// got '7'`, exit code 1). RangedOpt is a cl::opt with RangedParser<T>, for
/// T one of int, unsigned, long long, unsigned long long (cl's parsers of
/// long and unsigned long are final).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_TOOLS_RANGEDOPTION_H
#define NNIR_LIB_TOOLS_RANGEDOPTION_H

#include "nnir/Support/IntegerRange.h"

#include "llvm/Support/CommandLine.h"

#include <string>

namespace nnir {

/// cl's parser of T, reading through an IntegerRange. An option that takes
/// its value optionally (cl::ValueOptional) reads as 0 when given none.
template <typename T> class RangedParser : public llvm::cl::parser<T> {
public:
  explicit RangedParser(llvm::cl::Option &option)
      : llvm::cl::parser<T>(option) {}

  /// Sets the range, and appends it to \p option's description (which must
  /// be set already: valueRange() comes after cl::desc).
  void setRange(IntegerRange<T> newRange, llvm::cl::Option &option) {
    range = newRange;
    description = (option.HelpStr + " (" + range.str() + ")").str();
    option.setDescription(description);
  }

  // Returns true on error, as cl's parsers do.
  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef arg,
             T &value) {
    if (arg.empty() &&
        option.getValueExpectedFlag() == llvm::cl::ValueOptional) {
      value = T();
      return false;
    }
    llvm::Expected<T> parsed = range.parse(arg);
    if (!parsed)
      return option.error(llvm::toString(parsed.takeError()));
    value = *parsed;
    return false;
  }

private:
  IntegerRange<T> range = IntegerRange<T>::all();
  /// The description with the range; the option refers to it.
  std::string description;
};

/// The modifier that gives a RangedOpt its range (after cl::desc).
template <typename T> struct ValueRange {
  IntegerRange<T> range;
  template <typename Opt> void apply(Opt &option) const {
    option.getParser().setRange(range, option);
  }
};
template <typename T> ValueRange<T> valueRange(T min, T max) {
  return {IntegerRange<T>(min, max)};
}
template <typename T> ValueRange<T> valueRange(IntegerRange<T> range) {
  return {range};
}

template <typename T>
using RangedOpt = llvm::cl::opt<T, /*ExternalStorage=*/false, RangedParser<T>>;

} // namespace nnir

#endif // NNIR_LIB_TOOLS_RANGEDOPTION_H
