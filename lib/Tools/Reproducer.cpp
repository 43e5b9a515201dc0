//===- Reproducer.cpp - Crash reproducers of nnir-opt ---------------------===//
//
/// \file
/// Implements Reproducer.h.
//
//===----------------------------------------------------------------------===//

#include "Reproducer.h"

#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

static constexpr StringLiteral kDirectivePrefix = "// nnir-reproducer.";

Error nnir::writeReproducer(StringRef path, const IRModule &module,
                            const ReproducerDirectives &directives,
                            const PrintOptions &options) {
  std::error_code ec;
  ToolOutputFile file(path, ec, sys::fs::OF_Text);
  if (ec)
    return makeError("cannot write the crash reproducer '" + path +
                     "': " + ec.message());
  raw_fd_ostream &os = file.os();
  os << "// nnir-opt crash reproducer; replay: nnir-opt --run-reproducer "
     << path << "\n";
  os << kDirectivePrefix << "pipeline: " << directives.pipeline << "\n";
  if (directives.optLevel)
    os << kDirectivePrefix << "opt-level: " << *directives.optLevel << "\n";
  for (const std::string &entry : directives.passConfigs)
    os << kDirectivePrefix << "pass-config: " << entry << "\n";
  if (!directives.disabledPasses.empty())
    os << kDirectivePrefix << "disable-pass: "
       << join(directives.disabledPasses, ",") << "\n";
  if (!directives.requiredPasses.empty())
    os << kDirectivePrefix << "required-pass: "
       << join(directives.requiredPasses, ",") << "\n";
  for (const std::string &plugin : directives.passPlugins)
    os << kDirectivePrefix << "load-pass-plugin: " << plugin << "\n";
  printModule(module, os, options);
  os.flush();
  if (os.has_error()) {
    ec = os.error();
    os.clear_error();
    return makeError("cannot write the crash reproducer '" + path +
                     "': " + ec.message());
  }
  file.keep();
  return Error::success();
}

/// Splits a comma-separated list, dropping empty names.
static void appendNames(StringRef list, std::vector<std::string> &names) {
  SmallVector<StringRef, 4> parts;
  list.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts)
    if (!part.trim().empty())
      names.push_back(part.trim().str());
}

Expected<ReproducerDirectives>
nnir::readReproducerDirectives(const SourceMgr &sourceMgr, unsigned bufferId) {
  StringRef text = sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
  ReproducerDirectives directives;
  bool hasPipeline = false;
  // The directives lead the file, among its first comment lines.
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    StringRef trimmed = line.trim();
    text = rest;
    if (trimmed.empty())
      continue;
    if (!trimmed.starts_with("//"))
      break;
    if (!trimmed.starts_with(kDirectivePrefix))
      continue;
    SMLoc loc = SMLoc::getFromPointer(trimmed.data());
    StringRef directive = trimmed.drop_front(kDirectivePrefix.size());
    auto [key, value] = directive.split(':');
    if (key.size() == directive.size())
      return makeError(loc, "expected ':' after the reproducer directive '" +
                                key.trim() + "'");
    key = key.trim();
    value = value.trim();
    if (key == "pipeline") {
      if (value.empty())
        return makeError(loc, "the reproducer's pipeline is empty");
      directives.pipeline = value.str();
      hasPipeline = true;
    } else if (key == "opt-level") {
      unsigned level;
      if (value.getAsInteger(10, level) || level > 3)
        return makeError(loc, "the reproducer's opt-level must be 0 to 3, "
                              "got '" +
                                  value + "'");
      directives.optLevel = level;
    } else if (key == "pass-config") {
      directives.passConfigs.push_back(value.str());
    } else if (key == "disable-pass") {
      appendNames(value, directives.disabledPasses);
    } else if (key == "required-pass") {
      appendNames(value, directives.requiredPasses);
    } else if (key == "load-pass-plugin") {
      directives.passPlugins.push_back(value.str());
    } else {
      return makeError(loc, "unknown reproducer directive '" + key +
                                "'; expected pipeline, opt-level, "
                                "pass-config, disable-pass, required-pass or "
                                "load-pass-plugin");
    }
  }
  if (!hasPipeline)
    return makeError(
        SMLoc::getFromPointer(
            sourceMgr.getMemoryBuffer(bufferId)->getBufferStart()),
        "not a crash reproducer: no '// nnir-reproducer.pipeline:' line "
        "before the module");
  return directives;
}

Error FailureTracker::runBeforePass(const IRModule &module,
                                    const PassInfo &info) {
  frames.push_back({&info, Ref<IRModule>(const_cast<IRModule *>(&module))});
  return Error::success();
}

Error FailureTracker::runAfterPass(const IRModule &, const PassInfo &) {
  if (!frames.empty())
    frames.pop_back();
  return Error::success();
}
