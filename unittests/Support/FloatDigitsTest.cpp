//===- FloatDigitsTest.cpp - Tests of generateFloatDigits -----------------===//
//
/// \file
/// The shortest digits per format, limits counted from the first digit and
/// from the point, digits continued past the shortest from the exact value,
/// and rounding that carries into a new leading digit.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/FloatDigits.h"
#include "nnir/Support/Numbers.h"

#include "llvm/ADT/APFloat.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace llvm;
using namespace nnir;

namespace {

FloatDigits ofDouble(double value, int maxDigits = -1, int minDigits = -1,
                     DigitCount count = DigitCount::Significant) {
  return generateFloatDigits(APFloat::IEEEdouble(), getDoubleBits(value),
                             maxDigits, minDigits, count);
}

FloatDigits ofFloat(float value, int maxDigits = -1, int minDigits = -1) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return generateFloatDigits(APFloat::IEEEsingle(), bits, maxDigits, minDigits);
}

void expectDigits(const FloatDigits &d, const char *digits, int exponent) {
  EXPECT_EQ(d.digits, digits);
  EXPECT_EQ(d.exponent, exponent) << digits;
}

TEST(FloatDigitsTest, ShortestInEachFormat) {
  expectDigits(ofDouble(0.1), "1", -1);
  expectDigits(ofDouble(1.0), "1", 0);
  expectDigits(ofDouble(-123.5), "1235", 2);
  expectDigits(ofDouble(1.0 / 3), "3333333333333333", -1);
  expectDigits(ofFloat(0.1f), "1", -1);
  expectDigits(ofFloat(1.0f / 3), "33333334", -1);
  expectDigits(ofDouble(5e-324), "5", -324);
  // float16 0x2e66 is 0.0999755859375, bfloat16 0x4049 3.140625.
  expectDigits(generateFloatDigits(APFloat::IEEEhalf(), 0x2e66), "1", -1);
  expectDigits(generateFloatDigits(APFloat::BFloat(), 0x4049), "314", 0);
  expectDigits(ofDouble(0.0), "0", 0);
  expectDigits(ofDouble(-0.0), "0", 0);
}

TEST(FloatDigitsTest, LimitsCountedFromTheFirstDigitOrThePoint) {
  expectDigits(ofDouble(2.0 / 3, 3), "667", -1);
  expectDigits(ofDouble(0.123456789, 8, -1, DigitCount::Fractional), "12345679",
               -1);
  // Eight fractional digits leave three significant digits of 0.0000012345.
  expectDigits(ofDouble(0.0000012345, 8, -1, DigitCount::Fractional), "123",
               -6);
  // Beyond the last allowed digit: rounds to zero there.
  expectDigits(ofDouble(1e-12, 8, -1, DigitCount::Fractional), "0", -8);
}

TEST(FloatDigitsTest, MinimumDigitsComeFromTheExactValue) {
  // float32 0.1 is 0.100000001490116...
  expectDigits(ofFloat(0.1f, -1, 10), "1000000015", -1);
  // float32 99999992 reads back from 9999999e1, but its digits to the
  // point are exact.
  expectDigits(ofFloat(99999992.0f), "9999999", 7);
  expectDigits(generateFloatDigits(APFloat::IEEEsingle(), 0x4cbebc20, -1, 0,
                                   DigitCount::Fractional),
               "100000000", 8);
}

TEST(FloatDigitsTest, RoundingCarriesIntoANewDigit) {
  expectDigits(ofDouble(9.99, 2), "1", 1);
  expectDigits(ofDouble(0.0996, 2), "1", -1);
  // Ties go to the even digit: 0.125 to two digits.
  expectDigits(ofDouble(0.125, 2), "12", -1);
  expectDigits(ofDouble(0.375, 2), "38", -1);
}

} // namespace
