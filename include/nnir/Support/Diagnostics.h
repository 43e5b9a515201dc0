//===- Diagnostics.h - Located errors over llvm::SourceMgr ------*- C++ -*-===//
//
/// \file
/// nnir libraries report problems with user input as llvm::Error values that
/// carry a source location (an llvm::SMLoc into a buffer of the SourceMgr the
/// input was parsed from). Tools render them the way clang and mlir-opt do:
/// `file:line:col: error: message`, the source line, and a caret.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_SUPPORT_DIAGNOSTICS_H
#define NNIR_SUPPORT_DIAGNOSTICS_H

#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <string>

namespace nnir {

/// An error at a source location. The location may be invalid (for IR built
/// through the API), in which case only the message is shown.
class DiagnosticError : public llvm::ErrorInfo<DiagnosticError> {
public:
  static char ID;

  DiagnosticError(llvm::SMLoc loc, std::string message)
      : loc(loc), message(std::move(message)) {}

  llvm::SMLoc getLoc() const { return loc; }
  const std::string &getMessage() const { return message; }

  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  llvm::SMLoc loc;
  std::string message;
};

/// Builds a located error. Messages follow LLVM's style: lower-case start, no
/// final period.
llvm::Error makeError(llvm::SMLoc loc, const llvm::Twine &message);

/// Builds an error with no location.
llvm::Error makeError(const llvm::Twine &message);

/// Prints the errors in \p err: located errors through \p sm (file:line:col,
/// a window of at most 100 columns of the source line and a caret; see
/// docs/TextFormat.md, "Diagnostics"), the others as `<tool>: error:
/// message`. After 20 errors (clang's -ferror-limit default) it says "too
/// many errors emitted" and prints no more. Consumes \p err. Returns true if
/// there was an error.
bool printErrors(llvm::Error err, const llvm::SourceMgr &sm,
                 llvm::StringRef toolName, llvm::raw_ostream &os);

/// Renders a located note or warning (for instruments and verbose output).
void printNote(const llvm::SourceMgr &sm, llvm::SMLoc loc,
               const llvm::Twine &message, llvm::raw_ostream &os);

/// Renders a located warning (of a pass that carries on).
void printWarning(const llvm::SourceMgr &sm, llvm::SMLoc loc,
                  const llvm::Twine &message, llvm::raw_ostream &os);

/// Renders a located remark (optimisation remarks of passes).
void printRemark(const llvm::SourceMgr &sm, llvm::SMLoc loc,
                 const llvm::Twine &message, llvm::raw_ostream &os);

/// The 1-based line and column of \p loc (the column in UTF-8 code points,
/// a leading byte order mark not counted, as diagnostics show it), or
/// {0, 0} if it is not in \p sm.
std::pair<unsigned, unsigned> getLineAndColumn(const llvm::SourceMgr &sm,
                                               llvm::SMLoc loc);

} // namespace nnir

#endif // NNIR_SUPPORT_DIAGNOSTICS_H
