//===- Tensor.cpp - Tensors, stages and statements ------------------------===//
//
/// \file
/// Placeholder, compute and extern stages, and the statement builders.
//
//===----------------------------------------------------------------------===//

#include "nnir/TE/Tensor.h"
#include "nnir/TE/Stmt.h"

#include "llvm/ADT/Twine.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

TensorNode::~TensorNode() {
  if (externOp)
    externOp->Release();
}
StmtNode::~StmtNode() = default;

Expr Tensor::operator()(ArrayRef<Expr> indices) const {
  assert(indices.size() == getRank() && "wrong number of indices");
  SmallVector<Expr, 4> cast64;
  for (const Expr &index : indices)
    cast64.push_back(cast(DataType::int64(), index));
  return Expr(new TensorReadNode(get(), cast64));
}

Tensor te::placeholder(ArrayRef<Expr> shape, DataType dtype, StringRef name) {
  return Tensor(
      new TensorNode(TensorNode::Kind::Placeholder, name, dtype, shape));
}

Tensor te::compute(ArrayRef<Expr> shape, function_ref<Expr(ArrayRef<Expr>)> fn,
                   StringRef name, bool materialize) {
  std::vector<Expr> axes;
  for (unsigned i = 0; i < shape.size(); ++i)
    axes.push_back(var(("i" + Twine(i)).str()));
  Expr body = fn(axes);
  auto *node =
      new TensorNode(TensorNode::Kind::Compute, name, body.getDType(), shape);
  node->axes = std::move(axes);
  node->body = std::move(body);
  node->materialized = materialize;
  return Tensor(node);
}

std::vector<Tensor>
te::externOp(StringRef name, ArrayRef<Tensor> inputs,
             ArrayRef<std::pair<std::vector<Expr>, DataType>> outputs,
             function_ref<Stmt(ArrayRef<Tensor>, ArrayRef<Tensor>)> body) {
  std::vector<Tensor> buffers;
  for (const auto &[shape, dtype] : outputs)
    buffers.push_back(placeholder(shape, dtype, (name + Twine(".out")).str()));
  Stmt stmt = body(inputs, buffers);
  IntrusiveRefCntPtr<const ExternOpNode> op(
      new ExternOpNode(name, inputs, buffers, stmt));
  std::vector<Tensor> results;
  for (unsigned i = 0; i < outputs.size(); ++i) {
    auto *node = new TensorNode(TensorNode::Kind::Extern, name,
                                outputs[i].second, outputs[i].first);
    op->Retain();
    node->externOp = op.get();
    node->outputIndex = i;
    results.push_back(Tensor(node));
  }
  return results;
}

std::optional<SmallVector<int64_t, 4>> te::getConstShape(ArrayRef<Expr> shape) {
  SmallVector<int64_t, 4> extents;
  for (const Expr &e : shape) {
    std::optional<int64_t> c = e.getConstInt();
    if (!c)
      return std::nullopt;
    extents.push_back(*c);
  }
  return extents;
}

std::vector<Expr> te::makeShape(ArrayRef<int64_t> extents) {
  return std::vector<Expr>(extents.begin(), extents.end());
}

Expr te::ravel(ArrayRef<Expr> index, ArrayRef<Expr> shape) {
  Expr linear = 0;
  for (unsigned i = 0; i < index.size(); ++i)
    linear = linear * shape[i] + index[i];
  return linear;
}

SmallVector<Expr, 4> te::unravel(Expr linear, ArrayRef<Expr> shape) {
  SmallVector<Expr, 4> index(shape.size());
  for (unsigned i = shape.size(); i-- > 0;) {
    index[i] = i == 0 ? linear : floorMod(linear, shape[i]);
    linear = floorDiv(linear, shape[i]);
  }
  return index;
}

bool te::provablyEqual(const Expr &a, const Expr &b) {
  if (a.sameAs(b))
    return true;
  std::optional<int64_t> ca = a.getConstInt(), cb = b.getConstInt();
  if (ca || cb)
    return ca && cb && *ca == *cb;
  // The same arithmetic on equal operands (extents that symbolic computes
  // derive alike from one run-time extent).
  const auto *ba = dyn_cast_or_null<BinaryNode>(a.get());
  const auto *bb = dyn_cast_or_null<BinaryNode>(b.get());
  return ba && bb && ba->getOp() == bb->getOp() &&
         ba->getDType() == bb->getDType() &&
         provablyEqual(ba->getLHS(), bb->getLHS()) &&
         provablyEqual(ba->getRHS(), bb->getRHS());
}

bool te::provablyEqualShapes(ArrayRef<Expr> a, ArrayRef<Expr> b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!provablyEqual(a[i], b[i]))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

Stmt te::forLoop(Expr extent, function_ref<Stmt(Expr)> body, StringRef name) {
  Expr v = var(name);
  Stmt inner = body(v);
  return Stmt(new ForNode(v, std::move(extent), std::move(inner)));
}

Stmt te::forNest(ArrayRef<Expr> extents,
                 function_ref<Stmt(ArrayRef<Expr>)> body) {
  std::vector<Expr> vars;
  for (unsigned i = 0; i < extents.size(); ++i)
    vars.push_back(var(("i" + Twine(i)).str()));
  Stmt stmt = body(vars);
  for (unsigned i = extents.size(); i-- > 0;)
    stmt = Stmt(new ForNode(vars[i], extents[i], std::move(stmt)));
  return stmt;
}

Stmt te::store(Tensor buffer, ArrayRef<Expr> indices, Expr value) {
  SmallVector<Expr, 4> cast64;
  for (const Expr &index : indices)
    cast64.push_back(cast(DataType::int64(), index));
  return Stmt(new StoreNode(std::move(buffer), cast64, std::move(value)));
}

Stmt te::ifThenElse(Expr cond, Stmt thenStmt, Stmt elseStmt) {
  return Stmt(new IfThenElseNode(std::move(cond), std::move(thenStmt),
                                 std::move(elseStmt)));
}

Stmt te::seq(ArrayRef<Stmt> stmts) { return Stmt(new SeqNode(stmts)); }

Stmt te::allocate(ArrayRef<Expr> shape, DataType dtype,
                  function_ref<Stmt(Tensor)> body, StringRef name) {
  Tensor buffer = placeholder(shape, dtype, name);
  Stmt inner = body(buffer);
  return Stmt(new AllocateNode(std::move(buffer), std::move(inner)));
}
