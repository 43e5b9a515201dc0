//===- KernelABI.h - The calling convention of generated kernels -*- C++
//-*-===//
//
/// \file
/// Every kernel that Codegen emits for a primitive function is one exported
/// C function:
///
///     int32_t kernel(void *const *buffers, const int64_t *dims);
///
/// - `buffers` holds one data pointer per tensor, in this order: the
///   function's parameters (a tuple parameter contributes its fields, in
///   order, recursively), then the constants lifted out of the function (in
///   the order the kernel's KernelInfo lists them), then the outputs (the
///   result flattened the same way). Buffers are dense, row-major and 64-byte
///   aligned; inputs are only read; every output element is written; outputs
///   never alias inputs.
/// - `dims` holds the extents that are runtime values: for a shape-generic
///   kernel, the extents of its merged axes (GenericShape::getExtents(); a
///   same-shape elementwise chain has one, the element count; rank-0
///   operands are read as scalars); for a symbolic kernel (a function whose
///   parameter types have `?` extents, nnir/Codegen/Lowering.h), the
///   arguments' extents at the `?` positions, one per position counted
///   from the last axis (shared by the parameters with a `?` there), in
///   the order the flattened parameters' axes first meet them; the
///   outputs' extents follow from them. Other kernels bake their shapes in and ignore `dims` (it may be
///   null).
/// - The result is kKernelOK, or an error code (kKernelOutOfMemory when a
///   scratch buffer cannot be allocated). A kernel never aborts.
///
/// The runtime entry points below are what generated code calls; the JIT
/// resolves them by name.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_RUNTIME_KERNELABI_H
#define NNIR_RUNTIME_KERNELABI_H

#include <cstdint>

namespace nnir {

using KernelFn = int32_t (*)(void *const *buffers, const int64_t *dims);

/// The version of this calling convention and of the runtime entry points
/// below: the disk cache keys objects by it, so a change here must bump it.
constexpr unsigned kKernelABIVersion = 1;

enum KernelStatus : int32_t {
  kKernelOK = 0,
  kKernelOutOfMemory = 1,
};

/// The message for a kernel status code.
const char *getKernelStatusMessage(int32_t status);

/// A chunk of a parallel loop: runs iterations [begin, end).
using ParallelBodyFn = void (*)(void *closure, int64_t begin, int64_t end);

} // namespace nnir

extern "C" {
/// Runs body(closure, b, e) over chunks [b, e) that cover [0, n), in
/// parallel: the caller and the workers of a pool (one fewer than
/// llvm::parallel::strategy's threads) claim chunks, and it returns when all
/// are done, never waiting for a worker to start. `grain` is the smallest
/// chunk worth a task.
void nnir_parallel_for(int64_t n, int64_t grain, nnir::ParallelBodyFn body,
                       void *closure);
/// A 64-byte aligned scratch buffer, or null when out of memory.
void *nnir_alloc(uint64_t bytes);
void nnir_free(void *ptr);
/// Integer powers (wrapping; a negative exponent gives 0 except for bases 1
/// and -1).
int64_t nnir_ipow_i64(int64_t base, int64_t exp);
uint64_t nnir_ipow_u64(uint64_t base, uint64_t exp);
}

#endif // NNIR_RUNTIME_KERNELABI_H
