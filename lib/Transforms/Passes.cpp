//===- Passes.cpp - Registration of the Transforms passes -----------------===//
//
/// \file
/// registerTransformPasses(): adds every pass of the library to the
/// PassRegistry, once per process.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/Passes.h"

#include "nnir/Pass/PassRegistry.h"
#include "nnir/Transforms/InferType.h"

#include <mutex>

using namespace llvm;
using namespace nnir;

void nnir::registerTransformPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    PassRegistry &registry = PassRegistry::instance();
    // A plugin or a test may have registered a pass of the same name first;
    // the registry keeps the first registration.
    if (!registry.lookup("InferType"))
      consumeError(registry.registerPass(
          "InferType", "infer and record the type of every expression",
          createInferTypePass));
  });
}
