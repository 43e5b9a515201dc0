//===- DataType.cpp - Element types of tensors ----------------------------===//
//
/// \file
/// Parsing and printing of dtype names.
//
//===----------------------------------------------------------------------===//

#include "nnir/Runtime/DataType.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

std::optional<DataType> DataType::parse(StringRef name) {
  return StringSwitch<std::optional<DataType>>(name)
      .Case("bool", boolean())
      .Case("int8", int8())
      .Case("int16", int16())
      .Cases("int32", "int", int32())
      .Case("int64", int64())
      .Case("uint8", uint8())
      .Case("uint16", uint16())
      .Case("uint32", uint32())
      .Case("uint64", uint64())
      .Case("float16", float16())
      .Case("bfloat16", bfloat16())
      .Cases("float32", "float", float32())
      .Case("float64", float64())
      .Default(std::nullopt);
}

const fltSemantics *DataType::getFloatSemantics() const {
  if (lanes != 1)
    return nullptr;
  if (code == BFloat && bits == 16)
    return &APFloat::BFloat();
  if (code != Float)
    return nullptr;
  switch (bits) {
  case 16:
    return &APFloat::IEEEhalf();
  case 32:
    return &APFloat::IEEEsingle();
  case 64:
    return &APFloat::IEEEdouble();
  default:
    return nullptr;
  }
}

StringRef DataType::supportedNames() {
  return "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
         "float16, bfloat16, float32, float64";
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
