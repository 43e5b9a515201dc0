//===- OptionValue.h - Typed values of configs and pass options -*- C++ -*-===//
//
/// \file
/// PassContext config entries (`--pass-config=key=value`) and pass options
/// (`FoldConstant{fold_qnn=true}` in pipeline text) are typed: bool, int,
/// float, string or list of strings. OptionValue holds one such value;
/// OptionType names the type, and parseOptionValue() reads the text form with
/// an error that names the expected type.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PASS_OPTIONVALUE_H
#define NNIR_PASS_OPTIONVALUE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace nnir {

enum class OptionType { Bool, Int, Float, String, StringList };

/// "bool", "int", "float", "string", "list".
llvm::StringRef getOptionTypeName(OptionType type);

class OptionValue {
public:
  OptionValue() : value(false) {}
  OptionValue(bool v) : value(v) {}
  OptionValue(int64_t v) : value(v) {}
  OptionValue(int v) : value(int64_t(v)) {}
  OptionValue(double v) : value(v) {}
  OptionValue(std::string v) : value(std::move(v)) {}
  OptionValue(const char *v) : value(std::string(v)) {}
  OptionValue(std::vector<std::string> v) : value(std::move(v)) {}

  OptionType getType() const { return static_cast<OptionType>(value.index()); }

  bool getBool() const { return std::get<bool>(value); }
  int64_t getInt() const { return std::get<int64_t>(value); }
  /// A Float, or an Int converted.
  double getFloat() const;
  const std::string &getString() const { return std::get<std::string>(value); }
  const std::vector<std::string> &getList() const {
    return std::get<std::vector<std::string>>(value);
  }

  /// The text form (`true`, `3`, `0.5`, `abc`, `[a,b]`), which
  /// parseOptionValue reads back.
  void print(llvm::raw_ostream &os) const;
  std::string str() const;

  bool operator==(const OptionValue &o) const { return value == o.value; }
  bool operator!=(const OptionValue &o) const { return !(*this == o); }

private:
  std::variant<bool, int64_t, double, std::string, std::vector<std::string>>
      value;
};

/// Reads \p text as a value of \p type: bool (`true`/`false`/`1`/`0`), int,
/// float, string, list (`a,b,c`, optionally in `[...]`); surrounding white
/// space is dropped from every value and list item. The error says which
/// type was expected ("expected an int, got 'abc'").
llvm::Expected<OptionValue> parseOptionValue(llvm::StringRef text,
                                             OptionType type);

} // namespace nnir

#endif // NNIR_PASS_OPTIONVALUE_H
