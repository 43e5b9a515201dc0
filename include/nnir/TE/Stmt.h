//===- Stmt.h - Imperative statements for structured stages ------*- C++
//-*-===//
//
/// \file
/// A small imperative form (TVM's TIR in miniature) for extern stages whose
/// loops need structure: sequential `for` loops, stores into output or
/// scratch buffers, conditionals, sequences, and scratch buffers allocated
/// for the duration of a statement. Expressions inside are the scalar
/// expressions of nnir/TE/Expr.h; buffers are read with tensor reads.
///
/// An extern stage must write every element of its outputs: Codegen allocates
/// output buffers without zero-filling them.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TE_STMT_H
#define NNIR_TE_STMT_H

#include "nnir/TE/Tensor.h"

#include <vector>

namespace nnir::te {

class StmtNode : public llvm::ThreadSafeRefCountedBase<StmtNode> {
public:
  enum class Kind : uint8_t { For, Store, IfThenElse, Seq, Allocate };
  virtual ~StmtNode();
  Kind getKind() const { return kind; }

protected:
  explicit StmtNode(Kind kind) : kind(kind) {}

private:
  Kind kind;
};

class Stmt {
public:
  Stmt() = default;
  Stmt(const StmtNode *node) : node(node) {}
  const StmtNode *get() const { return node.get(); }
  const StmtNode *operator->() const { return node.get(); }
  explicit operator bool() const { return node != nullptr; }

private:
  llvm::IntrusiveRefCntPtr<const StmtNode> node;
};

/// for (var = 0; var < extent; ++var) body
class ForNode final : public StmtNode {
public:
  ForNode(Expr var, Expr extent, Stmt body)
      : StmtNode(Kind::For), var(std::move(var)), extent(std::move(extent)),
        body(std::move(body)) {}
  const Expr &getVar() const { return var; }
  const Expr &getExtent() const { return extent; }
  const Stmt &getBody() const { return body; }
  static bool classof(const StmtNode *s) { return s->getKind() == Kind::For; }

private:
  Expr var, extent;
  Stmt body;
};

/// buffer[indices] = value (converted to the buffer's dtype on store).
class StoreNode final : public StmtNode {
public:
  StoreNode(Tensor buffer, llvm::ArrayRef<Expr> indices, Expr value)
      : StmtNode(Kind::Store), buffer(std::move(buffer)),
        indices(indices.begin(), indices.end()), value(std::move(value)) {}
  const Tensor &getBuffer() const { return buffer; }
  llvm::ArrayRef<Expr> getIndices() const { return indices; }
  const Expr &getValue() const { return value; }
  static bool classof(const StmtNode *s) { return s->getKind() == Kind::Store; }

private:
  Tensor buffer;
  std::vector<Expr> indices;
  Expr value;
};

class IfThenElseNode final : public StmtNode {
public:
  IfThenElseNode(Expr cond, Stmt thenStmt, Stmt elseStmt)
      : StmtNode(Kind::IfThenElse), cond(std::move(cond)),
        thenStmt(std::move(thenStmt)), elseStmt(std::move(elseStmt)) {}
  const Expr &getCondition() const { return cond; }
  const Stmt &getThen() const { return thenStmt; }
  /// May be null.
  const Stmt &getElse() const { return elseStmt; }
  static bool classof(const StmtNode *s) {
    return s->getKind() == Kind::IfThenElse;
  }

private:
  Expr cond;
  Stmt thenStmt, elseStmt;
};

class SeqNode final : public StmtNode {
public:
  explicit SeqNode(llvm::ArrayRef<Stmt> stmts)
      : StmtNode(Kind::Seq), stmts(stmts.begin(), stmts.end()) {}
  llvm::ArrayRef<Stmt> getStmts() const { return stmts; }
  static bool classof(const StmtNode *s) { return s->getKind() == Kind::Seq; }

private:
  std::vector<Stmt> stmts;
};

/// A scratch buffer (a placeholder tensor) that exists while `body` runs; its
/// contents start undefined.
class AllocateNode final : public StmtNode {
public:
  AllocateNode(Tensor buffer, Stmt body)
      : StmtNode(Kind::Allocate), buffer(std::move(buffer)),
        body(std::move(body)) {}
  const Tensor &getBuffer() const { return buffer; }
  const Stmt &getBody() const { return body; }
  static bool classof(const StmtNode *s) {
    return s->getKind() == Kind::Allocate;
  }

private:
  Tensor buffer;
  Stmt body;
};

/// Builders. forLoop creates the loop variable and hands it to \p body.
Stmt forLoop(Expr extent, llvm::function_ref<Stmt(Expr)> body,
             llvm::StringRef name = "i");
/// Nested loops over \p extents (outermost first).
Stmt forNest(llvm::ArrayRef<Expr> extents,
             llvm::function_ref<Stmt(llvm::ArrayRef<Expr>)> body);
Stmt store(Tensor buffer, llvm::ArrayRef<Expr> indices, Expr value);
Stmt ifThenElse(Expr cond, Stmt thenStmt, Stmt elseStmt = Stmt());
Stmt seq(llvm::ArrayRef<Stmt> stmts);
/// A scratch buffer of \p shape and \p dtype live during \p body.
Stmt allocate(llvm::ArrayRef<Expr> shape, DataType dtype,
              llvm::function_ref<Stmt(Tensor)> body,
              llvm::StringRef name = "scratch");

/// An extern stage's description: its inputs, output placeholders and body.
class ExternOpNode : public llvm::ThreadSafeRefCountedBase<ExternOpNode> {
public:
  ExternOpNode(llvm::StringRef name, llvm::ArrayRef<Tensor> inputs,
               llvm::ArrayRef<Tensor> outputBuffers, Stmt body)
      : name(name), inputs(inputs.begin(), inputs.end()),
        outputBuffers(outputBuffers.begin(), outputBuffers.end()),
        body(std::move(body)) {}
  llvm::StringRef getName() const { return name; }
  llvm::ArrayRef<Tensor> getInputs() const { return inputs; }
  /// The placeholders the body writes, one per output.
  llvm::ArrayRef<Tensor> getOutputBuffers() const { return outputBuffers; }
  const Stmt &getBody() const { return body; }

private:
  std::string name;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputBuffers;
  Stmt body;
};

} // namespace nnir::te

#endif // NNIR_TE_STMT_H
