//===- DiagnosticVerifier.h - Expected diagnostics in the input -*- C++ -*-===//
//
/// \file
/// nnir-opt's --verify-diagnostics, after MLIR's
/// SourceMgrDiagnosticVerifierHandler: the input states the diagnostics a
/// run must produce, in comments,
///
/// \code
///   // expected-error@+1 {{unknown operator 'nn.relux'}}
///   nn.relux(%x)
/// \endcode
///
/// `expected-error`, `expected-warning`, `expected-remark` and
/// `expected-note`, each with an optional line: none (the comment's own
/// line), `@+N` / `@-N` (relative), `@above` / `@below` (the lines next to
/// it). The text between `{{` and `}}` must occur in the message. The run
/// passes when every diagnostic was expected and every expectation was met;
/// each expectation is met by one diagnostic.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TOOLS_DIAGNOSTICVERIFIER_H
#define NNIR_TOOLS_DIAGNOSTICVERIFIER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace nnir {

class DiagnosticVerifier {
public:
  enum class Kind { Error, Warning, Remark, Note };

  explicit DiagnosticVerifier(const llvm::SourceMgr &sourceMgr)
      : sourceMgr(sourceMgr) {}

  /// Reads the expectations written in buffer \p bufferId. A malformed one
  /// (an unknown kind, a line outside the buffer, no `{{...}}`) is a
  /// located error.
  llvm::Error addExpectations(unsigned bufferId);

  /// Takes one diagnostic the run produced.
  void record(Kind kind, llvm::SMLoc loc, const llvm::Twine &message);
  /// Takes the errors in \p err (located ones at their location).
  void recordErrors(llvm::Error err);

  /// Reports, as located errors on \p os, each diagnostic nobody expected
  /// and each expectation no diagnostic met. True if there was none.
  bool verify(llvm::StringRef toolName, llvm::raw_ostream &os);

private:
  struct Expectation {
    Kind kind;
    unsigned bufferId;
    unsigned line;
    std::string text;
    /// Where the comment is, for "was not produced".
    llvm::SMLoc loc;
    bool met = false;
  };
  struct Produced {
    Kind kind;
    llvm::SMLoc loc;
    std::string message;
  };

  const llvm::SourceMgr &sourceMgr;
  std::vector<Expectation> expectations;
  std::vector<Produced> produced;
};

} // namespace nnir

#endif // NNIR_TOOLS_DIAGNOSTICVERIFIER_H
