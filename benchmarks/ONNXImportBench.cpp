//===- ONNXImportBench.cpp - Import time and peak memory of ONNX models ---===//
//
/// \file
/// nnir-onnx-import-bench [--repeat=N] MODEL...: imports each model N times
/// (default 3) and prints the best wall time, the model's size, its node
/// count and the process's peak resident memory (getrusage) after it. Run
/// one model per process to read its own peak. make_big_onnx.py writes
/// models with 25, 50 or 100 MB of initializers to check that import time
/// and memory grow linearly and that weights are copied once.
//
//===----------------------------------------------------------------------===//

#include "nnir/ONNX/Import.h"
#include "nnir/Ops/Ops.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdlib>

using namespace llvm;
using namespace nnir;

static double peakRSSMiB() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0; // Linux reports KiB.
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  registerAllOps();
  unsigned repeat = 3;
  int status = 0;
  outs() << formatv("{0,-60} {1,10} {2,12} {3,14}\n", "model", "MB",
                    "import ms", "peak RSS MiB");
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg.consume_front("--repeat=")) {
      if (arg.getAsInteger(10, repeat) || repeat == 0) {
        errs() << "nnir-onnx-import-bench: bad --repeat\n";
        return 2;
      }
      continue;
    }
    ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFile(
        arg, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!file) {
      errs() << "nnir-onnx-import-bench: cannot read " << arg << "\n";
      return 2;
    }
    double best = 1e300;
    for (unsigned r = 0; r < repeat; ++r) {
      auto start = std::chrono::steady_clock::now();
      Expected<Ref<IRModule>> module = importONNX((*file)->getMemBufferRef());
      double ms = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
      if (!module) {
        errs() << toString(module.takeError()) << "\n";
        status = 1;
        break;
      }
      best = std::min(best, ms);
    }
    if (best == 1e300)
      continue; // The import failed (reported above).
    outs() << formatv("{0,-60} {1,10:f1} {2,12:f3} {3,14:f1}\n", arg,
                      (*file)->getBufferSize() / 1048576.0, best,
                      peakRSSMiB());
  }
  return status;
}
