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
#include "nnir/Support/Base64.h"
#include "nnir/Support/Numbers.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;
using namespace nnir;

/// Object graphs in a metadata section are shallow (a Target's attribute map
/// holds arrays of strings); deeper ones are refused, so that every walk of a
/// MetaObject may recurse.
static constexpr unsigned kMaxObjectDepth = 32;

//===----------------------------------------------------------------------===//
// MetaObject
//===----------------------------------------------------------------------===//

Ref<MetaObject> MetaObject::get(std::string typeKey, std::string repr,
                                std::vector<Field> fields,
                                std::vector<std::string> keys,
                                std::vector<Ref<MetaObject>> elements) {
  Ref<MetaObject> object(new MetaObject());
  object->typeKey = std::move(typeKey);
  object->repr = std::move(repr);
  object->fields = std::move(fields);
  object->keys = std::move(keys);
  object->elements = std::move(elements);
  return object;
}

const MetaObject::Field *MetaObject::getField(StringRef name) const {
  for (const Field &field : fields)
    if (field.name == name)
      return &field;
  return nullptr;
}

// Objects are at most kMaxObjectDepth deep (the decoder's limit), so these
// walks recurse.
bool MetaObject::isEqual(const MetaObject *a, const MetaObject *b) {
  if (a == b)
    return true;
  if (!a || !b || a->typeKey != b->typeKey || a->repr != b->repr ||
      a->keys != b->keys || a->fields.size() != b->fields.size() ||
      a->elements.size() != b->elements.size())
    return false;
  for (size_t i = 0, e = a->fields.size(); i != e; ++i) {
    const Field &x = a->fields[i], &y = b->fields[i];
    if (x.name != y.name || x.isObject != y.isObject || x.text != y.text ||
        !isEqual(x.object.get(), y.object.get()))
      return false;
  }
  for (size_t i = 0, e = a->elements.size(); i != e; ++i)
    if (!isEqual(a->elements[i].get(), b->elements[i].get()))
      return false;
  return true;
}

hash_code nnir::hash_value(const MetaObject &object) {
  hash_code h =
      hash_combine(object.typeKey, object.repr,
                   hash_combine_range(object.keys.begin(), object.keys.end()));
  for (const MetaObject::Field &field : object.fields)
    h = hash_combine(h, field.name, field.text,
                     field.object ? hash_value(*field.object) : hash_code(0));
  for (const Ref<MetaObject> &element : object.elements)
    h = hash_combine(h, element ? hash_value(*element) : hash_code(0));
  return h;
}

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

//===----------------------------------------------------------------------===//
// Taking the tensors out of the JSON
//===----------------------------------------------------------------------===//
//
// The b64ndarrays strings are nearly all of a section's bytes (130 MB for
// ResNet-50). llvm::json::parse would copy each into a json::Value, and the
// decoder would then decode each into a vector before copying it into its
// array. Instead the array of strings is found with a shallow scan and
// left in place: llvm::json parses the rest (the node graph, a few hundred
// KB), and each tensor is decoded from the text straight into its buffer.
// Whatever the scan does not expect (an escape in a string, the key twice,
// malformed JSON) leaves the text to be read in one piece as before.

namespace {

/// An element of b64ndarrays: its string (std::nullopt if it is not one)
/// and, once decoded, the tensor.
struct TensorText {
  std::optional<StringRef> text;
  NDArray array;
};

/// The metadata JSON with its b64ndarrays array emptied, and the tensors
/// that array held, decoded as they were met.
struct SplitMetadata {
  std::string rest;
  std::vector<TensorText> tensors;
};

/// A forward scan over JSON text.
class JSONScanner {
public:
  explicit JSONScanner(StringRef text) : text(text) {}

  size_t getPos() const { return pos; }
  void setPos(size_t newPos) { pos = newPos; }
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' ||
                                 text[pos] == '\r' || text[pos] == '\t'))
      ++pos;
  }
  /// Consumes \p c after white space.
  bool consume(char c) {
    skipSpace();
    if (pos == text.size() || text[pos] != c)
      return false;
    ++pos;
    return true;
  }
  bool peek(char c) {
    skipSpace();
    return pos < text.size() && text[pos] == c;
  }
  /// A string without escapes (the contents, unquoted), after white space.
  std::optional<StringRef> plainString() {
    if (!consume('"'))
      return std::nullopt;
    size_t close = text.find('"', pos);
    if (close == StringRef::npos)
      return std::nullopt;
    StringRef contents = text.slice(pos, close);
    if (contents.contains('\\'))
      return std::nullopt;
    pos = close + 1;
    return contents;
  }
  /// The string of a tensor's base64, after white space, as long as its
  /// header says (if a '"' follows there): the text is then read once, by
  /// the decoder. Only a string that decodes is known to be the whole JSON
  /// string (no '"' or '\\' can be in it); if it does not decode, the caller
  /// reads it again with plainString().
  std::optional<StringRef> tensorString() {
    if (!peek('"'))
      return std::nullopt;
    StringRef rest = text.drop_front(pos + 1);
    std::optional<size_t> length = NDArray::getBase64SavedLength(rest);
    if (!length || *length >= rest.size() || rest[*length] != '"')
      return plainString();
    pos += *length + 2;
    return rest.take_front(*length);
  }
  /// Skips one value of any kind, to the ',' or the closing bracket that
  /// follows it (not checked: llvm::json checks what is skipped later).
  bool skipValue() {
    unsigned depth = 0;
    while (pos < text.size()) {
      char c = text[pos];
      if (c == '"') {
        size_t i = pos + 1;
        while (i < text.size() && text[i] != '"')
          i += text[i] == '\\' ? 2 : 1;
        if (i >= text.size())
          return false;
        pos = i + 1;
        continue;
      }
      if ((c == ',' || c == ']' || c == '}') && depth == 0)
        return true;
      if (c == '[' || c == '{')
        ++depth;
      else if (c == ']' || c == '}')
        --depth;
      ++pos;
    }
    return false;
  }

private:
  StringRef text;
  size_t pos = 0;
};

} // namespace

/// Takes the strings of the top-level "b64ndarrays" array out of \p json
/// and decodes each as it is met (calling \p release with its text then, so
/// that only one tensor's text need be resident at a time); std::nullopt
/// when the section is not the plain JSON TVM writes. A string that does not
/// decode is kept undecoded: the decoder reports it if a constant uses it.
static std::optional<SplitMetadata>
splitTensors(StringRef json, const MetadataLimits &limits,
             function_ref<void(StringRef)> release) {
  JSONScanner scanner(json);
  if (!scanner.consume('{'))
    return std::nullopt;
  std::optional<SplitMetadata> split;
  if (scanner.consume('}'))
    return std::nullopt;
  while (true) {
    std::optional<StringRef> key = scanner.plainString();
    if (!key || !scanner.consume(':'))
      return std::nullopt;
    if (*key != "b64ndarrays") {
      if (!scanner.skipValue())
        return std::nullopt;
    } else {
      if (split || !scanner.consume('['))
        return std::nullopt;
      split.emplace();
      size_t open = scanner.getPos();
      if (!scanner.peek(']')) {
        do {
          size_t start = scanner.getPos();
          std::optional<StringRef> tensor = scanner.tensorString();
          if (!tensor)
            return std::nullopt;
          Expected<NDArray> array =
              limits.textOwner
                  ? NDArray::loadBase64Lazy(*tensor, limits.textOwner,
                                            limits.releaseText,
                                            limits.maxTensorBytes)
                  : NDArray::loadBase64(*tensor, limits.maxTensorBytes);
          if (!array) {
            consumeError(array.takeError());
            // Not what its header said: find where the string really ends.
            scanner.setPos(start);
            tensor = scanner.plainString();
            if (!tensor)
              return std::nullopt;
          }
          split->tensors.push_back(
              {*tensor, array ? std::move(*array) : NDArray()});
          if (release)
            release(*tensor);
        } while (scanner.consume(','));
      }
      if (!scanner.consume(']'))
        return std::nullopt;
      size_t close = scanner.getPos() - 1;
      split->rest = (json.take_front(open) + json.drop_front(close)).str();
    }
    if (scanner.consume('}'))
      break;
    if (!scanner.consume(','))
      return std::nullopt;
  }
  return split;
}

namespace {

/// Reads the node graph of one metadata section.
class MetadataDecoder {
public:
  /// \p tensors holds the b64ndarrays elements, decoded or not.
  MetadataDecoder(const json::Array &nodes, ArrayRef<TensorText> tensors,
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
  /// The entry \p id of the table under \p key as an attribute value;
  /// std::nullopt for a kind nnir does not read.
  Expected<std::optional<AttrValue>> decodeEntry(int64_t id, StringRef key);
  Expected<AttrValue> decodeValue(int64_t id, unsigned depth);
  Expected<Ref<MetaObject>> decodeObject(int64_t id, unsigned depth);
  Expected<std::string> getRepr(const json::Object &node, int64_t id);
  Expected<NDArray> decodeTensor(int64_t index, int64_t constantId);
  Error checkType(int64_t typeId, const NDArray &array, int64_t constantId);

  const json::Array &nodes;
  ArrayRef<TensorText> tensors;
  const MetadataLimits &limits;
  DenseMap<int64_t, Ref<Constant>> constantsById;
  DenseMap<int64_t, Ref<MetaObject>> objectsById;
  /// Objects being decoded (a reference back to one is a cycle).
  DenseSet<int64_t> inProgress;
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
  if (index < 0 || size_t(index) >= tensors.size())
    return metadataError("relay.Constant node " + Twine(constantId) +
                         ": tensor index " + Twine(index) +
                         " is out of range (" + Twine(tensors.size()) +
                         " tensors)");
  if (tensors[index].array)
    return tensors[index].array;
  std::optional<StringRef> text = tensors[index].text;
  if (!text)
    return metadataError(where + " is not a string");
  // Decoded straight into the array's buffer; what is wrong with a tensor
  // that does not load is said below, in the order the checks have always
  // been made (base64, then the size limit, then the tensor format).
  Expected<NDArray> loaded = NDArray::loadBase64(*text, limits.maxTensorBytes);
  if (loaded)
    return loaded;
  consumeError(loaded.takeError());
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

//===----------------------------------------------------------------------===//
// Objects other than constants
//===----------------------------------------------------------------------===//

namespace {

/// How a node kind stores its content.
enum class NodeForm : uint8_t { Fields, Repr, Array, Map };

/// What the decoder knows of a node kind: its form and, for Fields, every
/// field TVM's VisitAttrs writes, in that order, and which are objects.
struct NodeSchema {
  StringRef typeKey;
  NodeForm form;
  std::vector<std::pair<StringRef, bool>> fields; // name, isObject
};

} // namespace

/// The node kinds nnir reads outside relay.Constant: those Relay attributes
/// refer to, and what they hold.
static const NodeSchema *lookupSchema(StringRef typeKey) {
  static const std::vector<NodeSchema> schemas = {
      {"Array", NodeForm::Array, {}},
      {"FloatImm",
       NodeForm::Fields,
       {{"dtype", false}, {"value", false}, {"span", true}}},
      {"IntImm",
       NodeForm::Fields,
       {{"dtype", false}, {"value", false}, {"span", true}}},
      {"Map", NodeForm::Map, {}},
      // TVM saves a SourceName as its repr bytes (the name).
      {"SourceName", NodeForm::Repr, {}},
      {"Span",
       NodeForm::Fields,
       {{"source_name", true},
        {"line", false},
        {"column", false},
        {"end_line", false},
        {"end_column", false}}},
      {"Target",
       NodeForm::Fields,
       {{"kind", true},
        {"tag", true},
        {"keys", true},
        {"attrs", true},
        {"features", true},
        {"host", true}}},
      {"TargetKind", NodeForm::Repr, {}},
      {"VirtualDevice",
       NodeForm::Fields,
       {{"device_type_int", false},
        {"virtual_device_id", false},
        {"target", true},
        {"memory_scope", true}}},
      {"runtime.BoxBool", NodeForm::Repr, {}},
      {"runtime.BoxFloat", NodeForm::Repr, {}},
      {"runtime.BoxInt", NodeForm::Repr, {}},
      {"runtime.String", NodeForm::Repr, {}},
  };
  for (const NodeSchema &schema : schemas)
    if (schema.typeKey == typeKey)
      return &schema;
  return nullptr;
}

/// Reads a boxed or immediate integer's text.
static std::optional<int64_t> parseMetaInt(StringRef text) {
  int64_t value;
  if (text.getAsInteger(10, value))
    return std::nullopt;
  return value;
}

/// Reads a boxed or immediate float's text (TVM writes it with ostream:
/// `0.5`, `1e-05`, `inf`, `-nan`).
static std::optional<double> parseMetaFloat(StringRef text) {
  uint64_t bits;
  if (parseFloatBits(text, APFloat::IEEEdouble(), bits) != FloatParseStatus::Ok)
    return std::nullopt;
  return getDoubleFromBits(bits);
}

Expected<std::string> MetadataDecoder::getRepr(const json::Object &node,
                                               int64_t id) {
  if (std::optional<StringRef> text = node.getString("repr_str"))
    return text->str();
  if (std::optional<StringRef> b64 = node.getString("repr_b64")) {
    std::vector<char> bytes;
    if (Error err = decodeBase64(*b64, bytes))
      return metadataError("node " + Twine(id) + ": invalid base64 in " +
                           "'repr_b64': " + toString(std::move(err)));
    return std::string(bytes.begin(), bytes.end());
  }
  if (node.get("repr_str") || node.get("repr_b64"))
    return metadataError("node " + Twine(id) + ": its repr is not a string");
  return std::string(); // TVM writes nothing for an empty repr.
}

Expected<Ref<MetaObject>> MetadataDecoder::decodeObject(int64_t id,
                                                        unsigned depth) {
  if (id == 0)
    return nullptr; // TVM's null.
  auto known = objectsById.find(id);
  if (known != objectsById.end())
    return known->second;
  if (depth > kMaxObjectDepth)
    return metadataError("node " + Twine(id) + ": objects nested deeper than " +
                         Twine(kMaxObjectDepth) + " levels");
  if (!inProgress.insert(id).second)
    return metadataError("node " + Twine(id) + " contains itself");
  Expected<StringRef> typeKey = getTypeKey(id);
  if (!typeKey)
    return typeKey.takeError();
  const NodeSchema *schema = lookupSchema(*typeKey);
  if (!schema)
    return metadataError("node " + Twine(id) + " is a '" + *typeKey +
                         "', which nnir cannot read");
  const json::Object &node = *nodes[id].getAsObject();

  std::string repr;
  std::vector<MetaObject::Field> fields;
  std::vector<std::string> keys;
  std::vector<Ref<MetaObject>> elements;
  switch (schema->form) {
  case NodeForm::Repr: {
    Expected<std::string> text = getRepr(node, id);
    if (!text)
      return text.takeError();
    repr = std::move(*text);
    break;
  }
  case NodeForm::Fields:
    for (auto [name, isObject] : schema->fields) {
      Expected<StringRef> text = getAttr(node, id, name);
      if (!text)
        return text.takeError();
      MetaObject::Field field;
      field.name = name.str();
      field.isObject = isObject;
      if (!isObject) {
        field.text = text->str();
      } else {
        int64_t childId;
        if (text->getAsInteger(10, childId))
          return metadataError("node " + Twine(id) + ": attribute '" + name +
                               "' is not a node id: \"" + *text + "\"");
        Expected<Ref<MetaObject>> child = decodeObject(childId, depth + 1);
        if (!child)
          return child.takeError();
        field.object = std::move(*child);
      }
      fields.push_back(std::move(field));
    }
    break;
  case NodeForm::Map:
    if (const json::Value *keysValue = node.get("keys")) {
      const json::Array *array = keysValue->getAsArray();
      if (!array)
        return metadataError("node " + Twine(id) + ": 'keys' is not an array");
      for (const json::Value &key : *array) {
        std::optional<StringRef> text = key.getAsString();
        if (!text)
          return metadataError("node " + Twine(id) + " has a non-string key");
        keys.push_back(text->str());
      }
    }
    [[fallthrough]];
  case NodeForm::Array: {
    Expected<std::vector<int64_t>> ids = getIdList(node, id, "data");
    if (!ids)
      return ids.takeError();
    size_t expected = keys.empty() ? ids->size() : keys.size();
    if (schema->form == NodeForm::Map &&
        (ids->size() != expected || (keys.empty() && ids->size() % 2)))
      return metadataError("node " + Twine(id) + ": the map's keys and " +
                           "values do not pair up");
    for (int64_t childId : *ids) {
      Expected<Ref<MetaObject>> child = decodeObject(childId, depth + 1);
      if (!child)
        return child.takeError();
      elements.push_back(std::move(*child));
    }
    break;
  }
  }

  // Boxed values and immediates must hold what their kind says.
  StringRef what;
  if (*typeKey == "runtime.BoxInt" && !parseMetaInt(repr))
    what = "an integer";
  else if (*typeKey == "runtime.BoxFloat" && !parseMetaFloat(repr))
    what = "a float";
  else if (*typeKey == "runtime.BoxBool" && repr != "true" && repr != "false")
    what = "'true' or 'false'";
  if (!what.empty())
    return metadataError("node " + Twine(id) + ": malformed " + *typeKey +
                         ": its value \"" + repr + "\" is not " + what);
  if (*typeKey == "IntImm" || *typeKey == "FloatImm") {
    bool isInt = *typeKey == "IntImm";
    std::optional<DataType> dtype = DataType::parse(fields[0].text);
    bool dtypeOk = dtype && (isInt ? dtype->isInteger() || dtype->isBool()
                                   : dtype->isFloat());
    if (!dtypeOk)
      return metadataError("node " + Twine(id) + ": malformed " + *typeKey +
                           ": dtype \"" + fields[0].text + "\"");
    bool valueOk = isInt ? bool(parseMetaInt(fields[1].text))
                         : bool(parseMetaFloat(fields[1].text));
    if (!valueOk)
      return metadataError("node " + Twine(id) + ": malformed " + *typeKey +
                           ": its value \"" + fields[1].text + "\" is not " +
                           (isInt ? "an integer" : "a float"));
  }
  if (*typeKey == "VirtualDevice")
    for (unsigned i : {0u, 1u})
      if (!parseMetaInt(fields[i].text))
        return metadataError("node " + Twine(id) + ": malformed " + *typeKey +
                             ": '" + fields[i].name + "' is not an integer");

  Ref<MetaObject> object =
      MetaObject::get(typeKey->str(), std::move(repr), std::move(fields),
                      std::move(keys), std::move(elements));
  inProgress.erase(id);
  objectsById[id] = object;
  return object;
}

Expected<AttrValue> MetadataDecoder::decodeValue(int64_t id, unsigned depth) {
  Expected<Ref<MetaObject>> object = decodeObject(id, depth);
  if (!object)
    return object.takeError();
  const MetaObject *o = object->get();
  if (!o)
    return AttrValue::none();
  StringRef typeKey = o->getTypeKey();
  if (typeKey == "runtime.BoxInt" || typeKey == "IntImm") {
    bool boxed = typeKey == "runtime.BoxInt";
    int64_t value =
        *parseMetaInt(boxed ? o->getRepr() : StringRef(o->getFields()[1].text));
    DataType dtype =
        boxed ? DataType::int64() : *DataType::parse(o->getFields()[0].text);
    if (dtype.isBool())
      return AttrValue::boolean(value != 0);
    // A boxed int is whatever the literal `3` would be where it fits.
    if (boxed && value >= INT32_MIN && value <= INT32_MAX)
      dtype = DataType::int32();
    return AttrValue::integer(value, dtype);
  }
  if (typeKey == "runtime.BoxFloat")
    return AttrValue::floating(*parseMetaFloat(o->getRepr()),
                               DataType::float32());
  if (typeKey == "FloatImm")
    return AttrValue::floating(*parseMetaFloat(o->getFields()[1].text),
                               *DataType::parse(o->getFields()[0].text));
  if (typeKey == "runtime.BoxBool")
    return AttrValue::boolean(o->getRepr() == "true");
  if (typeKey == "runtime.String")
    return AttrValue::string(o->getRepr());
  if (typeKey == "Array") {
    Expected<std::vector<int64_t>> ids =
        getIdList(*nodes[id].getAsObject(), id, "data");
    if (!ids)
      return ids.takeError();
    std::vector<AttrValue> elements;
    for (int64_t elementId : *ids) {
      Expected<AttrValue> element = decodeValue(elementId, depth + 1);
      if (!element)
        return element.takeError();
      elements.push_back(std::move(*element));
    }
    return AttrValue::array(std::move(elements));
  }
  // VirtualDevice, Target, Map, ...: no literal, kept as the object.
  return AttrValue::object(std::move(*object));
}

Expected<std::optional<AttrValue>> MetadataDecoder::decodeEntry(int64_t id,
                                                                StringRef key) {
  if (!lookupSchema(key))
    return std::nullopt;
  Expected<StringRef> typeKey = getTypeKey(id);
  if (!typeKey)
    return typeKey.takeError();
  // TVM's printer files each object under its own type key.
  if (*typeKey != key)
    return metadataError("node " + Twine(id) + " is a '" + *typeKey +
                         "' but is listed under '" + key + "'");
  Expected<AttrValue> value = decodeValue(id, 0);
  if (!value)
    return value.takeError();
  return std::optional<AttrValue>(std::move(*value));
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
    if (key == "relay.Constant") {
      for (int64_t elementId : *elements) {
        Expected<Ref<Constant>> constant = decodeConstant(elementId);
        if (!constant)
          return constant.takeError();
        table.constants.push_back(std::move(*constant));
      }
      continue;
    }
    std::vector<AttrValue> values;
    for (int64_t elementId : *elements) {
      Expected<std::optional<AttrValue>> value = decodeEntry(elementId, key);
      if (!value)
        return value.takeError();
      if (!*value)
        break; // A kind nnir does not read: only counted.
      values.push_back(std::move(**value));
    }
    if (values.size() == elements->size())
      table.values[key] = std::move(values);
  }
  return table;
}

/// Decodes the metadata JSON \p json; \p split, if given, holds its
/// tensors, taken out of \p json by splitTensors.
static Expected<MetadataTable> decodeJSON(StringRef json,
                                          const MetadataLimits &limits,
                                          const SplitMetadata *split) {
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
  std::vector<TensorText> tensors;
  if (const json::Value *b64 = object->get("b64ndarrays")) {
    const json::Array *array = b64->getAsArray();
    if (!array)
      return metadataError("'b64ndarrays' is not an array");
    for (const json::Value &element : *array)
      tensors.push_back({element.getAsString(), NDArray()});
  }
  if (split) {
    assert(tensors.empty() && "the tensors were taken out of the JSON");
    tensors = split->tensors;
  }
  MetadataDecoder decoder(*nodes, tensors, limits);
  Expected<MetadataTable> table = decoder.decode(*root);
  if (!table || !split)
    return table;
  // A string that did not decode and that no constant refers to has not
  // been checked to be what llvm::json accepts; printable ASCII is.
  for (const TensorText &tensor : tensors)
    if (!tensor.array &&
        !llvm::all_of(*tensor.text, [](char c) { return isPrint(c); }))
      return metadataError("a b64ndarrays string is not ASCII");
  return table;
}

Expected<MetadataTable>
nnir::decodeMetadata(StringRef json, const MetadataLimits &limits,
                     function_ref<void(StringRef)> release) {
  std::optional<SplitMetadata> split = splitTensors(json, limits, release);
  if (!split)
    return decodeJSON(json, limits, nullptr);
  Expected<MetadataTable> table = decodeJSON(split->rest, limits, &*split);
  if (table)
    return table;
  // The JSON without its tensors may be well-formed where the whole is not
  // (a control character in a tensor's string): the error is the one reading
  // the whole in one piece gives, as it always was.
  consumeError(table.takeError());
  split.reset();
  return decodeJSON(json, limits, nullptr);
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
  /// The b64ndarrays field: each tensor's saved form base64-encoded straight
  /// into the stream, a chunk at a time (the encoding has no character that
  /// needs escaping), so no copy of a tensor is ever made.
  void tensorArray(ArrayRef<const NDArray *> tensors) {
    beginArray(true);
    for (const NDArray *tensor : tensors) {
      arrayItem();
      os << '"';
      // A tensor still in the text it was read from is copied from there.
      if (!tensor->writeSavedBase64(os)) {
        Base64Writer base64(os);
        base64.write(tensor->saveHeader());
        base64.write(tensor->getBytes());
        base64.finish();
      }
      os << '"';
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
  std::string repr;
  std::map<std::string, std::string> attrs;
  std::vector<std::string> keys;
  std::vector<int64_t> data;
};

/// Builds the node list in TVM's order: ids follow a pre-order depth-first
/// walk from the root Map (its Arrays in key order, each followed by its
/// elements and what they reach, in VisitAttrs order); shared objects are
/// written once.
class MetadataEncoder {
public:
  MetadataEncoder() : nodes(2) { nodes[1].typeKey = "Map"; }

  /// Adds the Array of the entries under \p key; returns its id.
  int64_t addKey(StringRef key) {
    nodes[1].keys.push_back(key.str());
    int64_t id = nodes.size();
    nodes[1].data.push_back(id);
    nodes.emplace_back();
    nodes.back().typeKey = "Array";
    return id;
  }
  void addConstant(int64_t arrayId, const Constant *constant);
  void addObject(int64_t arrayId, const MetaObject *object) {
    int64_t id = addObject(object);
    nodes[arrayId].data.push_back(id);
  }
  void write(raw_ostream &os) const;

private:
  int64_t addObject(const MetaObject *object);

  std::vector<JSONNode> nodes;
  std::vector<const NDArray *> tensors;
  DenseMap<const Constant *, int64_t> constantIds;
  DenseMap<const MetaObject *, int64_t> objectIds;
  DenseMap<const void *, int64_t> tensorIds;
  int64_t virtualDeviceId = -1;
};

} // namespace

void MetadataEncoder::addConstant(int64_t arrayId, const Constant *constant) {
  auto known = constantIds.find(constant);
  if (known != constantIds.end()) {
    nodes[arrayId].data.push_back(known->second);
    return;
  }
  int64_t id = nodes.size();
  constantIds[constant] = id;
  nodes[arrayId].data.push_back(id);
  nodes.emplace_back();
  nodes.back().typeKey = "relay.Constant";

  const NDArray &data = constant->getData();
  auto [tensorIt, isNewTensor] =
      tensorIds.insert({data.getIdentity(), int64_t(tensors.size())});
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

int64_t MetadataEncoder::addObject(const MetaObject *object) {
  if (!object)
    return 0;
  auto [known, isNew] = objectIds.insert({object, int64_t(nodes.size())});
  if (!isNew)
    return known->second;
  int64_t id = known->second;
  nodes.emplace_back();
  nodes[id].typeKey = object->getTypeKey().str();
  nodes[id].repr = object->getRepr().str();
  nodes[id].keys = object->getKeys().vec();
  for (const MetaObject::Field &field : object->getFields()) {
    std::string value = field.isObject
                            ? std::to_string(addObject(field.object.get()))
                            : field.text;
    nodes[id].attrs[field.name] = std::move(value);
  }
  for (const Ref<MetaObject> &element : object->getElements()) {
    int64_t elementId = addObject(element.get());
    nodes[id].data.push_back(elementId);
  }
  return id;
}

void MetadataEncoder::write(raw_ostream &os) const {
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
    if (!node.repr.empty()) {
      // TVM's choice: the bytes as they are when all are printable.
      if (llvm::all_of(node.repr, [](char c) { return isPrint(c); })) {
        writer.key("repr_str");
        writer.string(node.repr);
      } else {
        writer.key("repr_b64");
        writer.string(encodeBase64(node.repr));
      }
    }
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

std::string nnir::encodeMetadata(ArrayRef<const Constant *> constants,
                                 ArrayRef<const MetaObject *> objects) {
  std::string out;
  raw_string_ostream os(out);
  encodeMetadata(constants, objects, os);
  return out;
}

void nnir::encodeMetadata(ArrayRef<const Constant *> constants,
                          ArrayRef<const MetaObject *> objects,
                          raw_ostream &os) {
  MetadataEncoder encoder;
  if (!constants.empty() || objects.empty()) {
    int64_t arrayId = encoder.addKey("relay.Constant");
    for (const Constant *constant : constants)
      encoder.addConstant(arrayId, constant);
  }
  // One key per type key, in order of first appearance.
  std::vector<StringRef> keys;
  for (const MetaObject *object : objects)
    if (!llvm::is_contained(keys, object->getTypeKey()))
      keys.push_back(object->getTypeKey());
  for (StringRef key : keys) {
    int64_t arrayId = encoder.addKey(key);
    for (const MetaObject *object : objects)
      if (object->getTypeKey() == key)
        encoder.addObject(arrayId, object);
  }
  encoder.write(os);
}
