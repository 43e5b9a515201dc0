//===- RemarkStreamer.h - Print and serialise remarks -----------*- C++ -*-===//
//
/// \file
/// RemarkStreamer is the RemarkSink drivers install (nnir-opt's
/// --pass-remarks flags are LLVM's):
///  - remarks whose pass name matches the regex for their kind (LLVM's
///    -pass-remarks, -pass-remarks-missed, -pass-remarks-analysis) are
///    printed on a diagnostics stream as `file:line:col: remark: message
///    [-pass-remarks=Pass]`, with the source line and a caret;
///  - with an output stream (LLVM's -pass-remarks-output), every remark, or
///    those whose pass matches the output filter (-pass-remarks-filter), is
///    written in LLVM's YAML remark format through LLVM's own serializer
///    (llvm/Remarks), so llvm-remarkutil and opt-viewer read it.
/// Locations are resolved through the SourceMgr the input was parsed with.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PASS_REMARKSTREAMER_H
#define NNIR_PASS_REMARKSTREAMER_H

#include "nnir/Pass/Remark.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/Regex.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
class raw_ostream;
namespace remarks {
struct RemarkSerializer;
} // namespace remarks
} // namespace llvm

namespace nnir {

struct RemarkStreamerOptions {
  /// Regexes matched against pass names; empty: that kind is not printed.
  std::string passed;
  std::string missed;
  std::string analysis;
  /// Regex selecting the passes whose remarks go to the YAML output; empty:
  /// all of them.
  std::string outputFilter;
  /// Takes each printed remark instead of the diagnostics stream when set
  /// (nnir-opt's --verify-diagnostics collects them).
  std::function<void(llvm::SMLoc, const std::string &)> print;
};

class RemarkStreamer final : public RemarkSink {
public:
  /// A streamer printing on \p diagnostics and, when \p yamlOutput is given,
  /// serialising there. An invalid regex is an error naming \p flagPrefix
  /// followed by the option's suffix ("--pass-remarks-missed").
  static llvm::Expected<std::unique_ptr<RemarkStreamer>>
  create(const RemarkStreamerOptions &options, const llvm::SourceMgr &sourceMgr,
         llvm::raw_ostream &diagnostics, llvm::raw_ostream *yamlOutput,
         llvm::StringRef flagPrefix = "--pass-remarks");
  ~RemarkStreamer() override;

  bool isEnabled(RemarkKind kind, llvm::StringRef pass) const override;
  void emit(const Remark &remark) override;

  /// The number of remarks printed and serialised so far.
  unsigned getNumPrinted() const { return numPrinted; }
  unsigned getNumSerialized() const { return numSerialized; }

private:
  RemarkStreamer(const llvm::SourceMgr &sourceMgr,
                 llvm::raw_ostream &diagnostics);

  /// The pattern that prints remarks of \p kind, if any.
  const std::optional<llvm::Regex> &getPattern(RemarkKind kind) const;
  bool isPrinted(RemarkKind kind, llvm::StringRef pass) const;
  bool isSerialized(llvm::StringRef pass) const;

  const llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream &diagnostics;
  std::function<void(llvm::SMLoc, const std::string &)> print;
  std::string flagPrefix;
  std::optional<llvm::Regex> patterns[3];
  std::optional<llvm::Regex> outputFilter;
  std::unique_ptr<llvm::remarks::RemarkSerializer> serializer;
  unsigned numPrinted = 0;
  unsigned numSerialized = 0;
};

} // namespace nnir

#endif // NNIR_PASS_REMARKSTREAMER_H
