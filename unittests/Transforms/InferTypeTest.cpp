//===- InferTypeTest.cpp - Tests of type relations and InferType ----------===//
//
/// \file
/// Every type relation rule of the registered operators and every rule of
/// InferType, with the exact text and location of each error; identity on
/// typed modules; a 1,000,000-call chain on the default stack; the pass and
/// its registration.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/InferType.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/TypeRelation.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Parser/Parser.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Transforms/Passes.h"

#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace nnir;

namespace {

/// What inference made of a program: the type of @main's body, or the error
/// with its offset in the program text.
struct Outcome {
  std::string type;
  std::string error;
  /// Offset of the error location in the source, or npos.
  size_t errorOffset = std::string::npos;
};

class InferTypeTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerAllOps();
    registerTransformPasses();
  }

  /// Parses \p text (which must parse).
  Ref<IRModule> parse(StringRef text) {
    Expected<Ref<IRModule>> module = parseModule(text, sm, "test.nnir");
    if (!module) {
      ADD_FAILURE() << "parse error: " << toString(module.takeError());
      return IRModule::create();
    }
    return *module;
  }

  /// Infers \p module; an error is returned as an Outcome.
  Outcome run(Ref<IRModule> module, StringRef text = "") {
    Outcome outcome;
    Expected<Ref<IRModule>> typed = inferTypes(module);
    if (!typed) {
      handleAllErrors(typed.takeError(), [&](const DiagnosticError &d) {
        outcome.error = d.getMessage();
        if (d.getLoc().isValid() && !text.empty()) {
          // The buffer added last holds the text.
          const char *start =
              sm.getMemoryBuffer(sm.getNumBuffers())->getBufferStart();
          outcome.errorOffset = d.getLoc().getPointer() - start;
        }
      });
      return outcome;
    }
    Function *main = (*typed)->lookup("main");
    if (!main || !main->getBody()->getCheckedType()) {
      ADD_FAILURE() << "no typed @main";
      return outcome;
    }
    outcome.type = main->getBody()->getCheckedType()->str();
    return outcome;
  }

  /// Parses and infers \p text.
  Outcome infer(StringRef text) { return run(parse(text), text); }

  /// The type of `body` in `def @main(params) { body }`, or "error: msg".
  std::string typeOf(StringRef params, StringRef body) {
    std::string text = ("def @main(" + params + ") { " + body + " }").str();
    Outcome outcome = infer(text);
    return outcome.error.empty() ? outcome.type : "error: " + outcome.error;
  }

  SourceMgr sm;
};

/// Expects \p outcome to be the error \p message located at \p offset.
void expectErrorAt(const Outcome &outcome, StringRef message, size_t offset) {
  EXPECT_EQ(outcome.error, message);
  EXPECT_EQ(outcome.errorOffset, offset) << "for " << message.str();
}

/// Expects \p outcome to be the error \p message located at the first
/// occurrence of \p marker in \p text.
void expectError(const Outcome &outcome, StringRef text, StringRef message,
                 StringRef marker) {
  ASSERT_NE(text.find(marker), StringRef::npos);
  expectErrorAt(outcome, message, text.find(marker));
}

/// The checked type of @main's body in \p module.
std::string outcomeType(const IRModule &module) {
  Function *main = module.lookup("main");
  if (!main || !main->getBody()->getCheckedType())
    return "<untyped>";
  return main->getBody()->getCheckedType()->str();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

TEST_F(InferTypeTest, UnaryIdentity) {
  StringRef x = "%x: Tensor[(2, 3), float32]";
  for (StringRef op : {"exp", "negative", "nn.relu", "sigmoid", "copy",
                       "zeros_like", "ones_like", "round"})
    EXPECT_EQ(typeOf(x, (op + "(%x)").str()), "Tensor[(2, 3), float32]")
        << op.str();
  EXPECT_EQ(typeOf("%x: int8", "abs(%x)"), "int8");
}

TEST_F(InferTypeTest, UnaryPredicatesGiveBool) {
  for (StringRef op : {"isnan", "isinf", "isfinite"})
    EXPECT_EQ(typeOf("%x: Tensor[(2, 3), float16]", (op + "(%x)").str()),
              "Tensor[(2, 3), bool]");
}

TEST_F(InferTypeTest, LogicalAndBitwiseDTypes) {
  EXPECT_EQ(typeOf("%x: Tensor[(2), bool]", "logical_not(%x)"),
            "Tensor[(2), bool]");
  EXPECT_EQ(typeOf("%x: Tensor[(2), int32]", "logical_not(%x)"),
            "error: logical_not: expected a tensor of bool dtype, got "
            "Tensor[(2), int32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2), bool], %y: bool", "logical_and(%x, %y)"),
            "Tensor[(2), bool]");
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32], %y: Tensor[(2), float32]",
                   "logical_or(%x, %y)"),
            "error: logical_or: expected operands of bool dtype, got "
            "Tensor[(2), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2), uint8], %y: uint8", "bitwise_xor(%x, %y)"),
            "Tensor[(2), uint8]");
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32]", "bitwise_not(%x)"),
            "error: bitwise_not: expected a tensor of integer or bool dtype, "
            "got Tensor[(2), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2), bool], %y: bool", "left_shift(%x, %y)"),
            "error: left_shift: expected operands of integer dtype, got "
            "Tensor[(2), bool]");
}

TEST_F(InferTypeTest, BinaryBroadcast) {
  EXPECT_EQ(typeOf("%x: Tensor[(3, 4), float32], %y: Tensor[(4), float32]",
                   "add(%x, %y)"),
            "Tensor[(3, 4), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 1, 4), int32], %y: Tensor[(3, 1), int32]",
                   "multiply(%x, %y)"),
            "Tensor[(2, 3, 4), int32]");
  EXPECT_EQ(typeOf("%x: Tensor[(1, 3), float32]", "add(%x, 1f)"),
            "Tensor[(1, 3), float32]");
  EXPECT_EQ(typeOf("%x: float32", "power(%x, %x)"), "float32");
  EXPECT_EQ(typeOf("%x: Tensor[(0, 3), float32], %y: Tensor[(1, 3), float32]",
                   "subtract(%x, %y)"),
            "Tensor[(0, 3), float32]");
}

TEST_F(InferTypeTest, BinaryErrors) {
  std::string text = "def @main(%x: Tensor[(3, 4), float32], "
                     "%y: Tensor[(5), float32]) { add(%x, %y) }";
  expectError(infer(text), text,
              "add: cannot broadcast Tensor[(3, 4), float32] with "
              "Tensor[(5), float32]",
              "add(");
  text = "def @main(%x: Tensor[(3), float32], %y: Tensor[(3), int32]) {\n"
         "  %0 = negative(%x);\n"
         "  add(%0, %y)\n"
         "}";
  expectError(infer(text), text, "add: dtype mismatch float32 vs int32",
              "add(");
  EXPECT_EQ(typeOf("%x: Tensor[(3), float32]", "maximum((%x, %x), %x)"),
            "error: maximum: expected a tensor for 'lhs', got "
            "(Tensor[(3), float32], Tensor[(3), float32])");
  // Broadcasting may not overflow the element count.
  EXPECT_EQ(typeOf("%x: Tensor[(4294967296, 1), int8], "
                   "%y: Tensor[(1, 4294967296), int8]",
                   "add(%x, %y)"),
            "error: add: result shape (4294967296, 4294967296) has more than "
            "2^63-1 elements");
}

TEST_F(InferTypeTest, ComparisonsGiveBool) {
  for (StringRef op :
       {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"})
    EXPECT_EQ(typeOf("%x: Tensor[(2, 3), float32], %y: Tensor[(3), float32]",
                     (op + "(%x, %y)").str()),
              "Tensor[(2, 3), bool]")
        << op.str();
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32], %y: Tensor[(2), int64]",
                   "less(%x, %y)"),
            "error: less: dtype mismatch float32 vs int64");
}

TEST_F(InferTypeTest, ClipAndCast) {
  EXPECT_EQ(typeOf("%x: Tensor[(4), float32]", "clip(%x, a_min=0f, a_max=6f)"),
            "Tensor[(4), float32]");
  // As in Relay, a_min > a_max is accepted (every element becomes a_min).
  EXPECT_EQ(typeOf("%x: Tensor[(4), float32]", "clip(%x, a_min=6f, a_max=0f)"),
            "Tensor[(4), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(4, 2), float32]", "cast(%x, dtype=\"int8\")"),
            "Tensor[(4, 2), int8]");
  EXPECT_EQ(typeOf("%x: Tensor[(4, 2), float32]", "cast(%x, dtype=\"bool\")"),
            "Tensor[(4, 2), bool]");
  // A call built without a record gets the defaults: no dtype.
  Ref<Var> x = Var::get("x", TensorType::get({4}, DataType::float32()));
  Ref<Expr> call = Call::get(Op::lookup("cast"), {x});
  Outcome outcome = run(IRModule::fromExpr(Function::get({x}, call)));
  EXPECT_EQ(outcome.error, "cast: the target dtype is not set");
}

TEST_F(InferTypeTest, Where) {
  EXPECT_EQ(typeOf("%c: Tensor[(3, 1), bool], %x: Tensor[(1, 4), float32], "
                   "%y: Tensor[(4), float32]",
                   "where(%c, %x, %y)"),
            "Tensor[(3, 4), float32]");
  EXPECT_EQ(typeOf("%c: bool, %x: Tensor[(2), int32], %y: int32",
                   "where(%c, %x, %y)"),
            "Tensor[(2), int32]");
  EXPECT_EQ(typeOf("%c: Tensor[(3), bool], %x: Tensor[(3), float32], "
                   "%y: Tensor[(3), int32]",
                   "where(%c, %x, %y)"),
            "error: where: dtype mismatch float32 vs int32");
  EXPECT_EQ(typeOf("%c: Tensor[(2), bool], %x: Tensor[(3), float32], "
                   "%y: Tensor[(3), float32]",
                   "where(%c, %x, %y)"),
            "error: where: cannot broadcast Tensor[(2), bool] with "
            "Tensor[(3), float32]");
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST_F(InferTypeTest, Reductions) {
  StringRef x = "%x: Tensor[(2, 3, 4), float32]";
  EXPECT_EQ(typeOf(x, "sum(%x)"), "float32");
  EXPECT_EQ(typeOf(x, "sum(%x, axis=[])"), "float32");
  EXPECT_EQ(typeOf(x, "mean(%x, axis=[1])"), "Tensor[(2, 4), float32]");
  EXPECT_EQ(typeOf(x, "max(%x, axis=[-1, 0])"), "Tensor[(3), float32]");
  EXPECT_EQ(typeOf(x, "min(%x, axis=[2, 0], keepdims=True)"),
            "Tensor[(1, 3, 1), float32]");
  EXPECT_EQ(typeOf(x, "prod(%x, axis=[1], exclude=True)"),
            "Tensor[(3), float32]");
  EXPECT_EQ(typeOf(x, "sum(%x, axis=[1], keepdims=True, exclude=True)"),
            "Tensor[(1, 3, 1), float32]");
  // As in Relay, no axis reduces everything even with exclude.
  EXPECT_EQ(typeOf(x, "sum(%x, exclude=True)"), "float32");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 3), bool]", "all(%x, axis=[0])"),
            "Tensor[(3), bool]");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 3), int32]", "mean(%x)"), "int32");
}

TEST_F(InferTypeTest, ReductionErrors) {
  StringRef x = "%x: Tensor[(2, 3, 4), float32]";
  EXPECT_EQ(typeOf(x, "sum(%x, axis=[3])"),
            "error: sum: axis 3 is out of range for a tensor of rank 3");
  EXPECT_EQ(typeOf(x, "any(%x, axis=[-4])"),
            "error: any: axis -4 is out of range for a tensor of rank 3");
  EXPECT_EQ(typeOf(x, "sum(%x, axis=[1, -2])"),
            "error: sum: axis 1 is listed twice");
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

TEST_F(InferTypeTest, Reshape) {
  StringRef x = "%x: Tensor[(2, 3, 4), float32]";
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[6, -1])"),
            "Tensor[(6, 4), float32]");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[24])"), "Tensor[(24), float32]");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[0, -1])"),
            "Tensor[(2, 12), float32]");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[-1, 0, 4])"),
            "Tensor[(2, 3, 4), float32]");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[-2])"),
            "Tensor[(2, 3, 4), float32]");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[0, -2])"),
            "Tensor[(2, 3, 4), float32]");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[-3, 4])"),
            "Tensor[(6, 4), float32]");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[0, -3])"),
            "Tensor[(2, 12), float32]");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[-4, 1, 2, -2])"),
            "Tensor[(1, 2, 3, 4), float32]");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[0, -4, -1, 3, 4])"),
            "Tensor[(2, 1, 3, 4), float32]");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[2, 3, -4, 2, -1])"),
            "Tensor[(2, 3, 2, 2), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(0, 3), float32]",
                   "reshape(%x, newshape=[0, 3], allowzero=True)"),
            "Tensor[(0, 3), float32]");
  EXPECT_EQ(typeOf("%x: float32", "reshape(%x, newshape=[1, 1])"),
            "Tensor[(1, 1), float32]");
}

TEST_F(InferTypeTest, ReshapeErrors) {
  StringRef x = "%x: Tensor[(2, 3, 4), float32]";
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[5, 5])"),
            "error: reshape: cannot reshape Tensor[(2, 3, 4), float32] (24 "
            "elements) to newshape (5, 5) (25 elements)");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[5, -1])"),
            "error: reshape: cannot reshape Tensor[(2, 3, 4), float32] (24 "
            "elements) to newshape (5, -1): 24 is not divisible by 5");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[-1, -1])"),
            "error: reshape: newshape (-1, -1) has more than one -1");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[24, 0])"),
            "error: reshape: cannot reshape Tensor[(2, 3, 4), float32] (24 "
            "elements) to newshape (24, 0) (72 elements)");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[1, 1, 1, 0])"),
            "error: reshape: newshape (1, 1, 1, 0): 0 at position 3 has no "
            "input dimension to copy from Tensor[(2, 3, 4), float32]");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[0, 0, -3])"),
            "error: reshape: newshape (0, 0, -3): -3 at position 2 needs two "
            "more input dimensions of Tensor[(2, 3, 4), float32]");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[-4, 1])"),
            "error: reshape: newshape (-4, 1): -4 at position 0 must be "
            "followed by two values");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[-4, 4, -1, -2])"),
            "error: reshape: newshape (-4, 4, -1, -2): cannot split dimension "
            "2 into (4, -1)");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[-4, -1, -1, -2])"),
            "error: reshape: newshape (-4, -1, -1, -2): cannot split "
            "dimension 2 into (-1, -1)");
  EXPECT_EQ(typeOf(x, "reshape(%x, newshape=[-5])"),
            "error: reshape: newshape (-5) has the invalid value -5");
  EXPECT_EQ(
      typeOf("%x: Tensor[(0, 3), float32]", "reshape(%x, newshape=[0, -1])"),
      "error: reshape: newshape (0, -1): cannot infer the -1 dimension "
      "when another dimension is 0");
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32]",
                   "reshape(%x, newshape=[9223372036854775807, 2])"),
            "error: reshape: result shape (9223372036854775807, 2) has more "
            "than 2^63-1 elements");
}

TEST_F(InferTypeTest, Transpose) {
  StringRef x = "%x: Tensor[(2, 3, 4), float32]";
  EXPECT_EQ(typeOf(x, "transpose(%x, axes=None)"),
            "Tensor[(4, 3, 2), float32]");
  EXPECT_EQ(typeOf(x, "transpose(%x, axes=[0, 2, 1])"),
            "Tensor[(2, 4, 3), float32]");
  EXPECT_EQ(typeOf(x, "transpose(%x, axes=[-1, 0, 1])"),
            "Tensor[(4, 2, 3), float32]");
  EXPECT_EQ(typeOf(x, "transpose(%x, axes=[0, 1])"),
            "error: transpose: axes (0, 1) has 2 entries for Tensor[(2, 3, "
            "4), float32]");
  EXPECT_EQ(typeOf(x, "transpose(%x, axes=[0, 2, -1])"),
            "error: transpose: axes (0, 2, -1) is not a permutation: axis 2 "
            "is listed twice");
  EXPECT_EQ(typeOf(x, "transpose(%x, axes=[0, 1, 3])"),
            "error: transpose: axis 3 is out of range for a tensor of rank 3");
}

TEST_F(InferTypeTest, Concatenate) {
  EXPECT_EQ(typeOf("%x: Tensor[(2, 3), float32], %y: Tensor[(4, 3), float32]",
                   "concatenate((%x, %y))"),
            "Tensor[(6, 3), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 3), float32], %y: Tensor[(2, 5), float32]",
                   "concatenate((%x, %y, %x), axis=-1)"),
            "Tensor[(2, 11), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 3), float32]", "concatenate((%x,))"),
            "Tensor[(2, 3), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 3), float32], %y: Tensor[(2, 5), float32]",
                   "concatenate((%x, %y))"),
            "error: concatenate: cannot concatenate Tensor[(2, 3), float32] "
            "with Tensor[(2, 5), float32] along axis 0");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), int32]",
                   "concatenate((%x, %y))"),
            "error: concatenate: dtype mismatch float32 vs int32");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 3), float32], %y: Tensor[(2), float32]",
                   "concatenate((%x, %y))"),
            "error: concatenate: cannot concatenate Tensor[(2, 3), float32] "
            "with Tensor[(2), float32]: ranks differ");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 3), float32]", "concatenate(%x)"),
            "error: concatenate: expected a tuple of tensors for 'data', got "
            "Tensor[(2, 3), float32]");
  EXPECT_EQ(
      typeOf("%x: Tensor[(2, 3), float32]", "concatenate((%x, %x), axis=2)"),
      "error: concatenate: axis 2 is out of range for a tensor of rank "
      "2");
  EXPECT_EQ(typeOf("%x: float32", "concatenate((%x, %x))"),
            "error: concatenate: cannot concatenate 0-d tensors");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 3), float32]", "concatenate(())"),
            "error: concatenate: cannot concatenate an empty tuple");
  EXPECT_EQ(
      typeOf("%x: Tensor[(2, 3), float32]", "concatenate((%x, (%x, %x)))"),
      "error: concatenate: field 1 of the tuple is not a tensor: "
      "(Tensor[(2, 3), float32], Tensor[(2, 3), float32])");
}

TEST_F(InferTypeTest, Split) {
  EXPECT_EQ(
      typeOf("%x: Tensor[(6, 4), float32]", "split(%x, indices_or_sections=3)"),
      "(Tensor[(2, 4), float32], Tensor[(2, 4), float32], "
      "Tensor[(2, 4), float32])");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 5), float32]",
                   "split(%x, indices_or_sections=[1, 3], axis=1)"),
            "(Tensor[(2, 1), float32], Tensor[(2, 2), float32], "
            "Tensor[(2, 2), float32])");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 5), float32]",
                   "split(%x, indices_or_sections=[2], axis=-1)"),
            "(Tensor[(2, 2), float32], Tensor[(2, 3), float32])");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 5), float32]",
                   "%0 = split(%x, indices_or_sections=1, axis=1); %0.0"),
            "Tensor[(2, 5), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 5), float32]",
                   "split(%x, indices_or_sections=2, axis=1)"),
            "error: split: axis 1 of Tensor[(2, 5), float32] cannot be split "
            "into 2 equal sections");
  EXPECT_EQ(
      typeOf("%x: Tensor[(2, 5), float32]", "split(%x, indices_or_sections=0)"),
      "error: split: the number of sections must be positive, got 0");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 5), float32]",
                   "split(%x, indices_or_sections=[3, 2], axis=1)"),
            "error: split: indices (3, 2) must increase strictly within (0, "
            "5) for axis 1 of Tensor[(2, 5), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 5), float32]",
                   "split(%x, indices_or_sections=[1, 5], axis=1)"),
            "error: split: indices (1, 5) must increase strictly within (0, "
            "5) for axis 1 of Tensor[(2, 5), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 5), float32]",
                   "split(%x, indices_or_sections=\"two\")"),
            "error: split: indices_or_sections must be an integer or a list "
            "of integers, got a string");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 5), float32]",
                   "split(%x, indices_or_sections=2, axis=2)"),
            "error: split: axis 2 is out of range for a tensor of rank 2");
}

//===----------------------------------------------------------------------===//
// Neural-network operators
//===----------------------------------------------------------------------===//

TEST_F(InferTypeTest, Conv2D) {
  StringRef nchw = "%x: Tensor[(1, 3, 32, 32), float32], "
                   "%w: Tensor[(16, 3, 3, 3), float32]";
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w)"),
            "Tensor[(1, 16, 30, 30), float32]");
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, padding=[1, 1], channels=16, "
                         "kernel_size=[3, 3])"),
            "Tensor[(1, 16, 32, 32), float32]");
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, strides=[2, 2], padding=[1])"),
            "Tensor[(1, 16, 16, 16), float32]");
  // Four paddings are (top, left, bottom, right).
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, padding=[2, 1, 0, 0])"),
            "Tensor[(1, 16, 32, 31), float32]");
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, dilation=[2, 3])"),
            "Tensor[(1, 16, 28, 26), float32]");
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, out_layout=\"NHWC\")"),
            "Tensor[(1, 30, 30, 16), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(1, 3, 8, 8), int8], "
                   "%w: Tensor[(4, 3, 1, 1), int8]",
                   "nn.conv2d(%x, %w, out_dtype=\"int32\")"),
            "Tensor[(1, 4, 8, 8), int32]");
  EXPECT_EQ(typeOf("%x: Tensor[(1, 32, 32, 3), float32], "
                   "%w: Tensor[(3, 3, 3, 16), float32]",
                   "nn.conv2d(%x, %w, data_layout=\"NHWC\", "
                   "kernel_layout=\"HWIO\")"),
            "Tensor[(1, 30, 30, 16), float32]");
  // Grouped and depthwise.
  EXPECT_EQ(typeOf("%x: Tensor[(1, 4, 8, 8), float32], "
                   "%w: Tensor[(8, 2, 3, 3), float32]",
                   "nn.conv2d(%x, %w, groups=2)"),
            "Tensor[(1, 8, 6, 6), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(1, 8, 16, 16), float32], "
                   "%w: Tensor[(8, 1, 3, 3), float32]",
                   "nn.conv2d(%x, %w, padding=[1, 1], groups=8, channels=8)"),
            "Tensor[(1, 8, 16, 16), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(1, 8, 16, 16), float32], "
                   "%w: Tensor[(8, 2, 3, 3), float32]",
                   "nn.conv2d(%x, %w, groups=8, channels=16, "
                   "kernel_size=[3, 3])"),
            "Tensor[(1, 16, 14, 14), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(1, 16, 16, 8), float32], "
                   "%w: Tensor[(3, 3, 8, 1), float32]",
                   "nn.conv2d(%x, %w, groups=8, data_layout=\"NHWC\", "
                   "kernel_layout=\"HWOI\")"),
            "Tensor[(1, 14, 14, 8), float32]");
}

TEST_F(InferTypeTest, Conv2DErrors) {
  StringRef nchw = "%x: Tensor[(1, 3, 32, 32), float32], "
                   "%w: Tensor[(16, 3, 3, 3), float32]";
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, channels=8)"),
            "error: nn.conv2d: channels=8 does not match the 16 output "
            "channels of weight Tensor[(16, 3, 3, 3), float32]");
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, kernel_size=[5, 5])"),
            "error: nn.conv2d: kernel_size (5, 5) does not match weight "
            "Tensor[(16, 3, 3, 3), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(1, 4, 8, 8), float32], "
                   "%w: Tensor[(16, 3, 3, 3), float32]",
                   "nn.conv2d(%x, %w)"),
            "error: nn.conv2d: weight Tensor[(16, 3, 3, 3), float32] has 3 "
            "input channels per group, but data Tensor[(1, 4, 8, 8), "
            "float32] has 4 channels in 1 group");
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, groups=2)"),
            "error: nn.conv2d: the 3 input channels of Tensor[(1, 3, 32, 32), "
            "float32] are not divisible by groups=2");
  EXPECT_EQ(typeOf("%x: Tensor[(1, 4, 8, 8), float32], "
                   "%w: Tensor[(6, 1, 3, 3), float32]",
                   "nn.conv2d(%x, %w, groups=4)"),
            "error: nn.conv2d: the 6 output channels of weight Tensor[(6, 1, "
            "3, 3), float32] are not divisible by groups=4");
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, groups=0)"),
            "error: nn.conv2d: groups must be positive, got 0");
  EXPECT_EQ(typeOf("%x: Tensor[(1, 3, 2, 2), float32], "
                   "%w: Tensor[(16, 3, 3, 3), float32]",
                   "nn.conv2d(%x, %w)"),
            "error: nn.conv2d: the dilated kernel height 3 exceeds the padded "
            "input height 2");
  // A split layout is a layout of another rank.
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, data_layout=\"NCHW4c\")"),
            "error: nn.conv2d: expected a 5-d tensor for 'data', got "
            "Tensor[(1, 3, 32, 32), float32]");
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, kernel_layout=\"OIHH\")"),
            "error: nn.conv2d: unsupported kernel_layout 'OIHH' (expected an "
            "ordering of OIHW, whose axes may be split)");
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, strides=[1, 1, 1])"),
            "error: nn.conv2d: strides must have 1 or 2 values, got (1, 1, 1)");
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, dilation=[0, 1])"),
            "error: nn.conv2d: dilation must be positive, got (0, 1)");
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, padding=[1, 1, 1])"),
            "error: nn.conv2d: padding must have 1, 2 or 4 values, got (1, 1, "
            "1)");
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, padding=[-1, 0])"),
            "error: nn.conv2d: padding must not be negative, got (-1, 0)");
  EXPECT_EQ(typeOf(nchw, "nn.conv2d(%x, %w, "
                         "padding=[9223372036854775807, 0])"),
            "error: nn.conv2d: the height window computation overflows");
  EXPECT_EQ(typeOf("%x: Tensor[(3, 32, 32), float32], "
                   "%w: Tensor[(16, 3, 3, 3), float32]",
                   "nn.conv2d(%x, %w)"),
            "error: nn.conv2d: expected a 4-d tensor for 'data', got "
            "Tensor[(3, 32, 32), float32]");
}

TEST_F(InferTypeTest, Dense) {
  EXPECT_EQ(typeOf("%x: Tensor[(2, 4), float32], %w: Tensor[(3, 4), float32]",
                   "nn.dense(%x, %w, units=None)"),
            "Tensor[(2, 3), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(5, 2, 4), int8], %w: Tensor[(3, 4), int8]",
                   "nn.dense(%x, %w, units=3, out_dtype=\"int32\")"),
            "Tensor[(5, 2, 3), int32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 4), float32], %w: Tensor[(3, 5), float32]",
                   "nn.dense(%x, %w, units=None)"),
            "error: nn.dense: data Tensor[(2, 4), float32] and weight "
            "Tensor[(3, 5), float32] disagree on the reduced dimension (4 vs "
            "5)");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 4), float32], %w: Tensor[(3, 4), float32]",
                   "nn.dense(%x, %w, units=10)"),
            "error: nn.dense: units=10 does not match weight Tensor[(3, 4), "
            "float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2, 4), float32], %w: Tensor[(4), float32]",
                   "nn.dense(%x, %w, units=None)"),
            "error: nn.dense: expected a 2-d tensor for 'weight', got "
            "Tensor[(4), float32]");
}

TEST_F(InferTypeTest, BiasAddAndBatchNorm) {
  EXPECT_EQ(typeOf("%x: Tensor[(1, 3, 2, 2), float32], "
                   "%b: Tensor[(3), float32]",
                   "nn.bias_add(%x, %b)"),
            "Tensor[(1, 3, 2, 2), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(1, 2, 2, 3), float32], "
                   "%b: Tensor[(3), float32]",
                   "nn.bias_add(%x, %b, axis=-1)"),
            "Tensor[(1, 2, 2, 3), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(1, 2, 2, 3), float32], "
                   "%b: Tensor[(3), float32]",
                   "nn.bias_add(%x, %b)"),
            "error: nn.bias_add: bias Tensor[(3), float32] does not match "
            "axis 1 of data Tensor[(1, 2, 2, 3), float32]: expected "
            "Tensor[(2), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(1, 3), float32], %b: Tensor[(3), float16]",
                   "nn.bias_add(%x, %b)"),
            "error: nn.bias_add: bias Tensor[(3), float16] does not match "
            "axis 1 of data Tensor[(1, 3), float32]: expected Tensor[(3), "
            "float32]");
  StringRef bn = "%x: Tensor[(1, 3, 4, 4), float32], %g: Tensor[(3), float32], "
                 "%b: Tensor[(3), float32], %m: Tensor[(3), float32], "
                 "%v: Tensor[(3), float32]";
  EXPECT_EQ(typeOf(bn, "nn.batch_norm(%x, %g, %b, %m, %v)"),
            "(Tensor[(1, 3, 4, 4), float32], Tensor[(3), float32], "
            "Tensor[(3), float32])");
  EXPECT_EQ(typeOf(bn, "%0 = nn.batch_norm(%x, %g, %b, %m, %v); %0.0"),
            "Tensor[(1, 3, 4, 4), float32]");
  EXPECT_EQ(typeOf(bn, "nn.batch_norm(%x, %g, %b, %m, %v, axis=2)"),
            "error: nn.batch_norm: gamma Tensor[(3), float32] does not match "
            "axis 2 of data Tensor[(1, 3, 4, 4), float32]: expected "
            "Tensor[(4), float32]");
  EXPECT_EQ(typeOf(bn, "nn.batch_norm(%x, %g, %b, %x, %v)"),
            "error: nn.batch_norm: moving_mean Tensor[(1, 3, 4, 4), float32] "
            "does not match axis 1 of data Tensor[(1, 3, 4, 4), float32]: "
            "expected Tensor[(3), float32]");
}

TEST_F(InferTypeTest, SoftmaxPoolDropout) {
  StringRef x = "%x: Tensor[(1, 3, 5, 5), float32]";
  EXPECT_EQ(typeOf(x, "nn.softmax(%x)"), "Tensor[(1, 3, 5, 5), float32]");
  EXPECT_EQ(typeOf(x, "nn.log_softmax(%x, axis=1)"),
            "Tensor[(1, 3, 5, 5), float32]");
  EXPECT_EQ(typeOf(x, "nn.softmax(%x, axis=4)"),
            "error: nn.softmax: axis 4 is out of range for a tensor of rank 4");
  EXPECT_EQ(typeOf(x, "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2])"),
            "Tensor[(1, 3, 2, 2), float32]");
  EXPECT_EQ(typeOf(x, "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], "
                      "ceil_mode=True)"),
            "Tensor[(1, 3, 3, 3), float32]");
  EXPECT_EQ(typeOf(x, "nn.max_pool2d(%x, pool_size=[3, 3], padding=[1, 1])"),
            "Tensor[(1, 3, 5, 5), float32]");
  EXPECT_EQ(typeOf(x, "nn.max_pool2d(%x, pool_size=[3], strides=[2], "
                      "padding=[0, 0, 1, 1])"),
            "Tensor[(1, 3, 2, 2), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(1, 5, 5, 3), float32]",
                   "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], "
                   "layout=\"NHWC\")"),
            "Tensor[(1, 2, 2, 3), float32]");
  EXPECT_EQ(typeOf(x, "nn.max_pool2d(%x, pool_size=[6, 6])"),
            "error: nn.max_pool2d: the dilated kernel height 6 exceeds the "
            "padded input height 5");
  EXPECT_EQ(typeOf(x, "nn.max_pool2d(%x, pool_size=[2, 2], layout=\"HWC\")"),
            "error: nn.max_pool2d: layout 'HWC' has 3 axes, but data "
            "Tensor[(1, 3, 5, 5), float32] has rank 4");
  EXPECT_EQ(typeOf(x, "nn.dropout(%x)"),
            "(Tensor[(1, 3, 5, 5), float32], Tensor[(1, 3, 5, 5), float32])");
  EXPECT_EQ(typeOf(x, "%0 = nn.dropout(%x, rate=0.1f); %0.1"),
            "Tensor[(1, 3, 5, 5), float32]");
}

//===----------------------------------------------------------------------===//
// InferType: expressions
//===----------------------------------------------------------------------===//

TEST_F(InferTypeTest, ConstantsTuplesAndLets) {
  EXPECT_EQ(typeOf("", "1f"), "float32");
  EXPECT_EQ(typeOf("", "(1, 2i64, True)"), "(int32, int64, bool)");
  EXPECT_EQ(typeOf("", "()"), "()");
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32]", "let %y = negative(%x); %y"),
            "Tensor[(2), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32]",
                   "let %y: Tensor[(2), float32] = negative(%x); (%y, %x).1"),
            "Tensor[(2), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32]", "let %y: _ = %x; %y"),
            "Tensor[(2), float32]");
}

TEST_F(InferTypeTest, LetVariablesGetTheirValuesType) {
  Ref<IRModule> module = parse("def @main(%x: Tensor[(2), float32]) {\n"
                               "  let %y = (%x, 1f);\n"
                               "  %y.1\n"
                               "}");
  Expected<Ref<IRModule>> typed = inferTypes(module);
  ASSERT_TRUE(bool(typed)) << toString(typed.takeError());
  auto *let = cast<Let>((*typed)->lookup("main")->getBody().get());
  ASSERT_TRUE(let->getVar()->getCheckedType());
  EXPECT_EQ(let->getVar()->getCheckedType()->str(),
            "(Tensor[(2), float32], float32)");
  // As in Relay the missing annotation is filled in.
  ASSERT_TRUE(let->getVar()->getTypeAnnotation());
  EXPECT_EQ(let->getVar()->getTypeAnnotation()->str(),
            "(Tensor[(2), float32], float32)");
  // The use in the body is the rebuilt binder.
  auto *item = cast<TupleGetItem>(let->getBody().get());
  EXPECT_EQ(item->getTuple(), let->getVar());
  EXPECT_EQ(item->getCheckedType()->str(), "float32");
  // The input module is untouched.
  auto *oldLet = cast<Let>(module->lookup("main")->getBody().get());
  EXPECT_FALSE(oldLet->getVar()->getCheckedType());
  EXPECT_FALSE(oldLet->getCheckedType());
  EXPECT_FALSE(module->hasValidTypes());
  EXPECT_TRUE((*typed)->hasValidTypes());
}

TEST_F(InferTypeTest, LetErrors) {
  std::string text = "def @main(%x: Tensor[(2), float32]) {\n"
                     "  let %y: Tensor[(2), int32] = negative(%x);\n"
                     "  %y\n"
                     "}";
  expectError(infer(text), text,
              "%y is annotated Tensor[(2), int32] but its value has type "
              "Tensor[(2), float32]",
              "%y:");
  text = "def @main(%x: Tensor[(2), float32]) {\n"
         "  let %f = fn (%a: Tensor[(2), float32]) { %f(%a) };\n"
         "  %f(%x)\n"
         "}";
  expectError(infer(text), text,
              "cannot infer the return type of %f, which calls itself; "
              "annotate it",
              "%f =");
}

TEST_F(InferTypeTest, PartialAnnotations) {
  // `_` matches any type; the rest of the annotation must fit, and the
  // complete type replaces it.
  Ref<IRModule> module =
      parse("def @main(%x: Tensor[(2), float32]) -> (Tensor[(2), float32], _) "
            "{ let %y: (_, float32) = (%x, sum(%x)); %y }");
  Expected<Ref<IRModule>> typed = inferTypes(module);
  ASSERT_TRUE(bool(typed)) << toString(typed.takeError());
  Function *main = (*typed)->lookup("main");
  EXPECT_EQ(main->getRetType()->str(), "(Tensor[(2), float32], float32)");
  EXPECT_EQ(
      cast<Let>(main->getBody().get())->getVar()->getTypeAnnotation()->str(),
      "(Tensor[(2), float32], float32)");
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32]",
                   "let %y: (_, int32) = (%x, sum(%x)); %y"),
            "error: %y is annotated (_, int32) but its value has type "
            "(Tensor[(2), float32], float32)");
  std::string text = "def @main(%x: Tensor[(2), float32]) -> (_, _, _) {\n"
                     "  (%x, %x)\n"
                     "}";
  expectError(infer(text), text,
              "@main is annotated to return (_, _, _) but its body has type "
              "(Tensor[(2), float32], Tensor[(2), float32])",
              "def");
  text = "def @main(%x: (_, float32)) {\n  %x\n}";
  expectError(infer(text), text,
              "parameter %x of @main has an incomplete type annotation (_, "
              "float32) and nothing determines the rest",
              "%x:");
}

TEST_F(InferTypeTest, RecursiveLetBoundFunction) {
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32]",
                   "let %f = fn (%a: Tensor[(2), float32]) -> Tensor[(2), "
                   "float32] { %0 = all(less(%a, 0f)); if (%0) { %a } else { "
                   "%f(negative(%a)) } }; %f(%x)"),
            "Tensor[(2), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32]",
                   "let %f: fn (Tensor[(2), float32]) -> Tensor[(2), float32] "
                   "= fn (%a: Tensor[(2), float32]) { %f(%a) }; %f(%x)"),
            "Tensor[(2), float32]");
}

TEST_F(InferTypeTest, If) {
  EXPECT_EQ(typeOf("%c: bool, %x: Tensor[(2), float32]",
                   "if (%c) { %x } else { negative(%x) }"),
            "Tensor[(2), float32]");
  std::string text = "def @main(%c: Tensor[(1), bool], %x: float32) {\n"
                     "  if (%c) { %x } else { %x }\n"
                     "}";
  expectError(infer(text), text,
              "the condition of an if must be a 0-d bool tensor, got "
              "Tensor[(1), bool]",
              "if (");
  EXPECT_EQ(typeOf("%c: int32, %x: float32", "if (%c) { %x } else { %x }"),
            "error: the condition of an if must be a 0-d bool tensor, got "
            "int32");
  text = "def @main(%c: bool, %x: Tensor[(2), float32]) {\n"
         "  if (%c) { %x } else { (%x,) }\n"
         "}";
  expectError(infer(text), text,
              "the branches of an if have different types: Tensor[(2), "
              "float32] vs (Tensor[(2), float32],)",
              "if (");
}

TEST_F(InferTypeTest, TupleProjection) {
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32]", "%0 = (%x, 1f); %0.1"),
            "float32");
  std::string text = "def @main(%x: Tensor[(2), float32]) {\n"
                     "  %0 = (%x, %x);\n"
                     "  %0.2\n"
                     "}";
  expectError(infer(text), text,
              "tuple index 2 is out of range for a tuple of type "
              "(Tensor[(2), float32], Tensor[(2), float32])",
              "%0.2");
  text = "def @main(%x: Tensor[(2), float32]) {\n"
         "  %0 = negative(%x);\n"
         "  %0.0\n"
         "}";
  expectError(infer(text), text,
              "tuple index applied to an operand of non-tuple type "
              "Tensor[(2), float32]",
              "%0.0");
}

TEST_F(InferTypeTest, NestedFunctionsAndClosures) {
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32]",
                   "fn (%y: Tensor[(2), float32]) { add(%x, %y) }"),
            "fn (Tensor[(2), float32]) -> Tensor[(2), float32]");
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32]",
                   "let %f = fn (%y: Tensor[(2), float32]) { (%x, %y) }; "
                   "%f(%x)"),
            "(Tensor[(2), float32], Tensor[(2), float32])");
  EXPECT_EQ(typeOf("%x: Tensor[(2), float32]",
                   "%0 = fn (%y: Tensor[(2), float32]) { sum(%y) }; %0(%x)"),
            "float32");
  EXPECT_EQ(typeOf("%f: fn (Tensor[(2), float32]) -> bool, "
                   "%x: Tensor[(2), float32]",
                   "%f(%x)"),
            "bool");
  std::string text = "def @main(%x: Tensor[(3), float32]) {\n"
                     "  %0 = fn (%y: Tensor[(2), float32]) { %y };\n"
                     "  %0(%x)\n"
                     "}";
  expectError(infer(text), text,
              "argument #0 of the function (parameter %y) has type "
              "Tensor[(3), float32], expected Tensor[(2), float32]",
              "%0(%x)");
  text = "def @main(%f: fn (float32) -> float32, %x: int32) {\n"
         "  %f(%x)\n"
         "}";
  expectError(infer(text), text,
              "argument #0 of %f has type int32, expected float32", "%f(%x)");
  text = "def @main(%x: Tensor[(3), float32]) {\n"
         "  %x(%x)\n"
         "}";
  expectError(infer(text), text,
              "cannot call %x of non-function type Tensor[(3), float32]",
              "%x(%x)");
  text = "def @main(%x: Tensor[(3), float32]) {\n"
         "  fn (%y: Tensor[(3), float32]) -> Tensor[(3), int32] { %y }\n"
         "}";
  expectError(infer(text), text,
              "the function is annotated to return Tensor[(3), int32] but its "
              "body has type Tensor[(3), float32]",
              "fn (%y");
}

TEST_F(InferTypeTest, ParametersNeedAnnotations) {
  std::string text = "def @main(%x) {\n  %x\n}";
  expectError(infer(text), text,
              "parameter %x of @main has no type annotation and nothing "
              "determines its type",
              "%x)");
  text = "def @main(%x: float32) {\n  fn (%y) { %y }\n}";
  expectError(infer(text), text,
              "parameter %y has no type annotation and nothing determines its "
              "type",
              "%y)");
}

//===----------------------------------------------------------------------===//
// InferType: global functions
//===----------------------------------------------------------------------===//

TEST_F(InferTypeTest, GlobalCallsInDependencyOrder) {
  // @main comes first and calls @f, whose return type is inferred.
  Ref<IRModule> module = parse("def @main(%x: Tensor[(2), float32]) {\n"
                               "  @f(%x, 1f)\n"
                               "}\n"
                               "def @f(%a: Tensor[(2), float32], %b: float32) "
                               "{\n"
                               "  @g(add(%a, %b))\n"
                               "}\n"
                               "def @g(%c: Tensor[(2), float32]) {\n"
                               "  (%c, %c)\n"
                               "}");
  Expected<Ref<IRModule>> typed = inferTypes(module);
  ASSERT_TRUE(bool(typed)) << toString(typed.takeError());
  EXPECT_EQ((*typed)->lookup("main")->getCheckedType()->str(),
            "fn (Tensor[(2), float32]) -> (Tensor[(2), float32], Tensor[(2), "
            "float32])");
  EXPECT_EQ((*typed)->lookup("f")->getCheckedType()->str(),
            "fn (Tensor[(2), float32], float32) -> (Tensor[(2), float32], "
            "Tensor[(2), float32])");
  // The order of definitions is kept.
  ASSERT_EQ((*typed)->size(), 3u);
  EXPECT_EQ((*typed)->getFunctions()[0].var->getName(), "main");
  EXPECT_EQ((*typed)->getFunctions()[2].var->getName(), "g");
  // Return types are filled in, and each function's GlobalVar is one typed
  // node shared by its entry and its callers.
  Function *f = (*typed)->lookup("f");
  ASSERT_TRUE(f->getRetType());
  EXPECT_EQ(f->getRetType()->str(),
            "(Tensor[(2), float32], Tensor[(2), float32])");
  auto *call = cast<Call>((*typed)->lookup("main")->getBody().get());
  EXPECT_EQ(call->getCallee().get(), (*typed)->getGlobalVar("f"));
  EXPECT_EQ(call->getCallee()->getCheckedType()->str(),
            f->getCheckedType()->str());
}

TEST_F(InferTypeTest, GlobalRecursion) {
  // Annotated return types allow self and mutual recursion.
  EXPECT_EQ(infer("def @even(%n: int32) -> bool {\n"
                  "  %0 = equal(%n, 0);\n"
                  "  if (%0) { True } else { @odd(subtract(%n, 1)) }\n"
                  "}\n"
                  "def @odd(%n: int32) -> bool {\n"
                  "  %0 = equal(%n, 0);\n"
                  "  if (%0) { False } else { @even(subtract(%n, 1)) }\n"
                  "}\n"
                  "def @main(%n: int32) { @even(%n) }")
                .type,
            "bool");
  EXPECT_EQ(infer("def @main(%n: int32) -> int32 {\n"
                  "  %0 = equal(%n, 0);\n"
                  "  if (%0) { 0 } else { @main(subtract(%n, 1)) }\n"
                  "}")
                .type,
            "int32");
  // Without it, the cycle is reported at the call that closes it.
  std::string text = "def @main(%n: int32) {\n"
                     "  @main(%n)\n"
                     "}";
  expectError(infer(text), text,
              "cannot infer the return type of recursive function @main; "
              "annotate it",
              "@main(%n)\n");
  text = "def @main(%n: int32) { @f(%n) }\n"
         "def @f(%n: int32) { @g(%n) }\n"
         "def @g(%n: int32) { @f(%n) }";
  expectErrorAt(infer(text),
                "cannot infer the return type of recursive function @f; "
                "annotate it",
                StringRef(text).rfind("@f(%n)"));
}

TEST_F(InferTypeTest, GlobalCallErrors) {
  std::string text = "def @f(%x: Tensor[(3), float32]) { %x }\n"
                     "def @main(%y: Tensor[(4), float32]) {\n"
                     "  @f(%y)\n"
                     "}";
  expectError(infer(text), text,
              "argument #0 of @f (parameter %x) has type Tensor[(4), "
              "float32], expected Tensor[(3), float32]",
              "@f(%y)");
  text = "def @f(%x: Tensor[(3), float32]) { %x }\n"
         "def @main(%y: Tensor[(3), float32]) {\n"
         "  @f(%y, %y)\n"
         "}";
  expectError(infer(text), text, "@f expects 1 argument, got 2", "@f(%y, ");
  text = "def @f(%x: Tensor[(3), float32]) -> Tensor[(3), int32] {\n"
         "  %x\n"
         "}";
  expectError(infer(text), text,
              "@f is annotated to return Tensor[(3), int32] but its body has "
              "type Tensor[(3), float32]",
              "def @f");
  // A reference to a function the module does not have.
  Ref<Var> x = Var::get("x", TensorType::get({3}, DataType::float32()));
  Ref<Expr> call = Call::get(GlobalVar::get("missing"), {x});
  Outcome outcome = run(IRModule::fromExpr(Function::get({x}, call)));
  EXPECT_EQ(outcome.error, "use of undefined global function @missing");
}

TEST_F(InferTypeTest, OperatorErrors) {
  Ref<Var> x = Var::get("x", TensorType::get({3}, DataType::float32()));
  // Wrong arity.
  Outcome outcome = run(IRModule::fromExpr(
      Function::get({x}, Call::get(Op::lookup("add"), {x}))));
  EXPECT_EQ(outcome.error, "add expects 2 arguments, got 1");
  // An operator without a relation.
  OpRegistry &registry = OpRegistry::instance();
  if (!registry.lookup("test.no_relation"))
    registry.add("test.no_relation").setNumInputs(1);
  outcome = run(IRModule::fromExpr(
      Function::get({x}, Call::get(Op::lookup("test.no_relation"), {x}))));
  EXPECT_EQ(outcome.error, "operator 'test.no_relation' has no type relation");
  // An operator as a value.
  outcome = run(IRModule::fromExpr(
      Function::get({x}, Tuple::get({x, Ref<Expr>(Op::lookup("add"))}))));
  EXPECT_EQ(outcome.error,
            "operator 'add' can only be called, not used as a value");
  // A record of the wrong type.
  outcome = run(IRModule::fromExpr(Function::get(
      {x}, Call::get(Op::lookup("sum"), {x}, CastAttrs::create()))));
  EXPECT_EQ(outcome.error,
            "sum: expected attributes of type "
            "relay.attrs.ReduceAttrs, got relay.attrs.CastAttrs");
}

TEST_F(InferTypeTest, CustomRelationsAreUsed) {
  // The contract: a relation registered for a new operator is all InferType
  // needs; it receives the argument types, the record and the call's
  // location.
  OpRegistry &registry = OpRegistry::instance();
  if (!registry.lookup("test.first_of_two"))
    registry.add("test.first_of_two")
        .setNumInputs(2)
        .setAttr<TypeRelationFn>(
            kTypeRelationAttr,
            [](ArrayRef<const Type *> args, const Attrs *attrs,
               const TypeRelationContext &ctx) -> Expected<Ref<Type>> {
              if (attrs)
                return ctx.error("unexpected attributes");
              if (!typesEqual(args[0], args[1]))
                return ctx.error("mismatch " + args[0]->str() + " vs " +
                                 args[1]->str());
              return Ref<Type>(const_cast<Type *>(args[0]));
            });
  Op *op = Op::lookup("test.first_of_two");
  ASSERT_TRUE(getTypeRelation(op));
  EXPECT_FALSE(getTypeRelation(nullptr));
  Ref<Var> x = Var::get("x", TensorType::get({3}, DataType::int8()));
  Ref<Var> y = Var::get("y", TensorType::getScalar(DataType::int8()));
  Outcome outcome =
      run(IRModule::fromExpr(Function::get({x}, Call::get(op, {x, x}))));
  EXPECT_EQ(outcome.type, "Tensor[(3), int8]");
  outcome =
      run(IRModule::fromExpr(Function::get({x, y}, Call::get(op, {x, y}))));
  EXPECT_EQ(outcome.error, "test.first_of_two: mismatch Tensor[(3), int8] vs "
                           "int8");
}

TEST_F(InferTypeTest, FreeVariablesOfExpressions) {
  Ref<Var> x = Var::get("x", TensorType::get({3}, DataType::float32()));
  Expected<Ref<Expr>> typed = inferExprTypes(Call::get(Op::lookup("exp"), {x}));
  ASSERT_TRUE(bool(typed)) << toString(typed.takeError());
  EXPECT_EQ((*typed)->getCheckedType()->str(), "Tensor[(3), float32]");
  Ref<Var> y = Var::get("y");
  typed = inferExprTypes(Call::get(Op::lookup("exp"), {y}));
  ASSERT_FALSE(bool(typed));
  EXPECT_EQ(toString(typed.takeError()),
            "cannot infer the type of free variable %y without a type "
            "annotation");
  // Globals are typed from the module.
  Ref<IRModule> module = parse("def @f(%a: Tensor[(3), float32]) { sum(%a) }");
  Expected<Ref<IRModule>> typedModule = inferTypes(module);
  ASSERT_TRUE(bool(typedModule));
  typed =
      inferExprTypes(Call::get(GlobalVar::get("f"), {x}), typedModule->get());
  ASSERT_TRUE(bool(typed)) << toString(typed.takeError());
  EXPECT_EQ((*typed)->getCheckedType()->str(), "float32");
}

//===----------------------------------------------------------------------===//
// Identity, locations, depth
//===----------------------------------------------------------------------===//

static const char *const kSmallModel = R"(#[version = "0.0.5"]
def @main(%data: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%data, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  %3 = nn.max_pool2d(%2, pool_size=[2, 2], strides=[2, 2]);
  %4 = reshape(%3, newshape=[1, -1]);
  %5 = split(%4, indices_or_sections=2, axis=1);
  %6 = %5.0;
  let %t = fn (%v: Tensor[(1, 32), float32]) { nn.softmax(%v) };
  %t(%6)
}
)";

TEST_F(InferTypeTest, TypedModuleIsReturnedAsItIs) {
  Ref<IRModule> module = parse(kSmallModel);
  Expected<Ref<IRModule>> first = inferTypes(module);
  ASSERT_TRUE(bool(first)) << toString(first.takeError());
  EXPECT_NE(first->get(), module.get());
  EXPECT_EQ(outcomeType(**first), "Tensor[(1, 32), float32]");
  Expected<Ref<IRModule>> second = inferTypes(*first);
  ASSERT_TRUE(bool(second)) << toString(second.takeError());
  EXPECT_EQ(second->get(), first->get());

  // Typed nodes in a module not marked typed: the same functions, in a copy
  // that says so (the input is not changed, not even its flag).
  Ref<IRModule> unmarked = (*first)->shallowCopy();
  unmarked->setValidTypes(false);
  Expected<Ref<IRModule>> third = inferTypes(unmarked);
  ASSERT_TRUE(bool(third));
  EXPECT_NE(third->get(), unmarked.get());
  EXPECT_FALSE(unmarked->hasValidTypes());
  EXPECT_TRUE((*third)->hasValidTypes());
  EXPECT_EQ((*third)->lookup("main"), (*first)->lookup("main"));
  EXPECT_EQ((*third)->getGlobalVar("main"), (*first)->getGlobalVar("main"));
}

TEST_F(InferTypeTest, RebuiltNodesKeepLocationsAndAttributes) {
  Ref<IRModule> module = parse(kSmallModel);
  Expected<Ref<IRModule>> typed = inferTypes(module);
  ASSERT_TRUE(bool(typed));
  // Walk the let body back to the conv2d call.
  auto *let = cast<Let>((*typed)->lookup("main")->getBody().get());
  auto *oldLet = cast<Let>(module->lookup("main")->getBody().get());
  EXPECT_EQ(let->getLoc().getPointer(), oldLet->getLoc().getPointer());
  auto *fn = cast<Function>(let->getValue().get());
  EXPECT_EQ(fn->getLoc().getPointer(),
            cast<Function>(oldLet->getValue().get())->getLoc().getPointer());
  Expr *e = cast<Call>(let->getBody().get())->getArg(0).get();
  Expr *old = cast<Call>(oldLet->getBody().get())->getArg(0).get();
  while (!isa<Call>(e) ||
         cast<Call>(e)->getCalledOp() != Op::lookup("nn.conv2d")) {
    ASSERT_TRUE(e->getCheckedType());
    EXPECT_EQ(e->getLoc().getPointer(), old->getLoc().getPointer());
    if (auto *item = dyn_cast<TupleGetItem>(e)) {
      e = item->getTuple().get();
      old = cast<TupleGetItem>(old)->getTuple().get();
    } else {
      e = cast<Call>(e)->getArg(0).get();
      old = cast<Call>(old)->getArg(0).get();
    }
  }
  auto *conv = cast<Call>(e);
  EXPECT_EQ(conv->getAttrs(), cast<Call>(old)->getAttrs());
  EXPECT_EQ(conv->getLoc().getPointer(), old->getLoc().getPointer());
  EXPECT_EQ(conv->getCheckedType()->str(), "Tensor[(1, 4, 8, 8), float32]");
  // Annotated parameters already carry their type and are kept.
  EXPECT_EQ(conv->getArg(0), module->lookup("main")->getParam(0));
}

TEST_F(InferTypeTest, MillionCallChain) {
  // Built through the API: 1,000,000 nested calls, typed on the default
  // stack, then typed again (nothing to do: the same module).
  Ref<Var> x = Var::get("x", TensorType::get({2}, DataType::float32()));
  Op *negative = Op::lookup("negative");
  Ref<Expr> e = x;
  for (int i = 0; i < 1000000; ++i)
    e = Call::get(negative, {e});
  Ref<IRModule> module = IRModule::fromExpr(Function::get({x}, e));
  e = nullptr;
  Expected<Ref<IRModule>> typed = inferTypes(module);
  ASSERT_TRUE(bool(typed)) << toString(typed.takeError());
  EXPECT_EQ(outcomeType(**typed), "Tensor[(2), float32]");
  Expected<Ref<IRModule>> again = inferTypes(*typed);
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(again->get(), typed->get());
}

TEST_F(InferTypeTest, MillionLetChain) {
  Ref<Var> x = Var::get("x", TensorType::get({2}, DataType::float32()));
  Op *negative = Op::lookup("negative");
  std::vector<Ref<Var>> vars;
  vars.reserve(1000000);
  Ref<Var> prev = x;
  for (int i = 0; i < 1000000; ++i) {
    vars.push_back(Var::get("v"));
    prev = vars.back();
  }
  Ref<Expr> body = prev;
  for (int i = 1000000; i-- > 0;)
    body = Let::get(
        vars[i],
        Call::get(negative, {i ? Ref<Expr>(vars[i - 1]) : Ref<Expr>(x)}), body);
  vars.clear();
  prev = nullptr;
  Ref<IRModule> module = IRModule::fromExpr(Function::get({x}, body));
  body = nullptr;
  Expected<Ref<IRModule>> typed = inferTypes(module);
  ASSERT_TRUE(bool(typed)) << toString(typed.takeError());
  EXPECT_EQ(outcomeType(**typed), "Tensor[(2), float32]");
}

TEST_F(InferTypeTest, EqualResultTypesShareOneObject) {
  // A chain of elementwise calls keeps one type object (the parameter's, as
  // identity relations return their argument's), and equal types from
  // different relations are interned: a module holds one object per
  // distinct type, not one per call.
  Ref<IRModule> module = parse("def @main(%x: Tensor[(2, 3), float32]) {\n"
                               "  %0 = negative(%x);\n"
                               "  %1 = add(%0, 1f);\n"
                               "  %2 = sum(%1, axis=[1]);\n"
                               "  %3 = exp(%1);\n"
                               "  %4 = sum(%3, axis=[1]);\n"
                               "  (%4, %2)\n"
                               "}");
  Expected<Ref<IRModule>> typed = inferTypes(module);
  ASSERT_TRUE(bool(typed)) << toString(typed.takeError());
  auto *tuple = cast<Tuple>((*typed)->lookup("main")->getBody().get());
  auto *sum1 = cast<Call>(tuple->getField(0).get());
  auto *sum2 = cast<Call>(tuple->getField(1).get());
  auto *exp = cast<Call>(sum1->getArg(0).get());
  auto *add = cast<Call>(exp->getArg(0).get());
  auto *neg = cast<Call>(add->getArg(0).get());
  EXPECT_EQ(sum1->getCheckedType(), sum2->getCheckedType());
  EXPECT_EQ(exp->getCheckedType(), add->getCheckedType());
  EXPECT_EQ(add->getCheckedType(), neg->getCheckedType());
  EXPECT_EQ(neg->getCheckedType(), neg->getArg(0)->getCheckedType());
}

TEST_F(InferTypeTest, MillionChainsWaitingForAParameter) {
  // fn (%a) { let %f = fn (%x) { <chain on %x> }; %f(%a) }: every relation
  // of the chain waits for %x, which the call determines; the waiting
  // relations are then solved in a loop, not by recursion.
  Ref<Type> tensor = TensorType::get({2}, DataType::float32());
  Op *negative = Op::lookup("negative");
  for (bool lets : {false, true}) {
    Ref<Var> x = Var::get("x");
    Ref<Expr> body = x;
    if (!lets) {
      for (int i = 0; i < 1000000; ++i)
        body = Call::get(negative, {body});
    } else {
      std::vector<Ref<Var>> vars;
      vars.reserve(1000000);
      for (int i = 0; i < 1000000; ++i)
        vars.push_back(Var::get("v"));
      body = vars.back();
      for (int i = 1000000; i-- > 0;)
        body = Let::get(
            vars[i],
            Call::get(negative, {i ? Ref<Expr>(vars[i - 1]) : Ref<Expr>(x)}),
            body);
    }
    Ref<Var> a = Var::get("a", tensor);
    Ref<Var> f = Var::get("f");
    Ref<Expr> main = Function::get(
        {a}, Let::get(f, Function::get({x}, body), Call::get(f, {a})));
    body = nullptr;
    Expected<Ref<IRModule>> typed = inferTypes(IRModule::fromExpr(main));
    ASSERT_TRUE(bool(typed)) << toString(typed.takeError());
    EXPECT_EQ(outcomeType(**typed), "Tensor[(2), float32]");
    auto *let = cast<Let>((*typed)->lookup("main")->getBody().get());
    EXPECT_EQ(let->getVar()->getTypeAnnotation()->str(),
              "fn (Tensor[(2), float32]) -> Tensor[(2), float32]");
  }
}

TEST_F(InferTypeTest, FreeVariablesDeterminedByUse) {
  // As in Relay, a free variable without an annotation gets the type its
  // uses give it.
  Ref<Var> c = Var::get("c");
  Ref<Var> y = Var::get("y", TensorType::get({3}, DataType::int8()));
  Expected<Ref<Expr>> typed =
      inferExprTypes(If::get(c, y, Call::get(Op::lookup("negative"), {y})));
  ASSERT_TRUE(bool(typed)) << toString(typed.takeError());
  auto *e = cast<If>(typed->get());
  EXPECT_EQ(e->getCond()->getCheckedType()->str(), "bool");
  EXPECT_EQ(cast<Var>(e->getCond().get())->getTypeAnnotation()->str(), "bool");
  EXPECT_EQ(e->getCheckedType()->str(), "Tensor[(3), int8]");
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

TEST_F(InferTypeTest, PassInfoAndRegistration) {
  Ref<Pass> pass = createInferTypePass();
  const PassInfo &info = pass->getInfo();
  EXPECT_EQ(info.name, "InferType");
  EXPECT_EQ(info.optLevel, 0);
  EXPECT_TRUE(info.required.empty());
  EXPECT_TRUE(info.establishesTypes);
  EXPECT_TRUE(info.preservesTypes);
  EXPECT_TRUE(isa<ModulePass>(pass.get()));

  registerTransformPasses(); // a second call does nothing
  const PassRegistration *registration =
      PassRegistry::instance().lookup("InferType");
  ASSERT_TRUE(registration);
  EXPECT_EQ(registration->description,
            "infer and record the type of every expression");
  Expected<Ref<Pass>> created = PassRegistry::instance().create("InferType");
  ASSERT_TRUE(bool(created));
  EXPECT_EQ((*created)->getName(), "InferType");
}

TEST_F(InferTypeTest, PassRuns) {
  Ref<IRModule> module = parse(kSmallModel);
  Ref<Pass> pass = createInferTypePass();
  Expected<Ref<IRModule>> typed = pass->run(module);
  ASSERT_TRUE(bool(typed)) << toString(typed.takeError());
  EXPECT_TRUE((*typed)->hasValidTypes());
  EXPECT_EQ(outcomeType(**typed), "Tensor[(1, 32), float32]");
  Expected<Ref<IRModule>> again = pass->run(*typed);
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(again->get(), typed->get());
  // Errors come through the pass unchanged.
  Expected<Ref<IRModule>> failed =
      pass->run(parse("def @main(%x: float32, %y: int32) { add(%x, %y) }"));
  ASSERT_FALSE(bool(failed));
  EXPECT_EQ(toString(failed.takeError()),
            "add: dtype mismatch float32 vs int32");
}

} // namespace
