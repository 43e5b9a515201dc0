//===- Metadata.h - TVM's #[metadata] section --------------------*- C++ -*-===//
//
/// \file
/// The `#[metadata]` section that ends a module printed by TVM is TVM's
/// SaveJSON of a Map<String, Array<Object>>: a list of JSON nodes, the root a
/// Map whose keys are type keys ("relay.Constant") and whose values are
/// Arrays of node ids, plus base64-encoded NDArrays in TVM's binary format.
/// `meta[relay.Constant][i]` in the text refers to element i of that table.
///
/// This header is the one place that knows the format: the parser decodes it
/// and the printer encodes it, in TVM's exact layout (dmlc JSON writer
/// spacing, every field a VisitAttrs would write), so TVM loads what nnir
/// prints and nnir loads what TVM prints.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_METADATA_H
#define NNIR_IR_METADATA_H

#include "nnir/IR/Object.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnir {

class Constant;

/// The decoded table: constants under "relay.Constant". Entries of other
/// type keys are kept by count only, so a reference to them can be reported
/// precisely.
struct MetadataTable {
  std::vector<Ref<Constant>> constants;
  /// Number of entries per type key (including "relay.Constant").
  llvm::StringMap<size_t> entryCounts;
};

struct MetadataLimits {
  /// Largest tensor (in bytes) a metadata entry may hold.
  uint64_t maxTensorBytes = UINT64_MAX;
};

/// Decodes a metadata section (the JSON text after `#[metadata]`). Errors
/// describe what is wrong (malformed JSON, missing fields, bad base64, a
/// tensor whose size does not match its shape, ...).
llvm::Expected<MetadataTable> decodeMetadata(llvm::StringRef json,
                                             const MetadataLimits &limits = {});

/// Encodes \p constants as TVM's metadata JSON (no trailing newline), so that
/// `meta[relay.Constant][i]` refers to constants[i].
std::string encodeMetadata(llvm::ArrayRef<const Constant *> constants);
/// The same, written to \p os as it is produced (each tensor is encoded
/// when it is written, so printing a model does not hold its weights
/// twice more in memory).
void encodeMetadata(llvm::ArrayRef<const Constant *> constants,
                    llvm::raw_ostream &os);

} // namespace nnir

#endif // NNIR_IR_METADATA_H
