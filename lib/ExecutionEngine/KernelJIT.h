//===- KernelJIT.h - ORC LLJIT for kernels, one tracker each -----*- C++ -*-===//
//
/// \file
/// The JIT half of the ExecutionEngine, in the manner of MLIR's
/// ExecutionEngine: one LLJIT with our own TargetMachine for the host (an
/// RTDyld object layer when JIT event listeners are asked for, so they can
/// be registered on it; LLJIT's default linker otherwise), a runtime library of absolute symbols from a RuntimeSymbolMap (anything
/// else from the process), and optional GDB and perf listeners.
///
/// Every kernel lives in a JITDylib of its own (its symbol is always
/// `kernel`, so objects relocate between processes), added through an ORC
/// ResourceTracker: destroying its KernelCode removes the tracker (the code
/// and data are freed, listeners told) and the JITDylib. getNumLiveCode()
/// counts the kernels whose code is in memory.
///
/// compileObject() may run on any number of threads; adding code is not
/// thread-safe (the engine serialises it). KernelCode may be destroyed on
/// any thread while the KernelJIT lives.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_EXECUTIONENGINE_KERNELJIT_H
#define NNIR_LIB_EXECUTIONENGINE_KERNELJIT_H

#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/ExecutionEngine/KernelCache.h"

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
namespace orc {
class JITTargetMachineBuilder;
class LLJIT;
} // namespace orc
} // namespace llvm

namespace nnir {

class KernelJIT;

/// One kernel's code in the JIT; freed when destroyed.
class KernelCode {
public:
  ~KernelCode();
  KernelCode(const KernelCode &) = delete;
  KernelCode &operator=(const KernelCode &) = delete;

  KernelFn getFunction() const { return fn; }

private:
  friend class KernelJIT;
  KernelCode(KernelJIT &jit, llvm::orc::JITDylib &dylib,
             llvm::orc::ResourceTrackerSP tracker)
      : jit(jit), dylib(&dylib), tracker(std::move(tracker)) {}
  KernelJIT &jit;
  llvm::orc::JITDylib *dylib;
  llvm::orc::ResourceTrackerSP tracker;
  KernelFn fn = nullptr;
};

class KernelJIT {
public:
  static llvm::Expected<std::unique_ptr<KernelJIT>>
  create(const RuntimeSymbolMap &symbols, const JITListenerOptions &listeners);
  ~KernelJIT();

  const KernelTarget &getTarget() const { return target; }
  llvm::TargetMachine &getTargetMachine() const { return *tm; }

  /// Optimises \p module at \p optLevel and compiles it to an object file
  /// for the host. Thread-safe: each call takes a TargetMachine of its own
  /// (from a free list, created when none is free), so the engine compiles
  /// independent kernels concurrently.
  llvm::Expected<std::string> compileObject(llvm::Module &module,
                                            unsigned optLevel);
  /// Links the object file \p object (named \p name in diagnostics).
  llvm::Expected<std::unique_ptr<KernelCode>> addObject(llvm::StringRef object,
                                                        llvm::StringRef name);

  /// Gives \p module the JIT's triple and data layout (what compileObject
  /// does first; the disk cache keys the module's text after it).
  void prepareModule(llvm::Module &module) const;

  /// Kernels whose code is in memory (KernelCode objects alive).
  uint64_t getNumLiveCode() const { return liveCode; }

private:
  friend class KernelCode;
  /// compileObject's work (compileObject orders the first call per level).
  llvm::Expected<std::string> compileObjectImpl(llvm::Module &module,
                                                unsigned optLevel);
  KernelJIT();
  /// A new JITDylib and tracker for one kernel, counted live.
  llvm::Expected<std::unique_ptr<KernelCode>> createCode();
  /// Compiles and links what \p code's tracker holds; sets its function.
  llvm::Error link(KernelCode &code);
  void release(KernelCode &code);

  /// The host's machine builder, and TargetMachines not in use by a
  /// compileObject() call (a TargetMachine is not thread-safe).
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> tmBuilder;
  std::mutex tmMutex;
  std::vector<std::unique_ptr<llvm::TargetMachine>> freeMachines;
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  KernelTarget target;
  uint64_t counter = 0;
  std::atomic<uint64_t> liveCode{0};
};

} // namespace nnir

#endif // NNIR_LIB_EXECUTIONENGINE_KERNELJIT_H
