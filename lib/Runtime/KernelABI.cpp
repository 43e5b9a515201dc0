//===- KernelABI.cpp - Runtime entry points of generated kernels ----------===//
//
/// \file
/// The functions generated kernels call: the parallel-for on LLVM's default
/// executor, scratch allocation and integer powers.
//
//===----------------------------------------------------------------------===//

#include "nnir/Runtime/KernelABI.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <cstdlib>

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
  int64_t step = llvm::divideCeil(n, chunks);
  llvm::parallelFor(0, static_cast<size_t>(llvm::divideCeil(n, step)),
                    [&](size_t chunk) {
                      int64_t begin = static_cast<int64_t>(chunk) * step;
                      body(closure, begin, std::min(n, begin + step));
                    });
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
