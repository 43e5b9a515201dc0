//===- Elementwise.cpp - Unary and binary elementwise operators -----------===//
//
/// \file
/// Relay's unary (`exp`, `nn.relu`, ...) and broadcasting binary (`add`,
/// `multiply`, comparisons, ...) operators.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"

using namespace nnir;

void nnir::registerElementwiseOps() {
  OpRegistry &registry = OpRegistry::instance();
  for (const char *name :
       {"abs", "negative", "exp", "log", "log2", "log10", "sqrt", "rsqrt",
        "erf", "sigmoid", "tanh", "sin", "cos", "tan", "floor", "ceil",
        "round", "trunc", "sign", "logical_not", "bitwise_not", "copy",
        "zeros_like", "ones_like", "isnan", "isinf", "isfinite", "nn.relu"})
    registry.add(name)
        .describe("elementwise unary operator")
        .setNumInputs(1)
        .addArgument("data", "Tensor");
  for (const char *name :
       {"add", "subtract", "multiply", "divide", "floor_divide",
        "trunc_divide", "mod", "floor_mod", "trunc_mod", "power", "maximum",
        "minimum", "logical_and", "logical_or", "logical_xor", "bitwise_and",
        "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "equal",
        "not_equal", "less", "less_equal", "greater", "greater_equal"})
    registry.add(name)
        .describe("elementwise binary operator with numpy broadcasting")
        .setNumInputs(2)
        .addArgument("lhs", "Tensor")
        .addArgument("rhs", "Tensor");
  registry.add("clip")
      .describe("clamp every element to [a_min, a_max]")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<ClipAttrs>();
  registry.add("cast")
      .describe("convert every element to dtype")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<CastAttrs>();
  registry.add("where")
      .describe("select elements of x or y by a condition")
      .setNumInputs(3)
      .addArgument("condition", "Tensor")
      .addArgument("x", "Tensor")
      .addArgument("y", "Tensor");
}
