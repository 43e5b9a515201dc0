//===- Heap.h - What the process's allocator is and holds ---------*- C++ -*-===//
//
/// \file
/// The one place that knows jemalloc's control interface (mallctl), found at
/// run time: nnir's programs link jemalloc (cmake/Allocator.cmake), the
/// libraries do not, and a sanitized build runs on the sanitizers' malloc.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_SUPPORT_HEAP_H
#define NNIR_SUPPORT_HEAP_H

#include <cstddef>
#include <string>

namespace nnir {

/// `jemalloc <version>, thp:<setting>`, or `system malloc`.
std::string describeAllocator();

/// Bytes of heap in use: jemalloc's stats.allocated, or glibc's mallinfo2.
size_t getHeapBytesInUse();

/// Returns freed heap memory to the system (jemalloc's purge of every arena,
/// or glibc's malloc_trim).
void releaseFreeHeap();

} // namespace nnir

#endif // NNIR_SUPPORT_HEAP_H
