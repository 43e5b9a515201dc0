//===- TextPathBench.cpp - Speed and memory of the text path --------------===//
//
/// \file
/// nnir-text-bench measures each stage of `nnir-opt` on the chain of issue 8
/// (section 6): `%0 = add(%x, 1f); %1 = multiply(%0, 1f); ...`, 1,000,000
/// bindings with a scalar constant operand each (32 MB of text), printed
/// back byte for byte. Per stage:
///
///  - MB/s (`bytes_per_second`): text bytes parsed or printed per second;
///  - `per_node`: time per binding (one call node, its constant operand and
///    its `%n`);
///  - `B/node` (bytes per binding): for Parse and InferType the heap the
///    resulting module keeps (live bytes after minus before: jemalloc's
///    stats.allocated, or glibc's mallinfo2 in a build without it); for
///    every stage `peakB/node`, the growth of the peak resident
///    set during one run of the stage (Linux's VmHWM, reset through
///    /proc/self/clear_refs before it), which is what the stage adds to the
///    process's peak.
///
/// Stages: BM_Parse, BM_Verify, BM_Print (into a string of the final size,
/// reserved once), BM_InferType (the parsed, untyped module; every node is
/// rebuilt with its type) and BM_Destroy (releasing the parsed module). The
/// argument is the chain length (1,000,000; 100,000 for quick runs).
///
/// The weights workload (issue 26) is a module whose 64 constants of
/// 400,000 random float32 each (102 MB, ResNet-50's size) sit in
/// `#[metadata]` as base64 (137 MB of text): BM_ParseWeights and
/// BM_PrintWeights report MB/s of text and `peak/weights`, the growth of the
/// peak resident set over the bytes of the weights (the decoded tensors
/// themselves are 1.0). BM_Base64Decode and BM_Base64Encode are the codec
/// alone on 16 MB; BM_Base64Check is the check a lazily decoded metadata
/// tensor's text gets at parse time (isCanonicalBase64). benchmarks/text_path_bench.py measures the whole
/// nnir-opt process, on the chain and on ResNet-50 with bound weights.
///
/// Run from a Release build:
///   build/benchmarks/nnir-text-bench --benchmark_counters_tabular=true
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Expr.h"
#include "nnir/IR/Metadata.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Printer.h"
#include "nnir/IR/Verifier.h"
#include "nnir/Parser/Parser.h"
#include "nnir/Support/Base64.h"
#include "nnir/Support/Heap.h"
#include "nnir/Transforms/InferType.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "benchmark/benchmark.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace llvm;
using namespace nnir;

namespace {

/// The chain of \p n bindings in the form nnir-opt prints it (the last call
/// is the function's result), so printing gives the same bytes back.
std::string makeChainText(unsigned n) {
  std::string s;
  raw_string_ostream os(s);
  os << "#[version = \"0.0.5\"]\n"
        "def @main(%x: Tensor[(4), float32]) {\n";
  for (unsigned i = 0; i != n; ++i) {
    StringRef op = i % 2 ? "multiply" : "add";
    os << "  ";
    if (i + 1 != n)
      os << '%' << i << " = ";
    os << op << '(';
    if (i == 0)
      os << "%x";
    else
      os << '%' << i - 1;
    os << ", 1f)" << (i + 1 != n ? ";" : "") << '\n';
  }
  os << "}\n";
  return s;
}

const std::string &getChainText(unsigned n) {
  static std::map<unsigned, std::string> texts;
  std::string &text = texts[n];
  if (text.empty())
    text = makeChainText(n);
  return text;
}

/// Parses \p text in place (as nnir-opt parses a file it maps, without
/// copying it first).
Ref<IRModule> parseText(StringRef text, StringRef name) {
  SourceMgr sourceMgr;
  unsigned id = sourceMgr.AddNewSourceBuffer(
      MemoryBuffer::getMemBuffer(text, name), SMLoc());
  Expected<Ref<IRModule>> module = parseModule(sourceMgr, id);
  if (!module) {
    errs() << toString(module.takeError()) << "\n";
    return nullptr;
  }
  return std::move(*module);
}

Ref<IRModule> parseChain(unsigned n) {
  return parseText(getChainText(n), "chain");
}

/// A field of /proc/self/status in bytes (VmRSS, VmHWM), or 0.
size_t getStatusBytes(const char *field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  size_t length = std::strlen(field);
  while (std::getline(status, line))
    if (line.compare(0, length, field) == 0 && line[length] == ':')
      return std::stoull(line.substr(length + 1)) * 1024;
  return 0;
}

/// Resets the peak resident set to the current one (Linux >= 4.0); false
/// if the kernel does not allow it.
bool resetPeakRSS() {
  FILE *f = std::fopen("/proc/self/clear_refs", "w");
  if (!f)
    return false;
  bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

/// Memory a stage adds: its retained heap and its peak resident growth.
struct StageMemory {
  double heapBytes = 0;
  double peakBytes = -1;
};

/// Runs \p stage once, untimed, and measures its memory. Freed memory is
/// returned to the system first, so earlier runs do not hide growth.
StageMemory measure(const std::function<void()> &stage) {
  releaseFreeHeap();
  StageMemory memory;
  size_t heapBefore = getHeapBytesInUse();
  bool canReset = resetPeakRSS();
  size_t rssBefore = getStatusBytes("VmRSS");
  stage();
  if (canReset)
    memory.peakBytes = double(getStatusBytes("VmHWM")) - double(rssBefore);
  memory.heapBytes = double(getHeapBytesInUse()) - double(heapBefore);
  return memory;
}

/// Sets the counters of a stage over a chain of \p n bindings.
void report(benchmark::State &state, unsigned n, size_t textBytes,
            const StageMemory &memory, bool retains) {
  state.SetLabel(std::to_string(n) + "-binding chain, " +
                 std::to_string(textBytes / 1000000) + " MB");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(textBytes));
  // Seconds per binding, which the tabular output shows as e.g. "450ns".
  state.counters["per_node"] = benchmark::Counter(
      double(n), benchmark::Counter::kIsIterationInvariantRate |
                     benchmark::Counter::kInvert);
  if (retains)
    state.counters["B/node"] = memory.heapBytes / n;
  if (memory.peakBytes >= 0)
    state.counters["peakB/node"] = memory.peakBytes / n;
}

void BM_Parse(benchmark::State &state) {
  unsigned n = state.range(0);
  const std::string &text = getChainText(n);
  for (auto _ : state) {
    Ref<IRModule> module = parseChain(n);
    if (!module) {
      state.SkipWithError("the chain does not parse");
      return;
    }
    // Freeing the module is BM_Destroy's.
    state.PauseTiming();
    module = nullptr;
    state.ResumeTiming();
  }
  Ref<IRModule> kept;
  StageMemory memory = measure([&] { kept = parseChain(n); });
  report(state, n, text.size(), memory, /*retains=*/true);
}

void BM_Verify(benchmark::State &state) {
  unsigned n = state.range(0);
  Ref<IRModule> module = parseChain(n);
  if (!module) {
    state.SkipWithError("the chain does not parse");
    return;
  }
  for (auto _ : state)
    if (Error err = verifyModule(*module)) {
      state.SkipWithError(toString(std::move(err)).c_str());
      return;
    }
  StageMemory memory = measure([&] { consumeError(verifyModule(*module)); });
  report(state, n, getChainText(n).size(), memory, /*retains=*/false);
}

/// Times printing \p module into a string reserved once, checks that it
/// gives \p text back and measures one more print; false (the error set on
/// \p state) if the text differs.
bool timePrint(benchmark::State &state, const IRModule &module,
               const std::string &text, StageMemory &memory) {
  std::string out;
  out.reserve(text.size());
  for (auto _ : state) {
    out.clear();
    raw_string_ostream os(out);
    printModule(module, os);
  }
  if (out != text) {
    state.SkipWithError("printing does not give the parsed text back");
    return false;
  }
  memory = measure([&] {
    out.clear();
    raw_string_ostream os(out);
    printModule(module, os);
  });
  return true;
}

void BM_Print(benchmark::State &state) {
  unsigned n = state.range(0);
  const std::string &text = getChainText(n);
  Ref<IRModule> module = parseChain(n);
  if (!module) {
    state.SkipWithError("the chain does not parse");
    return;
  }
  StageMemory memory;
  if (timePrint(state, *module, text, memory))
    report(state, n, text.size(), memory, /*retains=*/false);
}

void BM_InferType(benchmark::State &state) {
  unsigned n = state.range(0);
  Ref<IRModule> module = parseChain(n);
  if (!module) {
    state.SkipWithError("the chain does not parse");
    return;
  }
  for (auto _ : state) {
    Expected<Ref<IRModule>> typed = inferTypes(module);
    if (!typed) {
      state.SkipWithError(toString(typed.takeError()).c_str());
      return;
    }
    state.PauseTiming();
    *typed = nullptr;
    state.ResumeTiming();
  }
  Ref<IRModule> kept;
  StageMemory memory = measure([&] {
    Expected<Ref<IRModule>> typed = inferTypes(module);
    if (typed)
      kept = std::move(*typed);
    else
      consumeError(typed.takeError());
  });
  report(state, n, getChainText(n).size(), memory, /*retains=*/true);
}

void BM_Destroy(benchmark::State &state) {
  unsigned n = state.range(0);
  for (auto _ : state) {
    state.PauseTiming();
    Ref<IRModule> module = parseChain(n);
    state.ResumeTiming();
    module = nullptr;
  }
  report(state, n, getChainText(n).size(), StageMemory(), /*retains=*/false);
}

//===----------------------------------------------------------------------===//
// Weights in the metadata section
//===----------------------------------------------------------------------===//

/// Random bytes (a fixed xorshift sequence): base64 of random data has no
/// runs a codec could take a shortcut on.
void fillRandom(uint8_t *data, size_t size, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (size_t i = 0; i < size; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    data[i] = uint8_t(x >> 24);
  }
}

constexpr unsigned kWeightTensors = 64;
constexpr int64_t kWeightElements = 400000;
constexpr size_t kWeightBytes = size_t(kWeightTensors) * kWeightElements * 4;

/// `@main(%x)` adding each of the 64 constants in turn, as nnir prints it
/// (so it prints back byte for byte).
const std::string &getWeightsText() {
  static std::string text = [] {
    std::vector<Ref<Constant>> constants;
    std::vector<const Constant *> pointers;
    std::string body;
    raw_string_ostream os(body);
    os << "#[version = \"0.0.5\"]\n"
       << "def @main(%x: Tensor[(" << kWeightElements << "), float32]) {\n";
    for (unsigned i = 0; i != kWeightTensors; ++i) {
      NDArray array = cantFail(NDArray::create(
          DataType::float32(), {kWeightElements}, UINT64_MAX, false));
      fillRandom(static_cast<uint8_t *>(array.getMutableData()),
                 array.getByteSize(), i);
      constants.push_back(Constant::get(array));
      pointers.push_back(constants.back().get());
      os << "  ";
      if (i + 1 != kWeightTensors)
        os << '%' << i << " = ";
      os << "add(" << (i ? "%" + std::to_string(i - 1) : std::string("%x"))
         << ", meta[relay.Constant][" << i << "])"
         << (i + 1 != kWeightTensors ? ";" : "") << "\n";
    }
    os << "}\n\n#[metadata]\n";
    encodeMetadata(pointers, {}, os);
    // In the form nnir prints it.
    SourceMgr sourceMgr;
    Ref<IRModule> module = cantFail(parseModule(body, sourceMgr));
    std::string printed;
    raw_string_ostream printedOS(printed);
    printModule(*module, printedOS);
    return printed;
  }();
  return text;
}

Ref<IRModule> parseWeights() {
  return parseText(getWeightsText(), "weights");
}

/// Sets the counters of a weights stage.
void reportWeights(benchmark::State &state, const StageMemory &memory) {
  size_t textBytes = getWeightsText().size();
  state.SetLabel(std::to_string(kWeightBytes / 1000000) + " MB of weights, " +
                 std::to_string(textBytes / 1000000) + " MB of text");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(textBytes));
  if (memory.peakBytes >= 0)
    state.counters["peak/weights"] = memory.peakBytes / double(kWeightBytes);
}

void BM_ParseWeights(benchmark::State &state) {
  getWeightsText();
  for (auto _ : state) {
    Ref<IRModule> module = parseWeights();
    if (!module) {
      state.SkipWithError("the weights module does not parse");
      return;
    }
    state.PauseTiming();
    module = nullptr;
    state.ResumeTiming();
  }
  Ref<IRModule> kept;
  StageMemory memory = measure([&] { kept = parseWeights(); });
  reportWeights(state, memory);
}

void BM_PrintWeights(benchmark::State &state) {
  const std::string &text = getWeightsText();
  Ref<IRModule> module = parseWeights();
  if (!module) {
    state.SkipWithError("the weights module does not parse");
    return;
  }
  StageMemory memory;
  if (!timePrint(state, *module, text, memory))
    return;
  // The string was filled before the measured print: what printing adds.
  reportWeights(state, memory);
}

constexpr size_t kCodecBytes = size_t(16) << 20;

void BM_Base64Decode(benchmark::State &state) {
  std::vector<uint8_t> bytes(kCodecBytes), out(kCodecBytes);
  fillRandom(bytes.data(), bytes.size(), 1);
  std::string text;
  raw_string_ostream os(text);
  Base64Writer(os).write(bytes);
  for (auto _ : state)
    if (!decodeBase64Range(text, 0, out)) {
      state.SkipWithError("the text does not decode");
      return;
    }
  if (out != bytes)
    state.SkipWithError("the decoded bytes differ");
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
}

void BM_Base64Check(benchmark::State &state) {
  std::vector<uint8_t> bytes(kCodecBytes);
  fillRandom(bytes.data(), bytes.size(), 1);
  std::string text;
  raw_string_ostream os(text);
  Base64Writer(os).write(bytes);
  for (auto _ : state)
    if (!isCanonicalBase64(text)) {
      state.SkipWithError("the text is not canonical base64");
      return;
    }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
}

void BM_Base64Encode(benchmark::State &state) {
  std::vector<uint8_t> bytes(kCodecBytes);
  fillRandom(bytes.data(), bytes.size(), 1);
  std::string text;
  text.reserve(kCodecBytes / 3 * 4 + 4);
  for (auto _ : state) {
    text.clear();
    raw_string_ostream os(text);
    Base64Writer(os).write(bytes);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
}

BENCHMARK(BM_Parse)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Verify)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Print)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InferType)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Destroy)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseWeights)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PrintWeights)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64Decode)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64Check)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64Encode)->Unit(benchmark::kMillisecond);

} // namespace
