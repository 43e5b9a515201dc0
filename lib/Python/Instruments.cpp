//===- Instruments.cpp - Python pass instruments --------------------------===//
//
/// \file
/// A context's instruments come from Python as nnir.instrument.PassInstrument
/// objects. Each becomes a PythonInstrument: a C++ PassInstrument that
/// remembers the Python object (PassContext.instruments gives it back) and
/// either calls the methods its class overrides (enter_pass_ctx,
/// exit_pass_ctx, should_run, run_before_pass, run_after_pass), taking the
/// GIL, or, for a built-in instrument, forwards every point to its C++
/// instrument without the GIL. A Python exception in a method leaves as a
/// PythonError noted with the instrument, the point and the pass, and the
/// C++ PassContext applies TVM's rules for a failure at that point.
//
//===----------------------------------------------------------------------===//

#include "PassBindings.h"

#include "nnir/IR/Module.h"
#include "nnir/Pass/Instruments.h"
#include "nnir/Pass/PassContext.h"

using namespace nnir;
using namespace nnir::python;

namespace {

class PythonInstrument final : public PassInstrument {
public:
  /// The points a Python instrument may override, in PassInstrument's order.
  enum Point { Enter, Exit, ShouldRun, Before, After, NumPoints };

  PythonInstrument(std::string name, py::object object,
                   std::shared_ptr<PassInstrument> native)
      : PassInstrument(name), object(sharePyObject(std::move(object))),
        native(std::move(native)) {}

  const py::object &getObject() const { return object->get(); }
  PassInstrument *getNative() const { return native.get(); }
  void setMethod(Point point, py::object method) {
    methods[point] = sharePyObject(std::move(method));
  }

  llvm::Error enterPassContext() override {
    if (native)
      return native->enterPassContext();
    return call(Enter, nullptr, nullptr, nullptr);
  }
  llvm::Error exitPassContext() override {
    if (native)
      return native->exitPassContext();
    return call(Exit, nullptr, nullptr, nullptr);
  }
  llvm::Expected<bool> shouldRun(const IRModule &module,
                                 const PassInfo &info) override {
    if (native)
      return native->shouldRun(module, info);
    bool answer = true;
    if (llvm::Error err = call(ShouldRun, &module, &info, &answer))
      return err;
    return answer;
  }
  llvm::Error runBeforePass(const IRModule &module,
                            const PassInfo &info) override {
    if (native)
      return native->runBeforePass(module, info);
    return call(Before, &module, &info, nullptr);
  }
  llvm::Error runAfterPass(const IRModule &module,
                           const PassInfo &info) override {
    if (native)
      return native->runAfterPass(module, info);
    return call(After, &module, &info, nullptr);
  }

  static const char *getPointName(Point point) {
    static const char *const names[] = {"enter_pass_ctx", "exit_pass_ctx",
                                        "should_run", "run_before_pass",
                                        "run_after_pass"};
    return names[point];
  }

private:
  /// Calls the method of \p point, if the class overrides it; \p answer
  /// receives should_run's truth value.
  llvm::Error call(Point point, const IRModule *module, const PassInfo *info,
                   bool *answer) {
    if (!methods[point])
      return llvm::Error::success();
    py::gil_scoped_acquire gil;
    try {
      py::object result =
          module ? methods[point]->get()(
                       Ref<IRModule>(const_cast<IRModule *>(module)), *info)
                 : methods[point]->get()();
      if (answer)
        *answer = py::bool_(result);
      return llvm::Error::success();
    } catch (py::error_already_set &error) {
      std::string note = std::string("in ") + getPointName(point) +
                         " of the instrument '" + getName().str() + "'";
      if (info)
        note += " (pass '" + info->name + "')";
      return errorFromPython(error, note);
    }
  }

  SharedPyObject object;
  std::shared_ptr<PassInstrument> native;
  SharedPyObject methods[NumPoints];
};

} // namespace

std::shared_ptr<PassInstrument> python::instrumentFromPython(py::handle object) {
  py::object base = py::module_::import("nnir.instrument").attr("PassInstrument");
  if (!py::isinstance(object, base))
    throw py::type_error(
        "an instrument must be an nnir.instrument.PassInstrument (a subclass, "
        "or a class decorated with @pass_instrument), got " +
        py::str(py::type::handle_of(object).attr("__name__"))
            .cast<std::string>());
  std::string name = py::str(object.attr("name")).cast<std::string>();
  std::shared_ptr<PassInstrument> native;
  if (py::hasattr(object, "_native"))
    native = object.attr("_native").cast<std::shared_ptr<PassInstrument>>();
  auto instrument = std::make_shared<PythonInstrument>(
      name, py::reinterpret_borrow<py::object>(object), native);
  if (!native) {
    py::handle type = py::type::handle_of(object);
    for (int point = 0; point != PythonInstrument::NumPoints; ++point) {
      const char *method =
          PythonInstrument::getPointName(PythonInstrument::Point(point));
      // Only what the class overrides is called: the base class's methods
      // do nothing, and skipping them saves taking the GIL.
      if (!type.attr(method).is(base.attr(method)))
        instrument->setMethod(PythonInstrument::Point(point),
                              object.attr(method));
    }
  }
  return instrument;
}

std::vector<std::shared_ptr<PassInstrument>>
python::instrumentsFromPython(py::handle list, const char *what) {
  std::vector<std::shared_ptr<PassInstrument>> instruments;
  if (list.is_none())
    return instruments;
  if (!isSequence(list))
    throw py::type_error(std::string(what) +
                         " is expected to be the type of list/tuple/set.");
  for (py::handle item : list)
    instruments.push_back(instrumentFromPython(item));
  return instruments;
}

py::list python::instrumentsToPython(
    llvm::ArrayRef<std::shared_ptr<PassInstrument>> list) {
  py::list objects;
  for (const std::shared_ptr<PassInstrument> &instrument : list) {
    // Every instrument of a context was given from Python, except those a
    // C++ caller installed: those are shown as their C++ objects.
    if (auto *python = dynamic_cast<PythonInstrument *>(instrument.get()))
      objects.append(python->getObject());
    else
      objects.append(py::cast(instrument));
  }
  return objects;
}

/// The PassTimingInstruments of the current context (TVM's static render()).
static std::vector<PassTimingInstrument *> currentTimingInstruments() {
  std::vector<PassTimingInstrument *> found;
  for (const auto &instrument : PassContext::current().getInstruments()) {
    PassInstrument *native = instrument.get();
    if (auto *python = dynamic_cast<PythonInstrument *>(native))
      native = python->getNative();
    if (auto *timing = dynamic_cast<PassTimingInstrument *>(native))
      found.push_back(timing);
  }
  return found;
}

static std::string unwrapRender(llvm::Expected<std::string> text) {
  if (!text)
    throw std::runtime_error(llvm::toString(text.takeError()));
  return std::move(*text);
}

void python::populateInstruments(py::module_ &m) {
  py::class_<PassInstrument, std::shared_ptr<PassInstrument>>(
      m, "_NativeInstrument", "A built-in (C++) pass instrument")
      .def_property_readonly("name", [](const PassInstrument &instrument) {
        return instrument.getName().str();
      });
  py::class_<PassTimingInstrument, PassInstrument,
             std::shared_ptr<PassTimingInstrument>>(m, "_PassTimingInstrument")
      .def(py::init([] { return PassTimingInstrument::create(); }))
      .def("render",
           [](const PassTimingInstrument &timing) {
             return unwrapRender(timing.render());
           })
      .def("render_tree", [](const PassTimingInstrument &timing) {
        return unwrapRender(timing.renderTree());
      });
  m.def("_render_current_timing", [](bool tree) {
    std::string text;
    for (PassTimingInstrument *timing : currentTimingInstruments())
      text += unwrapRender(tree ? timing->renderTree() : timing->render());
    return text;
  });
}
