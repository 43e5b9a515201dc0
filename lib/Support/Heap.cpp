//===- Heap.cpp - What the process's allocator is and holds ---------------===//

#include "nnir/Support/Heap.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>

using namespace nnir;

namespace {
using MallctlFn = int (*)(const char *, void *, size_t *, void *, size_t);

/// jemalloc's mallctl when the process runs on jemalloc, else null.
MallctlFn getMallctl() {
  static MallctlFn mallctl =
      reinterpret_cast<MallctlFn>(dlsym(RTLD_DEFAULT, "mallctl"));
  return mallctl;
}

template <typename T> T readMallctl(MallctlFn mallctl, const char *name,
                                    T fallback) {
  T value = fallback;
  size_t size = sizeof(T);
  if (mallctl(name, &value, &size, nullptr, 0) != 0)
    return fallback;
  return value;
}
} // namespace

std::string nnir::describeAllocator() {
  MallctlFn mallctl = getMallctl();
  if (!mallctl)
    return "system malloc";
  return std::string("jemalloc ") +
         readMallctl<const char *>(mallctl, "version", "?") + ", thp:" +
         readMallctl<const char *>(mallctl, "opt.thp", "?");
}

size_t nnir::getHeapBytesInUse() {
  if (MallctlFn mallctl = getMallctl()) {
    // The statistics are a snapshot taken when the epoch advances.
    uint64_t epoch = 1;
    size_t size = sizeof(epoch);
    mallctl("epoch", &epoch, &size, &epoch, sizeof(epoch));
    return readMallctl<size_t>(mallctl, "stats.allocated", 0);
  }
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

void nnir::releaseFreeHeap() {
  if (MallctlFn mallctl = getMallctl()) {
    // arena.<MALLCTL_ARENAS_ALL>.purge; MALLCTL_ARENAS_ALL is 4096.
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    return;
  }
  malloc_trim(0);
}

/// Drops the pages of [\p begin, \p end) rounded outwards, but none outside
/// the pages wholly inside \p buffer: its first and last page may hold
/// memory that is not the file's.
static void releasePages(const llvm::MemoryBuffer &buffer, uintptr_t begin,
                         uintptr_t end) {
  if (buffer.getBufferKind() != llvm::MemoryBuffer::MemoryBuffer_MMap)
    return;
  uintptr_t pageSize = llvm::sys::Process::getPageSizeEstimate();
  uintptr_t first = reinterpret_cast<uintptr_t>(buffer.getBufferStart());
  uintptr_t last = reinterpret_cast<uintptr_t>(buffer.getBufferEnd());
  first = (first + pageSize - 1) & ~(pageSize - 1);
  last &= ~(pageSize - 1);
  begin = std::max(begin & ~(pageSize - 1), first);
  end = std::min((end + pageSize - 1) & ~(pageSize - 1), last);
  if (begin < end)
    madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
}

void nnir::releaseMappedPages(const llvm::MemoryBuffer &buffer) {
  releasePages(buffer, reinterpret_cast<uintptr_t>(buffer.getBufferStart()),
               reinterpret_cast<uintptr_t>(buffer.getBufferEnd()));
}

void nnir::releaseMappedPages(const llvm::MemoryBuffer &buffer,
                              llvm::StringRef text) {
  assert(text.begin() >= buffer.getBufferStart() &&
         text.end() <= buffer.getBufferEnd() && "text outside the buffer");
  releasePages(buffer, reinterpret_cast<uintptr_t>(text.begin()),
               reinterpret_cast<uintptr_t>(text.end()));
}
