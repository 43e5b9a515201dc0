//===- Metadata.cpp - TVM's #[metadata] section ---------------------------===//
//
/// \file
/// Decodes and encodes the metadata section: TVM's SaveJSON graph of a
/// Map<String, Array<Object>> whose relay.Constant entries index base64
/// NDArrays in TVM's binary tensor format.
///
/// The decoder validates everything it reads (node ids, field kinds, base64,
/// tensor sizes against the limit and against the declared type) and reports
/// a descriptive error instead of trusting the input. The encoder writes the
/// exact bytes of dmlc's JSONWriter (TVM's writer), including its spacing,
/// and every field TVM's LoadJSON requires, so TVM loads the result.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Metadata.h"

#include "nnir/IR/Expr.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;
using namespace nnir;

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

static Error metadataError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// TVM's metadata JSON is about four levels deep. llvm::json::parse recurses
/// on nesting, so deeper input is rejected before it is parsed.
static constexpr unsigned kMaxJSONDepth = 64;

static bool exceedsJSONDepth(StringRef text) {
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJSONDepth)
        return true;
    } else if ((c == ']' || c == '}') && depth) {
      --depth;
    }
  }
  return false;
}

namespace {

/// Reads the node graph of one metadata section.
class MetadataDecoder {
public:
  MetadataDecoder(const json::Array &nodes, const json::Array *tensors,
                  const MetadataLimits &limits)
      : nodes(nodes), tensors(tensors), limits(limits) {}

  Expected<MetadataTable> decode(int64_t root);

private:
  Expected<const json::Object *> getNode(int64_t id);
  Expected<StringRef> getTypeKey(int64_t id);
  /// A node of type \p typeKey.
  Expected<const json::Object *> getNodeOfType(int64_t id, StringRef typeKey);
  /// The node ids in field \p field ("data"); a missing field is empty.
  Expected<std::vector<int64_t>> getIdList(const json::Object &node, int64_t id,
                                           StringRef field);
  Expected<StringRef> getAttr(const json::Object &node, int64_t id,
                              StringRef field);
  Expected<int64_t> getIntAttr(const json::Object &node, int64_t id,
                               StringRef field);
  Expected<Ref<Constant>> decodeConstant(int64_t id);
  Expected<NDArray> decodeTensor(int64_t index, int64_t constantId);
  Error checkType(int64_t typeId, const NDArray &array, int64_t constantId);

  const json::Array &nodes;
  const json::Array *tensors;
  const MetadataLimits &limits;
  DenseMap<int64_t, Ref<Constant>> constantsById;
};

} // namespace

Expected<const json::Object *> MetadataDecoder::getNode(int64_t id) {
  if (id < 0 || size_t(id) >= nodes.size())
    return metadataError("node id " + Twine(id) + " is out of range (" +
                         Twine(nodes.size()) + " nodes)");
  const json::Object *node = nodes[id].getAsObject();
  if (!node)
    return metadataError("node " + Twine(id) + " is not a JSON object");
  return node;
}

Expected<StringRef> MetadataDecoder::getTypeKey(int64_t id) {
  Expected<const json::Object *> node = getNode(id);
  if (!node)
    return node.takeError();
  std::optional<StringRef> typeKey = (*node)->getString("type_key");
  if (!typeKey)
    return metadataError("node " + Twine(id) + " has no string 'type_key'");
  return *typeKey;
}

Expected<const json::Object *> MetadataDecoder::getNodeOfType(int64_t id,
                                                              StringRef type) {
  Expected<StringRef> typeKey = getTypeKey(id);
  if (!typeKey)
    return typeKey.takeError();
  if (*typeKey != type)
    return metadataError("node " + Twine(id) + " is a '" + *typeKey +
                         "', expected a '" + type + "'");
  return nodes[id].getAsObject();
}

Expected<std::vector<int64_t>>
MetadataDecoder::getIdList(const json::Object &node, int64_t id,
                           StringRef field) {
  std::vector<int64_t> ids;
  const json::Value *value = node.get(field);
  if (!value)
    return ids;
  const json::Array *array = value->getAsArray();
  if (!array)
    return metadataError("node " + Twine(id) + ": '" + field +
                         "' is not an array");
  ids.reserve(array->size());
  for (const json::Value &element : *array) {
    std::optional<int64_t> elementId = element.getAsInteger();
    if (!elementId)
      return metadataError("node " + Twine(id) + ": '" + field +
                           "' holds a non-integer");
    ids.push_back(*elementId);
  }
  return ids;
}

Expected<StringRef> MetadataDecoder::getAttr(const json::Object &node,
                                             int64_t id, StringRef field) {
  const json::Object *attrs = node.getObject("attrs");
  if (!attrs)
    return metadataError("node " + Twine(id) + " has no 'attrs' object");
  std::optional<StringRef> value = attrs->getString(field);
  if (!value)
    return metadataError("node " + Twine(id) + ": missing string attribute '" +
                         field + "'");
  return *value;
}

Expected<int64_t> MetadataDecoder::getIntAttr(const json::Object &node,
                                              int64_t id, StringRef field) {
  Expected<StringRef> text = getAttr(node, id, field);
  if (!text)
    return text.takeError();
  int64_t value;
  if (text->getAsInteger(10, value))
    return metadataError("node " + Twine(id) + ": attribute '" + field +
                         "' is not an integer: \"" + *text + "\"");
  return value;
}

/// Rejects a tensor whose header announces more than \p maxBytes of data,
/// before anything is allocated for it.
static Error checkTensorSize(ArrayRef<char> bytes, uint64_t maxBytes) {
  if (bytes.size() < 32)
    return Error::success(); // NDArray::load reports the truncation.
  int32_t ndim = support::endian::read32le(bytes.data() + 24);
  if (ndim < 0 || ndim > 64 || bytes.size() < 40 + 8 * size_t(ndim))
    return Error::success();
  int64_t dataBytes =
      int64_t(support::endian::read64le(bytes.data() + 32 + 8 * ndim));
  if (dataBytes > 0 && uint64_t(dataBytes) > maxBytes)
    return metadataError("constant of " + Twine(dataBytes) +
                         " bytes exceeds the limit of " + Twine(maxBytes) +
                         " bytes");
  return Error::success();
}

Expected<NDArray> MetadataDecoder::decodeTensor(int64_t index,
                                                int64_t constantId) {
  std::string where = ("relay.Constant node " + Twine(constantId) +
                       ": b64ndarrays[" + Twine(index) + "]")
                          .str();
  if (!tensors || index < 0 || size_t(index) >= tensors->size())
    return metadataError("relay.Constant node " + Twine(constantId) +
                         ": tensor index " + Twine(index) +
                         " is out of range (" +
                         Twine(tensors ? tensors->size() : 0) + " tensors)");
  std::optional<StringRef> text = (*tensors)[index].getAsString();
  if (!text)
    return metadataError(where + " is not a string");
  std::vector<char> bytes;
  if (Error err = decodeBase64(*text, bytes))
    return metadataError(where +
                         ": invalid base64: " + toString(std::move(err)));
  if (Error err = checkTensorSize(bytes, limits.maxTensorBytes))
    return metadataError(where + ": " + toString(std::move(err)));
  Expected<NDArray> array = NDArray::load(StringRef(bytes.data(), bytes.size()),
                                          limits.maxTensorBytes);
  if (!array)
    return metadataError(where + ": " + toString(array.takeError()));
  return array;
}

/// Checks the tensor against the constant's declared relay.TensorType (when
/// it has one): a blob whose dtype or shape disagrees is corrupt.
Error MetadataDecoder::checkType(int64_t typeId, const NDArray &array,
                                 int64_t constantId) {
  Expected<StringRef> typeKey = getTypeKey(typeId);
  if (!typeKey)
    return typeKey.takeError();
  if (*typeKey != "relay.TensorType")
    return Error::success();
  const json::Object &type = *nodes[typeId].getAsObject();
  Expected<StringRef> dtype = getAttr(type, typeId, "dtype");
  if (!dtype)
    return dtype.takeError();
  std::string where = ("relay.Constant node " + Twine(constantId)).str();
  if (*dtype != array.getDType().str())
    return metadataError(where + ": the tensor data is " +
                         array.getDType().str() + " but its type says " +
                         *dtype);
  Expected<int64_t> shapeId = getIntAttr(type, typeId, "shape");
  if (!shapeId)
    return shapeId.takeError();
  Expected<const json::Object *> shapeNode = getNodeOfType(*shapeId, "Array");
  if (!shapeNode)
    return shapeNode.takeError();
  Expected<std::vector<int64_t>> dimIds =
      getIdList(**shapeNode, *shapeId, "data");
  if (!dimIds)
    return dimIds.takeError();
  Shape shape;
  for (int64_t dimId : *dimIds) {
    Expected<const json::Object *> dim = getNodeOfType(dimId, "IntImm");
    if (!dim)
      return dim.takeError();
    Expected<int64_t> value = getIntAttr(**dim, dimId, "value");
    if (!value)
      return value.takeError();
    shape.push_back(*value);
  }
  if (ArrayRef<int64_t>(shape) != array.getShape()) {
    std::string declared, actual;
    raw_string_ostream declaredOS(declared), actualOS(actual);
    printShape(declaredOS, shape);
    printShape(actualOS, array.getShape());
    return metadataError(where + ": the tensor data has shape " + actual +
                         " but its type says " + declared);
  }
  return Error::success();
}

Expected<Ref<Constant>> MetadataDecoder::decodeConstant(int64_t id) {
  auto cached = constantsById.find(id);
  if (cached != constantsById.end())
    return cached->second;
  Expected<const json::Object *> node = getNodeOfType(id, "relay.Constant");
  if (!node)
    return node.takeError();
  Expected<int64_t> index = getIntAttr(**node, id, "data");
  if (!index)
    return index.takeError();
  Expected<NDArray> array = decodeTensor(*index, id);
  if (!array)
    return array.takeError();
  // `_checked_type_` is "0" (null) for constants that were never typed.
  if (const json::Object *attrs = (*node)->getObject("attrs"))
    if (attrs->get("_checked_type_")) {
      Expected<int64_t> typeId = getIntAttr(**node, id, "_checked_type_");
      if (!typeId)
        return typeId.takeError();
      if (*typeId != 0)
        if (Error err = checkType(*typeId, *array, id))
          return err;
    }
  Ref<Constant> constant = Constant::get(std::move(*array));
  constantsById[id] = constant;
  return constant;
}

Expected<MetadataTable> MetadataDecoder::decode(int64_t root) {
  Expected<const json::Object *> map = getNodeOfType(root, "Map");
  if (!map)
    return map.takeError();
  std::vector<StringRef> keys;
  if (const json::Value *keysValue = (*map)->get("keys")) {
    const json::Array *array = keysValue->getAsArray();
    if (!array)
      return metadataError("the root map's 'keys' is not an array");
    for (const json::Value &key : *array) {
      std::optional<StringRef> text = key.getAsString();
      if (!text)
        return metadataError("the root map has a non-string key");
      keys.push_back(*text);
    }
  }
  Expected<std::vector<int64_t>> values = getIdList(**map, root, "data");
  if (!values)
    return values.takeError();
  if (values->size() != keys.size())
    return metadataError("the root map has " + Twine(keys.size()) +
                         " keys but " + Twine(values->size()) + " values");

  MetadataTable table;
  for (size_t i = 0, e = keys.size(); i != e; ++i) {
    StringRef key = keys[i];
    if (table.entryCounts.count(key))
      return metadataError("the root map has the key '" + key + "' twice");
    int64_t arrayId = (*values)[i];
    Expected<const json::Object *> array = getNodeOfType(arrayId, "Array");
    if (!array)
      return array.takeError();
    Expected<std::vector<int64_t>> elements =
        getIdList(**array, arrayId, "data");
    if (!elements)
      return elements.takeError();
    table.entryCounts[key] = elements->size();
    if (key != "relay.Constant")
      continue;
    for (int64_t elementId : *elements) {
      Expected<Ref<Constant>> constant = decodeConstant(elementId);
      if (!constant)
        return constant.takeError();
      table.constants.push_back(std::move(*constant));
    }
  }
  return table;
}

Expected<MetadataTable> nnir::decodeMetadata(StringRef json,
                                             const MetadataLimits &limits) {
  if (exceedsJSONDepth(json))
    return metadataError("JSON nested deeper than " + Twine(kMaxJSONDepth) +
                         " levels");
  Expected<json::Value> value = json::parse(json);
  if (!value)
    return metadataError("malformed JSON: " + toString(value.takeError()));
  const json::Object *object = value->getAsObject();
  if (!object)
    return metadataError("the JSON root is not an object");
  std::optional<int64_t> root = object->getInteger("root");
  if (!root)
    return metadataError("missing integer field 'root'");
  const json::Array *nodes = object->getArray("nodes");
  if (!nodes)
    return metadataError("missing array field 'nodes'");
  const json::Array *tensors = nullptr;
  if (const json::Value *b64 = object->get("b64ndarrays")) {
    tensors = b64->getAsArray();
    if (!tensors)
      return metadataError("'b64ndarrays' is not an array");
  }
  MetadataDecoder decoder(*nodes, tensors, limits);
  return decoder.decode(*root);
}

//===----------------------------------------------------------------------===//
// Encoding
//===----------------------------------------------------------------------===//

namespace {

/// dmlc::JSONWriter, byte for byte: a multi-line scope puts a newline and
/// two spaces per open scope before every item, items are separated by ", "
/// (so lines end in a space), and a non-empty multi-line scope closes on its
/// own line.
class DmlcJSONWriter {
public:
  explicit DmlcJSONWriter(raw_ostream &os) : os(os) {}

  void beginObject(bool multiLine = true) { begin('{', multiLine); }
  void endObject() { end('}'); }
  void beginArray(bool multiLine) { begin('[', multiLine); }
  void endArray() { end(']'); }

  /// Starts the value of \p key in the current object.
  void key(StringRef key) {
    if (counters.back() > 0)
      os << ", ";
    separator();
    os << '"' << key << "\": ";
    ++counters.back();
  }
  /// Starts the next item of the current array.
  void arrayItem() {
    if (counters.back() != 0)
      os << ", ";
    ++counters.back();
    separator();
  }

  void string(StringRef s) {
    os << '"';
    // Runs without characters to escape (all of a base64 tensor) are written
    // in one piece.
    while (!s.empty()) {
      size_t run = s.find_first_of("\r\n\\\t\"");
      os << s.take_front(run);
      if (run == StringRef::npos)
        break;
      switch (s[run]) {
      case '\r':
        os << "\\r";
        break;
      case '\n':
        os << "\\n";
        break;
      case '\\':
        os << "\\\\";
        break;
      case '\t':
        os << "\\t";
        break;
      default:
        os << "\\\"";
      }
      s = s.drop_front(run + 1);
    }
    os << '"';
  }
  void integer(int64_t value) { os << value; }

  /// A std::map<string, string> field (one line when it has <= 1 entry).
  void stringMap(const std::map<std::string, std::string> &map) {
    beginObject(map.size() > 1);
    for (const auto &entry : map) {
      key(entry.first);
      string(entry.second);
    }
    endObject();
  }
  /// A vector<int64_t> field (one line when it has <= 10 elements).
  void integerArray(ArrayRef<int64_t> values) {
    beginArray(values.size() > 10);
    for (int64_t v : values) {
      arrayItem();
      integer(v);
    }
    endArray();
  }
  /// A vector<string> field (always multi-line).
  void stringArray(ArrayRef<std::string> values) {
    beginArray(true);
    for (const std::string &v : values) {
      arrayItem();
      string(v);
    }
    endArray();
  }
  /// The b64ndarrays field: each tensor saved and base64-encoded when it is
  /// written, so only one encoding is alive at a time.
  void tensorArray(ArrayRef<const NDArray *> tensors) {
    beginArray(true);
    for (const NDArray *tensor : tensors) {
      arrayItem();
      string(encodeBase64(tensor->save()));
    }
    endArray();
  }

private:
  void begin(char open, bool multiLine) {
    os << open;
    multiLines.push_back(multiLine);
    counters.push_back(0);
  }
  void end(char close) {
    bool newline = multiLines.pop_back_val();
    unsigned count = counters.pop_back_val();
    if (newline && count != 0)
      separator();
    os << close;
  }
  void separator() {
    if (multiLines.empty() || multiLines.back())
      os << '\n' << std::string(multiLines.size() * 2, ' ');
  }

  raw_ostream &os;
  SmallVector<bool, 8> multiLines;
  SmallVector<unsigned, 8> counters;
};

/// One node of TVM's JSON graph.
struct JSONNode {
  std::string typeKey;
  std::map<std::string, std::string> attrs;
  std::vector<std::string> keys;
  std::vector<int64_t> data;
};

} // namespace

std::string nnir::encodeMetadata(ArrayRef<const Constant *> constants) {
  std::string out;
  raw_string_ostream os(out);
  encodeMetadata(constants, os);
  return out;
}

void nnir::encodeMetadata(ArrayRef<const Constant *> constants,
                          raw_ostream &os) {
  // Node ids follow TVM's pre-order DFS: the root Map, its Array, then each
  // constant followed by what its VisitAttrs reaches (data, virtual_device_,
  // span, _checked_type_). Shared objects (the unconstrained VirtualDevice,
  // a constant listed twice, a shared tensor buffer) are written once.
  std::vector<JSONNode> nodes(3);
  nodes[0].typeKey = "";
  nodes[1].typeKey = "Map";
  nodes[1].keys.push_back("relay.Constant");
  nodes[1].data.push_back(2);
  nodes[2].typeKey = "Array";
  std::vector<const NDArray *> tensors;
  DenseMap<const Constant *, int64_t> constantIds;
  DenseMap<const void *, int64_t> tensorIds;
  int64_t virtualDeviceId = -1;

  for (const Constant *constant : constants) {
    auto known = constantIds.find(constant);
    if (known != constantIds.end()) {
      nodes[2].data.push_back(known->second);
      continue;
    }
    int64_t id = nodes.size();
    constantIds[constant] = id;
    nodes[2].data.push_back(id);
    nodes.emplace_back();
    nodes.back().typeKey = "relay.Constant";

    const NDArray &data = constant->getData();
    auto [tensorIt, isNewTensor] =
        tensorIds.insert({data.getData(), int64_t(tensors.size())});
    if (isNewTensor)
      tensors.push_back(&data);

    if (virtualDeviceId < 0) {
      // VirtualDevice::FullyUnconstrained(), shared by every constant.
      virtualDeviceId = nodes.size();
      JSONNode device;
      device.typeKey = "VirtualDevice";
      device.attrs = {{"device_type_int", "-1"},
                      {"memory_scope", std::to_string(virtualDeviceId + 1)},
                      {"target", "0"},
                      {"virtual_device_id", "-1"}};
      nodes.push_back(std::move(device));
      JSONNode scope;
      scope.typeKey = "runtime.String"; // "" has no repr_str.
      nodes.push_back(std::move(scope));
    }

    int64_t typeId = nodes.size();
    JSONNode type;
    type.typeKey = "relay.TensorType";
    type.attrs = {{"dtype", data.getDType().str()},
                  {"shape", std::to_string(typeId + 1)},
                  {"span", "0"}};
    nodes.push_back(std::move(type));
    JSONNode shape;
    shape.typeKey = "Array";
    int64_t firstDimId = typeId + 2;
    for (size_t i = 0, e = data.getRank(); i != e; ++i)
      shape.data.push_back(firstDimId + int64_t(i));
    nodes.push_back(std::move(shape));
    for (int64_t dim : data.getShape()) {
      JSONNode imm;
      imm.typeKey = "IntImm";
      bool fitsInt32 = dim >= INT32_MIN && dim <= INT32_MAX;
      imm.attrs = {{"dtype", fitsInt32 ? "int32" : "int64"},
                   {"span", "0"},
                   {"value", std::to_string(dim)}};
      nodes.push_back(std::move(imm));
    }

    nodes[id].attrs = {{"_checked_type_", std::to_string(typeId)},
                       {"data", std::to_string(tensorIt->second)},
                       {"span", "0"},
                       {"virtual_device_", std::to_string(virtualDeviceId)}};
  }

  DmlcJSONWriter writer(os);
  writer.beginObject();
  writer.key("root");
  writer.integer(1);
  writer.key("nodes");
  writer.beginArray(true);
  for (const JSONNode &node : nodes) {
    writer.arrayItem();
    writer.beginObject();
    writer.key("type_key");
    writer.string(node.typeKey);
    if (!node.attrs.empty()) {
      writer.key("attrs");
      writer.stringMap(node.attrs);
    }
    if (!node.keys.empty()) {
      writer.key("keys");
      writer.stringArray(node.keys);
    }
    if (!node.data.empty()) {
      writer.key("data");
      writer.integerArray(node.data);
    }
    writer.endObject();
  }
  writer.endArray();
  writer.key("b64ndarrays");
  writer.tensorArray(tensors);
  writer.key("attrs");
  writer.stringMap({{"tvm_version", "0.19.0"}});
  writer.endObject();
}
