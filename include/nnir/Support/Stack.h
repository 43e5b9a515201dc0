//===- Stack.h - Run work on a stack sized for its nesting -------*- C++ -*-===//
//
/// \file
/// The parser, the printer and the walks over syntactic nesting (types,
/// nested `fn`, `if` branches, tuples, attribute lists) recurse once per
/// level of nesting; dataflow edges are walked iteratively and cost no stack.
/// The nesting is bounded by ParserOptions::maxNestingDepth, so a tool that
/// runs its work on a stack of getStackBytesForNesting(limit) bytes cannot
/// overflow it, whatever the input and whatever the limit
/// (`--max-nesting-depth` is itself bounded by kMaxNestingDepth).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_SUPPORT_STACK_H
#define NNIR_SUPPORT_STACK_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Compiler.h"

#include <cstdint>

namespace nnir {

/// Stack bytes budgeted per level of syntactic nesting: about four times the
/// deepest per-level use measured (1.1 KB for nested `if` through the -O3
/// pipeline, printer and round trip in a Release build; AddressSanitizer's
/// frames are about five times larger, so its builds budget more).
#if LLVM_ADDRESS_SANITIZER_BUILD
inline constexpr uint64_t kStackBytesPerNestingLevel = 24 * 1024;
#else
inline constexpr uint64_t kStackBytesPerNestingLevel = 4 * 1024;
#endif

/// Stack for everything that does not nest (the passes' own frames, LLVM's
/// JIT, the output): the default stack of a Linux process.
inline constexpr uint64_t kBaseStackBytes = 8 * 1024 * 1024;

/// The deepest nesting limit a tool accepts: its stack (reserved, not
/// committed: only the pages a deep input touches are used) stays below
/// 2.5 GiB, also under AddressSanitizer.
inline constexpr unsigned kMaxNestingDepth = 100000;

/// The stack that work over input nested \p depth levels deep needs.
inline uint64_t getStackBytesForNesting(unsigned depth) {
  return kBaseStackBytes + uint64_t(depth) * kStackBytesPerNestingLevel;
}

/// Runs \p fn on a new thread with a stack of \p stackBytes and waits for
/// it. The thread starts with no PassContext and no other thread-local
/// state of the caller: call it before setting those up.
void runWithStack(uint64_t stackBytes, llvm::function_ref<void()> fn);

} // namespace nnir

#endif // NNIR_SUPPORT_STACK_H
