//===- Type.cpp - Types of the graph IR -----------------------------------===//
//
/// \file
/// Construction, printing, equality and hashing of types.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Type.h"

#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace llvm;
using namespace nnir;

namespace {
/// The process's table of interned tensor types (those without a location):
/// one object per distinct (shape, dtype), as MLIR's context uniques types.
/// Interned types live until the process ends. The table is bounded, so a
/// program that makes ever new shapes does not grow it without limit; past
/// the bound, types are allocated as they were before interning (equality
/// is structural either way, so nothing can tell the difference).
class TensorTypeTable {
public:
  static constexpr size_t kMaxEntries = 1 << 16;

  Ref<TensorType> lookup(ArrayRef<int64_t> shape, DataType dtype,
                         function_ref<TensorType *()> create) {
    Key key{shape, dtype};
    std::lock_guard<std::mutex> lock(mutex);
    auto it = types.find_as(key);
    if (it != types.end())
      return *it;
    TensorType *type = create();
    if (types.size() < kMaxEntries) {
      // The table's reference keeps the type alive (never released: the
      // table itself is never destroyed, so exit does not walk it).
      type->Retain();
      types.insert(type);
    }
    return Ref<TensorType>(type);
  }

private:
  struct Key {
    ArrayRef<int64_t> shape;
    DataType dtype;
  };
  struct Info : DenseMapInfo<TensorType *> {
    static unsigned getHashValue(const Key &key) {
      return hash_combine(
          key.dtype.getCode(), key.dtype.getBits(), key.dtype.getLanes(),
          hash_combine_range(key.shape.begin(), key.shape.end()));
    }
    static unsigned getHashValue(const TensorType *type) {
      return getHashValue(Key{type->getShape(), type->getDType()});
    }
    static bool isEqual(const Key &key, const TensorType *type) {
      if (type == getEmptyKey() || type == getTombstoneKey())
        return false;
      return key.dtype == type->getDType() && key.shape == type->getShape();
    }
    static bool isEqual(const TensorType *a, const TensorType *b) {
      return a == b;
    }
  };

  std::mutex mutex;
  DenseSet<TensorType *, Info> types;
};
} // namespace

Ref<TensorType> TensorType::get(ArrayRef<int64_t> shape, DataType dtype,
                                SMLoc loc) {
  auto create = [&] { return new TensorType(shape, dtype, loc); };
  // A type written in the source keeps its own location (diagnostics point
  // at it); the others are interned.
  if (loc.isValid())
    return Ref<TensorType>(create());
  // Deliberately leaked: types handed out must outlive every static that
  // holds IR (the operator registry's default records).
  static TensorTypeTable *table = new TensorTypeTable();
  return table->lookup(shape, dtype, create);
}

Error TensorType::verifyShape(ArrayRef<int64_t> shape, SMLoc loc) {
  Shape known;
  for (int64_t dim : shape) {
    if (isAnyDim(dim))
      continue;
    if (dim < 0)
      return makeError(loc,
                       "negative dimension " + Twine(dim) + " in tensor shape");
    known.push_back(dim);
  }
  if (!nnir::getNumElements(known))
    return makeError(loc, "tensor shape has more than 2^63-1 elements");
  return Error::success();
}

Expected<Ref<TensorType>> TensorType::create(ArrayRef<int64_t> shape,
                                             DataType dtype, SMLoc loc) {
  if (Error err = verifyShape(shape, loc))
    return err;
  if (!DataType::parse(dtype.str()))
    return makeError(loc, "unsupported dtype '" + dtype.str() + "'");
  return get(shape, dtype, loc);
}

int64_t TensorType::getNumElements() const {
  if (isDynamic())
    return -1;
  return nnir::getNumElements(shape).value_or(0);
}

Ref<TupleType> TupleType::get(ArrayRef<Ref<Type>> fields, SMLoc loc) {
  return Ref<TupleType>(new TupleType(fields, loc));
}

Ref<FuncType> FuncType::get(ArrayRef<Ref<Type>> params, Ref<Type> result,
                            SMLoc loc) {
  return Ref<FuncType>(new FuncType(params, std::move(result), loc));
}

Ref<IncompleteType> IncompleteType::get(SMLoc loc) {
  return Ref<IncompleteType>(new IncompleteType(loc));
}

void Type::print(raw_ostream &os) const {
  switch (getKind()) {
  case Kind::Tensor: {
    const auto *t = cast<TensorType>(this);
    if (t->getRank() == 0) {
      os << t->getDType();
      return;
    }
    os << "Tensor[";
    printShape(os, t->getShape());
    os << ", " << t->getDType() << "]";
    return;
  }
  case Kind::Tuple: {
    const auto *t = cast<TupleType>(this);
    os << '(';
    for (size_t i = 0, e = t->size(); i != e; ++i) {
      if (i)
        os << ", ";
      t->getField(i)->print(os);
    }
    if (t->size() == 1)
      os << ',';
    os << ')';
    return;
  }
  case Kind::Func: {
    const auto *t = cast<FuncType>(this);
    os << "fn (";
    for (size_t i = 0, e = t->getParams().size(); i != e; ++i) {
      if (i)
        os << ", ";
      t->getParams()[i]->print(os);
    }
    os << ") -> ";
    t->getResult()->print(os);
    return;
  }
  case Kind::Incomplete:
    os << '_';
    return;
  }
}

std::string Type::str() const {
  std::string s;
  raw_string_ostream os(s);
  print(os);
  return s;
}

raw_ostream &nnir::operator<<(raw_ostream &os, const Type &type) {
  type.print(os);
  return os;
}

/// typesEqual, or typesCompatible when \p anyMatches (a `?` extent matches
/// any extent).
static bool typesMatch(const Type *a, const Type *b, bool anyMatches) {
  if (a == b)
    return true;
  if (!a || !b || a->getKind() != b->getKind())
    return false;
  switch (a->getKind()) {
  case Type::Kind::Tensor: {
    const auto *ta = cast<TensorType>(a), *tb = cast<TensorType>(b);
    if (ta->getDType() != tb->getDType() || ta->getRank() != tb->getRank())
      return false;
    for (unsigned i = 0, e = ta->getRank(); i != e; ++i) {
      int64_t x = ta->getShape()[i], y = tb->getShape()[i];
      if (x != y && !(anyMatches && (isAnyDim(x) || isAnyDim(y))))
        return false;
    }
    return true;
  }
  case Type::Kind::Tuple: {
    const auto *ta = cast<TupleType>(a), *tb = cast<TupleType>(b);
    if (ta->size() != tb->size())
      return false;
    for (size_t i = 0, e = ta->size(); i != e; ++i)
      if (!typesMatch(ta->getField(i), tb->getField(i), anyMatches))
        return false;
    return true;
  }
  case Type::Kind::Func: {
    const auto *ta = cast<FuncType>(a), *tb = cast<FuncType>(b);
    if (ta->getParams().size() != tb->getParams().size())
      return false;
    for (size_t i = 0, e = ta->getParams().size(); i != e; ++i)
      if (!typesMatch(ta->getParams()[i].get(), tb->getParams()[i].get(),
                      anyMatches))
        return false;
    return typesMatch(ta->getResult(), tb->getResult(), anyMatches);
  }
  case Type::Kind::Incomplete:
    return true;
  }
  return false;
}

bool nnir::typesEqual(const Type *a, const Type *b) {
  return typesMatch(a, b, /*anyMatches=*/false);
}

bool nnir::typesCompatible(const Type *a, const Type *b) {
  return typesMatch(a, b, /*anyMatches=*/true);
}

bool nnir::hasDynamicShape(const Type *type) {
  if (!type)
    return false;
  switch (type->getKind()) {
  case Type::Kind::Tensor:
    return cast<TensorType>(type)->isDynamic();
  case Type::Kind::Tuple:
    return llvm::any_of(cast<TupleType>(type)->getFields(),
                        [](const Ref<Type> &field) {
                          return hasDynamicShape(field.get());
                        });
  case Type::Kind::Func: {
    const auto *f = cast<FuncType>(type);
    return hasDynamicShape(f->getResult()) ||
           llvm::any_of(f->getParams(), [](const Ref<Type> &p) {
             return hasDynamicShape(p.get());
           });
  }
  case Type::Kind::Incomplete:
    return false;
  }
  return false;
}

hash_code nnir::hashType(const Type *type) {
  if (!type)
    return llvm::hash_value(0);
  switch (type->getKind()) {
  case Type::Kind::Tensor: {
    const auto *t = cast<TensorType>(type);
    return hash_combine(
        1, t->getDType(),
        hash_combine_range(t->getShape().begin(), t->getShape().end()));
  }
  case Type::Kind::Tuple: {
    const auto *t = cast<TupleType>(type);
    hash_code h = hash_combine(2, t->size());
    for (const Ref<Type> &f : t->getFields())
      h = hash_combine(h, hashType(f.get()));
    return h;
  }
  case Type::Kind::Func: {
    const auto *t = cast<FuncType>(type);
    hash_code h = hash_combine(3, t->getParams().size());
    for (const Ref<Type> &p : t->getParams())
      h = hash_combine(h, hashType(p.get()));
    return hash_combine(h, hashType(t->getResult()));
  }
  case Type::Kind::Incomplete:
    return llvm::hash_value(4);
  }
  return llvm::hash_value(0);
}
