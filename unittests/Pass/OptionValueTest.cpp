//===- OptionValueTest.cpp - Typed config and pass option values ----------===//
//
/// \file
/// OptionValue: construction and type, parseOptionValue for every type and
/// its "expected <type>, got '<text>'" errors, and that print() writes what
/// parseOptionValue reads back.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/OptionValue.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <limits>

using namespace llvm;
using namespace nnir;

namespace {

using List = std::vector<std::string>;

/// parseOptionValue(\p text, \p type); the test fails on an error.
OptionValue parseOk(StringRef text, OptionType type) {
  Expected<OptionValue> value = parseOptionValue(text, type);
  if (!value) {
    ADD_FAILURE() << "'" << text.str() << "' as "
                  << getOptionTypeName(type).str() << ": "
                  << toString(value.takeError());
    return OptionValue();
  }
  return *value;
}

/// The error message of parseOptionValue(\p text, \p type), or "" when it
/// parses.
std::string parseError(StringRef text, OptionType type) {
  Expected<OptionValue> value = parseOptionValue(text, type);
  if (value)
    return "";
  return toString(value.takeError());
}

} // namespace

TEST(OptionValueTest, TypeNames) {
  EXPECT_EQ(getOptionTypeName(OptionType::Bool), "bool");
  EXPECT_EQ(getOptionTypeName(OptionType::Int), "int");
  EXPECT_EQ(getOptionTypeName(OptionType::Float), "float");
  EXPECT_EQ(getOptionTypeName(OptionType::String), "string");
  EXPECT_EQ(getOptionTypeName(OptionType::StringList), "list");
}

TEST(OptionValueTest, ConstructorsPickTheType) {
  EXPECT_EQ(OptionValue().getType(), OptionType::Bool);
  EXPECT_FALSE(OptionValue().getBool());
  EXPECT_EQ(OptionValue(true).getType(), OptionType::Bool);
  EXPECT_EQ(OptionValue(3).getType(), OptionType::Int);
  EXPECT_EQ(OptionValue(int64_t(1) << 40).getInt(), int64_t(1) << 40);
  EXPECT_EQ(OptionValue(0.5).getType(), OptionType::Float);
  EXPECT_EQ(OptionValue("abc").getType(), OptionType::String);
  EXPECT_EQ(OptionValue("abc").getString(), "abc");
  EXPECT_EQ(OptionValue(std::string("abc")).getType(), OptionType::String);
  EXPECT_EQ(OptionValue(List{"a", "b"}).getType(), OptionType::StringList);
  EXPECT_EQ(OptionValue(List{"a", "b"}).getList(), (List{"a", "b"}));
}

TEST(OptionValueTest, GetFloatConvertsInts) {
  EXPECT_EQ(OptionValue(0.5).getFloat(), 0.5);
  EXPECT_EQ(OptionValue(3).getFloat(), 3.0);
}

TEST(OptionValueTest, EqualityComparesTypeAndValue) {
  EXPECT_EQ(OptionValue(3), OptionValue(int64_t(3)));
  EXPECT_NE(OptionValue(3), OptionValue(4));
  EXPECT_NE(OptionValue(1), OptionValue(true));
  EXPECT_NE(OptionValue(3), OptionValue(3.0));
  EXPECT_NE(OptionValue("3"), OptionValue(3));
  EXPECT_EQ(OptionValue(List{"a"}), OptionValue(List{"a"}));
  EXPECT_NE(OptionValue(List{"a"}), OptionValue(List{"a", "b"}));
}

TEST(OptionValueTest, ParseBool) {
  EXPECT_EQ(parseOk("true", OptionType::Bool), OptionValue(true));
  EXPECT_EQ(parseOk("1", OptionType::Bool), OptionValue(true));
  EXPECT_EQ(parseOk("false", OptionType::Bool), OptionValue(false));
  EXPECT_EQ(parseOk("0", OptionType::Bool), OptionValue(false));
  EXPECT_EQ(parseError("yes", OptionType::Bool), "expected a bool, got 'yes'");
  EXPECT_EQ(parseError("2", OptionType::Bool), "expected a bool, got '2'");
  EXPECT_EQ(parseError("", OptionType::Bool), "expected a bool, got ''");
}

TEST(OptionValueTest, ParseInt) {
  EXPECT_EQ(parseOk("42", OptionType::Int), OptionValue(42));
  EXPECT_EQ(parseOk("-7", OptionType::Int), OptionValue(-7));
  EXPECT_EQ(parseOk("0", OptionType::Int), OptionValue(0));
  EXPECT_EQ(parseOk("9223372036854775807", OptionType::Int),
            OptionValue(std::numeric_limits<int64_t>::max()));
  EXPECT_EQ(parseError("abc", OptionType::Int), "expected an int, got 'abc'");
  EXPECT_EQ(parseError("1.5", OptionType::Int), "expected an int, got '1.5'");
  EXPECT_EQ(parseError("12x", OptionType::Int), "expected an int, got '12x'");
  EXPECT_EQ(parseError("", OptionType::Int), "expected an int, got ''");
  EXPECT_EQ(parseError("9223372036854775808", OptionType::Int),
            "expected an int, got '9223372036854775808'");
}

TEST(OptionValueTest, ParseFloat) {
  EXPECT_EQ(parseOk("0.5", OptionType::Float), OptionValue(0.5));
  EXPECT_EQ(parseOk("-2", OptionType::Float), OptionValue(-2.0));
  EXPECT_EQ(parseOk("1e-3", OptionType::Float), OptionValue(1e-3));
  EXPECT_EQ(parseOk("3", OptionType::Float).getType(), OptionType::Float);
  EXPECT_EQ(parseError("fast", OptionType::Float),
            "expected a float, got 'fast'");
  EXPECT_EQ(parseError("1.5.2", OptionType::Float),
            "expected a float, got '1.5.2'");
  EXPECT_EQ(parseError("", OptionType::Float), "expected a float, got ''");
  EXPECT_EQ(parseError("1e999", OptionType::Float),
            "expected a float, got '1e999'");
}

TEST(OptionValueTest, ParseString) {
  EXPECT_EQ(parseOk("abc", OptionType::String), OptionValue("abc"));
  EXPECT_EQ(parseOk("42", OptionType::String), OptionValue("42"));
  EXPECT_EQ(parseOk("a,b", OptionType::String), OptionValue("a,b"));
  EXPECT_EQ(parseOk("", OptionType::String), OptionValue(""));
}

TEST(OptionValueTest, ParseList) {
  EXPECT_EQ(parseOk("a,b,c", OptionType::StringList),
            OptionValue(List{"a", "b", "c"}));
  EXPECT_EQ(parseOk("[a,b,c]", OptionType::StringList),
            OptionValue(List{"a", "b", "c"}));
  EXPECT_EQ(parseOk("[a, b]", OptionType::StringList),
            OptionValue(List{"a", "b"}));
  EXPECT_EQ(parseOk("single", OptionType::StringList),
            OptionValue(List{"single"}));
  EXPECT_EQ(parseOk("[]", OptionType::StringList), OptionValue(List{}));
  EXPECT_EQ(parseOk("", OptionType::StringList), OptionValue(List{}));
  EXPECT_EQ(parseError("[a,b", OptionType::StringList),
            "expected a list, got '[a,b'");
  EXPECT_EQ(parseError("a,b]", OptionType::StringList),
            "expected a list, got 'a,b]'");
  EXPECT_EQ(parseError("a,,b", OptionType::StringList),
            "expected a list, got 'a,,b'");
}

TEST(OptionValueTest, Print) {
  EXPECT_EQ(OptionValue(true).str(), "true");
  EXPECT_EQ(OptionValue(false).str(), "false");
  EXPECT_EQ(OptionValue(-12).str(), "-12");
  EXPECT_EQ(OptionValue(0.5).str(), "0.5");
  EXPECT_EQ(OptionValue("abc").str(), "abc");
  EXPECT_EQ(OptionValue(List{}).str(), "[]");
  std::string text;
  raw_string_ostream os(text);
  OptionValue(7).print(os);
  EXPECT_EQ(text, "7");
  // A list prints in brackets with its items in order.
  std::string list = OptionValue(List{"a", "b"}).str();
  EXPECT_TRUE(StringRef(list).starts_with("[a,")) << list;
  EXPECT_TRUE(StringRef(list).ends_with("b]")) << list;
}

// print() writes the text form that parseOptionValue reads back.
TEST(OptionValueTest, PrintParseRoundTrip) {
  std::vector<OptionValue> values = {
      OptionValue(true),
      OptionValue(false),
      OptionValue(0),
      OptionValue(-12),
      OptionValue(std::numeric_limits<int64_t>::min()),
      OptionValue(std::numeric_limits<int64_t>::max()),
      OptionValue(0.5),
      OptionValue(-3.0),
      OptionValue(0.1),
      OptionValue(1e-5),
      OptionValue(1.0 / 3.0),
      OptionValue(6.02214076e23),
      OptionValue(std::numeric_limits<double>::max()),
      OptionValue("abc"),
      OptionValue("a b"),
      OptionValue(List{}),
      OptionValue(List{"x"}),
      OptionValue(List{"InferType", "FoldConstant", "FuseOps"}),
  };
  for (const OptionValue &value : values) {
    std::string text = value.str();
    Expected<OptionValue> back = parseOptionValue(text, value.getType());
    ASSERT_TRUE(bool(back)) << text << ": " << toString(back.takeError());
    EXPECT_EQ(*back, value)
        << "'" << text << "' read back as '" << back->str() << "'";
  }
}

TEST(OptionValueRoundTrip, SubnormalFloatReadsBack) {
  double tiny = 4.9406564584124654e-324; // The smallest subnormal double.
  Expected<OptionValue> value =
      parseOptionValue(OptionValue(tiny).str(), OptionType::Float);
  ASSERT_TRUE(bool(value)) << toString(value.takeError());
  EXPECT_EQ(value->getFloat(), tiny);
  // Overflow is still an error.
  Expected<OptionValue> huge = parseOptionValue("1e999", OptionType::Float);
  ASSERT_FALSE(bool(huge));
  EXPECT_EQ(toString(huge.takeError()), "expected a float, got '1e999'");
}
