//===- Transforms.cpp - Type inference ------------------------------------===//
//
/// \file
/// infer_type() runs type inference on a module or an expression. The pass
/// API (pass objects, PassContext, instruments, Python passes) is in
/// Pass.cpp, PassContext.cpp and Instruments.cpp.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/Transforms/InferType.h"

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
}
