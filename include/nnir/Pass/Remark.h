//===- Remark.h - Optimisation remarks of passes ----------------*- C++ -*-===//
//
/// \file
/// Remarks say what a pass did (Passed), what it looked at but did not do
/// and why (Missed), or what it found (Analysis), at a source location: LLVM's
/// optimisation remarks for nnir. A pass builds a Remark and hands it to its
/// PassContext; the driver decides where remarks go by installing a
/// RemarkSink on the context (nnir-opt's --pass-remarks flags print them on
/// stderr and write LLVM's YAML remark files, see RemarkStreamer.h). With no
/// sink, nothing is built:
///
/// \code
///   if (ctx.isRemarkEnabled(RemarkKind::Passed, "FoldConstant"))
///     ctx.emitRemark(Remark(RemarkKind::Passed, "FoldConstant", "Folded",
///                           call->getLoc())
///                    << "folded " << RemarkArg("NumCalls", numCalls)
///                    << " calls into a constant");
/// \endcode
///
/// As in LLVM, a remark's message is the concatenation of its arguments;
/// plain strings are arguments keyed "String", named arguments keep their
/// key so tools reading the YAML can use the values.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PASS_REMARK_H
#define NNIR_PASS_REMARK_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnir {

enum class RemarkKind { Passed, Missed, Analysis };

/// "Passed", "Missed", "Analysis" (LLVM's YAML tags).
llvm::StringRef getRemarkKindName(RemarkKind kind);

/// A named value of a remark (LLVM's ore::NV).
struct RemarkArg {
  std::string key;
  std::string value;

  RemarkArg(llvm::StringRef key, llvm::StringRef value)
      : key(key.str()), value(value.str()) {}
  RemarkArg(llvm::StringRef key, const char *value)
      : RemarkArg(key, llvm::StringRef(value)) {}
  RemarkArg(llvm::StringRef key, const std::string &value)
      : RemarkArg(key, llvm::StringRef(value)) {}
  RemarkArg(llvm::StringRef key, int64_t value);
  RemarkArg(llvm::StringRef key, uint64_t value);
  RemarkArg(llvm::StringRef key, int value) : RemarkArg(key, int64_t(value)) {}
  RemarkArg(llvm::StringRef key, unsigned value)
      : RemarkArg(key, uint64_t(value)) {}
};

class Remark {
public:
  /// A remark of \p kind from pass \p pass, identified by \p name (one
  /// CamelCase word, stable for tools), at \p loc.
  Remark(RemarkKind kind, llvm::StringRef pass, llvm::StringRef name,
         llvm::SMLoc loc)
      : kind(kind), pass(pass.str()), name(name.str()), loc(loc) {}

  /// Appends text to the message.
  Remark &operator<<(llvm::StringRef text);
  Remark &operator<<(const char *text) {
    return *this << llvm::StringRef(text);
  }
  Remark &operator<<(const std::string &text) {
    return *this << llvm::StringRef(text);
  }
  /// Appends a named value.
  Remark &operator<<(RemarkArg arg);

  /// The global function the remark is about (LLVM's Function field).
  Remark &setFunction(llvm::StringRef function) {
    this->function = function.str();
    return *this;
  }

  RemarkKind getKind() const { return kind; }
  llvm::StringRef getPass() const { return pass; }
  llvm::StringRef getName() const { return name; }
  llvm::SMLoc getLoc() const { return loc; }
  llvm::StringRef getFunction() const { return function; }
  const std::vector<RemarkArg> &getArgs() const { return args; }
  /// The arguments' values, concatenated.
  std::string getMessage() const;

private:
  RemarkKind kind;
  std::string pass;
  std::string name;
  llvm::SMLoc loc;
  std::string function;
  std::vector<RemarkArg> args;
};

/// Where remarks go; installed on a PassContext by the driver.
class RemarkSink {
public:
  virtual ~RemarkSink();
  /// True if a remark of \p kind from \p pass would be used; passes ask
  /// before building one.
  virtual bool isEnabled(RemarkKind kind, llvm::StringRef pass) const = 0;
  /// Takes one remark (only called when isEnabled says so).
  virtual void emit(const Remark &remark) = 0;
};

} // namespace nnir

#endif // NNIR_PASS_REMARK_H
