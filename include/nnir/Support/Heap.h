//===- Heap.h - What the process's memory holds -----------------*- C++ -*-===//
//
/// \file
/// The process's memory: the allocator and the pages of a mapped input file.
/// The one place that knows jemalloc's control interface (mallctl), found at
/// run time: nnir's programs link jemalloc (cmake/Allocator.cmake), the
/// libraries do not, and a sanitized build runs on the sanitizers' malloc.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_SUPPORT_HEAP_H
#define NNIR_SUPPORT_HEAP_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <string>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace nnir {

/// `jemalloc <version>, thp:<setting>`, or `system malloc`.
std::string describeAllocator();

/// Bytes of heap in use: jemalloc's stats.allocated, or glibc's mallinfo2.
size_t getHeapBytesInUse();

/// Returns freed heap memory to the system (jemalloc's purge of every arena,
/// or glibc's malloc_trim).
void releaseFreeHeap();

/// Drops the resident pages of a memory-mapped input file from the process
/// (madvise MADV_DONTNEED on the whole pages it spans); the contents stay
/// readable, as later reads fault the pages back in from the page cache.
/// Called once a file has been parsed, so that its text (32 MB for a
/// million-call chain) no longer counts toward the peak while the passes and
/// the printer run; diagnostics that quote a line still work. No effect on a
/// buffer that is not a mapping of a file.
void releaseMappedPages(const llvm::MemoryBuffer &buffer);
/// The same for the pages that hold \p text, a part of \p buffer (those it
/// shares with the text around it too: they are read back if needed).
void releaseMappedPages(const llvm::MemoryBuffer &buffer,
                        llvm::StringRef text);

} // namespace nnir

#endif // NNIR_SUPPORT_HEAP_H
