//===- KernelABI.cpp - Runtime entry points of generated kernels ----------===//
//
/// \file
/// The functions generated kernels call: the parallel-for (the caller and a
/// pool of workers claiming chunks), scratch allocation and integer powers.
//
//===----------------------------------------------------------------------===//

#include "nnir/Runtime/KernelABI.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <thread>

using namespace nnir;

const char *nnir::getKernelStatusMessage(int32_t status) {
  switch (status) {
  case kKernelOK:
    return "success";
  case kKernelOutOfMemory:
    return "out of memory for a scratch buffer";
  default:
    return "unknown kernel error";
  }
}

namespace {
/// One nnir_parallel_for call: chunks are claimed from `next` by the caller
/// and by pool workers; `done` counts the finished ones.
struct ParallelLoop {
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  int64_t n = 0, step = 0, chunks = 0;
  ParallelBodyFn body = nullptr;
  void *closure = nullptr;

  void run() {
    for (int64_t c = next.fetch_add(1, std::memory_order_relaxed); c < chunks;
         c = next.fetch_add(1, std::memory_order_relaxed)) {
      int64_t begin = c * step;
      body(closure, begin, std::min(n, begin + step));
      done.fetch_add(1, std::memory_order_release);
    }
  }
};
} // namespace

void nnir_parallel_for(int64_t n, int64_t grain, ParallelBodyFn body,
                       void *closure) {
  if (n <= 0)
    return;
  // A few chunks per thread balance uneven chunks; never smaller than grain.
  static const int64_t threads =
      std::max<int64_t>(1, llvm::parallel::strategy.compute_thread_count());
  int64_t chunks = std::min<int64_t>(
      threads * 4, std::max<int64_t>(1, n / std::max<int64_t>(grain, 1)));
  if (chunks <= 1 || threads == 1) {
    body(closure, 0, n);
    return;
  }
  // The calling thread runs chunks too and waits only for chunks a worker
  // has claimed, never for a worker to wake: a worker that starts late (a
  // futex wake-up, or its core busy with another process) finds every
  // chunk claimed and returns, so a kernel costs at most its serial time.
  // The workers hold the loop's state, not the caller's stack.
  static llvm::StdThreadPool pool(llvm::hardware_concurrency(threads - 1));
  auto loop = std::make_shared<ParallelLoop>();
  loop->n = n;
  loop->step = llvm::divideCeil(n, chunks);
  loop->chunks = llvm::divideCeil(n, loop->step);
  loop->body = body;
  loop->closure = closure;
  for (int64_t t = 1; t < std::min(threads, loop->chunks); ++t)
    pool.async([loop] { loop->run(); });
  loop->run();
  while (loop->done.load(std::memory_order_acquire) < loop->chunks)
    std::this_thread::yield();
}

void *nnir_alloc(uint64_t bytes) {
  uint64_t size = llvm::alignTo(std::max<uint64_t>(bytes, 1), 64);
  if (size < bytes)
    return nullptr;
  return std::aligned_alloc(64, size);
}

void nnir_free(void *ptr) { std::free(ptr); }

int64_t nnir_ipow_i64(int64_t base, int64_t exp) {
  if (exp < 0)
    return base == 1 ? 1 : base == -1 ? (exp % 2 ? -1 : 1) : 0;
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exp); e; e >>= 1) {
    if (e & 1)
      result *= b;
    b *= b;
  }
  return static_cast<int64_t>(result);
}

uint64_t nnir_ipow_u64(uint64_t base, uint64_t exp) {
  uint64_t result = 1;
  for (; exp; exp >>= 1) {
    if (exp & 1)
      result *= base;
    base *= base;
  }
  return result;
}
