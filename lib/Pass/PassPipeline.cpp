//===- PassPipeline.cpp - Pipeline text to passes -------------------------===//
//
/// \file
/// Implements parsePassPipeline, which reads the text of `--passes=`:
///
///   pipeline ::= element (',' element)*
///   element  ::= NAME options? | 'Sequential' options? '(' pipeline? ')'
///   options  ::= '{' (key '=' value (',' key '=' value)*)? '}'
///   value    ::= text without ',' and '}' outside brackets
///
/// Names and keys are letters, digits, `_`, `.` and `-`; whitespace may
/// surround every token (it is trimmed from values). Commas inside brackets
/// belong to the value (`required=[A,B]`). A single element is returned as that
/// pass; several become a Sequential with TVM's default PassInfo. Every error
/// is a DiagnosticError located at the offending character of the buffer the
/// text was added to.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/PassRegistry.h"

#include "PassRegistryImpl.h"

#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace nnir;

/// Deeper `Sequential(` nesting than this is rejected, which bounds the
/// parser's recursion.
static constexpr unsigned kMaxNesting = 256;

/// The options of a `Sequential` element: its PassInfo.
static ArrayRef<PassOptionInfo> getSequentialOptions() {
  static const std::vector<PassOptionInfo> options = {
      {"name", OptionType::String, OptionValue("sequential"),
       "the name of the Sequential"},
      {"opt_level", OptionType::Int, OptionValue(0),
       "the opt level at which an enclosing Sequential runs it",
       IntegerRange<int64_t>(0, 3)},
      {"required", OptionType::StringList,
       OptionValue(std::vector<std::string>()), "passes to run before it"},
  };
  return options;
}

namespace {

/// One `key=value` of an options group, with where each part starts.
struct OptionEntry {
  StringRef key;
  StringRef value;
  const char *keyLoc;
  const char *valueLoc;
};

class PipelineParser {
public:
  PipelineParser(StringRef text, const PassRegistry &registry,
                 PassSpellings *spellings)
      : registry(registry), spellings(spellings), cur(text.begin()),
        end(text.end()) {}

  Expected<Ref<Pass>> parseTopLevel();

private:
  /// Parses `element (',' element)*` into \p passes; stops before a `)` or
  /// at the end.
  Error parsePipeline(std::vector<Ref<Pass>> &passes, unsigned depth);
  Expected<Ref<Pass>> parseElement(unsigned depth);
  /// Parses `{...}` at the cursor into \p entries.
  Error parseOptions(SmallVectorImpl<OptionEntry> &entries);
  /// Checks \p entries against \p declared and fills \p values.
  Error readOptions(ArrayRef<OptionEntry> entries,
                    ArrayRef<PassOptionInfo> declared, StringRef passName,
                    PassOptions &values);
  Expected<Ref<Pass>> parseSequential(const char *nameLoc, unsigned depth,
                                      const PassOptions &options,
                                      ArrayRef<OptionEntry> entries);
  /// Checks that every name in the `required` list \p names is a registered
  /// pass. \p entries are the options as written: an unknown name there is
  /// located at the name in the list, one the pass's factory put in its
  /// PassInfo at \p nameLoc.
  /// \p who is "pass 'X'" or "Sequential 'name'".
  Error checkRequired(ArrayRef<std::string> names, const Twine &who,
                      const char *nameLoc, ArrayRef<OptionEntry> entries);

  void skipSpace() {
    while (cur != end && isSpace(*cur))
      ++cur;
  }
  bool atEnd() const { return cur == end; }
  static Error error(const char *loc, const Twine &message) {
    return makeError(SMLoc::getFromPointer(loc), message);
  }
  StringRef scanName() {
    const char *start = cur;
    while (cur != end && passimpl::isPassNameChar(*cur))
      ++cur;
    return StringRef(start, cur - start);
  }

  const PassRegistry &registry;
  PassSpellings *spellings;
  const char *cur;
  const char *end;
};

} // namespace

Expected<Ref<Pass>> PipelineParser::parseTopLevel() {
  skipSpace();
  if (atEnd())
    return error(cur, "empty pass pipeline");
  std::vector<Ref<Pass>> passes;
  if (Error err = parsePipeline(passes, 0))
    return err;
  if (!atEnd()) {
    if (*cur == ')')
      return error(cur, "unbalanced ')'");
    return error(cur, "expected ',' or end of pipeline");
  }
  if (passes.size() == 1)
    return passes.front();
  return createSequential(passes);
}

Error PipelineParser::parsePipeline(std::vector<Ref<Pass>> &passes,
                                    unsigned depth) {
  while (true) {
    Expected<Ref<Pass>> pass = parseElement(depth);
    if (!pass)
      return pass.takeError();
    passes.push_back(std::move(*pass));
    skipSpace();
    if (atEnd() || *cur != ',')
      return Error::success();
    ++cur;
  }
}

Expected<Ref<Pass>> PipelineParser::parseElement(unsigned depth) {
  skipSpace();
  const char *nameLoc = cur;
  StringRef name = scanName();
  if (name.empty()) {
    if (!atEnd() && *cur != ',' && *cur != ')' && *cur != '{' && *cur != '(')
      return error(cur, "unexpected '" + Twine(*cur) + "' in pass pipeline");
    return error(cur, "empty pass name");
  }
  bool isSequential = name == "Sequential";
  const PassRegistration *registration = nullptr;
  if (!isSequential) {
    registration = registry.lookup(name);
    if (!registration)
      return error(nameLoc,
                   registry.getUnknownPassMessage(name, {"Sequential"}));
  }
  ArrayRef<PassOptionInfo> declared =
      isSequential ? getSequentialOptions() : ArrayRef(registration->options);

  skipSpace();
  SmallVector<OptionEntry, 4> entries;
  if (!atEnd() && *cur == '{')
    if (Error err = parseOptions(entries))
      return err;
  PassOptions values = passimpl::getDefaultOptions(declared);
  if (Error err = readOptions(entries, declared, name, values))
    return err;

  if (isSequential)
    return parseSequential(nameLoc, depth, values, entries);

  skipSpace();
  if (!atEnd() && *cur == '(')
    return error(cur, "pass '" + name +
                          "' takes no nested pipeline; only Sequential does");
  Expected<Ref<Pass>> pass = passimpl::invokeFactory(*registration, values);
  if (!pass) {
    // A factory's own error (it may have rejected a combination of options)
    // is located at the pass name.
    std::string message = toString(pass.takeError());
    return error(nameLoc, message);
  }
  if (Error err = checkRequired((*pass)->getInfo().required,
                                "pass '" + name + "'", nameLoc, {}))
    return err;
  if (spellings)
    (*spellings)[&(*pass)->getInfo()] =
        StringRef(nameLoc, cur - nameLoc).rtrim().str();
  return pass;
}

Error PipelineParser::checkRequired(ArrayRef<std::string> names,
                                    const Twine &who, const char *nameLoc,
                                    ArrayRef<OptionEntry> entries) {
  // Where each name was written, if the list was: the elements of
  // `[A, B]` in order, split as parseOptionValue splits them.
  SmallVector<StringRef, 8> written;
  for (const OptionEntry &entry : entries) {
    if (entry.key != "required")
      continue;
    StringRef body = entry.value.trim();
    body.consume_front("[");
    body.consume_back("]");
    written.clear();
    if (!body.trim().empty())
      body.split(written, ',');
  }
  for (auto [i, name] : llvm::enumerate(names)) {
    const char *loc = nameLoc;
    if (written.size() == names.size())
      loc = written[i].ltrim().data();
    if (name == "Sequential")
      return error(loc, who + " cannot require 'Sequential': a required "
                              "pass must be a registered pass");
    if (!registry.lookup(name))
      return error(loc,
                   who + " requires " + registry.getUnknownPassMessage(name));
  }
  return Error::success();
}

Expected<Ref<Pass>>
PipelineParser::parseSequential(const char *nameLoc, unsigned depth,
                                const PassOptions &options,
                                ArrayRef<OptionEntry> entries) {
  // Required passes are looked up when the Sequential runs; unknown names
  // are reported now, before any input is read, whatever the opt level.
  if (Error err = checkRequired(
          options.get("required").getList(),
          "Sequential '" + options.getString("name") + "'", nameLoc, entries))
    return err;
  skipSpace();
  if (atEnd() || *cur != '(')
    return error(cur, "expected '(' after Sequential");
  if (depth + 1 >= kMaxNesting)
    return error(cur, "pass pipeline nested too deeply");
  ++cur;
  std::vector<Ref<Pass>> passes;
  skipSpace();
  if (atEnd() || *cur != ')')
    if (Error err = parsePipeline(passes, depth + 1))
      return err;
  skipSpace();
  if (atEnd() || *cur != ')')
    return error(cur, "expected ')'");
  ++cur;
  PassInfo info(options.getString("name"),
                static_cast<int>(options.getInt("opt_level")),
                options.get("required").getList());
  return createSequential(passes, std::move(info));
}

Error PipelineParser::parseOptions(SmallVectorImpl<OptionEntry> &entries) {
  const char *open = cur;
  ++cur; // '{'
  skipSpace();
  if (!atEnd() && *cur == '}') {
    ++cur;
    return Error::success();
  }
  while (true) {
    skipSpace();
    if (atEnd())
      return error(open, "unbalanced '{'");
    OptionEntry entry;
    entry.keyLoc = cur;
    entry.key = scanName();
    if (entry.key.empty())
      return error(cur, "expected an option name");
    skipSpace();
    if (atEnd())
      return error(open, "unbalanced '{'");
    if (*cur != '=')
      return error(cur, "expected '=' after option '" + entry.key + "'");
    ++cur;
    skipSpace();
    entry.valueLoc = cur;
    // The value runs to the next ',' or '}' outside brackets.
    SmallVector<const char *, 2> brackets;
    while (cur != end) {
      if (*cur == '[')
        brackets.push_back(cur);
      else if (*cur == ']' && !brackets.empty())
        brackets.pop_back();
      else if ((*cur == ',' || *cur == '}') && brackets.empty())
        break;
      ++cur;
    }
    if (!brackets.empty())
      return error(brackets.front(), "unbalanced '['");
    entry.value = StringRef(entry.valueLoc, cur - entry.valueLoc).rtrim();
    entries.push_back(entry);
    if (atEnd())
      return error(open, "unbalanced '{'");
    if (*cur == '}') {
      ++cur;
      return Error::success();
    }
    ++cur; // ','
  }
}

Error PipelineParser::readOptions(ArrayRef<OptionEntry> entries,
                                  ArrayRef<PassOptionInfo> declared,
                                  StringRef passName, PassOptions &values) {
  StringSet<> seen;
  for (const OptionEntry &entry : entries) {
    std::string message;
    const PassOptionInfo *option =
        passimpl::findPassOption(declared, passName, entry.key, message);
    if (!option)
      return error(entry.keyLoc, message);
    if (!seen.insert(entry.key).second)
      return error(entry.keyLoc,
                   passimpl::getRepeatedOptionMessage(passName, entry.key));
    Expected<OptionValue> value =
        passimpl::parsePassOption(*option, passName, entry.value);
    if (!value) {
      std::string text = toString(value.takeError());
      return error(entry.valueLoc, text);
    }
    values.set(entry.key, std::move(*value));
  }
  return Error::success();
}

Expected<Ref<Pass>> nnir::parsePassPipeline(StringRef text,
                                            SourceMgr &sourceMgr,
                                            StringRef bufferName,
                                            PassSpellings *spellings) {
  unsigned id = sourceMgr.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(text, bufferName), SMLoc());
  StringRef buffer = sourceMgr.getMemoryBuffer(id)->getBuffer();
  PipelineParser parser(buffer, PassRegistry::instance(), spellings);
  return parser.parseTopLevel();
}
