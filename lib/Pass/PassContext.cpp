//===- PassContext.cpp - Settings and instruments of a pass run -----------===//
//
/// \file
/// The thread-local context stack, instrument dispatch with TVM's failure
/// semantics, typed config entries and pass statistics.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/PassContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <mutex>

using namespace llvm;
using namespace nnir;

PassInstrument::~PassInstrument() = default;
PassInstrument::TaskRecord::~TaskRecord() = default;

//===----------------------------------------------------------------------===//
// PassStatistics
//===----------------------------------------------------------------------===//

void PassStatistics::add(StringRef pass, StringRef counter, int64_t delta,
                         StringRef description) {
  auto passIt = find_if(passes, [&](const PassCounters &p) {
    return p.pass == pass;
  });
  if (passIt == passes.end())
    passIt = passes.insert(passes.end(), PassCounters{pass.str(), {}});
  auto it = find_if(passIt->counters,
                    [&](const Counter &c) { return c.name == counter; });
  if (it == passIt->counters.end())
    it = passIt->counters.insert(passIt->counters.end(),
                                 Counter{counter.str(), description.str(), 0});
  it->value += delta;
  if (it->description.empty())
    it->description = description.str();
}

int64_t PassStatistics::get(StringRef pass, StringRef counter) const {
  for (const PassCounters &p : passes)
    if (p.pass == pass)
      for (const Counter &c : p.counters)
        if (c.name == counter)
          return c.value;
  return 0;
}

void PassStatistics::print(raw_ostream &os) const {
  // LLVM's -stats layout: values right-aligned, pass names left-aligned.
  size_t valueWidth = 1, nameWidth = 1;
  for (const PassCounters &p : passes) {
    nameWidth = std::max(nameWidth, p.pass.size());
    for (const Counter &c : p.counters)
      valueWidth = std::max(valueWidth, std::to_string(c.value).size());
  }
  os << "===" << std::string(73, '-') << "===\n"
     << std::string(26, ' ') << "... Statistics Collected ...\n"
     << "===" << std::string(73, '-') << "===\n\n";
  for (const PassCounters &p : passes)
    for (const Counter &c : p.counters) {
      StringRef text = c.description.empty() ? StringRef(c.name)
                                             : StringRef(c.description);
      os << right_justify(std::to_string(c.value), valueWidth) << ' '
         << left_justify(p.pass, nameWidth) << " - " << text << '\n';
    }
  os << '\n';
}

void PassStatistics::printJSON(raw_ostream &os) const {
  json::OStream out(os, /*IndentSize=*/2);
  out.object([&] {
    for (const PassCounters &p : passes)
      for (const Counter &c : p.counters)
        out.attribute(p.pass + "." + c.name, c.value);
  });
  os << '\n';
}

//===----------------------------------------------------------------------===//
// The thread-local stack
//===----------------------------------------------------------------------===//

namespace {
struct ContextStack {
  Ref<PassContext> defaultContext;
  std::vector<Ref<PassContext>> entered;
};
} // namespace

static ContextStack &getContextStack() {
  static thread_local ContextStack stack;
  return stack;
}

Ref<PassContext> PassContext::create() {
  return Ref<PassContext>(new PassContext());
}

PassContext &PassContext::current() {
  ContextStack &stack = getContextStack();
  if (!stack.entered.empty())
    return *stack.entered.back();
  if (!stack.defaultContext)
    stack.defaultContext = create();
  return *stack.defaultContext;
}

Error PassContext::enterInstruments() {
  for (size_t i = 0, e = instruments.size(); i != e; ++i) {
    Error err = instruments[i]->enterPassContext();
    if (!err)
      continue;
    // Exit the instruments already entered, newest first. Their own errors
    // are secondary to the one being reported.
    for (size_t j = i; j-- > 0;)
      consumeError(instruments[j]->exitPassContext());
    instruments.clear();
    return err;
  }
  return Error::success();
}

Error PassContext::exitInstruments() {
  for (const std::shared_ptr<PassInstrument> &instrument : instruments) {
    if (Error err = instrument->exitPassContext()) {
      instruments.clear();
      return err;
    }
  }
  return Error::success();
}

Expected<PassContextScope> PassContext::enter(Ref<PassContext> context) {
  if (Error err = context->enterInstruments())
    return err;
  getContextStack().entered.push_back(context);
  return PassContextScope(std::move(context));
}

PassContextScope PassContext::enterTask(Ref<PassContext> context) {
  getContextStack().entered.push_back(context);
  return PassContextScope(std::move(context), /*callInstruments=*/false);
}

PassContextScope::PassContextScope(PassContextScope &&other)
    : context(std::move(other.context)),
      callInstruments(other.callInstruments) {
  other.context = nullptr;
}

Error PassContextScope::exit() {
  if (!context)
    return Error::success();
  Ref<PassContext> leaving = std::move(context);
  context = nullptr;
  std::vector<Ref<PassContext>> &entered = getContextStack().entered;
  // Scopes are RAII objects, so they end in reverse order of entry; a scope
  // moved to another thread or leaked out of order is a programming error.
  if (entered.empty() || entered.back() != leaving)
    report_fatal_error("PassContext scopes must be exited in reverse order "
                       "of entry, on the thread that entered them");
  entered.pop_back();
  if (!callInstruments)
    return Error::success();
  return leaving->exitInstruments();
}

PassContextScope::~PassContextScope() {
  if (!context)
    return;
  if (Error err = exit())
    handleAllErrors(std::move(err), [](const ErrorInfoBase &info) {
      WithColor::warning(errs())
          << "pass instrument failed while exiting a pass context: "
          << info.message() << "\n";
    });
}

//===----------------------------------------------------------------------===//
// Enabling passes and config
//===----------------------------------------------------------------------===//

bool PassContext::isRequired(StringRef passName) const {
  return is_contained(required, passName);
}

bool PassContext::isDisabled(StringRef passName) const {
  return is_contained(disabled, passName);
}

bool PassContext::isEnabled(const PassInfo &info) const {
  if (isDisabled(info.name))
    return false;
  if (isRequired(info.name))
    return true;
  return optLevel >= info.optLevel;
}

/// "a, b, c" of every registered config key.
static std::string listConfigKeys() {
  std::string keys;
  for (const PassConfigRegistry::Entry &entry :
       PassConfigRegistry::instance().getEntries()) {
    if (!keys.empty())
      keys += ", ";
    keys += entry.key;
  }
  return keys.empty() ? std::string("(none registered)") : keys;
}

void PassContext::emitWarning(SMLoc loc, const Twine &message) {
  if (warningHandler) {
    warningHandler(loc, message);
    return;
  }
  WithColor::warning(errs()) << message << "\n";
}

Error PassContext::setConfig(StringRef key, OptionValue value) {
  const PassConfigRegistry::Entry *entry =
      PassConfigRegistry::instance().lookup(key);
  if (!entry)
    return createStringError(inconvertibleErrorCode(),
                             "unknown pass config '" + key +
                                 "'; valid keys are: " + listConfigKeys());
  bool intAsFloat = entry->type == OptionType::Float &&
                    value.getType() == OptionType::Int;
  if (value.getType() != entry->type && !intAsFloat)
    return createStringError(
        inconvertibleErrorCode(),
        "pass config '" + key + "' expects a value of type " +
            getOptionTypeName(entry->type) + ", got " +
            (value.getType() == OptionType::Int ? "an " : "a ") +
            getOptionTypeName(value.getType()));
  if (intAsFloat)
    value = OptionValue(value.getFloat());
  if (entry->range && value.getType() == OptionType::Int &&
      !entry->range->contains(value.getInt()))
    return createStringError(
        inconvertibleErrorCode(),
        "pass config '" + key +
            "': " + entry->range->describeMismatch(Twine(value.getInt())));
  config[entry->key] = std::move(value);
  return Error::success();
}

Error PassContext::setConfigFromString(StringRef key, StringRef text) {
  const PassConfigRegistry::Entry *entry =
      PassConfigRegistry::instance().lookup(key);
  if (!entry)
    return setConfig(key, OptionValue(text.str())); // Reports the key.
  // A ranged int says its range for any text it refuses.
  if (entry->range) {
    Expected<int64_t> number = entry->range->parse(text.trim());
    if (!number)
      return createStringError(inconvertibleErrorCode(),
                               "pass config '" + key +
                                   "': " + toString(number.takeError()));
    return setConfig(key, OptionValue(*number));
  }
  Expected<OptionValue> value = parseOptionValue(text, entry->type);
  if (!value)
    return createStringError(inconvertibleErrorCode(),
                             "pass config '" + key +
                                 "': " + toString(value.takeError()));
  return setConfig(key, std::move(*value));
}

const OptionValue *PassContext::getConfig(StringRef key) const {
  if (const PassConfigRegistry::Entry *entry =
          PassConfigRegistry::instance().lookup(key))
    key = entry->key; // An alias reads its key's value.
  auto it = config.find(key);
  return it == config.end() ? nullptr : &it->second;
}

bool PassContext::getConfigBool(StringRef key, bool def) const {
  const OptionValue *value = getConfig(key);
  return value && value->getType() == OptionType::Bool ? value->getBool()
                                                        : def;
}

int64_t PassContext::getConfigInt(StringRef key, int64_t def) const {
  const OptionValue *value = getConfig(key);
  return value && value->getType() == OptionType::Int ? value->getInt() : def;
}

//===----------------------------------------------------------------------===//
// Instruments
//===----------------------------------------------------------------------===//

Error PassContext::overrideInstruments(
    std::vector<std::shared_ptr<PassInstrument>> list) {
  if (Error err = exitInstruments())
    return err;
  instruments = std::move(list);
  return enterInstruments();
}

Expected<bool> PassContext::instrumentBeforePass(const IRModule &module,
                                                 const PassInfo &info) {
  if (instruments.empty())
    return true;
  // Keep the instruments alive even if a callback overrides them.
  std::vector<std::shared_ptr<PassInstrument>> current = instruments;
  bool shouldRun = true;
  if (!isRequired(info.name)) {
    for (const std::shared_ptr<PassInstrument> &instrument : current) {
      Expected<bool> answer = instrument->shouldRun(module, info);
      if (!answer)
        return answer.takeError();
      shouldRun = shouldRun && *answer; // Every instrument is asked.
    }
  }
  if (!shouldRun)
    return false;
  for (const std::shared_ptr<PassInstrument> &instrument : current)
    if (Error err = instrument->runBeforePass(module, info))
      return err;
  return true;
}

Error PassContext::instrumentAfterPass(const IRModule &module,
                                       const PassInfo &info) {
  std::vector<std::shared_ptr<PassInstrument>> current = instruments;
  for (const std::shared_ptr<PassInstrument> &instrument : current)
    if (Error err = instrument->runAfterPass(module, info))
      return err;
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Resources
//===----------------------------------------------------------------------===//

Ref<PassContext> PassContext::createNestedContext() const {
  Ref<PassContext> nested = create();
  for (const std::shared_ptr<PassInstrument> &instrument : instruments)
    if (instrument->followsNestedPipelines())
      nested->instruments.push_back(instrument);
  nested->resources = resources;
  nested->threadPool = threadPool;
  return nested;
}

unsigned PassContext::getNumThreads() const {
  return threadPool ? std::max(1u, threadPool->getMaxConcurrency()) : 1;
}

/// A remark or a warning of a task, in the order they came.
struct PassContext::TaskLog {
  struct Event {
    std::optional<Remark> remark;
    SMLoc loc;
    std::string warning;
  };
  std::vector<Event> events;
};

namespace {
/// A task context's remark sink: it takes what the parent's takes and
/// records it in the task's log.
class TaskRemarkSink final : public RemarkSink {
public:
  TaskRemarkSink(std::shared_ptr<RemarkSink> parent,
                 std::shared_ptr<PassContext::TaskLog> log)
      : parent(std::move(parent)), log(std::move(log)) {}
  bool isEnabled(RemarkKind kind, StringRef pass) const override {
    return parent->isEnabled(kind, pass);
  }
  void emit(const Remark &remark) override;

private:
  std::shared_ptr<RemarkSink> parent;
  std::shared_ptr<PassContext::TaskLog> log;
};
} // namespace

void TaskRemarkSink::emit(const Remark &remark) {
  log->events.push_back({remark, SMLoc(), std::string()});
}

Ref<PassContext> PassContext::createTaskContext() const {
  Ref<PassContext> task = create();
  task->optLevel = optLevel;
  task->required = required;
  task->disabled = disabled;
  task->config = config;
  for (const std::shared_ptr<PassInstrument> &instrument : instruments)
    if (instrument->followsNestedPipelines())
      task->instruments.push_back(instrument);
  task->resources = resources;
  task->threadPool = threadPool;
  task->taskLog = std::make_shared<TaskLog>();
  if (remarkSink)
    task->remarkSink =
        std::make_shared<TaskRemarkSink>(remarkSink, task->taskLog);
  task->warningHandler = [log = task->taskLog.get()](SMLoc loc,
                                                      const Twine &message) {
    log->events.push_back({std::nullopt, loc, message.str()});
  };
  return task;
}

void PassContext::replay(PassContext &task) {
  for (const PassStatistics::PassCounters &pass :
       task.statistics.getCounters())
    for (const PassStatistics::Counter &counter : pass.counters)
      statistics.add(pass.pass, counter.name, counter.value,
                     counter.description);
  if (!task.taskLog)
    return;
  for (TaskLog::Event &event : task.taskLog->events) {
    if (event.remark)
      emitRemark(*event.remark);
    else
      emitWarning(event.loc, event.warning);
  }
  task.taskLog->events.clear();
}

/// One resource: given, or made by its factory on first use.
struct PassContext::ResourceSlot {
  std::mutex mutex;
  std::shared_ptr<void> resource;
  ResourceFactory create;
  /// The factory's error, returned to every later caller.
  std::string error;
};

void PassContext::setResourceImpl(TypeId type, std::shared_ptr<void> resource,
                                  ResourceFactory create) {
  if (!resource && !create) {
    resources.erase(type);
    return;
  }
  auto slot = std::make_shared<ResourceSlot>();
  slot->resource = std::move(resource);
  slot->create = std::move(create);
  resources[type] = std::move(slot);
}

Expected<std::shared_ptr<void>>
PassContext::getResourceImpl(TypeId type) const {
  auto it = resources.find(type);
  if (it == resources.end())
    return nullptr;
  ResourceSlot &slot = *it->second;
  std::lock_guard<std::mutex> lock(slot.mutex);
  if (slot.create) {
    Expected<std::shared_ptr<void>> made = slot.create();
    slot.create = nullptr;
    if (made)
      slot.resource = std::move(*made);
    else
      slot.error = toString(made.takeError());
  }
  if (!slot.error.empty())
    return createStringError(inconvertibleErrorCode(), slot.error);
  return slot.resource;
}

//===----------------------------------------------------------------------===//
// Config registry
//===----------------------------------------------------------------------===//

PassConfigRegistry &PassConfigRegistry::instance() {
  static PassConfigRegistry registry;
  return registry;
}

void PassConfigRegistry::registerOption(StringRef key, OptionType type,
                                        StringRef description) {
  auto it = index.find(key);
  if (it != index.end()) {
    if (entries[it->second].type != type)
      report_fatal_error("pass config '" + key +
                         "' is registered twice with different types");
    return;
  }
  index[key] = entries.size();
  entries.push_back({key.str(), type, description.str(), std::nullopt});
}

void PassConfigRegistry::registerIntOption(StringRef key,
                                           IntegerRange<int64_t> range,
                                           StringRef description) {
  if (index.count(key))
    return registerOption(key, OptionType::Int, description); // Checks.
  registerOption(key, OptionType::Int, description);
  entries.back().range = range;
}

bool PassConfigRegistry::registerAlias(StringRef alias, StringRef key) {
  auto target = index.find(key);
  if (target == index.end())
    return false;
  auto [it, inserted] = index.try_emplace(alias, target->second);
  return inserted || it->second == target->second;
}

const PassConfigRegistry::Entry *
PassConfigRegistry::lookup(StringRef key) const {
  auto it = index.find(key);
  return it == index.end() ? nullptr : &entries[it->second];
}

void nnir::registerPassInfraConfigs() {
  static std::once_flag once;
  std::call_once(once, [] {
    PassConfigRegistry::instance().registerOption(
        "testing.immutable_module", OptionType::Bool,
        "fail a pass that changes its input module in place (compares "
        "structural hashes before and after)");
  });
}
