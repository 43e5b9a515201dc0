//===- NDArrayTest.cpp - Tests of NDArray ----------------------------------===//
//
/// \file
/// NDArray creation and its errors, element access per dtype (including
/// float16/bfloat16 rounding and integer saturation), bitwise equality and
/// hashing, and TVM's binary format: the exact bytes of save(), load() round
/// trips, and load() on corrupt or truncated input.
//
//===----------------------------------------------------------------------===//

#include "nnir/Runtime/NDArray.h"

#include "llvm/Support/Base64.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace nnir;

namespace {

const char *const kAllDTypeNames[] = {
    "bool",    "int8",    "int16",    "int32",   "int64",
    "uint8",   "uint16",  "uint32",   "uint64",  "float16",
    "bfloat16", "float32", "float64"};

const double kInf = std::numeric_limits<double>::infinity();

/// The message of a failed Expected (empty if it succeeded).
template <typename T> std::string errorOf(llvm::Expected<T> value) {
  if (value)
    return "";
  return llvm::toString(value.takeError());
}

/// A 64-bit-aligned pointer check.
bool isAligned(const void *p) {
  return reinterpret_cast<uintptr_t>(p) % NDArray::kAlignment == 0;
}

/// An array of \p dtype and \p shape whose bytes are 1, 2, 3, ... (mod 251),
/// bool elements 0/1.
NDArray patterned(DataType dtype, llvm::ArrayRef<int64_t> shape) {
  NDArray a = llvm::cantFail(NDArray::create(dtype, shape));
  auto *bytes = static_cast<uint8_t *>(a.getMutableData());
  for (size_t i = 0; i < a.getByteSize(); ++i)
    bytes[i] = dtype.isBool() ? i % 2 : static_cast<uint8_t>(1 + i % 251);
  return a;
}

uint64_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

/// The bits of element \p index of a 16-bit array.
uint16_t bits16(const NDArray &a, int64_t index) {
  uint16_t v;
  std::memcpy(&v, a.getBytes().data() + 2 * index, 2);
  return v;
}

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

TEST(NDArrayTest, CreateIsZeroFilledAndAligned) {
  for (const char *name : kAllDTypeNames) {
    SCOPED_TRACE(name);
    DataType t = *DataType::parse(name);
    NDArray a = llvm::cantFail(NDArray::create(t, {2, 3, 5}));
    ASSERT_TRUE(a);
    EXPECT_EQ(a.getDType(), t);
    EXPECT_EQ(a.getRank(), 3u);
    EXPECT_EQ(a.getShape(), llvm::ArrayRef<int64_t>({2, 3, 5}));
    EXPECT_EQ(a.getNumElements(), 30);
    EXPECT_EQ(a.getByteSize(), 30u * t.getStorageBytes());
    EXPECT_TRUE(isAligned(a.getData()));
    for (uint8_t byte : a.getBytes())
      EXPECT_EQ(byte, 0);
    for (int64_t i = 0; i < a.getNumElements(); ++i)
      EXPECT_EQ(a.getElementAsDouble(i), 0.0);
  }
}

TEST(NDArrayTest, LargeArraysStartOnAHugePage) {
  // Arrays of 2 MiB or more are placed for transparent huge pages on Linux
  // (NDArray.cpp allocateData); all arrays stay 64-byte aligned, zero-filled
  // on request and writable to the last byte.
  for (int64_t elements : {int64_t(1) << 19, (int64_t(1) << 19) + 3,
                           int64_t(5) << 20}) {
    NDArray a = llvm::cantFail(NDArray::create(DataType::float32(), {elements}));
    EXPECT_TRUE(isAligned(a.getData()));
#if defined(__linux__)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.getData()) % (uintptr_t(2) << 20),
              0u);
#endif
    EXPECT_EQ(a.getElementAsDouble(elements - 1), 0.0);
    a.setElementFromDouble(elements - 1, 2.5);
    EXPECT_EQ(a.getElementAsDouble(elements - 1), 2.5);
  }
  NDArray small = llvm::cantFail(NDArray::create(DataType::float32(), {1000}));
  EXPECT_TRUE(isAligned(small.getData()));
}

TEST(NDArrayTest, CreateZeroDimAndEmpty) {
  NDArray scalar = llvm::cantFail(NDArray::create(DataType::float32(), {}));
  EXPECT_EQ(scalar.getRank(), 0u);
  EXPECT_EQ(scalar.getNumElements(), 1);
  EXPECT_EQ(scalar.getByteSize(), 4u);
  EXPECT_TRUE(isAligned(scalar.getData()));

  NDArray empty = llvm::cantFail(NDArray::create(DataType::int64(), {4, 0}));
  EXPECT_EQ(empty.getRank(), 2u);
  EXPECT_EQ(empty.getNumElements(), 0);
  EXPECT_EQ(empty.getByteSize(), 0u);
  EXPECT_TRUE(empty.getBytes().empty());
  EXPECT_TRUE(isAligned(empty.getData()));
}

TEST(NDArrayTest, CreateErrors) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_NE(errorOf(NDArray::create(DataType::float32(), {2, -2}))
                .find("negative extent"),
            std::string::npos);
  // A dynamic extent (a type's `?`) never sizes an allocation.
  EXPECT_EQ(errorOf(NDArray::create(DataType::float32(), {2, kAnyDim})),
            "cannot allocate a tensor of dynamic shape (2, ?)");
  // The element count overflows int64.
  EXPECT_NE(errorOf(NDArray::create(DataType::int8(), {big, 2}))
                .find("overflows"),
            std::string::npos);
  // The element count fits but the byte size does not.
  EXPECT_NE(errorOf(NDArray::create(DataType::float64(), {big / 2}))
                .find("overflows"),
            std::string::npos);
  // The limit is inclusive.
  EXPECT_EQ(errorOf(NDArray::create(DataType::float32(), {4}, 16)), "");
  EXPECT_EQ(errorOf(NDArray::create(DataType::float32(), {4}, 15)),
            "tensor of 16 bytes exceeds the limit of 15 bytes");
  EXPECT_NE(errorOf(NDArray::create(DataType::float32(), {1 << 20, 1 << 20},
                                    uint64_t(1) << 32))
                .find("exceeds the limit"),
            std::string::npos);
  // Unsupported dtypes.
  for (DataType t : {DataType(), DataType(DataType::Float, 16, 4),
                     DataType(DataType::Handle, 64), DataType(DataType::Int, 4),
                     DataType(DataType::UInt, 1, 4)}) {
    SCOPED_TRACE(t.str());
    EXPECT_NE(errorOf(NDArray::create(t, {2})).find("unsupported dtype"),
              std::string::npos);
  }
}

TEST(NDArrayTest, FromBytesChecksTheSize) {
  std::vector<uint8_t> bytes = {1, 2, 3, 4, 5, 6};
  NDArray a =
      llvm::cantFail(NDArray::fromBytes(DataType::int16(), {3}, bytes));
  EXPECT_EQ(a.getBytes(), llvm::ArrayRef<uint8_t>(bytes));
  EXPECT_EQ(a.getElementAsInt(0), 0x0201); // Little-endian.
  EXPECT_TRUE(isAligned(a.getData()));
  // The bytes are copied.
  bytes[0] = 9;
  EXPECT_EQ(a.getBytes()[0], 1);

  EXPECT_EQ(errorOf(NDArray::fromBytes(DataType::int16(), {2}, bytes)),
            "expected 4 bytes of data, got 6");
  EXPECT_EQ(errorOf(NDArray::fromBytes(DataType::int16(), {4}, bytes)),
            "expected 8 bytes of data, got 6");
  EXPECT_NE(errorOf(NDArray::fromBytes(DataType::int16(), {-3}, bytes))
                .find("negative extent"),
            std::string::npos);
  NDArray empty = llvm::cantFail(NDArray::fromBytes(DataType::int16(), {0}, {}));
  EXPECT_EQ(empty.getNumElements(), 0);
}

TEST(NDArrayTest, Scalar) {
  NDArray a = NDArray::scalar(DataType::float64(), 2.5);
  EXPECT_EQ(a.getRank(), 0u);
  EXPECT_EQ(a.getNumElements(), 1);
  EXPECT_EQ(a.getElementAsDouble(0), 2.5);

  NDArray i = NDArray::scalar(DataType::int64(), -7);
  EXPECT_EQ(i.getElementAsInt(0), -7);
  EXPECT_EQ(NDArray::scalar(DataType::boolean(), 3).getElementAsInt(0), 1);
  EXPECT_EQ(NDArray::scalar(DataType::boolean(), 0).getElementAsInt(0), 0);
  // float16 scalars are rounded to nearest even.
  EXPECT_EQ(bits16(NDArray::scalar(DataType::float16(), 1.0 + 1.0 / 2048), 0),
            0x3c00);
  EXPECT_EQ(bits16(NDArray::scalar(DataType::bfloat16(), 1.0), 0), 0x3f80);
}

TEST(NDArrayTest, NullArray) {
  NDArray null;
  EXPECT_FALSE(null);
  EXPECT_TRUE(null.bitwiseEqual(NDArray()));
  EXPECT_FALSE(null.bitwiseEqual(NDArray::scalar(DataType::int32(), 0)));
  EXPECT_FALSE(NDArray::scalar(DataType::int32(), 0).bitwiseEqual(null));
  EXPECT_EQ(null.hash(), NDArray().hash());
}

//===----------------------------------------------------------------------===//
// Element access
//===----------------------------------------------------------------------===//

TEST(NDArrayTest, GetSetEveryDType) {
  for (const char *name : kAllDTypeNames) {
    SCOPED_TRACE(name);
    DataType t = *DataType::parse(name);
    NDArray a = llvm::cantFail(NDArray::create(t, {4}));
    if (t.isBool()) {
      a.setElementFromDouble(1, 5.0);
      a.setElementFromInt(2, -3);
      a.setElementFromInt(3, 0);
      EXPECT_EQ(a.getElementAsInt(0), 0);
      EXPECT_EQ(a.getElementAsInt(1), 1);
      EXPECT_EQ(a.getElementAsInt(2), 1);
      EXPECT_EQ(a.getElementAsDouble(2), 1.0);
      EXPECT_EQ(a.getElementAsInt(3), 0);
      // Stored one byte per element, 0 or 1.
      EXPECT_EQ(a.getBytes(), llvm::ArrayRef<uint8_t>({0, 1, 1, 0}));
      continue;
    }
    a.setElementFromDouble(0, 3.0);
    a.setElementFromInt(1, 100);
    a.setElementFromDouble(2, t.isInt() || t.isFloatingPoint() ? -2.0 : 2.0);
    EXPECT_EQ(a.getElementAsDouble(0), 3.0);
    EXPECT_EQ(a.getElementAsInt(0), 3);
    EXPECT_EQ(a.getElementAsDouble(1), 100.0);
    EXPECT_EQ(a.getElementAsInt(1), 100);
    EXPECT_EQ(a.getElementAsInt(2),
              t.isInt() || t.isFloatingPoint() ? -2 : 2);
    EXPECT_EQ(a.getElementAsDouble(3), 0.0);
    if (t.isFloatingPoint()) {
      a.setElementFromDouble(3, 0.5);
      EXPECT_EQ(a.getElementAsDouble(3), 0.5);
    }
  }
}

TEST(NDArrayTest, IntegerStorageIsLittleEndianTwosComplement) {
  NDArray a = llvm::cantFail(NDArray::create(DataType::int32(), {2}));
  a.setElementFromInt(0, -2);
  a.setElementFromInt(1, 0x01020304);
  EXPECT_EQ(a.getBytes(), llvm::ArrayRef<uint8_t>(
                              {0xfe, 0xff, 0xff, 0xff, 4, 3, 2, 1}));
}

TEST(NDArrayTest, DoubleToIntegerSaturates) {
  struct Case {
    DataType t;
    double in;
    int64_t out;
  };
  const Case cases[] = {
      {DataType::int8(), 300, 127},
      {DataType::int8(), -300, -128},
      {DataType::int8(), kInf, 127},
      {DataType::int8(), -kInf, -128},
      {DataType::int8(), std::nan(""), 0},
      {DataType::int8(), 2.9, 2},
      {DataType::int8(), -2.9, -2},
      {DataType::uint8(), -1, 0},
      {DataType::uint8(), 256, 255},
      {DataType::int16(), 40000, 32767},
      {DataType::uint16(), 70000, 65535},
      {DataType::int32(), 1e10, 2147483647},
      {DataType::int32(), -1e10, -2147483648LL},
      {DataType::uint32(), 1e10, 4294967295LL},
      {DataType::int64(), 1e30, std::numeric_limits<int64_t>::max()},
      {DataType::int64(), -1e30, std::numeric_limits<int64_t>::min()},
      {DataType::uint64(), -5, 0},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.t.str() + " " + std::to_string(c.in));
    NDArray a = llvm::cantFail(NDArray::create(c.t, {1}));
    a.setElementFromDouble(0, c.in);
    EXPECT_EQ(a.getElementAsInt(0), c.out);
  }
  NDArray u = llvm::cantFail(NDArray::create(DataType::uint64(), {1}));
  u.setElementFromDouble(0, 1e30);
  EXPECT_EQ(u.getElementAsDouble(0), 18446744073709551615.0);
}

TEST(NDArrayTest, IntToNarrowIntegerTruncates) {
  NDArray a = llvm::cantFail(NDArray::create(DataType::int8(), {2}));
  a.setElementFromInt(0, 300); // 300 - 256
  a.setElementFromInt(1, 255);
  EXPECT_EQ(a.getElementAsInt(0), 44);
  EXPECT_EQ(a.getElementAsInt(1), -1);

  NDArray u = llvm::cantFail(NDArray::create(DataType::uint32(), {1}));
  u.setElementFromInt(0, -1);
  EXPECT_EQ(u.getElementAsInt(0), 4294967295LL);

  NDArray i64 = llvm::cantFail(NDArray::create(DataType::int64(), {1}));
  i64.setElementFromInt(0, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(i64.getElementAsInt(0), std::numeric_limits<int64_t>::min());
  // Integers beyond 2^53 stay exact through the integer path.
  i64.setElementFromInt(0, (int64_t(1) << 53) + 1);
  EXPECT_EQ(i64.getElementAsInt(0), (int64_t(1) << 53) + 1);
}

TEST(NDArrayTest, Float16RoundsToNearestEven) {
  struct Case {
    double in;
    uint16_t bits;
  };
  const Case cases[] = {
      {1.0, 0x3c00},
      {-2.0, 0xc000},
      {0.0, 0x0000},
      {-0.0, 0x8000},
      {65504.0, 0x7bff},              // Largest finite half.
      {65519.0, 0x7bff},              // Below the halfway point to 65536.
      {65520.0, 0x7c00},              // Halfway: rounds (to even) to inf.
      {1e6, 0x7c00},                  // Overflow saturates to infinity.
      {-1e6, 0xfc00},
      {1.0 + 1.0 / 2048, 0x3c00},     // Tie, even neighbour below.
      {1.0 + 3.0 / 2048, 0x3c02},     // Tie, even neighbour above.
      {1.0 + 1.5 / 2048, 0x3c01},     // Above the tie.
      {std::ldexp(1.0, -14), 0x0400}, // Smallest normal.
      {std::ldexp(1.0, -24), 0x0001}, // Smallest subnormal.
      {std::ldexp(1.0, -25), 0x0000}, // Tie between 0 and 2^-24: even is 0.
      {std::ldexp(3.0, -25), 0x0002}, // Tie between 1 and 2 ulps: even is 2.
      {std::ldexp(1.0, -30), 0x0000}, // Underflow.
      {kInf, 0x7c00},
      {-kInf, 0xfc00},
  };
  NDArray a = llvm::cantFail(NDArray::create(DataType::float16(), {1}));
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.in));
    a.setElementFromDouble(0, c.in);
    EXPECT_EQ(bits16(a, 0), c.bits);
    EXPECT_EQ(floatToHalf(static_cast<float>(c.in)), c.bits);
  }
  a.setElementFromDouble(0, std::nan(""));
  uint16_t nan = bits16(a, 0);
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  EXPECT_TRUE(std::isnan(a.getElementAsDouble(0)));
}

TEST(NDArrayTest, Float16Decoding) {
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
  EXPECT_EQ(halfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
  // Every finite half survives a round trip through float.
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    uint16_t h = static_cast<uint16_t>(bits);
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
      continue; // NaN payloads are not preserved bit for bit.
    ASSERT_EQ(floatToHalf(halfToFloat(h)), h) << "bits " << bits;
  }
}

TEST(NDArrayTest, BFloat16RoundsToNearestEven) {
  struct Case {
    float in;
    uint16_t bits;
  };
  const Case cases[] = {
      {1.0f, 0x3f80},
      {-1.0f, 0xbf80},
      {1.0f + std::ldexp(1.0f, -8), 0x3f80},       // Tie, even below.
      {1.0f + std::ldexp(3.0f, -8), 0x3f82},       // Tie, even above.
      {1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20), 0x3f81},
      {std::numeric_limits<float>::max(), 0x7f80}, // Rounds up to inf.
      {std::numeric_limits<float>::infinity(), 0x7f80},
      {-0.0f, 0x8000},
  };
  NDArray a = llvm::cantFail(NDArray::create(DataType::bfloat16(), {1}));
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.in));
    a.setElementFromDouble(0, c.in);
    EXPECT_EQ(bits16(a, 0), c.bits);
    EXPECT_EQ(floatToBFloat16(c.in), c.bits);
  }
  // NaN stays NaN, even one whose payload sits in the dropped bits.
  uint32_t lowNaNBits = 0x7f800001;
  float lowNaN;
  std::memcpy(&lowNaN, &lowNaNBits, 4);
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(floatToBFloat16(lowNaN))));
  a.setElementFromDouble(0, std::nan(""));
  EXPECT_TRUE(std::isnan(a.getElementAsDouble(0)));
  EXPECT_EQ(bfloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(bfloat16ToFloat(0xc040), -3.0f);
}

//===----------------------------------------------------------------------===//
// Equality and hashing
//===----------------------------------------------------------------------===//

TEST(NDArrayTest, BitwiseEqualAndHash) {
  NDArray a = patterned(DataType::float32(), {2, 3});
  NDArray b = patterned(DataType::float32(), {2, 3});
  EXPECT_FALSE(a.sameAs(b));
  EXPECT_TRUE(a.bitwiseEqual(b));
  EXPECT_EQ(a.hash(), b.hash());

  // Copies share the buffer.
  NDArray copy = a;
  EXPECT_TRUE(copy.sameAs(a));
  EXPECT_TRUE(copy.bitwiseEqual(a));

  // Same bytes, other dtype or shape.
  NDArray asInt = patterned(DataType::int32(), {2, 3});
  NDArray reshaped = patterned(DataType::float32(), {3, 2});
  NDArray flat = patterned(DataType::float32(), {6});
  EXPECT_EQ(a.getBytes(), asInt.getBytes());
  EXPECT_FALSE(a.bitwiseEqual(asInt));
  EXPECT_FALSE(a.bitwiseEqual(reshaped));
  EXPECT_FALSE(a.bitwiseEqual(flat));
  EXPECT_NE(a.hash(), asInt.hash());
  EXPECT_NE(a.hash(), reshaped.hash());

  // One byte differs.
  static_cast<uint8_t *>(b.getMutableData())[5] ^= 1;
  EXPECT_FALSE(a.bitwiseEqual(b));
  EXPECT_NE(a.hash(), b.hash());

  // Bitwise, not numeric: -0 != 0 and NaN == NaN.
  NDArray zero = NDArray::scalar(DataType::float32(), 0.0);
  NDArray negZero = NDArray::scalar(DataType::float32(), -0.0);
  EXPECT_FALSE(zero.bitwiseEqual(negZero));
  NDArray nan1 = NDArray::scalar(DataType::float32(), std::nan(""));
  NDArray nan2 = NDArray::scalar(DataType::float32(), std::nan(""));
  EXPECT_TRUE(nan1.bitwiseEqual(nan2));
  EXPECT_EQ(nan1.hash(), nan2.hash());
}

//===----------------------------------------------------------------------===//
// TVM's binary format
//===----------------------------------------------------------------------===//

TEST(NDArrayTest, SplatKeepsOneElementUntilItsBufferIsNeeded) {
  // 2^40 float32 elements (4 TiB): element access and equality must not
  // allocate the buffer, or this test dies.
  int64_t huge = int64_t(1) << 40;
  NDArray a = llvm::cantFail(
      NDArray::splat(DataType::float32(), {huge}, floatBits(2.5f)));
  NDArray b = llvm::cantFail(
      NDArray::splat(DataType::float32(), {huge}, floatBits(2.5f)));
  NDArray c = llvm::cantFail(
      NDArray::splat(DataType::float32(), {huge}, floatBits(3.0f)));
  EXPECT_TRUE(a.isSplat());
  EXPECT_TRUE(a.isRepeated());
  EXPECT_EQ(a.getNumElements(), huge);
  EXPECT_EQ(a.getByteSize(), size_t(huge) * 4);
  EXPECT_EQ(a.getElementAsDouble(huge - 1), 2.5);
  EXPECT_EQ(a.getElementBits(12345), floatBits(2.5f));
  EXPECT_EQ(a.getElementAsInt(7), 2);
  EXPECT_TRUE(a.bitwiseEqual(b));
  EXPECT_FALSE(a.bitwiseEqual(c));
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_NE(a.hash(), c.hash());
  // The size limit applies to the buffer it stands for.
  llvm::Expected<NDArray> over =
      NDArray::splat(DataType::float32(), {huge}, 0, /*maxBytes=*/1 << 20);
  ASSERT_FALSE(bool(over));
  EXPECT_NE(llvm::toString(over.takeError()).find("exceeds the limit"),
            std::string::npos);
  EXPECT_FALSE(bool(NDArray::splat(DataType::float32(), {-1}, 0)));
}

TEST(NDArrayTest, SplatFillsItsBufferOnDemand) {
  // 105 int16 elements: the doubling fill ends with a partial copy.
  NDArray a = llvm::cantFail(NDArray::splat(DataType::int16(), {3, 5, 7}, 0xfffe));
  const auto *data = static_cast<const int16_t *>(a.getData());
  for (int64_t i = 0; i < a.getNumElements(); ++i)
    ASSERT_EQ(data[i], -2) << "element " << i;
  EXPECT_EQ(a.getData(), data); // Filled once.
  EXPECT_TRUE(a.isSplat());

  // Equal to a dense array of the same elements, and hashed alike.
  NDArray dense = llvm::cantFail(NDArray::create(DataType::int16(), {3, 5, 7}));
  for (int64_t i = 0; i < dense.getNumElements(); ++i)
    dense.setElementFromInt(i, -2);
  EXPECT_FALSE(dense.isSplat());
  EXPECT_TRUE(dense.isRepeated());
  NDArray fresh = llvm::cantFail(NDArray::splat(DataType::int16(), {3, 5, 7}, 0xfffe));
  EXPECT_TRUE(fresh.bitwiseEqual(dense));
  EXPECT_TRUE(dense.bitwiseEqual(fresh));
  EXPECT_EQ(fresh.hash(), dense.hash());
  dense.setElementFromInt(104, 0);
  EXPECT_FALSE(dense.isRepeated());
  EXPECT_FALSE(fresh.bitwiseEqual(dense));
  EXPECT_FALSE(dense.bitwiseEqual(fresh));
  // Another shape or dtype is never equal.
  NDArray flat = llvm::cantFail(NDArray::splat(DataType::int16(), {105}, 0xfffe));
  EXPECT_FALSE(flat.bitwiseEqual(fresh));
}

TEST(NDArrayTest, WritingASplatMakesItDense) {
  NDArray a = llvm::cantFail(
      NDArray::splat(DataType::float32(), {2, 3}, floatBits(1.5f)));
  a.setElementFromDouble(4, 7);
  EXPECT_FALSE(a.isSplat());
  EXPECT_FALSE(a.isRepeated());
  EXPECT_EQ(a.getElementAsDouble(3), 1.5);
  EXPECT_EQ(a.getElementAsDouble(4), 7.0);
  EXPECT_EQ(a.getElementAsDouble(5), 1.5);
}

TEST(NDArrayTest, SplatOfFewerThanTwoElementsIsDense) {
  NDArray one = llvm::cantFail(NDArray::splat(DataType::int8(), {1, 1}, 0x85));
  EXPECT_FALSE(one.isSplat());
  EXPECT_FALSE(one.isRepeated());
  EXPECT_EQ(one.getElementAsInt(0), -123);
  NDArray none = llvm::cantFail(NDArray::splat(DataType::int8(), {0, 4}, 1));
  EXPECT_FALSE(none.isSplat());
  EXPECT_EQ(none.getByteSize(), 0u);
  NDArray scalar = llvm::cantFail(NDArray::splat(DataType::float64(), {}, 0));
  EXPECT_EQ(scalar.getNumElements(), 1);
  EXPECT_EQ(scalar.getElementAsDouble(0), 0.0);
}

TEST(NDArrayTest, SaveMatchesTVMBytes) {
  // The (1, 3) float32 ones tensor of TVM's metadata example.
  NDArray ones = llvm::cantFail(NDArray::create(DataType::float32(), {1, 3}));
  for (int64_t i = 0; i < 3; ++i)
    ones.setElementFromDouble(i, 1.0);
  std::string blob = ones.save();
  EXPECT_EQ(blob.size(), 68u); // 32 header + 2 dims + size + 12 data
  EXPECT_EQ(llvm::encodeBase64(blob),
            "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQABAAAAAAAAAAMAAAAAAAAADAAA"
            "AAAAAAAAAIA/AACAPwAAgD8=");
}

TEST(NDArrayTest, SaveHeaderLayout) {
  NDArray b = patterned(DataType::boolean(), {5});
  std::string blob = b.save();
  ASSERT_EQ(blob.size(), 32u + 8 + 8 + 5);
  const char *p = blob.data();
  using namespace llvm::support::endian;
  EXPECT_EQ(read64le(p), 0xDD5E40F096B4A13FULL);
  EXPECT_EQ(read64le(p + 8), 0u);
  EXPECT_EQ(read32le(p + 16), 1u); // kDLCPU
  EXPECT_EQ(read32le(p + 20), 0u);
  EXPECT_EQ(read32le(p + 24), 1u); // ndim
  EXPECT_EQ(static_cast<uint8_t>(p[28]), 1); // bool is uint1
  EXPECT_EQ(static_cast<uint8_t>(p[29]), 1);
  EXPECT_EQ(read16le(p + 30), 1u);
  EXPECT_EQ(read64le(p + 32), 5u);
  EXPECT_EQ(read64le(p + 40), 5u); // data bytes
  EXPECT_EQ(blob.substr(48), std::string("\0\1\0\1\0", 5));
}

TEST(NDArrayTest, LoadRoundTripEveryDType) {
  const std::vector<int64_t> shapes[] = {{}, {0}, {3}, {2, 0, 4}, {2, 3, 4}};
  for (const char *name : kAllDTypeNames) {
    for (const std::vector<int64_t> &shape : shapes) {
      SCOPED_TRACE(std::string(name) + " rank " +
                   std::to_string(shape.size()));
      NDArray a = patterned(*DataType::parse(name), shape);
      llvm::Expected<NDArray> b = NDArray::load(a.save());
      ASSERT_TRUE(bool(b)) << llvm::toString(b.takeError());
      EXPECT_TRUE(a.bitwiseEqual(*b));
      EXPECT_FALSE(a.sameAs(*b));
      EXPECT_TRUE(isAligned(b->getData()));
      EXPECT_EQ(b->save(), a.save());
    }
  }
}

TEST(NDArrayTest, LoadTruncatedAtEveryPrefixFails) {
  for (NDArray a : {patterned(DataType::float32(), {2, 3}),
                    patterned(DataType::int8(), {}),
                    patterned(DataType::float16(), {0})}) {
    std::string blob = a.save();
    for (size_t n = 0; n < blob.size(); ++n) {
      llvm::Expected<NDArray> b = NDArray::load(llvm::StringRef(blob).take_front(n));
      ASSERT_FALSE(bool(b)) << "prefix of " << n << " bytes";
      EXPECT_NE(llvm::toString(b.takeError()).find("truncated"),
                std::string::npos)
          << "prefix of " << n << " bytes";
    }
  }
}

/// A valid (2, 3) float32 blob with a 32-bit field at \p offset replaced.
std::string withField32(size_t offset, uint32_t value) {
  std::string blob = patterned(DataType::float32(), {2, 3}).save();
  llvm::support::endian::write32le(&blob[offset], value);
  return blob;
}

/// A valid (2, 3) float32 blob with a 64-bit field at \p offset replaced.
std::string withField64(size_t offset, uint64_t value) {
  std::string blob = patterned(DataType::float32(), {2, 3}).save();
  llvm::support::endian::write64le(&blob[offset], value);
  return blob;
}

TEST(NDArrayTest, LoadErrors) {
  EXPECT_EQ(errorOf(NDArray::load(withField64(0, 0x1234))),
            "invalid tensor data: bad magic number");
  EXPECT_EQ(errorOf(NDArray::load(withField32(16, 2))),
            "invalid tensor data: device type 2 is not CPU");
  EXPECT_EQ(errorOf(NDArray::load(withField32(24, uint32_t(-1)))),
            "invalid tensor data: rank -1");
  EXPECT_EQ(errorOf(NDArray::load(withField32(24, 65))),
            "invalid tensor data: rank 65");
  // Rank 3 where the blob holds 2 dims: the data size field is read from
  // the first float, so the sizes disagree (or the data is short).
  EXPECT_FALSE(errorOf(NDArray::load(withField32(24, 3))).empty());

  // Data size field (offset 32 + 2 * 8).
  EXPECT_EQ(errorOf(NDArray::load(withField64(48, 20))),
            "invalid tensor data: 20 data bytes for a tensor of 24 bytes");
  EXPECT_EQ(errorOf(NDArray::load(withField64(48, uint64_t(-24)))),
            "invalid tensor data: -24 data bytes for a tensor of 24 bytes");
  // Negative and overflowing dims.
  EXPECT_NE(errorOf(NDArray::load(withField64(32, uint64_t(-2))))
                .find("negative extent"),
            std::string::npos);
  EXPECT_NE(errorOf(NDArray::load(withField64(32, uint64_t(1) << 62)))
                .find("overflows"),
            std::string::npos);

  // dtype: handle, lanes, bad codes and widths.
  std::string blob = patterned(DataType::float32(), {2, 3}).save();
  for (std::string dtypeBytes :
       {std::string("\3\100\1\0", 4), std::string("\2\40\4\0", 4),
        std::string("\7\10\1\0", 4), std::string("\0\7\1\0", 4),
        std::string("\4\40\1\0", 4), std::string("\1\1\4\0", 4)}) {
    std::string bad = blob;
    bad.replace(28, 4, dtypeBytes);
    EXPECT_NE(errorOf(NDArray::load(bad)).find("unsupported tensor dtype"),
              std::string::npos);
  }

  // Trailing bytes.
  EXPECT_EQ(errorOf(NDArray::load(blob + "xy")),
            "invalid tensor data: 2 trailing bytes");
  // The size limit applies to loads.
  EXPECT_NE(errorOf(NDArray::load(blob, 23)).find("exceeds the limit"),
            std::string::npos);
  EXPECT_TRUE(bool(NDArray::load(blob, 24)));
}

TEST(NDArrayTest, LoadBase64MatchesLoad) {
  // Every dtype and rank (headers of 40 + 8 * rank bytes end at every
  // position of a base64 group), and every corrupt header of LoadErrors:
  // the same array, or the same error, as decoding first and loading; and
  // the same from loadBase64Lazy.
  const std::vector<int64_t> shapes[] = {{}, {0}, {3}, {2, 0, 4}, {2, 3, 4},
                                         {1, 1, 1, 5}, {2, 1, 1, 1, 3}};
  std::vector<std::string> blobs;
  for (const char *name : kAllDTypeNames)
    for (const std::vector<int64_t> &shape : shapes)
      blobs.push_back(patterned(*DataType::parse(name), shape).save());
  for (size_t offset : {0, 16, 24, 32, 48})
    for (uint64_t value : {uint64_t(2), uint64_t(-1), uint64_t(1) << 62})
      blobs.push_back(withField64(offset, value));
  std::string blob = patterned(DataType::float32(), {2, 3}).save();
  blobs.push_back(blob + "xy");
  for (size_t n = 0; n < blob.size(); n += 5)
    blobs.push_back(blob.substr(0, n));
  for (const std::string &bytes : blobs) {
    std::string text = llvm::encodeBase64(bytes);
    SCOPED_TRACE(text);
    llvm::Expected<NDArray> expected = NDArray::load(bytes, 100);
    llvm::Expected<NDArray> actual = NDArray::loadBase64(text, 100);
    llvm::Expected<NDArray> lazy = NDArray::loadBase64Lazy(
        text, std::make_shared<int>(0), /*release=*/{}, 100);
    ASSERT_EQ(bool(expected), bool(actual));
    ASSERT_EQ(bool(expected), bool(lazy));
    if (!expected) {
      std::string message = errorOf(std::move(expected));
      EXPECT_EQ(errorOf(std::move(actual)), message);
      EXPECT_EQ(errorOf(std::move(lazy)), message);
      continue;
    }
    EXPECT_TRUE(actual->bitwiseEqual(*expected));
    EXPECT_TRUE(isAligned(actual->getData()));
    EXPECT_TRUE(lazy->bitwiseEqual(*expected));
    EXPECT_TRUE(isAligned(lazy->getData()));
  }
}

TEST(NDArrayTest, Base64SavedLengthComesFromTheHeader) {
  for (const std::vector<int64_t> &shape :
       {std::vector<int64_t>{}, {0}, {7}, {2, 3, 4}, {1, 1, 1, 1, 1, 5}}) {
    std::string text =
        llvm::encodeBase64(patterned(DataType::float32(), shape).save());
    EXPECT_EQ(NDArray::getBase64SavedLength(text), text.size());
    // Whatever follows the tensor's text is not read.
    EXPECT_EQ(NDArray::getBase64SavedLength(text + "\", \"xyz"), text.size());
  }
  std::string text =
      llvm::encodeBase64(patterned(DataType::float32(), {2, 3}).save());
  // Too short for the header, not base64, or a header load() rejects.
  EXPECT_FALSE(NDArray::getBase64SavedLength(text.substr(0, 40)));
  EXPECT_FALSE(NDArray::getBase64SavedLength("\"" + text));
  EXPECT_FALSE(NDArray::getBase64SavedLength(
      llvm::encodeBase64(withField64(0, 0x1234))));
  EXPECT_FALSE(NDArray::getBase64SavedLength(
      llvm::encodeBase64(withField32(24, 65))));
  EXPECT_FALSE(NDArray::getBase64SavedLength(
      llvm::encodeBase64(withField64(48, uint64_t(-24)))));
}

TEST(NDArrayTest, LoadBase64Errors) {
  std::string text =
      llvm::encodeBase64(patterned(DataType::float32(), {2, 3}).save());
  // Not base64: llvm's message, before what the header says.
  std::string bad = text;
  bad[60] = '!';
  EXPECT_EQ(errorOf(NDArray::loadBase64(bad)),
            "invalid base64: Invalid Base64 character 0x21 at index 60");
  std::string badMagic = llvm::encodeBase64(withField64(0, 0x1234));
  badMagic[60] = '!';
  EXPECT_EQ(errorOf(NDArray::loadBase64(badMagic)),
            "invalid base64: Invalid Base64 character 0x21 at index 60");
  EXPECT_NE(errorOf(NDArray::loadBase64(text.substr(1))).find("invalid base64"),
            std::string::npos);
  // The size limit.
  EXPECT_NE(errorOf(NDArray::loadBase64(text, 23)).find("exceeds the limit"),
            std::string::npos);
  EXPECT_TRUE(bool(NDArray::loadBase64(text, 24)));
}

//===----------------------------------------------------------------------===//
// Lazy saved arrays
//===----------------------------------------------------------------------===//

/// What the release function of a lazy array was called with.
struct ReleaseLog {
  std::mutex mutex;
  std::vector<std::string> texts;
  NDArray::TextRelease function() {
    return [this](llvm::StringRef text) {
      std::lock_guard<std::mutex> lock(mutex);
      texts.push_back(text.str());
    };
  }
};

/// What writeSavedBase64 writes, or "<false>" when it returns false.
std::string savedText(const NDArray &array) {
  std::string out;
  llvm::raw_string_ostream os(out);
  if (!array.writeSavedBase64(os))
    return out.empty() ? "<false>" : "<false, but wrote " + out + ">";
  return out;
}

TEST(NDArrayTest, LazyArrayDecodesOnlyWhenItsBytesAreNeeded) {
  NDArray eager = patterned(DataType::float32(), {2, 3, 4});
  std::string text = llvm::encodeBase64(eager.save());
  auto owner = std::make_shared<int>(0);
  std::weak_ptr<int> watch = owner;
  ReleaseLog log;
  NDArray lazy = llvm::cantFail(
      NDArray::loadBase64Lazy(text, std::move(owner), log.function()));
  // The type, without a decode: nothing released, the owner held.
  EXPECT_EQ(lazy.getDType(), DataType::float32());
  EXPECT_EQ(lazy.getShape(), llvm::ArrayRef<int64_t>({2, 3, 4}));
  EXPECT_EQ(lazy.getNumElements(), 24);
  EXPECT_EQ(lazy.getByteSize(), 96u);
  EXPECT_FALSE(lazy.isSplat());
  EXPECT_FALSE(lazy.isRepeated());
  EXPECT_TRUE(log.texts.empty());
  EXPECT_FALSE(watch.expired());
  // Printing copies the text, and releases what it copied.
  EXPECT_EQ(savedText(lazy), text);
  EXPECT_EQ(log.texts, std::vector<std::string>{text});
  log.texts.clear();
  // The first read decodes, releases the text and drops the owner.
  EXPECT_EQ(lazy.getBytes(), eager.getBytes());
  EXPECT_TRUE(isAligned(lazy.getData()));
  EXPECT_EQ(log.texts, std::vector<std::string>{text});
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(savedText(lazy), "<false>");
  EXPECT_TRUE(lazy.bitwiseEqual(eager));
  EXPECT_EQ(lazy.hash(), eager.hash());
  EXPECT_EQ(lazy.save(), eager.save());
  EXPECT_EQ(lazy.getIdentity(), NDArray(lazy).getIdentity());
  EXPECT_NE(lazy.getIdentity(), eager.getIdentity());
}

TEST(NDArrayTest, LazyArrayDecodesForEveryReader) {
  NDArray eager = patterned(DataType::int16(), {5});
  std::string text = llvm::encodeBase64(eager.save());
  auto load = [&] {
    return llvm::cantFail(
        NDArray::loadBase64Lazy(text, std::make_shared<int>(0)));
  };
  NDArray a = load();
  EXPECT_EQ(a.getElementAsInt(3), eager.getElementAsInt(3));
  EXPECT_EQ(savedText(a), "<false>");
  NDArray b = load();
  EXPECT_EQ(b.hash(), eager.hash());
  EXPECT_EQ(savedText(b), "<false>");
  NDArray c = load();
  EXPECT_TRUE(c.bitwiseEqual(eager));
  EXPECT_EQ(savedText(c), "<false>");
  // Written through: the text no longer stands for it.
  NDArray d = load();
  d.setElementFromInt(0, 7);
  EXPECT_EQ(savedText(d), "<false>");
  EXPECT_EQ(d.getElementAsInt(0), 7);
}

TEST(NDArrayTest, LazyArrayFindsRepeatedElementsFromItsText) {
  // Larger than one piece of the text scan (16 KiB), the last element
  // different or not.
  for (int64_t n : {int64_t(2), int64_t(3), int64_t(5000), int64_t(20000)}) {
    for (bool lastDiffers : {false, true}) {
      NDArray eager = llvm::cantFail(NDArray::create(DataType::int32(), {n}));
      for (int64_t i = 0; i < n; ++i)
        eager.setElementFromInt(i, 42);
      if (lastDiffers)
        eager.setElementFromInt(n - 1, 41);
      std::string text = llvm::encodeBase64(eager.save());
      NDArray lazy = llvm::cantFail(
          NDArray::loadBase64Lazy(text, std::make_shared<int>(0)));
      EXPECT_EQ(lazy.isRepeated(), !lastDiffers) << n;
      EXPECT_NE(savedText(lazy), "<false>") << "decoded to answer";
      EXPECT_EQ(lazy.hash(), eager.hash()) << n << " " << lastDiffers;
    }
  }
}

TEST(NDArrayTest, LazyLoadChecksTheWholeTextAtOnce) {
  NDArray eager = patterned(DataType::float32(), {2, 3});
  std::string text = llvm::encodeBase64(eager.save());
  auto owner = std::make_shared<int>(0);
  auto lazyError = [&](const std::string &bad) {
    return errorOf(NDArray::loadBase64Lazy(bad, owner));
  };
  // A bad character in the middle of the data, a wrong length, padding in
  // the middle: loadBase64's errors, at creation.
  for (size_t at : {size_t(60), size_t(70), text.size() - 2}) {
    std::string bad = text;
    bad[at] = '!';
    EXPECT_EQ(lazyError(bad), errorOf(NDArray::loadBase64(bad))) << at;
    EXPECT_NE(lazyError(bad).find("invalid base64"), std::string::npos);
  }
  EXPECT_NE(lazyError(text.substr(0, text.size() - 4)).find("truncated"),
            std::string::npos);
  EXPECT_NE(lazyError(text.substr(0, text.size() - 1)).find("invalid base64"),
            std::string::npos);
  std::string midPadding = text;
  midPadding[66] = '=';
  EXPECT_NE(lazyError(midPadding).find("invalid base64"), std::string::npos);
  // The header's errors and the size limit, as loadBase64 gives them.
  std::string badMagic = llvm::encodeBase64(withField64(0, 0x1234));
  EXPECT_EQ(lazyError(badMagic), "invalid tensor data: bad magic number");
  EXPECT_EQ(errorOf(NDArray::loadBase64Lazy(text, owner, {}, 23)),
            errorOf(NDArray::loadBase64(text, 23)));
  EXPECT_NE(errorOf(NDArray::loadBase64Lazy(text, owner, {}, 23))
                .find("exceeds the limit"),
            std::string::npos);
}

TEST(NDArrayTest, LazyLoadOfTextThePrinterWouldNotWriteIsEager) {
  // 24 bytes of data + 56 of header: 80 bytes, a last group with one '='
  // whose two unused bits llvm's decoder ignores but the printer writes as
  // zero.
  NDArray eager = patterned(DataType::float32(), {2, 3});
  std::string text = llvm::encodeBase64(eager.save());
  ASSERT_EQ(text.substr(text.size() - 2), "g=");
  std::string nonCanonical = text;
  nonCanonical[text.size() - 2] = 'h';
  llvm::Expected<NDArray> a =
      NDArray::loadBase64Lazy(nonCanonical, std::make_shared<int>(0));
  ASSERT_TRUE(bool(a)) << errorOf(std::move(a));
  EXPECT_EQ(savedText(*a), "<false>");
  EXPECT_TRUE(a->bitwiseEqual(eager));
  // A header with fields the printer writes as zero (reserved, device id).
  for (const std::string &blob : {withField64(8, 5), withField32(20, 3)}) {
    // Decoded at once: the text may go.
    llvm::Expected<NDArray> b = NDArray::loadBase64Lazy(
        llvm::encodeBase64(blob), std::make_shared<int>(0));
    ASSERT_TRUE(bool(b)) << errorOf(std::move(b));
    EXPECT_EQ(savedText(*b), "<false>");
    EXPECT_TRUE(b->bitwiseEqual(eager));
  }
  // No owner: nothing keeps the text, so it is decoded now.
  NDArray c = llvm::cantFail(NDArray::loadBase64Lazy(text, nullptr));
  EXPECT_EQ(savedText(c), "<false>");
  EXPECT_TRUE(c.bitwiseEqual(eager));
}

TEST(NDArrayTest, LazyArrayDecodesOnceAcrossThreads) {
  NDArray eager = patterned(DataType::float32(), {64, 1024});
  std::string text = llvm::encodeBase64(eager.save());
  for (int round = 0; round < 4; ++round) {
    ReleaseLog log;
    NDArray lazy = llvm::cantFail(NDArray::loadBase64Lazy(
        text, std::make_shared<int>(0), log.function()));
    std::vector<std::thread> threads;
    std::vector<int> results(8, -1);
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        if (t % 2) {
          results[t] = lazy.getBytes() == eager.getBytes();
          return;
        }
        std::string saved = savedText(lazy);
        results[t] = saved == text || saved == "<false>";
      });
    for (std::thread &thread : threads)
      thread.join();
    for (int t = 0; t < 8; ++t)
      EXPECT_EQ(results[t], 1) << t;
    EXPECT_EQ(savedText(lazy), "<false>");
    // One decode released the whole text; writes released their pieces.
    EXPECT_EQ(llvm::count(log.texts, text) >= 1, true);
  }
}

TEST(NDArrayTest, LoadNeverCrashesOnCorruptHeaders) {
  // Flip every bit of the header of a small blob: each load either fails
  // cleanly or yields an array that saves back to the same bytes.
  std::string blob = patterned(DataType::int16(), {2, 2}).save();
  for (size_t byte = 0; byte < 56; ++byte) {
    for (unsigned bit = 0; bit < 8; ++bit) {
      std::string bad = blob;
      bad[byte] = static_cast<char>(bad[byte] ^ (1u << bit));
      llvm::Expected<NDArray> a = NDArray::load(bad);
      if (a)
        EXPECT_EQ(a->save().size(), bad.size());
      else
        llvm::consumeError(a.takeError());
    }
  }
}

} // namespace
