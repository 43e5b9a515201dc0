//===- IntegerRangeTest.cpp - Tests of IntegerRange
//------------------------===//
//
/// \file
/// How a range is stated, and reading text against it at the edges of the
/// range and of the integer types.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/IntegerRange.h"

#include "gtest/gtest.h"

using namespace nnir;
using namespace llvm;

namespace {

/// The message of a failed parse, or "" when it succeeded.
template <typename T>
std::string parseError(const IntegerRange<T> &range, StringRef text) {
  Expected<T> value = range.parse(text);
  return value ? std::string() : toString(value.takeError());
}

TEST(IntegerRangeTest, Str) {
  EXPECT_EQ(IntegerRange<int>(-1, 3).str(), "-1 to 3");
  EXPECT_EQ(IntegerRange<int64_t>::all().str(), "-2^63 to 2^63-1");
  EXPECT_EQ(IntegerRange<uint64_t>::all().str(), "0 to 2^64-1");
  EXPECT_EQ(IntegerRange<unsigned>::all().str(), "0 to 2^32-1");
  EXPECT_EQ(IntegerRange<int>::all().str(), "-2^31 to 2^31-1");
  EXPECT_EQ(IntegerRange<unsigned>(1, 100000).str(), "1 to 100000");
}

TEST(IntegerRangeTest, ParseInRange) {
  IntegerRange<int> level(-1, 3);
  EXPECT_EQ(*level.parse("-1"), -1);
  EXPECT_EQ(*level.parse("3"), 3);
  EXPECT_EQ(*level.parse("0x2"), 2);
  EXPECT_EQ(*IntegerRange<uint64_t>::all().parse("18446744073709551615"),
            UINT64_MAX);
  EXPECT_EQ(*IntegerRange<int64_t>::all().parse("-9223372036854775808"),
            INT64_MIN);
}

TEST(IntegerRangeTest, ParseOutOfRangeSaysTheRange) {
  IntegerRange<int> level(-1, 3);
  EXPECT_EQ(parseError(level, "7"),
            "expected an integer from -1 to 3, got '7'");
  EXPECT_EQ(parseError(level, "-5"),
            "expected an integer from -1 to 3, got '-5'");
  // Beyond the type itself.
  EXPECT_EQ(parseError(level, "99999999999999999999"),
            "expected an integer from -1 to 3, got '99999999999999999999'");
  IntegerRange<uint64_t> bytes = IntegerRange<uint64_t>::all();
  EXPECT_EQ(parseError(bytes, "-1"),
            "expected an integer from 0 to 2^64-1, got '-1'");
  EXPECT_EQ(parseError(bytes, "18446744073709551616"),
            "expected an integer from 0 to 2^64-1, got '18446744073709551616'");
}

TEST(IntegerRangeTest, ParseNotAnInteger) {
  IntegerRange<unsigned> depth(1, 100000);
  for (StringRef text : {"", "abc", "1.5", "1e3", " 1", "1 "})
    EXPECT_EQ(
        parseError(depth, text),
        ("expected an integer from 1 to 100000, got '" + text + "'").str())
        << text.str();
}

TEST(IntegerRangeTest, Contains) {
  IntegerRange<int64_t> range(1, INT64_MAX);
  EXPECT_FALSE(range.contains(0));
  EXPECT_TRUE(range.contains(1));
  EXPECT_TRUE(range.contains(INT64_MAX));
  EXPECT_EQ(range.describeMismatch("0"),
            "expected an integer from 1 to 2^63-1, got '0'");
}

} // namespace
