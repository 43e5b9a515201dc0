//===- BindParams.cpp - Binding parameters to constants -------------------===//
//
/// \file
/// Collects the arrays (npz, dir, random), checks them against the
/// parameters of @main, and substitutes constants for the bound parameters.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/BindParams.h"
#include "nnir/Transforms/Passes.h"

#include "nnir/IR/ExprMutator.h"
#include "nnir/Runtime/NumPy.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"


using namespace llvm;
using namespace nnir;

/// The type of \p param: its checked type, else its annotation.
static const TensorType *getParamType(const Var &param) {
  const Type *type = param.getCheckedType() ? param.getCheckedType().get()
                                            : param.getTypeAnnotation().get();
  return dyn_cast_or_null<TensorType>(type);
}

static std::string listParams(const Function &func) {
  std::string names;
  for (const Ref<Var> &param : func.getParams())
    names += (names.empty() ? "%" : ", %") + param->getNameHint().str();
  return names.empty() ? "(none)" : names;
}

namespace {
/// Finds the parameter of a function that an array binds, by name, and
/// checks its type.
class ParamMatcher {
public:
  explicit ParamMatcher(const Function &func) : func(func) {
    for (const Ref<Var> &param : func.getParams())
      byName[param->getNameHint()] = param.get();
  }

  /// The parameter array \p name (of \p dtype and \p shape, from
  /// \p source) binds, or the error that says why it binds none.
  Expected<const Var *> match(StringRef name, DataType dtype,
                              ArrayRef<int64_t> shape,
                              StringRef source) const {
    StringRef bare = name.ltrim('%');
    auto it = byName.find(bare);
    if (it == byName.end())
      return makeError(func.getLoc(),
                       "'" + source + "' has an array '" + name +
                           "' that matches no parameter (the parameters are " +
                           listParams(func) + ")");
    const Var *param = it->second;
    const TensorType *type = getParamType(*param);
    if (!type || dtype != type->getDType() || shape != type->getShape()) {
      Ref<TensorType> got = TensorType::get(shape, dtype);
      return makeError(
          param->getLoc(),
          "array '" + name + "' in '" + source + "' has type " + got->str() +
              ", but parameter '%" + bare + "' has type " +
              (type ? type->str() : std::string("(not a tensor)")));
    }
    return param;
  }

private:
  const Function &func;
  StringMap<const Var *> byName;
};
} // namespace

Expected<Ref<Function>> nnir::bindParams(const Function &func,
                                         const StringMap<NDArray> &params,
                                         StringRef source) {
  struct Binder final : ExprMutator {
    void bind(const Var *var, Ref<Expr> value) { memo[var] = std::move(value); }
  } binder;
  ParamMatcher matcher(func);
  // Check every array first, in name order, so errors are deterministic.
  std::vector<std::string> names;
  for (const auto &entry : params)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  SmallPtrSet<const Var *, 8> bound;
  for (const std::string &name : names) {
    const NDArray &array = params.find(name)->second;
    Expected<const Var *> param =
        matcher.match(name, array.getDType(), array.getShape(), source);
    if (!param)
      return param.takeError();
    binder.bind(*param, Constant::get(array, (*param)->getLoc()));
    bound.insert(*param);
  }
  if (bound.empty())
    return Ref<Function>(const_cast<Function *>(&func));
  SmallVector<Ref<Var>, 8> remaining;
  for (const Ref<Var> &param : func.getParams())
    if (!bound.count(param.get()))
      remaining.push_back(param);
  Ref<Expr> body = binder.mutate(func.getBody().get());
  return Function::get(remaining, std::move(body), func.getRetType(),
                       func.getAttrs(), func.getLoc());
}

namespace {
/// SplitMix64 (Steele, Lea and Flood, 2014): a fast 64-bit generator whose
/// sequence is the same on every platform (std::uniform_real_distribution's
/// is not), for weights of any size (ResNet-50 has 25M).
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// A value in [0, 1) from 53 random bits.
  double uniform01() { return double(next() >> 11) * 0x1.0p-53; }

private:
  uint64_t state;
};
} // namespace

/// Random values in [0.1, 1.0) (integers 1 to 9, bools true).
static Expected<NDArray> randomArray(const TensorType &type, SplitMix64 &rng) {
  Expected<NDArray> array =
      NDArray::create(type.getDType(), type.getShape(), UINT64_MAX,
                      /*zeroFill=*/false);
  if (!array)
    return array.takeError();
  DataType dtype = type.getDType();
  int64_t n = array->getNumElements();
  if (dtype.isBool()) {
    for (int64_t i = 0; i < n; ++i)
      array->setElementFromInt(i, 1);
  } else if (dtype.isInteger()) {
    for (int64_t i = 0; i < n; ++i)
      array->setElementFromInt(i, 1 + int64_t(rng.uniform01() * 9));
  } else if (dtype.isFloat() && dtype.getBits() == 32) {
    // Two values from each draw, 24 bits each (a float's precision); the
    // largest, 0.1 + 0.9 * (1 - 2^-24), rounds to a float below 1.
    auto *data = static_cast<float *>(array->getMutableData());
    for (int64_t i = 0; i < n; i += 2) {
      uint64_t bits = rng.next();
      data[i] = float(0.1 + 0.9 * double(bits >> 40) * 0x1.0p-24);
      if (i + 1 < n)
        data[i + 1] =
            float(0.1 + 0.9 * double((bits >> 16) & 0xffffff) * 0x1.0p-24);
    }
  } else {
    for (int64_t i = 0; i < n; ++i)
      array->setElementFromDouble(i, 0.1 + 0.9 * rng.uniform01());
  }
  return array;
}

/// Reads the arrays \p options names for \p func.
static Expected<StringMap<NDArray>>
collectArrays(const Function &func, const BindParamsOptions &options,
              std::string &source) {
  StringMap<NDArray> arrays;
  std::vector<std::string> sources;
  // Each array's header is checked against its parameter before its data
  // is read.
  ParamMatcher matcher(func);
  if (!options.npz.empty()) {
    Expected<std::vector<std::pair<std::string, NDArray>>> npz = loadNpzFile(
        options.npz, UINT64_MAX,
        [&](StringRef name, DataType dtype, ArrayRef<int64_t> shape) {
          return matcher.match(name, dtype, shape, options.npz).takeError();
        });
    if (!npz)
      return npz.takeError();
    for (auto &[name, array] : *npz)
      arrays[name] = std::move(array);
    sources.push_back(options.npz);
  }
  if (!options.dir.empty()) {
    if (!sys::fs::is_directory(options.dir))
      return makeError("BindParams: '" + options.dir + "' is not a directory");
    for (const Ref<Var> &param : func.getParams()) {
      SmallString<256> path(options.dir);
      sys::path::append(path, param->getNameHint() + ".npy");
      if (!sys::fs::exists(path) || arrays.count(param->getNameHint()))
        continue;
      Expected<NDArray> array = loadNpyFile(
          path, UINT64_MAX, [&](DataType dtype, ArrayRef<int64_t> shape) {
            return matcher
                .match(param->getNameHint(), dtype, shape, options.dir)
                .takeError();
          });
      if (!array)
        return array.takeError();
      arrays[param->getNameHint()] = std::move(*array);
    }
    sources.push_back(options.dir);
  }
  if (options.random) {
    SplitMix64 rng(options.seed);
    for (size_t i = 1; i < func.getParams().size(); ++i) {
      const Var &param = *func.getParams()[i];
      const TensorType *type = getParamType(param);
      if (!type || arrays.count(param.getNameHint()))
        continue;
      Expected<NDArray> array = randomArray(*type, rng);
      if (!array)
        return array.takeError();
      arrays[param.getNameHint()] = std::move(*array);
    }
    sources.push_back("random");
  }
  source = join(sources, "', '");
  return arrays;
}

Ref<Pass> nnir::createBindParamsPass(BindParamsOptions options) {
  PassInfo info = getBuiltinPassInfo(BuiltinPass::BindParams);
  return createModulePass(
      [options](Ref<IRModule> module,
                PassContext &) -> Expected<Ref<IRModule>> {
        Function *main = module->lookup("main");
        if (!main)
          return makeError("BindParams: the module has no @main");
        std::string source;
        Expected<StringMap<NDArray>> arrays =
            collectArrays(*main, options, source);
        if (!arrays)
          return arrays.takeError();
        Expected<Ref<Function>> bound = bindParams(*main, *arrays, source);
        if (!bound)
          return bound.takeError();
        if (bound->get() == main)
          return module;
        Ref<IRModule> result = module->shallowCopy();
        for (const IRModule::Entry &entry : module->getFunctions())
          if (entry.func.get() == main)
            if (Error err = result->add(entry.var, *bound, /*update=*/true))
              return err;
        return result;
      },
      std::move(info));
}
