//===- KernelKey.h - Cache keys of primitive functions -----------*- C++
//-*-===//
//
/// \file
/// The key under which a compiled kernel is cached: the structure of a
/// primitive function with its constants lifted to parameters (TVM's
/// cache key), so functions that differ only in constant values share a
/// kernel; for shape-generic functions (nnir/Codegen/Lowering.h) a shape is
/// reduced to the merged axes it spans, so functions that differ only in
/// the extents of those axes share one too.
///
/// The key is a flat word sequence (operators by registry index, attribute
/// hashes, node numbering in post-order, dtypes and shapes) plus the
/// attribute records themselves: two keys are equal when their words are
/// equal and their records are pairwise equal (attrsEqual), so a hash
/// collision never returns the wrong kernel. Building a key walks the
/// function once and allocates nothing per node beyond the word vector.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_EXECUTIONENGINE_KERNELKEY_H
#define NNIR_EXECUTIONENGINE_KERNELKEY_H

#include "nnir/IR/Attrs.h"
#include "nnir/IR/Expr.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace nnir {

class GenericShape;

class KernelKey {
public:
  /// The key of the primitive function \p fn; \p generic is
  /// GenericShape::get(fn) (null for a shape-specific kernel).
  static KernelKey get(const Function &fn, const GenericShape *generic);

  llvm::hash_code getHash() const { return hash; }
  bool isShapeGeneric() const { return shapeGeneric; }
  bool operator==(const KernelKey &other) const;

private:
  std::vector<uint64_t> words;
  std::vector<Ref<Attrs>> attrs;
  llvm::hash_code hash = 0;
  bool shapeGeneric = false;
};

} // namespace nnir

#endif // NNIR_EXECUTIONENGINE_KERNELKEY_H
