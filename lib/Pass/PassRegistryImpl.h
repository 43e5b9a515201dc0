//===- PassRegistryImpl.h - Checks shared with the parser -------*- C++ -*-===//
//
/// \file
/// Internal to the Pass library: the checks and messages that
/// PassRegistry::create and parsePassPipeline share, so that
/// `--passes='P{x=1}'` and a C++ create("P", {{"x", "1"}}) report the same
/// text (the pipeline parser adds a location).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PASS_PASSREGISTRYIMPL_H
#define NNIR_PASS_PASSREGISTRYIMPL_H

#include "nnir/Pass/PassRegistry.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace nnir {
namespace passimpl {

/// Characters of pass names and option keys in pipeline text: letters,
/// digits, `_`, `.` and `-`.
inline bool isPassNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

/// The option \p key of \p options, or null with \p message set to
/// "unknown option 'k' of pass P; valid options are: a, b" (or "P takes no
/// options").
const PassOptionInfo *findPassOption(llvm::ArrayRef<PassOptionInfo> options,
                                     llvm::StringRef passName,
                                     llvm::StringRef key, std::string &message);

/// Reads \p text as a value of \p option; the error is "option 'k' of pass
/// P: expected an int, got 'abc'".
llvm::Expected<OptionValue> parsePassOption(const PassOptionInfo &option,
                                            llvm::StringRef passName,
                                            llvm::StringRef text);

/// "option 'k' of pass P is given more than once".
std::string getRepeatedOptionMessage(llvm::StringRef passName,
                                     llvm::StringRef key);

/// Every option of \p options set to its default.
PassOptions getDefaultOptions(llvm::ArrayRef<PassOptionInfo> options);

/// Calls the factory of \p registration and checks that it made a pass
/// named after the registration.
llvm::Expected<Ref<Pass>> invokeFactory(const PassRegistration &registration,
                                        const PassOptions &options);

} // namespace passimpl
} // namespace nnir

#endif // NNIR_PASS_PASSREGISTRYIMPL_H
