//===- Transforms.cpp - Type inference, and a provisional pass runner -----===//
//
/// \file
/// infer_type() runs type inference on a module or an expression. The pass
/// API proper (pass objects, PassContext, instruments, Python passes) is
/// bound later, once the execution engine is handed in through the
/// PassContext; until then _run_pipeline() runs pipeline text (nnir-opt's
/// `--passes=` syntax) in the thread's current context, for the benchmark
/// and tests only.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Transforms/InferType.h"

#include "llvm/Support/SourceMgr.h"

using namespace nnir;
using namespace nnir::python;

void python::populateTransforms(py::module_ &m) {
  m.def(
      "infer_type",
      [](Ref<IRModule> module) {
        // The module is never changed: a new one comes back (or the same
        // one, when its types were already valid).
        return unwrap(inferTypes(std::move(module)));
      },
      py::arg("mod"), "The module with every expression's type inferred");
  m.def(
      "infer_expr_type",
      [](Ref<Expr> expr, Ref<IRModule> module) {
        return unwrap(inferExprTypes(std::move(expr), module.get()));
      },
      py::arg("expr"), py::arg("mod") = nullptr,
      "The expression with every node's type inferred");
  m.def(
      "_run_pipeline",
      [](Ref<IRModule> module, const std::string &pipeline) {
        Ref<Pass> pass = unwrap(parsePassPipeline(pipeline, getSourceMgr()));
        return unwrap(pass->run(std::move(module)));
      },
      py::arg("mod"), py::arg("pipeline"),
      "Provisional: runs pipeline text on a module in the current context");
}
