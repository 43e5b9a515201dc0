//===- PassContext.cpp - Python bindings of PassContext -------------------===//
//
/// \file
/// PassContext as a Python `with` scope over C++'s thread-local stack:
/// `__enter__` enters it on the calling thread (PassContext::enter, which
/// calls the instruments' enter hooks, then pushes) and keeps the RAII scope
/// in a per-thread list; `__exit__` checks that the context is the innermost
/// one this thread entered, then exits the scope (pop, then the exit hooks).
/// A context that has been exited is closed: entering it again or replacing
/// its instruments is a RuntimeError (its fields stay readable). Config
/// entries are typed by the PassConfigRegistry; `list_configs()` lists them.
//
//===----------------------------------------------------------------------===//

#include "PassBindings.h"

#include "nnir/Pass/PassContext.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

using namespace nnir;
using namespace nnir::python;

namespace {
/// Where a Python PassContext object is in its life (kept in its __dict__).
enum class ContextState { New = 0, Entered = 1, Closed = 2 };
} // namespace

static const char *const kStateKey = "_nnir_state";

static ContextState getState(py::handle self) {
  py::dict dict = self.attr("__dict__");
  if (!dict.contains(kStateKey))
    return ContextState::New;
  return static_cast<ContextState>(dict[kStateKey].cast<int>());
}

static void setState(py::handle self, ContextState state) {
  self.attr("__dict__")[kStateKey] = static_cast<int>(state);
}

/// The scopes this thread entered from Python, innermost last. Never freed:
/// a scope left open when its thread ends must not run its exit hooks after
/// the thread's context stack (another thread_local) is gone.
static std::vector<PassContextScope> &getScopes() {
  static thread_local auto *scopes = new std::vector<PassContextScope>();
  return *scopes;
}

static void setConfigFromPython(PassContext &ctx, py::handle config) {
  if (config.is_none())
    return;
  if (!py::isinstance<py::dict>(config))
    throw py::type_error("config is expected to be a dict of config keys to "
                         "values");
  for (auto item : config.cast<py::dict>()) {
    if (!py::isinstance<py::str>(item.first))
      throw py::type_error("config keys are strings");
    std::string key = item.first.cast<std::string>();
    const PassConfigRegistry::Entry *entry =
        PassConfigRegistry::instance().lookup(key);
    if (!entry) {
      // The registry's message lists the valid keys.
      llvm::Error err = ctx.setConfig(key, OptionValue(false));
      throw py::type_error(llvm::toString(std::move(err)));
    }
    OptionValue value = optionValueFromPython(item.second, entry->type,
                                              "pass config '" + key + "'");
    if (llvm::Error err = ctx.setConfig(key, std::move(value)))
      throw py::value_error(llvm::toString(std::move(err)));
  }
}

static Ref<PassContext> makeContext(int optLevel, py::handle required,
                                    py::handle disabled, py::handle instruments,
                                    py::handle config, int numThreads) {
  if (numThreads < 0)
    throw py::value_error("num_threads must be at least 0 (0: one per core), "
                          "got " +
                          std::to_string(numThreads));
  Ref<PassContext> ctx = PassContext::create();
  // nnir's extension: the context owns a pool of its own (nnir-opt's
  // --threads=N); function passes run the module's functions on it.
  llvm::ThreadPoolStrategy strategy = llvm::hardware_concurrency(numThreads);
  if (strategy.compute_thread_count() > 1)
    ctx->setThreadPool(std::make_shared<llvm::DefaultThreadPool>(strategy));
  ctx->setOptLevel(optLevel);
  ctx->setRequiredPasses(namesFromPython(
      required, "required_pass is expected to be the type of list/tuple/set."));
  ctx->setDisabledPasses(namesFromPython(
      disabled, "disabled_pass is expected to be the type of list/tuple/set."));
  ctx->setInstruments(instrumentsFromPython(instruments, "instruments"));
  setConfigFromPython(*ctx, config);
  provideEngine(*ctx);
  return ctx;
}

static void checkOpen(py::handle self, const char *action) {
  if (getState(self) == ContextState::Closed)
    throw std::runtime_error(
        std::string("cannot ") + action +
        " a closed PassContext (its with-block has exited); create a new "
        "PassContext");
}

static py::object enterContext(py::object self) {
  checkOpen(self, "enter");
  if (getState(self) == ContextState::Entered)
    throw std::runtime_error("this PassContext is already entered");
  Ref<PassContext> ctx = self.cast<Ref<PassContext>>();
  llvm::Expected<PassContextScope> scope = PassContext::enter(ctx);
  if (!scope)
    throwDiagnostic(scope.takeError());
  getScopes().push_back(std::move(*scope));
  setState(self, ContextState::Entered);
  return self;
}

static bool exitContext(py::object self, py::args) {
  std::vector<PassContextScope> &scopes = getScopes();
  const PassContext *ctx = self.cast<PassContext *>();
  if (scopes.empty() || &scopes.back().getContext() != ctx) {
    if (getState(self) == ContextState::Closed)
      throw std::runtime_error("this PassContext was already exited (closed)");
    throw std::runtime_error(
        "this PassContext is not the innermost context entered on this "
        "thread; contexts exit in reverse order of entry, on the thread "
        "that entered them");
  }
  PassContextScope scope = std::move(scopes.back());
  scopes.pop_back();
  setState(self, ContextState::Closed);
  if (llvm::Error err = scope.exit())
    throwDiagnostic(std::move(err));
  return false;
}

/// Registers config \p key from Python (nnir.transform.register_config).
static void registerConfig(const std::string &key, const std::string &type,
                           const std::string &description) {
  if (key.empty())
    throw py::value_error("a config key must not be empty");
  OptionType optionType = optionTypeFromName(type);
  if (const PassConfigRegistry::Entry *entry =
          PassConfigRegistry::instance().lookup(key))
    if (entry->type != optionType)
      throw py::value_error("pass config '" + key + "' is registered with type " +
                            getOptionTypeName(entry->type).str() + ", not " +
                            type);
  PassConfigRegistry::instance().registerOption(key, optionType, description);
}

static py::dict listConfigs() {
  py::dict configs;
  for (const PassConfigRegistry::Entry &entry :
       PassConfigRegistry::instance().getEntries()) {
    py::dict info;
    info["type"] = getOptionTypeName(entry.type).str();
    info["description"] = entry.description;
    configs[py::str(entry.key)] = info;
  }
  return configs;
}

void python::populatePassContext(py::module_ &m) {
  py::class_<PassContext, Ref<PassContext>>(
      m, "PassContext", py::dynamic_attr(),
      "The settings and instruments of pass runs; a with-scope")
      .def(py::init(&makeContext), py::arg("opt_level") = 2,
           py::arg("required_pass") = py::none(),
           py::arg("disabled_pass") = py::none(),
           py::arg("instruments") = py::none(), py::arg("config") = py::none(),
           py::arg("num_threads") = 1)
      .def_static(
          "current", [] { return Ref<PassContext>(&PassContext::current()); },
          "The innermost entered context of this thread, or the thread's "
          "default context")
      .def("__enter__", &enterContext)
      .def("__exit__", &exitContext)
      .def_property_readonly("opt_level", &PassContext::getOptLevel)
      .def_property_readonly("num_threads", &PassContext::getNumThreads,
                             "Threads function passes run functions on "
                             "(nnir's extension: PassContext(num_threads=N), "
                             "0 for one per core)")
      .def_property_readonly("required_pass",
                             [](const PassContext &ctx) {
                               return std::vector<std::string>(
                                   ctx.getRequiredPasses().begin(),
                                   ctx.getRequiredPasses().end());
                             })
      .def_property_readonly("disabled_pass",
                             [](const PassContext &ctx) {
                               return std::vector<std::string>(
                                   ctx.getDisabledPasses().begin(),
                                   ctx.getDisabledPasses().end());
                             })
      .def_property_readonly("instruments",
                             [](const PassContext &ctx) {
                               return instrumentsToPython(
                                   ctx.getInstruments());
                             })
      .def_property_readonly(
          "config",
          [](const PassContext &ctx) {
            py::dict config;
            for (const PassConfigRegistry::Entry &entry :
                 PassConfigRegistry::instance().getEntries())
              if (const OptionValue *value = ctx.getConfig(entry.key))
                config[py::str(entry.key)] = optionValueToPython(*value);
            return config;
          })
      .def_property_readonly(
          "closed",
          [](py::object self) {
            return getState(self) == ContextState::Closed;
          },
          "True once the context's with-block has exited")
      .def(
          "override_instruments",
          [](py::object self, py::handle instruments) {
            checkOpen(self, "override the instruments of");
            std::vector<std::shared_ptr<PassInstrument>> list =
                instrumentsFromPython(instruments, "instruments");
            if (llvm::Error err = self.cast<PassContext &>().overrideInstruments(
                    std::move(list)))
              throwDiagnostic(std::move(err));
          },
          py::arg("instruments"),
          "Exits the current instruments, then enters these (None: none)")
      .def_static("_register_config", &registerConfig, py::arg("key"),
                  py::arg("type"), py::arg("description"))
      .def_static(
          "_register_config_alias",
          [](const std::string &alias, const std::string &key) {
            if (!PassConfigRegistry::instance().registerAlias(alias, key))
              throw py::value_error("cannot make '" + alias +
                                    "' an alias of config '" + key + "'");
          },
          py::arg("alias"), py::arg("key"))
      .def_static("list_configs", &listConfigs,
                  "Every registered config key: {key: {'type': ..., "
                  "'description': ...}}")
      .def("__repr__", [](const PassContext &ctx) {
        std::string text = "Pass context information: \n\topt_level: " +
                           std::to_string(ctx.getOptLevel()) +
                           "\n\trequired passes: [";
        for (const std::string &name : ctx.getRequiredPasses())
          text += name + ", ";
        text += "]\n\tdisabled passes: [";
        for (const std::string &name : ctx.getDisabledPasses())
          text += name + ", ";
        text += "]\n\tinstruments: [";
        for (const auto &instrument : ctx.getInstruments())
          text += instrument->getName().str() + ", ";
        return text + "]";
      });
}
