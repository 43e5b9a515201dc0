//===- Metadata.h - TVM's #[metadata] section --------------------*- C++ -*-===//
//
/// \file
/// The `#[metadata]` section that ends a module printed by TVM is TVM's
/// SaveJSON of a Map<String, Array<Object>>: a list of JSON nodes, the root a
/// Map whose keys are type keys ("relay.Constant") and whose values are
/// Arrays of node ids, plus base64-encoded NDArrays in TVM's binary format.
/// `meta[relay.Constant][i]` in the text refers to element i of that table;
/// other keys hold the boxed values, immediates, strings, arrays, virtual
/// devices and targets TVM's printer puts there for attribute values.
///
/// This header is the one place that knows the format: the parser decodes it
/// and the printer encodes it, in TVM's exact layout (dmlc JSON writer
/// spacing, every field a VisitAttrs would write), so TVM loads what nnir
/// prints and nnir loads what TVM prints.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_METADATA_H
#define NNIR_IR_METADATA_H

#include "nnir/IR/AttrValue.h"
#include "nnir/IR/Object.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nnir {

class Constant;

/// A node of TVM's object graph that nnir keeps as it was read, because no
/// nnir class stands for it: the VirtualDevice or Target an attribute refers
/// to (`on_device(..., virtual_device=meta[VirtualDevice][0])`), and the
/// strings, arrays, maps, target kinds and immediates those hold. It prints
/// back as `meta[<type key>][i]` with the same node graph in the metadata
/// section, so TVM reads what it wrote. Immutable once built.
class MetaObject : public Object {
public:
  /// An attribute of the node: TVM's string encoding of a scalar field
  /// ("-1", "float32"), or an object (null for TVM's "0").
  struct Field {
    std::string name;
    bool isObject = false;
    std::string text;
    Ref<MetaObject> object;
  };

  /// \p fields in the order TVM's VisitAttrs visits them; \p repr is the
  /// repr bytes of string-like nodes (runtime.String, TargetKind); \p keys
  /// the string keys of a Map; \p elements an Array's elements or a Map's
  /// values (after its keys when they are objects).
  static Ref<MetaObject> get(std::string typeKey, std::string repr,
                             std::vector<Field> fields,
                             std::vector<std::string> keys,
                             std::vector<Ref<MetaObject>> elements);

  llvm::StringRef getTypeKey() const { return typeKey; }
  llvm::StringRef getRepr() const { return repr; }
  llvm::ArrayRef<Field> getFields() const { return fields; }
  llvm::ArrayRef<std::string> getKeys() const { return keys; }
  llvm::ArrayRef<Ref<MetaObject>> getElements() const { return elements; }
  /// The field named \p name, or null.
  const Field *getField(llvm::StringRef name) const;

  /// Structural equality and hashing (null objects are equal to each other).
  static bool isEqual(const MetaObject *a, const MetaObject *b);
  friend llvm::hash_code hash_value(const MetaObject &object);

private:
  MetaObject() = default;

  std::string typeKey;
  std::string repr;
  std::vector<Field> fields;
  std::vector<std::string> keys;
  std::vector<Ref<MetaObject>> elements;
};

llvm::hash_code hash_value(const MetaObject &object);

/// The decoded table.
struct MetadataTable {
  /// The entries under "relay.Constant".
  std::vector<Ref<Constant>> constants;
  /// The entries of the other kinds nnir reads, as the attribute values they
  /// stand for: runtime.BoxInt, IntImm -> an integer; runtime.BoxFloat,
  /// FloatImm -> a float; runtime.BoxBool (and a bool IntImm) -> a bool;
  /// runtime.String -> a string; Array -> a list; VirtualDevice, Target and
  /// Map -> an object (MetaObject).
  llvm::StringMap<std::vector<AttrValue>> values;
  /// Number of entries per type key (including the above), so a reference to
  /// a kind nnir cannot read (tir.Var, ...) can be reported precisely.
  llvm::StringMap<size_t> entryCounts;
};

struct MetadataLimits {
  /// Largest tensor (in bytes) a metadata entry may hold.
  uint64_t maxTensorBytes = UINT64_MAX;
  /// When set, the owner of the section's text (a mapped file), which must
  /// not change while it is held: the tensors that the printer would write
  /// as they are written are checked but not decoded, and keep the owner
  /// until their data is first needed (NDArray::loadBase64Lazy); printing
  /// one copies its text. releaseText, if set, drops text from memory once
  /// such a tensor has read it.
  std::shared_ptr<const void> textOwner;
  std::function<void(llvm::StringRef)> releaseText;
};

/// Decodes a metadata section (the JSON text after `#[metadata]`). Errors
/// describe what is wrong (malformed JSON, missing fields, bad base64, a
/// tensor whose size does not match its shape, a malformed boxed value, an
/// entry whose node is not of its key's kind, ...).
///
/// The tensors are decoded from \p json in place, each straight into its
/// array's buffer. \p release, if given, is called with the text of each
/// tensor once it has been decoded: a caller whose \p json is a mapped file
/// can drop those pages, so the text and the tensors it encodes are not
/// resident together (the section is not read again, except to describe an
/// error).
llvm::Expected<MetadataTable>
decodeMetadata(llvm::StringRef json, const MetadataLimits &limits = {},
               llvm::function_ref<void(llvm::StringRef)> release = {});

/// Encodes \p constants and \p objects as TVM's metadata JSON (no trailing
/// newline), so that `meta[relay.Constant][i]` refers to constants[i] and
/// `meta[K][j]` to the j-th object of type key K in \p objects.
std::string encodeMetadata(llvm::ArrayRef<const Constant *> constants,
                           llvm::ArrayRef<const MetaObject *> objects = {});
/// The same, written to \p os as it is produced (each tensor is encoded
/// when it is written, so printing a model does not hold its weights
/// twice more in memory).
void encodeMetadata(llvm::ArrayRef<const Constant *> constants,
                    llvm::ArrayRef<const MetaObject *> objects,
                    llvm::raw_ostream &os);

} // namespace nnir

#endif // NNIR_IR_METADATA_H
