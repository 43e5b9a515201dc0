//===- Pass.cpp - Python bindings of passes and the pass registry ---------===//
//
/// \file
/// PassInfo, Pass (called on a module: the instrumented run under the
/// thread's current PassContext, with the GIL released), ModulePass and
/// FunctionPass (from a Python function: a C++ pass whose body takes the GIL
/// and calls it), Sequential, and the PassRegistry: the registered passes
/// with their declared options (nnir.transform makes a constructor of each),
/// creation with options as typed keyword arguments, registration of Python
/// passes by name, and pipeline text.
///
/// A Python pass never changes its input: a module pass is given a shallow
/// copy of the module (and when it hands that copy back unchanged, the
/// input itself comes out, so identity is kept); a function pass is given a
/// shallow copy of the module too. An exception raised by the Python code
/// leaves the pass as a PythonError (an llvm::Error) noted with the pass's
/// name, crosses the C++ pass infrastructure, and is re-raised unchanged
/// where the pass was called.
//
//===----------------------------------------------------------------------===//

#include "PassBindings.h"

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Transforms/Pipelines.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace nnir;
using namespace nnir::python;

//===----------------------------------------------------------------------===//
// Option values
//===----------------------------------------------------------------------===//

static std::string pythonTypeName(py::handle object) {
  return py::str(py::type::handle_of(object).attr("__name__"))
      .cast<std::string>();
}

OptionValue python::optionValueFromPython(py::handle object, OptionType type,
                                          const std::string &what) {
  auto mismatch = [&]() -> py::type_error {
    llvm::StringRef name = getOptionTypeName(type);
    std::string article = type == OptionType::Int ? "an " : "a ";
    return py::type_error(what + " expects " + article + name.str() +
                          ", got " + pythonTypeName(object));
  };
  bool isBool = py::isinstance<py::bool_>(object);
  switch (type) {
  case OptionType::Bool:
    if (!isBool)
      throw mismatch();
    return OptionValue(object.cast<bool>());
  case OptionType::Int:
    if (isBool || !py::isinstance<py::int_>(object))
      throw mismatch();
    return OptionValue(object.cast<int64_t>());
  case OptionType::Float:
    if (isBool ||
        !(py::isinstance<py::float_>(object) || py::isinstance<py::int_>(object)))
      throw mismatch();
    return OptionValue(object.cast<double>());
  case OptionType::String:
    if (!py::isinstance<py::str>(object))
      throw mismatch();
    return OptionValue(object.cast<std::string>());
  case OptionType::StringList: {
    if (!py::isinstance<py::list>(object) && !py::isinstance<py::tuple>(object))
      throw mismatch();
    std::vector<std::string> items;
    for (py::handle item : object) {
      if (!py::isinstance<py::str>(item))
        throw py::type_error(what + " expects a list of str, got a " +
                             pythonTypeName(item) + " in the list");
      items.push_back(item.cast<std::string>());
    }
    return OptionValue(std::move(items));
  }
  }
  throw mismatch();
}

py::object python::optionValueToPython(const OptionValue &value) {
  switch (value.getType()) {
  case OptionType::Bool:
    return py::bool_(value.getBool());
  case OptionType::Int:
    return py::int_(value.getInt());
  case OptionType::Float:
    return py::float_(value.getFloat());
  case OptionType::String:
    return py::str(value.getString());
  case OptionType::StringList:
    return py::cast(value.getList());
  }
  return py::none();
}

OptionType python::optionTypeFromName(const std::string &name) {
  for (OptionType type : {OptionType::Bool, OptionType::Int, OptionType::Float,
                          OptionType::String, OptionType::StringList})
    if (getOptionTypeName(type) == name)
      return type;
  throw py::value_error("unknown option type '" + name +
                        "'; expected bool, int, float, string or list");
}

bool python::isSequence(py::handle object) {
  return py::isinstance<py::list>(object) || py::isinstance<py::tuple>(object) ||
         py::isinstance<py::set>(object);
}

std::vector<std::string> python::namesFromPython(py::handle object,
                                                 const std::string &message) {
  std::vector<std::string> names;
  if (object.is_none())
    return names;
  if (!isSequence(object))
    throw py::type_error(message);
  for (py::handle item : object) {
    if (!py::isinstance<py::str>(item))
      throw py::type_error(message + " (its items are pass names, got a " +
                           pythonTypeName(item) + ")");
    names.push_back(item.cast<std::string>());
  }
  return names;
}

//===----------------------------------------------------------------------===//
// Python passes
//===----------------------------------------------------------------------===//

/// True if \p a holds the same functions (the same nodes, in the same order)
/// and attributes as \p b.
static bool sameContents(const IRModule &a, const IRModule &b) {
  if (a.size() != b.size() || a.getAttrs() != b.getAttrs() ||
      a.hasValidTypes() != b.hasValidTypes())
    return false;
  for (size_t i = 0, e = a.size(); i != e; ++i)
    if (a.getFunctions()[i].var != b.getFunctions()[i].var ||
        a.getFunctions()[i].func != b.getFunctions()[i].func)
      return false;
  return true;
}

/// Raises a Python TypeError (so that it travels as the pass's exception).
[[noreturn]] static void raiseTypeError(const std::string &message) {
  PyErr_SetString(PyExc_TypeError, message.c_str());
  throw py::error_already_set();
}

static Ref<Pass> makePythonModulePass(py::object func, PassInfo info) {
  SharedPyObject holder = sharePyObject(std::move(func));
  std::string name = info.name;
  return createModulePass(
      [holder, name](Ref<IRModule> module,
                     PassContext &ctx) -> llvm::Expected<Ref<IRModule>> {
        py::gil_scoped_acquire gil;
        Ref<IRModule> copy = module->shallowCopy();
        try {
          py::object result = holder->get()(copy, Ref<PassContext>(&ctx));
          if (!py::isinstance<IRModule>(result))
            raiseTypeError("module pass '" + name + "' returned a " +
                           pythonTypeName(result) + ", not an IRModule");
          Ref<IRModule> out = result.cast<Ref<IRModule>>();
          if (out == copy && sameContents(*copy, *module))
            return module;
          return out;
        } catch (py::error_already_set &error) {
          return errorFromPython(error, "in the Python pass '" + name + "'");
        }
      },
      std::move(info));
}

static Ref<Pass> makePythonFunctionPass(py::object func, PassInfo info) {
  SharedPyObject holder = sharePyObject(std::move(func));
  std::string name = info.name;
  return createFunctionPass(
      [holder, name](Ref<Function> function, const IRModule &module,
                     PassContext &ctx) -> llvm::Expected<Ref<Function>> {
        py::gil_scoped_acquire gil;
        try {
          py::object result = holder->get()(function, module.shallowCopy(),
                                            Ref<PassContext>(&ctx));
          if (!py::isinstance<Function>(result))
            raiseTypeError("function pass '" + name + "' returned a " +
                           pythonTypeName(result) + ", not a Function");
          return result.cast<Ref<Function>>();
        } catch (py::error_already_set &error) {
          return errorFromPython(error, "in the Python pass '" + name + "'");
        }
      },
      std::move(info));
}

/// Binds \p PassT (ModulePass or FunctionPass) as a class whose constructor
/// takes a Python function (called through \p make) and a PassInfo.
template <typename PassT>
static void bindPythonPassClass(py::module_ &m, const char *name,
                                const char *doc, const char *kind,
                                Ref<Pass> (*make)(py::object, PassInfo),
                                const char *constructorDoc) {
  py::class_<PassT, Pass, Ref<PassT>>(m, name, doc)
      .def(py::init([kind, make](py::object func, const PassInfo &info) {
             if (!PyCallable_Check(func.ptr()))
               throw py::type_error(
                   std::string("pass_func must be a callable for ") + kind +
                   " pass");
             Ref<Pass> pass = make(std::move(func), info);
             return Ref<PassT>(llvm::cast<PassT>(pass.get()));
           }),
           py::arg("pass_func"), py::arg("info"), constructorDoc);
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

/// Pass \p name created with \p kwargs (checked against the declared
/// options: an unknown name or a wrongly typed value is a TypeError naming
/// the option; a value out of range a ValueError).
static Ref<Pass> createPass(const std::string &name, py::dict kwargs) {
  const PassRegistry &registry = PassRegistry::instance();
  const PassRegistration *registration = registry.lookup(name);
  if (!registration)
    throw py::value_error(registry.getUnknownPassMessage(name));
  PassOptions options;
  for (const PassOptionInfo &option : registration->options)
    options.set(option.name, option.defaultValue);
  for (auto item : kwargs) {
    std::string key = py::str(item.first);
    const PassOptionInfo *declared = nullptr;
    for (const PassOptionInfo &option : registration->options)
      if (option.name == key)
        declared = &option;
    if (!declared) {
      std::string message =
          "unknown option '" + key + "' of pass " + name + "; ";
      if (registration->options.empty()) {
        message += name + " takes no options";
      } else {
        message += "valid options are: ";
        for (size_t i = 0; i < registration->options.size(); ++i)
          message += (i ? ", " : "") + registration->options[i].name;
      }
      throw py::type_error(message);
    }
    OptionValue value = optionValueFromPython(
        item.second, declared->type, "option '" + key + "' of pass " + name);
    if (declared->range && value.getType() == OptionType::Int &&
        !declared->range->contains(value.getInt()))
      throw py::value_error(
          "option '" + key + "' of pass " + name + ": " +
          declared->range->describeMismatch(llvm::Twine(value.getInt())));
    options.set(key, std::move(value));
  }
  Ref<Pass> pass = unwrap(registration->factory(options));
  if (!pass)
    throw py::value_error("the factory of pass '" + name +
                          "' returned no pass");
  if (pass->getName() != name)
    throw py::value_error("the factory of pass '" + name +
                          "' returned a pass named '" +
                          pass->getName().str() + "'");
  return pass;
}

static py::list listPasses() {
  py::list passes;
  for (const PassRegistration *registration :
       PassRegistry::instance().getRegistrations()) {
    py::list options;
    for (const PassOptionInfo &option : registration->options) {
      py::dict entry;
      entry["name"] = option.name;
      entry["type"] = getOptionTypeName(option.type).str();
      entry["default"] = optionValueToPython(option.defaultValue);
      entry["description"] = option.description;
      options.append(entry);
    }
    py::dict entry;
    entry["name"] = registration->name;
    entry["description"] = registration->description;
    entry["origin"] = registration->origin;
    entry["options"] = options;
    passes.append(entry);
  }
  return passes;
}

/// Registers a Python pass factory: \p options lists the keyword arguments
/// it takes as (name, type, default, description) tuples, so that pipeline
/// text can give them (`MyPass{scale=2}`).
static void registerPythonPass(const std::string &name,
                               const std::string &description,
                               py::function factory, py::list options) {
  PassRegistration registration;
  registration.name = name;
  registration.description = description;
  registration.origin = "python";
  for (py::handle item : options) {
    py::tuple entry = item.cast<py::tuple>();
    PassOptionInfo option;
    option.name = entry[0].cast<std::string>();
    option.type = optionTypeFromName(entry[1].cast<std::string>());
    option.defaultValue = optionValueFromPython(
        entry[2], option.type, "the default of option '" + option.name + "'");
    option.description = entry[3].cast<std::string>();
    registration.options.push_back(std::move(option));
  }
  SharedPyObject holder = sharePyObject(std::move(factory));
  std::vector<PassOptionInfo> declared = registration.options;
  registration.factory =
      [holder, name, declared](
          const PassOptions &values) -> llvm::Expected<Ref<Pass>> {
    py::gil_scoped_acquire gil;
    try {
      py::dict kwargs;
      for (const PassOptionInfo &option : declared)
        kwargs[py::str(option.name)] =
            optionValueToPython(values.get(option.name));
      py::object result = holder->get()(**kwargs);
      if (!py::isinstance<Pass>(result))
        raiseTypeError("the factory of pass '" + name + "' returned a " +
                       pythonTypeName(result) + ", not a Pass");
      return result.cast<Ref<Pass>>();
    } catch (py::error_already_set &error) {
      llvm::Error err = errorFromPython(
          error, "while creating the Python pass '" + name + "'");
      // The pipeline parser and Sequential turn a factory's error into
      // text; the exception itself is kept for the caller.
      setPendingPythonError(error.value());
      return err;
    }
  };
  if (llvm::Error err =
          PassRegistry::instance().registerPass(std::move(registration)))
    throw py::value_error(llvm::toString(std::move(err)));
}

static Ref<Pass> parsePipeline(const std::string &text) {
  // `default<O2>` expands to the default pipeline, as in nnir-opt.
  clearPendingPythonError();
  ExpandedPipeline expanded = unwrap(expandDefaultPipelines(text));
  return unwrap(parsePassPipeline(expanded.text, getSourceMgr()));
}

//===----------------------------------------------------------------------===//
// Bindings
//===----------------------------------------------------------------------===//

template <typename T> static std::string printed(const T &value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  value.print(os);
  return os.str();
}

static PassInfo makePassInfo(int optLevel, const std::string &name,
                             py::handle required) {
  return PassInfo(name, optLevel,
                  namesFromPython(required, "Required is expected to be the "
                                            "type of list/tuple."));
}

void python::populatePasses(py::module_ &m) {
  py::class_<PassInfo>(m, "PassInfo",
                       "A pass's name, opt level and required passes")
      .def(py::init([](int optLevel, const std::string &name,
                       py::handle required, bool traceable) {
             return makePassInfo(optLevel, name, required);
           }),
           py::arg("opt_level"), py::arg("name"),
           py::arg("required") = py::none(), py::arg("traceable") = false)
      .def_readonly("name", &PassInfo::name)
      .def_readonly("opt_level", &PassInfo::optLevel)
      .def_readonly("required", &PassInfo::required)
      .def_readonly("description", &PassInfo::description)
      .def_property_readonly(
          "traceable", [](const PassInfo &) { return false; },
          "Always False: nnir has no tuning traces")
      .def("__str__", &printed<PassInfo>)
      .def("__repr__", &printed<PassInfo>);

  py::class_<Pass, Ref<Pass>>(m, "Pass", "A module -> module transformation")
      .def(
          "__call__",
          [](const Pass &pass, Ref<IRModule> module) {
            clearPendingPythonError();
            llvm::Expected<Ref<IRModule>> result = [&] {
              // C++ passes run without the GIL; Python passes and
              // instruments take it back.
              py::gil_scoped_release release;
              return pass.run(std::move(module));
            }();
            return unwrap(std::move(result));
          },
          py::arg("mod"),
          "Runs the pass on `mod` under PassContext.current() and returns "
          "the result (the same module when nothing changed)")
      .def_property_readonly("info", &Pass::getInfo)
      .def_property_readonly(
          "name", [](const Pass &pass) { return pass.getName().str(); })
      .def("__str__", &printed<Pass>)
      .def("__repr__", &printed<Pass>);

  bindPythonPassClass<ModulePass>(
      m, "ModulePass", "A pass over the whole module", "Module",
      &makePythonModulePass,
      "A module pass calling pass_func(mod, ctx) -> IRModule");
  bindPythonPassClass<FunctionPass>(
      m, "FunctionPass", "A pass over each function of the module",
      "Function", &makePythonFunctionPass,
      "A function pass calling pass_func(func, mod, ctx) -> Function");
  py::class_<Sequential, Pass, Ref<Sequential>>(
      m, "Sequential", "Passes run in order, as the context enables them")
      .def(py::init([](py::handle passes, int optLevel, const std::string &name,
                       py::handle required, bool traceable) {
             std::vector<Ref<Pass>> list;
             if (!passes.is_none()) {
               if (!py::isinstance<py::list>(passes) &&
                   !py::isinstance<py::tuple>(passes))
                 throw py::type_error("passes must be a list of Pass objects.");
               for (py::handle item : passes) {
                 if (!py::isinstance<Pass>(item))
                   throw py::type_error(
                       "passes must be a list of Pass objects (got a " +
                       pythonTypeName(item) + ")");
                 list.push_back(item.cast<Ref<Pass>>());
               }
             }
             Ref<Pass> pass = createSequential(
                 list, makePassInfo(optLevel, name, required));
             return Ref<Sequential>(llvm::cast<Sequential>(pass.get()));
           }),
           py::arg("passes") = py::none(), py::arg("opt_level") = 0,
           py::arg("name") = "sequential", py::arg("required") = py::none(),
           py::arg("traceable") = false)
      .def_property_readonly("passes", [](const Sequential &sequential) {
        std::vector<Ref<Pass>> passes(sequential.getPasses().begin(),
                                      sequential.getPasses().end());
        return passes;
      });

  m.def("_list_passes", &listPasses,
        "Every registered pass with its declared options");
  m.def("_create_pass", &createPass, py::arg("name"), py::arg("kwargs"));
  m.def("_register_pass", &registerPythonPass, py::arg("name"),
        py::arg("description"), py::arg("factory"), py::arg("options"));
  m.def("parse_pipeline", &parsePipeline, py::arg("text"),
        "The pass of pipeline text (nnir-opt's --passes= syntax)");
}
