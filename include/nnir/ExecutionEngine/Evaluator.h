//===- Evaluator.h - Running graph IR on tensors -----------------*- C++
//-*-===//
//
/// \file
/// The evaluator runs a prepared (type-checked; fused by the caller, if at
/// all) expression or module function on NDArrays: constants, variables
/// bound to inputs, calls of primitive functions (lowered, JIT-compiled and
/// run through the ExecutionEngine), operator calls outside primitive
/// functions (each run as a kernel of its own), tuples, projections, let,
/// if, local functions (closures) and calls of global functions.
///
/// The walk along dataflow edges, let chains and if branches is iterative
/// (an explicit task stack), so a 1,000,000-node chain needs no deep native
/// stack; calls of non-primitive functions nest, up to
/// EvaluatorOptions::maxCallDepth, except calls in tail position (of an if
/// branch, a let body), which replace the caller's frame: a loop written as
/// a recursive let-bound function (`let %loop = fn (...) { if (...) {
/// %loop(...) } else { ... } }`, how the ONNX importer writes Loop and Scan)
/// runs any number of iterations in one frame. A let-bound closure sees its
/// own variable. An intermediate value is released as
/// soon as its last user has consumed it. Results live in arrays the engine
/// allocates (never in an input's or a constant's buffer, which kernels only
/// read). Errors are llvm::Errors located at the offending node.
///
/// Dynamic shapes: an operator whose result extents depend on values
/// (nnir/Ops/DynamicOps.h) runs by its host routine or its static form; a
/// primitive function whose parameter types have `?` extents runs through
/// its one symbolic kernel (nnir/Codegen/Lowering.h) when every operator in
/// it computes symbolic shapes: the function specialised to the arguments'
/// types (nnir/ExecutionEngine/Specialize.h, the relations as its shape
/// function) sizes the results. Any other (and one whose symbolic lowering
/// a compute refuses) is specialised and compiled for each distinct shape
/// through the engine's caches. The specialisations are kept, the most
/// recently used EvaluatorOptions::maxSpecializations of them.
/// Evaluations may run concurrently on one Evaluator: each has its own
/// budget, and the caches are locked.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_EXECUTIONENGINE_EVALUATOR_H
#define NNIR_EXECUTIONENGINE_EVALUATOR_H

#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace nnir {

/// A run-time value: a tensor, a tuple of values, or a closure.
class RuntimeValue {
public:
  enum class Kind : uint8_t { Tensor, Tuple, Closure };

  RuntimeValue() = default;
  static RuntimeValue tensor(NDArray array);
  static RuntimeValue tuple(std::vector<RuntimeValue> fields);

  Kind getKind() const { return kind; }
  bool isTensor() const { return kind == Kind::Tensor; }
  bool isTuple() const { return kind == Kind::Tuple; }
  const NDArray &getTensor() const { return array; }
  llvm::ArrayRef<RuntimeValue> getFields() const;
  /// A closure's function (null for tensors and tuples).
  const Function *getFunction() const { return function.get(); }

  /// Appends the tensors of this value, tuples flattened in order.
  void flatten(std::vector<NDArray> &out) const;

private:
  friend class Evaluator;
  Kind kind = Kind::Tensor;
  NDArray array;
  std::shared_ptr<const std::vector<RuntimeValue>> fields;
  /// Closures: the function and the variable bindings it captured.
  Ref<Function> function;
  /// The let variable a closure is bound to, bound to the closure itself
  /// when it is called (a recursive let), or null.
  const Var *self = nullptr;
  std::shared_ptr<const llvm::DenseMap<const Var *, RuntimeValue>> captured;
};

struct EvaluatorOptions {
  /// Nesting of calls of non-primitive functions (recursion) allowed.
  unsigned maxCallDepth = 1000;
  /// Limits of each evaluation (one evaluate() or call()): no kernel
  /// result or scratch buffer larger than maxBufferBytes, at most maxWork
  /// scalar operations in all (RunBudget). A kernel that would exceed them
  /// does not run: the evaluation fails with a ResourceLimitError.
  uint64_t maxBufferBytes = UINT64_MAX;
  uint64_t maxWork = UINT64_MAX;
  /// The most specialisations of functions with `?` extents kept (the least
  /// recently used is dropped beyond it; at least one is kept).
  size_t maxSpecializations = 256;
};

class Evaluator {
public:
  /// \p module resolves calls of global functions (may be null).
  Evaluator(ExecutionEngine &engine, const IRModule *module,
            EvaluatorOptions options = {});
  ~Evaluator();

  /// Evaluates the closed expression \p expr; free variables must be bound
  /// in \p bindings.
  llvm::Expected<RuntimeValue>
  evaluate(const Expr &expr,
           const llvm::DenseMap<const Var *, RuntimeValue> &bindings);
  llvm::Expected<RuntimeValue> evaluate(const Expr &expr);

  /// The specialisations of functions with `?` extents kept.
  size_t getNumSpecializations() const;

  /// Calls \p fn on \p args (one per parameter).
  llvm::Expected<RuntimeValue> call(const Function &fn,
                                    llvm::ArrayRef<RuntimeValue> args);

private:
  /// A call in tail position: the function to continue with and its
  /// bindings.
  struct TailCall {
    Ref<Function> function;
    llvm::DenseMap<const Var *, RuntimeValue> env;
  };
  llvm::Expected<RuntimeValue>
  evaluateIn(const Expr &expr, llvm::DenseMap<const Var *, RuntimeValue> env,
             unsigned depth, RunBudget &budget);
  /// Evaluates \p root once; a non-primitive call in tail position (in
  /// \p tail) sets \p next instead of running.
  llvm::Expected<RuntimeValue>
  runFrame(const Expr &root, llvm::DenseMap<const Var *, RuntimeValue> env,
           llvm::DenseMap<const Expr *, unsigned> uses,
           const llvm::DenseSet<const Expr *> &tail, unsigned depth,
           std::optional<TailCall> &next, RunBudget &budget);
  /// A closure of \p fn capturing the variables bound in \p values; \p self
  /// is the let variable it is bound to (recursion), if any.
  static RuntimeValue
  makeClosure(const Function &fn,
              const llvm::DenseMap<const Expr *, RuntimeValue> &values,
              const Var *self);
  /// The bindings of a call of \p fn: \p closure's captured ones (and
  /// itself), then the parameters.
  static llvm::DenseMap<const Var *, RuntimeValue>
  bindArgs(const Function &fn, llvm::ArrayRef<RuntimeValue> args,
           const RuntimeValue *closure);
  llvm::Expected<RuntimeValue> callValue(const Call &call,
                                         const RuntimeValue *callee,
                                         llvm::ArrayRef<RuntimeValue> args,
                                         unsigned depth, RunBudget &budget);
  llvm::Expected<RuntimeValue> callFunction(const Function &fn,
                                            llvm::ArrayRef<RuntimeValue> args,
                                            const RuntimeValue *closure,
                                            unsigned depth, llvm::SMLoc loc,
                                            RunBudget &budget);
  /// Runs a primitive function: a lone call of an operator with a run-time
  /// implementation by it (runDynamicOp), one with `?` extents specialised
  /// to the arguments' shapes, any other through its kernel.
  llvm::Expected<RuntimeValue> runPrimitive(const Function &fn,
                                            llvm::ArrayRef<RuntimeValue> args,
                                            llvm::SMLoc loc,
                                            RunBudget &budget);
  llvm::Expected<RuntimeValue> runOp(const Call &call,
                                     llvm::ArrayRef<RuntimeValue> args,
                                     RunBudget &budget);
  /// Runs \p call, of an operator with FHostCompute or FStaticForm
  /// (nnir/Ops/DynamicOps.h), on \p args (one per argument).
  llvm::Expected<RuntimeValue> runDynamicOp(const Call &call,
                                            llvm::ArrayRef<RuntimeValue> args,
                                            RunBudget &budget);
  /// \p fn specialised to the types of \p args (cached by them).
  llvm::Expected<Ref<Function>>
  getSpecialization(const Function &fn, llvm::ArrayRef<RuntimeValue> args);

  /// A fresh budget from the options, for one evaluation.
  RunBudget makeBudget() const;

  ExecutionEngine &engine;
  const IRModule *module;
  EvaluatorOptions options;
  /// The caches below are shared by concurrent evaluations.
  mutable std::mutex cacheMutex;
  /// Operator calls wrapped as primitive functions, per call node.
  llvm::DenseMap<const Call *, std::pair<Ref<Call>, Ref<Function>>> wrappers;
  /// Functions with `?` extents specialised to concrete argument types, by
  /// function and types, most recently used first; the key's function is
  /// held by the entry.
  struct Specialization {
    std::pair<const void *, std::string> key;
    Ref<Expr> function;
    Ref<Function> specialized;
  };
  std::list<Specialization> specializationOrder;
  std::map<std::pair<const void *, std::string>,
           std::list<Specialization>::iterator>
      specializations;
  /// Whether each function with `?` parameters runs through a symbolic
  /// kernel (false once its lowering was refused); the key is held.
  llvm::DenseMap<const Function *, std::pair<Ref<Expr>, bool>> symbolic;
  /// Whether \p fn may run through a symbolic kernel.
  bool mayRunSymbolic(const Function &fn);
};

} // namespace nnir

#endif // NNIR_EXECUTIONENGINE_EVALUATOR_H
