//===- PassContext.h - Settings and instruments of a pass run ---*- C++ -*-===//
//
/// \file
/// A PassContext carries what a pass run is configured with: the opt level
/// (default 2), the names of required and disabled passes, typed config
/// entries (validated against the PassConfigRegistry), instruments, the
/// statistics passes record, and where their remarks and warnings go.
///
/// It also carries the resources the caller hands to the passes (the
/// ExecutionEngine FoldConstant runs kernels on, ...): one per C++ type,
/// keyed by the type's TypeId, so the Pass library never names the types it
/// carries (the libraries that own them sit above it).
///
/// Each thread has a stack of entered contexts; PassContext::current() is the
/// innermost, or the thread's default context when none is entered. Entering
/// is an RAII scope (TVM's With<PassContext>): PassContext::enter() calls the
/// instruments' enter hooks, then pushes; the scope's exit() (or destructor)
/// pops, then calls the exit hooks.
///
/// A context may carry a thread pool (setThreadPool): function passes then
/// run the module's functions on it, each under a task context entered on
/// the worker (nnir/Pass/Parallel.h), and the results, statistics, remarks,
/// warnings and timings are merged in function order, so that the output is
/// what one thread gives.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PASS_PASSCONTEXT_H
#define NNIR_PASS_PASSCONTEXT_H

#include "nnir/IR/Object.h"
#include "nnir/Pass/OptionValue.h"
#include "nnir/Pass/PassGate.h"
#include "nnir/Pass/PassInfo.h"
#include "nnir/Pass/PassInstrument.h"
#include "nnir/Pass/Remark.h"
#include "nnir/Support/IntegerRange.h"
#include "nnir/Support/TypeId.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>

namespace llvm {
class ThreadPoolInterface;
} // namespace llvm
#include <optional>
#include <string>
#include <vector>

namespace nnir {

class PassContextScope;

/// Counters that passes increment (Debian's LLVM compiles STATISTIC out),
/// grouped by pass, in first-use order. A pass should add its total once per
/// run rather than once per node: lookups are linear in the number of
/// counters.
class PassStatistics {
public:
  struct Counter {
    std::string name;
    std::string description;
    int64_t value = 0;
  };
  struct PassCounters {
    std::string pass;
    std::vector<Counter> counters;
  };

  void add(llvm::StringRef pass, llvm::StringRef counter, int64_t delta,
           llvm::StringRef description = "");
  /// The value of \p counter of \p pass (0 if never incremented).
  int64_t get(llvm::StringRef pass, llvm::StringRef counter) const;
  bool empty() const { return passes.empty(); }
  void clear() { passes.clear(); }

  /// LLVM's `-stats` layout: a banner, then `<value> <pass> - <description>`
  /// per counter, values right-aligned.
  void print(llvm::raw_ostream &os) const;
  /// LLVM's `-stats-json` layout: one JSON object of "<pass>.<counter>":
  /// value, in the order the counters were first incremented.
  void printJSON(llvm::raw_ostream &os) const;

  llvm::ArrayRef<PassCounters> getCounters() const { return passes; }

private:
  std::vector<PassCounters> passes;
};

class PassContext : public Object {
public:
  static Ref<PassContext> create();

  /// The innermost entered context of this thread, or the thread's default.
  static PassContext &current();

  /// Enters \p context on this thread: calls every instrument's
  /// enterPassContext in order, then pushes. On an instrument error, the
  /// instruments already entered are exited in reverse order, the
  /// instruments are cleared and the error is returned; nothing is pushed.
  static llvm::Expected<PassContextScope> enter(Ref<PassContext> context);

  int getOptLevel() const { return optLevel; }
  void setOptLevel(int level) { optLevel = level; }

  llvm::ArrayRef<std::string> getRequiredPasses() const { return required; }
  llvm::ArrayRef<std::string> getDisabledPasses() const { return disabled; }
  void setRequiredPasses(std::vector<std::string> names) {
    required = std::move(names);
  }
  void setDisabledPasses(std::vector<std::string> names) {
    disabled = std::move(names);
  }
  bool isRequired(llvm::StringRef passName) const;
  bool isDisabled(llvm::StringRef passName) const;

  /// TVM's PassEnabled: disabled -> false; required -> true; otherwise
  /// optLevel >= info.optLevel.
  bool isEnabled(const PassInfo &info) const;

  /// Sets config entry \p key. Unknown keys and values of the wrong type are
  /// errors that list the valid keys or name the expected type.
  llvm::Error setConfig(llvm::StringRef key, OptionValue value);
  /// Parses `value` for \p key with the key's registered type.
  llvm::Error setConfigFromString(llvm::StringRef key, llvm::StringRef value);
  /// The entry \p key, or null when unset.
  const OptionValue *getConfig(llvm::StringRef key) const;
  bool getConfigBool(llvm::StringRef key, bool def) const;
  int64_t getConfigInt(llvm::StringRef key, int64_t def) const;

  llvm::ArrayRef<std::shared_ptr<PassInstrument>> getInstruments() const {
    return instruments;
  }
  /// Sets the instruments of a context that is not entered.
  void setInstruments(std::vector<std::shared_ptr<PassInstrument>> list) {
    instruments = std::move(list);
  }
  /// A fresh context for a pipeline that a pass runs on its own behalf
  /// (FoldConstant's evaluations): default settings (opt level 2, nothing
  /// required or disabled, no config, no remark sink or warning handler),
  /// this context's resources, and only the instruments that follow nested
  /// pipelines (PassInstrument::followsNestedPipelines(): timing does, so
  /// the work shows up under the pass; printing and verifying do not).
  Ref<PassContext> createNestedContext() const;
  /// TVM's override_instruments: exits the current instruments, replaces
  /// them, enters the new ones (with the enter/exit failure semantics above).
  /// Works on any context, entered or not, including the thread default.
  llvm::Error
  overrideInstruments(std::vector<std::shared_ptr<PassInstrument>> list);

  /// The gate that decides which skippable passes run (PassGate.h); null
  /// (the default): all of them. Nested contexts have none.
  void setPassGate(std::shared_ptr<PassGate> gate) {
    passGate = std::move(gate);
  }
  PassGate *getPassGate() const { return passGate.get(); }

  /// The pool function passes run the module's functions on
  /// (nnir/Pass/Parallel.h). Like the ExecutionEngine, it belongs to the
  /// caller, who sizes it (nnir-opt: `--threads=N`); nested and task
  /// contexts share it. Null (the default) or a pool of one thread: one
  /// function after the other, on the calling thread. Worker threads must
  /// have a stack sized for the input's nesting (nnir/Support/Stack.h).
  void setThreadPool(std::shared_ptr<llvm::ThreadPoolInterface> pool) {
    threadPool = std::move(pool);
  }
  llvm::ThreadPoolInterface *getThreadPool() const { return threadPool.get(); }
  /// How many functions may run at once: the pool's size, else 1.
  unsigned getNumThreads() const;

  PassStatistics &getStatistics() { return statistics; }
  const PassStatistics &getStatistics() const { return statistics; }

  /// Where the remarks of passes run under this context go (Remark.h); null
  /// (the default) drops them.
  void setRemarkSink(std::shared_ptr<RemarkSink> sink) {
    remarkSink = std::move(sink);
  }
  RemarkSink *getRemarkSink() const { return remarkSink.get(); }
  /// True if a remark of \p kind from \p pass would go anywhere: passes ask
  /// before building one.
  bool isRemarkEnabled(RemarkKind kind, llvm::StringRef pass) const {
    return remarkSink && remarkSink->isEnabled(kind, pass);
  }
  /// Hands \p remark to the sink, if it takes remarks of its kind and pass.
  void emitRemark(const Remark &remark) {
    if (isRemarkEnabled(remark.getKind(), remark.getPass()))
      remarkSink->emit(remark);
  }

  /// Where the located warnings of passes go (e.g. a constant that
  /// FoldConstant could not evaluate): the driver installs a handler that
  /// renders them through its SourceMgr. Without one, warnings are printed,
  /// unlocated, on llvm::errs().
  using WarningHandler =
      std::function<void(llvm::SMLoc loc, const llvm::Twine &message)>;
  void setWarningHandler(WarningHandler handler) {
    warningHandler = std::move(handler);
  }
  const WarningHandler &getWarningHandler() const { return warningHandler; }
  void emitWarning(llvm::SMLoc loc, const llvm::Twine &message);

  //===--------------------------------------------------------------------===//
  // Resources
  //===--------------------------------------------------------------------===//

  /// Hands \p resource of type \p T to the passes run under this context
  /// (null removes it). \p T needs an explicit TypeId
  /// (NNIR_DECLARE_EXPLICIT_TYPE_ID), declared by the library that owns it.
  /// Passes and threads using the context share the one resource, so it
  /// must be thread-safe where passes run concurrently.
  template <typename T> void setResource(std::shared_ptr<T> resource) {
    setResourceImpl(TypeId::get<T>(), std::shared_ptr<void>(std::move(resource)),
                    nullptr);
  }
  /// A resource of type \p T that \p create makes the first time a pass asks
  /// for it (once, under a lock), so a run that never needs it never pays
  /// for it. An error of \p create is returned to every pass that asks.
  template <typename T>
  void setResourceFactory(
      std::function<llvm::Expected<std::shared_ptr<T>>()> create) {
    setResourceImpl(TypeId::get<T>(), nullptr,
                    [create = std::move(create)]()
                        -> llvm::Expected<std::shared_ptr<void>> {
                      llvm::Expected<std::shared_ptr<T>> made = create();
                      if (!made)
                        return made.takeError();
                      return std::shared_ptr<void>(std::move(*made));
                    });
  }
  /// The resource of type \p T handed to this context (made now if it was
  /// given as a factory), or null when none was.
  template <typename T> llvm::Expected<std::shared_ptr<T>> getResource() const {
    llvm::Expected<std::shared_ptr<void>> resource =
        getResourceImpl(TypeId::get<T>());
    if (!resource)
      return resource.takeError();
    return std::static_pointer_cast<T>(std::move(*resource));
  }

  /// Instrument callbacks, used by Pass::run (see PassInstrument.h).
  /// Returns whether the pass should run; calls runBeforePass when it does.
  llvm::Expected<bool> instrumentBeforePass(const IRModule &module,
                                            const PassInfo &info);
  llvm::Error instrumentAfterPass(const IRModule &module, const PassInfo &info);

  /// The context one task of a parallel loop runs under (Parallel.h): this
  /// context's settings, resources and pool, the instruments that follow
  /// nested pipelines, no pass gate, and its own statistics; its remarks
  /// and warnings are recorded, in order, for replay() on this context.
  Ref<PassContext> createTaskContext() const;
  /// Hands what the task context \p task recorded (remarks and warnings, in
  /// the order they came) to this context's sink and handler, and adds its
  /// statistics to this context's.
  void replay(PassContext &task);
  /// Enters the task context \p context on this (worker) thread, without
  /// calling the instruments' enter and exit hooks.
  static PassContextScope enterTask(Ref<PassContext> context);
  /// What a task context records for replay() (defined in PassContext.cpp).
  struct TaskLog;

private:
  friend class PassContextScope;
  PassContext() = default;
  llvm::Error enterInstruments();
  llvm::Error exitInstruments();

  using ResourceFactory =
      std::function<llvm::Expected<std::shared_ptr<void>>()>;
  struct ResourceSlot;
  void setResourceImpl(TypeId type, std::shared_ptr<void> resource,
                       ResourceFactory create);
  llvm::Expected<std::shared_ptr<void>> getResourceImpl(TypeId type) const;

  int optLevel = 2;
  std::vector<std::string> required;
  std::vector<std::string> disabled;
  llvm::StringMap<OptionValue> config;
  std::vector<std::shared_ptr<PassInstrument>> instruments;
  PassStatistics statistics;
  std::shared_ptr<RemarkSink> remarkSink;
  WarningHandler warningHandler;
  std::shared_ptr<PassGate> passGate;
  std::shared_ptr<llvm::ThreadPoolInterface> threadPool;
  std::shared_ptr<TaskLog> taskLog;
  /// Shared with no one: a slot's lock guards its lazy creation.
  llvm::DenseMap<TypeId, std::shared_ptr<ResourceSlot>> resources;
};

/// An entered PassContext; leaving the scope exits it.
class PassContextScope {
public:
  PassContextScope(PassContextScope &&other);
  PassContextScope &operator=(PassContextScope &&) = delete;
  PassContextScope(const PassContextScope &) = delete;
  ~PassContextScope();

  PassContext &getContext() const { return *context; }

  /// Pops the context, then calls the instruments' exit hooks; an error
  /// clears the instruments and is returned. The destructor calls exit() when
  /// it was not called and reports an error on stderr, since it cannot
  /// return it.
  llvm::Error exit();

private:
  friend class PassContext;
  explicit PassContextScope(Ref<PassContext> context,
                            bool callInstruments = true)
      : context(std::move(context)), callInstruments(callInstruments) {}
  Ref<PassContext> context;
  bool callInstruments;
};

//===----------------------------------------------------------------------===//
// Config options
//===----------------------------------------------------------------------===//

/// The registered config keys (TVM's TVM_REGISTER_PASS_CONFIG_OPTION), with a
/// type and a description. Libraries register their keys in their
/// register...() calls; registering a key twice with another type is a
/// programming error and aborts.
class PassConfigRegistry {
public:
  struct Entry {
    std::string key;
    OptionType type;
    std::string description;
    /// The values an int key accepts (none: every int64).
    std::optional<IntegerRange<int64_t>> range;
  };

  static PassConfigRegistry &instance();

  void registerOption(llvm::StringRef key, OptionType type,
                      llvm::StringRef description);
  /// Registers an int key that accepts only the values in \p range:
  /// PassContext::setConfig refuses others, saying the range.
  void registerIntOption(llvm::StringRef key, IntegerRange<int64_t> range,
                         llvm::StringRef description);
  /// Makes \p alias another name of the registered \p key (TVM's
  /// "relay.FuseOps.max_depth" for "FuseOps.max_depth"): lookup(alias)
  /// finds \p key's entry and a context stores the value under \p key.
  /// False if \p key is not registered or \p alias names another key.
  bool registerAlias(llvm::StringRef alias, llvm::StringRef key);
  const Entry *lookup(llvm::StringRef key) const;
  /// Every key in registration order (aliases are not listed).
  llvm::ArrayRef<Entry> getEntries() const { return entries; }

private:
  PassConfigRegistry() = default;
  std::vector<Entry> entries;
  llvm::StringMap<size_t> index;
};

/// Registers the config keys of the pass infrastructure itself
/// ("testing.immutable_module"). Idempotent.
void registerPassInfraConfigs();

} // namespace nnir

#endif // NNIR_PASS_PASSCONTEXT_H
