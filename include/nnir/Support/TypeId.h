//===- TypeId.h - Type identities that hold across libraries ----*- C++ -*-===//
//
/// \file
/// A TypeId names a C++ type at run time, for tables keyed by type (the
/// operator attribute maps of nnir/IR/Op.h) and for LLVM-style RTTI of
/// attribute records. It must be the same in every shared object of the
/// process: a pass plugin built with `-fvisibility=hidden` has its own hidden
/// copy of every template static it instantiates, so an identity taken from
/// the address of `template <class T> static char tag` would differ between
/// the plugin and the tool, and the plugin would not find the tool's tables.
///
/// So identities are explicit, as MLIR's TypeID moved to:
///  - a type used as a key is declared once in a header,
///    `NNIR_DECLARE_EXPLICIT_TYPE_ID(ns::T)`, and defined once in the library
///    that owns it, `NNIR_DEFINE_EXPLICIT_TYPE_ID(ns::T)` (at global scope,
///    outside any namespace). Every shared object then refers to the one
///    definition. TypeId::get<T>() of a type with no declaration does not
///    compile.
///  - an identity may also be taken from a unique name
///    (TypeId::getFromName("relay.attrs.Conv2DAttrs")): names are interned in
///    one process-wide table of the Support library. Attribute records use
///    their type key this way.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_SUPPORT_TYPEID_H
#define NNIR_SUPPORT_TYPEID_H

#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Compiler.h"

namespace nnir {

class TypeId;

namespace detail {
/// Specialised by NNIR_DECLARE_EXPLICIT_TYPE_ID; the primary template is
/// left incomplete so that a missing declaration is a compile error.
template <typename T> class TypeIdResolver;
} // namespace detail

class TypeId {
public:
  /// The identity of \p T, declared with NNIR_DECLARE_EXPLICIT_TYPE_ID.
  template <typename T> static TypeId get() {
    return detail::TypeIdResolver<T>::resolve();
  }
  /// The identity interned for \p name: equal names give equal ids in every
  /// shared object. Thread-safe; callers on hot paths cache the result.
  static TypeId getFromName(llvm::StringRef name);

  /// For the macros and for DenseMap keys.
  static TypeId getFromOpaquePointer(const void *pointer) {
    return TypeId(pointer);
  }
  const void *getAsOpaquePointer() const { return storage; }

  bool operator==(const TypeId &other) const {
    return storage == other.storage;
  }
  bool operator!=(const TypeId &other) const { return !(*this == other); }

private:
  explicit TypeId(const void *storage) : storage(storage) {}
  const void *storage;
};

inline llvm::hash_code hash_value(TypeId id) {
  return llvm::hash_value(id.getAsOpaquePointer());
}

} // namespace nnir

/// Declares the identity of \p CLASS_NAME; use at global scope in the header
/// that declares the class.
#define NNIR_DECLARE_EXPLICIT_TYPE_ID(CLASS_NAME)                              \
  namespace nnir {                                                             \
  namespace detail {                                                           \
  template <> class LLVM_ATTRIBUTE_VISIBILITY_DEFAULT                          \
      TypeIdResolver<CLASS_NAME> {                                             \
  public:                                                                      \
    static TypeId resolve() { return TypeId::getFromOpaquePointer(&id); }      \
                                                                               \
  private:                                                                     \
    static const char id;                                                      \
  };                                                                           \
  } /* namespace detail */                                                     \
  } /* namespace nnir */

/// Defines the identity of \p CLASS_NAME; use at global scope in exactly one
/// source file of the library that owns the class.
#define NNIR_DEFINE_EXPLICIT_TYPE_ID(CLASS_NAME)                               \
  namespace nnir {                                                             \
  namespace detail {                                                           \
  const char TypeIdResolver<CLASS_NAME>::id = 0;                               \
  } /* namespace detail */                                                     \
  } /* namespace nnir */

namespace llvm {
template <> struct DenseMapInfo<nnir::TypeId> {
  static nnir::TypeId getEmptyKey() {
    return nnir::TypeId::getFromOpaquePointer(
        DenseMapInfo<const void *>::getEmptyKey());
  }
  static nnir::TypeId getTombstoneKey() {
    return nnir::TypeId::getFromOpaquePointer(
        DenseMapInfo<const void *>::getTombstoneKey());
  }
  static unsigned getHashValue(nnir::TypeId id) {
    return DenseMapInfo<const void *>::getHashValue(id.getAsOpaquePointer());
  }
  static bool isEqual(nnir::TypeId a, nnir::TypeId b) { return a == b; }
};
} // namespace llvm

#endif // NNIR_SUPPORT_TYPEID_H
