//===- Diagnostics.cpp - Located errors over llvm::SourceMgr --------------===//
//
/// \file
/// Implements DiagnosticError and its rendering.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/Diagnostics.h"

#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

char DiagnosticError::ID = 0;

void DiagnosticError::log(raw_ostream &os) const { os << message; }

std::error_code DiagnosticError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

Error nnir::makeError(SMLoc loc, const Twine &message) {
  return make_error<DiagnosticError>(loc, message.str());
}

Error nnir::makeError(const Twine &message) {
  return make_error<DiagnosticError>(SMLoc(), message.str());
}

static bool isInSourceMgr(const SourceMgr &sm, SMLoc loc) {
  return loc.isValid() && sm.FindBufferContainingLoc(loc) != 0;
}

bool nnir::printErrors(Error err, const SourceMgr &sm, StringRef toolName,
                       raw_ostream &os) {
  bool any = false;
  handleAllErrors(std::move(err), [&](const ErrorInfoBase &info) {
    any = true;
    if (info.isA<DiagnosticError>()) {
      const auto *diag = static_cast<const DiagnosticError *>(&info);
      if (isInSourceMgr(sm, diag->getLoc())) {
        sm.PrintMessage(os, diag->getLoc(), SourceMgr::DK_Error,
                        diag->getMessage());
        return;
      }
    }
    WithColor::error(os, toolName) << info.message() << "\n";
  });
  return any;
}

void nnir::printNote(const SourceMgr &sm, SMLoc loc, const Twine &message,
                     raw_ostream &os) {
  if (isInSourceMgr(sm, loc)) {
    sm.PrintMessage(os, loc, SourceMgr::DK_Note, message);
    return;
  }
  WithColor::note(os) << message << "\n";
}

void nnir::printWarning(const SourceMgr &sm, SMLoc loc, const Twine &message,
                        raw_ostream &os) {
  if (isInSourceMgr(sm, loc)) {
    sm.PrintMessage(os, loc, SourceMgr::DK_Warning, message);
    return;
  }
  WithColor::warning(os) << message << "\n";
}

void nnir::printRemark(const SourceMgr &sm, SMLoc loc, const Twine &message,
                       raw_ostream &os) {
  if (isInSourceMgr(sm, loc)) {
    sm.PrintMessage(os, loc, SourceMgr::DK_Remark, message);
    return;
  }
  WithColor::remark(os) << message << "\n";
}

std::pair<unsigned, unsigned> nnir::getLineAndColumn(const SourceMgr &sm,
                                                     SMLoc loc) {
  if (!isInSourceMgr(sm, loc))
    return {0, 0};
  return sm.getLineAndColumn(loc);
}
