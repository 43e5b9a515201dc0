//===- KernelProfile.cpp - Time, calls and work per kernel ----------------===//

#include "nnir/ExecutionEngine/KernelProfile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;
using namespace nnir;

void KernelProfile::record(const CompiledKernel *kernel,
                           function_ref<std::string()> describe,
                           uint64_t nanos, uint64_t work) {
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = index.try_emplace(kernel, entries.size());
  if (inserted)
    entries.push_back({describe(), 0, 0, 0});
  Entry &entry = entries[it->second];
  ++entry.calls;
  entry.nanos += nanos;
  entry.work += work;
}

void KernelProfile::clear() {
  std::lock_guard<std::mutex> lock(mutex);
  index.clear();
  entries.clear();
}

std::vector<KernelProfile::Entry> KernelProfile::getEntries() const {
  std::vector<Entry> sorted;
  {
    std::lock_guard<std::mutex> lock(mutex);
    sorted = entries;
  }
  llvm::stable_sort(sorted, [](const Entry &a, const Entry &b) {
    return a.nanos != b.nanos ? a.nanos > b.nanos : a.name < b.name;
  });
  return sorted;
}

/// Operations per nanosecond are billions per second.
static double gops(uint64_t work, uint64_t nanos) {
  return nanos ? double(work) / double(nanos) : 0.0;
}

void KernelProfile::print(raw_ostream &os) const {
  std::vector<Entry> sorted = getEntries();
  uint64_t totalNanos = 0, totalWork = 0, totalCalls = 0;
  for (const Entry &e : sorted) {
    totalNanos += e.nanos;
    totalWork += e.work;
    totalCalls += e.calls;
  }
  os << "===" << std::string(73, '-') << "===\n"
     << "                        ... Kernel profile ...\n"
     << "===" << std::string(73, '-') << "===\n";
  os << formatv("{0,10} {1,6} {2,6} {3,8}  {4}\n", "time (ms)", "%", "calls",
                "GOP/s", "kernel");
  for (const Entry &e : sorted)
    os << formatv("{0,10:f3} {1,6:f1} {2,6} {3,8:f2}  {4}\n", e.nanos / 1e6,
                  totalNanos ? 100.0 * e.nanos / totalNanos : 0.0, e.calls,
                  gops(e.work, e.nanos), e.name);
  os << formatv("{0,10:f3} {1,6:f1} {2,6} {3,8:f2}  total ({4} kernels)\n",
                totalNanos / 1e6, totalNanos ? 100.0 : 0.0, totalCalls,
                gops(totalWork, totalNanos), sorted.size());
}
