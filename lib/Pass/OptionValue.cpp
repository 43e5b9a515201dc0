//===- OptionValue.cpp - Typed values of configs and pass options ---------===//
//
/// \file
/// Printing and parsing of typed option values.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/OptionValue.h"

#include "nnir/IR/AttrValue.h"
#include "nnir/Support/Numbers.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

StringRef nnir::getOptionTypeName(OptionType type) {
  switch (type) {
  case OptionType::Bool:
    return "bool";
  case OptionType::Int:
    return "int";
  case OptionType::Float:
    return "float";
  case OptionType::String:
    return "string";
  case OptionType::StringList:
    return "list";
  }
  return "value";
}

/// "a bool", "an int", ... for messages.
static std::string withArticle(OptionType type) {
  StringRef name = getOptionTypeName(type);
  return (type == OptionType::Int ? "an " : "a ") + name.str();
}

double OptionValue::getFloat() const {
  if (getType() == OptionType::Int)
    return static_cast<double>(getInt());
  return std::get<double>(value);
}

void OptionValue::print(raw_ostream &os) const {
  switch (getType()) {
  case OptionType::Bool:
    os << (getBool() ? "true" : "false");
    return;
  case OptionType::Int:
    os << getInt();
    return;
  case OptionType::Float:
    os << formatDouble(getFloat());
    return;
  case OptionType::String:
    os << getString();
    return;
  case OptionType::StringList:
    os << '[' << join(getList(), ",") << ']';
    return;
  }
}

std::string OptionValue::str() const {
  std::string text;
  raw_string_ostream os(text);
  print(os);
  return text;
}

Expected<OptionValue> nnir::parseOptionValue(StringRef text, OptionType type) {
  StringRef trimmed = text.trim();
  auto mismatch = [&]() {
    return createStringError(inconvertibleErrorCode(),
                             "expected " + withArticle(type) + ", got '" +
                                 text + "'");
  };
  switch (type) {
  case OptionType::Bool: {
    std::string lower = trimmed.lower();
    if (lower == "true" || lower == "1")
      return OptionValue(true);
    if (lower == "false" || lower == "0")
      return OptionValue(false);
    return mismatch();
  }
  case OptionType::Int: {
    int64_t value;
    if (trimmed.getAsInteger(0, value))
      return mismatch();
    return OptionValue(value);
  }
  case OptionType::Float: {
    // What print() writes (nnir/Support/Numbers.h): decimals, inf, nan.
    uint64_t bits;
    if (parseFloatBits(trimmed, APFloat::IEEEdouble(), bits) !=
        FloatParseStatus::Ok)
      return mismatch();
    return OptionValue(getDoubleFromBits(bits));
  }
  case OptionType::String:
    return OptionValue(trimmed.str());
  case OptionType::StringList: {
    StringRef body = trimmed;
    if (body.consume_front("[")) {
      if (!body.consume_back("]"))
        return mismatch();
    } else if (body.ends_with("]")) {
      return mismatch();
    }
    std::vector<std::string> items;
    body = body.trim();
    if (body.empty())
      return OptionValue(std::move(items));
    SmallVector<StringRef, 8> parts;
    body.split(parts, ',');
    for (StringRef part : parts) {
      part = part.trim();
      if (part.empty())
        return mismatch();
      items.push_back(part.str());
    }
    return OptionValue(std::move(items));
  }
  }
  return mismatch();
}
