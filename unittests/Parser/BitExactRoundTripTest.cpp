//===- BitExactRoundTripTest.cpp - Print -> parse is bitwise exact --------===//
//
/// \file
/// The property behind the text format's numbers: whatever bits a value has,
/// printing it and parsing the text gives the same bits back. Bit patterns
/// are drawn for every dtype (zeros of both signs, subnormals, the extremes,
/// infinities, NaNs with every sign and many payloads, signalling ones
/// included, and random patterns from a fixed seed) and checked as
///   - scalar literals (0-d constants),
///   - attributes (typed float64 fields, and function attributes of every
///     literal type),
///   - inline constants (`dense<...>`, splats and empty tensors included),
///   - metadata constants,
/// under every print option: with and without types and the version header,
/// and with the inline limits -1 (all inline), 0 (TVM syntax: everything
/// without a TVM literal, NaN scalars too, goes to the metadata section),
/// 1 and 16. The counts of checked values are printed.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Printer.h"
#include "nnir/Ops/ElementwiseAttrs.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Parser/Parser.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <random>
#include <string>
#include <vector>

using namespace llvm;
using namespace nnir;

namespace {

/// Every dtype nnir supports.
const DataType kDTypes[] = {
    DataType::boolean(), DataType::int8(),     DataType::int16(),
    DataType::int32(),   DataType::int64(),    DataType::uint8(),
    DataType::uint16(),  DataType::uint32(),   DataType::uint64(),
    DataType::float16(), DataType::bfloat16(), DataType::float32(),
    DataType::float64()};

/// Random patterns drawn per dtype, on top of the special ones.
constexpr unsigned kRandomPatterns = 300;

/// Bit patterns for \p dtype: the special values, then random ones.
std::vector<uint64_t> getPatterns(DataType dtype, std::mt19937_64 &rng) {
  std::vector<uint64_t> patterns;
  if (dtype.isBool())
    return {0, 1};
  unsigned bits = dtype.getStorageBytes() * 8;
  uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  uint64_t signBit = uint64_t(1) << (bits - 1);
  if (const fltSemantics *sem = dtype.getFloatSemantics()) {
    unsigned mantBits = APFloat::semanticsPrecision(*sem) - 1;
    uint64_t mantMask = (uint64_t(1) << mantBits) - 1;
    uint64_t expMask = (signBit - 1) & ~mantMask;
    uint64_t quiet = uint64_t(1) << (mantBits - 1);
    uint64_t one = APFloat::getOne(*sem).bitcastToAPInt().getZExtValue();
    for (uint64_t sign : {uint64_t(0), signBit}) {
      for (uint64_t magnitude :
           {uint64_t(0),                // zero
            uint64_t(1),                // smallest subnormal
            mantMask,                   // largest subnormal
            mantMask + 1,               // smallest normal
            expMask - 1,                // largest finite
            one, expMask,               // 1, infinity
            expMask | quiet,            // the default quiet NaN
            expMask | 1,                // signalling NaN, payload 1
            expMask | mantMask,         // every significand bit
            expMask | quiet | 1,        // quiet NaN with a payload
            expMask | (mantMask >> 1)}) // signalling, every payload bit
        patterns.push_back(sign | magnitude);
      for (unsigned i = 0; i < 8; ++i) // NaNs with random payloads.
        patterns.push_back(sign | expMask |
                           std::max<uint64_t>(rng() & mantMask, 1));
    }
  } else {
    patterns = {0, 1, mask, signBit, signBit - 1, mask - 1};
  }
  for (unsigned i = 0; i < kRandomPatterns; ++i)
    patterns.push_back(rng() & mask);
  return patterns;
}

/// Every print option that produces text the parser reads.
std::vector<PrintOptions> getPrintOptions() {
  std::vector<PrintOptions> all;
  for (bool showTypes : {false, true})
    for (bool printVersion : {true, false})
      for (int64_t limit : {-1, 0, 1, 16}) {
        PrintOptions options;
        options.showTypes = showTypes;
        options.printVersion = printVersion;
        options.inlineConstantLimit = limit;
        all.push_back(options);
      }
  return all;
}

class BitExactRoundTripTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { registerAllOps(); }

  /// Prints \p module with \p options and parses the text back.
  Ref<IRModule> roundTrip(const IRModule &module, const PrintOptions &options) {
    std::string text = toString(module, options);
    Expected<Ref<IRModule>> parsed = parseModule(text, sm, "printed");
    if (!parsed) {
      std::string message;
      raw_string_ostream os(message);
      printErrors(parsed.takeError(), sm, "test", os);
      ADD_FAILURE() << message;
      return nullptr;
    }
    return *parsed;
  }

  /// The body of @main, a tuple.
  static const Tuple *getResultTuple(const IRModule &module) {
    const Function *main = module.lookup("main");
    return main ? dyn_cast<Tuple>(main->getBody().get()) : nullptr;
  }

  SourceMgr sm;
  std::mt19937_64 rng{20250301};
};

/// Describes the bits of element \p index for a failure message.
std::string describe(const NDArray &array, int64_t index) {
  return array.getDType().str() + " 0x" +
         utohexstr(array.getElementBits(index));
}

/// Expects \p got to hold \p want's dtype, shape and bits; counts the
/// elements compared.
void expectSameBits(const Constant *want, const Expr *got, unsigned &count) {
  const auto *constant = dyn_cast_or_null<Constant>(got);
  ASSERT_TRUE(constant) << "not a constant";
  const NDArray &a = want->getData(), &b = constant->getData();
  ASSERT_EQ(a.getDType(), b.getDType());
  ASSERT_EQ(a.getShape(), b.getShape());
  for (int64_t i = 0, e = a.getNumElements(); i != e; ++i)
    EXPECT_EQ(a.getElementBits(i), b.getElementBits(i))
        << describe(a, i) << " read back as " << describe(b, i);
  count += std::max<int64_t>(a.getNumElements(), 1);
}

TEST_F(BitExactRoundTripTest, ScalarAndInlineAndMetadataConstants) {
  unsigned scalars = 0, tensors = 0;
  std::vector<PrintOptions> allOptions = getPrintOptions();
  for (DataType dtype : kDTypes) {
    std::vector<uint64_t> patterns = getPatterns(dtype, rng);
    // One module per dtype: every pattern as a 0-d constant, then tensors
    // of up to 20 patterns (inline under the limit 16, metadata above it),
    // a splat and an empty tensor.
    std::vector<Ref<Expr>> fields;
    for (uint64_t bits : patterns) {
      NDArray scalar = cantFail(NDArray::create(dtype, {}));
      scalar.setElementBits(0, bits);
      fields.push_back(Constant::get(std::move(scalar)));
    }
    size_t numScalars = fields.size();
    for (size_t begin = 0; begin < patterns.size(); begin += 20) {
      int64_t n = std::min<size_t>(20, patterns.size() - begin);
      NDArray tensor = cantFail(NDArray::create(dtype, {n}));
      for (int64_t i = 0; i != n; ++i)
        tensor.setElementBits(i, patterns[begin + i]);
      fields.push_back(Constant::get(std::move(tensor)));
    }
    NDArray splat = cantFail(NDArray::create(dtype, {2, 3}));
    for (int64_t i = 0; i != 6; ++i)
      splat.setElementBits(i, patterns[patterns.size() / 2]);
    fields.push_back(Constant::get(std::move(splat)));
    fields.push_back(Constant::get(cantFail(NDArray::create(dtype, {0}))));

    Ref<IRModule> module = IRModule::create();
    module->addOrUpdate("main", Function::get({}, Tuple::get(fields)));
    for (const PrintOptions &options : allOptions) {
      SCOPED_TRACE(dtype.str() + ", limit " +
                   std::to_string(options.inlineConstantLimit) +
                   (options.showTypes ? ", types" : ""));
      Ref<IRModule> parsed = roundTrip(*module, options);
      ASSERT_TRUE(parsed);
      const Tuple *tuple = getResultTuple(*parsed);
      ASSERT_TRUE(tuple);
      ASSERT_EQ(tuple->size(), fields.size());
      for (size_t i = 0; i != fields.size(); ++i)
        expectSameBits(cast<Constant>(fields[i].get()),
                       tuple->getField(i).get(),
                       i < numScalars ? scalars : tensors);
    }
  }
  outs() << "bit-exact round trip: " << scalars << " scalar constants, "
         << tensors << " tensor elements (inline and metadata)\n";
  EXPECT_GT(scalars, 50000u);
}

TEST_F(BitExactRoundTripTest, Attributes) {
  unsigned typedFields = 0, dictValues = 0;
  Op *clip = Op::lookup("clip");
  ASSERT_TRUE(clip);
  Ref<Var> x = Var::get("x", TensorType::get({2}, DataType::float32()));

  // Typed float64 fields take any double: float64 patterns, and float32 and
  // float16 ones widened (NaN payloads included).
  std::vector<double> doubles;
  for (DataType dtype :
       {DataType::float64(), DataType::float32(), DataType::float16()})
    for (uint64_t bits : getPatterns(dtype, rng))
      doubles.push_back(widenToDouble(*dtype.getFloatSemantics(), bits));
  std::vector<Ref<Expr>> calls;
  for (size_t i = 0; i + 1 < doubles.size(); i += 2) {
    Ref<ClipAttrs> attrs = ClipAttrs::create();
    attrs->aMin = doubles[i];
    attrs->aMax = doubles[i + 1];
    calls.push_back(Call::get(clip, {x}, attrs));
  }

  // Function attributes: floats under each suffix type, integers of each
  // literal width, bools.
  std::vector<NamedAttrValue> entries;
  for (DataType dtype :
       {DataType::float16(), DataType::float32(), DataType::float64()}) {
    const fltSemantics &sem = *dtype.getFloatSemantics();
    for (uint64_t bits : getPatterns(dtype, rng))
      entries.push_back({"a" + std::to_string(entries.size()),
                         AttrValue::floating(widenToDouble(sem, bits), dtype),
                         {}});
    for (uint64_t bits : getPatterns(DataType::float64(), rng))
      entries.push_back({"a" + std::to_string(entries.size()),
                         AttrValue::floating(getDoubleFromBits(bits), dtype),
                         {}});
  }
  for (DataType dtype :
       {DataType::int16(), DataType::int32(), DataType::int64()})
    for (uint64_t bits : getPatterns(dtype, rng)) {
      unsigned width = dtype.getBits();
      int64_t value = int64_t(bits << (64 - width)) >> (64 - width);
      entries.push_back({"a" + std::to_string(entries.size()),
                         AttrValue::integer(value, dtype),
                         {}});
    }
  for (bool b : {false, true})
    entries.push_back(
        {"a" + std::to_string(entries.size()), AttrValue::boolean(b), {}});

  Ref<IRModule> module = IRModule::create();
  module->addOrUpdate("main", Function::get({x}, Tuple::get(calls), nullptr,
                                            DictAttrs::get(entries)));
  for (const PrintOptions &options : getPrintOptions()) {
    Ref<IRModule> parsed = roundTrip(*module, options);
    ASSERT_TRUE(parsed);
    const Function *main = parsed->lookup("main");
    const Tuple *tuple = getResultTuple(*parsed);
    ASSERT_TRUE(tuple);
    ASSERT_EQ(tuple->size(), calls.size());
    for (size_t i = 0; i != calls.size(); ++i) {
      const auto *want = static_cast<const ClipAttrs *>(
          cast<Call>(calls[i].get())->getAttrs().get());
      const auto *call = dyn_cast<Call>(tuple->getField(i).get());
      ASSERT_TRUE(call && call->getAttrs());
      ASSERT_EQ(call->getAttrs()->getTypeKey(), ClipAttrs::typeKey);
      const auto *got = static_cast<const ClipAttrs *>(call->getAttrs().get());
      EXPECT_EQ(getDoubleBits(want->aMin), getDoubleBits(got->aMin))
          << formatDouble(want->aMin) << " read back as "
          << formatDouble(got->aMin);
      EXPECT_EQ(getDoubleBits(want->aMax), getDoubleBits(got->aMax))
          << formatDouble(want->aMax) << " read back as "
          << formatDouble(got->aMax);
      typedFields += 2;
    }
    ASSERT_TRUE(main->getAttrs());
    ArrayRef<NamedAttrValue> got = main->getAttrs()->getEntries();
    ASSERT_EQ(got.size(), entries.size());
    for (size_t i = 0; i != entries.size(); ++i) {
      const AttrValue &a = entries[i].value, &b = got[i].value;
      ASSERT_EQ(got[i].name, entries[i].name);
      ASSERT_EQ(a.getKind(), b.getKind()) << entries[i].name;
      if (a.getKind() == AttrValue::Kind::Float)
        EXPECT_EQ(getDoubleBits(a.getFloat()), getDoubleBits(b.getFloat()))
            << a.getDType().str() << " " << formatDouble(a.getFloat())
            << " read back as " << formatDouble(b.getFloat());
      else
        EXPECT_EQ(a.getInt(), b.getInt());
      ++dictValues;
    }
  }
  outs() << "bit-exact round trip: " << typedFields
         << " typed float64 attribute fields, " << dictValues
         << " function attribute values\n";
  EXPECT_GT(typedFields, 10000u);
}

} // namespace
