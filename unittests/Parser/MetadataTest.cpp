//===- MetadataTest.cpp - Tests of the #[metadata] codec ------------------===//
//
/// \file
/// Checks that encodeMetadata writes TVM's exact JSON (the worked example of
/// the reference), that decodeMetadata reads it back for every dtype and odd
/// shape, and that corrupt sections are descriptive errors.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Metadata.h"

#include "nnir/IR/Expr.h"

#include "llvm/Support/Base64.h"
#include "llvm/Support/JSON.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace llvm;
using namespace nnir;

namespace {

/// The metadata section TVM v0.19 writes for one (1, 3) float32 constant of
/// ones (tvm-text-format-and-ops.md section 1.7), byte for byte.
const char *const kOnesJSON =
    "{\n"
    "  \"root\": 1, \n"
    "  \"nodes\": [\n"
    "    {\n"
    "      \"type_key\": \"\"\n"
    "    }, \n"
    "    {\n"
    "      \"type_key\": \"Map\", \n"
    "      \"keys\": [\n"
    "        \"relay.Constant\"\n"
    "      ], \n"
    "      \"data\": [2]\n"
    "    }, \n"
    "    {\n"
    "      \"type_key\": \"Array\", \n"
    "      \"data\": [3]\n"
    "    }, \n"
    "    {\n"
    "      \"type_key\": \"relay.Constant\", \n"
    "      \"attrs\": {\n"
    "        \"_checked_type_\": \"6\", \n"
    "        \"data\": \"0\", \n"
    "        \"span\": \"0\", \n"
    "        \"virtual_device_\": \"4\"\n"
    "      }\n"
    "    }, \n"
    "    {\n"
    "      \"type_key\": \"VirtualDevice\", \n"
    "      \"attrs\": {\n"
    "        \"device_type_int\": \"-1\", \n"
    "        \"memory_scope\": \"5\", \n"
    "        \"target\": \"0\", \n"
    "        \"virtual_device_id\": \"-1\"\n"
    "      }\n"
    "    }, \n"
    "    {\n"
    "      \"type_key\": \"runtime.String\"\n"
    "    }, \n"
    "    {\n"
    "      \"type_key\": \"relay.TensorType\", \n"
    "      \"attrs\": {\n"
    "        \"dtype\": \"float32\", \n"
    "        \"shape\": \"7\", \n"
    "        \"span\": \"0\"\n"
    "      }\n"
    "    }, \n"
    "    {\n"
    "      \"type_key\": \"Array\", \n"
    "      \"data\": [8, 9]\n"
    "    }, \n"
    "    {\n"
    "      \"type_key\": \"IntImm\", \n"
    "      \"attrs\": {\n"
    "        \"dtype\": \"int32\", \n"
    "        \"span\": \"0\", \n"
    "        \"value\": \"1\"\n"
    "      }\n"
    "    }, \n"
    "    {\n"
    "      \"type_key\": \"IntImm\", \n"
    "      \"attrs\": {\n"
    "        \"dtype\": \"int32\", \n"
    "        \"span\": \"0\", \n"
    "        \"value\": \"3\"\n"
    "      }\n"
    "    }\n"
    "  ], \n"
    "  \"b64ndarrays\": [\n"
    "    "
    "\"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQABAAAAAAAAAAMAAAAAAAAADAAAAAAA"
    "AAAAAIA/AACAPwAAgD8=\"\n"
    "  ], \n"
    "  \"attrs\": {\"tvm_version\": \"0.19.0\"}\n"
    "}";
const char *const kOnesBase64 =
    "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQABAAAAAAAAAAMAAAAAAAAADAAAAAAA"
    "AAAAAIA/AACAPwAAgD8=";

Ref<Constant> makeConstant(DataType dtype, ArrayRef<int64_t> shape,
                           double start = 1.0) {
  NDArray array = cantFail(NDArray::create(dtype, shape));
  for (int64_t i = 0, e = array.getNumElements(); i != e; ++i)
    array.setElementFromDouble(i, dtype.isBool() ? double(i % 2)
                                                 : start + double(i));
  return Constant::get(array);
}

/// The message of a failed decode ("" on success).
std::string decodeError(StringRef json, MetadataLimits limits = {}) {
  Expected<MetadataTable> table = decodeMetadata(json, limits);
  if (table)
    return "";
  return toString(table.takeError());
}

/// Encodes \p owned as a metadata section.
std::string encodeAll(ArrayRef<Ref<Constant>> owned) {
  std::vector<const Constant *> constants;
  for (const Ref<Constant> &c : owned)
    constants.push_back(c.get());
  return encodeMetadata(constants);
}

/// Checks that \p json decodes to exactly \p owned, bit for bit.
void expectDecodesTo(StringRef json, ArrayRef<Ref<Constant>> owned) {
  Expected<MetadataTable> table = decodeMetadata(json);
  ASSERT_TRUE(bool(table)) << toString(table.takeError());
  ASSERT_EQ(table->constants.size(), owned.size());
  for (size_t i = 0; i < owned.size(); ++i)
    EXPECT_TRUE(
        table->constants[i]->getData().bitwiseEqual(owned[i]->getData()))
        << "constant " << i;
}

/// Replaces the first occurrence of \p from in \p text.
std::string replaceFirst(std::string text, StringRef from, StringRef to) {
  size_t pos = text.find(from.str());
  EXPECT_NE(pos, std::string::npos) << "missing: " << from.str();
  if (pos != std::string::npos)
    text.replace(pos, from.size(), to.str());
  return text;
}

TEST(MetadataTest, EncodesTheReferenceExampleByteForByte) {
  NDArray data = cantFail(NDArray::create(DataType::float32(), {1, 3}));
  for (int64_t i = 0; i < 3; ++i)
    data.setElementFromDouble(i, 1.0);
  Ref<Constant> ones = Constant::get(data);
  const Constant *constants[] = {ones.get()};
  EXPECT_EQ(encodeMetadata(constants), kOnesJSON);
  EXPECT_EQ(encodeBase64(ones->getData().save()), kOnesBase64);
}

TEST(MetadataTest, DecodesTheReferenceExample) {
  Expected<MetadataTable> table = decodeMetadata(kOnesJSON);
  ASSERT_TRUE(bool(table)) << toString(table.takeError());
  ASSERT_EQ(table->constants.size(), 1u);
  const NDArray &data = table->constants[0]->getData();
  EXPECT_EQ(data.getDType(), DataType::float32());
  EXPECT_EQ(data.getShape(), ArrayRef<int64_t>({1, 3}));
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_EQ(data.getElementAsDouble(i), 1.0);
  EXPECT_EQ(table->entryCounts.lookup("relay.Constant"), 1u);
}

TEST(MetadataTest, RoundTripsDTypesAndShapes) {
  std::vector<Ref<Constant>> owned = {
      makeConstant(DataType::float32(), {}),
      makeConstant(DataType::boolean(), {5}),
      makeConstant(DataType::float16(), {2, 2}),
      makeConstant(DataType::int64(), {3}, -1e12),
      makeConstant(DataType::float32(), {0, 4}),
      makeConstant(DataType::uint8(), {2, 3, 1}),
      makeConstant(DataType::bfloat16(), {4}),
      makeConstant(DataType::int8(), {6}, -3),
      makeConstant(DataType::float64(), {2}, 0.1),
      makeConstant(DataType::int16(), {1}),
      makeConstant(DataType::uint64(), {2}),
      makeConstant(DataType::int32(), {3000000000, 0}),
  };
  std::string json = encodeAll(owned);
  // A dim beyond int32 is written as an int64 IntImm.
  EXPECT_NE(json.find("\"value\": \"3000000000\""), std::string::npos);
  EXPECT_EQ(json.back(), '}');
  expectDecodesTo(json, owned);
  // More than 10 constants: the Array's data is written one id per line.
  EXPECT_NE(json.find("\"data\": [\n"), std::string::npos);
}

TEST(MetadataTest, StreamsLargeTensorsInChunksThatEncodeAsOne) {
  // The writer encodes a tensor's header and data a chunk at a time; the
  // result must be the base64 of the whole saved form, whatever the header
  // length (rank) does to the chunk boundaries, and read back bit-exactly.
  std::vector<Ref<Constant>> owned;
  uint64_t state = 12345;
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{49153}, {7, 7001}, {3, 1, 16385, 1}, {100000}}) {
    NDArray data = cantFail(NDArray::create(DataType::float32(), shape));
    auto *words = static_cast<uint32_t *>(data.getMutableData());
    for (int64_t i = 0; i < data.getNumElements(); ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      words[i] = uint32_t(state >> 32);
    }
    owned.push_back(Constant::get(data));
  }
  std::string json = encodeAll(owned);
  for (const Ref<Constant> &c : owned)
    EXPECT_NE(json.find("\"" + encodeBase64(c->getData().save()) + "\""),
              std::string::npos);
  expectDecodesTo(json, owned);
}

TEST(MetadataTest, SharesTheVirtualDeviceAndRepeatedConstants) {
  Ref<Constant> a = makeConstant(DataType::float32(), {2});
  Ref<Constant> b = makeConstant(DataType::int32(), {});
  const Constant *constants[] = {a.get(), b.get(), a.get()};
  std::string json = encodeMetadata(constants);
  // Node 3 is a, 4/5 the VirtualDevice and its memory scope, 6-8 a's type
  // (TensorType, shape Array, one IntImm), 9 is b (no second VirtualDevice),
  // 10-11 b's type (0-d: an empty Array).
  EXPECT_NE(json.find("\"data\": [3, 9, 3]"), std::string::npos) << json;
  EXPECT_EQ(json.find("VirtualDevice"), json.rfind("VirtualDevice"));
  EXPECT_NE(json.find("\"virtual_device_\": \"4\""), std::string::npos);
  EXPECT_NE(json.find("    {\n      \"type_key\": \"Array\"\n    }"),
            std::string::npos)
      << json;
  Expected<MetadataTable> table = decodeMetadata(json);
  ASSERT_TRUE(bool(table)) << toString(table.takeError());
  ASSERT_EQ(table->constants.size(), 3u);
  // The same node decodes to the same constant.
  EXPECT_EQ(table->constants[0], table->constants[2]);
  EXPECT_TRUE(table->constants[1]->getData().bitwiseEqual(b->getData()));
}

TEST(MetadataTest, CountsOtherKeys) {
  std::string json = R"({
  "root": 1,
  "nodes": [
    {"type_key": ""},
    {"type_key": "Map", "keys": ["tir.SizeVar", "relay.Constant"],
     "data": [2, 3]},
    {"type_key": "Array", "data": [4, 4]},
    {"type_key": "Array"},
    {"type_key": "tir.SizeVar", "attrs": {"name": "n"}}
  ],
  "b64ndarrays": []
})";
  Expected<MetadataTable> table = decodeMetadata(json);
  ASSERT_TRUE(bool(table)) << toString(table.takeError());
  EXPECT_EQ(table->entryCounts.lookup("tir.SizeVar"), 2u);
  EXPECT_EQ(table->entryCounts.lookup("relay.Constant"), 0u);
  EXPECT_TRUE(table->constants.empty());
}

TEST(MetadataTest, RejectsMalformedJSON) {
  EXPECT_NE(decodeError("{").find("malformed JSON"), std::string::npos);
  EXPECT_NE(decodeError("").find("malformed JSON"), std::string::npos);
  EXPECT_EQ(decodeError("[]"), "the JSON root is not an object");
  EXPECT_EQ(decodeError(R"({"nodes": []})"), "missing integer field 'root'");
  EXPECT_EQ(decodeError(R"({"root": 1})"), "missing array field 'nodes'");
  EXPECT_EQ(decodeError(R"({"root": 1, "nodes": [{"type_key": ""}]})"),
            "node id 1 is out of range (1 nodes)");
  EXPECT_EQ(decodeError(R"({"root": 0, "nodes": [{"type_key": ""}]})"),
            "node 0 is a '', expected a 'Map'");
  EXPECT_EQ(decodeError(R"({"root": 0, "nodes": [7]})"),
            "node 0 is not a JSON object");
  EXPECT_EQ(decodeError(R"({"root": 0, "nodes": [{"type_key": "Map",
            "keys": ["a"]}]})"),
            "the root map has 1 keys but 0 values");
  // Deep nesting is rejected before llvm::json recurses on it.
  EXPECT_EQ(decodeError(std::string(100000, '[')),
            "JSON nested deeper than 64 levels");
}

TEST(MetadataTest, DecodesTensorsInPlace) {
  Ref<Constant> owned[] = {makeConstant(DataType::float32(), {2, 3}),
                           makeConstant(DataType::int8(), {5}),
                           makeConstant(DataType::float64(), {})};
  std::string json = encodeAll(owned);
  // Each tensor's text is handed to the release callback once decoded, in
  // order, as a part of the section (not a copy).
  std::vector<StringRef> released;
  Expected<MetadataTable> table =
      decodeMetadata(json, {}, [&](StringRef text) { released.push_back(text); });
  ASSERT_TRUE(bool(table)) << toString(table.takeError());
  ASSERT_EQ(released.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_GE(released[i].data(), json.data());
    EXPECT_LE(released[i].end(), json.data() + json.size());
    EXPECT_EQ(released[i], encodeBase64(owned[i]->getData().save()));
    EXPECT_TRUE(
        table->constants[i]->getData().bitwiseEqual(owned[i]->getData()));
  }
  // What the in-place scan does not take is read in one piece, as before:
  // an escape in a tensor's string, the tensors before the nodes, a string
  // that is not base64 in the array (not referenced, so never decoded).
  std::string blob = encodeBase64(owned[0]->getData().save());
  std::string escaped = "\\u0050" + blob.substr(1);
  ASSERT_EQ(blob[0], 'P');
  expectDecodesTo(replaceFirst(json, blob, escaped), owned);
  size_t b64 = json.find("\n  \"b64ndarrays\"") + 1;
  size_t attrs = json.find("\n  \"attrs\"") + 1;
  size_t nodes = json.find("\n  \"nodes\"") + 1;
  std::string reordered = json.substr(0, nodes) +
                          json.substr(b64, attrs - b64) +
                          json.substr(nodes, b64 - nodes) + json.substr(attrs);
  expectDecodesTo(reordered, owned);
  std::string last = encodeBase64(owned[2]->getData().save());
  std::string extra = replaceFirst(json, "\"" + last + "\"",
                                   "\"" + last + "\", \"not base64!\"");
  expectDecodesTo(extra, owned);
  // Other keys may hold anything, brackets and escapes in strings too.
  expectDecodesTo(replaceFirst(json, "{", R"({"x": [{"]\"": "}"}, 1], )"),
                  owned);
}

TEST(MetadataTest, ReportsJSONErrorsInTensorStringsAsBefore) {
  Ref<Constant> owned[] = {makeConstant(DataType::float32(), {2, 3})};
  std::string json = encodeAll(owned);
  std::string blob = encodeBase64(owned[0]->getData().save());
  // A control character in a string no constant refers to: llvm::json's
  // error for the whole section.
  for (StringRef bad : {StringRef("A\x01" "AA"), StringRef("A\xff" "AA")}) {
    std::string text = replaceFirst(json, "\"" + blob + "\"",
                                    "\"" + blob + "\", \"" + bad.str() + "\"");
    Expected<json::Value> parsed = json::parse(text);
    ASSERT_FALSE(bool(parsed));
    EXPECT_EQ(decodeError(text),
              "malformed JSON: " + toString(parsed.takeError()));
  }
  // In a referenced tensor's string, the same.
  std::string text = replaceFirst(json, blob, "A\x01" + blob.substr(2));
  Expected<json::Value> parsed = json::parse(text);
  ASSERT_FALSE(bool(parsed));
  EXPECT_EQ(decodeError(text), "malformed JSON: " + toString(parsed.takeError()));
  // Malformed JSON after the tensors.
  text = json + ",";
  parsed = json::parse(text);
  ASSERT_FALSE(bool(parsed));
  EXPECT_EQ(decodeError(text), "malformed JSON: " + toString(parsed.takeError()));
}

TEST(MetadataTest, RejectsCorruptConstants) {
  Ref<Constant> ones = makeConstant(DataType::float32(), {1, 3});
  const Constant *constants[] = {ones.get()};
  std::string json = encodeMetadata(constants);
  std::string blob = encodeBase64(ones->getData().save());

  EXPECT_EQ(
      decodeError(replaceFirst(json, "\"data\": \"0\"", "\"data\": \"1\"")),
      "relay.Constant node 3: tensor index 1 is out of range (1 "
      "tensors)");
  EXPECT_EQ(
      decodeError(replaceFirst(json, "\"data\": \"0\"", "\"data\": \"x\"")),
      "node 3: attribute 'data' is not an integer: \"x\"");
  EXPECT_EQ(decodeError(replaceFirst(json, "\"data\": \"0\", ", "")),
            "node 3: missing string attribute 'data'");
  EXPECT_EQ(decodeError(replaceFirst(json, "\"data\": [3]", "\"data\": [99]")),
            "node id 99 is out of range (10 nodes)");
  EXPECT_EQ(decodeError(replaceFirst(json, "\"data\": [3]", "\"data\": [4]")),
            "node 4 is a 'VirtualDevice', expected a 'relay.Constant'");
  EXPECT_NE(decodeError(replaceFirst(json, blob, "P6G0!!"))
                .find("b64ndarrays[0]: invalid base64"),
            std::string::npos);
  // A truncated blob (valid base64 of fewer bytes).
  std::string bytes = ones->getData().save();
  std::string truncated = encodeBase64(bytes.substr(0, bytes.size() - 4));
  EXPECT_EQ(decodeError(replaceFirst(json, blob, truncated)),
            "relay.Constant node 3: b64ndarrays[0]: truncated tensor data: 64 "
            "bytes");
  // A blob of another dtype than the declared type.
  NDArray ints = cantFail(NDArray::create(DataType::int32(), {1, 3}));
  EXPECT_EQ(decodeError(replaceFirst(json, blob, encodeBase64(ints.save()))),
            "relay.Constant node 3: the tensor data is int32 but its type "
            "says float32");
  NDArray wide = cantFail(NDArray::create(DataType::float32(), {3, 1}));
  EXPECT_EQ(decodeError(replaceFirst(json, blob, encodeBase64(wide.save()))),
            "relay.Constant node 3: the tensor data has shape (3, 1) but its "
            "type says (1, 3)");
  // A blob whose data size disagrees with its shape.
  std::string missized = bytes;
  missized[32 + 16] = 16; // data_byte_size 12 -> 16
  EXPECT_EQ(decodeError(replaceFirst(json, blob, encodeBase64(missized))),
            "relay.Constant node 3: b64ndarrays[0]: invalid tensor data: 16 "
            "data bytes for a tensor of 12 bytes");
  // An unsupported dtype code (e4m3_float8).
  std::string float8 = bytes;
  float8[28] = 6;
  float8[29] = 8;
  EXPECT_EQ(decodeError(replaceFirst(json, blob, encodeBase64(float8))),
            "relay.Constant node 3: b64ndarrays[0]: unsupported tensor dtype "
            "(code 6, bits 8, lanes 1)");
}

TEST(MetadataTest, EnforcesTheTensorSizeLimit) {
  Ref<Constant> big = makeConstant(DataType::float32(), {16});
  const Constant *constants[] = {big.get()};
  std::string json = encodeMetadata(constants);
  MetadataLimits limits;
  limits.maxTensorBytes = 63;
  EXPECT_EQ(decodeError(json, limits),
            "relay.Constant node 3: b64ndarrays[0]: constant of 64 bytes "
            "exceeds the limit of 63 bytes");
  limits.maxTensorBytes = 64;
  EXPECT_EQ(decodeError(json, limits), "");
}

} // namespace
