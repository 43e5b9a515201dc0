//===- Suggestions.cpp - "Did you mean" hints for misspelled names --------===//
//
/// \file
/// Edit-distance scoring and the hint's wording.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/Suggestions.h"

#include <algorithm>

using namespace llvm;
using namespace nnir;

NameSuggester::NameSuggester(StringRef name)
    : name(name.str()), limit(std::max<unsigned>(2, name.size() / 3)) {}

void NameSuggester::consider(StringRef candidate) {
  unsigned distance = StringRef(name).edit_distance(
      candidate, /*AllowReplacements=*/true, /*MaxEditDistance=*/limit + 1);
  if (distance > limit)
    return;
  // Insertion keeps the list sorted by distance and stable among ties.
  auto at = std::upper_bound(
      scored.begin(), scored.end(), distance,
      [](unsigned d, const auto &entry) { return d < entry.first; });
  scored.insert(at, {distance, candidate.str()});
}

std::vector<std::string> NameSuggester::getClosest(unsigned maxResults) const {
  std::vector<std::string> result;
  for (const auto &entry : scored) {
    if (result.size() == maxResults)
      break;
    result.push_back(entry.second);
  }
  return result;
}

std::vector<std::string> NameSuggester::getBest(unsigned maxResults) const {
  std::vector<std::string> result;
  for (const auto &entry : scored) {
    if (result.size() == maxResults || entry.first != scored.front().first)
      break;
    result.push_back(entry.second);
  }
  return result;
}

std::string nnir::formatDidYouMean(ArrayRef<std::string> names) {
  if (names.empty())
    return "";
  std::string text = "; did you mean ";
  for (size_t i = 0, e = names.size(); i != e; ++i) {
    if (i)
      text += i + 1 == e ? " or " : ", ";
    text += "'" + names[i] + "'";
  }
  return text + "?";
}
