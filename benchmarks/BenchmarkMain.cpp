//===- BenchmarkMain.cpp - main() of the Google Benchmark programs --------===//
//
/// \file
/// The one main() of nnir's Google Benchmark programs: registers the
/// operator library (the benchmarks parse and build IR that calls it), then
/// runs the benchmarks the command line selects.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/Ops.h"

#include "benchmark/benchmark.h"

int main(int argc, char **argv) {
  nnir::registerAllOps();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
