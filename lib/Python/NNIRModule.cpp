//===- NNIRModule.cpp - The extension module nnir._nnir -------------------===//
//
/// \file
/// The entry point of the extension: registers nnir's operators, pass
/// configs and passes (explicit calls, as the tools make them), then the
/// bindings of each concern. Users import the package `nnir`, which
/// re-exports these under their public names.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/Ops/Ops.h"
#include "nnir/Pass/PassContext.h"
#include "nnir/Transforms/Passes.h"

using namespace nnir;
using namespace nnir::python;

PYBIND11_MODULE(_nnir, m) {
  m.doc() = "nnir's C++ bindings; use the package `nnir`";
  // The extension is imported once per interpreter, and an interpreter per
  // process embeds it; registering twice would abort.
  static bool registered = false;
  if (!registered) {
    registered = true;
    registerAllOps();
    registerPassInfraConfigs();
    registerTransformPasses();
  }
  populateErrors(m);
  populateExecutor(m);
  populateTypes(m);
  populateAttrs(m);
  populateNumPy(m);
  populateExprs(m);
  populateOps(m);
  populateModule(m);
  populateParserPrinter(m);
  populateTransforms(m);
  populatePasses(m);
  populatePassContext(m);
  populateInstruments(m);
}
