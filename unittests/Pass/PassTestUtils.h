//===- PassTestUtils.h - Helpers shared by the Pass unit tests --*- C++ -*-===//
//
/// \file
/// What several Pass unit tests need: an instrument that records every hook
/// it sees as a string (and can fail or veto on demand, like the PI/PIBroken
/// classes of TVM's test_pass_instrument.py), small passes built from
/// lambdas, a stand-in "InferType" that counts its runs, and error text.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_UNITTESTS_PASS_PASSTESTUTILS_H
#define NNIR_UNITTESTS_PASS_PASSTESTUTILS_H

#include "nnir/IR/Expr.h"
#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Parser/Parser.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Pass/PassContext.h"
#include "nnir/Pass/PassInstrument.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nnir {
namespace passtest {

/// An event log shared by the instruments (and passes) of one test.
using EventLog = std::vector<std::string>;

/// The message of \p err ("" for success); consumes it.
inline std::string errorMessage(llvm::Error err) {
  if (!err)
    return "";
  return llvm::toString(std::move(err));
}

/// Records "<name> enter ctx", "<name> should_run <pass>", "<name> run_before
/// <pass>", "<name> run_after <pass>" and "<name> exit ctx" in a shared log.
/// It fails (after recording) at the point named by failAt, and answers
/// shouldRun with `allow` (true when unset).
class RecordingInstrument : public PassInstrument {
public:
  enum class FailAt { Nothing, Enter, Exit, ShouldRun, RunBefore, RunAfter };

  RecordingInstrument(llvm::StringRef name, std::shared_ptr<EventLog> log,
                      FailAt failAt = FailAt::Nothing,
                      std::function<bool(const PassInfo &)> allow = nullptr)
      : PassInstrument(name), log(std::move(log)), failAt(failAt),
        allow(std::move(allow)) {}

  llvm::Error enterPassContext() override {
    return record(FailAt::Enter, "enter ctx");
  }
  llvm::Error exitPassContext() override {
    return record(FailAt::Exit, "exit ctx");
  }
  llvm::Expected<bool> shouldRun(const IRModule &module,
                                 const PassInfo &info) override {
    if (llvm::Error err = record(FailAt::ShouldRun, "should_run " + info.name))
      return err;
    return allow ? allow(info) : true;
  }
  llvm::Error runBeforePass(const IRModule &module,
                            const PassInfo &info) override {
    return record(FailAt::RunBefore, "run_before " + info.name);
  }
  llvm::Error runAfterPass(const IRModule &module,
                           const PassInfo &info) override {
    return record(FailAt::RunAfter, "run_after " + info.name);
  }

private:
  llvm::Error record(FailAt point, const std::string &what) {
    log->push_back(getName().str() + " " + what);
    if (point != failAt)
      return llvm::Error::success();
    return makeError(getName() + " failed in " + what);
  }

  std::shared_ptr<EventLog> log;
  FailAt failAt;
  std::function<bool(const PassInfo &)> allow;
};

inline std::shared_ptr<RecordingInstrument> makeRecorder(
    llvm::StringRef name, std::shared_ptr<EventLog> log,
    RecordingInstrument::FailAt failAt = RecordingInstrument::FailAt::Nothing,
    std::function<bool(const PassInfo &)> allow = nullptr) {
  return std::make_shared<RecordingInstrument>(name, std::move(log), failAt,
                                               std::move(allow));
}

/// `fn (%x) { <op>(%x) }`.
inline Ref<Function> makeUnaryFunction(llvm::StringRef opName) {
  Ref<Var> x = Var::get("x");
  return Function::get({x}, Call::get(Op::lookup(opName), {x}));
}

/// A module pass \p name that logs "transform pass <name>" and returns a
/// copy of its input with `fn (%x) { abs(%x) }` added as "added.<name>"
/// (TVM's test passes add myAbs), or an error when \p fail is set.
inline Ref<Pass> makeAddFunctionPass(llvm::StringRef name,
                                     std::shared_ptr<EventLog> log,
                                     int optLevel = 0, bool fail = false) {
  std::string passName = name.str();
  return createModulePass(
      [passName, log, fail](Ref<IRModule> module,
                            PassContext &) -> llvm::Expected<Ref<IRModule>> {
        if (log)
          log->push_back("transform pass " + passName);
        if (fail)
          return makeError("pass " + passName + " failed on purpose");
        Ref<IRModule> copy = module->shallowCopy();
        copy->addOrUpdate("added." + passName, makeUnaryFunction("abs"));
        return copy;
      },
      PassInfo(name, optLevel));
}

/// Rewrites every call `<from>(a)` of \p func into `<from>(add(a, a))` when
/// \p from is one of \p ops (TVM's test_function_pass turns log(x) into
/// log(add(x, x))); returns \p func itself when there is none.
inline Ref<Function> doubleUnaryArgs(const Ref<Function> &func,
                                     llvm::ArrayRef<llvm::StringRef> ops) {
  Ref<Expr> body = rewritePostOrder(
      func->getBody().get(), [&](Expr *, Expr *post) -> Ref<Expr> {
        auto *call = llvm::dyn_cast<Call>(post);
        if (!call || call->getNumArgs() != 1 || !call->getCalledOp() ||
            !llvm::is_contained(ops, call->getCalledOp()->getName()))
          return post;
        Ref<Expr> arg = call->getArg(0);
        return Call::get(call->getCallee(),
                         {Call::get(Op::lookup("add"), {arg, arg})},
                         call->getAttrs(), call->getLoc());
      });
  if (body == func->getBody())
    return func;
  return Function::get(func->getParams(), body, func->getRetType(),
                       func->getAttrs(), func->getLoc());
}

/// Rewrites every call of operator \p from in \p func into a call of \p to
/// (same arguments); returns \p func itself when there is none.
inline Ref<Function> replaceOp(const Ref<Function> &func, llvm::StringRef from,
                               llvm::StringRef to) {
  Ref<Expr> body = rewritePostOrder(
      func->getBody().get(), [&](Expr *, Expr *post) -> Ref<Expr> {
        auto *call = llvm::dyn_cast<Call>(post);
        if (!call || !call->getCalledOp() ||
            call->getCalledOp()->getName() != from)
          return post;
        return Call::get(Op::lookup(to), call->getArgs(), call->getAttrs(),
                         call->getLoc());
      });
  if (body == func->getBody())
    return func;
  return Function::get(func->getParams(), body, func->getRetType(),
                       func->getAttrs(), func->getLoc());
}

/// Runs of the stand-in "InferType" registered by ensureInferType().
inline std::atomic<int> &countingInferTypeRuns() {
  static std::atomic<int> runs{0};
  return runs;
}

/// Registers a stand-in "InferType" unless some other code already did:
/// a module pass establishing types that counts its runs and, when the
/// module's types are stale, returns a shallow copy marked valid (unchanged
/// modules come back as the same object). Must be called before threads use
/// the registry.
inline void ensureInferType() {
  PassRegistry &registry = PassRegistry::instance();
  if (registry.lookup("InferType"))
    return;
  llvm::Error err = registry.registerPass(
      "InferType", "unit-test stand-in: marks the module's types valid", [] {
        PassInfo info("InferType", 0);
        info.establishesTypes = true;
        return createModulePass(
            [](Ref<IRModule> module,
               PassContext &) -> llvm::Expected<Ref<IRModule>> {
              ++countingInferTypeRuns();
              if (module->hasValidTypes())
                return module;
              Ref<IRModule> copy = module->shallowCopy();
              copy->setValidTypes(true);
              return copy;
            },
            std::move(info));
      });
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
}

/// Registers \p name with \p factory unless it is registered already (test
/// filters and repeats run fixtures several times in one process).
inline void ensureRegistered(llvm::StringRef name,
                             std::function<Ref<Pass>()> factory) {
  PassRegistry &registry = PassRegistry::instance();
  if (registry.lookup(name))
    return;
  llvm::Error err = registry.registerPass(name, "unit-test pass", factory);
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
}

/// Parses \p text into a module; the test fails when it does not parse.
inline Ref<IRModule> parseOrFail(llvm::StringRef text,
                                 llvm::SourceMgr &sourceMgr) {
  llvm::Expected<Ref<IRModule>> module = parseModule(text, sourceMgr);
  if (!module) {
    ADD_FAILURE() << llvm::toString(module.takeError());
    return nullptr;
  }
  return *module;
}

/// Enters \p ctx; the test fails when an instrument refuses.
inline std::optional<PassContextScope> enterOrFail(Ref<PassContext> ctx) {
  llvm::Expected<PassContextScope> scope = PassContext::enter(std::move(ctx));
  if (!scope) {
    ADD_FAILURE() << llvm::toString(scope.takeError());
    return std::nullopt;
  }
  return std::move(*scope);
}

} // namespace passtest
} // namespace nnir

#endif // NNIR_UNITTESTS_PASS_PASSTESTUTILS_H
