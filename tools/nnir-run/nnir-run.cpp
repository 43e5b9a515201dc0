//===- nnir-run.cpp - Execute nnir modules through the JIT ----------------===//
//
/// \file
/// The nnir-run tool. Its logic lives in the NNIRTools library
/// (nnir/Tools/NNIRRunMain.h); this file registers the operators and the
/// passes explicitly and runs the driver.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/Ops.h"
#include "nnir/Pass/PassContext.h"
#include "nnir/Tools/NNIRRunMain.h"
#include "nnir/Transforms/Passes.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  nnir::registerAllOps();
  nnir::registerPassInfraConfigs();
  nnir::registerTransformPasses();
  return nnir::nnirRunMain(argc, argv);
}
