//===- AttrValue.h - Untyped attribute values --------------------*- C++ -*-===//
//
/// \file
/// AttrValue is the untyped form of an attribute value as the text format
/// writes it: None, an integer or float literal (with its dtype suffix), a
/// bool, a string, a list of values, an expression (TVM puts constants in
/// a few attribute records), or an object of TVM's that has no literal (a
/// VirtualDevice or Target read from the metadata section, MetaObject in
/// Metadata.h). The parser produces AttrValues for keyword arguments; typed
/// attribute records (Attrs.h) convert from and to them.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_ATTRVALUE_H
#define NNIR_IR_ATTRVALUE_H

#include "nnir/IR/Object.h"
#include "nnir/Runtime/DataType.h"
#include "nnir/Support/Numbers.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace nnir {

class Expr;
class MetaObject;

class AttrValue {
public:
  enum class Kind : uint8_t {
    None,
    Int,
    Float,
    Bool,
    String,
    Array,
    Expr,
    Object
  };

  AttrValue() = default;

  static AttrValue none(llvm::SMLoc loc = {});
  /// An integer literal; \p dtype is the literal's suffix type (int32 when
  /// written without one).
  static AttrValue integer(int64_t value, DataType dtype = DataType::int32(),
                           llvm::SMLoc loc = {});
  static AttrValue floating(double value, DataType dtype = DataType::float32(),
                            llvm::SMLoc loc = {});
  static AttrValue boolean(bool value, llvm::SMLoc loc = {});
  static AttrValue string(llvm::StringRef value, llvm::SMLoc loc = {});
  static AttrValue array(std::vector<AttrValue> elements,
                         llvm::SMLoc loc = {});
  static AttrValue expr(Ref<Expr> value, llvm::SMLoc loc = {});
  /// A TVM object without a literal; it prints as `meta[<type key>][i]`.
  static AttrValue object(Ref<MetaObject> value, llvm::SMLoc loc = {});

  Kind getKind() const { return kind; }
  bool isNone() const { return kind == Kind::None; }
  llvm::SMLoc getLoc() const { return loc; }
  void setLoc(llvm::SMLoc newLoc) { loc = newLoc; }

  int64_t getInt() const { return intValue; }
  double getFloat() const { return floatValue; }
  bool getBool() const { return intValue != 0; }
  /// The dtype of an Int or Float literal.
  DataType getDType() const { return dtype; }
  const std::string &getString() const { return stringValue; }
  const std::vector<AttrValue> &getArray() const { return arrayValue; }
  Expr *getExpr() const;
  MetaObject *getObject() const;

  /// A short description of the kind for diagnostics ("a string", "a list").
  llvm::StringRef describe() const;

  /// Prints the value in the text format. Expr values print as `<expr>` and
  /// objects as `<VirtualDevice>`; the IR printer handles both itself. A
  /// float prints as a literal the parser reads back to the same float64:
  /// the fewest digits, with the suffix of its dtype when that type holds
  /// the value (its range, a NaN's significand), else `f64` (`1e+300f64` in
  /// a float32-typed field).
  void print(llvm::raw_ostream &os) const;

  /// Structural equality (locations ignored; expressions compared by
  /// identity, constants and objects by value).
  bool operator==(const AttrValue &other) const;
  bool operator!=(const AttrValue &other) const { return !(*this == other); }
  friend llvm::hash_code hash_value(const AttrValue &value);

private:
  Kind kind = Kind::None;
  DataType dtype;
  llvm::SMLoc loc;
  int64_t intValue = 0;
  double floatValue = 0;
  std::string stringValue;
  std::vector<AttrValue> arrayValue;
  Ref<Object> exprValue;
};

llvm::hash_code hash_value(const AttrValue &value);

/// A keyword argument `name=value`, with the location of the name.
struct NamedAttrValue {
  std::string name;
  AttrValue value;
  llvm::SMLoc loc;
};

/// Prints \p s as a quoted string literal with TVM's escapes.
void printQuotedString(llvm::raw_ostream &os, llvm::StringRef s);

} // namespace nnir

#endif // NNIR_IR_ATTRVALUE_H
