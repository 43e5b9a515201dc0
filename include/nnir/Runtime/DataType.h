//===- DataType.h - Element types of tensors ---------------------*- C++ -*-===//
//
/// \file
/// DataType mirrors TVM's DLDataType: a type code, a bit width and a lane
/// count. nnir supports the scalar (one-lane) types of DataTypes.def: bool,
/// int8/16/32/64, uint8/16/32/64, float16, bfloat16, float32 and float64.
/// bool is uint1, as in TVM, and is stored one byte per element.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_RUNTIME_DATATYPE_H
#define NNIR_RUNTIME_DATATYPE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
struct fltSemantics;
} // namespace llvm

namespace nnir {

struct DataTypeInfo;

class DataType {
public:
  /// Type codes, numbered as DLPack/TVM number them (they are stored in TVM's
  /// NDArray binary format).
  enum Code : uint8_t { Int = 0, UInt = 1, Float = 2, Handle = 3, BFloat = 4 };

  constexpr DataType() : code(Int), bits(0), lanes(0) {}
  constexpr DataType(Code code, uint8_t bits, uint16_t lanes = 1)
      : code(code), bits(bits), lanes(lanes) {}

  /// One factory per row of DataTypes.def: boolean(), int8(), ..., uint8(),
  /// ..., float16(), bfloat16(), float32(), float64().
#define NNIR_DTYPE(Factory, Name, Code, Bits, ...)                             \
  static constexpr DataType Factory() { return DataType(Code, Bits); }
#include "nnir/Runtime/DataTypes.def"

  /// Parses a dtype name as TVM writes it ("float32", "bool", "int"/"float"
  /// meaning the 32-bit types). Returns std::nullopt for anything that is not
  /// one of the supported scalar types (including vector types like int8x4).
  static std::optional<DataType> parse(llvm::StringRef name);

  /// The list of supported dtype names, for diagnostics.
  static llvm::StringRef supportedNames();

  /// The rows of DataTypes.def, in its order.
  static llvm::ArrayRef<DataTypeInfo> getAll();

  /// This dtype's row of DataTypes.def, or null for a dtype nnir does not
  /// support (a vector, a handle, an unlisted width).
  const DataTypeInfo *getInfo() const;
  bool isSupported() const { return getInfo() != nullptr; }

  /// The suffix of a scalar literal of this dtype in the text format
  /// ("i64", "i32", "f16"), or "" if it has no suffixed literal.
  llvm::StringRef getLiteralSuffix() const;
  /// The suffix the printer writes after such a literal: the default types
  /// are shorter ("" for int32, "f" for float32).
  llvm::StringRef getPrintedLiteralSuffix() const;
  /// The dtype whose literal suffix or printed suffix is \p suffix (not
  /// empty), or std::nullopt.
  static std::optional<DataType> fromLiteralSuffix(llvm::StringRef suffix);

  Code getCode() const { return code; }
  unsigned getBits() const { return bits; }
  unsigned getLanes() const { return lanes; }

  /// "void" (TVM's unset DataType, printed as "") is the default-constructed
  /// value.
  bool isVoid() const { return bits == 0 && lanes == 0; }
  bool isBool() const { return code == UInt && bits == 1; }
  bool isInt() const { return code == Int; }
  bool isUInt() const { return code == UInt && bits != 1; }
  bool isFloat() const { return code == Float; }
  bool isBFloat() const { return code == BFloat; }
  /// Any floating-point type, including bfloat16.
  bool isFloatingPoint() const { return code == Float || code == BFloat; }
  /// Int or UInt (not bool).
  bool isInteger() const { return code == Int || isUInt(); }

  /// The IEEE format of a floating-point type (APFloat::IEEEhalf(),
  /// BFloat(), IEEEsingle(), IEEEdouble()), or null for any other type.
  const llvm::fltSemantics *getFloatSemantics() const;

  /// Bytes one element occupies in memory (bool: 1).
  unsigned getStorageBytes() const { return (bits + 7) / 8; }

  /// The canonical name ("float32", "bool"; "" for void).
  std::string str() const;

  bool operator==(DataType o) const {
    return code == o.code && bits == o.bits && lanes == o.lanes;
  }
  bool operator!=(DataType o) const { return !(*this == o); }

  friend llvm::hash_code hash_value(DataType t) {
    return llvm::hash_combine(t.code, t.bits, t.lanes);
  }

private:
  Code code;
  uint8_t bits;
  uint16_t lanes;
};

llvm::raw_ostream &operator<<(llvm::raw_ostream &os, DataType t);

/// The facts of one row of DataTypes.def that need no library above Runtime
/// (the ONNX and LLVM columns are read by lib/ONNX and lib/Codegen).
struct DataTypeInfo {
  DataType type;
  llvm::StringRef name;
  /// The NumPy descriptor ("<f4", "|b1", "<V2").
  llvm::StringRef npyDescr;
  llvm::StringRef literalSuffix;
  llvm::StringRef printedLiteralSuffix;
  /// The IEEE format of a floating-point type (APFloat::IEEEhalf, ...), or
  /// null. A function, so the table needs no static constructor.
  const llvm::fltSemantics &(*semantics)();
};

} // namespace nnir

#endif // NNIR_RUNTIME_DATATYPE_H
