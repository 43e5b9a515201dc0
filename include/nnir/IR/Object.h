//===- Object.h - Shared, reference-counted IR objects ----------*- C++ -*-===//
//
/// \file
/// Every IR object (types, expressions, attributes, modules) derives from
/// Object: a thread-safe intrusive reference count, held through Ref<T>
/// (llvm::IntrusiveRefCntPtr). Objects are immutable once shared, so pointer
/// identity can key memo tables.
///
/// Releasing the last reference never recurses through child objects: a node
/// whose count drops to zero while another is being destroyed on the same
/// thread is queued and destroyed by the outermost release. Freeing a
/// 1,000,000-node chain therefore uses constant stack.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_OBJECT_H
#define NNIR_IR_OBJECT_H

#include "llvm/ADT/IntrusiveRefCntPtr.h"

#include <atomic>
#include <utility>

namespace nnir {

class Object {
public:
  Object(const Object &) = delete;
  Object &operator=(const Object &) = delete;

  /// Used by llvm::IntrusiveRefCntPtr.
  void Retain() const { refCount.fetch_add(1, std::memory_order_relaxed); }
  void Release() const {
    if (refCount.fetch_sub(1, std::memory_order_acq_rel) == 1)
      destroy(this);
  }

  /// The current number of references (for tests and diagnostics only).
  unsigned getRefCount() const {
    return refCount.load(std::memory_order_relaxed);
  }

protected:
  Object() = default;
  virtual ~Object();

private:
  static void destroy(const Object *object);
  mutable std::atomic<unsigned> refCount{0};
};

/// A counted reference to an IR object. isa<>, cast<> and dyn_cast<> work on
/// it directly (they see the raw pointer).
template <typename T> using Ref = llvm::IntrusiveRefCntPtr<T>;

} // namespace nnir

#endif // NNIR_IR_OBJECT_H
