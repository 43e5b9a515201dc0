//===- KernelCache.cpp - Compiled kernels in memory and on disk -----------===//
//
/// \file
/// An LRU list of kernels with two indexes (structural key, function node),
/// and the disk cache's keys and counters.
//
//===----------------------------------------------------------------------===//

#include "nnir/ExecutionEngine/KernelCache.h"
#include "nnir/Runtime/KernelABI.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#ifndef NNIR_VERSION_STRING
#define NNIR_VERSION_STRING "unknown"
#endif

using namespace llvm;
using namespace nnir;

KernelCache::KernelCache(size_t capacity, std::unique_ptr<DiskCache> disk,
                         EngineStats &stats)
    : capacity(capacity), disk(std::move(disk)), stats(stats) {}
KernelCache::~KernelCache() = default;

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

void KernelCache::touch(EntryList::iterator entry) {
  entries.splice(entries.begin(), entries, entry);
}

void KernelCache::remember(EntryList::iterator entry, const Function &fn,
                           ArrayRef<int64_t> dims, bool precompiled) {
  auto [it, inserted] = byNode.try_emplace(&fn);
  if (!inserted)
    return;
  it->second = {Ref<Function>(const_cast<Function *>(&fn)), entry,
                SmallVector<int64_t, 2>(dims.begin(), dims.end()),
                precompiled};
  entry->nodes.push_back(&fn);
}

KernelRef KernelCache::lookup(const Function &fn,
                              SmallVectorImpl<int64_t> &dims, bool use) {
  auto it = byNode.find(&fn);
  if (it == byNode.end())
    return nullptr;
  if (use && !it->second.precompiled)
    ++stats.memoryHits;
  if (use)
    it->second.precompiled = false;
  touch(it->second.entry);
  dims.assign(it->second.dims.begin(), it->second.dims.end());
  return it->second.entry->kernel;
}

KernelRef KernelCache::lookup(const KernelKey &key, const Function &fn,
                              ArrayRef<int64_t> dims, bool use) {
  auto it = byKey.find(key);
  if (it == byKey.end())
    return nullptr;
  if (use)
    ++stats.memoryHits;
  touch(it->second);
  remember(it->second, fn, dims);
  return it->second->kernel;
}

void KernelCache::insert(KernelKey key, KernelRef kernel, const Function &fn,
                         ArrayRef<int64_t> dims, bool precompiled) {
  if (auto old = byKey.find(key); old != byKey.end())
    evict(old->second);
  entries.push_front(Entry{key, std::move(kernel), {}});
  byKey.emplace(std::move(key), entries.begin());
  remember(entries.begin(), fn, dims, precompiled);
  while (capacity && entries.size() > capacity) {
    evict(std::prev(entries.end()));
    ++stats.kernelsEvicted;
  }
}

void KernelCache::evict(EntryList::iterator entry) {
  for (const Function *node : entry->nodes)
    byNode.erase(node);
  byKey.erase(entry->key);
  entries.erase(entry);
}

void KernelCache::clear() {
  byNode.clear();
  byKey.clear();
  entries.clear();
}

//===----------------------------------------------------------------------===//
// Disk
//===----------------------------------------------------------------------===//

std::string KernelCache::getObjectKey(const Module &module,
                                      const KernelTarget &target,
                                      unsigned optLevel) {
  std::string text;
  raw_string_ostream os(text);
  module.print(os, nullptr);
  return formatv("nnir kernel\nabi={0}\nnnir={1}\nllvm={2}\ntriple={3}"
                 "\ncpu={4}\nfeatures={5}\nopt={6}\nmodule-sha256={7}\n",
                 kKernelABIVersion, NNIR_VERSION_STRING, LLVM_VERSION_STRING,
                 target.triple, target.cpu, target.features, optLevel,
                 toHex(SHA256::hash(ArrayRef<uint8_t>(
                           reinterpret_cast<const uint8_t *>(text.data()),
                           text.size())),
                       /*LowerCase=*/true))
      .str();
}

std::optional<std::string> KernelCache::loadObject(StringRef key) {
  if (!disk)
    return std::nullopt;
  DiskCache::Lookup entry = disk->lookup(key);
  switch (entry.status) {
  case DiskCache::Status::Hit:
    ++stats.diskHits;
    return std::move(entry.object);
  case DiskCache::Status::Missing:
    break;
  case DiskCache::Status::Corrupt:
    ++stats.diskCorrupt;
    break;
  case DiskCache::Status::OtherKey:
    ++stats.diskOtherKey;
    break;
  case DiskCache::Status::Untrusted:
    ++stats.diskUntrusted;
    break;
  }
  return std::nullopt;
}

void KernelCache::storeObject(StringRef key, StringRef object) {
  if (disk && !object.empty() && disk->store(key, object))
    ++stats.diskWrites;
}
