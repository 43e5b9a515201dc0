//===- AttrValue.cpp - Untyped attribute values ---------------------------===//
//
/// \file
/// Construction, printing, equality and hashing of attribute values.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/AttrValue.h"

#include "nnir/IR/Expr.h"
#include "nnir/IR/Metadata.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace llvm;
using namespace nnir;

AttrValue AttrValue::none(SMLoc loc) {
  AttrValue v;
  v.loc = loc;
  return v;
}

AttrValue AttrValue::integer(int64_t value, DataType dtype, SMLoc loc) {
  AttrValue v;
  v.kind = Kind::Int;
  v.intValue = value;
  v.dtype = dtype;
  v.loc = loc;
  return v;
}

AttrValue AttrValue::floating(double value, DataType dtype, SMLoc loc) {
  AttrValue v;
  v.kind = Kind::Float;
  v.floatValue = value;
  v.dtype = dtype;
  v.loc = loc;
  return v;
}

AttrValue AttrValue::boolean(bool value, SMLoc loc) {
  AttrValue v;
  v.kind = Kind::Bool;
  v.intValue = value ? 1 : 0;
  v.dtype = DataType::boolean();
  v.loc = loc;
  return v;
}

AttrValue AttrValue::string(StringRef value, SMLoc loc) {
  AttrValue v;
  v.kind = Kind::String;
  v.stringValue = value.str();
  v.loc = loc;
  return v;
}

AttrValue AttrValue::array(std::vector<AttrValue> elements, SMLoc loc) {
  AttrValue v;
  v.kind = Kind::Array;
  v.arrayValue = std::move(elements);
  v.loc = loc;
  return v;
}

AttrValue AttrValue::expr(Ref<Expr> value, SMLoc loc) {
  AttrValue v;
  v.kind = Kind::Expr;
  v.exprValue = Ref<Object>(value.get());
  v.loc = loc;
  return v;
}

AttrValue AttrValue::object(Ref<MetaObject> value, SMLoc loc) {
  AttrValue v;
  v.kind = Kind::Object;
  v.exprValue = Ref<Object>(value.get());
  v.loc = loc;
  return v;
}

Expr *AttrValue::getExpr() const {
  return kind == Kind::Expr ? static_cast<Expr *>(exprValue.get()) : nullptr;
}

MetaObject *AttrValue::getObject() const {
  return kind == Kind::Object ? static_cast<MetaObject *>(exprValue.get())
                              : nullptr;
}

StringRef AttrValue::describe() const {
  switch (kind) {
  case Kind::None:
    return "None";
  case Kind::Int:
    return "an integer";
  case Kind::Float:
    return "a float";
  case Kind::Bool:
    return "a bool";
  case Kind::String:
    return "a string";
  case Kind::Array:
    return "a list";
  case Kind::Expr:
    return "an expression";
  case Kind::Object:
    return "an object";
  }
  return "a value";
}

void nnir::printQuotedString(raw_ostream &os, StringRef s) {
  os << '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      os << "\\\"";
      break;
    case '\\':
      os << "\\\\";
      break;
    case '\t':
      os << "\\t";
      break;
    case '\r':
      os << "\\r";
      break;
    case '\n':
      os << "\\n";
      break;
    default:
      if (c < 0x20 || c == 0x7f)
        os << "\\x" << format_hex_no_prefix(c, 2);
      else
        os << c;
    }
  }
  os << '"';
}

/// Prints a float attribute as the lexer and parser read it back: the digits
/// of the float64 \p value under the suffix of \p dtype, which bounds the
/// range (and, for a NaN, gives the significand's width); `f64` when
/// \p dtype cannot hold the value.
static void printFloatAttr(raw_ostream &os, double value, DataType dtype) {
  // A float type without literals of its own (bfloat16) prints as float32.
  if (!dtype.isFloatingPoint() || dtype.getLiteralSuffix().empty())
    dtype = DataType::float32();
  StringRef suffix = dtype.getPrintedLiteralSuffix();
  const fltSemantics &sem = *dtype.getFloatSemantics();
  if (std::isnan(value)) {
    if (std::optional<uint64_t> bits = narrowFromDouble(value, sem)) {
      os << formatFloatBits(sem, *bits, suffix);
      return;
    }
  } else {
    // TVM's reader refuses a finite value above the type's largest one even
    // when it would round to it, so such a value gets `f64` too.
    double largest = widenToDouble(
        sem, APFloat::getLargest(sem).bitcastToAPInt().getZExtValue());
    if (std::isinf(value) || std::fabs(value) <= largest) {
      os << formatDouble(value) << suffix;
      return;
    }
  }
  os << formatFloatBits(APFloat::IEEEdouble(), getDoubleBits(value), "f64");
}

void AttrValue::print(raw_ostream &os) const {
  switch (kind) {
  case Kind::None:
    os << "None";
    return;
  case Kind::Int:
    os << intValue;
    if (dtype.isInt())
      os << dtype.getPrintedLiteralSuffix();
    return;
  case Kind::Float:
    printFloatAttr(os, floatValue, dtype);
    return;
  case Kind::Bool:
    os << (intValue ? "True" : "False");
    return;
  case Kind::String:
    printQuotedString(os, stringValue);
    return;
  case Kind::Array:
    os << '[';
    for (size_t i = 0, e = arrayValue.size(); i != e; ++i) {
      if (i)
        os << ", ";
      arrayValue[i].print(os);
    }
    os << ']';
    return;
  case Kind::Expr:
    os << "<expr>";
    return;
  case Kind::Object:
    os << '<' << getObject()->getTypeKey() << '>';
    return;
  }
}

bool AttrValue::operator==(const AttrValue &other) const {
  if (kind != other.kind)
    return false;
  switch (kind) {
  case Kind::None:
    return true;
  case Kind::Int:
  case Kind::Bool:
    return intValue == other.intValue;
  case Kind::Float:
    return std::memcmp(&floatValue, &other.floatValue, sizeof(double)) == 0;
  case Kind::String:
    return stringValue == other.stringValue;
  case Kind::Array:
    return arrayValue == other.arrayValue;
  case Kind::Expr: {
    if (exprValue == other.exprValue)
      return true;
    auto *a = dyn_cast_or_null<Constant>(getExpr());
    auto *b = dyn_cast_or_null<Constant>(other.getExpr());
    return a && b && a->getData().bitwiseEqual(b->getData());
  }
  case Kind::Object:
    return MetaObject::isEqual(getObject(), other.getObject());
  }
  return false;
}

hash_code nnir::hash_value(const AttrValue &value) {
  switch (value.kind) {
  case AttrValue::Kind::None:
    return llvm::hash_value(0);
  case AttrValue::Kind::Int:
  case AttrValue::Kind::Bool:
    return hash_combine(1, value.intValue);
  case AttrValue::Kind::Float: {
    uint64_t bits;
    std::memcpy(&bits, &value.floatValue, sizeof(bits));
    return hash_combine(2, bits);
  }
  case AttrValue::Kind::String:
    return hash_combine(3, value.stringValue);
  case AttrValue::Kind::Array: {
    hash_code h = hash_combine(4, value.arrayValue.size());
    for (const AttrValue &e : value.arrayValue)
      h = hash_combine(h, hash_value(e));
    return h;
  }
  case AttrValue::Kind::Expr:
    if (auto *c = dyn_cast_or_null<Constant>(value.getExpr()))
      return hash_combine(5, c->getData().hash());
    return hash_combine(6, value.exprValue.get());
  case AttrValue::Kind::Object:
    return hash_combine(7, hash_value(*value.getObject()));
  }
  return llvm::hash_value(0);
}
