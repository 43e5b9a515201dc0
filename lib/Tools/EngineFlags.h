//===- EngineFlags.h - The tools' execution engine options ------*- C++ -*-===//
//
/// \file
/// The tools create the execution engine their run hands around (libraries
/// never read the environment): its persistent cache from
/// `--kernel-cache-dir`, else $NNIR_KERNEL_CACHE_DIR, and its JIT event
/// listeners from `--jit-listeners=gdb,perf`. nnir-opt and nnir-run declare
/// the options with these helpers.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_TOOLS_ENGINEFLAGS_H
#define NNIR_LIB_TOOLS_ENGINEFLAGS_H

#include "nnir/ExecutionEngine/ExecutionEngine.h"

#include "llvm/Support/CommandLine.h"

#include <memory>
#include <string>

namespace nnir {

enum class JITListenerKind { GDB, Perf };

/// `--kernel-cache-dir=DIR` in category \p cat.
struct KernelCacheDirOption : llvm::cl::opt<std::string> {
  explicit KernelCacheDirOption(llvm::cl::OptionCategory &cat);
};

/// `--jit-listeners=gdb,perf` in category \p cat.
struct JITListenersOption : llvm::cl::bits<JITListenerKind> {
  explicit JITListenersOption(llvm::cl::OptionCategory &cat);
  JITListenerOptions get();
};

/// The cache directory of the flag's value \p flag, else of
/// $NNIR_KERNEL_CACHE_DIR, else "" (none).
std::string getKernelCacheDir(llvm::StringRef flag);

/// ExecutionEngine::create(), as a shared engine; unless \p options has
/// compile threads, the engine gets a pool of its own, one thread per core
/// (ExecutionEngine::precompile).
llvm::Expected<std::shared_ptr<ExecutionEngine>>
createSharedEngine(const EngineOptions &options);

} // namespace nnir

#endif // NNIR_LIB_TOOLS_ENGINEFLAGS_H
