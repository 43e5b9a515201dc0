//===- ExecutionEngine.cpp - JIT-compiled kernels with a cache ------------===//
//
/// \file
/// The engine's front: a kernel for a primitive function, from the kernel
/// cache (nnir/ExecutionEngine/KernelCache.h) or compiled (lowering and
/// emission in Codegen, JIT in KernelJIT.h), and running kernels on
/// NDArrays within the limits.
//
//===----------------------------------------------------------------------===//

#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "KernelJIT.h"
#include "nnir/Codegen/Lowering.h"
#include "nnir/ExecutionEngine/DiskCache.h"
#include "nnir/ExecutionEngine/KernelCache.h"
#include "nnir/IR/Expr.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Traversal.h"
#include "nnir/IR/Type.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Support/PoolLoop.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <mutex>
#include <unordered_set>

using namespace llvm;
using namespace nnir;

NNIR_DEFINE_EXPLICIT_TYPE_ID(nnir::ExecutionEngine)

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
  line(kernelsEvicted, "kernels evicted from the memory cache");
  line(kernelsRecompiled, "kernels recompiled at O3 (run often)");
  line(kernelRuns, "kernel runs");
  line(splatRuns, "kernel runs on splats (one element each)");
  line(bytesAllocated, "bytes allocated for results");
  os << formatv("{0,12:f3} ms compiling kernels\n", compileNanos / 1e6);
  os << formatv("{0,12:f3} ms running kernels\n", runNanos / 1e6);
}

CompiledKernel::CompiledKernel() = default;
CompiledKernel::~CompiledKernel() = default;

namespace {
using Clock = std::chrono::steady_clock;
uint64_t nanosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                              start)
      .count();
}
} // namespace

class ExecutionEngine::Impl {
public:
  std::unique_ptr<KernelJIT> jit;
  /// Declared after the JIT: destroyed first, while the JIT can free code.
  std::unique_ptr<KernelCache> cache;
  std::mutex mutex;
};

ExecutionEngine::ExecutionEngine(EngineOptions options)
    : options(std::move(options)), impl(std::make_unique<Impl>()) {}

ExecutionEngine::~ExecutionEngine() {
  // Kernels first, then the JIT that holds their code.
  impl->cache.reset();
}

std::string ExecutionEngine::getTargetDescription() const {
  return impl->jit->getTarget().triple + " " + impl->jit->getTarget().cpu;
}

Expected<std::unique_ptr<ExecutionEngine>>
ExecutionEngine::create(EngineOptions options) {
  std::unique_ptr<ExecutionEngine> engine(
      new ExecutionEngine(std::move(options)));
  Impl &impl = *engine->impl;
  Expected<std::unique_ptr<KernelJIT>> jit = KernelJIT::create(
      engine->options.symbols, engine->options.listeners);
  if (!jit)
    return jit.takeError();
  impl.jit = std::move(*jit);
  std::unique_ptr<DiskCache> disk;
  if (!engine->options.cacheDir.empty()) {
    Expected<std::unique_ptr<DiskCache>> opened =
        DiskCache::open(engine->options.cacheDir);
    if (!opened)
      return opened.takeError();
    disk = std::move(*opened);
  }
  impl.cache = std::make_unique<KernelCache>(
      engine->options.maxCachedKernels, std::move(disk), engine->stats);
  if (engine->options.profile)
    engine->profile = std::make_unique<KernelProfile>();
  return engine;
}

void ExecutionEngine::clearCache() {
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->cache->clear();
}

uint64_t ExecutionEngine::getNumLiveKernels() const {
  return impl->jit->getNumLiveCode();
}

size_t ExecutionEngine::getNumCachedKernels() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->cache->size();
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// A primitive function's name in time traces, as TVM names fused
/// functions: `fused_` and its operators in the order they are computed.
static std::string getKernelName(const nnir::Function &fn) {
  std::string name = "fused";
  walk(const_cast<nnir::Function *>(&fn), [&](Expr *e) {
    if (const auto *call = dyn_cast<Call>(e))
      if (const Op *op = call->getCalledOp())
        if (name.size() < 120)
          name += "_" + op->getName().str();
  });
  return name;
}

Expected<KernelRef> ExecutionEngine::getKernel(const Function &fn) {
  SmallVector<int64_t, 2> dims;
  return getKernel(fn, dims);
}

Expected<KernelRef> ExecutionEngine::getKernel(const Function &fn,
                                               SmallVectorImpl<int64_t> &dims) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  KernelCache &cache = *impl->cache;
  KernelRef known;
  if (options.memoryCache)
    known = cache.lookup(fn, dims);
  if (known && !shouldRecompile(*known))
    return known;
  std::optional<GenericShape> generic = GenericShape::get(fn);
  dims.clear();
  if (generic)
    dims.append(generic->getExtents().begin(), generic->getExtents().end());
  std::optional<KernelKey> key;
  if (options.memoryCache) {
    key = KernelKey::get(fn, generic ? &*generic : nullptr);
    if (!known)
      known = cache.lookup(*key, fn, dims);
    if (known && !shouldRecompile(*known))
      return known;
  }
  // A miss, or a kernel run often enough to be worth O3 now.
  std::optional<unsigned> level;
  if (known)
    level = 3;
  Expected<std::unique_ptr<CompiledKernel>> compiled =
      compileKernel(fn, generic ? &*generic : nullptr, level);
  if (!compiled)
    return compiled.takeError();
  if (known)
    ++stats.kernelsRecompiled;
  KernelRef kernel(std::move(*compiled));
  if (key)
    cache.insert(std::move(*key), kernel, fn, dims);
  return kernel;
}

std::pair<unsigned, bool>
ExecutionEngine::pickOptLevel(const KernelInfo &info) const {
  if (options.optLevel >= 0)
    return {static_cast<unsigned>(options.optLevel), false};
  // A disk-cached kernel is compiled once for every process that runs it.
  if (impl->cache->hasDisk())
    return {3, true};
  return {chooseOptLevel(info.work, info.codeSize), true};
}

bool ExecutionEngine::shouldRecompile(const CompiledKernel &kernel) {
  // The one-run rule applied to the work run so far: O3 would by now have
  // saved about what it costs, so it pays if the kernel keeps running as it
  // has (a ski-rental choice: never more than twice the better of the two).
  return kernel.autoOptLevel && kernel.optLevel == 0 &&
         chooseOptLevel(kernel.workRun.load(std::memory_order_relaxed),
                        kernel.info.codeSize) == 3;
}

struct ExecutionEngine::BuiltKernel {
  std::unique_ptr<CompiledKernel> kernel;
  /// The disk cache's key ("" without a disk cache).
  std::string objectKey;
  std::string object;
  /// Whether the object was compiled (else read from the disk cache).
  bool compiled = false;
  /// The time building took.
  uint64_t nanos = 0;
};

Expected<ExecutionEngine::BuiltKernel>
ExecutionEngine::buildKernel(const Function &fn, const GenericShape *generic,
                             std::optional<unsigned> optLevel) {
  Clock::time_point start = Clock::now();
  // --time-trace: each compile (lowering, codegen, JIT or disk cache).
  TimeTraceScope trace("CompileKernel", [&] { return getKernelName(fn); });
  Expected<TEFunction> te = lowerToTE(fn, generic);
  if (!te)
    return te.takeError();
  LLVMContext context;
  BuiltKernel built;
  built.kernel = std::make_unique<CompiledKernel>();
  CompiledKernel &kernel = *built.kernel;
  kernel.shapeGeneric = generic != nullptr;
  kernel.symbolic = te->symbolic;
  if (te->symbolic) {
    kernel.dimVars = te->dimVars;
    kernel.dimOfAnyExtent = te->dimOfAnyExtent;
    for (const te::Tensor &out : te->outputs)
      kernel.outputShapes.push_back(out.getShape());
  }
  kernel.name = getKernelName(fn);
  Expected<std::unique_ptr<Module>> module =
      emitKernel(*te, context, "kernel", options.codegen, kernel.info);
  if (!module)
    return module.takeError();
  std::tie(kernel.optLevel, kernel.autoOptLevel) = pickOptLevel(kernel.info);
  if (optLevel)
    kernel.optLevel = *optLevel;

  KernelJIT &jit = *impl->jit;
  KernelCache &cache = *impl->cache;
  // The disk cache's key: everything the object depends on, recorded in
  // the entry and checked on load. (Reading the disk is safe on any
  // thread: the cache only counts in atomic stats there.)
  if (cache.hasDisk()) {
    jit.prepareModule(**module);
    built.objectKey = KernelCache::getObjectKey(**module, jit.getTarget(),
                                                kernel.optLevel);
    if (std::optional<std::string> object =
            cache.loadObject(built.objectKey)) {
      built.object = std::move(*object);
      built.nanos = nanosSince(start);
      return built;
    }
  }
  Expected<std::string> object = jit.compileObject(**module, kernel.optLevel);
  if (!object)
    return object.takeError();
  built.object = std::move(*object);
  built.compiled = true;
  built.nanos = nanosSince(start);
  return built;
}

Expected<std::unique_ptr<CompiledKernel>>
ExecutionEngine::linkKernel(BuiltKernel built) {
  Clock::time_point start = Clock::now();
  KernelCache &cache = *impl->cache;
  Expected<std::unique_ptr<KernelCode>> code = impl->jit->addObject(
      built.object, built.objectKey.empty()
                        ? StringRef("kernel")
                        : StringRef(DiskCache::getEntryName(built.objectKey)));
  if (!code)
    return code.takeError();
  if (built.compiled) {
    ++stats.kernelsCompiled;
    cache.storeObject(built.objectKey, built.object);
  }
  std::unique_ptr<CompiledKernel> kernel = std::move(built.kernel);
  kernel->code = std::move(*code);
  kernel->fn = kernel->code->getFunction();
  stats.compileNanos += built.nanos + nanosSince(start);
  return kernel;
}

Expected<std::unique_ptr<CompiledKernel>>
ExecutionEngine::compileKernel(const Function &fn,
                               const GenericShape *generic,
                               std::optional<unsigned> optLevel) {
  Expected<BuiltKernel> built = buildKernel(fn, generic, optLevel);
  if (!built)
    return built.takeError();
  return linkKernel(std::move(*built));
}

void ExecutionEngine::precompile(ArrayRef<const Function *> fns) {
  ThreadPoolInterface *pool = options.compileThreads.get();
  if (!pool || !options.memoryCache)
    return;
  struct Job {
    const Function *fn;
    std::optional<GenericShape> generic;
    std::optional<KernelKey> key;
    SmallVector<int64_t, 2> dims;
    std::optional<Expected<BuiltKernel>> built;
  };
  std::vector<Job> jobs;
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    KernelCache &cache = *impl->cache;
    struct KeyHash {
      size_t operator()(const KernelKey &k) const { return k.getHash(); }
    };
    std::unordered_set<KernelKey, KeyHash> queued;
    for (const Function *fn : fns) {
      // A function with `?` parameters compiles ahead only as a symbolic
      // kernel (the others are specialised when they run).
      if (llvm::any_of(fn->getParams(),
                       [](const Ref<Var> &p) {
                         return hasDynamicShape(p->getCheckedType().get());
                       }) &&
          !canLowerSymbolic(*fn))
        continue;
      Job job{fn, GenericShape::get(*fn), std::nullopt, {}, std::nullopt};
      SmallVector<int64_t, 2> dims;
      if (cache.lookup(*fn, dims, /*use=*/false))
        continue;
      if (job.generic)
        job.dims.append(job.generic->getExtents().begin(),
                        job.generic->getExtents().end());
      job.key = KernelKey::get(*fn, job.generic ? &*job.generic : nullptr);
      if (cache.lookup(*job.key, *fn, job.dims, /*use=*/false) ||
          !queued.insert(*job.key).second)
        continue;
      jobs.push_back(std::move(job));
    }
  }
  // One kernel gains nothing from another thread.
  if (jobs.size() < 2)
    return;
  runPoolLoop(*pool, pool->getMaxConcurrency(), jobs.size(), [&](size_t i) {
    Job &job = jobs[i];
    job.built.emplace(buildKernel(
        *job.fn, job.generic ? &*job.generic : nullptr, std::nullopt));
  });
  std::lock_guard<std::mutex> lock(impl->mutex);
  KernelCache &cache = *impl->cache;
  for (Job &job : jobs) {
    Expected<BuiltKernel> &built = *job.built;
    // A failure is reported where the function runs (getKernel).
    if (!built) {
      consumeError(built.takeError());
      continue;
    }
    // Another thread's getKernel may have compiled it meanwhile.
    if (cache.lookup(*job.key, *job.fn, job.dims, /*use=*/false))
      continue;
    Expected<std::unique_ptr<CompiledKernel>> kernel =
        linkKernel(std::move(*built));
    if (!kernel) {
      consumeError(kernel.takeError());
      continue;
    }
    cache.insert(std::move(*job.key), KernelRef(std::move(*kernel)), *job.fn,
                 job.dims, /*precompiled=*/true);
  }
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
/// budget and returns it.
Expected<uint64_t> ExecutionEngine::checkRunCost(const CompiledKernel &kernel,
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
    return work;
  if (work > budget->maxWork - std::min(budget->workUsed, budget->maxWork))
    return make_error<ResourceLimitError>(
        fn.getLoc(),
        formatv("the evaluation would take more than {0} scalar operations "
                "(this kernel {1}, the kernels before it {2})",
                budget->maxWork, work, budget->workUsed)
            .str());
  budget->workUsed += work;
  return work;
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
char SharedExtentError::ID = 0;

/// The concrete types of the results of the symbolic \p kernel (of \p fn,
/// whose flattened result types are \p declared) for its \p dims: its
/// extents, which must agree with \p declared's static ones and with
/// \p expected (the shape function's types), when given.
static Error sizeSymbolicResults(const CompiledKernel &kernel,
                                 ArrayRef<int64_t> dims,
                                 ArrayRef<const TensorType *> declared,
                                 ArrayRef<const TensorType *> expected,
                                 const nnir::Function &fn,
                                 SmallVectorImpl<Ref<nnir::Type>> &concrete) {
  if (kernel.outputShapes.size() != declared.size() ||
      (!expected.empty() && expected.size() != declared.size()))
    return makeError(fn.getLoc(), "the kernel's results do not match the "
                                  "function's result type");
  for (auto [i, shape] : llvm::enumerate(kernel.outputShapes)) {
    SmallVector<int64_t, 4> extents;
    for (const te::Expr &e : shape) {
      std::optional<int64_t> v = evaluateExtent(e, kernel.dimVars, dims);
      if (!v || *v < 0)
        return makeError(fn.getLoc(),
                         "the kernel's result " + Twine(i) +
                             " has an extent that cannot be computed for "
                             "these arguments");
      extents.push_back(*v);
    }
    Ref<nnir::Type> type = TensorType::get(extents, declared[i]->getDType());
    const nnir::Type *want =
        expected.empty() ? declared[i] : static_cast<const nnir::Type *>(
                                             expected[i]);
    bool agrees = expected.empty() ? typesCompatible(want, type.get())
                                   : typesEqual(want, type.get());
    if (!agrees)
      return makeError(fn.getLoc(), "the kernel's result " + Twine(i) +
                                        " of type " + type->str() +
                                        " differs from the shape function's " +
                                        want->str());
    concrete.push_back(std::move(type));
  }
  return Error::success();
}

Expected<std::vector<NDArray>> ExecutionEngine::run(const Function &fn,
                                                    ArrayRef<NDArray> args,
                                                    RunBudget *budget,
                                                    const nnir::Type *resultType) {
  SmallVector<int64_t, 2> dims;
  Expected<KernelRef> kernel = getKernel(fn, dims);
  if (!kernel)
    return kernel.takeError();
  SmallVector<const TensorType *, 4> paramTypes, resultTypes;
  for (const Ref<Var> &p : fn.getParams())
    flattenTensorTypes(p->getCheckedType() ? p->getCheckedType().get()
                                           : p->getTypeAnnotation().get(),
                       paramTypes);
  const nnir::Type *result = fn.getBody()->getCheckedType().get();
  bool symbolic = (*kernel)->symbolic;
  flattenTensorTypes(symbolic && resultType ? resultType : result,
                     resultTypes);
  if (paramTypes.size() != args.size())
    return makeArityError("the kernel", paramTypes.size(), args.size(),
                          fn.getLoc());
  // A symbolic kernel's `dims`: the arguments' extents at the `?` positions
  // of the parameter types, each at its variable's index.
  unsigned anyExtents = 0;
  if (symbolic)
    dims.assign((*kernel)->dimVars.size(), -1);
  for (size_t i = 0; i < args.size(); ++i) {
    const TensorType *param = paramTypes[i];
    bool fits = param && param->getDType() == args[i].getDType() &&
                param->getRank() == args[i].getShape().size();
    for (unsigned a = 0; fits && a < param->getRank(); ++a) {
      int64_t want = param->getShape()[a], got = args[i].getShape()[a];
      if (!symbolic || want != kAnyDim) {
        fits = want == got;
        continue;
      }
      if (anyExtents >= (*kernel)->dimOfAnyExtent.size())
        return makeError(fn.getLoc(), "the kernel's run-time extents do not "
                                      "match its parameters");
      int64_t &slot = dims[(*kernel)->dimOfAnyExtent[anyExtents++]];
      if (slot >= 0 && slot != got)
        return make_error<SharedExtentError>(
            fn.getLoc(), "the arguments disagree on a `?` extent the kernel "
                         "shares between them");
      slot = got;
    }
    if (!fits)
      return makeError(fn.getLoc(), "argument " + Twine(i) +
                                        " does not match the parameter type");
  }
  SmallVector<Ref<nnir::Type>, 4> concreteResults;
  if (symbolic) {
    if (anyExtents != (*kernel)->dimOfAnyExtent.size() ||
        llvm::is_contained(dims, -1))
      return makeError(fn.getLoc(), "the kernel's run-time extents do not "
                                    "match its parameters");
    SmallVector<const TensorType *, 4> declared, expected;
    flattenTensorTypes(result, declared);
    if (resultType)
      expected = resultTypes;
    if (llvm::is_contained(declared, nullptr) ||
        llvm::is_contained(expected, nullptr))
      return makeError(fn.getLoc(), "the function's result type is unknown");
    if (Error err = sizeSymbolicResults(**kernel, dims, declared, expected,
                                        fn, concreteResults))
      return err;
    resultTypes.clear();
    for (const Ref<nnir::Type> &t : concreteResults)
      resultTypes.push_back(cast<TensorType>(t.get()));
  }

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
  Expected<uint64_t> work =
      checkRunCost(**kernel, fn, resultTypes, splatRun, budget);
  if (!work)
    return work.takeError();
  // A symbolic kernel is compiled (at the engine's choice) before any shape
  // is known, so by a small shape's work; once a run's own work pays for
  // O3 (the one-run rule, as for a kernel of static shapes), it is compiled
  // again at O3 before that run.
  bool counted = false;
  if (symbolic && (*kernel)->autoOptLevel && (*kernel)->optLevel == 0 &&
      chooseOptLevel(*work, (*kernel)->info.codeSize) == 3) {
    if (!counted)
    (*kernel)->workRun.fetch_add(*work, std::memory_order_relaxed);
    counted = true;
    SmallVector<int64_t, 2> unused;
    Expected<KernelRef> faster = getKernel(fn, unused);
    if (!faster)
      return faster.takeError();
    *kernel = std::move(*faster);
  }
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
  int32_t status = [&] {
    TimeTraceScope trace("RunKernel", [&] { return (*kernel)->name; });
    return (*kernel)->fn(buffers.data(), runDims.data());
  }();
  uint64_t nanos = nanosSince(start);
  stats.runNanos += nanos;
  ++stats.kernelRuns;
  if (!counted)
    (*kernel)->workRun.fetch_add(*work, std::memory_order_relaxed);
  if (profile)
    profile->record(
        kernel->get(),
        [&] {
          // The name and the result type, which tells kernels apart.
          return (*kernel)->name + " -> " +
                 (symbolic && resultType ? resultType : result)->str();
        },
        nanos, *work);
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
    optimizeModule(**module, impl->jit->getTargetMachine(),
                   pickOptLevel(info).first);
  }
  std::string text;
  raw_string_ostream os(text);
  (*module)->print(os, nullptr);
  return text;
}
