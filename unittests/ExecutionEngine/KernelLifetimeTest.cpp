//===- KernelLifetimeTest.cpp - Kernel code release, symbols, listeners ---===//
//
/// \file
/// The engine frees a kernel's code when its cache entry is dropped (by the
/// capacity, or clearCache()) and no caller holds it; an uncached kernel is
/// freed when its run is done. Runtime symbols come from
/// EngineOptions::symbols; the GDB listener registers kernels with GDB's JIT
/// interface, the perf listener writes a jitdump.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/ExecutionEngine/KernelCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <atomic>
#include <cstdlib>

using namespace nnir;
using namespace nnir::test;

namespace {

/// @main calling one primitive function `op(%a, constant)` on \p shape.
struct Kernel {
  llvm::SourceMgr sm;
  Ref<IRModule> module;
  const Function *fn = nullptr;
  Kernel(llvm::StringRef op, llvm::StringRef constant,
         llvm::StringRef type = "Tensor[(4), float32]") {
    std::string text = ("def @main(%x: " + type + ") {\n  %0 = fn (%a: " +
                        type + ", Primitive=1) {\n    " + op + "(%a, " +
                        constant + ")\n  };\n  %0(%x)\n}\n")
                           .str();
    module = parseTyped(text, sm);
    fn = module ? firstPrimitive(*module) : nullptr;
  }
};

NDArray iota(llvm::ArrayRef<int64_t> shape, DataType dtype) {
  NDArray a = llvm::cantFail(NDArray::create(dtype, shape));
  for (int64_t i = 0; i < a.getNumElements(); ++i)
    a.setElementFromInt(i, i + 1);
  return a;
}

TEST(KernelLifetimeTest, EvictionFreesCodeOnceUnused) {
  EngineOptions options;
  options.maxCachedKernels = 2;
  auto engine = llvm::cantFail(ExecutionEngine::create(options));
  // Five structurally different kernels.
  Kernel kernels[] = {{"add", "1f"},
                      {"subtract", "1f"},
                      {"multiply", "2f"},
                      {"divide", "2f"},
                      {"maximum", "0f"}};
  llvm::Expected<KernelRef> first = engine->getKernel(*kernels[0].fn);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  KernelRef held = std::move(*first);
  for (const Kernel &k : llvm::ArrayRef(kernels).drop_front()) {
    ASSERT_TRUE(k.fn);
    ASSERT_TRUE(bool(engine->run(*k.fn, {iota({4}, DataType::float32())})));
  }
  EXPECT_EQ(engine->getStats().kernelsCompiled, 5u);
  EXPECT_EQ(engine->getStats().kernelsEvicted, 3u);
  EXPECT_EQ(engine->getNumCachedKernels(), 2u);
  // The two cached ones, and the evicted one still held here.
  EXPECT_EQ(engine->getNumLiveKernels(), 3u);
  // Still callable while held.
  float x[4] = {1, 2, 3, 4}, c = 1, out[4] = {};
  void *buffers[] = {x, &c, out};
  int64_t dims[] = {4};
  EXPECT_EQ(held->fn(buffers, dims), kKernelOK);
  EXPECT_EQ(out[3], 5.0f);
  held.reset();
  EXPECT_EQ(engine->getNumLiveKernels(), 2u);

  // An evicted kernel compiles again; the least recently used goes.
  ASSERT_TRUE(bool(engine->getKernel(*kernels[0].fn)));
  EXPECT_EQ(engine->getStats().kernelsCompiled, 6u);
  EXPECT_EQ(engine->getNumLiveKernels(), 2u);

  engine->clearCache();
  EXPECT_EQ(engine->getNumCachedKernels(), 0u);
  EXPECT_EQ(engine->getNumLiveKernels(), 0u);
}

TEST(KernelLifetimeTest, UncachedKernelsAreFreedAfterTheirRun) {
  EngineOptions options;
  options.memoryCache = false;
  auto engine = llvm::cantFail(ExecutionEngine::create(options));
  Kernel k("add", "1f");
  ASSERT_TRUE(k.fn);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(bool(engine->run(*k.fn, {iota({4}, DataType::float32())})));
  EXPECT_EQ(engine->getStats().kernelsCompiled, 3u);
  EXPECT_EQ(engine->getNumLiveKernels(), 0u);
}

TEST(KernelLifetimeTest, ManyKernelsStayWithinTheCapacity) {
  EngineOptions options;
  options.maxCachedKernels = 4;
  auto engine = llvm::cantFail(ExecutionEngine::create(options));
  // Shape-specific kernels (nn.prelu bakes its shape in): one per extent.
  for (int n = 1; n <= 12; ++n) {
    std::string type = "Tensor[(" + std::to_string(n) + ", 2), float32]";
    Kernel k("nn.prelu", "dense<[1, 2]> : Tensor[(2), float32]", type);
    ASSERT_TRUE(k.fn);
    ASSERT_TRUE(bool(engine->getKernel(*k.fn)));
    EXPECT_LE(engine->getNumLiveKernels(), 4u);
  }
  EXPECT_EQ(engine->getStats().kernelsCompiled, 12u);
  EXPECT_EQ(engine->getStats().kernelsEvicted, 8u);
}

std::atomic<int> ipowCalls{0};
extern "C" int64_t countingIpow(int64_t base, int64_t exp) {
  ++ipowCalls;
  int64_t r = 1;
  for (int64_t i = 0; i < exp; ++i)
    r *= base;
  return r;
}

TEST(KernelLifetimeTest, RuntimeSymbolsComeFromTheSymbolMap) {
  EngineOptions options;
  EXPECT_TRUE(options.symbols.count("nnir_parallel_for"));
  options.symbols["nnir_ipow_i64"] = reinterpret_cast<void *>(&countingIpow);
  auto engine = llvm::cantFail(ExecutionEngine::create(options));
  Kernel k("power", "3i64", "Tensor[(4), int64]");
  ASSERT_TRUE(k.fn);
  ipowCalls = 0;
  auto result = engine->run(*k.fn, {iota({4}, DataType::int64())});
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(ipowCalls, 4);
  EXPECT_EQ((*result)[0].getElementAsInt(3), 64);
}

} // namespace

// GDB's JIT interface, as libLLVM defines it.
extern "C" {
struct jit_code_entry {
  jit_code_entry *next_entry;
  jit_code_entry *prev_entry;
  const char *symfile_addr;
  uint64_t symfile_size;
};
struct jit_descriptor {
  uint32_t version;
  uint32_t action_flag;
  jit_code_entry *relevant_entry;
  jit_code_entry *first_entry;
};
extern jit_descriptor __jit_debug_descriptor;
}

namespace {

unsigned countGDBEntries() {
  unsigned n = 0;
  for (jit_code_entry *e = __jit_debug_descriptor.first_entry; e;
       e = e->next_entry)
    ++n;
  return n;
}

TEST(KernelLifetimeTest, GDBListenerRegistersAndUnregistersKernels) {
  unsigned before = countGDBEntries();
  EngineOptions options;
  options.listeners.gdb = true;
  auto engine = llvm::cantFail(ExecutionEngine::create(options));
  Kernel k("add", "1f");
  ASSERT_TRUE(k.fn);
  ASSERT_TRUE(bool(engine->getKernel(*k.fn)));
  EXPECT_EQ(countGDBEntries(), before + 1);
  engine->clearCache();
  EXPECT_EQ(countGDBEntries(), before);

  // Without the option, nothing is registered.
  auto quiet = llvm::cantFail(ExecutionEngine::create());
  ASSERT_TRUE(bool(quiet->getKernel(*k.fn)));
  EXPECT_EQ(countGDBEntries(), before);
}

TEST(KernelLifetimeTest, PerfListenerWritesAJitdump) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("nnir-perf", dir));
  ::setenv("JITDUMPDIR", dir.c_str(), 1);
  EngineOptions options;
  options.listeners.perf = true;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create(options);
  ::unsetenv("JITDUMPDIR");
  if (!engine) {
    // An LLVM without perf support says so.
    EXPECT_NE(llvm::toString(engine.takeError()).find("perf support"),
              std::string::npos);
    return;
  }
  Kernel k("add", "1f");
  ASSERT_TRUE(k.fn);
  ASSERT_TRUE(bool((*engine)->getKernel(*k.fn)));
  // LLVM's listener writes <dir>/.debug/jit/llvm-IR-jit-*/jit-<pid>.dump.
  bool found = false;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(dir, ec), end;
       it != end && !ec; it.increment(ec))
    found |= llvm::sys::path::filename(it->path()).starts_with("jit-");
  EXPECT_TRUE(found);
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
