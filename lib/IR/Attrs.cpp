//===- Attrs.cpp - Attribute records of calls and functions ---------------===//
//
/// \file
/// Field conversions, keyword-argument initialisation with diagnostics, and
/// DictAttrs.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Attrs.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstring>

using namespace llvm;
using namespace nnir;

Error nnir::makeAttrTypeError(StringRef expected, const AttrValue &got) {
  return createStringError(inconvertibleErrorCode(),
                           "expected " + expected + ", got " + got.describe());
}

Error AttrFieldTraits<int64_t>::fromValue(const AttrValue &v, int64_t &out) {
  if (v.getKind() != AttrValue::Kind::Int &&
      v.getKind() != AttrValue::Kind::Bool)
    return makeAttrTypeError(typeName(), v);
  out = v.getInt();
  return Error::success();
}

Error AttrFieldTraits<double>::fromValue(const AttrValue &v, double &out) {
  if (v.getKind() == AttrValue::Kind::Float) {
    out = v.getFloat();
    return Error::success();
  }
  if (v.getKind() == AttrValue::Kind::Int) {
    out = static_cast<double>(v.getInt());
    return Error::success();
  }
  return makeAttrTypeError(typeName(), v);
}

bool AttrFieldTraits<double>::equal(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

hash_code AttrFieldTraits<double>::hash(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return llvm::hash_value(bits);
}

Error AttrFieldTraits<bool>::fromValue(const AttrValue &v, bool &out) {
  if (v.getKind() != AttrValue::Kind::Bool &&
      v.getKind() != AttrValue::Kind::Int)
    return makeAttrTypeError(typeName(), v);
  out = v.getInt() != 0;
  return Error::success();
}

Error AttrFieldTraits<std::string>::fromValue(const AttrValue &v,
                                              std::string &out) {
  if (v.getKind() != AttrValue::Kind::String)
    return makeAttrTypeError(typeName(), v);
  out = v.getString();
  return Error::success();
}

Error AttrFieldTraits<DataType>::fromValue(const AttrValue &v, DataType &out) {
  if (v.getKind() != AttrValue::Kind::String)
    return makeAttrTypeError("a dtype string", v);
  if (v.getString().empty()) {
    out = DataType();
    return Error::success();
  }
  std::optional<DataType> dtype = DataType::parse(v.getString());
  if (!dtype)
    return createStringError(inconvertibleErrorCode(),
                             "unknown dtype \"" + v.getString() +
                                 "\"; expected one of " +
                                 DataType::supportedNames());
  out = *dtype;
  return Error::success();
}

//===----------------------------------------------------------------------===//
// AttrInitializer
//===----------------------------------------------------------------------===//

namespace nnir::detail {

const NamedAttrValue *AttrInitializer::find(StringRef name) {
  for (size_t i = 0, e = kwargs.size(); i != e; ++i) {
    if (kwargs[i].name != name)
      continue;
    used[i] = true;
    return &kwargs[i];
  }
  return nullptr;
}

std::optional<std::string>
AttrInitializer::conversionError(StringRef name, const NamedAttrValue &kw,
                                 Error err) {
  errorLoc = kw.value.getLoc().isValid() ? kw.value.getLoc() : kw.loc;
  if (!errorLoc.isValid())
    errorLoc = callLoc;
  return ("attribute '" + name + "' of " + ownerName + ": " +
          toString(std::move(err)))
      .str();
}

Error AttrInitializer::finish(const Attrs &record) {
  // Report problems in source order: an unknown or repeated keyword that
  // comes before the first conversion error wins.
  for (size_t i = 0, e = kwargs.size(); i != e; ++i) {
    const NamedAttrValue &kw = kwargs[i];
    SMLoc loc = kw.loc.isValid() ? kw.loc : callLoc;
    if (error && errorLoc.isValid() && loc.isValid() &&
        errorLoc.getPointer() < loc.getPointer())
      break;
    for (size_t j = 0; j != i; ++j)
      if (kwargs[j].name == kw.name)
        return makeError(loc, "attribute '" + kw.name + "' of " + ownerName +
                                  " is given twice");
    if (used[i])
      continue;
    SmallVector<AttrFieldInfo, 8> fields;
    record.describeFields(fields);
    std::string valid;
    for (const AttrFieldInfo &field : fields) {
      if (!valid.empty())
        valid += ", ";
      valid += field.name;
    }
    if (valid.empty())
      return makeError(loc, "unknown attribute '" + kw.name + "': " +
                                ownerName + " takes no attributes");
    return makeError(loc, "unknown attribute '" + kw.name + "' of " +
                              ownerName + "; valid attributes are: " + valid);
  }
  if (error)
    return makeError(errorLoc, *error);
  if (!missing.empty())
    return makeError(callLoc, "missing required attribute '" + missing +
                                  "' of " + ownerName);
  return Error::success();
}

} // namespace nnir::detail

//===----------------------------------------------------------------------===//
// DictAttrs and helpers
//===----------------------------------------------------------------------===//

TypeId DictAttrs::getStaticTypeId() {
  static const TypeId id = TypeId::getFromName(typeKey);
  return id;
}

Ref<DictAttrs> DictAttrs::get(ArrayRef<NamedAttrValue> entries) {
  return Ref<DictAttrs>(new DictAttrs(entries));
}

const AttrValue *DictAttrs::lookup(StringRef name) const {
  for (const NamedAttrValue &entry : entries)
    if (entry.name == name)
      return &entry.value;
  return nullptr;
}

Ref<DictAttrs> DictAttrs::with(StringRef name, AttrValue value) const {
  std::vector<NamedAttrValue> copy = entries;
  for (NamedAttrValue &entry : copy) {
    if (entry.name == name) {
      entry.value = std::move(value);
      return get(copy);
    }
  }
  copy.push_back({name.str(), std::move(value), SMLoc()});
  return get(copy);
}

Ref<DictAttrs> DictAttrs::without(StringRef name) const {
  std::vector<NamedAttrValue> copy;
  for (const NamedAttrValue &entry : entries)
    if (entry.name != name)
      copy.push_back(entry);
  return get(copy);
}

Expected<Ref<Attrs>> DictAttrs::withValues(ArrayRef<NamedAttrValue> changes,
                                           StringRef) const {
  std::vector<NamedAttrValue> copy = entries;
  for (const NamedAttrValue &change : changes) {
    auto it = llvm::find_if(copy, [&](const NamedAttrValue &entry) {
      return entry.name == change.name;
    });
    if (it != copy.end())
      it->value = change.value;
    else
      copy.push_back(change);
  }
  return Ref<Attrs>(get(copy));
}

void DictAttrs::getFields(SmallVectorImpl<NamedAttrValue> &out,
                          bool nonDefaultOnly) const {
  out.append(entries.begin(), entries.end());
}

bool DictAttrs::equals(const Attrs &other) const {
  const auto *o = dyn_cast<DictAttrs>(&other);
  if (!o || o->entries.size() != entries.size())
    return false;
  for (size_t i = 0, e = entries.size(); i != e; ++i)
    if (entries[i].name != o->entries[i].name ||
        entries[i].value != o->entries[i].value)
      return false;
  return true;
}

hash_code DictAttrs::hash() const {
  hash_code h = llvm::hash_value(typeKey);
  for (const NamedAttrValue &entry : entries)
    h = hash_combine(h, entry.name, entry.value);
  return h;
}

void DictAttrs::describeFields(SmallVectorImpl<AttrFieldInfo> &out) const {
  for (const NamedAttrValue &entry : entries)
    out.push_back({entry.name, "any", std::nullopt});
}

bool nnir::attrsEqual(const Attrs *a, const Attrs *b) {
  if (a == b)
    return true;
  // A null record and an empty DictAttrs mean the same thing.
  auto isEmpty = [](const Attrs *x) {
    if (!x)
      return true;
    const auto *dict = dyn_cast<DictAttrs>(x);
    return dict && dict->empty();
  };
  if (isEmpty(a) && isEmpty(b))
    return true;
  if (!a || !b)
    return false;
  return a->equals(*b);
}

hash_code nnir::hashAttrs(const Attrs *attrs) {
  if (!attrs)
    return llvm::hash_value(0);
  if (const auto *dict = dyn_cast<DictAttrs>(attrs))
    if (dict->empty())
      return llvm::hash_value(0);
  return attrs->hash();
}
