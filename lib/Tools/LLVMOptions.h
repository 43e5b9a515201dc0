//===- LLVMOptions.h - Sharing option names with libLLVM --------*- C++ -*-===//
//
/// \file
/// libLLVM registers options of its own (--time-passes, --stats,
/// --print-changed) under names nnir's tools use for theirs; registering a
/// name twice aborts. The tools rename LLVM's options to `llvm-<name>`
/// before registering their own: LLVM's stay registered and keep acting on
/// LLVM's pass pipelines, which run in the same process when nnir compiles
/// kernels (`nnir-opt --emit=llvm-opt --llvm-time-passes`).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_TOOLS_LLVMOPTIONS_H
#define NNIR_LIB_TOOLS_LLVMOPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace nnir {

/// Renames each of LLVM's registered options \p names (string literals) to
/// "llvm-" + name. Names not registered, or renamed already, are skipped.
void renameLLVMOptions(llvm::ArrayRef<llvm::StringLiteral> names);

} // namespace nnir

#endif // NNIR_LIB_TOOLS_LLVMOPTIONS_H
