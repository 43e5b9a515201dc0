//===- RuntimeSymbols.h - The C functions kernels may call -------*- C++ -*-===//
//
/// \file
/// The runtime symbols of an ExecutionEngine, as MLIR's ExecutionEngine
/// takes a symbol map: every C function a kernel may call, by its unmangled
/// name, defined as an absolute symbol in the JIT's runtime library before
/// the first kernel links. Whatever a kernel calls that the map does not
/// define (libm's expf, ...) is looked up in the process.
///
/// getKernelRuntimeSymbols() is nnir's own runtime: the entry points of
/// nnir/Runtime/KernelABI.h and the half-precision conversions LLVM calls
/// on hosts without F16C. An embedder adds its own to a copy (a helper that
/// its operators' computes call) or replaces one (EngineOptions::symbols).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_EXECUTIONENGINE_RUNTIMESYMBOLS_H
#define NNIR_EXECUTIONENGINE_RUNTIMESYMBOLS_H

#include "llvm/ADT/StringMap.h"

namespace nnir {

/// C function addresses by unmangled name.
using RuntimeSymbolMap = llvm::StringMap<void *>;

/// nnir's kernel runtime (see the file comment).
RuntimeSymbolMap getKernelRuntimeSymbols();

} // namespace nnir

#endif // NNIR_EXECUTIONENGINE_RUNTIMESYMBOLS_H
