//===- Transforms.cpp - Type inference ------------------------------------===//
//
/// \file
/// infer_type() runs type inference on a module or an expression;
/// _create_cse_pass() makes EliminateCommonSubexpr with a Python `fskip`
/// predicate (an option the registry's typed options cannot carry). The pass
/// API (pass objects, PassContext, instruments, Python passes) is in
/// Pass.cpp, PassContext.cpp and Instruments.cpp.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/Transforms/EliminateCommonSubexpr.h"
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
  m.def(
      "_create_cse_pass",
      [](py::object fskip) {
        if (!PyCallable_Check(fskip.ptr()))
          throw py::type_error("fskip must be a callable taking an Expr");
        SharedPyObject holder = sharePyObject(std::move(fskip));
        return createEliminateCommonSubexprSkipping(
            [holder](const Ref<Expr> &expr) -> llvm::Expected<bool> {
              py::gil_scoped_acquire gil;
              try {
                return py::bool_(holder->get()(expr)).cast<bool>();
              } catch (py::error_already_set &error) {
                return errorFromPython(error, "in fskip");
              }
            });
      },
      py::arg("fskip"));
}
