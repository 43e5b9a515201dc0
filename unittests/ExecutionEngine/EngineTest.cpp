//===- EngineTest.cpp - Tests of kernel compilation and the caches --------===//
//
/// \file
/// The in-memory cache (hits for functions that differ only in constant
/// values, or only in shape when shape-generic; misses for other operators,
/// attributes, dtypes or baked shapes), the kernel results, the disk cache
/// across engines, a corrupt or truncated disk entry, and concurrent
/// writers of one entry.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/Codegen/Lowering.h"
#include "nnir/ExecutionEngine/KernelKey.h"
#include "nnir/IR/Op.h"
#include "nnir/Ops/Compute.h"
#include "nnir/IR/TypeRelation.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <mutex>
#include <thread>

using namespace nnir;
using namespace nnir::test;

namespace {

std::string kernelModule(llvm::StringRef shape, llvm::StringRef op,
                         llvm::StringRef constant,
                         llvm::StringRef dtype = "float32") {
  std::string type = ("Tensor[" + shape + ", " + dtype + "]").str();
  return ("def @main(%x: " + type + ") {\n  %0 = fn (%a: " + type +
          ", Primitive=1) {\n    " + op + "(%a, " + constant +
          ")\n  };\n  %0(%x)\n}\n")
      .str();
}

NDArray filled(llvm::ArrayRef<int64_t> shape, double value,
               DataType dtype = DataType::float32()) {
  NDArray a = llvm::cantFail(NDArray::create(dtype, shape));
  for (int64_t i = 0; i < a.getNumElements(); ++i)
    a.setElementFromDouble(i, value + i);
  return a;
}

struct Compiled {
  llvm::SourceMgr sm;
  Ref<IRModule> module;
  const Function *fn = nullptr;
  explicit Compiled(const std::string &text) {
    module = parseTyped(text, sm);
    fn = module ? firstPrimitive(*module) : nullptr;
  }
};

TEST(EngineTest, ConstantsAreLiftedAndShapesGeneric) {
  auto engine = llvm::cantFail(ExecutionEngine::create());
  Compiled a(kernelModule("(2, 3)", "multiply", "2f"));
  Compiled b(kernelModule("(2, 3)", "multiply", "5f"));
  Compiled c(kernelModule("(7)", "multiply", "3f"));
  ASSERT_TRUE(a.fn && b.fn && c.fn);

  auto ra = engine->run(*a.fn, {filled({2, 3}, 1)});
  ASSERT_TRUE(bool(ra)) << llvm::toString(ra.takeError());
  auto rb = engine->run(*b.fn, {filled({2, 3}, 1)});
  ASSERT_TRUE(bool(rb)) << llvm::toString(rb.takeError());
  auto rc = engine->run(*c.fn, {filled({7}, 1)});
  ASSERT_TRUE(bool(rc)) << llvm::toString(rc.takeError());
  // One kernel: b differs in the constant, c in the shape (shape-generic).
  EXPECT_EQ(engine->getStats().kernelsCompiled, 1u);
  EXPECT_EQ(engine->getStats().memoryHits, 2u);
  EXPECT_EQ((*ra)[0].getElementAsDouble(5), 12.0);
  EXPECT_EQ((*rb)[0].getElementAsDouble(5), 30.0);
  EXPECT_EQ((*rc)[0].getElementAsDouble(6), 21.0);
  EXPECT_EQ((*rc)[0].getShape(), llvm::ArrayRef<int64_t>({7}));
  // The same node again: the identity memo.
  ASSERT_TRUE(bool(engine->getKernel(*a.fn)));
  EXPECT_EQ(engine->getStats().memoryHits, 3u);
}

TEST(EngineTest, DifferentStructureMisses) {
  auto engine = llvm::cantFail(ExecutionEngine::create());
  Compiled base(kernelModule("(4)", "add", "1f"));
  Compiled otherOp(kernelModule("(4)", "subtract", "1f"));
  Compiled otherType(kernelModule("(4)", "add", "1", "int32"));
  // A broadcast along the rows: another pattern of the merged axes.
  Compiled rows(kernelModule("(4, 2)", "add",
                             "dense<[1, 2]> : Tensor[(2), float32]"));
  // nn.prelu reads its alpha along an axis: shapes are baked in.
  Compiled baked(kernelModule("(4, 2)", "nn.prelu",
                              "dense<[1, 2]> : Tensor[(2), float32]"));
  Compiled bakedOther(kernelModule("(3, 2)", "nn.prelu",
                                   "dense<[1, 2]> : Tensor[(2), float32]"));
  for (Compiled *c : {&base, &otherOp, &otherType, &rows, &baked, &bakedOther}) {
    ASSERT_TRUE(c->fn);
    auto k = engine->getKernel(*c->fn);
    ASSERT_TRUE(bool(k)) << llvm::toString(k.takeError());
  }
  EXPECT_EQ(engine->getStats().kernelsCompiled, 6u);
  EXPECT_EQ(engine->getStats().memoryHits, 0u);

  // Keys: equal up to constants, different across attributes.
  Compiled clipA(kernelModule("(4)", "add", "1f"));
  auto keyOf = [](const Function &fn) {
    std::optional<GenericShape> g = GenericShape::get(fn);
    return KernelKey::get(fn, g ? &*g : nullptr);
  };
  EXPECT_TRUE(keyOf(*base.fn) == keyOf(*clipA.fn));
  EXPECT_FALSE(keyOf(*base.fn) == keyOf(*otherOp.fn));
  llvm::SourceMgr sm1, sm2;
  auto m1 = parseTyped("def @main(%x: Tensor[(4), float32]) {\n"
                       "  %0 = fn (%a: Tensor[(4), float32], Primitive=1) {\n"
                       "    clip(%a, a_min=0f, a_max=1f)\n  };\n  %0(%x)\n}\n",
                       sm1);
  auto m2 = parseTyped("def @main(%x: Tensor[(4), float32]) {\n"
                       "  %0 = fn (%a: Tensor[(4), float32], Primitive=1) {\n"
                       "    clip(%a, a_min=0f, a_max=2f)\n  };\n  %0(%x)\n}\n",
                       sm2);
  ASSERT_TRUE(m1 && m2);
  EXPECT_FALSE(keyOf(*firstPrimitive(*m1)) == keyOf(*firstPrimitive(*m2)));
}

/// Checks GenericShape::get(*fn): its extents, and the merged axes (first,
/// count, mask) of each parameter in turn.
void expectGeneric(
    const Function *fn, llvm::ArrayRef<int64_t> extents,
    llvm::ArrayRef<std::tuple<unsigned, unsigned, uint64_t>> params) {
  ASSERT_TRUE(fn);
  std::optional<GenericShape> g = GenericShape::get(*fn);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->getExtents(), extents);
  for (auto [i, expected] : llvm::enumerate(params)) {
    GenericShape::TensorAxes axes = g->getAxes(fn->getParam(i).get());
    EXPECT_EQ(std::make_tuple(axes.first, axes.count, axes.mask), expected)
        << "parameter " << i;
  }
}

TEST(EngineTest, GenericShapeMergesAxesByBroadcastPattern) {
  // Same-shape elementwise: one axis, the element count.
  Compiled flat(kernelModule("(2, 3, 4)", "add", "1f"));
  expectGeneric(flat.fn, {24}, {{0, 1, 1}});

  // A per-channel bias: (channels, pixels); the leading 1 is dropped.
  Compiled channel(
      "def @main(%x: Tensor[(1, 8, 5, 5), float32], %b: Tensor[(8, 1, 1), "
      "float32]) {\n  %0 = fn (%a: Tensor[(1, 8, 5, 5), float32], %c: "
      "Tensor[(8, 1, 1), float32], Primitive=1) {\n    nn.relu(add(%a, %c))\n"
      "  };\n  %0(%x, %b)\n}\n");
  expectGeneric(channel.fn, {8, 25}, {{0, 2, 3}, {0, 2, 1}});

  // A re-shape starts a new domain: the scale (C) and the weights
  // (C, K, 3, 3) it multiplies after expand_dims.
  Compiled scale(
      "def @main(%s: Tensor[(4), float32], %w: Tensor[(4, 2, 3, 3), "
      "float32]) {\n  %0 = fn (%a: Tensor[(4), float32], %b: "
      "Tensor[(4, 2, 3, 3), float32], Primitive=1) {\n"
      "    multiply(%b, expand_dims(%a, axis=1, num_newaxis=3))\n"
      "  };\n  %0(%s, %w)\n}\n");
  expectGeneric(scale.fn, {4, 4, 18}, {{0, 1, 1}, {1, 2, 3}});

  // Extents that disagree on an aligned axis of one domain (%s broadcast
  // against rows of 2 and rows of 5) are not shape-generic; nor is an
  // operator that reads an axis attribute.
  Compiled conflict(
      "def @main(%x: Tensor[(2, 3), float32], %s: Tensor[(3), float32], %t: "
      "Tensor[(5, 1), float32]) {\n  %0 = fn (%a: Tensor[(2, 3), float32], "
      "%b: Tensor[(3), float32], %c: Tensor[(5, 1), float32], Primitive=1) {\n"
      "    (add(%a, %b), add(%b, %c))\n  };\n  %0(%x, %s, %t)\n}\n");
  ASSERT_TRUE(conflict.fn);
  EXPECT_FALSE(GenericShape::get(*conflict.fn));
  Compiled prelu(kernelModule("(4, 2)", "nn.prelu",
                              "dense<[1, 2]> : Tensor[(2), float32]"));
  ASSERT_TRUE(prelu.fn);
  EXPECT_FALSE(GenericShape::get(*prelu.fn));
}

TEST(EngineTest, RefusesLargeResultsAndBadArguments) {
  EngineOptions options;
  options.maxTensorBytes = 16;
  auto engine = llvm::cantFail(ExecutionEngine::create(options));
  Compiled c(kernelModule("(8)", "add", "1f"));
  ASSERT_TRUE(c.fn);
  auto r = engine->run(*c.fn, {filled({8}, 0)});
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError())
                .find("cannot allocate a result of type Tensor[(8), float32]"),
            std::string::npos);
  // A run on splats allocates one element, but its result is bounded by
  // the size it stands for.
  auto splat = engine->run(
      *c.fn, {llvm::cantFail(NDArray::splat(DataType::float32(), {8}, 0))});
  ASSERT_FALSE(bool(splat));
  EXPECT_NE(llvm::toString(splat.takeError())
                .find("cannot allocate a result of type Tensor[(8), float32]: "
                      "tensor of 32 bytes exceeds the limit of 16 bytes"),
            std::string::npos);
  auto engine2 = llvm::cantFail(ExecutionEngine::create());
  auto wrong = engine2->run(*c.fn, {filled({8}, 0, DataType::float64())});
  ASSERT_FALSE(bool(wrong));
  EXPECT_NE(llvm::toString(wrong.takeError()).find("argument 0 does not match"),
            std::string::npos);
}

TEST(EngineTest, SplatInputsRunOnOneElement) {
  auto engine = llvm::cantFail(ExecutionEngine::create());
  // 2^30 elements (4 GiB): a full-size run would allocate the result.
  Compiled huge(kernelModule("(1024, 1048576)", "add", "1.5f"));
  ASSERT_TRUE(huge.fn);
  NDArray splat = llvm::cantFail(NDArray::splat(
      DataType::float32(), {1024, 1048576}, 0x40000000 /*2.0f*/));
  auto r = engine->run(*huge.fn, {splat});
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_TRUE((*r)[0].isSplat());
  EXPECT_EQ((*r)[0].getShape(), llvm::ArrayRef<int64_t>({1024, 1048576}));
  EXPECT_EQ((*r)[0].getElementAsDouble(123456789), 3.5);
  EXPECT_EQ(engine->getStats().splatRuns, 1u);
  EXPECT_EQ(engine->getStats().bytesAllocated, 4u);

  // The same kernel on a dense argument runs in full.
  Compiled small(kernelModule("(2, 3)", "add", "1.5f"));
  auto dense = engine->run(*small.fn, {filled({2, 3}, 1)});
  ASSERT_TRUE(bool(dense)) << llvm::toString(dense.takeError());
  EXPECT_FALSE((*dense)[0].isSplat());
  EXPECT_EQ((*dense)[0].getElementAsDouble(5), 7.5);
  EXPECT_EQ(engine->getStats().splatRuns, 1u);

  // A reduction is not shape-generic: its result is not the element.
  Compiled sum("def @main(%x: Tensor[(2, 3), float32]) {\n"
               "  %0 = fn (%a: Tensor[(2, 3), float32], Primitive=1) {\n"
               "    sum(%a, axis=[1])\n  };\n  %0(%x)\n}\n");
  ASSERT_TRUE(sum.fn);
  auto summed = engine->run(*sum.fn, {llvm::cantFail(NDArray::splat(
                                         DataType::float32(), {2, 3},
                                         0x40000000 /*2.0f*/))});
  ASSERT_TRUE(bool(summed)) << llvm::toString(summed.takeError());
  EXPECT_EQ((*summed)[0].getElementAsDouble(1), 6.0);
  EXPECT_EQ(engine->getStats().splatRuns, 1u);
}

/// Registers \p name: one tensor argument, a result of the same type.
OpBuilder addIdentityTestOp(llvm::StringRef name) {
  return OpRegistry::instance()
      .add(name)
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr,
          [](llvm::ArrayRef<const Type *> args, const Attrs *,
             const TypeRelationContext &) -> llvm::Expected<Ref<Type>> {
            return Ref<Type>(const_cast<Type *>(args[0]));
          });
}

/// The error of running a primitive function that calls \p op on a
/// Tensor[(4), float32].
std::string runErrorOf(llvm::StringRef op) {
  Compiled c(("def @main(%x: Tensor[(4), float32]) {\n"
              "  %0 = fn (%a: Tensor[(4), float32], Primitive=1) {\n    " +
              op + "(%a)\n  };\n  %0(%x)\n}\n")
                 .str());
  if (!c.fn)
    return "(did not parse)";
  auto engine = llvm::cantFail(ExecutionEngine::create());
  auto r = engine->run(*c.fn, {filled({4}, 0)});
  return r ? "(ran)" : llvm::toString(r.takeError());
}

TEST(EngineTest, OperatorWithoutComputeIsAnError) {
  // Every operator of the library has a compute; one registered without
  // (as a plugin might) is refused at its call.
  registerAllOps();
  static std::once_flag once;
  std::call_once(once, [] { addIdentityTestOp("test.no_compute"); });
  EXPECT_NE(runErrorOf("test.no_compute")
                .find("operator 'test.no_compute' has no compute"),
            std::string::npos);
}

TEST(EngineTest, ComputeBreakingTheShapeGenericPromiseIsAnError) {
  // An operator marked as following the broadcasting rule whose compute
  // bakes in its static result shape would produce a wrong shape-generic
  // kernel: the lowering refuses it at the call.
  registerAllOps();
  static std::once_flag once;
  std::call_once(once, [] {
    addIdentityTestOp("test.static_shape")
        .setAttr<bool>(kTEBroadcastRuleAttr, true);
    setOpCompute("test.static_shape", [](const ComputeArgs &args)
                     -> llvm::Expected<std::vector<te::Tensor>> {
      const te::Tensor &x = args.arg(0);
      return std::vector<te::Tensor>{te::compute(
          te::makeShape(llvm::cast<TensorType>(args.resultType)->getShape()),
          [&](llvm::ArrayRef<te::Expr>) { return x({te::Expr(0)}); },
          "static")};
    });
  });
  EXPECT_NE(runErrorOf("test.static_shape")
                .find("compute of 'test.static_shape' does not follow the "
                      "shape of a shape-generic kernel"),
            std::string::npos);
}

TEST(EngineTest, DiskCacheAcrossEnginesAndCorruptEntries) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("nnir-disk-cache", dir));
  EngineOptions options;
  options.cacheDir = dir.str().str();
  Compiled c(kernelModule("(2, 2)", "multiply", "3f"));
  ASSERT_TRUE(c.fn);
  auto runIn = [&](ExecutionEngine &e) {
    auto r = e.run(*c.fn, {filled({2, 2}, 1)});
    EXPECT_TRUE(bool(r));
    if (!r) {
      llvm::consumeError(r.takeError());
      return -1.0;
    }
    return (*r)[0].getElementAsDouble(3);
  };
  {
    auto first = llvm::cantFail(ExecutionEngine::create(options));
    EXPECT_EQ(runIn(*first), 12.0);
    EXPECT_EQ(first->getStats().kernelsCompiled, 1u);
    EXPECT_EQ(first->getStats().diskWrites, 1u);
  }
  {
    auto second = llvm::cantFail(ExecutionEngine::create(options));
    EXPECT_EQ(runIn(*second), 12.0);
    EXPECT_EQ(second->getStats().kernelsCompiled, 0u);
    EXPECT_EQ(second->getStats().diskHits, 1u);
  }
  // Truncate the entry: it is detected, removed and recompiled.
  std::error_code ec;
  std::string entry;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    entry = it->path();
  ASSERT_FALSE(entry.empty());
  auto bytes = llvm::MemoryBuffer::getFile(entry);
  ASSERT_TRUE(bool(bytes));
  std::string cut = (*bytes)->getBuffer().drop_back(7).str();
  {
    llvm::raw_fd_ostream os(entry, ec);
    os << cut;
  }
  {
    auto third = llvm::cantFail(ExecutionEngine::create(options));
    EXPECT_EQ(runIn(*third), 12.0);
    EXPECT_EQ(third->getStats().diskCorrupt, 1u);
    EXPECT_EQ(third->getStats().kernelsCompiled, 1u);
    EXPECT_EQ(third->getStats().diskWrites, 1u);
  }
  // Flip a byte of the payload: the checksum catches it.
  bytes = llvm::MemoryBuffer::getFile(entry);
  ASSERT_TRUE(bool(bytes));
  std::string flipped = (*bytes)->getBuffer().str();
  flipped[flipped.size() / 2] ^= 0x55;
  {
    llvm::raw_fd_ostream os(entry, ec);
    os << flipped;
  }
  {
    auto fourth = llvm::cantFail(ExecutionEngine::create(options));
    EXPECT_EQ(runIn(*fourth), 12.0);
    EXPECT_EQ(fourth->getStats().diskCorrupt, 1u);
    EXPECT_EQ(fourth->getStats().diskHits, 0u);
  }
  llvm::sys::fs::remove_directories(dir);
}

TEST(EngineTest, OptLevelByWhatCompilingSaves) {
  // 65,536 elements a run: far below the 2M operations per operation of
  // code that O3 needs to pay in one run.
  Compiled c(kernelModule("(64, 1024)", "multiply", "3f"));
  ASSERT_TRUE(c.fn);
  NDArray x = filled({64, 1024}, 1);
  {
    // No disk cache: O0 first, O3 once the runs have done enough work.
    auto engine = llvm::cantFail(ExecutionEngine::create());
    auto first = engine->getKernel(*c.fn);
    ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
    EXPECT_EQ((*first)->optLevel, 0u);
    unsigned runs = 0;
    while (engine->getStats().kernelsRecompiled == 0 && runs < 100000) {
      auto r = engine->run(*c.fn, {x});
      ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
      EXPECT_EQ((*r)[0].getElementAsDouble(5), 18.0);
      ++runs;
    }
    EXPECT_GT(runs, 1u);
    EXPECT_EQ(engine->getStats().kernelsRecompiled, 1u);
    EXPECT_EQ(engine->getStats().kernelsCompiled, 2u);
    auto again = engine->getKernel(*c.fn);
    ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
    EXPECT_EQ((*again)->optLevel, 3u);
    auto r = engine->run(*c.fn, {x});
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    EXPECT_EQ((*r)[0].getElementAsDouble(5), 18.0);
    EXPECT_EQ(engine->getStats().kernelsRecompiled, 1u);
  }
  {
    // A level the caller fixes stays.
    EngineOptions options;
    options.optLevel = 0;
    auto engine = llvm::cantFail(ExecutionEngine::create(options));
    for (int i = 0; i < 200; ++i)
      ASSERT_TRUE(bool(engine->run(*c.fn, {x})));
    EXPECT_EQ(engine->getStats().kernelsRecompiled, 0u);
    EXPECT_EQ((*engine->getKernel(*c.fn))->optLevel, 0u);
  }
  {
    // A disk-cached kernel is compiled once for every process: O3.
    llvm::SmallString<128> dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("nnir-opt-level", dir));
    EngineOptions options;
    options.cacheDir = dir.str().str();
    auto engine = llvm::cantFail(ExecutionEngine::create(options));
    auto kernel = engine->getKernel(*c.fn);
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    EXPECT_EQ((*kernel)->optLevel, 3u);
    llvm::sys::fs::remove_directories(dir);
  }
}

TEST(EngineTest, PrecompileCompilesIndependentKernelsConcurrently) {
  EngineOptions options;
  options.compileThreads = std::make_shared<llvm::DefaultThreadPool>(
      llvm::hardware_concurrency(4));
  auto engine = llvm::cantFail(ExecutionEngine::create(options));
  // Four kernels, one of them twice (one key), and one that cannot compile
  // (its error is reported when it runs, not by precompile).
  registerAllOps();
  static std::once_flag once;
  std::call_once(once, [] { addIdentityTestOp("test.no_compute_pre"); });
  std::vector<std::unique_ptr<Compiled>> fns;
  for (const char *op : {"multiply", "add", "subtract", "divide"})
    fns.push_back(std::make_unique<Compiled>(
        kernelModule("(2, 3)", op, "2f")));
  fns.push_back(std::make_unique<Compiled>(
      kernelModule("(2, 3)", "multiply", "5f")));
  llvm::SourceMgr sm;
  Ref<IRModule> bad = parseTyped("def @main(%x: Tensor[(2), float32]) {\n"
                                 "  %0 = fn (%a: Tensor[(2), float32], "
                                 "Primitive=1) {\n"
                                 "    test.no_compute_pre(%a)\n  };\n"
                                 "  %0(%x)\n}\n",
                                 sm);
  ASSERT_TRUE(bad);
  std::vector<const Function *> list;
  for (auto &c : fns) {
    ASSERT_TRUE(c->fn);
    list.push_back(c->fn);
  }
  list.push_back(firstPrimitive(*bad));
  engine->precompile(list);
  EXPECT_EQ(engine->getStats().kernelsCompiled, 4u);
  EXPECT_EQ(engine->getStats().memoryHits, 0u);
  EXPECT_EQ(engine->getNumCachedKernels(), 4u);
  // Running them compiles nothing; the first use of a precompiled kernel
  // is no cache hit, the function sharing a key is one.
  double expected[] = {2 * 6, 6 + 2, 6 - 2, 6 / 2.0, 5 * 6};
  for (size_t i = 0; i < fns.size(); ++i) {
    auto r = engine->run(*fns[i]->fn, {filled({2, 3}, 1)});
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    EXPECT_EQ((*r)[0].getElementAsDouble(5), expected[i]);
  }
  EXPECT_EQ(engine->getStats().kernelsCompiled, 4u);
  EXPECT_EQ(engine->getStats().memoryHits, 1u);
  auto failed = engine->getKernel(*firstPrimitive(*bad));
  ASSERT_FALSE(bool(failed));
  EXPECT_NE(llvm::toString(failed.takeError())
                .find("operator 'test.no_compute_pre' has no compute"),
            std::string::npos);
  // A second precompile finds everything cached.
  engine->precompile(list);
  EXPECT_EQ(engine->getStats().kernelsCompiled, 4u);
}

TEST(EngineTest, ConcurrentDiskCacheWritersLeaveOneValidEntry) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("nnir-disk-race", dir));
  EngineOptions options;
  options.cacheDir = dir.str().str();
  Compiled c(kernelModule("(3)", "subtract", "1f"));
  ASSERT_TRUE(c.fn);
  // Engines in several threads (as processes would) miss, compile and
  // write the same entry at once.
  constexpr int kWriters = 4;
  std::vector<std::unique_ptr<ExecutionEngine>> engines;
  for (int i = 0; i < kWriters; ++i)
    engines.push_back(llvm::cantFail(ExecutionEngine::create(options)));
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  std::vector<char> ok(kWriters, 0); // not vector<bool>: threads write it
  for (int i = 0; i < kWriters; ++i)
    threads.emplace_back([&, i] {
      ++ready;
      while (ready < kWriters)
        std::this_thread::yield();
      auto k = engines[i]->getKernel(*c.fn);
      ok[i] = bool(k);
      if (!k)
        llvm::consumeError(k.takeError());
    });
  for (std::thread &t : threads)
    t.join();
  uint64_t compiled = 0;
  for (int i = 0; i < kWriters; ++i) {
    EXPECT_TRUE(ok[i]);
    compiled += engines[i]->getStats().kernelsCompiled;
  }
  EXPECT_GE(compiled, 1u);
  // One entry, no temporary file left behind, and it reads back valid.
  std::error_code ec;
  std::vector<std::string> files;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    files.push_back(llvm::sys::path::filename(it->path()).str());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(llvm::StringRef(files[0]).ends_with(".o")) << files[0];
  auto reader = llvm::cantFail(ExecutionEngine::create(options));
  auto r = reader->run(*c.fn, {filled({3}, 1)});
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ((*r)[0].getElementAsDouble(2), 2.0);
  EXPECT_EQ(reader->getStats().diskHits, 1u);
  EXPECT_EQ(reader->getStats().diskCorrupt, 0u);
  EXPECT_EQ(reader->getStats().kernelsCompiled, 0u);
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
