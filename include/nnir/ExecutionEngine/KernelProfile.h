//===- KernelProfile.h - Time, calls and work per kernel ---------*- C++ -*-===//
//
/// \file
/// A per-kernel profile of an ExecutionEngine's runs (`nnir-run --profile`):
/// for each kernel its name (TVM's fused-function name: `fused_` and its
/// operators), the calls, the wall time of those calls, and the work they
/// did as Codegen estimates it (scalar operations: KernelInfo::fixedWork
/// and outputWork, a multiply-add of a reduction counted as its body's
/// operations), hence an operation rate. Kernels are keyed by their
/// compiled code, so every function a cached kernel serves counts as one
/// entry.
///
/// Thread-safe: kernels run on any thread record into it.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_EXECUTIONENGINE_KERNELPROFILE_H
#define NNIR_EXECUTIONENGINE_KERNELPROFILE_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace nnir {

struct CompiledKernel;

class KernelProfile {
public:
  struct Entry {
    std::string name;
    uint64_t calls = 0;
    uint64_t nanos = 0;
    /// Scalar operations of all the calls (estimated).
    uint64_t work = 0;
  };

  /// Adds one call of \p kernel that took \p nanos and did \p work scalar
  /// operations; \p describe names a kernel seen for the first time.
  void record(const CompiledKernel *kernel,
              llvm::function_ref<std::string()> describe, uint64_t nanos,
              uint64_t work);
  /// Forgets every call recorded so far.
  void clear();
  /// The entries, most time first (ties by name).
  std::vector<Entry> getEntries() const;
  /// A table of the entries: time (ms and % of the total), calls,
  /// GOP/s, name; then the total.
  void print(llvm::raw_ostream &os) const;

private:
  mutable std::mutex mutex;
  llvm::DenseMap<const CompiledKernel *, unsigned> index;
  std::vector<Entry> entries;
};

} // namespace nnir

#endif // NNIR_EXECUTIONENGINE_KERNELPROFILE_H
