//===- EngineFlags.cpp - The tools' execution engine options --------------===//
//
/// \file
/// The options and the one place that reads $NNIR_KERNEL_CACHE_DIR.
//
//===----------------------------------------------------------------------===//

#include "EngineFlags.h"

#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"

using namespace llvm;
using namespace nnir;

KernelCacheDirOption::KernelCacheDirOption(cl::OptionCategory &cat)
    : cl::opt<std::string>(
          "kernel-cache-dir",
          cl::desc("Persistent kernel cache directory (default: "
                   "$NNIR_KERNEL_CACHE_DIR, else none)"),
          cl::value_desc("DIR"), cl::cat(cat)) {}

JITListenersOption::JITListenersOption(cl::OptionCategory &cat)
    : cl::bits<JITListenerKind>(
          "jit-listeners",
          cl::desc("Tell debuggers and profilers about JIT-compiled kernels"),
          cl::CommaSeparated, cl::value_desc("gdb,perf"),
          cl::values(clEnumValN(JITListenerKind::GDB, "gdb",
                                "GDB's JIT interface"),
                     clEnumValN(JITListenerKind::Perf, "perf",
                                "perf's jitdump ($JITDUMPDIR, else "
                                "~/.debug/jit)")),
          cl::cat(cat)) {}

JITListenerOptions JITListenersOption::get() {
  JITListenerOptions options;
  options.gdb = isSet(JITListenerKind::GDB);
  options.perf = isSet(JITListenerKind::Perf);
  return options;
}

std::string nnir::getKernelCacheDir(StringRef flag) {
  if (!flag.empty())
    return flag.str();
  return sys::Process::GetEnv("NNIR_KERNEL_CACHE_DIR").value_or("");
}

Expected<std::shared_ptr<ExecutionEngine>>
nnir::createSharedEngine(const EngineOptions &options) {
  EngineOptions withThreads = options;
  // Kernels compile on the machine's cores, on threads of this engine.
  if (!withThreads.compileThreads &&
      llvm::hardware_concurrency().compute_thread_count() > 1)
    withThreads.compileThreads = std::make_shared<DefaultThreadPool>(
        llvm::hardware_concurrency());
  Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create(withThreads);
  if (!engine)
    return engine.takeError();
  return std::shared_ptr<ExecutionEngine>(std::move(*engine));
}
