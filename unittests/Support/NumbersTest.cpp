//===- NumbersTest.cpp - Tests of the number text functions ---------------===//
//
/// \file
/// formatFloatBits / parseFloatBits for every float format: the shortest
/// round-trip text, TVM's %g-like layout, NaN signs and significands,
/// correct rounding (ties to even, no double rounding through float64),
/// overflow only past the largest finite value, and exact widening and
/// narrowing of NaN payloads.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/Numbers.h"

#include "llvm/ADT/APFloat.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace llvm;
using namespace nnir;

namespace {

const fltSemantics &half() { return APFloat::IEEEhalf(); }
const fltSemantics &bf16() { return APFloat::BFloat(); }
const fltSemantics &single() { return APFloat::IEEEsingle(); }
const fltSemantics &dbl() { return APFloat::IEEEdouble(); }

uint64_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

/// The bits parseFloatBits gives, or ~0 when it fails.
uint64_t parse(StringRef text, const fltSemantics &sem) {
  uint64_t bits;
  if (parseFloatBits(text, sem, bits) != FloatParseStatus::Ok)
    return ~uint64_t(0);
  return bits;
}

FloatParseStatus status(StringRef text, const fltSemantics &sem) {
  uint64_t bits;
  return parseFloatBits(text, sem, bits);
}

TEST(NumbersTest, FormatDouble) {
  EXPECT_EQ(formatDouble(0.1), "0.1");
  EXPECT_EQ(formatDouble(1e-05), "1e-05");
  EXPECT_EQ(formatDouble(3), "3");
  EXPECT_EQ(formatDouble(-2.5), "-2.5");
  // As %g with at least 6 digits when that needs no exponent.
  EXPECT_EQ(formatDouble(120), "120");
  EXPECT_EQ(formatDouble(100000), "100000");
  EXPECT_EQ(formatDouble(1e6), "1e+06");
  EXPECT_EQ(formatDouble(1234567), "1234567");
  EXPECT_EQ(formatDouble(0.0001), "0.0001");
  EXPECT_EQ(formatDouble(1e300), "1e+300");
  EXPECT_EQ(formatDouble(0.1234567890123), "0.1234567890123");
  EXPECT_EQ(formatDouble(-0.0), "-0");
  EXPECT_EQ(formatDouble(std::numeric_limits<double>::max()),
            "1.7976931348623157e+308");
  EXPECT_EQ(formatDouble(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(formatDouble(HUGE_VAL), "inf");
  EXPECT_EQ(formatDouble(-HUGE_VAL), "-inf");
}

TEST(NumbersTest, FormatFloat) {
  EXPECT_EQ(formatFloat(0.1f), "0.1");
  EXPECT_EQ(formatFloat(3.14159265f), "3.1415927");
  EXPECT_EQ(formatFloat(16777216.0f), "16777216");
  EXPECT_EQ(formatFloat(1e-45f), "1e-45");
  // The shortest text of FLT_MAX (3.4028235e+38) is above FLT_MAX as a
  // double, which TVM's reader refuses: the exact digits are written.
  EXPECT_EQ(formatFloat(std::numeric_limits<float>::max()),
            "3.4028234663852886e+38");
  EXPECT_EQ(formatFloat(-std::numeric_limits<float>::max()),
            "-3.4028234663852886e+38");
}

TEST(NumbersTest, FormatHalfAndBFloat16) {
  EXPECT_EQ(formatFloatBits(half(), 0x2E66), "0.1"); // 0.0999755859375
  EXPECT_EQ(formatFloatBits(half(), 0x7BFF), "65504");
  EXPECT_EQ(formatFloatBits(half(), 0x3E00), "1.5");
  EXPECT_EQ(formatFloatBits(half(), 0x0001), "6e-08"); // 2^-24
  EXPECT_EQ(formatFloatBits(half(), 0x8000), "-0");
  EXPECT_EQ(formatFloatBits(bf16(), 0x3DCD), "0.1");
  // Its shortest text, 3.39e+38, is above the largest bfloat16 as a double.
  EXPECT_EQ(formatFloatBits(bf16(), 0x7F7F), "3.3895313892515355e+38");
  EXPECT_EQ(formatFloatBits(half(), 0x3E00, "f16"), "1.5f16");
}

TEST(NumbersTest, FormatNaN) {
  EXPECT_EQ(formatFloatBits(single(), 0x7FC00000), "nan");
  EXPECT_EQ(formatFloatBits(single(), 0xFFC00000), "-nan");
  EXPECT_EQ(formatFloatBits(single(), 0x7F800001), "nan:0x1");
  EXPECT_EQ(formatFloatBits(single(), 0x7FC00001), "nan:0x400001");
  EXPECT_EQ(formatFloatBits(single(), 0xFFFFFFFF, "f"), "-nanf:0x7fffff");
  EXPECT_EQ(formatFloatBits(half(), 0x7E00), "nan");
  EXPECT_EQ(formatFloatBits(half(), 0x7C01, "f16"), "nanf16:0x1");
  EXPECT_EQ(formatFloatBits(bf16(), 0xFFC0), "-nan");
  EXPECT_EQ(formatFloatBits(dbl(), 0x7FF8000000000000ULL), "nan");
  EXPECT_EQ(formatFloatBits(dbl(), 0x7FF0000000000001ULL, "f64"), "nanf64:0x1");
  EXPECT_EQ(formatFloatBits(single(), 0x7F800000), "inf");
  EXPECT_EQ(formatFloatBits(half(), 0xFC00), "-inf");
}

TEST(NumbersTest, ParseRoundsToNearestEven) {
  // NumPy's FLT_MAX text rounds to FLT_MAX; overflow needs the value to
  // round past it (to 2^128).
  EXPECT_EQ(parse("3.4028235e38", single()),
            floatBits(std::numeric_limits<float>::max()));
  EXPECT_EQ(parse("3.40282356e38", single()),
            floatBits(std::numeric_limits<float>::max()));
  EXPECT_EQ(status("3.4028236e38", single()), FloatParseStatus::Overflow);
  EXPECT_EQ(parse("-3.4028235e38", single()),
            floatBits(-std::numeric_limits<float>::max()));
  EXPECT_EQ(parse("65519", half()), 0x7BFFu);
  EXPECT_EQ(status("65520", half()), FloatParseStatus::Overflow);
  EXPECT_EQ(status("1e400", dbl()), FloatParseStatus::Overflow);
  // Underflow is not an error: the nearest value, zero included.
  EXPECT_EQ(parse("1e-46", single()), 0u);
  EXPECT_EQ(parse("-1e-46", single()), 0x80000000u);
  EXPECT_EQ(parse("1e-45", single()), 1u);
  EXPECT_EQ(parse("1e-400", dbl()), 0u);
  EXPECT_EQ(parse("1e-8", half()), 0u);
  // Ties go to even: 2049 lies halfway between float16's 2048 and 2050.
  EXPECT_EQ(parse("2049", half()), 0x6800u);
  EXPECT_EQ(parse("2051", half()), 0x6802u);
  // Just above the tie the value rounds up; going through float64 first
  // would round the decimal to the tie and then to even.
  EXPECT_EQ(parse("2049.0000000000000001", half()), 0x6801u);
  EXPECT_EQ(parse("1.0000000596046447753906251", single()), 0x3F800001u);
  EXPECT_EQ(parse("1.000000059604644775390625", single()), 0x3F800000u);
  EXPECT_EQ(parse("0.1", bf16()), 0x3DCDu);
}

TEST(NumbersTest, ParseSyntax) {
  EXPECT_EQ(parse("1", dbl()), getDoubleBits(1.0));
  EXPECT_EQ(parse("1.", dbl()), getDoubleBits(1.0));
  EXPECT_EQ(parse(".5", dbl()), getDoubleBits(0.5));
  EXPECT_EQ(parse("2E+3", dbl()), getDoubleBits(2000.0));
  EXPECT_EQ(parse("-0", dbl()), getDoubleBits(-0.0));
  EXPECT_EQ(parse("inf", single()), 0x7F800000u);
  EXPECT_EQ(parse("-inf", half()), 0xFC00u);
  EXPECT_EQ(parse("nan", single()), 0x7FC00000u);
  EXPECT_EQ(parse("-nan", single()), 0xFFC00000u);
  EXPECT_EQ(parse("nan:0x1", single()), 0x7F800001u);
  EXPECT_EQ(parse("-nan:0x7fffff", single()), 0xFFFFFFFFu);
  for (StringRef bad :
       {"", ".", "1e", "1e+", "+1", "1x", "0x10", "1,5", " 1", "infinity",
        "nan:0x", "nan:0x0", "nan:1", "nan:0x800000", "--1", "1..2"})
    EXPECT_EQ(status(bad, single()), FloatParseStatus::Invalid) << bad.str();
  EXPECT_EQ(status("nan:0x400", half()), FloatParseStatus::Invalid);
}

TEST(NumbersTest, FormatReadsBackEveryPattern) {
  // Every float16 and bfloat16 pattern, and a spread of float32 ones.
  for (uint64_t bits = 0; bits <= 0xFFFF; ++bits) {
    for (const fltSemantics *sem : {&half(), &bf16()}) {
      std::string text = formatFloatBits(*sem, bits);
      EXPECT_EQ(parse(text, *sem), bits) << text;
    }
  }
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFu; bits += 0x10001) {
    std::string text = formatFloatBits(single(), bits);
    ASSERT_EQ(parse(text, single()), bits) << text;
  }
}

TEST(NumbersTest, WidenAndNarrowKeepNaNPayloads) {
  // A signalling float32 NaN widens without being quieted and narrows back.
  double wide = widenToDouble(single(), 0x7F800001);
  EXPECT_TRUE(std::isnan(wide));
  EXPECT_EQ(getDoubleBits(wide), 0x7FF0000020000000ULL);
  EXPECT_EQ(narrowFromDouble(wide, single()),
            std::optional<uint64_t>(0x7F800001));
  EXPECT_EQ(widenToDouble(half(), 0x3E00), 1.5);
  EXPECT_EQ(narrowFromDouble(1.5, half()), std::optional<uint64_t>(0x3E00));
  // Not representable: the value, or a NaN payload below float32's bits.
  EXPECT_EQ(narrowFromDouble(0.1, single()), std::nullopt);
  EXPECT_EQ(narrowFromDouble(1e300, single()), std::nullopt);
  EXPECT_EQ(
      narrowFromDouble(getDoubleFromBits(0x7FF0000000000001ULL), single()),
      std::nullopt);
  EXPECT_EQ(narrowFromDouble(-0.0, bf16()), std::optional<uint64_t>(0x8000));
}

} // namespace
