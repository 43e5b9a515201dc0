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
/// Not thread-safe for adding code (the engine serialises compiles);
/// KernelCode may be destroyed on any thread while the KernelJIT lives.
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
#include <string>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
namespace orc {
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

  /// Optimises \p module at \p optLevel and compiles it into fresh code; the
  /// object file goes to \p object when it is not null (for the disk
  /// cache). The module gets the JIT's triple and data layout.
  llvm::Expected<std::unique_ptr<KernelCode>>
  addModule(std::unique_ptr<llvm::Module> module,
            std::unique_ptr<llvm::LLVMContext> context, unsigned optLevel,
            std::string *object);
  /// Links the object file \p object (named \p name in diagnostics).
  llvm::Expected<std::unique_ptr<KernelCode>> addObject(llvm::StringRef object,
                                                        llvm::StringRef name);

  /// Gives \p module the JIT's triple and data layout (what addModule does
  /// first; the disk cache keys the module's text after it).
  void prepareModule(llvm::Module &module) const;

  /// Kernels whose code is in memory (KernelCode objects alive).
  uint64_t getNumLiveCode() const { return liveCode; }

private:
  friend class KernelCode;
  class ObjectCapture;
  KernelJIT();
  /// A new JITDylib and tracker for one kernel, counted live.
  llvm::Expected<std::unique_ptr<KernelCode>> createCode();
  /// Compiles and links what \p code's tracker holds; sets its function.
  llvm::Error link(KernelCode &code);
  void release(KernelCode &code);

  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<ObjectCapture> capture;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  KernelTarget target;
  uint64_t counter = 0;
  std::atomic<uint64_t> liveCode{0};
};

} // namespace nnir

#endif // NNIR_LIB_EXECUTIONENGINE_KERNELJIT_H
