//===- Type.h - Types of the graph IR ----------------------------*- C++ -*-===//
//
/// \file
/// The types of Relay: TensorType (int64 shape, whose extents may be dynamic
/// (kAnyDim, Relay's `Any`, printed `?`), and a dtype), TupleType,
/// FuncType, and IncompleteType (written `_`: a placeholder that type
/// inference fills in). Types are immutable and compared structurally.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_TYPE_H
#define NNIR_IR_TYPE_H

#include "nnir/IR/Object.h"
#include "nnir/Runtime/DataType.h"
#include "nnir/Runtime/Shape.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace nnir {

class Type : public Object {
public:
  enum class Kind : uint8_t { Tensor, Tuple, Func, Incomplete };

  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

  /// Prints the type in the text format (`Tensor[(1, 3), float32]`).
  void print(llvm::raw_ostream &os) const;
  std::string str() const;

protected:
  Type(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}

private:
  Kind kind;
  llvm::SMLoc loc;
};

class TensorType final : public Type {
public:
  /// Builds a tensor type. \p shape must be valid (see verifyShape) and
  /// \p dtype supported; use create() for unchecked input. Types without a
  /// location are interned (one object per distinct shape and dtype, for
  /// the life of the process); a type with a location (an annotation in the
  /// source) is its own object, so diagnostics can point at it.
  static Ref<TensorType> get(llvm::ArrayRef<int64_t> shape, DataType dtype,
                             llvm::SMLoc loc = {});
  /// A 0-d tensor type.
  static Ref<TensorType> getScalar(DataType dtype, llvm::SMLoc loc = {}) {
    return get({}, dtype, loc);
  }
  /// Checks the shape (non-negative or dynamic extents, static element count
  /// within int64) and the dtype, and reports problems at \p loc.
  static llvm::Expected<Ref<TensorType>>
  create(llvm::ArrayRef<int64_t> shape, DataType dtype, llvm::SMLoc loc = {});

  /// The error for an invalid shape, or success.
  static llvm::Error verifyShape(llvm::ArrayRef<int64_t> shape,
                                 llvm::SMLoc loc = {});

  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  unsigned getRank() const { return shape.size(); }
  DataType getDType() const { return dtype; }
  /// True if some extent is dynamic (`?`).
  bool isDynamic() const { return !isStaticShape(shape); }
  /// Element count of a static type (fits int64 for a valid type); -1 for a
  /// dynamic one (check isDynamic() before sizing anything).
  int64_t getNumElements() const;

  static bool classof(const Type *t) { return t->getKind() == Kind::Tensor; }

private:
  TensorType(llvm::ArrayRef<int64_t> shape, DataType dtype, llvm::SMLoc loc)
      : Type(Kind::Tensor, loc), shape(shape.begin(), shape.end()),
        dtype(dtype) {}
  Shape shape;
  DataType dtype;
};

class TupleType final : public Type {
public:
  static Ref<TupleType> get(llvm::ArrayRef<Ref<Type>> fields,
                            llvm::SMLoc loc = {});

  llvm::ArrayRef<Ref<Type>> getFields() const { return fields; }
  size_t size() const { return fields.size(); }
  const Type *getField(size_t i) const { return fields[i].get(); }

  static bool classof(const Type *t) { return t->getKind() == Kind::Tuple; }

private:
  TupleType(llvm::ArrayRef<Ref<Type>> fields, llvm::SMLoc loc)
      : Type(Kind::Tuple, loc), fields(fields.begin(), fields.end()) {}
  llvm::SmallVector<Ref<Type>, 2> fields;
};

class FuncType final : public Type {
public:
  static Ref<FuncType> get(llvm::ArrayRef<Ref<Type>> params, Ref<Type> result,
                           llvm::SMLoc loc = {});

  llvm::ArrayRef<Ref<Type>> getParams() const { return params; }
  const Type *getResult() const { return result.get(); }
  const Ref<Type> &getResultRef() const { return result; }

  static bool classof(const Type *t) { return t->getKind() == Kind::Func; }

private:
  FuncType(llvm::ArrayRef<Ref<Type>> params, Ref<Type> result, llvm::SMLoc loc)
      : Type(Kind::Func, loc), params(params.begin(), params.end()),
        result(std::move(result)) {}
  llvm::SmallVector<Ref<Type>, 2> params;
  Ref<Type> result;
};

/// `_`: a type still to be inferred.
class IncompleteType final : public Type {
public:
  static Ref<IncompleteType> get(llvm::SMLoc loc = {});

  static bool classof(const Type *t) {
    return t->getKind() == Kind::Incomplete;
  }

private:
  explicit IncompleteType(llvm::SMLoc loc) : Type(Kind::Incomplete, loc) {}
};

llvm::raw_ostream &operator<<(llvm::raw_ostream &os, const Type &type);

/// True if the two types are structurally equal (shapes, dtypes, fields);
/// a dynamic extent equals only a dynamic extent (`?` == `?`, as TVM's
/// structural equality of two `Any`).
bool typesEqual(const Type *a, const Type *b);
/// True if the two types agree where both are known: as typesEqual, but a
/// dynamic extent matches any extent (what TVM's unifier accepts when it
/// unifies `Any` with a dimension). Ranks and dtypes must still agree.
bool typesCompatible(const Type *a, const Type *b);
/// True if \p type is or contains a tensor type with a dynamic extent.
bool hasDynamicShape(const Type *type);
/// A hash consistent with typesEqual.
llvm::hash_code hashType(const Type *type);

} // namespace nnir

#endif // NNIR_IR_TYPE_H
