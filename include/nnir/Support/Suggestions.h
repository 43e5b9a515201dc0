//===- Suggestions.h - "Did you mean" hints for misspelled names *- C++ -*-===//
//
/// \file
/// One edit-distance suggester for every registry that names things the user
/// types: operators (the parser's "unknown operator 'ad'; did you mean
/// 'add'?") and passes (pipeline text, --disable-pass). A candidate is close
/// when its edit distance (with transpositions) from the misspelled name is at
/// most a third of that name's length, and at least 2.
///
/// \code
///   NameSuggester suggester(name);
///   for (const Ref<Op> &op : ops)
///     suggester.consider(op->getName());
///   std::vector<std::string> best = suggester.getClosest(1);
/// \endcode
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_SUPPORT_SUGGESTIONS_H
#define NNIR_SUPPORT_SUGGESTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace nnir {

class NameSuggester {
public:
  explicit NameSuggester(llvm::StringRef name);

  /// Remembers \p candidate if it is close to the name.
  void consider(llvm::StringRef candidate);

  /// Up to \p maxResults close candidates, closest first; candidates at the
  /// same distance keep the order in which they were considered.
  std::vector<std::string> getClosest(unsigned maxResults) const;
  /// The close candidates at the smallest distance only, up to
  /// \p maxResults, in the order considered.
  std::vector<std::string> getBest(unsigned maxResults) const;

private:
  std::string name;
  unsigned limit;
  std::vector<std::pair<unsigned, std::string>> scored;
};

/// "; did you mean 'a'?", "; did you mean 'a' or 'b'?", "; did you mean 'a',
/// 'b' or 'c'?"; "" when \p names is empty. Meant to follow an error message.
std::string formatDidYouMean(llvm::ArrayRef<std::string> names);

} // namespace nnir

#endif // NNIR_SUPPORT_SUGGESTIONS_H
