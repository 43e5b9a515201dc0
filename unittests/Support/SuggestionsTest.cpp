//===- SuggestionsTest.cpp - Tests of the "did you mean" suggester --------===//
//
/// \file
/// NameSuggester's distance limit and ordering, and the hint's wording.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/Suggestions.h"

#include "gtest/gtest.h"

using namespace nnir;

namespace {

TEST(SuggestionsTest, ClosestFirstTiesInOrder) {
  NameSuggester suggester("ad");
  for (const char *name : {"sub", "add", "and", "a", "multiply"})
    suggester.consider(name);
  // "add", "and" and "a" are 1 edit away, "sub" 3 (beyond the limit of 2).
  EXPECT_EQ(suggester.getClosest(5),
            (std::vector<std::string>{"add", "and", "a"}));
  EXPECT_EQ(suggester.getClosest(2), (std::vector<std::string>{"add", "and"}));
}

TEST(SuggestionsTest, BestKeepsOnlyTheSmallestDistance) {
  NameSuggester suggester("InferTyp");
  suggester.consider("InferTypes"); // 2 edits
  suggester.consider("InferType");   // 1 edit
  suggester.consider("InferTypo");   // 1 edit
  EXPECT_EQ(suggester.getBest(3),
            (std::vector<std::string>{"InferType", "InferTypo"}));
  EXPECT_EQ(suggester.getClosest(3),
            (std::vector<std::string>{"InferType", "InferTypo", "InferTypes"}));
}

TEST(SuggestionsTest, LimitIsAThirdOfTheLength) {
  // 12 characters allow 4 edits; 3 characters allow 2.
  NameSuggester longName("FoldConstant");
  longName.consider("FoldConst"); // 3 deletions
  longName.consider("Fold");      // 8 deletions
  EXPECT_EQ(longName.getClosest(3), (std::vector<std::string>{"FoldConst"}));
  NameSuggester shortName("exp");
  shortName.consider("log"); // 3 replacements
  shortName.consider("ex");
  EXPECT_EQ(shortName.getClosest(3), (std::vector<std::string>{"ex"}));
}

TEST(SuggestionsTest, NothingClose) {
  NameSuggester suggester("zzzzzz");
  suggester.consider("add");
  EXPECT_TRUE(suggester.getClosest(3).empty());
  EXPECT_TRUE(suggester.getBest(3).empty());
  EXPECT_EQ(formatDidYouMean({}), "");
}

TEST(SuggestionsTest, Wording) {
  EXPECT_EQ(formatDidYouMean({"add"}), "; did you mean 'add'?");
  EXPECT_EQ(formatDidYouMean({"a", "b"}), "; did you mean 'a' or 'b'?");
  EXPECT_EQ(formatDidYouMean({"a", "b", "c"}),
            "; did you mean 'a', 'b' or 'c'?");
}

} // namespace
