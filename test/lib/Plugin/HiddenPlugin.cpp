//===- HiddenPlugin.cpp - A plugin built with -fvisibility=hidden ---------===//
//
/// \file
/// A plugin compiled with -fvisibility=hidden -fvisibility-inlines-hidden,
/// as plugins that export only their entry point usually are. Such a plugin
/// has hidden copies of every template static and inline function it
/// instantiates, so anything keyed by their addresses would differ from the
/// tool's. It shows that operator attribute maps (keyed by explicit TypeIds)
/// and attribute-record RTTI (keyed by interned type keys) still agree with
/// the tool:
///  - at load, it sets properties in the tool's maps: `copy` becomes stateful
///    (the tool's TOpIsStateful map of bool), and it fills a map of its own
///    value type (TestPluginCost, an explicit TypeId defined here);
///  - its pass `test-plugin-op-properties` reads, for every operator call,
///    the tool's pattern, stateful flag and type relation, its own cost map,
///    and the call's record through getAttrsAs<Conv2DAttrs>(), and prints
///    one line per call to stderr.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/ExprVisitor.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/IR/TypeRelation.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Pass/PassPlugin.h"
#include "nnir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

namespace {
/// A property type the plugin owns.
struct TestPluginCost {
  int64_t cycles;
};
} // namespace

NNIR_DECLARE_EXPLICIT_TYPE_ID(TestPluginCost)
NNIR_DEFINE_EXPLICIT_TYPE_ID(TestPluginCost)

static constexpr StringLiteral kCostAttr = "TestPluginCost";

namespace {
struct DescribeCalls : ExprVisitor {
  void visitCall(Call *call) override {
    ExprVisitor::visitCall(call);
    const Op *op = call->getCalledOp();
    if (!op)
      return;
    const OpAttrMap<TestPluginCost> *costs =
        OpRegistry::instance().findAttrMap<TestPluginCost>(kCostAttr);
    errs() << op->getName() << ": pattern "
           << getOpPatternKindName(getOpPattern(op))
           << (isStatefulOp(op) ? ", stateful" : "")
           << (getTypeRelation(op) ? ", type relation" : ", no type relation");
    if (costs && costs->has(op))
      errs() << ", cost " << costs->get(op).cycles;
    if (const auto *conv = call->getAttrsAs<Conv2DAttrs>())
      errs() << ", Conv2DAttrs data_layout=" << conv->dataLayout;
    errs() << "\n";
  }
};
} // namespace

static Expected<Ref<Pass>> createOpProperties(const PassOptions &) {
  return createModulePass(
      [](Ref<IRModule> module, PassContext &) -> Expected<Ref<IRModule>> {
        DescribeCalls describe;
        for (const IRModule::Entry &entry : module->getFunctions())
          describe.visit(entry.func.get());
        return module;
      },
      PassInfo("test-plugin-op-properties", /*optLevel=*/0));
}

static void registerPasses(PassRegistry &registry) {
  OpRegistry &ops = OpRegistry::instance();
  if (Op *copy = ops.lookup("copy"))
    ops.getAttrMap<bool>(kOpIsStatefulAttr).set(copy, true);
  OpAttrMap<TestPluginCost> &costs = ops.getAttrMap<TestPluginCost>(kCostAttr);
  if (Op *conv2d = ops.lookup("nn.conv2d"))
    costs.set(conv2d, {100});
  if (Op *add = ops.lookup("add"))
    costs.set(add, {1});

  PassRegistration registration;
  registration.name = "test-plugin-op-properties";
  registration.description =
      "Print the properties of every called operator (from a plugin)";
  registration.factory = createOpProperties;
  if (Error err = registry.registerPass(std::move(registration)))
    logAllUnhandledErrors(std::move(err), errs(), "NNIRTestHiddenPlugin: ");
}

extern "C" NNIR_PLUGIN_EXPORT PassPluginInfo nnirGetPassPluginInfo() {
  return {NNIR_PLUGIN_API_VERSION, "NNIRTestHiddenPlugin", "0.1",
          registerPasses};
}
