//===- Heap.cpp - What the process's allocator is and holds ---------------===//

#include "nnir/Support/Heap.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"

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

void nnir::releaseMappedPages(const llvm::MemoryBuffer &buffer) {
  if (buffer.getBufferKind() != llvm::MemoryBuffer::MemoryBuffer_MMap)
    return;
  // Only the pages wholly inside the buffer: its first and last page may
  // hold memory that is not the file's.
  uintptr_t pageSize = llvm::sys::Process::getPageSizeEstimate();
  uintptr_t begin = reinterpret_cast<uintptr_t>(buffer.getBufferStart());
  uintptr_t end = reinterpret_cast<uintptr_t>(buffer.getBufferEnd());
  begin = (begin + pageSize - 1) & ~(pageSize - 1);
  end &= ~(pageSize - 1);
  if (begin < end)
    madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
}
