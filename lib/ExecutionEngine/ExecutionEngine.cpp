//===- ExecutionEngine.cpp - JIT-compiled kernels with a cache ------------===//
//
/// \file
/// The LLJIT setup (in the manner of MLIR's ExecutionEngine: our own
/// TargetMachine and optimisation, an ObjectCache hook to capture objects),
/// the in-memory kernel cache and the use of the disk cache
/// (nnir/ExecutionEngine/DiskCache.h), and running kernels.
//
//===----------------------------------------------------------------------===//

#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/Codegen/Lowering.h"
#include "nnir/ExecutionEngine/DiskCache.h"
#include "nnir/IR/Type.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/ObjectCache.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <mutex>
#include <unordered_map>

#ifndef NNIR_VERSION_STRING
#define NNIR_VERSION_STRING "unknown"
#endif

using namespace llvm;
using namespace llvm::orc;
using namespace nnir;

extern "C" {
// float16 conversions that LLVM calls on hosts without F16C.
static uint16_t nnirTruncSFHF2(float v) { return floatToHalf(v); }
static float nnirExtendHFSF2(uint16_t v) { return halfToFloat(v); }
static uint16_t nnirTruncDFHF2(double v) {
  return floatToHalf(static_cast<float>(v));
}
}

void EngineStats::print(raw_ostream &os) const {
  os << "===" << std::string(73, '-') << "===\n"
     << "                        ... Execution engine statistics ...\n"
     << "===" << std::string(73, '-') << "===\n";
  auto line = [&](uint64_t v, StringRef what) {
    os << formatv("{0,12} {1}\n", v, what);
  };
  line(kernelsCompiled, "kernels compiled");
  line(memoryHits, "kernel cache hits (memory)");
  line(diskHits, "kernel cache hits (disk)");
  line(diskWrites, "kernel cache entries written (disk)");
  line(diskCorrupt, "corrupt kernel cache entries replaced (disk)");
  line(diskOtherKey, "kernel cache entries of another key replaced (disk)");
  line(diskUntrusted, "untrusted kernel cache entries replaced (disk)");
  line(kernelRuns, "kernel runs");
  line(splatRuns, "kernel runs on splats (one element each)");
  line(bytesAllocated, "bytes allocated for results");
  os << formatv("{0,12:f3} ms compiling kernels\n", compileNanos / 1e6);
  os << formatv("{0,12:f3} ms running kernels\n", runNanos / 1e6);
}

namespace {
/// Captures the object of the module being compiled (SimpleCompiler calls
/// notifyObjectCompiled), so a miss can be written to the disk cache.
class CapturingObjectCache : public ObjectCache {
public:
  void notifyObjectCompiled(const Module *, MemoryBufferRef obj) override {
    last = obj.getBuffer().str();
  }
  std::unique_ptr<MemoryBuffer> getObject(const Module *) override {
    return nullptr;
  }
  std::string last;
};

using Clock = std::chrono::steady_clock;
uint64_t nanosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                              start)
      .count();
}

struct KeyHash {
  size_t operator()(const KernelKey &k) const { return k.getHash(); }
};
} // namespace

class ExecutionEngine::Impl {
public:
  std::unique_ptr<TargetMachine> tm;
  std::unique_ptr<LLJIT> jit;
  CapturingObjectCache objectCache;
  std::unique_ptr<DiskCache> diskCache;
  std::string triple, cpu, features;
  std::mutex mutex;
  std::unordered_map<KernelKey, std::unique_ptr<CompiledKernel>, KeyHash> cache;
  std::vector<std::unique_ptr<CompiledKernel>> uncached;
  /// Function node -> its kernel and runtime extents; holds a reference so
  /// the pointer stays valid.
  struct KnownFunction {
    Ref<Function> fn;
    const CompiledKernel *kernel;
    SmallVector<int64_t, 2> dims;
  };
  DenseMap<const Function *, KnownFunction> identity;
  unsigned counter = 0;
};

ExecutionEngine::ExecutionEngine(EngineOptions options)
    : options(std::move(options)), impl(std::make_unique<Impl>()) {}
ExecutionEngine::~ExecutionEngine() = default;

std::string ExecutionEngine::getTargetDescription() const {
  return impl->triple + " " + impl->cpu;
}

Expected<std::unique_ptr<ExecutionEngine>>
ExecutionEngine::create(EngineOptions options) {
  static std::once_flag initOnce;
  std::call_once(initOnce, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
  std::unique_ptr<ExecutionEngine> engine(
      new ExecutionEngine(std::move(options)));
  Impl &impl = *engine->impl;
  Expected<JITTargetMachineBuilder> jtmb =
      JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return jtmb.takeError();
  jtmb->setCodeGenOptLevel(CodeGenOptLevel::Default);
  impl.triple = jtmb->getTargetTriple().str();
  impl.cpu = jtmb->getCPU();
  impl.features = jtmb->getFeatures().getString();
  Expected<std::unique_ptr<TargetMachine>> tm = jtmb->createTargetMachine();
  if (!tm)
    return tm.takeError();
  impl.tm = std::move(*tm);

  TargetMachine *tmPtr = impl.tm.get();
  ObjectCache *cache = &impl.objectCache;
  Expected<std::unique_ptr<LLJIT>> jit =
      LLJITBuilder()
          .setJITTargetMachineBuilder(*jtmb)
          .setCompileFunctionCreator(
              [tmPtr, cache](JITTargetMachineBuilder)
                  -> Expected<std::unique_ptr<IRCompileLayer::IRCompiler>> {
                return std::make_unique<SimpleCompiler>(*tmPtr, cache);
              })
          .create();
  if (!jit)
    return jit.takeError();
  impl.jit = std::move(*jit);

  // The runtime: our entry points and half conversions as absolute symbols,
  // anything else (libm) from the process.
  JITDylib &main = impl.jit->getMainJITDylib();
  SymbolMap symbols;
  auto define = [&](StringRef name, void *addr) {
    symbols[impl.jit->mangleAndIntern(name)] = {ExecutorAddr::fromPtr(addr),
                                                JITSymbolFlags::Exported};
  };
  define("nnir_parallel_for", reinterpret_cast<void *>(&nnir_parallel_for));
  define("nnir_alloc", reinterpret_cast<void *>(&nnir_alloc));
  define("nnir_free", reinterpret_cast<void *>(&nnir_free));
  define("nnir_ipow_i64", reinterpret_cast<void *>(&nnir_ipow_i64));
  define("nnir_ipow_u64", reinterpret_cast<void *>(&nnir_ipow_u64));
  define("__truncsfhf2", reinterpret_cast<void *>(&nnirTruncSFHF2));
  define("__extendhfsf2", reinterpret_cast<void *>(&nnirExtendHFSF2));
  define("__truncdfhf2", reinterpret_cast<void *>(&nnirTruncDFHF2));
  define("__gnu_f2h_ieee", reinterpret_cast<void *>(&nnirTruncSFHF2));
  define("__gnu_h2f_ieee", reinterpret_cast<void *>(&nnirExtendHFSF2));
  if (Error e = main.define(absoluteSymbols(std::move(symbols))))
    return e;
  Expected<std::unique_ptr<DynamicLibrarySearchGenerator>> process =
      DynamicLibrarySearchGenerator::GetForCurrentProcess(
          impl.jit->getDataLayout().getGlobalPrefix());
  if (!process)
    return process.takeError();
  main.addGenerator(std::move(*process));

  if (!engine->options.cacheDir.empty()) {
    Expected<std::unique_ptr<DiskCache>> disk =
        DiskCache::open(engine->options.cacheDir);
    if (!disk)
      return disk.takeError();
    impl.diskCache = std::move(*disk);
  }
  return engine;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

Expected<const CompiledKernel *>
ExecutionEngine::getKernel(const Function &fn) {
  SmallVector<int64_t, 2> dims;
  return getKernel(fn, dims);
}

Expected<const CompiledKernel *>
ExecutionEngine::getKernel(const Function &fn, SmallVectorImpl<int64_t> &dims) {
  Impl &im = *impl;
  std::lock_guard<std::mutex> lock(im.mutex);
  auto known = options.memoryCache ? im.identity.find(&fn) : im.identity.end();
  if (known != im.identity.end()) {
    ++stats.memoryHits;
    dims.assign(known->second.dims.begin(), known->second.dims.end());
    return known->second.kernel;
  }
  std::optional<GenericShape> generic = GenericShape::get(fn);
  dims.clear();
  if (generic)
    dims.append(generic->getExtents().begin(), generic->getExtents().end());
  auto remember = [&](const CompiledKernel *kernel) {
    if (options.memoryCache)
      im.identity[&fn] = {Ref<Function>(const_cast<Function *>(&fn)), kernel,
                          SmallVector<int64_t, 2>(dims.begin(), dims.end())};
    return kernel;
  };
  std::optional<KernelKey> key;
  if (options.memoryCache) {
    key = KernelKey::get(fn, generic ? &*generic : nullptr);
    auto it = im.cache.find(*key);
    if (it != im.cache.end()) {
      ++stats.memoryHits;
      return remember(it->second.get());
    }
  }

  Clock::time_point start = Clock::now();
  Expected<TEFunction> te = lowerToTE(fn, generic ? &*generic : nullptr);
  if (!te)
    return te.takeError();
  auto context = std::make_unique<LLVMContext>();
  auto kernel = std::make_unique<CompiledKernel>();
  kernel->shapeGeneric = generic.has_value();
  Expected<std::unique_ptr<Module>> module =
      emitKernel(*te, *context, "kernel", options.codegen, kernel->info);
  if (!module)
    return module.takeError();
  kernel->optLevel = options.optLevel >= 0
                         ? static_cast<unsigned>(options.optLevel)
                         : chooseOptLevel(kernel->info.work, kernel->info.codeSize);

  Expected<JITDylib &> jd =
      im.jit->createJITDylib(("kernel" + Twine(im.counter++)).str());
  if (!jd)
    return jd.takeError();
  jd->addToLinkOrder(im.jit->getMainJITDylib());

  // The disk cache's key: everything the object depends on, recorded in
  // the entry and checked on load.
  std::string diskKey;
  bool fromDisk = false;
  if (im.diskCache) {
    (*module)->setTargetTriple(im.triple);
    (*module)->setDataLayout(im.tm->createDataLayout());
    std::string text;
    raw_string_ostream os(text);
    (*module)->print(os, nullptr);
    diskKey = formatv("nnir kernel\nabi={0}\nnnir={1}\nllvm={2}\ntriple={3}"
                      "\ncpu={4}\nfeatures={5}\nopt={6}\nmodule-sha256={7}\n",
                      kKernelABIVersion, NNIR_VERSION_STRING,
                      LLVM_VERSION_STRING, im.triple, im.cpu, im.features,
                      kernel->optLevel,
                      toHex(SHA256::hash(ArrayRef<uint8_t>(
                                reinterpret_cast<const uint8_t *>(text.data()),
                                text.size())),
                            /*LowerCase=*/true))
                  .str();
    DiskCache::Lookup entry = im.diskCache->lookup(diskKey);
    switch (entry.status) {
    case DiskCache::Status::Hit:
      if (Error e = im.jit->addObjectFile(
              *jd, MemoryBuffer::getMemBufferCopy(
                       entry.object, DiskCache::getEntryName(diskKey))))
        return e;
      fromDisk = true;
      ++stats.diskHits;
      break;
    case DiskCache::Status::Missing:
      break;
    case DiskCache::Status::Corrupt:
      ++stats.diskCorrupt;
      break;
    case DiskCache::Status::OtherKey:
      ++stats.diskOtherKey;
      break;
    case DiskCache::Status::Untrusted:
      ++stats.diskUntrusted;
      break;
    }
  }
  if (!fromDisk) {
    optimizeModule(**module, *im.tm, kernel->optLevel);
    // The code generator's level follows the kernel's (compiles happen on
    // this thread, under the lock, in the lookup below).
    im.tm->setOptLevel(kernel->optLevel == 0 ? CodeGenOptLevel::None
                                             : CodeGenOptLevel::Default);
    im.objectCache.last.clear();
    if (Error e = im.jit->addIRModule(
            *jd, ThreadSafeModule(std::move(*module), std::move(context))))
      return e;
  }
  Expected<ExecutorAddr> addr = im.jit->lookup(*jd, "kernel");
  if (!addr)
    return createStringError(inconvertibleErrorCode(),
                             "JIT compilation failed: " +
                                 toString(addr.takeError()));
  kernel->fn = addr->toPtr<KernelFn>();
  if (!fromDisk) {
    ++stats.kernelsCompiled;
    if (im.diskCache && !im.objectCache.last.empty() &&
        im.diskCache->store(diskKey, im.objectCache.last))
      ++stats.diskWrites;
  }
  stats.compileNanos += nanosSince(start);

  const CompiledKernel *result = kernel.get();
  if (key)
    im.cache.emplace(std::move(*key), std::move(kernel));
  else
    im.uncached.push_back(std::move(kernel));
  return remember(result);
}

/// The error for a result of \p dtype and \p shape that cannot be made.
static Error makeAllocationError(DataType dtype, ArrayRef<int64_t> shape,
                                 SMLoc loc, Error cause) {
  std::string message = toString(std::move(cause));
  std::string type;
  raw_string_ostream os(type);
  os << "Tensor[";
  printShape(os, shape);
  os << ", " << dtype << "]";
  return makeError(loc,
                   "cannot allocate a result of type " + type + ": " + message);
}

Expected<NDArray>
ExecutionEngine::allocate(DataType dtype, ArrayRef<int64_t> shape, SMLoc loc) {
  Expected<NDArray> array =
      NDArray::create(dtype, shape, options.maxTensorBytes, /*zeroFill=*/false);
  if (!array)
    return makeAllocationError(dtype, shape, loc, array.takeError());
  stats.bytesAllocated += array->getByteSize();
  return array;
}

/// Refuses a run of \p kernel (for \p fn, whose flattened result types are
/// \p results; on one element of each when \p splatRun) that would exceed
/// the engine's scratch limit or \p budget; otherwise adds its work to the
/// budget.
Error ExecutionEngine::checkRunCost(const CompiledKernel &kernel,
                                    const Function &fn,
                                    ArrayRef<const TensorType *> results,
                                    bool splatRun, RunBudget *budget) const {
  uint64_t maxBytes = budget ? budget->maxBufferBytes : UINT64_MAX;
  const KernelInfo &info = kernel.info;
  uint64_t work = info.fixedWork;
  for (auto [i, t] : llvm::enumerate(results)) {
    uint64_t elements = 1;
    if (!splatRun)
      for (int64_t d : t->getShape())
        elements = SaturatingMultiply<uint64_t>(elements, uint64_t(d));
    if (i < info.outputWork.size())
      work = SaturatingAdd(
          work, SaturatingMultiply<uint64_t>(info.outputWork[i], elements));
    uint64_t bytes = SaturatingMultiply<uint64_t>(
        elements, t->getDType().getStorageBytes());
    if (bytes > maxBytes)
      return make_error<ResourceLimitError>(
          fn.getLoc(), formatv("the result of type {0} would take {1} bytes, "
                               "more than the limit of {2} bytes per buffer",
                               TensorType::get(t->getShape(), t->getDType())
                                   ->str(),
                               bytes, maxBytes)
                           .str());
  }
  uint64_t maxScratch = std::min(maxBytes, options.maxTensorBytes);
  if (info.largestScratchBytes > maxScratch)
    return make_error<ResourceLimitError>(
        fn.getLoc(),
        info.largestScratchBytes == UINT64_MAX
            ? formatv("the kernel needs a scratch buffer of a run-time size, "
                      "and buffers are limited to {0} bytes",
                      maxScratch)
                  .str()
            : formatv("the kernel needs a scratch buffer of {0} bytes, more "
                      "than the limit of {1} bytes per buffer",
                      info.largestScratchBytes, maxScratch)
                  .str());
  if (!budget)
    return Error::success();
  if (work > budget->maxWork - std::min(budget->workUsed, budget->maxWork))
    return make_error<ResourceLimitError>(
        fn.getLoc(),
        formatv("the evaluation would take more than {0} scalar operations "
                "(this kernel {1}, the kernels before it {2})",
                budget->maxWork, work, budget->workUsed)
            .str());
  budget->workUsed += work;
  return Error::success();
}

static void flattenTensorTypes(const nnir::Type *type,
                               SmallVectorImpl<const TensorType *> &out) {
  if (const auto *tuple = dyn_cast_or_null<TupleType>(type)) {
    for (const Ref<nnir::Type> &f : tuple->getFields())
      flattenTensorTypes(f.get(), out);
    return;
  }
  out.push_back(dyn_cast_or_null<TensorType>(type));
}

char ResourceLimitError::ID = 0;

Expected<std::vector<NDArray>> ExecutionEngine::run(const Function &fn,
                                                    ArrayRef<NDArray> args,
                                                    RunBudget *budget) {
  SmallVector<int64_t, 2> dims;
  Expected<const CompiledKernel *> kernel = getKernel(fn, dims);
  if (!kernel)
    return kernel.takeError();
  SmallVector<const TensorType *, 4> paramTypes, resultTypes;
  for (const Ref<Var> &p : fn.getParams())
    flattenTensorTypes(p->getCheckedType() ? p->getCheckedType().get()
                                           : p->getTypeAnnotation().get(),
                       paramTypes);
  const nnir::Type *result = fn.getBody()->getCheckedType().get();
  flattenTensorTypes(result, resultTypes);
  if (paramTypes.size() != args.size())
    return makeArityError("the kernel", paramTypes.size(), args.size(),
                          fn.getLoc());
  for (size_t i = 0; i < args.size(); ++i)
    if (!paramTypes[i] || paramTypes[i]->getDType() != args[i].getDType() ||
        paramTypes[i]->getShape() != args[i].getShape())
      return makeError(fn.getLoc(), "argument " + Twine(i) +
                                        " does not match the parameter type");

  SmallVector<const NDArray *, 16> inputs;
  for (const NDArray &a : args)
    inputs.push_back(&a);
  forEachPrimitiveNode(fn, [&](const Expr *e) {
    if (const auto *c = dyn_cast<Constant>(e))
      inputs.push_back(&c->getData());
  });
  for (const TensorType *t : resultTypes)
    if (!t)
      return makeError(fn.getLoc(), "the function's result type is unknown");

  // A shape-generic kernel (broadcasts and re-shapes only) maps splat inputs
  // to splat results: run it once on one element of each (every extent 1)
  // and keep the results as splats, without a buffer of any full size.
  bool splatRun =
      (*kernel)->shapeGeneric && llvm::all_of(dims, [](int64_t d) {
        return d > 0;
      }) &&
      llvm::any_of(inputs, [](const NDArray *a) { return a->isSplat(); }) &&
      llvm::all_of(inputs, [](const NDArray *a) {
        return a->isSplat() || a->getNumElements() == 1;
      });
  std::vector<NDArray> elements;
  SmallVector<void *, 16> buffers;
  for (const NDArray *a : inputs) {
    if (!splatRun) {
      buffers.push_back(const_cast<void *>(a->getData()));
      continue;
    }
    elements.push_back(
        cantFail(NDArray::splat(a->getDType(), {}, a->getElementBits(0))));
    buffers.push_back(elements.back().getMutableData());
  }
  if (Error e = checkRunCost(**kernel, fn, resultTypes, splatRun, budget))
    return e;
  std::vector<NDArray> outputs;
  for (const TensorType *t : resultTypes) {
    Expected<NDArray> out =
        splatRun ? allocate(t->getDType(), {}, fn.getLoc())
                 : allocate(t->getDType(), t->getShape(), fn.getLoc());
    if (!out)
      return out.takeError();
    buffers.push_back(out->getMutableData());
    outputs.push_back(std::move(*out));
  }
  SmallVector<int64_t, 2> runDims(dims.begin(), dims.end());
  if (splatRun)
    std::fill(runDims.begin(), runDims.end(), 1);
  Clock::time_point start = Clock::now();
  int32_t status = (*kernel)->fn(buffers.data(), runDims.data());
  stats.runNanos += nanosSince(start);
  ++stats.kernelRuns;
  if (status != kKernelOK)
    return makeError(fn.getLoc(),
                     Twine("kernel failed: ") + getKernelStatusMessage(status));
  if (splatRun) {
    ++stats.splatRuns;
    for (auto [out, t] : llvm::zip_equal(outputs, resultTypes)) {
      Expected<NDArray> full =
          NDArray::splat(t->getDType(), t->getShape(), out.getElementBits(0),
                         options.maxTensorBytes);
      if (!full)
        return makeAllocationError(t->getDType(), t->getShape(), fn.getLoc(),
                                   full.takeError());
      out = std::move(*full);
    }
  }
  return outputs;
}

Expected<std::string> ExecutionEngine::getLLVMIR(const Function &fn,
                                                 bool optimized) {
  std::optional<GenericShape> generic = GenericShape::get(fn);
  Expected<TEFunction> te = lowerToTE(fn, generic ? &*generic : nullptr);
  if (!te)
    return te.takeError();
  LLVMContext context;
  KernelInfo info;
  Expected<std::unique_ptr<Module>> module =
      emitKernel(*te, context, "kernel", options.codegen, info);
  if (!module)
    return module.takeError();
  if (optimized) {
    std::lock_guard<std::mutex> lock(impl->mutex);
    optimizeModule(**module, *impl->tm,
                   options.optLevel >= 0 ? options.optLevel
                                         : chooseOptLevel(info.work, info.codeSize));
  }
  std::string text;
  raw_string_ostream os(text);
  (*module)->print(os, nullptr);
  return text;
}
