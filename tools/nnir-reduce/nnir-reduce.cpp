//===- nnir-reduce.cpp - Shrink a module while a test accepts it ----------===//
//
/// \file
/// The nnir-reduce tool. Its logic lives in the NNIRReduce library
/// (nnir/Reduce/Reducer.h) and its driver in NNIRTools
/// (nnir/Tools/NNIRReduceMain.h); this file registers the operators and
/// runs the driver.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/Ops.h"
#include "nnir/Tools/NNIRReduceMain.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  nnir::registerAllOps();
  return nnir::nnirReduceMain(argc, argv);
}
