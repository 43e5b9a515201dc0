//===- KernelJIT.cpp - ORC LLJIT for kernels, one tracker each ------------===//
//
/// \file
/// The LLJIT setup (MLIR's ExecutionEngine's: our own TargetMachines and
/// optimisation, an RTDyld object layer with JIT event listeners), the
/// runtime symbols, compiling kernels to objects (on any thread), and
/// adding and freeing them through resource trackers.
//
//===----------------------------------------------------------------------===//

#include "KernelJIT.h"

#include "nnir/Codegen/Codegen.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

using namespace llvm;
using namespace llvm::orc;
using namespace nnir;

KernelJIT::KernelJIT() = default;
KernelJIT::~KernelJIT() = default;

/// The listeners \p options asks for, or why one is not available.
static Expected<SmallVector<JITEventListener *, 2>>
getListeners(const JITListenerOptions &options) {
  SmallVector<JITEventListener *, 2> listeners;
  if (options.gdb)
    listeners.push_back(JITEventListener::createGDBRegistrationListener());
  if (options.perf) {
#if LLVM_USE_PERF
    JITEventListener *perf = JITEventListener::createPerfJITEventListener();
#else
    JITEventListener *perf = nullptr;
#endif
    if (!perf)
      return createStringError(
          inconvertibleErrorCode(),
          "the perf JIT event listener is not available: LLVM " +
              Twine(LLVM_VERSION_STRING) +
              " was built without perf support (LLVM_USE_PERF)");
    listeners.push_back(perf);
  }
  return listeners;
}

Expected<std::unique_ptr<KernelJIT>>
KernelJIT::create(const RuntimeSymbolMap &symbols,
                  const JITListenerOptions &listenerOptions) {
  static std::once_flag initOnce;
  std::call_once(initOnce, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
  Expected<SmallVector<JITEventListener *, 2>> listeners =
      getListeners(listenerOptions);
  if (!listeners)
    return listeners.takeError();
  std::unique_ptr<KernelJIT> self(new KernelJIT());
  Expected<JITTargetMachineBuilder> jtmb =
      JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return jtmb.takeError();
  jtmb->setCodeGenOptLevel(CodeGenOptLevel::Default);
  self->target = {jtmb->getTargetTriple().str(), jtmb->getCPU(),
                  jtmb->getFeatures().getString()};
  Expected<std::unique_ptr<TargetMachine>> tm = jtmb->createTargetMachine();
  if (!tm)
    return tm.takeError();
  self->tm = std::move(*tm);

  self->tmBuilder = std::make_unique<JITTargetMachineBuilder>(*jtmb);
  // Kernels arrive as objects (compileObject); LLJIT only links them.
  LLJITBuilder builder;
  builder.setJITTargetMachineBuilder(*jtmb);
  // JIT event listeners attach to an RTDyld object layer (as in MLIR's
  // ExecutionEngine); without them LLJIT keeps its default linker, whose
  // freshly linked kernels run their first call faster (nnir-kernel-bench
  // cold: 120 us against 210 us on 256x256).
  if (!listeners->empty())
    builder.setObjectLinkingLayerCreator(
        [registered = *listeners](ExecutionSession &session, const Triple &)
            -> Expected<std::unique_ptr<ObjectLayer>> {
          auto layer = std::make_unique<RTDyldObjectLinkingLayer>(
              session, [] { return std::make_unique<SectionMemoryManager>(); });
          for (JITEventListener *listener : registered)
            layer->registerJITEventListener(*listener);
          return layer;
        });
  Expected<std::unique_ptr<LLJIT>> jit = builder.create();
  if (!jit)
    return jit.takeError();
  self->jit = std::move(*jit);

  // The runtime: the symbol map as absolute symbols, anything else (libm)
  // from the process.
  JITDylib &main = self->jit->getMainJITDylib();
  SymbolMap defined;
  for (const auto &entry : symbols)
    defined[self->jit->mangleAndIntern(entry.getKey())] = {
        ExecutorAddr::fromPtr(entry.getValue()), JITSymbolFlags::Exported};
  if (Error e = main.define(absoluteSymbols(std::move(defined))))
    return e;
  Expected<std::unique_ptr<DynamicLibrarySearchGenerator>> process =
      DynamicLibrarySearchGenerator::GetForCurrentProcess(
          self->jit->getDataLayout().getGlobalPrefix());
  if (!process)
    return process.takeError();
  main.addGenerator(std::move(*process));
  return self;
}

void KernelJIT::prepareModule(Module &module) const {
  module.setTargetTriple(target.triple);
  module.setDataLayout(tm->createDataLayout());
}

Expected<std::unique_ptr<KernelCode>> KernelJIT::createCode() {
  Expected<JITDylib &> dylib =
      jit->createJITDylib(("kernel" + Twine(counter++)).str());
  if (!dylib)
    return dylib.takeError();
  // The runtime symbols first: LLJIT's default links (the process's
  // symbols) come after, so the symbol map can replace a process symbol.
  JITDylibSearchOrder order{{&jit->getMainJITDylib(),
                             JITDylibLookupFlags::MatchExportedSymbolsOnly}};
  dylib->withLinkOrderDo([&](const JITDylibSearchOrder &defaults) {
    order.insert(order.end(), defaults.begin(), defaults.end());
  });
  dylib->setLinkOrder(std::move(order));
  ++liveCode;
  // From here on, a failure frees what was added (~KernelCode).
  return std::unique_ptr<KernelCode>(
      new KernelCode(*this, *dylib, dylib->createResourceTracker()));
}

Error KernelJIT::link(KernelCode &code) {
  // Looking the symbol up compiles (on this thread) and links it.
  Expected<ExecutorAddr> addr = jit->lookup(*code.dylib, "kernel");
  if (!addr)
    return createStringError(inconvertibleErrorCode(),
                             "JIT compilation failed: " +
                                 toString(addr.takeError()));
  code.fn = addr->toPtr<KernelFn>();
  return Error::success();
}

Expected<std::string> KernelJIT::compileObject(Module &module,
                                              unsigned optLevel) {
  // LLVM's optimiser and code generator make some globals on first use
  // (ManagedStatic timer and option tables). Their publication happens in
  // the uninstrumented libLLVM, where ThreadSanitizer cannot see it, so the
  // first compilation at each level runs alone: every later one, on any
  // thread and for any JIT, starts after it (std::call_once orders them).
  static std::once_flag firstAtLevel[2];
  std::optional<Expected<std::string>> first;
  std::call_once(firstAtLevel[optLevel == 0 ? 0 : 1],
                 [&] { first.emplace(compileObjectImpl(module, optLevel)); });
  if (first)
    return std::move(*first);
  return compileObjectImpl(module, optLevel);
}

Expected<std::string> KernelJIT::compileObjectImpl(Module &module,
                                                  unsigned optLevel) {
  std::unique_ptr<TargetMachine> machine;
  {
    std::lock_guard<std::mutex> lock(tmMutex);
    if (!freeMachines.empty()) {
      machine = std::move(freeMachines.back());
      freeMachines.pop_back();
    }
  }
  if (!machine) {
    Expected<std::unique_ptr<TargetMachine>> created =
        tmBuilder->createTargetMachine();
    if (!created)
      return created.takeError();
    machine = std::move(*created);
  }
  optimizeModule(module, *machine, optLevel);
  // The code generator's level follows the kernel's.
  machine->setOptLevel(optLevel == 0 ? CodeGenOptLevel::None
                                     : CodeGenOptLevel::Default);
  Expected<std::unique_ptr<MemoryBuffer>> object =
      SimpleCompiler(*machine)(module);
  {
    std::lock_guard<std::mutex> lock(tmMutex);
    freeMachines.push_back(std::move(machine));
  }
  if (!object)
    return createStringError(inconvertibleErrorCode(),
                             "JIT compilation failed: " +
                                 toString(object.takeError()));
  return (*object)->getBuffer().str();
}

Expected<std::unique_ptr<KernelCode>> KernelJIT::addObject(StringRef object,
                                                           StringRef name) {
  Expected<std::unique_ptr<KernelCode>> code = createCode();
  if (!code)
    return code.takeError();
  if (Error e = jit->addObjectFile(
          (*code)->tracker, MemoryBuffer::getMemBufferCopy(object, name)))
    return e;
  if (Error e = link(**code))
    return e;
  return code;
}

void KernelJIT::release(KernelCode &code) {
  // Removing the tracker frees the kernel's code and data (and tells the
  // listeners); removing the JITDylib drops its symbol table.
  if (Error e = code.tracker->remove())
    errs() << "nnir: cannot free a kernel: " << toString(std::move(e)) << "\n";
  if (Error e = jit->getExecutionSession().removeJITDylib(*code.dylib))
    errs() << "nnir: cannot free a kernel: " << toString(std::move(e)) << "\n";
  --liveCode;
}

KernelCode::~KernelCode() { jit.release(*this); }
