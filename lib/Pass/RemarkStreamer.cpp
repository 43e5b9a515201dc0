//===- RemarkStreamer.cpp - Print and serialise remarks -------------------===//
//
/// \file
/// Filters remarks by pass name, prints them through the SourceMgr and
/// converts them to llvm::remarks::Remark for LLVM's YAML serializer.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/RemarkStreamer.h"

#include "nnir/Support/Diagnostics.h"

#include "llvm/Remarks/Remark.h"
#include "llvm/Remarks/RemarkFormat.h"
#include "llvm/Remarks/RemarkSerializer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

RemarkStreamer::RemarkStreamer(const SourceMgr &sourceMgr,
                               raw_ostream &diagnostics)
    : sourceMgr(sourceMgr), diagnostics(diagnostics) {}

RemarkStreamer::~RemarkStreamer() = default;

/// Compiles \p pattern into \p regex unless it is empty; the error names
/// \p flag.
static Error compile(StringRef pattern, StringRef flag,
                     std::optional<Regex> &regex) {
  if (pattern.empty())
    return Error::success();
  regex.emplace(pattern);
  std::string error;
  if (!regex->isValid(error))
    return makeError("invalid regular expression '" + pattern + "' for " +
                     flag + ": " + error);
  return Error::success();
}

Expected<std::unique_ptr<RemarkStreamer>>
RemarkStreamer::create(const RemarkStreamerOptions &options,
                       const SourceMgr &sourceMgr, raw_ostream &diagnostics,
                       raw_ostream *yamlOutput, StringRef flagPrefix) {
  std::unique_ptr<RemarkStreamer> streamer(
      new RemarkStreamer(sourceMgr, diagnostics));
  streamer->flagPrefix = flagPrefix.str();
  streamer->print = options.print;
  std::string prefix = flagPrefix.str();
  if (Error err = compile(options.passed, prefix,
                          streamer->patterns[int(RemarkKind::Passed)]))
    return err;
  if (Error err = compile(options.missed, prefix + "-missed",
                          streamer->patterns[int(RemarkKind::Missed)]))
    return err;
  if (Error err = compile(options.analysis, prefix + "-analysis",
                          streamer->patterns[int(RemarkKind::Analysis)]))
    return err;
  if (Error err = compile(options.outputFilter, prefix + "-filter",
                          streamer->outputFilter))
    return err;
  if (yamlOutput) {
    Expected<std::unique_ptr<remarks::RemarkSerializer>> serializer =
        remarks::createRemarkSerializer(remarks::Format::YAML,
                                        remarks::SerializerMode::Separate,
                                        *yamlOutput);
    if (!serializer)
      return serializer.takeError();
    streamer->serializer = std::move(*serializer);
  }
  return streamer;
}

const std::optional<Regex> &RemarkStreamer::getPattern(RemarkKind kind) const {
  return patterns[int(kind)];
}

bool RemarkStreamer::isPrinted(RemarkKind kind, StringRef pass) const {
  const std::optional<Regex> &pattern = getPattern(kind);
  return pattern && pattern->match(pass);
}

bool RemarkStreamer::isSerialized(StringRef pass) const {
  return serializer && (!outputFilter || outputFilter->match(pass));
}

bool RemarkStreamer::isEnabled(RemarkKind kind, StringRef pass) const {
  return isPrinted(kind, pass) || isSerialized(pass);
}

/// The flag that prints remarks of \p kind, after \p prefix.
static StringRef getFlagSuffix(RemarkKind kind) {
  switch (kind) {
  case RemarkKind::Passed:
    return "";
  case RemarkKind::Missed:
    return "-missed";
  case RemarkKind::Analysis:
    return "-analysis";
  }
  return "";
}

void RemarkStreamer::emit(const Remark &remark) {
  if (isPrinted(remark.getKind(), remark.getPass())) {
    ++numPrinted;
    std::string message = remark.getMessage() + " [" + flagPrefix +
                          getFlagSuffix(remark.getKind()).str() + "=" +
                          remark.getPass().str() + "]";
    if (print)
      print(remark.getLoc(), message);
    else
      printRemark(sourceMgr, remark.getLoc(), message, diagnostics);
  }
  if (!isSerialized(remark.getPass()))
    return;
  ++numSerialized;
  remarks::Remark out;
  switch (remark.getKind()) {
  case RemarkKind::Passed:
    out.RemarkType = remarks::Type::Passed;
    break;
  case RemarkKind::Missed:
    out.RemarkType = remarks::Type::Missed;
    break;
  case RemarkKind::Analysis:
    out.RemarkType = remarks::Type::Analysis;
    break;
  }
  out.PassName = remark.getPass();
  out.RemarkName = remark.getName();
  out.FunctionName = remark.getFunction();
  auto [line, column] = getLineAndColumn(sourceMgr, remark.getLoc());
  if (line) {
    unsigned buffer = sourceMgr.FindBufferContainingLoc(remark.getLoc());
    out.Loc = remarks::RemarkLocation{
        sourceMgr.getMemoryBuffer(buffer)->getBufferIdentifier(), line, column};
  }
  for (const RemarkArg &arg : remark.getArgs())
    out.Args.push_back({arg.key, arg.value, std::nullopt});
  serializer->emit(out);
}
