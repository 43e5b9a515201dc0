//===- Stack.cpp - Run work on a stack sized for its nesting ---------------===//
//
/// \file
/// Implements runWithStack on llvm::thread, which takes a stack size.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/Stack.h"

#include "llvm/Support/thread.h"

#include <algorithm>
#include <limits>

using namespace llvm;
using namespace nnir;

void nnir::runWithStack(uint64_t stackBytes, function_ref<void()> fn) {
  // llvm::thread counts the stack in an unsigned.
  uint64_t bytes = std::min<uint64_t>(stackBytes,
                                      std::numeric_limits<unsigned>::max());
  llvm::thread worker(std::optional<unsigned>(unsigned(bytes)), [&] { fn(); });
  worker.join();
}
