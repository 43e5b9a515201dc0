//===- PoolLoop.h - A loop on a thread pool the caller joins ----*- C++ -*-===//
//
/// \file
/// runPoolLoop() runs the iterations of a loop on a thread pool and on the
/// calling thread. The caller claims iterations as the workers do and then
/// waits only for iterations a worker has claimed, never for a worker to
/// start: a worker that wakes late (its core busy, or, on a virtual machine,
/// a virtual CPU the host has not scheduled yet: 7-30 ms was measured on a
/// Firecracker VM) finds them all claimed, so the loop takes at most its
/// serial time. A worker holds only the loop's shared claim counter, never
/// the caller's frame, so it may start after the loop has returned. A loop
/// inside an iteration runs the same way on the worker: nesting cannot
/// deadlock, however few threads the pool has.
///
/// The pass manager's parallelForEach and the execution engine's parallel
/// kernel compiles run on it. (The kernels' own nnir_parallel_for, in the
/// runtime, spins on a counter instead: its chunks take microseconds.)
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_SUPPORT_POOLLOOP_H
#define NNIR_SUPPORT_POOLLOOP_H

#include <cstddef>
#include <functional>

namespace llvm {
class ThreadPoolInterface;
} // namespace llvm

namespace nnir {

/// Runs \p body(i) for every i in [0, \p n), on \p threads threads at most:
/// the calling thread and up to threads - 1 workers of \p pool. Returns
/// when every iteration has finished. Iterations must not depend on each
/// other's order.
void runPoolLoop(llvm::ThreadPoolInterface &pool, size_t threads, size_t n,
                 std::function<void(size_t)> body);

} // namespace nnir

#endif // NNIR_SUPPORT_POOLLOOP_H
