//===- BindParams.h - Binding parameters to constants -----------*- C++ -*-===//
//
/// \file
/// BindParams turns parameters of `@main` into constants, as TVM users do
/// with `bind_params_by_name` and `relay.build(params=...)`: the bound
/// parameters disappear from the signature and their uses become the
/// constants. The values come from
///  - a NumPy `.npz` archive (`numpy.savez`, stored or deflated): each array
///    binds the parameter of its name (a leading `%` is ignored);
///  - a directory of `<param>.npy` files (other files are ignored);
///  - a seeded generator: every parameter except the first becomes a
///    finite constant drawn uniformly from [0.1, 1.0) (integer parameters:
///    from 1 to 9; bool: true), positive so that variances stay valid, for
///    benchmarks and tests of models printed without their weights.
/// An array whose name matches no parameter, or whose dtype or shape is not
/// the parameter's, is a located error; parameters left without a value stay
/// parameters.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_BINDPARAMS_H
#define NNIR_TRANSFORMS_BINDPARAMS_H

#include "nnir/IR/Module.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Runtime/NDArray.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace nnir {

struct BindParamsOptions {
  /// A `.npz` file ("" = none).
  std::string npz;
  /// A directory of `<param>.npy` files ("" = none).
  std::string dir;
  /// Bind every parameter but the first to seeded random values.
  bool random = false;
  uint64_t seed = 0;
};

/// Binds the parameters of \p func named in \p params (by name hint; a
/// leading `%` is ignored) to constants. \p source names where the arrays
/// came from, for errors.
llvm::Expected<Ref<Function>> bindParams(const Function &func,
                                         const llvm::StringMap<NDArray> &params,
                                         llvm::StringRef source);

/// The "BindParams" module pass: binds the parameters of `@main` from
/// \p options' sources (npz, then dir, then random for what is left).
Ref<Pass> createBindParamsPass(BindParamsOptions options);

} // namespace nnir

#endif // NNIR_TRANSFORMS_BINDPARAMS_H
