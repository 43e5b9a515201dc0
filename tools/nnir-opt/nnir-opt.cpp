//===- nnir-opt.cpp - Parse, transform and print nnir modules -------------===//
//
/// \file
/// The nnir-opt tool. All of its logic lives in the NNIRTools library
/// (nnir/Tools/NNIROptMain.h); this file only sets up the process: it
/// registers the operators, the passes and the pass config keys explicitly
/// (nnir libraries have no static registration), then runs the driver. Built
/// with the tests, it also registers the test-* passes of test/lib, as
/// mlir-opt does.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/Ops.h"
#include "nnir/Pass/PassContext.h"
#include "nnir/Tools/NNIROptMain.h"
#include "nnir/Transforms/Passes.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/PrettyStackTrace.h"

#ifdef NNIR_INCLUDE_TESTS
namespace nnir::test {
void registerTestPasses();
} // namespace nnir::test
#endif

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // A crash names the pass and function that crashed in the stack dump
  // below this line (Pass.cpp's PrettyStackTrace entries).
  llvm::setBugReportMsg("PLEASE report this nnir-opt crash with the stack "
                        "dump below and the input; --crash-reproducer=FILE "
                        "writes a reproducer of the failing pass.\n");
  nnir::registerAllOps();
  nnir::registerPassInfraConfigs();
  nnir::registerTransformPasses();
#ifdef NNIR_INCLUDE_TESTS
  nnir::test::registerTestPasses();
#endif
  return nnir::nnirOptMain(argc, argv);
}
