//===- nnir-opt.cpp - Parse, verify and print nnir modules ----------------===//
//
/// \file
/// The nnir-opt tool. All of its logic lives in the NNIRTools library
/// (nnir/Tools/NNIROptMain.h); this file only sets up the process.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/Ops.h"
#include "nnir/Tools/NNIROptMain.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  nnir::registerAllOps();
  return nnir::nnirOptMain(argc, argv);
}
