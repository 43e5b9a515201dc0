//===- DataType.cpp - Element types of tensors ----------------------------===//
//
/// \file
/// Parsing and printing of dtype names, and the table of DataTypes.def.
//
//===----------------------------------------------------------------------===//

#include "nnir/Runtime/DataType.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

/// The rows of DataTypes.def.
static constexpr DataTypeInfo kDataTypes[] = {
#define NNIR_DTYPE(Factory, Name, Code, Bits, NpyDescr, Suffix, PrintedSuffix,  \
                   ...)                                                        \
  {DataType::Factory(), Name, NpyDescr, Suffix, PrintedSuffix, nullptr},
#define NNIR_FLOAT_DTYPE(Factory, Name, Code, Bits, NpyDescr, Suffix,          \
                         PrintedSuffix, ONNX, LLVMStorage, LLVMCompute,        \
                         BufferFormat, Semantics)                              \
  {DataType::Factory(), Name,          NpyDescr,                               \
   Suffix,              PrintedSuffix, &APFloat::Semantics},
#include "nnir/Runtime/DataTypes.def"
};

ArrayRef<DataTypeInfo> DataType::getAll() { return kDataTypes; }

const DataTypeInfo *DataType::getInfo() const {
  for (const DataTypeInfo &info : kDataTypes)
    if (info.type == *this)
      return &info;
  return nullptr;
}

std::optional<DataType> DataType::parse(StringRef name) {
  // TVM's short names of the 32-bit types.
  if (name == "int")
    return int32();
  if (name == "float")
    return float32();
  for (const DataTypeInfo &info : kDataTypes)
    if (info.name == name)
      return info.type;
  return std::nullopt;
}

const fltSemantics *DataType::getFloatSemantics() const {
  const DataTypeInfo *info = getInfo();
  return info && info->semantics ? &info->semantics() : nullptr;
}

StringRef DataType::supportedNames() {
  static const std::string names = [] {
    std::string result;
    for (const DataTypeInfo &info : kDataTypes)
      result += (result.empty() ? "" : ", ") + info.name.str();
    return result;
  }();
  return names;
}

StringRef DataType::getLiteralSuffix() const {
  const DataTypeInfo *info = getInfo();
  return info ? info->literalSuffix : StringRef();
}

StringRef DataType::getPrintedLiteralSuffix() const {
  const DataTypeInfo *info = getInfo();
  return info ? info->printedLiteralSuffix : StringRef();
}

std::optional<DataType> DataType::fromLiteralSuffix(StringRef suffix) {
  if (suffix.empty())
    return std::nullopt;
  for (const DataTypeInfo &info : kDataTypes)
    if (!info.literalSuffix.empty() && (info.literalSuffix == suffix ||
                                        info.printedLiteralSuffix == suffix))
      return info.type;
  return std::nullopt;
}

std::string DataType::str() const {
  if (isVoid())
    return "";
  // As in TVM, only the one-lane uint1 is "bool"; a vector is "uint1x4".
  if (isBool() && lanes == 1)
    return "bool";
  std::string result;
  switch (code) {
  case Int:
    result = "int";
    break;
  case UInt:
    result = "uint";
    break;
  case Float:
    result = "float";
    break;
  case BFloat:
    result = "bfloat";
    break;
  case Handle:
    result = "handle";
    break;
  }
  result += std::to_string(bits);
  if (lanes != 1)
    result += "x" + std::to_string(lanes);
  return result;
}

raw_ostream &nnir::operator<<(raw_ostream &os, DataType t) {
  return os << t.str();
}
