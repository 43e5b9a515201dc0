//===- Executor.cpp - Running a module's functions on NDArrays ------------===//
//
/// \file
/// `_nnir.Executor()` owns an ExecutionEngine (host CPU, in-memory kernel
/// cache, shared by its calls) and runs a type-checked module's functions on
/// NDArrays through the Evaluator, as nnir-run does: an operator call runs
/// as a kernel of its own, a primitive (fused) function as one kernel. The
/// GIL is released while kernels compile and run.
///
/// `_bind_params(func, {name: NDArray})` turns parameters into constants
/// (create_executor's `params`, TVM's bind_params_by_name).
///
/// Provisional: the engine becomes a resource handed in through the
/// PassContext; then the executor takes that engine instead of creating
/// its own (ExecutionEngine::create + Evaluator(engine, module) + call).
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/ExecutionEngine/Evaluator.h"
#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/Runtime/NDArray.h"
#include "nnir/Transforms/BindParams.h"

#include "llvm/ADT/StringMap.h"

#include <memory>

using namespace nnir;
using namespace nnir::python;

namespace {

class PyExecutor {
public:
  PyExecutor() { engine = unwrap(ExecutionEngine::create()); }

  py::object call(Ref<IRModule> module, const std::string &name,
                  const std::vector<NDArray> &args) {
    const Function *fn = module->lookup(name);
    if (!fn)
      throw py::key_error("no function @" + name + " in the module");
    if (args.size() != fn->getParams().size())
      throw py::type_error("@" + name + " takes " +
                           std::to_string(fn->getParams().size()) +
                           " arguments, " + std::to_string(args.size()) +
                           " given");
    std::vector<RuntimeValue> values;
    values.reserve(args.size());
    for (const NDArray &array : args)
      values.push_back(RuntimeValue::tensor(array));
    std::optional<llvm::Expected<RuntimeValue>> result;
    {
      py::gil_scoped_release release;
      Evaluator evaluator(*engine, module.get());
      result.emplace(evaluator.call(*fn, values));
    }
    return toPython(unwrap(std::move(*result)));
  }

private:
  static py::object toPython(const RuntimeValue &value) {
    switch (value.getKind()) {
    case RuntimeValue::Kind::Tensor:
      return py::cast(value.getTensor());
    case RuntimeValue::Kind::Tuple: {
      py::tuple fields(value.getFields().size());
      for (size_t i = 0; i < value.getFields().size(); ++i)
        fields[i] = toPython(value.getFields()[i]);
      return std::move(fields);
    }
    case RuntimeValue::Kind::Closure:
      break;
    }
    throw py::type_error("the result is a function (closure), which cannot "
                         "be returned to Python");
  }

  std::unique_ptr<ExecutionEngine> engine;
};

} // namespace

void python::populateExecutor(py::module_ &m) {
  py::class_<PyExecutor>(m, "Executor",
                         "Runs the functions of a type-checked module on "
                         "NDArrays through the JIT")
      .def(py::init<>())
      .def("call", &PyExecutor::call, py::arg("mod"), py::arg("name"),
           py::arg("args"),
           "Calls @name of the type-checked module on the arrays; a tensor, "
           "or a tuple of results");

  m.def(
      "_bind_params",
      [](Ref<Function> func, const std::map<std::string, NDArray> &params) {
        llvm::StringMap<NDArray> arrays;
        for (const auto &[name, array] : params)
          arrays.try_emplace(name, array);
        return unwrap(bindParams(*func, arrays, "params"));
      },
      py::arg("func"), py::arg("params"),
      "The function with the named parameters bound to the arrays");
}
