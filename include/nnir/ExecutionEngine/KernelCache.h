//===- KernelCache.h - Compiled kernels in memory and on disk ----*- C++ -*-===//
//
/// \file
/// The ExecutionEngine's kernel cache, apart from lowering and the JIT:
///
/// - In memory: kernels by KernelKey (structural, constants lifted,
///   shape-generic where possible), plus an identity memo so a function
///   node seen before costs one lookup. With a capacity, the least recently
///   used kernel is evicted beyond it; clear() drops every kernel. A kernel
///   dropped from the cache frees its code (its ORC resource tracker) as
///   soon as no caller holds its KernelRef any more, so a long-lived process
///   keeps at most `capacity` kernels plus those in use.
/// - On disk (optional, nnir/ExecutionEngine/DiskCache.h): compiled objects
///   by a key that names everything the object depends on (getObjectKey()),
///   shared by processes of one user.
///
/// Not thread-safe: the engine calls it under its lock.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_EXECUTIONENGINE_KERNELCACHE_H
#define NNIR_EXECUTIONENGINE_KERNELCACHE_H

#include "nnir/ExecutionEngine/DiskCache.h"
#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/ExecutionEngine/KernelKey.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace llvm {
class Module;
} // namespace llvm

namespace nnir {

/// The host kernels are compiled for.
struct KernelTarget {
  std::string triple, cpu, features;
};

class KernelCache {
public:
  /// A cache of at most \p capacity kernels (0: no limit), using \p disk
  /// (may be null) and counting hits, misses and evictions in \p stats.
  KernelCache(size_t capacity, std::unique_ptr<DiskCache> disk,
              EngineStats &stats);
  ~KernelCache();
  KernelCache(const KernelCache &) = delete;
  KernelCache &operator=(const KernelCache &) = delete;

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  /// The kernel of the function node \p fn if this node was seen before,
  /// with the runtime extents it passes (\p dims); null otherwise. A hit
  /// counts in the stats when \p use (a run's lookup, not precompile's),
  /// except the first use of a node whose kernel was precompiled.
  KernelRef lookup(const Function &fn, llvm::SmallVectorImpl<int64_t> &dims,
                   bool use = true);
  /// The kernel cached under \p key, now remembered for node \p fn (with
  /// \p dims) too; null when there is none.
  KernelRef lookup(const KernelKey &key, const Function &fn,
                   llvm::ArrayRef<int64_t> dims, bool use = true);
  /// Caches \p kernel under \p key, for node \p fn (with \p dims); evicts
  /// the least recently used kernel when the cache is over capacity.
  /// \p precompiled: compiled ahead of its first use, which is then no hit.
  void insert(KernelKey key, KernelRef kernel, const Function &fn,
              llvm::ArrayRef<int64_t> dims, bool precompiled = false);
  /// Drops every kernel (their code is freed once no caller holds them).
  void clear();
  /// The kernels cached in memory.
  size_t size() const { return entries.size(); }
  size_t getCapacity() const { return capacity; }

  //===--------------------------------------------------------------------===//
  // Disk
  //===--------------------------------------------------------------------===//

  bool hasDisk() const { return disk != nullptr; }
  /// The disk cache's key of the object compiled from \p module (its
  /// unoptimised text, hashed) for \p target at \p optLevel: the entry
  /// format, kernel ABI, nnir and LLVM versions, target and level too.
  static std::string getObjectKey(const llvm::Module &module,
                                  const KernelTarget &target,
                                  unsigned optLevel);
  /// The object stored under \p key, if a trusted entry has it; a corrupt,
  /// foreign or untrusted entry counts in the stats and is a miss.
  std::optional<std::string> loadObject(llvm::StringRef key);
  /// Stores \p object under \p key (a failure only costs the next process
  /// a compile).
  void storeObject(llvm::StringRef key, llvm::StringRef object);

private:
  struct KeyHash {
    size_t operator()(const KernelKey &k) const { return k.getHash(); }
  };
  struct Entry {
    KernelKey key;
    KernelRef kernel;
    /// The function nodes remembered for it (identity memo keys).
    llvm::SmallVector<const Function *, 1> nodes;
  };
  using EntryList = std::list<Entry>;
  /// A function node seen before: a reference keeps the pointer valid.
  struct KnownFunction {
    Ref<Function> fn;
    EntryList::iterator entry;
    llvm::SmallVector<int64_t, 2> dims;
    /// Precompiled, and not used since.
    bool precompiled = false;
  };

  void remember(EntryList::iterator entry, const Function &fn,
                llvm::ArrayRef<int64_t> dims, bool precompiled = false);
  void touch(EntryList::iterator entry);
  void evict(EntryList::iterator entry);

  size_t capacity;
  std::unique_ptr<DiskCache> disk;
  EngineStats &stats;
  /// Most recently used first.
  EntryList entries;
  std::unordered_map<KernelKey, EntryList::iterator, KeyHash> byKey;
  llvm::DenseMap<const Function *, KnownFunction> byNode;
};

} // namespace nnir

#endif // NNIR_EXECUTIONENGINE_KERNELCACHE_H
