//===- DataTypeTest.cpp - Tests of DataType --------------------------------===//
//
/// \file
/// DataType names (parse and str round trip for every supported dtype, TVM's
/// aliases, rejected names), TVM's type codes, storage sizes and predicates.
//
//===----------------------------------------------------------------------===//

#include "nnir/Runtime/DataType.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <iterator>
#include <string>

using namespace llvm;
using namespace nnir;

namespace {

/// One supported dtype and what we expect of it.
struct DTypeCase {
  const char *name;
  DataType::Code code;
  unsigned bits;
  unsigned storageBytes;
};

const DTypeCase kAllDTypes[] = {
    {"bool", DataType::UInt, 1, 1},      {"int8", DataType::Int, 8, 1},
    {"int16", DataType::Int, 16, 2},     {"int32", DataType::Int, 32, 4},
    {"int64", DataType::Int, 64, 8},     {"uint8", DataType::UInt, 8, 1},
    {"uint16", DataType::UInt, 16, 2},   {"uint32", DataType::UInt, 32, 4},
    {"uint64", DataType::UInt, 64, 8},   {"float16", DataType::Float, 16, 2},
    {"bfloat16", DataType::BFloat, 16, 2}, {"float32", DataType::Float, 32, 4},
    {"float64", DataType::Float, 64, 8},
};

TEST(DataTypeTest, ParseAndPrintEverySupportedDType) {
  for (const DTypeCase &c : kAllDTypes) {
    SCOPED_TRACE(c.name);
    std::optional<DataType> t = DataType::parse(c.name);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->getCode(), c.code);
    EXPECT_EQ(t->getBits(), c.bits);
    EXPECT_EQ(t->getLanes(), 1u);
    EXPECT_EQ(t->getStorageBytes(), c.storageBytes);
    EXPECT_EQ(t->str(), c.name);
    EXPECT_FALSE(t->isVoid());
    // The name is listed for diagnostics.
    EXPECT_NE(DataType::supportedNames().find(c.name), llvm::StringRef::npos);

    std::string printed;
    llvm::raw_string_ostream os(printed);
    os << *t;
    EXPECT_EQ(os.str(), c.name);
  }
}

TEST(DataTypeTest, NamedConstructorsMatchParse) {
  EXPECT_EQ(DataType::parse("bool"), DataType::boolean());
  EXPECT_EQ(DataType::parse("int8"), DataType::int8());
  EXPECT_EQ(DataType::parse("int16"), DataType::int16());
  EXPECT_EQ(DataType::parse("int32"), DataType::int32());
  EXPECT_EQ(DataType::parse("int64"), DataType::int64());
  EXPECT_EQ(DataType::parse("uint8"), DataType::uint8());
  EXPECT_EQ(DataType::parse("uint16"), DataType::uint16());
  EXPECT_EQ(DataType::parse("uint32"), DataType::uint32());
  EXPECT_EQ(DataType::parse("uint64"), DataType::uint64());
  EXPECT_EQ(DataType::parse("float16"), DataType::float16());
  EXPECT_EQ(DataType::parse("bfloat16"), DataType::bfloat16());
  EXPECT_EQ(DataType::parse("float32"), DataType::float32());
  EXPECT_EQ(DataType::parse("float64"), DataType::float64());
}

TEST(DataTypeTest, TVMAliasesMeanThe32BitTypes) {
  EXPECT_EQ(DataType::parse("int"), DataType::int32());
  EXPECT_EQ(DataType::parse("float"), DataType::float32());
  // The canonical name is printed, not the alias.
  EXPECT_EQ(DataType::parse("int")->str(), "int32");
  EXPECT_EQ(DataType::parse("float")->str(), "float32");
}

TEST(DataTypeTest, RejectsUnsupportedNames) {
  for (const char *name :
       {"int8x4", "float16x4", "uint1x4", "foo", "", "Float32", "float32 ",
        " int8", "uint1", "uint", "int4", "float8", "bfloat32", "handle",
        "e4m3_float8", "e5m2_float8", "void", "boolean", "int32x1"}) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(DataType::parse(name).has_value());
  }
}

TEST(DataTypeTest, TypeCodesAreTVMs) {
  // These numbers are stored in TVM's NDArray binary format.
  EXPECT_EQ(DataType::Int, 0);
  EXPECT_EQ(DataType::UInt, 1);
  EXPECT_EQ(DataType::Float, 2);
  EXPECT_EQ(DataType::Handle, 3);
  EXPECT_EQ(DataType::BFloat, 4);
  // bool is uint1, as in TVM.
  EXPECT_EQ(DataType::boolean(), DataType(DataType::UInt, 1));
}

TEST(DataTypeTest, VoidIsTheDefault) {
  DataType t;
  EXPECT_TRUE(t.isVoid());
  EXPECT_EQ(t.str(), "");
  EXPECT_NE(t, DataType::int32());
  EXPECT_FALSE(DataType::boolean().isVoid());
}

TEST(DataTypeTest, VectorTypesPrintWithLanes) {
  EXPECT_EQ(DataType(DataType::Float, 16, 4).str(), "float16x4");
  EXPECT_EQ(DataType(DataType::Int, 8, 4).str(), "int8x4");
  EXPECT_NE(DataType(DataType::Int, 8, 4), DataType::int8());
  // A vector of uint1 is not bool (TVM prints "bool" only for one lane).
  EXPECT_EQ(DataType(DataType::UInt, 1, 4).str(), "uint1x4");
  EXPECT_FALSE(DataType::parse(DataType(DataType::UInt, 1, 4).str()));
}

TEST(DataTypeTest, Predicates) {
  DataType b = DataType::boolean();
  EXPECT_TRUE(b.isBool());
  EXPECT_FALSE(b.isUInt());
  EXPECT_FALSE(b.isInteger());
  EXPECT_FALSE(b.isFloatingPoint());

  EXPECT_TRUE(DataType::int8().isInt());
  EXPECT_TRUE(DataType::int8().isInteger());
  EXPECT_FALSE(DataType::int8().isUInt());
  EXPECT_TRUE(DataType::uint64().isUInt());
  EXPECT_TRUE(DataType::uint64().isInteger());
  EXPECT_FALSE(DataType::uint64().isBool());

  EXPECT_TRUE(DataType::float16().isFloat());
  EXPECT_TRUE(DataType::float16().isFloatingPoint());
  EXPECT_FALSE(DataType::float16().isBFloat());
  EXPECT_TRUE(DataType::bfloat16().isBFloat());
  EXPECT_TRUE(DataType::bfloat16().isFloatingPoint());
  EXPECT_FALSE(DataType::bfloat16().isFloat());
  EXPECT_FALSE(DataType::float64().isInteger());
}

TEST(DataTypeTest, EqualityAndHash) {
  for (const DTypeCase &a : kAllDTypes) {
    for (const DTypeCase &b : kAllDTypes) {
      DataType ta = *DataType::parse(a.name);
      DataType tb = *DataType::parse(b.name);
      bool same = std::string(a.name) == b.name;
      EXPECT_EQ(ta == tb, same) << a.name << " vs " << b.name;
      EXPECT_EQ(ta != tb, !same) << a.name << " vs " << b.name;
      if (same) {
        EXPECT_EQ(hash_value(ta), hash_value(tb));
      }
    }
  }
  // float16 and bfloat16 have the same width but differ in code.
  EXPECT_NE(hash_value(DataType::float16()), hash_value(DataType::bfloat16()));
}

TEST(DataTypeTest, TableListsEverySupportedDTypeOnce) {
  ArrayRef<DataTypeInfo> all = DataType::getAll();
  ASSERT_EQ(all.size(), std::size(kAllDTypes));
  std::string names;
  for (const DataTypeInfo &info : all) {
    EXPECT_EQ(info.type.getInfo(), &info) << info.name.str();
    EXPECT_TRUE(info.type.isSupported());
    EXPECT_EQ(info.type.str(), info.name.str());
    EXPECT_EQ(DataType::parse(info.name), info.type);
    EXPECT_EQ(info.semantics != nullptr, info.type.isFloatingPoint());
    names += (names.empty() ? "" : ", ") + info.name.str();
  }
  EXPECT_EQ(names, DataType::supportedNames());
}

TEST(DataTypeTest, UnsupportedDTypesHaveNoRow) {
  EXPECT_EQ(DataType().getInfo(), nullptr);
  EXPECT_FALSE(DataType(DataType::Int, 8, 4).isSupported());
  EXPECT_FALSE(DataType(DataType::Handle, 64).isSupported());
  EXPECT_FALSE(DataType(DataType::Float, 8).isSupported());
  EXPECT_EQ(DataType(DataType::Float, 8).getFloatSemantics(), nullptr);
  EXPECT_EQ(DataType().getLiteralSuffix(), "");
  EXPECT_EQ(DataType().getPrintedLiteralSuffix(), "");
}

TEST(DataTypeTest, LiteralSuffixes) {
  EXPECT_EQ(DataType::int16().getLiteralSuffix(), "i16");
  EXPECT_EQ(DataType::int32().getLiteralSuffix(), "i32");
  EXPECT_EQ(DataType::int32().getPrintedLiteralSuffix(), "");
  EXPECT_EQ(DataType::int64().getPrintedLiteralSuffix(), "i64");
  EXPECT_EQ(DataType::float16().getPrintedLiteralSuffix(), "f16");
  EXPECT_EQ(DataType::float32().getLiteralSuffix(), "f32");
  EXPECT_EQ(DataType::float32().getPrintedLiteralSuffix(), "f");
  EXPECT_EQ(DataType::float64().getPrintedLiteralSuffix(), "f64");
  // No suffixed literals: bool (True/False), int8, unsigned, bfloat16.
  for (DataType t : {DataType::boolean(), DataType::int8(), DataType::uint16(),
                     DataType::bfloat16()}) {
    EXPECT_EQ(t.getLiteralSuffix(), "") << t.str();
    EXPECT_EQ(t.getPrintedLiteralSuffix(), "") << t.str();
  }

  EXPECT_EQ(DataType::fromLiteralSuffix("i16"), DataType::int16());
  EXPECT_EQ(DataType::fromLiteralSuffix("i32"), DataType::int32());
  EXPECT_EQ(DataType::fromLiteralSuffix("i64"), DataType::int64());
  EXPECT_EQ(DataType::fromLiteralSuffix("f"), DataType::float32());
  EXPECT_EQ(DataType::fromLiteralSuffix("f32"), DataType::float32());
  EXPECT_EQ(DataType::fromLiteralSuffix("f16"), DataType::float16());
  EXPECT_EQ(DataType::fromLiteralSuffix("f64"), DataType::float64());
  EXPECT_EQ(DataType::fromLiteralSuffix(""), std::nullopt);
  EXPECT_EQ(DataType::fromLiteralSuffix("i8"), std::nullopt);
  EXPECT_EQ(DataType::fromLiteralSuffix("u8"), std::nullopt);
  EXPECT_EQ(DataType::fromLiteralSuffix("bf16"), std::nullopt);
}

} // namespace
