//===- PassRegistry.cpp - Passes by name ----------------------------------===//
//
/// \file
/// Implements the PassRegistry (registration, lookup, creation with typed
/// options, spelling suggestions) and PassOptions, plus the checks the
/// pipeline parser shares with PassRegistry::create (PassRegistryImpl.h).
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/PassRegistry.h"

#include "PassRegistryImpl.h"

#include "nnir/Support/Diagnostics.h"
#include "nnir/Support/Suggestions.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>

using namespace llvm;
using namespace nnir;

//===----------------------------------------------------------------------===//
// PassOptions
//===----------------------------------------------------------------------===//

const OptionValue &PassOptions::get(StringRef name) const {
  auto it = values.find(name);
  if (it != values.end())
    return it->second;
  // Asking for an option the pass did not declare is a programming error;
  // answer with a value rather than crash.
  static const OptionValue missing;
  return missing;
}

//===----------------------------------------------------------------------===//
// Shared checks and messages
//===----------------------------------------------------------------------===//

/// Registered names (and \p extraNames) close to \p name.
static NameSuggester suggestNames(const PassRegistry &registry, StringRef name,
                                  ArrayRef<StringRef> extraNames) {
  NameSuggester suggester(name);
  for (const PassRegistration *reg : registry.getRegistrations())
    suggester.consider(reg->name);
  for (StringRef extra : extraNames)
    suggester.consider(extra);
  return suggester;
}

std::string
PassRegistry::getUnknownPassMessage(StringRef name,
                                    ArrayRef<StringRef> extraNames) const {
  // Only the closest names (ties), at most three: "'A', 'B' or 'C'".
  return ("unknown pass '" + name + "'").str() +
         formatDidYouMean(suggestNames(*this, name, extraNames).getBest(3));
}

const PassOptionInfo *passimpl::findPassOption(ArrayRef<PassOptionInfo> options,
                                               StringRef passName,
                                               StringRef key,
                                               std::string &message) {
  for (const PassOptionInfo &option : options)
    if (option.name == key)
      return &option;
  message = ("unknown option '" + key + "' of pass " + passName + "; ").str();
  if (options.empty()) {
    message += (passName + " takes no options").str();
    return nullptr;
  }
  message += "valid options are: ";
  for (size_t i = 0; i < options.size(); ++i) {
    if (i)
      message += ", ";
    message += options[i].name;
  }
  return nullptr;
}

Expected<OptionValue> passimpl::parsePassOption(const PassOptionInfo &option,
                                                StringRef passName,
                                                StringRef text) {
  Expected<OptionValue> value =
      option.range && option.type == OptionType::Int
          ? Expected<OptionValue>(option.range->parse(text.trim()))
          : parseOptionValue(text, option.type);
  if (value)
    return value;
  return makeError("option '" + option.name + "' of pass " + passName + ": " +
                   toString(value.takeError()));
}

std::string passimpl::getRepeatedOptionMessage(StringRef passName,
                                               StringRef key) {
  return ("option '" + key + "' of pass " + passName +
          " is given more than once")
      .str();
}

PassOptions passimpl::getDefaultOptions(ArrayRef<PassOptionInfo> options) {
  PassOptions result;
  for (const PassOptionInfo &option : options)
    result.set(option.name, option.defaultValue);
  return result;
}

Expected<Ref<Pass>>
passimpl::invokeFactory(const PassRegistration &registration,
                        const PassOptions &options) {
  Expected<Ref<Pass>> pass = registration.factory(options);
  if (!pass)
    return pass.takeError();
  if (!*pass)
    return makeError("the factory of pass '" + registration.name +
                     "' returned no pass");
  if ((*pass)->getName() != registration.name)
    return makeError("the factory of pass '" + registration.name +
                     "' created a pass named '" + (*pass)->getName() + "'");
  return pass;
}

//===----------------------------------------------------------------------===//
// PassRegistry
//===----------------------------------------------------------------------===//

PassRegistry &PassRegistry::instance() {
  static PassRegistry registry;
  return registry;
}

/// Whether \p value can stand for an option of \p type (an int default is
/// accepted for a float option).
static bool isValueOfType(const OptionValue &value, OptionType type) {
  return value.getType() == type ||
         (type == OptionType::Float && value.getType() == OptionType::Int);
}

Error PassRegistry::registerPass(PassRegistration registration) {
  if (registration.origin.empty())
    registration.origin = defaultOrigin;
  StringRef name = registration.name;
  StringRef origin = registration.origin;
  if (name.empty())
    return makeError("cannot register a pass with an empty name (from '" +
                     origin + "')");
  if (!all_of(name, passimpl::isPassNameChar))
    return makeError("cannot register pass '" + name + "' (from '" + origin +
                     "'): a pass name may contain only letters, digits, "
                     "'_', '.' and '-'");
  if (name == "Sequential")
    return makeError("cannot register pass 'Sequential' (from '" + origin +
                     "'): the name is reserved for nested pipelines");
  if (const PassRegistration *existing = lookup(name))
    return makeError("pass '" + name + "' (from '" + origin +
                     "') is already registered by '" + existing->origin + "'");
  if (!registration.factory)
    return makeError("cannot register pass '" + name + "' (from '" + origin +
                     "') without a factory");
  StringSet<> optionNames;
  for (const PassOptionInfo &option : registration.options) {
    if (option.name.empty() || !all_of(option.name, passimpl::isPassNameChar))
      return makeError("pass '" + name +
                       "' declares an option with an "
                       "invalid name '" +
                       option.name + "'");
    if (!optionNames.insert(option.name).second)
      return makeError("pass '" + name + "' declares option '" + option.name +
                       "' more than once");
    if (!isValueOfType(option.defaultValue, option.type))
      return makeError("option '" + option.name + "' of pass '" + name +
                       "' is declared as " + getOptionTypeName(option.type) +
                       " but its default is a " +
                       getOptionTypeName(option.defaultValue.getType()));
  }
  index[name] = registrations.size();
  registrations.push_back(std::move(registration));
  return Error::success();
}

Error PassRegistry::registerPass(StringRef name, StringRef description,
                                 std::function<Ref<Pass>()> factory) {
  PassRegistration registration;
  registration.name = name.str();
  registration.description = description.str();
  if (factory)
    registration.factory = [factory = std::move(factory)](
                               const PassOptions &) -> Expected<Ref<Pass>> {
      return factory();
    };
  return registerPass(std::move(registration));
}

const PassRegistration *PassRegistry::lookup(StringRef name) const {
  auto it = index.find(name);
  return it == index.end() ? nullptr : &registrations[it->second];
}

std::vector<const PassRegistration *> PassRegistry::getRegistrations() const {
  std::vector<const PassRegistration *> result;
  result.reserve(registrations.size());
  for (const PassRegistration &registration : registrations)
    result.push_back(&registration);
  return result;
}

Expected<Ref<Pass>> PassRegistry::create(
    StringRef name,
    ArrayRef<std::pair<std::string, std::string>> options) const {
  const PassRegistration *registration = lookup(name);
  if (!registration)
    return makeError(getUnknownPassMessage(name));
  PassOptions values = passimpl::getDefaultOptions(registration->options);
  StringSet<> seen;
  for (const auto &[key, text] : options) {
    std::string message;
    const PassOptionInfo *option =
        passimpl::findPassOption(registration->options, name, key, message);
    if (!option)
      return makeError(message);
    if (!seen.insert(key).second)
      return makeError(passimpl::getRepeatedOptionMessage(name, key));
    Expected<OptionValue> value =
        passimpl::parsePassOption(*option, name, text);
    if (!value)
      return value.takeError();
    values.set(key, std::move(*value));
  }
  return passimpl::invokeFactory(*registration, values);
}

std::vector<std::string> PassRegistry::suggest(StringRef name,
                                               unsigned maxResults) const {
  return suggestNames(*this, name, {}).getClosest(maxResults);
}
