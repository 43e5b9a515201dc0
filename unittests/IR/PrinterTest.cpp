//===- PrinterTest.cpp - Tests of the Relay text printer ------------------===//
//
/// \file
/// Builds IR with the C++ API and checks the exact text the printer writes:
/// graph normal form, sharing, let, if, tuples, nested functions, names,
/// literals, inline and metadata constants, attributes, type comments, and a
/// 1,000,000-call chain.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Printer.h"

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"

#include "llvm/ADT/StringRef.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace nnir;

namespace {

class PrinterTest : public ::testing::Test {
protected:
  void SetUp() override { registerAllOps(); }

  static Ref<Type> f32(llvm::ArrayRef<int64_t> shape = {}) {
    return TensorType::get(shape, DataType::float32());
  }

  static Ref<Expr> op(llvm::StringRef name) {
    Op *result = Op::lookup(name);
    EXPECT_NE(result, nullptr) << name.str();
    return Ref<Expr>(result);
  }

  static Ref<Call> call(llvm::StringRef name, llvm::ArrayRef<Ref<Expr>> args,
                        Ref<Attrs> attrs = nullptr,
                        Ref<Type> checkedType = nullptr) {
    return Call::get(op(name), args, std::move(attrs), {},
                     std::move(checkedType));
  }

  static Ref<Constant> scalar(DataType dtype, double value) {
    return Constant::getScalar(dtype, value);
  }

  /// A constant of \p shape filled with \p values (row-major).
  static Ref<Constant> tensor(DataType dtype, llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<double> values) {
    llvm::Expected<NDArray> array = NDArray::create(dtype, shape);
    EXPECT_TRUE(static_cast<bool>(array));
    for (size_t i = 0; i < values.size(); ++i)
      array->setElementFromDouble(i, values[i]);
    return Constant::get(std::move(*array));
  }

  static Ref<Function> fn(llvm::ArrayRef<Ref<Var>> params, Ref<Expr> body,
                          Ref<Type> retType = nullptr,
                          Ref<DictAttrs> attrs = nullptr,
                          Ref<Type> checkedType = nullptr) {
    return Function::get(params, std::move(body), std::move(retType),
                         std::move(attrs), {}, std::move(checkedType));
  }

  static std::string printMain(Ref<Function> func, PrintOptions options = {}) {
    Ref<IRModule> module = IRModule::create();
    module->addOrUpdate("main", std::move(func));
    return toString(*module, options);
  }
};

/// The metadata section TVM writes for the worked example's constant (TVM
/// reference §1.7).
static const char kWorkedExampleMetadata[] = R"json({
  "root": 1, 
  "nodes": [
    {
      "type_key": ""
    }, 
    {
      "type_key": "Map", 
      "keys": [
        "relay.Constant"
      ], 
      "data": [2]
    }, 
    {
      "type_key": "Array", 
      "data": [3]
    }, 
    {
      "type_key": "relay.Constant", 
      "attrs": {
        "_checked_type_": "6", 
        "data": "0", 
        "span": "0", 
        "virtual_device_": "4"
      }
    }, 
    {
      "type_key": "VirtualDevice", 
      "attrs": {
        "device_type_int": "-1", 
        "memory_scope": "5", 
        "target": "0", 
        "virtual_device_id": "-1"
      }
    }, 
    {
      "type_key": "runtime.String"
    }, 
    {
      "type_key": "relay.TensorType", 
      "attrs": {
        "dtype": "float32", 
        "shape": "7", 
        "span": "0"
      }
    }, 
    {
      "type_key": "Array", 
      "data": [8, 9]
    }, 
    {
      "type_key": "IntImm", 
      "attrs": {
        "dtype": "int32", 
        "span": "0", 
        "value": "1"
      }
    }, 
    {
      "type_key": "IntImm", 
      "attrs": {
        "dtype": "int32", 
        "span": "0", 
        "value": "3"
      }
    }
  ], 
  "b64ndarrays": [
    "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQABAAAAAAAAAAMAAAAAAAAADAAAAAAAAAAAAIA/AACAPwAAgD8="
  ], 
  "attrs": {"tvm_version": "0.19.0"}
})json";

TEST_F(PrinterTest, WorkedExampleWithTypes) {
  // TVM reference §1.7, after type inference.
  Ref<Type> t13 = f32({1, 3});
  Ref<Var> x = Var::get("x", t13);
  Ref<Call> add = call(
      "add", {x, tensor(DataType::float32(), {1, 3}, {1, 1, 1})}, nullptr, t13);
  Ref<Call> mul =
      call("multiply", {add, scalar(DataType::float32(), 2)}, nullptr, t13);
  Ref<Function> main =
      fn({x}, mul, nullptr, nullptr, FuncType::get({t13}, t13));
  PrintOptions options;
  options.showTypes = true;
  options.inlineConstantLimit = 0;
  options.printMetadata = false;
  EXPECT_EQ(printMain(main, options),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(1, 3), float32] /* ty=Tensor[(1, 3), "
            "float32] */) -> Tensor[(1, 3), float32] {\n"
            "  %0 = add(%x, meta[relay.Constant][0] /* ty=Tensor[(1, 3), "
            "float32] */) /* ty=Tensor[(1, 3), float32] */;\n"
            "  multiply(%0, 2f /* ty=float32 */) /* ty=Tensor[(1, 3), "
            "float32] */\n"
            "}\n");

  // With the metadata section, the text is TVM's astext() byte for byte.
  options.printMetadata = true;
  EXPECT_EQ(printMain(main, options),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(1, 3), float32] /* ty=Tensor[(1, 3), "
            "float32] */) -> Tensor[(1, 3), float32] {\n"
            "  %0 = add(%x, meta[relay.Constant][0] /* ty=Tensor[(1, 3), "
            "float32] */) /* ty=Tensor[(1, 3), float32] */;\n"
            "  multiply(%0, 2f /* ty=float32 */) /* ty=Tensor[(1, 3), "
            "float32] */\n"
            "}\n"
            "\n"
            "#[metadata]\n" +
                std::string(kWorkedExampleMetadata));

  // Without types: no comments, no `->` (no annotated return type), and the
  // small constant prints inline.
  EXPECT_EQ(printMain(main),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(1, 3), float32]) {\n"
            "  %0 = add(%x, dense<1> : Tensor[(1, 3), float32]);\n"
            "  multiply(%0, 2f)\n"
            "}\n");
}

TEST_F(PrinterTest, AnnotatedReturnTypeAndNoVersion) {
  Ref<Var> x = Var::get("x", f32());
  PrintOptions options;
  options.printVersion = false;
  EXPECT_EQ(printMain(fn({x}, call("negative", {x}), f32()), options),
            "def @main(%x: float32) -> float32 {\n"
            "  negative(%x)\n"
            "}\n");
}

TEST_F(PrinterTest, SharedNodeIsBoundOnce) {
  Ref<Var> x = Var::get("x", f32());
  Ref<Call> neg = call("negative", {x});
  Ref<Call> sum = call("add", {neg, neg});
  Ref<Function> main = fn({x}, call("multiply", {sum, neg}));
  EXPECT_EQ(printMain(main), "#[version = \"0.0.5\"]\n"
                             "def @main(%x: float32) {\n"
                             "  %0 = negative(%x);\n"
                             "  %1 = add(%0, %0);\n"
                             "  multiply(%1, %0)\n"
                             "}\n");
}

TEST_F(PrinterTest, SharedScopeResultIsBound) {
  // The body is also used as an argument: it must be bound and referenced.
  Ref<Var> x = Var::get("x", f32());
  Ref<Call> neg = call("negative", {x});
  Ref<Var> y = Var::get("y", f32());
  Ref<Function> main = fn({x}, Let::get(y, call("add", {neg, neg}), neg));
  EXPECT_EQ(printMain(main), "#[version = \"0.0.5\"]\n"
                             "def @main(%x: float32) {\n"
                             "  %0 = negative(%x);\n"
                             "  let %y: float32 = add(%0, %0);\n"
                             "  %0\n"
                             "}\n");
}

TEST_F(PrinterTest, LetChain) {
  Ref<Var> x = Var::get("x", f32());
  Ref<Var> y = Var::get("y", f32());
  Ref<Var> z = Var::get("z");
  Ref<Expr> body = Let::get(
      y, call("add", {call("negative", {x}), scalar(DataType::float32(), 1)}),
      Let::get(z, call("multiply", {y, y}), z));
  EXPECT_EQ(printMain(fn({x}, body)), "#[version = \"0.0.5\"]\n"
                                      "def @main(%x: float32) {\n"
                                      "  %0 = negative(%x);\n"
                                      "  let %y: float32 = add(%0, 1f);\n"
                                      "  let %z = multiply(%y, %y);\n"
                                      "  %z\n"
                                      "}\n");
}

TEST_F(PrinterTest, LetAsArgumentIsParenthesised) {
  Ref<Var> x = Var::get("x", f32());
  Ref<Var> y = Var::get("y");
  Ref<Expr> let = Let::get(y, call("negative", {x}), y);
  EXPECT_EQ(printMain(fn({x}, call("add", {let, x}))),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: float32) {\n"
            "  %0 = (\n"
            "    let %y = negative(%x);\n"
            "    %y\n"
            "  );\n"
            "  add(%0, %x)\n"
            "}\n");
}

TEST_F(PrinterTest, LetAsLetValueIsParenthesised) {
  Ref<Var> x = Var::get("x", f32());
  Ref<Var> a = Var::get("a");
  Ref<Var> b = Var::get("b");
  Ref<Expr> inner = Let::get(b, call("negative", {x}), b);
  EXPECT_EQ(printMain(fn({x}, Let::get(a, inner, a))),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: float32) {\n"
            "  let %a = (\n"
            "    let %b = negative(%x);\n"
            "    %b\n"
            "  );\n"
            "  %a\n"
            "}\n");
}

TEST_F(PrinterTest, If) {
  Ref<Var> x = Var::get("x", f32());
  Ref<Expr> cond = call("less", {x, scalar(DataType::float32(), 0)});
  Ref<Expr> body = If::get(cond, call("negative", {x}), x);
  EXPECT_EQ(printMain(fn({x}, body)), "#[version = \"0.0.5\"]\n"
                                      "def @main(%x: float32) {\n"
                                      "  %0 = less(%x, 0f);\n"
                                      "  if (%0) {\n"
                                      "    negative(%x)\n"
                                      "  } else {\n"
                                      "    %x\n"
                                      "  }\n"
                                      "}\n");
}

TEST_F(PrinterTest, NodeSharedByBranchesIsBoundBeforeTheIf) {
  Ref<Var> x = Var::get("x", f32());
  Ref<Var> c = Var::get("c", TensorType::getScalar(DataType::boolean()));
  Ref<Call> neg = call("negative", {x});
  Ref<Expr> body =
      If::get(c, call("multiply", {neg, scalar(DataType::float32(), 2)}), neg);
  EXPECT_EQ(printMain(fn({x, c}, body)), "#[version = \"0.0.5\"]\n"
                                         "def @main(%x: float32, %c: bool) {\n"
                                         "  %0 = negative(%x);\n"
                                         "  if (%c) {\n"
                                         "    multiply(%0, 2f)\n"
                                         "  } else {\n"
                                         "    %0\n"
                                         "  }\n"
                                         "}\n");
}

TEST_F(PrinterTest, BranchLocalBindingsStayInTheBranch) {
  Ref<Var> x = Var::get("x", f32());
  Ref<Var> c = Var::get("c", TensorType::getScalar(DataType::boolean()));
  Ref<Expr> thenBranch = call("exp", {call("negative", {x})});
  Ref<Expr> elseBranch = call("log", {call("abs", {x})});
  EXPECT_EQ(printMain(fn({x, c}, If::get(c, thenBranch, elseBranch))),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: float32, %c: bool) {\n"
            "  if (%c) {\n"
            "    %0 = negative(%x);\n"
            "    exp(%0)\n"
            "  } else {\n"
            "    %1 = abs(%x);\n"
            "    log(%1)\n"
            "  }\n"
            "}\n");
}

TEST_F(PrinterTest, Tuples) {
  Ref<Var> x = Var::get("x", f32());
  Ref<Var> y = Var::get("y", f32());
  Ref<Expr> pair = Tuple::get({x, y});
  Ref<Expr> body =
      Tuple::get({TupleGetItem::get(pair, 1), Tuple::get({x}), Tuple::get({})});
  EXPECT_EQ(printMain(fn({x, y}, body)),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: float32, %y: float32) {\n"
            "  %0 = (%x, %y);\n"
            "  %1 = %0.1;\n"
            "  %2 = (%x,);\n"
            "  %3 = ();\n"
            "  (%1, %2, %3)\n"
            "}\n");
}

TEST_F(PrinterTest, TupleGetItemOfVarAndTypes) {
  Ref<Type> pairType = TupleType::get({f32(), f32({2})});
  Ref<Var> t = Var::get("t", pairType);
  Ref<Expr> item = TupleGetItem::get(t, 0, {}, f32());
  PrintOptions options;
  options.showTypes = true;
  EXPECT_EQ(printMain(fn({t}, item), options),
            "#[version = \"0.0.5\"]\n"
            "def @main(%t: (float32, Tensor[(2), float32]) /* ty=(float32, "
            "Tensor[(2), float32]) */) {\n"
            "  %t.0 /* ty=float32 */\n"
            "}\n");
}

TEST_F(PrinterTest, NestedFunction) {
  Ref<Var> x = Var::get("x", f32());
  Ref<Var> y = Var::get("y", f32());
  Ref<DictAttrs> attrs =
      DictAttrs::get({{"Primitive", AttrValue::integer(1), {}}});
  Ref<Expr> inner =
      fn({y}, call("add", {call("negative", {y}), y}), f32(), attrs);
  Ref<Expr> body = Call::get(inner, {x});
  EXPECT_EQ(printMain(fn({x}, body)),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: float32) {\n"
            "  %1 = fn (%y: float32, Primitive=1) -> float32 {\n"
            "    %0 = negative(%y);\n"
            "    add(%0, %y)\n"
            "  };\n"
            "  %1(%x)\n"
            "}\n");
}

TEST_F(PrinterTest, FunctionLiteralAsResultWithType) {
  Ref<Var> y = Var::get("y", f32());
  Ref<Type> fnType = FuncType::get({f32()}, f32());
  Ref<Expr> literal = fn({y}, y, nullptr, nullptr, fnType);
  PrintOptions options;
  options.showTypes = true;
  EXPECT_EQ(toString(literal.get(), options),
            "fn (%y: float32 /* ty=float32 */) -> float32 {\n"
            "  %y\n"
            "} /* ty=fn (float32) -> float32 */");
}

TEST_F(PrinterTest, CallOfGlobalAndNonOpCallAttrs) {
  Ref<Var> x = Var::get("x", f32());
  Ref<Var> f = Var::get("f");
  Ref<DictAttrs> attrs =
      DictAttrs::get({{"Compiler", AttrValue::string("ccompiler"), {}},
                      {"scale", AttrValue::floating(0.5), {}}});
  Ref<Expr> body =
      Call::get(f, {Call::get(GlobalVar::get("helper"), {x})}, attrs);
  EXPECT_EQ(printMain(fn({x, f}, body)),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: float32, %f) {\n"
            "  %0 = @helper(%x);\n"
            "  %f(%0, Compiler=\"ccompiler\", scale=0.5f)\n"
            "}\n");
}

TEST_F(PrinterTest, NameUniquing) {
  Ref<Var> params[] = {Var::get("x"),  Var::get("x"),  Var::get(""),
                       Var::get("1"),  Var::get("_a"), Var::get("x1"),
                       Var::get("a.b")};
  Ref<Function> main =
      fn(params, Tuple::get({params[0], params[1], params[5]}));
  EXPECT_EQ(printMain(main), "#[version = \"0.0.5\"]\n"
                             "def @main(%x, %x1, %v, %v1, %v_a, %x11, %a_b) {\n"
                             "  (%x, %x1, %x11)\n"
                             "}\n");
}

TEST_F(PrinterTest, ModuleNamesAndNumbersAreModuleWide) {
  Ref<IRModule> module = IRModule::create();
  for (const char *name : {"f", "main"}) {
    Ref<Var> x = Var::get("x", f32());
    Ref<Call> neg = call("negative", {x});
    module->addOrUpdate(name, fn({x}, call("add", {neg, neg})));
  }
  EXPECT_EQ(toString(*module), "#[version = \"0.0.5\"]\n"
                               "def @f(%x: float32) {\n"
                               "  %0 = negative(%x);\n"
                               "  add(%0, %0)\n"
                               "}\n"
                               "\n"
                               "def @main(%x1: float32) {\n"
                               "  %1 = negative(%x1);\n"
                               "  add(%1, %1)\n"
                               "}\n");
}

TEST_F(PrinterTest, EmptyModule) {
  EXPECT_EQ(toString(*IRModule::create()), "#[version = \"0.0.5\"]\n");
}

TEST_F(PrinterTest, FreeVars) {
  Ref<Var> x = Var::get("x", f32());
  Ref<Var> y = Var::get("y");
  EXPECT_EQ(toString(call("add", {x, y}).get()), "free_var %x: float32;\n"
                                                 "free_var %y;\n"
                                                 "add(%x, %y)");
  PrintOptions options;
  options.showTypes = true;
  EXPECT_EQ(toString(x.get(), options),
            "free_var %x: float32 /* ty=float32 */;\n"
            "%x");
}

TEST_F(PrinterTest, ScalarLiterals) {
  DataType f16 = DataType::float16(), f32t = DataType::float32(),
           f64 = DataType::float64();
  double inf = std::numeric_limits<double>::infinity();
  Ref<Expr> tuple = Tuple::get({
      scalar(f32t, 0.1),
      scalar(f32t, 1e-5),
      scalar(f32t, 3),
      scalar(f32t, -2.5),
      scalar(f32t, inf),
      scalar(f32t, -inf),
      scalar(f32t, std::nan("")),
      scalar(f32t, 16777217.0), // rounds to 16777216 in float32
      scalar(f16, 65504),
      scalar(f16, 1.5),
      scalar(f16, 0.1),
      scalar(f64, 3),
      scalar(f64, 0.1),
      scalar(DataType::int64(), 2),
      scalar(DataType::int16(), -7),
      scalar(DataType::int32(), 42),
      scalar(DataType::boolean(), 1),
      scalar(DataType::boolean(), 0),
  });
  EXPECT_EQ(toString(tuple.get()),
            "(0.1f, 1e-05f, 3f, -2.5f, inff, -inff, nanf, 16777216f, "
            "65504f16, 1.5f16, 0.1f16, 3f64, 0.1f64, 2i64, -7i16, 42, True, "
            "False)");
}

TEST_F(PrinterTest, FloatLiteralsHaveFewestRoundTripDigits) {
  // 0.1234567f needs 7 digits (TVM would print 6 and lose bits).
  Ref<Constant> c = scalar(DataType::float32(), 0.1234567);
  EXPECT_EQ(toString(c.get()), "0.1234567f");
  Ref<Constant> d = scalar(DataType::float64(), 0.1234567890123);
  EXPECT_EQ(toString(d.get()), "0.1234567890123f64");
  Ref<Constant> tiny = scalar(DataType::float32(), 1e-45);
  EXPECT_EQ(toString(tiny.get()), "1e-45f");
  // The shortest text of FLT_MAX, 3.4028235e+38, is out of range as a double.
  Ref<Constant> max =
      scalar(DataType::float32(), std::numeric_limits<float>::max());
  EXPECT_EQ(toString(max.get()), "3.4028234663852886e+38f");
  Ref<Constant> negZero = scalar(DataType::float32(), -0.0);
  EXPECT_EQ(toString(negZero.get()), "-0f");
}

TEST_F(PrinterTest, DenseConstants) {
  DataType f32t = DataType::float32();
  PrintOptions options;
  options.inlineConstantLimit = -1;
  auto print = [&](Ref<Constant> c) { return toString(c.get(), options); };
  EXPECT_EQ(print(tensor(f32t, {2, 3}, {1, 2, 3, 4, 5, 6})),
            "dense<[[1, 2, 3], [4, 5, 6]]> : Tensor[(2, 3), float32]");
  EXPECT_EQ(print(tensor(f32t, {4, 4}, {})),
            "dense<0> : Tensor[(4, 4), float32]");
  EXPECT_EQ(print(tensor(f32t, {1}, {7})), "dense<[7]> : Tensor[(1), float32]");
  EXPECT_EQ(print(tensor(f32t, {0}, {})), "dense<[]> : Tensor[(0), float32]");
  EXPECT_EQ(print(tensor(f32t, {2, 0}, {})),
            "dense<[[], []]> : Tensor[(2, 0), float32]");
  EXPECT_EQ(print(tensor(
                f32t, {3},
                {0.1, std::nan(""), -std::numeric_limits<double>::infinity()})),
            "dense<[0.1, nan, -inf]> : Tensor[(3), float32]");
  EXPECT_EQ(print(tensor(DataType::float16(), {2}, {0.1, 65504})),
            "dense<[0.1, 65504]> : Tensor[(2), float16]");
  EXPECT_EQ(print(tensor(DataType::float64(), {2}, {0.1, 1e300})),
            "dense<[0.1, 1e+300]> : Tensor[(2), float64]");
  EXPECT_EQ(print(tensor(DataType::int64(), {2, 1, 2}, {1, -2, 3, 4})),
            "dense<[[[1, -2]], [[3, 4]]]> : Tensor[(2, 1, 2), int64]");
  EXPECT_EQ(print(tensor(DataType::boolean(), {2}, {1, 0})),
            "dense<[True, False]> : Tensor[(2), bool]");
  EXPECT_EQ(print(tensor(DataType::uint8(), {2}, {255, 0})),
            "dense<[255, 0]> : Tensor[(2), uint8]");
  // 0-d constants of dtypes that have no TVM literal.
  EXPECT_EQ(print(scalar(DataType::int8(), 5)), "dense<5> : int8");
  EXPECT_EQ(print(scalar(DataType::uint64(), 18446744073709551615.0)),
            "dense<18446744073709551615> : uint64");
  EXPECT_EQ(print(scalar(DataType::bfloat16(), 0.1)), "dense<0.1> : bfloat16");
  // A single element is not a splat.
  EXPECT_EQ(print(tensor(DataType::int32(), {1, 1}, {3})),
            "dense<[[3]]> : Tensor[(1, 1), int32]");
}

TEST_F(PrinterTest, InlineLimitSendsLargeConstantsToMetadata) {
  DataType f32t = DataType::float32();
  Ref<Constant> sixteen = tensor(f32t, {4, 4}, {1});
  Ref<Constant> seventeen = tensor(f32t, {17}, {1});
  Ref<Constant> other = tensor(f32t, {20}, {2});
  // One repeated value prints inline at any size.
  Ref<Constant> zeros = tensor(f32t, {20}, {});
  Ref<Expr> tuple = Tuple::get({seventeen, sixteen, other, seventeen, zeros});
  PrintOptions options;
  options.printMetadata = false;
  EXPECT_EQ(toString(tuple.get(), options),
            "(meta[relay.Constant][0], dense<[[1, 0, 0, 0], [0, 0, 0, 0], "
            "[0, 0, 0, 0], [0, 0, 0, 0]]> : Tensor[(4, 4), float32], "
            "meta[relay.Constant][1], meta[relay.Constant][0], "
            "dense<0> : Tensor[(20), float32])");

  options.inlineConstantLimit = 0;
  EXPECT_EQ(toString(tuple.get(), options),
            "(meta[relay.Constant][0], meta[relay.Constant][1], "
            "meta[relay.Constant][2], meta[relay.Constant][0], "
            "meta[relay.Constant][3])");

  // Scalars with a TVM literal never go to the metadata section.
  EXPECT_EQ(toString(scalar(f32t, 1).get(), options), "1f");
  // Other 0-d constants have one element.
  EXPECT_EQ(toString(scalar(DataType::int8(), 1).get(), options),
            "meta[relay.Constant][0]");

  options.inlineConstantLimit = -1;
  std::string elements = "1";
  for (int i = 1; i < 17; ++i)
    elements += ", 0";
  EXPECT_EQ(toString(seventeen.get(), options),
            "dense<[" + elements + "]> : Tensor[(17), float32]");
}

TEST_F(PrinterTest, MetaIndicesAreModuleWide) {
  Ref<IRModule> module = IRModule::create();
  for (const char *name : {"f", "g"}) {
    Ref<Var> x = Var::get("x", f32({20}));
    module->addOrUpdate(
        name,
        fn({x}, call("add", {x, tensor(DataType::float32(), {20}, {1})})));
  }
  PrintOptions options;
  options.printMetadata = false;
  EXPECT_EQ(toString(*module, options), "#[version = \"0.0.5\"]\n"
                                        "def @f(%x: Tensor[(20), float32]) {\n"
                                        "  add(%x, meta[relay.Constant][0])\n"
                                        "}\n"
                                        "\n"
                                        "def @g(%x1: Tensor[(20), float32]) {\n"
                                        "  add(%x1, meta[relay.Constant][1])\n"
                                        "}\n");
}

TEST_F(PrinterTest, AttributesPrintOnlyNonDefaults) {
  Ref<Var> x = Var::get("x", f32({1, 3, 8, 8}));
  Ref<Var> w = Var::get("w", f32({4, 3, 3, 3}));
  Ref<Conv2DAttrs> conv = Conv2DAttrs::create();
  conv->strides = {2, 2};
  conv->channels = 4;
  conv->outDtype = DataType::float32();
  Ref<BatchNormAttrs> norm = BatchNormAttrs::create();
  norm->epsilon = 0.001;
  norm->scale = false;
  Ref<CastAttrs> cast = CastAttrs::create();
  cast->dtype = DataType::int32();
  Ref<DenseAttrs> dense = DenseAttrs::create();
  Ref<Expr> body = Tuple::get({
      call("nn.conv2d", {x, w}, conv),
      call("nn.conv2d", {x, w}, Conv2DAttrs::create()),
      call("nn.batch_norm", {x, x, x, x, x}, norm), call("cast", {x}, cast),
      call("nn.dense", {x, w}, dense),
      call("nn.dense", {x, w}), // built without a record
  });
  EXPECT_EQ(printMain(fn({x, w}, body)),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(1, 3, 8, 8), float32], "
            "%w: Tensor[(4, 3, 3, 3), float32]) {\n"
            "  %0 = nn.conv2d(%x, %w, strides=[2, 2], channels=4, "
            "out_dtype=\"float32\");\n"
            "  %1 = nn.conv2d(%x, %w);\n"
            "  %2 = nn.batch_norm(%x, %x, %x, %x, %x, epsilon=0.001f, "
            "scale=False);\n"
            "  %3 = cast(%x, dtype=\"int32\");\n"
            "  %4 = nn.dense(%x, %w, units=None);\n"
            "  %5 = nn.dense(%x, %w, units=None);\n"
            "  (%0, %1, %2, %3, %4, %5)\n"
            "}\n");
}

TEST_F(PrinterTest, ExpressionValuedAttributes) {
  Ref<Var> x = Var::get("x", f32());
  Ref<Var> f = Var::get("f");
  std::vector<AttrValue> list = {
      AttrValue::expr(scalar(DataType::float32(), 2)),
      AttrValue::expr(call("negative", {x}))};
  Ref<DictAttrs> attrs = DictAttrs::get(
      {{"value", AttrValue::expr(scalar(DataType::int64(), 3)), {}},
       {"list", AttrValue::array(list), {}}});
  // Constants in attributes print as metadata references, whatever their
  // size, as TVM prints them (arange's start); other expressions are bound.
  std::string text = printMain(fn({x, f}, Call::get(f, {x}, attrs)));
  llvm::StringRef body = llvm::StringRef(text).split("\n#[metadata]\n").first;
  EXPECT_EQ(body, "#[version = \"0.0.5\"]\n"
                  "def @main(%x: float32, %f) {\n"
                  "  %0 = negative(%x);\n"
                  "  %f(%x, value=meta[relay.Constant][0], "
                  "list=[meta[relay.Constant][1], %0])\n"
                  "}\n");
  EXPECT_NE(text.find("\"dtype\": \"int64\""), std::string::npos);
  EXPECT_NE(text.find("\"dtype\": \"float32\""), std::string::npos);
}

TEST_F(PrinterTest, TypeCommentsOnLetsTuplesAndBindings) {
  Ref<Type> t = f32();
  Ref<Var> x = Var::get("x", t);
  Ref<Var> y = Var::get("y", t);
  Ref<Expr> pair = Tuple::get({x, x}, {}, TupleType::get({t, t}));
  Ref<Expr> item = TupleGetItem::get(pair, 0, {}, t);
  Ref<Expr> body = Let::get(y, item, y);
  PrintOptions options;
  options.showTypes = true;
  EXPECT_EQ(printMain(fn({x}, body), options),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: float32 /* ty=float32 */) {\n"
            "  %0 = (%x, %x) /* ty=(float32, float32) */;\n"
            "  let %y: float32 /* ty=float32 */ = %0.0 /* ty=float32 */;\n"
            "  %y\n"
            "}\n");
}

TEST_F(PrinterTest, MillionCallChain) {
  constexpr int kLength = 1000000;
  Ref<Var> x = Var::get("x", f32());
  Ref<Expr> chain = x;
  for (int i = 0; i < kLength; ++i)
    chain = call("negative", {chain});
  PrintOptions options;
  options.printVersion = false;
  std::string text = printMain(fn({x}, chain), options);
  chain = nullptr;
  // def line, kLength - 1 bindings, the result, the closing brace.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), kLength + 2);
  llvm::StringRef tail(text);
  EXPECT_TRUE(tail.starts_with("def @main(%x: float32) {\n"
                               "  %0 = negative(%x);\n"
                               "  %1 = negative(%0);\n"));
  EXPECT_TRUE(tail.ends_with("  %999998 = negative(%999997);\n"
                             "  negative(%999998)\n"
                             "}\n"));
}

TEST_F(PrinterTest, MillionLetChain) {
  constexpr int kLength = 1000000;
  std::vector<Ref<Var>> vars;
  vars.reserve(kLength + 1);
  for (int i = 0; i <= kLength; ++i)
    vars.push_back(Var::get("x"));
  Ref<Expr> body = vars[kLength];
  for (int i = kLength; i >= 1; --i)
    body = Let::get(vars[i], call("negative", {vars[i - 1]}), body);
  PrintOptions options;
  options.printVersion = false;
  std::string text = printMain(fn({vars[0]}, body), options);
  body = nullptr;
  vars.clear();
  // def line, kLength lets, the result, the closing brace.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), kLength + 3);
  llvm::StringRef tail(text);
  EXPECT_TRUE(tail.ends_with("  let %x1000000 = negative(%x999999);\n"
                             "  %x1000000\n"
                             "}\n"));
}

} // namespace
