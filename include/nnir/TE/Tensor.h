//===- Tensor.h - Tensors and stages of the tensor-expression layer -*- C++
//-*-===//
//
/// \file
/// A Tensor is a named, typed, shaped value produced by one stage:
///
/// - a **placeholder**: a buffer handed to the kernel (a parameter, a lifted
///   constant) — TVM's te.placeholder;
/// - a **compute** stage: a pure expression per output element over index
///   variables, possibly a reduction — TVM's te.compute, Halide's Func;
/// - an **extern** (structured) stage: a small imperative statement (loops,
///   stores, conditions; nnir/TE/Stmt.h) that writes one or more output
///   buffers, for operators whose loops need structure (sort, scan) — TVM's
///   te.extern with TIR.
///
/// Extents are expressions: constants, or variables bound when the kernel is
/// called (shape-generic kernels). What a compute says is *what* each
/// element is; *how* the loops run (inlining, materialisation, vectorisation,
/// parallelism) is Codegen's business.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TE_TENSOR_H
#define NNIR_TE_TENSOR_H

#include "nnir/TE/Expr.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>
#include <type_traits>
#include <vector>

namespace nnir::te {

class Stmt;
class ExternOpNode;

class TensorNode : public llvm::ThreadSafeRefCountedBase<TensorNode> {
public:
  enum class Kind : uint8_t { Placeholder, Compute, Extern };

  Kind getKind() const { return kind; }
  llvm::StringRef getName() const { return name; }
  DataType getDType() const { return dtype; }
  llvm::ArrayRef<Expr> getShape() const { return shape; }
  unsigned getRank() const { return shape.size(); }

  /// Compute stages: the index variables (one per output axis) and the
  /// element's expression over them.
  llvm::ArrayRef<Expr> getAxes() const { return axes; }
  const Expr &getBody() const { return body; }
  /// A compute stage that Codegen materialises into a buffer of its own
  /// instead of inlining it into its readers (Halide's compute_root): for a
  /// padded copy that a convolution reads many times.
  bool isMaterialized() const { return materialized; }

  /// Extern stages: the stage and which of its outputs this tensor is.
  const ExternOpNode *getExternOp() const { return externOp; }
  unsigned getOutputIndex() const { return outputIndex; }

  ~TensorNode();

private:
  friend class Tensor;
  friend Tensor placeholder(llvm::ArrayRef<Expr>, DataType, llvm::StringRef);
  friend Tensor compute(llvm::ArrayRef<Expr>,
                        llvm::function_ref<Expr(llvm::ArrayRef<Expr>)>,
                        llvm::StringRef, bool);
  friend std::vector<Tensor> externOp(
      llvm::StringRef, llvm::ArrayRef<Tensor>,
      llvm::ArrayRef<std::pair<std::vector<Expr>, DataType>>,
      llvm::function_ref<Stmt(llvm::ArrayRef<Tensor>, llvm::ArrayRef<Tensor>)>);
  TensorNode(Kind kind, llvm::StringRef name, DataType dtype,
             llvm::ArrayRef<Expr> shape)
      : kind(kind), name(name), dtype(dtype),
        shape(shape.begin(), shape.end()) {}

  Kind kind;
  std::string name;
  DataType dtype;
  std::vector<Expr> shape;
  std::vector<Expr> axes;
  Expr body;
  bool materialized = false;
  /// Owned reference (released in the destructor; ExternOpNode is defined
  /// in Stmt.h).
  const ExternOpNode *externOp = nullptr;
  unsigned outputIndex = 0;
};

/// A shared handle to a TensorNode.
class Tensor {
public:
  Tensor() = default;
  Tensor(const TensorNode *node) : node(node) {}

  const TensorNode *get() const { return node.get(); }
  const TensorNode *operator->() const { return node.get(); }
  explicit operator bool() const { return node != nullptr; }
  bool sameAs(const Tensor &other) const { return node == other.node; }

  DataType getDType() const { return node->getDType(); }
  llvm::ArrayRef<Expr> getShape() const { return node->getShape(); }
  unsigned getRank() const { return node->getRank(); }

  /// The element at \p indices (one per axis).
  Expr operator()(llvm::ArrayRef<Expr> indices) const;
  template <typename... Ts, typename = std::enable_if_t<
                                (std::is_convertible_v<Ts, Expr> && ...)>>
  Expr operator()(Ts... indices) const {
    return (*this)(llvm::ArrayRef<Expr>({Expr(indices)...}));
  }

private:
  llvm::IntrusiveRefCntPtr<const TensorNode> node;
};

/// An input buffer of \p shape and \p dtype.
Tensor placeholder(llvm::ArrayRef<Expr> shape, DataType dtype,
                   llvm::StringRef name = "placeholder");

/// A compute stage of \p shape: element (i0, i1, ...) is `fn({i0, i1, ...})`;
/// the stage's dtype is the body's. \p materialize asks Codegen to compute it
/// into a buffer of its own (see TensorNode::isMaterialized).
Tensor compute(llvm::ArrayRef<Expr> shape,
               llvm::function_ref<Expr(llvm::ArrayRef<Expr>)> fn,
               llvm::StringRef name = "compute", bool materialize = false);

/// An extern (structured) stage reading \p inputs and writing outputs of the
/// given shapes and dtypes. \p body receives the input tensors and one
/// placeholder per output, and returns the statement that fills every
/// element of every output (reading inputs and outputs with tensor reads,
/// writing outputs with stores). The returned tensors are the outputs.
std::vector<Tensor>
externOp(llvm::StringRef name, llvm::ArrayRef<Tensor> inputs,
         llvm::ArrayRef<std::pair<std::vector<Expr>, DataType>> outputs,
         llvm::function_ref<Stmt(llvm::ArrayRef<Tensor> inputs,
                                 llvm::ArrayRef<Tensor> outputs)>
             body);

/// The extents of \p shape if they are all constants.
std::optional<llvm::SmallVector<int64_t, 4>>
getConstShape(llvm::ArrayRef<Expr> shape);

/// Constant int64 extents as expressions.
std::vector<Expr> makeShape(llvm::ArrayRef<int64_t> extents);

/// The row-major linear index of \p index in \p shape.
Expr ravel(llvm::ArrayRef<Expr> index, llvm::ArrayRef<Expr> shape);
/// The index in \p shape of the row-major linear index \p linear.
llvm::SmallVector<Expr, 4> unravel(Expr linear, llvm::ArrayRef<Expr> shape);

/// Two extents that are provably equal (the same constant or the same
/// variable).
bool provablyEqual(const Expr &a, const Expr &b);
/// Two shapes of the same rank whose extents are provably equal.
bool provablyEqualShapes(llvm::ArrayRef<Expr> a, llvm::ArrayRef<Expr> b);

} // namespace nnir::te

#endif // NNIR_TE_TENSOR_H
