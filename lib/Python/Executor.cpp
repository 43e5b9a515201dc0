//===- Executor.cpp - Running a module's functions on NDArrays ------------===//
//
/// \file
/// `_nnir.Executor()` runs a type-checked module's functions on NDArrays
/// through the Evaluator, as nnir-run does: an operator call runs as a
/// kernel of its own, a primitive (fused) function as one kernel. The GIL is
/// released while kernels compile and run.
///
/// The engine is not the executor's: like FoldConstant, it takes the
/// ExecutionEngine resource of the PassContext current when it is created
/// (PassContext::getResource), so the kernels FoldConstant compiles under a
/// context and those the executors compile under it share one kernel cache.
/// Every context Python makes is handed a default engine (host CPU,
/// in-memory cache, made on first use; provideEngine()), and so is the
/// thread's default context when an executor first finds none there.
/// `engine_stats()` reads that engine's counters.
///
/// `_bind_params(func, {name: NDArray})` turns parameters into constants
/// (create_executor's `params`, TVM's bind_params_by_name).
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/ExecutionEngine/Evaluator.h"
#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/Pass/PassContext.h"
#include "nnir/Runtime/NDArray.h"
#include "nnir/Transforms/BindParams.h"
#include "nnir/Transforms/Executor.h"

#include "llvm/ADT/StringMap.h"

#include <map>
#include <memory>

using namespace nnir;
using namespace nnir::python;

/// A default engine (EngineOptions{}) for a context handed none.
static llvm::Expected<std::shared_ptr<ExecutionEngine>> createEngine() {
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create();
  if (!engine)
    return engine.takeError();
  return std::shared_ptr<ExecutionEngine>(std::move(*engine));
}

void python::provideEngine(PassContext &ctx) {
  ctx.setResourceFactory<ExecutionEngine>(createEngine);
}

/// The engine of \p ctx; one made now and handed to \p ctx when it has none.
static std::shared_ptr<ExecutionEngine> getContextEngine(PassContext &ctx) {
  if (std::shared_ptr<ExecutionEngine> engine =
          unwrap(ctx.getResource<ExecutionEngine>()))
    return engine;
  std::shared_ptr<ExecutionEngine> engine = unwrap(createEngine());
  ctx.setResource(engine);
  return engine;
}

namespace {

class PyExecutor {
public:
  PyExecutor() : engine(getContextEngine(PassContext::current())) {}

  /// The counters of the engine, by name.
  py::dict getEngineStats() const {
    const EngineStats &stats = engine->getStats();
    py::dict dict;
    dict["kernels_compiled"] = stats.kernelsCompiled.load();
    dict["memory_hits"] = stats.memoryHits.load();
    dict["disk_hits"] = stats.diskHits.load();
    dict["kernels_evicted"] = stats.kernelsEvicted.load();
    dict["kernel_runs"] = stats.kernelRuns.load();
    return dict;
  }

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
    // A function with `?` extents in its parameters runs through an
    // Executor, which specialises it to the arguments' shapes (one per
    // module, so its specialisations serve the next calls).
    bool dynamic = llvm::any_of(fn->getParams(), [](const Ref<Var> &param) {
      const auto *type =
          llvm::dyn_cast_or_null<TensorType>(param->getCheckedType().get());
      return type && type->isDynamic();
    });
    Executor *executor = nullptr;
    if (dynamic) {
      std::unique_ptr<Executor> &slot = dynamicExecutors[module.get()];
      if (!slot) {
        slot = unwrap(Executor::create(module, *engine, {},
                                       &PassContext::current()));
        keptModules.push_back(module);
      }
      executor = slot.get();
    }
    std::optional<llvm::Expected<RuntimeValue>> result;
    {
      py::gil_scoped_release release;
      if (executor) {
        result.emplace(executor->call(name, values));
      } else {
        Evaluator evaluator(*engine, module.get());
        result.emplace(evaluator.call(*fn, values));
      }
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

  std::shared_ptr<ExecutionEngine> engine;
  /// The executors of the modules with dynamic functions called so far
  /// (the modules kept alive, so their addresses stay theirs).
  std::map<const IRModule *, std::unique_ptr<Executor>> dynamicExecutors;
  std::vector<Ref<IRModule>> keptModules;
};

} // namespace

void python::populateExecutor(py::module_ &m) {
  py::class_<PyExecutor>(m, "Executor",
                         "Runs the functions of a type-checked module on "
                         "NDArrays through the JIT")
      .def(py::init<>(),
           "An executor on the engine of PassContext.current() (shared with "
           "FoldConstant and the other executors under that context)")
      .def("call", &PyExecutor::call, py::arg("mod"), py::arg("name"),
           py::arg("args"),
           "Calls @name of the type-checked module on the arrays; a tensor, "
           "or a tuple of results")
      .def("engine_stats", &PyExecutor::getEngineStats,
           "The engine's counters: kernels_compiled, memory_hits, disk_hits, "
           "kernels_evicted, kernel_runs");

  // The thread that imports nnir shares one engine in its default context
  // too, whether FoldConstant or an executor needs it first.
  provideEngine(PassContext::current());

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
