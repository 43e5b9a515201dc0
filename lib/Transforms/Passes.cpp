//===- Passes.cpp - Registration of the Transforms passes -----------------===//
//
/// \file
/// registerTransformPasses(): adds every row of Passes.def to the
/// PassRegistry, and the config keys the passes read to the
/// PassConfigRegistry, once per process. The factories of the passes with
/// options (they turn PassOptions into each pass's options struct) live
/// here; everything else about a pass is its row.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/Passes.h"

#include "nnir/Pass/PassContext.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Transforms/AlterOpLayout.h"
#include "nnir/Transforms/BindParams.h"
#include "nnir/Transforms/DeadCodeElimination.h"
#include "nnir/Transforms/EliminateCommonSubexpr.h"
#include "nnir/Transforms/FoldConstant.h"
#include "nnir/Transforms/FoldScaleAxis.h"
#include "nnir/Transforms/FuseOps.h"
#include "nnir/Transforms/InferType.h"
#include "nnir/Transforms/QnnCanonicalize.h"
#include "nnir/Transforms/SimplifyExpr.h"
#include "nnir/Transforms/SimplifyInference.h"
#include "nnir/Transforms/ToANormalForm.h"
#include "nnir/Transforms/ToGraphNormalForm.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace llvm;
using namespace nnir;

//===----------------------------------------------------------------------===//
// Factories of the passes with options
//===----------------------------------------------------------------------===//

static Expected<Ref<Pass>>
createDeadCodeEliminationFromOptions(const PassOptions &options) {
  DeadCodeEliminationOptions dce;
  dce.inlineOnce = options.getBool("inline_once");
  dce.ignoreImpurity = options.getBool("ignore_impurity");
  dce.removeUnusedFunctions = options.getBool("remove_unused_functions");
  dce.entryFunctions = options.get("entry_functions").getList();
  return createDeadCodeEliminationPass(std::move(dce));
}

static Expected<Ref<Pass>>
createFuseOpsFromOptions(const PassOptions &options) {
  return createFuseOpsPass(options.getInt("fuse_opt_level"));
}

static Expected<Ref<Pass>>
createFoldConstantFromOptions(const PassOptions &options) {
  return createFoldConstantPass(options.getBool("per_call"),
                                options.getBool("fold_qnn"));
}

static Expected<Ref<Pass>>
createBindParamsFromOptions(const PassOptions &options) {
  BindParamsOptions bind;
  bind.npz = options.getString("npz");
  bind.dir = options.getString("dir");
  bind.random = options.getBool("random");
  int64_t seed = options.getInt("seed");
  if (seed < 0)
    return makeError("BindParams: seed must not be negative, got " +
                     Twine(seed));
  bind.seed = uint64_t(seed);
  return createBindParamsPass(std::move(bind));
}

/// TVM's FoldScaleAxis: a Sequential of the scale folds (opt level 3) and
/// FoldConstant (looked up by name), so at -O2 only FoldConstant runs.
static Expected<Ref<Pass>> createFoldScaleAxisSequential() {
  Expected<Ref<Pass>> foldConstant = PassRegistry::instance().create(
      getBuiltinPassName(BuiltinPass::FoldConstant));
  if (!foldConstant)
    return foldConstant.takeError();
  return createSequential({createBackwardFoldScaleAxisPass(),
                           createForwardFoldScaleAxisPass(),
                           std::move(*foldConstant)},
                          getBuiltinPassInfo(BuiltinPass::FoldScaleAxis));
}

/// A registry factory from a creator of either shape: with or without
/// options, returning a pass or an Expected one.
template <typename Creator>
static std::function<Expected<Ref<Pass>>(const PassOptions &)>
makeFactory(Creator creator) {
  return [creator](const PassOptions &options) -> Expected<Ref<Pass>> {
    if constexpr (std::is_invocable_v<Creator, const PassOptions &>)
      return creator(options);
    else
      return creator();
  };
}

//===----------------------------------------------------------------------===//
// The rows of Passes.def
//===----------------------------------------------------------------------===//

namespace {
struct BuiltinPassRow {
  StringLiteral name;
  int optLevel;
  StringLiteral description;
};
} // namespace

static constexpr BuiltinPassRow kBuiltinPasses[] = {
#define NNIR_PASS(NAME, OPT_LEVEL, CREATOR, DESCRIPTION)                       \
  {#NAME, OPT_LEVEL, DESCRIPTION},
#include "nnir/Transforms/Passes.def"
};

StringRef nnir::getBuiltinPassName(BuiltinPass pass) {
  return kBuiltinPasses[unsigned(pass)].name;
}

PassInfo nnir::getBuiltinPassInfo(BuiltinPass pass,
                                  std::vector<std::string> required) {
  const BuiltinPassRow &row = kBuiltinPasses[unsigned(pass)];
  PassInfo info(row.name, row.optLevel, std::move(required));
  info.description = row.description.str();
  return info;
}

/// The registrations of Passes.def, options included.
static std::vector<PassRegistration> getBuiltinRegistrations() {
  std::vector<PassRegistration> registrations;
  auto find = [&](StringRef name) -> PassRegistration & {
    return *llvm::find_if(registrations, [&](const PassRegistration &r) {
      return r.name == name;
    });
  };
#define NNIR_PASS(NAME, OPT_LEVEL, CREATOR, DESCRIPTION)                       \
  registrations.push_back(                                                     \
      {#NAME, DESCRIPTION, makeFactory(CREATOR), {}, /*origin=*/""});
#define NNIR_PASS_OPTION(PASS, NAME, TYPE, DEFAULT, DESCRIPTION)               \
  find(#PASS).options.push_back({#NAME, TYPE, DEFAULT, DESCRIPTION});
#define NNIR_PASS_INT_OPTION(PASS, NAME, DEFAULT, MIN, MAX, DESCRIPTION)       \
  find(#PASS).options.push_back({#NAME, OptionType::Int,                       \
                                 OptionValue(int64_t(DEFAULT)), DESCRIPTION,   \
                                 IntegerRange<int64_t>(MIN, MAX)});
#include "nnir/Transforms/Passes.def"
  return registrations;
}

/// The config keys the passes read.
static void registerTransformConfigs() {
  PassConfigRegistry &configs = PassConfigRegistry::instance();
  configs.registerIntOption(kFuseOpsMaxDepthConfig,
                            IntegerRange<int64_t>(1, INT64_MAX),
                            "FuseOps: the largest number of nodes in one "
                            "fused group (default 256)");
  configs.registerOption(kFuseOpsLinkParamsConfig, OptionType::Bool,
                         "FuseOps: keep constant arguments inside the "
                         "primitive functions (default false)");

  configs.registerOption(kSimplifyExprAllowInexactConfig, OptionType::Bool,
                         "SimplifyExpr: also make Relay's rewrites that can "
                         "change a floating-point result (default false)");

  configs.registerIntOption(kFoldConstantMaxBytesConfig,
                            IntegerRange<int64_t>(0, INT64_MAX),
                            "FoldConstant: do not materialise a value "
                            "larger than this and than its constant inputs "
                            "(default 10 MiB)");
  configs.registerIntOption(kFoldConstantMaxBufferBytesConfig,
                            IntegerRange<int64_t>(0, INT64_MAX),
                            "FoldConstant: leave unfolded what would need "
                            "a buffer larger than this to evaluate "
                            "(default 4 GiB)");
  configs.registerIntOption(kFoldConstantMaxWorkConfig,
                            IntegerRange<int64_t>(0, INT64_MAX),
                            "FoldConstant: leave unfolded what would take "
                            "more scalar operations than this to evaluate "
                            "(default 2^34)");
}

void nnir::registerTransformPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    PassRegistry &registry = PassRegistry::instance();
    for (PassRegistration &registration : getBuiltinRegistrations()) {
      // A plugin or a test may have registered the name first: the registry
      // keeps the first registration.
      if (registry.lookup(registration.name))
        continue;
      std::string name = registration.name;
      if (Error error = registry.registerPass(std::move(registration)))
        report_fatal_error(Twine("Passes.def: built-in pass '") + name +
                           "' does not register: " + toString(std::move(error)));
    }
    registerTransformConfigs();
  });
}

//===----------------------------------------------------------------------===//
// The documentation's table
//===----------------------------------------------------------------------===//

void nnir::printBuiltinPassTable(raw_ostream &os) {
  registerTransformPasses();
  std::vector<const PassRegistration *> rows;
  for (const BuiltinPassRow &row : kBuiltinPasses)
    rows.push_back(PassRegistry::instance().lookup(row.name));
  llvm::sort(rows, [](const PassRegistration *a, const PassRegistration *b) {
    return a->name < b->name;
  });
  os << "| pass | kind | opt level | requires | options | description |\n"
     << "|---|---|---|---|---|---|\n";
  for (const PassRegistration *registration : rows) {
    os << "| `" << registration->name << "` | ";
    if (Expected<Ref<Pass>> pass =
            PassRegistry::instance().create(registration->name)) {
      const PassInfo &info = (*pass)->getInfo();
      os << (isa<ModulePass>(**pass)     ? "module"
             : isa<FunctionPass>(**pass) ? "function"
                                         : "Sequential")
         << " | " << info.optLevel << " | " << join(info.required, ", ");
    } else {
      os << "? | ? | ?";
      consumeError(pass.takeError());
    }
    os << " | ";
    ListSeparator sep;
    for (const PassOptionInfo &option : registration->options) {
      std::string value = option.defaultValue.str();
      os << sep << "`" << option.name << "=" << (value.empty() ? "\"\"" : value)
         << "`";
    }
    os << " | " << registration->description << " |\n";
  }
}
