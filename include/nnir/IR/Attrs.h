//===- Attrs.h - Attribute records of calls and functions -------*- C++ -*-===//
//
/// \file
/// Operators declare typed attribute records (conv2d's strides, padding...).
/// A record is declared once, as a list of fields with names and defaults, in
/// a `visitFields` template; defaults, parsing from keyword arguments,
/// printing, structural equality, hashing and documentation all come from that
/// one declaration (TVM's TVM_DECLARE_ATTRS idea):
///
/// \code
///   struct Conv2DAttrs : AttrsNode<Conv2DAttrs> {
///     static constexpr llvm::StringLiteral typeKey = "relay.attrs.Conv2DAttrs";
///     std::vector<int64_t> strides;
///     std::optional<int64_t> channels;
///     std::string dataLayout;
///     template <typename V> void visitFields(V &v) {
///       v("strides", strides, {1, 1});     // field with a default
///       v("channels", channels, std::nullopt);
///       v("data_layout", dataLayout, "NCHW");
///     }
///   };
///   struct DenseAttrs : AttrsNode<DenseAttrs> { ...
///       v("units", units);                  // required: no default
/// \endcode
///
/// Supported field types: int64_t, double, bool, std::string, DataType,
/// std::vector<T> and std::optional<T> of those (nested), and AttrValue (any
/// value, for fields TVM types as a variant).
///
/// Functions (and calls of non-operators) carry DictAttrs: an ordered list of
/// untyped `name=value` pairs (`Primitive=1`).
///
/// Records have LLVM-style RTTI: `dyn_cast<Conv2DAttrs>(attrs)`. A record's
/// identity is its type key, interned as a TypeId (nnir/Support/TypeId.h), so
/// a cast in a plugin built with -fvisibility=hidden recognises the records
/// the tool's libraries create; every record type needs a unique key.
/// Records are immutable once shared; `with()` copies one with some fields
/// changed:
///
/// \code
///   if (const auto *conv = call->getAttrsAs<Conv2DAttrs>())
///     Ref<Conv2DAttrs> nhwc = conv->with([](Conv2DAttrs &a) {
///       a.dataLayout = "NHWC";
///       a.kernelLayout = "HWIO";
///     });
/// \endcode
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_ATTRS_H
#define NNIR_IR_ATTRS_H

#include "nnir/IR/AttrValue.h"
#include "nnir/IR/Object.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Support/TypeId.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace nnir {

/// Documentation of one field, for `--list-ops`.
struct AttrFieldInfo {
  std::string name;
  std::string typeName;
  /// The default in text form; std::nullopt for a required field.
  std::optional<std::string> defaultText;
};

/// Base class of every attribute record.
class Attrs : public Object {
public:
  /// The record type, for LLVM-style RTTI (classof).
  TypeId getTypeId() const { return typeId; }
  /// TVM's type key ("relay.attrs.Conv2DAttrs", "DictAttrs").
  virtual llvm::StringRef getTypeKey() const = 0;

  /// Appends the fields in declaration order. With \p nonDefaultOnly, fields
  /// equal to their default are left out (required fields never are).
  virtual void getFields(llvm::SmallVectorImpl<NamedAttrValue> &out,
                         bool nonDefaultOnly = false) const = 0;

  /// Same record type and equal field values.
  virtual bool equals(const Attrs &other) const = 0;
  virtual llvm::hash_code hash() const = 0;

  virtual void describeFields(llvm::SmallVectorImpl<AttrFieldInfo> &out) const = 0;

  /// A copy of the record with the fields named in \p changes converted from
  /// their values (as the parser converts keyword arguments); an unknown name
  /// or a mistyped value is an error that names \p ownerName. For passes
  /// that edit records they do not know the type of; typed code uses
  /// AttrsNode::with().
  virtual llvm::Expected<Ref<Attrs>>
  withValues(llvm::ArrayRef<NamedAttrValue> changes,
             llvm::StringRef ownerName = "") const = 0;

  /// True for untyped DictAttrs.
  bool isDictAttrs() const;

protected:
  explicit Attrs(TypeId typeId) : typeId(typeId) {}

private:
  TypeId typeId;
};

/// Null-safe structural equality of two attribute records.
bool attrsEqual(const Attrs *a, const Attrs *b);
llvm::hash_code hashAttrs(const Attrs *attrs);

/// Untyped attributes: function attributes and attributes of calls whose
/// callee is not an operator.
class DictAttrs final : public Attrs {
public:
  static constexpr llvm::StringLiteral typeKey = "DictAttrs";

  static Ref<DictAttrs> get(llvm::ArrayRef<NamedAttrValue> entries);

  llvm::ArrayRef<NamedAttrValue> getEntries() const { return entries; }
  bool empty() const { return entries.empty(); }
  /// The value of \p name, or null.
  const AttrValue *lookup(llvm::StringRef name) const;
  /// A copy with \p name set to \p value (replaced or appended).
  Ref<DictAttrs> with(llvm::StringRef name, AttrValue value) const;
  /// A copy without \p name.
  Ref<DictAttrs> without(llvm::StringRef name) const;

  llvm::StringRef getTypeKey() const override { return typeKey; }
  void getFields(llvm::SmallVectorImpl<NamedAttrValue> &out,
                 bool nonDefaultOnly = false) const override;
  bool equals(const Attrs &other) const override;
  llvm::hash_code hash() const override;
  void describeFields(llvm::SmallVectorImpl<AttrFieldInfo> &out) const override;
  /// Replaces or appends every entry of \p changes.
  llvm::Expected<Ref<Attrs>>
  withValues(llvm::ArrayRef<NamedAttrValue> changes,
             llvm::StringRef ownerName = "") const override;

  static TypeId getStaticTypeId();
  static bool classof(const Attrs *a) {
    return a->getTypeId() == getStaticTypeId();
  }

private:
  explicit DictAttrs(llvm::ArrayRef<NamedAttrValue> entries)
      : Attrs(getStaticTypeId()), entries(entries.begin(), entries.end()) {}
  std::vector<NamedAttrValue> entries;
};

inline bool Attrs::isDictAttrs() const { return llvm::isa<DictAttrs>(this); }

//===----------------------------------------------------------------------===//
// Field traits: conversion of typed fields from and to AttrValue
//===----------------------------------------------------------------------===//

/// AttrFieldTraits<T> gives, for a field type T: typeName(), toValue(),
/// fromValue() (an error message on mismatch), equal() and hash().
template <typename T, typename = void> struct AttrFieldTraits;

template <> struct AttrFieldTraits<int64_t> {
  static std::string typeName() { return "int"; }
  static AttrValue toValue(int64_t v) { return AttrValue::integer(v); }
  static llvm::Error fromValue(const AttrValue &v, int64_t &out);
  static bool equal(int64_t a, int64_t b) { return a == b; }
  static llvm::hash_code hash(int64_t v) { return llvm::hash_value(v); }
};

template <> struct AttrFieldTraits<double> {
  static std::string typeName() { return "float"; }
  static AttrValue toValue(double v) { return AttrValue::floating(v); }
  static llvm::Error fromValue(const AttrValue &v, double &out);
  /// Bitwise, so that NaN equals NaN and -0 differs from 0.
  static bool equal(double a, double b);
  static llvm::hash_code hash(double v);
};

template <> struct AttrFieldTraits<bool> {
  static std::string typeName() { return "bool"; }
  static AttrValue toValue(bool v) { return AttrValue::boolean(v); }
  static llvm::Error fromValue(const AttrValue &v, bool &out);
  static bool equal(bool a, bool b) { return a == b; }
  static llvm::hash_code hash(bool v) { return llvm::hash_value(v); }
};

template <> struct AttrFieldTraits<std::string> {
  static std::string typeName() { return "string"; }
  static AttrValue toValue(const std::string &v) {
    return AttrValue::string(v);
  }
  static llvm::Error fromValue(const AttrValue &v, std::string &out);
  static bool equal(const std::string &a, const std::string &b) {
    return a == b;
  }
  static llvm::hash_code hash(const std::string &v) {
    return llvm::hash_value(v);
  }
};

template <> struct AttrFieldTraits<DataType> {
  static std::string typeName() { return "dtype"; }
  static AttrValue toValue(DataType v) { return AttrValue::string(v.str()); }
  static llvm::Error fromValue(const AttrValue &v, DataType &out);
  static bool equal(DataType a, DataType b) { return a == b; }
  static llvm::hash_code hash(DataType v) { return hash_value(v); }
};

template <> struct AttrFieldTraits<AttrValue> {
  static std::string typeName() { return "any"; }
  static AttrValue toValue(const AttrValue &v) { return v; }
  static llvm::Error fromValue(const AttrValue &v, AttrValue &out) {
    out = v;
    return llvm::Error::success();
  }
  static bool equal(const AttrValue &a, const AttrValue &b) { return a == b; }
  static llvm::hash_code hash(const AttrValue &v) { return hash_value(v); }
};

/// Builds "expected <what>, got <value kind>".
llvm::Error makeAttrTypeError(llvm::StringRef expected, const AttrValue &got);

template <typename T> struct AttrFieldTraits<std::vector<T>> {
  using Elem = AttrFieldTraits<T>;
  static std::string typeName() { return "list of " + Elem::typeName(); }
  static AttrValue toValue(const std::vector<T> &v) {
    std::vector<AttrValue> elems;
    elems.reserve(v.size());
    for (const T &e : v)
      elems.push_back(Elem::toValue(e));
    return AttrValue::array(std::move(elems));
  }
  static llvm::Error fromValue(const AttrValue &v, std::vector<T> &out) {
    if (v.getKind() != AttrValue::Kind::Array)
      return makeAttrTypeError(typeName(), v);
    out.clear();
    for (const AttrValue &e : v.getArray()) {
      T elem{};
      if (llvm::Error err = Elem::fromValue(e, elem)) {
        llvm::consumeError(std::move(err));
        return makeAttrTypeError(typeName(), e);
      }
      out.push_back(std::move(elem));
    }
    return llvm::Error::success();
  }
  static bool equal(const std::vector<T> &a, const std::vector<T> &b) {
    if (a.size() != b.size())
      return false;
    for (size_t i = 0, e = a.size(); i != e; ++i)
      if (!Elem::equal(a[i], b[i]))
        return false;
    return true;
  }
  static llvm::hash_code hash(const std::vector<T> &v) {
    llvm::hash_code h = llvm::hash_value(v.size());
    for (const T &e : v)
      h = llvm::hash_combine(h, Elem::hash(e));
    return h;
  }
};

template <typename T> struct AttrFieldTraits<std::optional<T>> {
  using Elem = AttrFieldTraits<T>;
  static std::string typeName() { return "optional " + Elem::typeName(); }
  static AttrValue toValue(const std::optional<T> &v) {
    return v ? Elem::toValue(*v) : AttrValue::none();
  }
  static llvm::Error fromValue(const AttrValue &v, std::optional<T> &out) {
    if (v.isNone()) {
      out.reset();
      return llvm::Error::success();
    }
    T value{};
    if (llvm::Error err = Elem::fromValue(v, value))
      return err;
    out = std::move(value);
    return llvm::Error::success();
  }
  static bool equal(const std::optional<T> &a, const std::optional<T> &b) {
    if (a.has_value() != b.has_value())
      return false;
    return !a || Elem::equal(*a, *b);
  }
  static llvm::hash_code hash(const std::optional<T> &v) {
    return v ? llvm::hash_combine(1, Elem::hash(*v)) : llvm::hash_value(0);
  }
};

//===----------------------------------------------------------------------===//
// AttrsNode: everything derived from visitFields
//===----------------------------------------------------------------------===//

namespace detail {
template <typename T> struct Identity {
  using type = T;
};

/// Sets every field that has a default.
struct AttrDefaultSetter {
  template <typename T> void operator()(llvm::StringRef, T &) {}
  template <typename T>
  void operator()(llvm::StringRef, T &field,
                  const typename Identity<T>::type &def) {
    field = def;
  }
};

/// Lists fields as AttrValues.
struct AttrValueLister {
  llvm::SmallVectorImpl<NamedAttrValue> &out;
  bool nonDefaultOnly;
  template <typename T> void operator()(llvm::StringRef name, T &field) {
    out.push_back({name.str(), AttrFieldTraits<T>::toValue(field), {}});
  }
  template <typename T>
  void operator()(llvm::StringRef name, T &field,
                  const typename Identity<T>::type &def) {
    if (nonDefaultOnly && AttrFieldTraits<T>::equal(field, def))
      return;
    out.push_back({name.str(), AttrFieldTraits<T>::toValue(field), {}});
  }
};

/// Records the address of every field (first half of a pairwise visit).
struct AttrAddressCollector {
  llvm::SmallVectorImpl<const void *> &addresses;
  template <typename T> void operator()(llvm::StringRef, T &field) {
    addresses.push_back(&field);
  }
  template <typename T>
  void operator()(llvm::StringRef, T &field,
                  const typename Identity<T>::type &) {
    addresses.push_back(&field);
  }
};

/// Compares every field with the field at the same position of another
/// record of the same type.
struct AttrEqualVisitor {
  llvm::ArrayRef<const void *> others;
  size_t index = 0;
  bool equal = true;
  template <typename T> void operator()(llvm::StringRef, T &field) {
    const T &other = *static_cast<const T *>(others[index++]);
    equal = equal && AttrFieldTraits<T>::equal(field, other);
  }
  template <typename T>
  void operator()(llvm::StringRef name, T &field,
                  const typename Identity<T>::type &) {
    (*this)(name, field);
  }
};

/// Copies every field from the field at the same position of another record
/// of the same type.
struct AttrCopier {
  llvm::ArrayRef<const void *> others;
  size_t index = 0;
  template <typename T> void operator()(llvm::StringRef, T &field) {
    field = *static_cast<const T *>(others[index++]);
  }
  template <typename T>
  void operator()(llvm::StringRef name, T &field,
                  const typename Identity<T>::type &) {
    (*this)(name, field);
  }
};

struct AttrHasher {
  llvm::hash_code hash;
  template <typename T> void operator()(llvm::StringRef, T &field) {
    hash = llvm::hash_combine(hash, AttrFieldTraits<T>::hash(field));
  }
  template <typename T>
  void operator()(llvm::StringRef name, T &field,
                  const typename Identity<T>::type &) {
    (*this)(name, field);
  }
};

struct AttrDescriber {
  llvm::SmallVectorImpl<AttrFieldInfo> &out;
  template <typename T> void operator()(llvm::StringRef name, T &) {
    out.push_back({name.str(), AttrFieldTraits<T>::typeName(), std::nullopt});
  }
  template <typename T>
  void operator()(llvm::StringRef name, T &,
                  const typename Identity<T>::type &def) {
    std::string text;
    llvm::raw_string_ostream os(text);
    AttrFieldTraits<T>::toValue(def).print(os);
    out.push_back({name.str(), AttrFieldTraits<T>::typeName(), os.str()});
  }
};

/// Fills fields from keyword arguments. Reports mistyped values, missing
/// required fields and (after the visit, see finish()) unknown keys.
class AttrInitializer {
public:
  /// With \p partial, fields missing from \p kwargs keep their values
  /// (required ones too): the record is being updated, not created.
  AttrInitializer(llvm::ArrayRef<NamedAttrValue> kwargs, llvm::SMLoc callLoc,
                  llvm::StringRef ownerName, bool partial = false)
      : kwargs(kwargs), used(kwargs.size(), false), callLoc(callLoc),
        ownerName(ownerName), partial(partial) {}

  template <typename T> void operator()(llvm::StringRef name, T &field) {
    const NamedAttrValue *kw = find(name);
    if (!kw) {
      if (missing.empty() && !partial)
        missing = name.str();
      return;
    }
    convert(name, *kw, field);
  }
  template <typename T>
  void operator()(llvm::StringRef name, T &field,
                  const typename Identity<T>::type &def) {
    if (const NamedAttrValue *kw = find(name))
      convert(name, *kw, field);
  }

  /// Reports the first problem: an unknown or repeated keyword or a mistyped
  /// value, whichever comes first in the source, then a missing required
  /// field (so a misspelled required field reports the misspelling).
  /// \p record (the record being filled) lists the valid names in the
  /// message for an unknown keyword; it is not described otherwise.
  llvm::Error finish(const Attrs &record);

private:
  const NamedAttrValue *find(llvm::StringRef name);
  template <typename T>
  void convert(llvm::StringRef name, const NamedAttrValue &kw, T &field) {
    if (error)
      return;
    if (llvm::Error err = AttrFieldTraits<T>::fromValue(kw.value, field))
      error = conversionError(name, kw, std::move(err));
  }
  std::optional<std::string> conversionError(llvm::StringRef name,
                                             const NamedAttrValue &kw,
                                             llvm::Error err);

  llvm::ArrayRef<NamedAttrValue> kwargs;
  std::vector<bool> used;
  llvm::SMLoc callLoc;
  llvm::SMLoc errorLoc;
  llvm::StringRef ownerName;
  bool partial;
  std::optional<std::string> error;
  std::string missing;
};
} // namespace detail

/// CRTP base of typed attribute records. Derived provides
/// `static constexpr llvm::StringLiteral typeKey` (unique: it is the record's
/// identity) and `template <typename V> void visitFields(V &v)`.
template <typename Derived> class AttrsNode : public Attrs {
public:
  /// The identity of Derived records: its interned type key.
  static TypeId getStaticTypeId() {
    static const TypeId id = TypeId::getFromName(Derived::typeKey);
    return id;
  }
  static bool classof(const Attrs *a) {
    return a->getTypeId() == getStaticTypeId();
  }

  /// A record with every default applied (required fields value-initialised).
  static Ref<Derived> create() {
    Ref<Derived> attrs(new Derived());
    detail::AttrDefaultSetter setter;
    attrs->visitFields(setter);
    return attrs;
  }

  /// A record from keyword arguments; \p ownerName (the operator) and
  /// \p callLoc are used in diagnostics.
  static llvm::Expected<Ref<Attrs>>
  createFromValues(llvm::ArrayRef<NamedAttrValue> kwargs, llvm::SMLoc callLoc,
                   llvm::StringRef ownerName) {
    Ref<Derived> attrs = create();
    detail::AttrInitializer init(kwargs, callLoc, ownerName);
    attrs->visitFields(init);
    if (llvm::Error err = init.finish(*attrs))
      return err;
    return Ref<Attrs>(attrs);
  }

  /// A copy of this record (a new, unshared object).
  Ref<Derived> clone() const {
    Ref<Derived> copy(new Derived());
    llvm::SmallVector<const void *, 16> addresses;
    detail::AttrAddressCollector collector{addresses};
    self().visitFields(collector);
    detail::AttrCopier copier{addresses};
    copy->visitFields(copier);
    return copy;
  }

  /// A copy of this record changed by \p edit, a callable taking
  /// `Derived &`. The record itself is left as it is (it may be shared).
  template <typename EditFn> Ref<Derived> with(EditFn &&edit) const {
    Ref<Derived> copy = clone();
    edit(*copy);
    return copy;
  }

  llvm::Expected<Ref<Attrs>>
  withValues(llvm::ArrayRef<NamedAttrValue> changes,
             llvm::StringRef ownerName = "") const override {
    Ref<Derived> copy = clone();
    detail::AttrInitializer init(changes, llvm::SMLoc(),
                                 ownerName.empty()
                                     ? llvm::StringRef(Derived::typeKey)
                                     : ownerName,
                                 /*partial=*/true);
    copy->visitFields(init);
    if (llvm::Error err = init.finish(*copy))
      return err;
    return Ref<Attrs>(copy);
  }

  llvm::StringRef getTypeKey() const override { return Derived::typeKey; }

  void getFields(llvm::SmallVectorImpl<NamedAttrValue> &out,
                 bool nonDefaultOnly = false) const override {
    detail::AttrValueLister lister{out, nonDefaultOnly};
    self().visitFields(lister);
  }

  bool equals(const Attrs &other) const override {
    if (other.getTypeId() != getTypeId())
      return false;
    llvm::SmallVector<const void *, 16> addresses;
    detail::AttrAddressCollector collector{addresses};
    static_cast<Derived &>(const_cast<Attrs &>(other)).visitFields(collector);
    detail::AttrEqualVisitor comparer{addresses};
    self().visitFields(comparer);
    return comparer.equal;
  }

  llvm::hash_code hash() const override {
    detail::AttrHasher hasher{llvm::hash_value(getTypeKey())};
    self().visitFields(hasher);
    return hasher.hash;
  }

  void describeFields(llvm::SmallVectorImpl<AttrFieldInfo> &out) const override {
    detail::AttrDescriber describer{out};
    self().visitFields(describer);
  }

protected:
  AttrsNode() : Attrs(getStaticTypeId()) {}

private:
  Derived &self() const {
    return static_cast<Derived &>(const_cast<AttrsNode &>(*this));
  }
};

} // namespace nnir

#endif // NNIR_IR_ATTRS_H
