//===- ParserTest.cpp - Tests of the Relay text format parser -------------===//
//
/// \file
/// Unit tests of parseModule / parseExpr / parseType: every construct of the
/// grammar, the lexer's literal rules, nnir's dense<> constants, metadata
/// references, sharing through graph bindings, and the exact located
/// diagnostics of the error paths (checked as "line:col: message").
//
//===----------------------------------------------------------------------===//

#include "nnir/Parser/Parser.h"

#include "nnir/IR/Metadata.h"
#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <cmath>
#include <string>

using namespace llvm;
using namespace nnir;

namespace {

class ParserTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { registerAllOps(); }

  /// Renders an error as "line:col: message" (or just the message when it
  /// has no location in sm).
  std::string render(Error err) {
    std::string out;
    handleAllErrors(
        std::move(err),
        [&](const DiagnosticError &diag) {
          auto [line, col] = getLineAndColumn(sm, diag.getLoc());
          if (line == 0)
            out = diag.getMessage();
          else
            out = formatv("{0}:{1}: {2}", line, col, diag.getMessage()).str();
        },
        [&](const ErrorInfoBase &info) {
          out = "unlocated: " + info.message();
        });
    return out;
  }

  Ref<IRModule> module(StringRef text, const ParserOptions &options = {}) {
    Expected<Ref<IRModule>> result = parseModule(text, sm, "test", options);
    if (!result) {
      ADD_FAILURE() << render(result.takeError());
      return nullptr;
    }
    return *result;
  }
  std::string moduleError(StringRef text, const ParserOptions &options = {}) {
    Expected<Ref<IRModule>> result = parseModule(text, sm, "test", options);
    if (result)
      return "<parsed>";
    return render(result.takeError());
  }
  Ref<Expr> expr(StringRef text, const ParserOptions &options = {}) {
    Expected<Ref<Expr>> result = parseExpr(text, sm, "test", options);
    if (!result) {
      ADD_FAILURE() << render(result.takeError());
      return nullptr;
    }
    return *result;
  }
  std::string exprError(StringRef text, const ParserOptions &options = {}) {
    Expected<Ref<Expr>> result = parseExpr(text, sm, "test", options);
    if (result)
      return "<parsed>";
    return render(result.takeError());
  }
  Ref<Type> type(StringRef text) {
    Expected<Ref<Type>> result = parseType(text, sm, "test");
    if (!result) {
      ADD_FAILURE() << render(result.takeError());
      return nullptr;
    }
    return *result;
  }
  std::string typeError(StringRef text) {
    Expected<Ref<Type>> result = parseType(text, sm, "test");
    if (result)
      return "<parsed>";
    return render(result.takeError());
  }
  /// "line:col" of a node.
  std::string where(const Expr *e) {
    auto [line, col] = getLineAndColumn(sm, e->getLoc());
    return formatv("{0}:{1}", line, col).str();
  }

  SourceMgr sm;
};

/// The value of a 0-d constant as a double.
double scalarValue(const Expr *e) {
  const auto *c = dyn_cast_or_null<Constant>(e);
  if (!c || !c->isScalar())
    return NAN;
  return c->getData().getElementAsDouble(0);
}

DataType dtypeOf(const Expr *e) {
  return cast<Constant>(e)->getData().getDType();
}

/// \p attrs as the typed record T, or null.
template <typename T> const T *attrsAs(const Attrs *attrs) {
  return dyn_cast_or_null<T>(attrs);
}

const Call *asOpCall(const Expr *e, StringRef opName) {
  const auto *call = dyn_cast_or_null<Call>(e);
  if (!call || !call->getCalledOp() || call->getCalledOp()->getName() != opName)
    return nullptr;
  return call;
}

//===----------------------------------------------------------------------===//
// Literals and the lexer
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, IntegerLiterals) {
  Ref<Expr> e = expr("1");
  EXPECT_EQ(dtypeOf(e.get()), DataType::int32());
  EXPECT_EQ(scalarValue(e.get()), 1);
  EXPECT_TRUE(cast<Constant>(e.get())->isScalar());
  e = expr("2147483648");
  EXPECT_EQ(dtypeOf(e.get()), DataType::int64());
  EXPECT_EQ(cast<Constant>(e.get())->getData().getElementAsInt(0),
            2147483648LL);
  EXPECT_EQ(dtypeOf(expr("-2147483648").get()), DataType::int32());
  EXPECT_EQ(dtypeOf(expr("3i64").get()), DataType::int64());
  EXPECT_EQ(dtypeOf(expr("4i16").get()), DataType::int16());
  EXPECT_EQ(dtypeOf(expr("5i").get()), DataType::int32());
  EXPECT_EQ(dtypeOf(expr("5i32").get()), DataType::int32());
  EXPECT_EQ(cast<Constant>(expr("9223372036854775807i64").get())
                ->getData()
                .getElementAsInt(0),
            INT64_MAX);
  EXPECT_EQ(cast<Constant>(expr("-9223372036854775808").get())
                ->getData()
                .getElementAsInt(0),
            INT64_MIN);
  // A run of '-' before a digit belongs to the number (odd count: negative).
  EXPECT_EQ(scalarValue(expr("--10").get()), 10);
  EXPECT_EQ(scalarValue(expr("---10").get()), -10);
}

TEST_F(ParserTest, FloatLiterals) {
  Ref<Expr> e = expr("1.5f");
  EXPECT_EQ(dtypeOf(e.get()), DataType::float32());
  EXPECT_EQ(scalarValue(e.get()), 1.5);
  EXPECT_EQ(dtypeOf(expr("2f16").get()), DataType::float16());
  EXPECT_EQ(scalarValue(expr("2f16").get()), 2.0);
  EXPECT_EQ(dtypeOf(expr("3f64").get()), DataType::float64());
  EXPECT_EQ(dtypeOf(expr("3f32").get()), DataType::float32());
  EXPECT_FLOAT_EQ(scalarValue(expr("1e-05f").get()), 1e-05f);
  EXPECT_EQ(scalarValue(expr("1E+1f").get()), 10.0);
  EXPECT_EQ(scalarValue(expr("-10.0f").get()), -10.0);
  EXPECT_EQ(scalarValue(expr("65504f16").get()), 65504.0);
  // nnir extension: a float without suffix is float32.
  e = expr("1.5");
  EXPECT_EQ(dtypeOf(e.get()), DataType::float32());
  EXPECT_EQ(scalarValue(e.get()), 1.5);
  EXPECT_EQ(dtypeOf(expr("1e3").get()), DataType::float32());
  // inff / -inff (TVM) and nanf (nnir extension), with widths.
  EXPECT_EQ(scalarValue(expr("inff").get()), INFINITY);
  EXPECT_EQ(scalarValue(expr("-inff").get()), -INFINITY);
  EXPECT_TRUE(std::isnan(scalarValue(expr("nanf").get())));
  EXPECT_EQ(dtypeOf(expr("inff16").get()), DataType::float16());
  EXPECT_EQ(dtypeOf(expr("nanf64").get()), DataType::float64());
}

TEST_F(ParserTest, BoolLiterals) {
  Ref<Expr> t = expr("True");
  EXPECT_EQ(dtypeOf(t.get()), DataType::boolean());
  EXPECT_EQ(scalarValue(t.get()), 1);
  EXPECT_EQ(scalarValue(expr("False").get()), 0);
}

TEST_F(ParserTest, LiteralErrors) {
  // A literal is out of range only when it rounds past the largest finite
  // value: 65519 rounds to 65504, 65520 to infinity.
  EXPECT_EQ(exprError("65520f16"),
            "1:1: float literal '65520f16' is out of range for float16");
  EXPECT_EQ(exprError("3.40283e+38f32"),
            "1:1: float literal '3.40283e+38f32' is out of range for float32");
  EXPECT_EQ(exprError("1e400f64"),
            "1:1: float literal '1e400f64' is out of range for float64");
  EXPECT_EQ(exprError("2147483648i32"),
            "1:1: integer literal '2147483648i32' is out of range for int32");
  EXPECT_EQ(exprError("32768i16"),
            "1:1: integer literal '32768i16' is out of range for int16");
  EXPECT_EQ(exprError("  -9223372036854775809"),
            "1:3: integer literal '-9223372036854775809' is out of range for "
            "int64");
  EXPECT_EQ(exprError("9223372036854775808"),
            "1:1: integer literal '9223372036854775808' is out of range for "
            "int64");
  EXPECT_EQ(exprError("99999999999999999999"),
            "1:1: integer literal '99999999999999999999' is out of range");
  EXPECT_EQ(exprError("1i8"),
            "1:1: invalid integer literal width 'i8'; expected i, i16, i32 or "
            "i64");
  EXPECT_EQ(exprError("1f8"),
            "1:1: invalid float literal width 'f8'; expected f, f16, f32 or "
            "f64");
  // '-' and '+' are number characters: `1-1` is one bad number (as in TVM).
  EXPECT_EQ(exprError("1-1"), "1:1: invalid number '1-1'");
  EXPECT_EQ(exprError("1.5i"), "1:1: invalid number '1.5i'");
  EXPECT_EQ(exprError("2u8"), "1:1: invalid number '2u8'");
  EXPECT_EQ(exprError("1e"), "1:1: invalid number '1e'");
}

TEST_F(ParserTest, CommentsAndWhitespace) {
  Ref<Expr> e = expr("// line comment\n/* a /* nested */ still comment */ "
                     "\t42 /* trailing */\r\n// end");
  EXPECT_EQ(scalarValue(e.get()), 42);
  EXPECT_EQ(where(e.get()), "2:37");
  EXPECT_EQ(exprError("1 /* a /* b */ c"), "1:3: unterminated block comment");
  EXPECT_EQ(exprError("1\r2"),
            "1:2: carriage return must be followed by a newline");
}

TEST_F(ParserTest, StrayBytesAreLocatedErrors) {
  EXPECT_EQ(exprError("add(1, \xff)"), "1:8: unexpected character '\\xFF'");
  EXPECT_EQ(exprError(StringRef("1 \0", 3)),
            "1:3: unexpected character '\\x00'");
  EXPECT_EQ(exprError("$"), "1:1: unexpected character '$'");
  EXPECT_EQ(exprError("#x"), "1:1: unexpected character '#'");
  EXPECT_EQ(exprError("\"abc"), "1:1: unterminated string");
  // A UTF-8 byte order mark is skipped at the start only.
  EXPECT_EQ(scalarValue(expr("\xEF\xBB\xBF"
                             "7")
                            .get()),
            7);
  EXPECT_EQ(exprError("1 \xEF\xBB\xBF"), "1:3: unexpected character '\\xEF'");
  // Non-ASCII bytes are fine inside comments and strings.
  EXPECT_EQ(scalarValue(expr("/* \xc3\xa9 \xff */ 1").get()), 1);
}

TEST_F(ParserTest, StringsUnderstandThePrintersEscapes) {
  Ref<Expr> e =
      expr("fn (%x, Compiler=\"a\\\"b\\\\c\\t\\r\\n\\x01\\d\xc3\xa9\") { %x }");
  const auto *f = cast<Function>(e.get());
  ASSERT_TRUE(f->getAttrs());
  const AttrValue *value = f->getAttr("Compiler");
  ASSERT_TRUE(value);
  EXPECT_EQ(value->getString(), "a\"b\\c\t\r\n\x01\\d\xc3\xa9");
}

TEST_F(ParserTest, VersionHeader) {
  EXPECT_TRUE(module("#[version = \"0.0.5\"]\ndef @f() { 1 }"));
  EXPECT_TRUE(module("#[ version=\"0.0.5\" ]\ndef @f() { 1 }"));
  EXPECT_EQ(moduleError("#[version = \"0.0.4\"]\ndef @f() { 1 }"),
            "1:1: unsupported text format version \"0.0.4\"; expected "
            "\"0.0.5\"");
  EXPECT_EQ(moduleError("#[foo]"), "1:1: unsupported attribute '#[foo]'");
  EXPECT_EQ(moduleError("#[version"), "1:1: unterminated '#[' attribute");
  ParserOptions strict;
  strict.requireVersion = true;
  EXPECT_EQ(moduleError("def @f() { 1 }", strict),
            "1:1: expected '#[version = \"0.0.5\"]'");
  EXPECT_TRUE(module("#[version = \"0.0.5\"]\n", strict));
  EXPECT_EQ(moduleError("def @f() { 1 }\n#[version = \"0.0.5\"]"),
            "2:1: the version attribute must come first");
}

//===----------------------------------------------------------------------===//
// Modules, functions, variables
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, ModuleWithFunctions) {
  Ref<IRModule> m = module(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3), float32], %y) -> Tensor[(1, 3), float32] {
  add(%x, %y)
}

def @id(%a: float32, Primitive=1, Compiler="ext") {
  %a
}
)");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->size(), 2u);
  EXPECT_EQ(m->getFunctions()[0].var->getName(), "main");
  EXPECT_EQ(m->getFunctions()[1].var->getName(), "id");
  Function *main = m->lookup("main");
  ASSERT_TRUE(main);
  ASSERT_EQ(main->getNumParams(), 2u);
  EXPECT_EQ(main->getParam(0)->getNameHint(), "x");
  EXPECT_EQ(main->getParam(0)->getTypeAnnotation()->str(),
            "Tensor[(1, 3), float32]");
  EXPECT_FALSE(main->getParam(1)->getTypeAnnotation());
  EXPECT_EQ(main->getRetType()->str(), "Tensor[(1, 3), float32]");
  EXPECT_FALSE(main->getAttrs());
  const Call *add = asOpCall(main->getBody().get(), "add");
  ASSERT_TRUE(add);
  EXPECT_EQ(add->getArg(0), main->getParam(0));
  EXPECT_EQ(add->getArg(1), main->getParam(1));
  EXPECT_FALSE(add->getAttrs());

  Function *id = m->lookup("id");
  ASSERT_TRUE(id->getAttrs());
  EXPECT_TRUE(id->isPrimitive());
  EXPECT_EQ(id->getAttr("Primitive")->getInt(), 1);
  EXPECT_EQ(id->getAttr("Compiler")->getString(), "ext");
  EXPECT_EQ(id->getBody(), id->getParam(0));
  // Locations: `def` for the function, the name for its GlobalVar.
  EXPECT_EQ(where(main), "2:1");
  EXPECT_EQ(where(m->getGlobalVar("main")), "2:5");
  EXPECT_EQ(where(main->getParam(1).get()), "2:40");
  EXPECT_EQ(where(add), "3:3");
}

TEST_F(ParserTest, GlobalsAllowForwardReferencesAndRecursion) {
  Ref<IRModule> m = module(R"(
def @a(%x) { @b(%x) }
def @b(%x) { @b(%x) }
)");
  ASSERT_TRUE(m);
  const auto *call = cast<Call>(m->lookup("a")->getBody().get());
  // The GlobalVar used in @a is the module's GlobalVar for @b.
  EXPECT_EQ(call->getCallee().get(), m->getGlobalVar("b"));
  const auto *rec = cast<Call>(m->lookup("b")->getBody().get());
  EXPECT_EQ(rec->getCallee().get(), m->getGlobalVar("b"));
}

TEST_F(ParserTest, ModuleErrors) {
  EXPECT_EQ(moduleError("def @f() { 1 }\ndef @f() { 2 }"),
            "2:5: redefinition of global function @f");
  EXPECT_EQ(moduleError("def @f(%x, %y, %x) { %x }"),
            "1:16: duplicate parameter %x");
  EXPECT_EQ(moduleError("def @f(%x) { %y }"), "1:14: undefined variable %y");
  EXPECT_EQ(moduleError("def @f(%x) { %7 }"), "1:14: undefined variable %7");
  EXPECT_EQ(moduleError("def @f(%x) {\n  @g(%x)\n}\ndef @h() { @k }"),
            "2:3: undefined global function @g");
  EXPECT_EQ(moduleError("def @f(%x) { %x }\nfree_var %y;"),
            "2:1: free_var is not allowed in a module: global functions "
            "cannot have free variables");
  EXPECT_EQ(moduleError("def @f() {\n  free_var %y; %y\n}"),
            "2:3: free_var is not allowed in a module: global functions "
            "cannot have free variables");
  EXPECT_EQ(moduleError("def @f() { 1 }\n%x"),
            "2:1: expected 'def' or end of file");
  EXPECT_EQ(moduleError("def f() { 1 }"),
            "1:5: expected a global function name ('@name') after 'def'");
  EXPECT_EQ(moduleError("type List[A] { Nil }"),
            "1:1: type definitions (ADTs) are not supported by nnir");
  EXPECT_EQ(moduleError("def @f[A](%x: A) { %x }"),
            "1:7: type parameters are not supported by nnir");
  EXPECT_EQ(moduleError("def @f(%x {virtual_device=meta[VirtualDevice][0]}) "
                        "{ %x }"),
            "1:27: meta[VirtualDevice][0] refers to the metadata section, but "
            "there is none");
  EXPECT_EQ(moduleError("def @f(1) { 1 }"),
            "1:8: expected a parameter ('%name'), an attribute or ')'");
}

TEST_F(ParserTest, TruncatedInputIsALocatedError) {
  EXPECT_EQ(moduleError("def @f(%x) {\n  add(%x"), "2:9: expected ',' or ')'");
  EXPECT_EQ(moduleError("def @f(%x) {\n  add(%x, "),
            "2:11: unexpected end of file; expected an expression");
  EXPECT_EQ(moduleError("def @f(%x) {"),
            "1:13: unexpected end of file; expected an expression");
  EXPECT_EQ(moduleError("def @f(%x) { %x"), "1:16: expected '}'");
  EXPECT_EQ(moduleError("def @f(%x: Tensor[(1, "),
            "1:23: unexpected end of file; expected a dimension");
  EXPECT_EQ(moduleError("def @f(%x"), "1:10: expected ',' or ')'");
  EXPECT_EQ(moduleError("def @f(%x) { nn.conv2d(%x, %x, strides=[1, "),
            "1:44: unexpected end of file; expected an attribute value");
  EXPECT_EQ(moduleError("def @f(%x) { %0 = %x"),
            "1:21: expected ';' after the graph binding");
  EXPECT_EQ(moduleError("def @f(%x) { if (%x) { 1 } "),
            "1:28: expected 'else'");
  EXPECT_EQ(moduleError("def @f(%x) { dense<[1, 2"),
            "1:25: expected ',' or ']'");
}

TEST_F(ParserTest, DottedVariableNamesAreACleanError) {
  EXPECT_EQ(moduleError("def @f(%conv1.weight: float32) { 1 }"),
            "1:8: variable names cannot contain '.'; '%conv1.weight' cannot "
            "be parsed");
  EXPECT_EQ(moduleError("def @f(%x) { %conv1.weight }"),
            "1:14: variable names cannot contain '.'; '%conv1.weight' cannot "
            "be parsed");
  // '/' is allowed in names.
  Ref<IRModule> m = module("def @f(%base/x) { %base/x }");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->lookup("f")->getParam(0)->getNameHint(), "base/x");
}

//===----------------------------------------------------------------------===//
// Bindings, sequencing and scopes
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, GraphBindingsShareNodes) {
  Ref<IRModule> m = module(R"(
def @f(%x) {
  %0 = add(%x, %x);
  %1 = multiply(%0, %0);
  subtract(%1, %0)
}
)");
  ASSERT_TRUE(m);
  const Call *sub = asOpCall(m->lookup("f")->getBody().get(), "subtract");
  ASSERT_TRUE(sub);
  const Call *mul = asOpCall(sub->getArg(0).get(), "multiply");
  ASSERT_TRUE(mul);
  const Call *add = asOpCall(sub->getArg(1).get(), "add");
  ASSERT_TRUE(add);
  EXPECT_EQ(mul->getArg(0).get(), add);
  EXPECT_EQ(mul->getArg(1).get(), add);
  // A graph binding makes no Let; the node keeps its own location.
  EXPECT_EQ(where(add), "3:8");
}

TEST_F(ParserTest, GraphBindingScopes) {
  // Numbers need not be consecutive, and a nested function sees the
  // enclosing bindings.
  Ref<IRModule> m = module(R"(
def @f(%x) {
  %5 = add(%x, %x);
  %9 = fn (%y) { %0 = add(%y, %5); %0 };
  %9(%5)
}
)");
  ASSERT_TRUE(m);
  const auto *call = cast<Call>(m->lookup("f")->getBody().get());
  const auto *fn = cast<Function>(call->getCallee().get());
  const Call *inner = asOpCall(fn->getBody().get(), "add");
  ASSERT_TRUE(inner);
  EXPECT_EQ(inner->getArg(1), call->getArg(0));

  EXPECT_EQ(moduleError("def @f(%x) {\n  %0 = %x;\n  %0 = %x;\n  %0\n}"),
            "3:3: %0 is already defined in this scope");
  // Bindings made in a branch are not visible after it.
  EXPECT_EQ(moduleError("def @f(%c) {\n  %1 = if (%c) { %0 = 1; %0 } else { 2 "
                        "};\n  add(%0, %1)\n}"),
            "3:7: undefined variable %0");
  // Graph bindings of one function are not visible in the next.
  EXPECT_EQ(moduleError("def @f(%x) { %0 = %x; %0 }\ndef @g() { %0 }"),
            "2:12: undefined variable %0");
  // An inner scope may rebind a number.
  EXPECT_TRUE(module("def @f(%x) { %0 = %x; %1 = fn () { %0 = 1; %0 }; %0 }"));
}

TEST_F(ParserTest, LetBindings) {
  Ref<Expr> e = expr("let %x: int32 = 1;\nlet %y = add(%x, %x);\n%y");
  const auto *outer = dyn_cast<Let>(e.get());
  ASSERT_TRUE(outer);
  EXPECT_EQ(outer->getVar()->getNameHint(), "x");
  EXPECT_EQ(outer->getVar()->getTypeAnnotation()->str(), "int32");
  EXPECT_EQ(scalarValue(outer->getValue().get()), 1);
  const auto *inner = dyn_cast<Let>(outer->getBody().get());
  ASSERT_TRUE(inner);
  const Call *add = asOpCall(inner->getValue().get(), "add");
  ASSERT_TRUE(add);
  EXPECT_EQ(add->getArg(0), outer->getVar());
  EXPECT_EQ(inner->getBody(), inner->getVar());
  EXPECT_EQ(where(outer), "1:1");
  EXPECT_EQ(where(inner), "2:1");
  EXPECT_EQ(where(outer->getVar().get()), "1:5");

  // The let variable is in scope in its own value (recursive closures).
  e = expr("let %f = fn (%n) { %f(%n) };\n%f");
  const auto *let = cast<Let>(e.get());
  const auto *fn = cast<Function>(let->getValue().get());
  EXPECT_EQ(cast<Call>(fn->getBody().get())->getCallee(), let->getVar());

  // Shadowing: the inner %x is a new variable, already visible in its own
  // value (Relay's rule).
  e = expr("let %x = 1; let %x = add(%x, %x); %x");
  const auto *first = cast<Let>(e.get());
  const auto *second = cast<Let>(first->getBody().get());
  EXPECT_NE(first->getVar(), second->getVar());
  EXPECT_EQ(asOpCall(second->getValue().get(), "add")->getArg(0),
            second->getVar());
  EXPECT_EQ(second->getBody(), second->getVar());

  // A let binding's scope ends with its sequence.
  EXPECT_EQ(exprError("(let %x = 1; %x, %x)"), "1:18: undefined variable %x");
  EXPECT_EQ(exprError("let x = 1; x"),
            "1:5: expected a variable ('%name') after 'let'");
  EXPECT_EQ(exprError("let %x = 1"),
            "1:11: expected ';' after the let binding");
}

TEST_F(ParserTest, SequencingMakesLetsWithFreshVars) {
  Ref<Expr> e = expr("1; 2; 3");
  const auto *a = cast<Let>(e.get());
  EXPECT_EQ(a->getVar()->getNameHint(), "");
  EXPECT_EQ(scalarValue(a->getValue().get()), 1);
  const auto *b = cast<Let>(a->getBody().get());
  EXPECT_NE(a->getVar(), b->getVar());
  EXPECT_EQ(scalarValue(b->getValue().get()), 2);
  EXPECT_EQ(scalarValue(b->getBody().get()), 3);
  EXPECT_EQ(exprError("1; 2;"),
            "1:6: unexpected end of file; expected an expression");
}

TEST_F(ParserTest, BlocksOpenScopes) {
  Ref<Expr> e = expr("{ let %x = 1; %x }");
  EXPECT_TRUE(isa<Let>(e.get()));
  EXPECT_EQ(exprError("{ %0 = 1; %0 }; %0"), "1:17: undefined variable %0");
  e = expr("{ 1 }; { 2 }");
  const auto *let = cast<Let>(e.get());
  EXPECT_EQ(scalarValue(let->getValue().get()), 1);
  EXPECT_EQ(scalarValue(let->getBody().get()), 2);
}

TEST_F(ParserTest, FreeVars) {
  Ref<Expr> e = expr("#[version = \"0.0.5\"]\nfree_var %x: Tensor[(2), "
                     "float32];\nfree_var %y;\n%0 = add(%x, %y);\n%0");
  const Call *add = asOpCall(e.get(), "add");
  ASSERT_TRUE(add);
  const auto *x = cast<Var>(add->getArg(0).get());
  EXPECT_EQ(x->getNameHint(), "x");
  EXPECT_EQ(x->getTypeAnnotation()->str(), "Tensor[(2), float32]");
  EXPECT_EQ(where(x), "2:10");
  EXPECT_FALSE(cast<Var>(add->getArg(1).get())->getTypeAnnotation());
  EXPECT_EQ(exprError("free_var %x; free_var %x; %x"),
            "1:23: free variable %x is declared twice");
  EXPECT_EQ(exprError("free_var %x; add(%x, %z)"),
            "1:22: undefined variable %z");
  EXPECT_EQ(exprError("free_var %x"),
            "1:12: expected ';' after the free_var declaration");
  EXPECT_EQ(exprError("free_var %x;"),
            "1:13: unexpected end of file; expected an expression");
  // A local shadows a free variable of the same name.
  e = expr("free_var %x; fn (%x) { %x }");
  const auto *fn = cast<Function>(e.get());
  EXPECT_EQ(fn->getBody(), fn->getParam(0));
}

//===----------------------------------------------------------------------===//
// Calls, operators and attributes
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, OpCallsWithAttributes) {
  Ref<Expr> e = expr("free_var %x; free_var %w;\n"
                     "nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1], "
                     "channels=16 kernel_size=[3, 3], out_dtype=\"float16\",)");
  const Call *conv = asOpCall(e.get(), "nn.conv2d");
  ASSERT_TRUE(conv);
  const auto *attrs = attrsAs<Conv2DAttrs>(conv->getAttrs().get());
  ASSERT_TRUE(attrs);
  EXPECT_EQ(attrs->strides, std::vector<int64_t>({2, 2}));
  EXPECT_EQ(attrs->padding, std::vector<int64_t>({1, 1, 1, 1}));
  EXPECT_EQ(attrs->channels, std::optional<int64_t>(16));
  EXPECT_EQ(attrs->kernelSize, std::optional<std::vector<int64_t>>({3, 3}));
  EXPECT_EQ(attrs->outDtype, DataType::float16());
  EXPECT_EQ(attrs->dataLayout, "NCHW");
  EXPECT_EQ(where(conv), "2:1");

  // TVM prints `units=None` for an unset required field.
  e = expr("free_var %x; free_var %w; nn.dense(%x, %w, units=None)");
  const auto *dense =
      attrsAs<DenseAttrs>(cast<Call>(e.get())->getAttrs().get());
  ASSERT_TRUE(dense);
  EXPECT_FALSE(dense->units);
  // An op without an attribute record gets none.
  e = expr("free_var %x; nn.relu(%x)");
  EXPECT_FALSE(cast<Call>(e.get())->getAttrs());
  // Line breaks inside calls are fine.
  EXPECT_TRUE(expr("free_var %x; add(\n  %x,\n  %x\n)"));
}

TEST_F(ParserTest, OpCallErrors) {
  EXPECT_EQ(exprError("free_var %x;\nnn.conv3x(%x)"),
            "2:1: unknown operator 'nn.conv3x'; did you mean 'nn.conv3d'?");
  EXPECT_EQ(exprError("frobnicate"), "1:1: unknown operator 'frobnicate'");
  EXPECT_EQ(exprError("free_var %x; add(%x, %x, %x)"),
            "1:14: add expects 2 arguments, got 3");
  EXPECT_EQ(exprError("free_var %x; nn.relu()"),
            "1:14: nn.relu expects 1 argument, got 0");
  EXPECT_EQ(exprError("free_var %x;\nnn.conv2d(%x, %x, foo=1)"),
            "2:19: unknown attribute 'foo' of nn.conv2d; valid attributes "
            "are: strides, padding, dilation, groups, channels, kernel_size, "
            "data_layout, kernel_layout, out_layout, out_dtype");
  EXPECT_EQ(exprError("free_var %x; nn.dense(%x, %x)"),
            "1:14: missing required attribute 'units' of nn.dense");
  EXPECT_EQ(exprError("free_var %x; nn.conv2d(%x, %x, strides=\"a\")"),
            "1:40: attribute 'strides' of nn.conv2d: expected list of int, "
            "got a string");
  EXPECT_EQ(exprError("free_var %x; nn.relu(%x, alpha=1)"),
            "1:26: unknown attribute 'alpha': nn.relu takes no attributes");
  EXPECT_EQ(exprError("free_var %x; nn.conv2d(%x, groups=1, %x)"),
            "1:38: expected an attribute ('name=value') or ')'; positional "
            "arguments must come before attributes");
  EXPECT_EQ(exprError("free_var %x; nn.conv2d(%x, %x, groups=)"),
            "1:39: expected an attribute value");
}

TEST_F(ParserTest, NonOpCallsKeepKeywordArgumentsAsDictAttrs) {
  Ref<Expr> e = expr("free_var %f; free_var %x;\n"
                     "%f(%x, attrs_type_key=\"relay.attrs.X\" "
                     "relay.reshape_only=1, n=[1, [2, 3]], s=None)");
  const auto *call = cast<Call>(e.get());
  const auto *dict = dyn_cast_or_null<DictAttrs>(call->getAttrs().get());
  ASSERT_TRUE(dict);
  ASSERT_EQ(dict->getEntries().size(), 4u);
  EXPECT_EQ(dict->lookup("attrs_type_key")->getString(), "relay.attrs.X");
  EXPECT_EQ(dict->lookup("relay.reshape_only")->getInt(), 1);
  const AttrValue *n = dict->lookup("n");
  ASSERT_EQ(n->getKind(), AttrValue::Kind::Array);
  EXPECT_EQ(n->getArray()[1].getArray()[1].getInt(), 3);
  EXPECT_TRUE(dict->lookup("s")->isNone());
  EXPECT_EQ(exprError("free_var %f; %f(a=1, a=2)"),
            "1:22: attribute 'a' of the call is given twice");
  // A dotted key may come first (TVM only recognises it later).
  e = expr("free_var %f; %f(relay.x=1)");
  EXPECT_TRUE(cast<DictAttrs>(cast<Call>(e.get())->getAttrs().get())
                  ->lookup("relay.x"));
}

TEST_F(ParserTest, AttributeValueKinds) {
  Ref<Expr> e = expr("fn (%x, a=1, b=2i64, c=1.5f, d=2f16, e=True, f=\"s\", "
                     "g=[], h=(3), i=nullptr, j=-inff, k=dense<[1, 2]> : "
                     "Tensor[(2), int8]) { %x }");
  const auto *fn = cast<Function>(e.get());
  EXPECT_EQ(fn->getAttr("a")->getDType(), DataType::int32());
  EXPECT_EQ(fn->getAttr("b")->getDType(), DataType::int64());
  EXPECT_EQ(fn->getAttr("c")->getFloat(), 1.5);
  EXPECT_EQ(fn->getAttr("d")->getDType(), DataType::float16());
  EXPECT_EQ(fn->getAttr("e")->getKind(), AttrValue::Kind::Bool);
  EXPECT_EQ(fn->getAttr("f")->getString(), "s");
  EXPECT_TRUE(fn->getAttr("g")->getArray().empty());
  EXPECT_EQ(fn->getAttr("h")->getInt(), 3);
  EXPECT_TRUE(fn->getAttr("i")->isNone());
  EXPECT_EQ(fn->getAttr("j")->getFloat(), -INFINITY);
  ASSERT_EQ(fn->getAttr("k")->getKind(), AttrValue::Kind::Expr);
  EXPECT_TRUE(isa<Constant>(fn->getAttr("k")->getExpr()));
  EXPECT_EQ(exprError("fn (%x, a=1, a=2) { %x }"),
            "1:14: attribute 'a' of the function is given twice");
  EXPECT_EQ(exprError("fn (%x, a=?) { %x }"),
            "1:11: a dynamic dimension ('?') is not allowed in an attribute "
            "value; only tensor types have '?' dimensions");
}

TEST_F(ParserTest, CurriedCalls) {
  Ref<Expr> e = expr("free_var %f; free_var %a; free_var %b; %f(%a)(%b)");
  const auto *outer = cast<Call>(e.get());
  const auto *inner = cast<Call>(outer->getCallee().get());
  EXPECT_EQ(cast<Var>(inner->getCallee().get())->getNameHint(), "f");
  EXPECT_EQ(cast<Var>(inner->getArg(0).get())->getNameHint(), "a");
  EXPECT_EQ(cast<Var>(outer->getArg(0).get())->getNameHint(), "b");
  // Calling a function literal.
  e = expr("fn (%x) { %x }(1)");
  EXPECT_TRUE(isa<Function>(cast<Call>(e.get())->getCallee().get()));
}

TEST_F(ParserTest, InfixOperators) {
  Ref<Expr> e = expr("free_var %a; free_var %b; free_var %c; %a + %b * %c");
  const Call *add = asOpCall(e.get(), "add");
  ASSERT_TRUE(add);
  EXPECT_TRUE(isa<Var>(add->getArg(0).get()));
  EXPECT_TRUE(asOpCall(add->getArg(1).get(), "multiply"));
  EXPECT_EQ(where(add), "1:43");

  // Left associative.
  e = expr("free_var %a; free_var %b; free_var %c; %a - %b - %c");
  const Call *sub = asOpCall(e.get(), "subtract");
  ASSERT_TRUE(sub);
  EXPECT_TRUE(asOpCall(sub->getArg(0).get(), "subtract"));
  EXPECT_EQ(cast<Var>(sub->getArg(1).get())->getNameHint(), "c");
  e = expr("free_var %a; free_var %b; free_var %c; %a / %b * %c");
  EXPECT_TRUE(
      asOpCall(asOpCall(e.get(), "multiply")->getArg(0).get(), "divide"));

  // Comparison below arithmetic, equality lowest.
  e = expr("free_var %a; free_var %b; %a < %b + 1 == %a >= %b");
  const Call *eq = asOpCall(e.get(), "equal");
  ASSERT_TRUE(eq);
  const Call *less = asOpCall(eq->getArg(0).get(), "less");
  ASSERT_TRUE(less);
  EXPECT_TRUE(asOpCall(less->getArg(1).get(), "add"));
  EXPECT_TRUE(asOpCall(eq->getArg(1).get(), "greater_equal"));
  for (auto [text, op] :
       {std::pair{"<=", "less_equal"}, {">", "greater"}, {"!=", "not_equal"}})
    EXPECT_TRUE(asOpCall(
        expr(("free_var %a; %a " + Twine(text) + " %a").str()).get(), op))
        << text;
  // Parentheses group.
  e = expr("free_var %a; (%a + %a) * %a");
  EXPECT_TRUE(asOpCall(asOpCall(e.get(), "multiply")->getArg(0).get(), "add"));
}

TEST_F(ParserTest, LongInfixChainsAreIterative) {
  std::string text = "free_var %a; %a";
  for (int i = 0; i < 200000; ++i)
    text += " + %a";
  Ref<Expr> e = expr(text);
  ASSERT_TRUE(e);
  EXPECT_TRUE(asOpCall(e.get(), "add"));
}

//===----------------------------------------------------------------------===//
// Tuples, projections, conditionals, functions
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, TuplesAndParentheses) {
  Ref<Expr> e = expr("()");
  EXPECT_EQ(cast<Tuple>(e.get())->size(), 0u);
  e = expr("(1,)");
  EXPECT_EQ(cast<Tuple>(e.get())->size(), 1u);
  e = expr("(1, 2, 3,)");
  EXPECT_EQ(cast<Tuple>(e.get())->size(), 3u);
  e = expr("(1)");
  EXPECT_TRUE(isa<Constant>(e.get()));
  e = expr("((1, 2), 3)");
  const auto *t = cast<Tuple>(e.get());
  EXPECT_TRUE(isa<Tuple>(t->getField(0).get()));
  EXPECT_EQ(where(t), "1:1");
  EXPECT_EQ(exprError("(1 2)"), "1:4: expected ',' or ')'");
}

TEST_F(ParserTest, TupleGetItem) {
  Ref<Expr> e = expr("free_var %t; %t.1");
  const auto *item = cast<TupleGetItem>(e.get());
  EXPECT_EQ(item->getIndex(), 1u);
  EXPECT_EQ(cast<Var>(item->getTuple().get())->getNameHint(), "t");
  EXPECT_EQ(where(item), "1:14");
  e = expr("free_var %t; (%t.0).1");
  const auto *outer = cast<TupleGetItem>(e.get());
  EXPECT_EQ(outer->getIndex(), 1u);
  EXPECT_EQ(cast<TupleGetItem>(outer->getTuple().get())->getIndex(), 0u);
  e = expr("free_var %x; %0 = (%x, %x); %0.1");
  EXPECT_TRUE(isa<Tuple>(cast<TupleGetItem>(e.get())->getTuple().get()));
  EXPECT_EQ(exprError("free_var %t; %t.x"),
            "1:14: variable names cannot contain '.'; '%t.x' cannot be "
            "parsed");
  EXPECT_EQ(exprError("free_var %t; (%t).-1"), "1:19: invalid tuple index -1");
  EXPECT_EQ(exprError("free_var %t; %t."),
            "1:17: unexpected end of file; expected a tuple index after '.'");
}

TEST_F(ParserTest, IfElse) {
  Ref<Expr> e = expr("free_var %c; if (%c) { 1 } else { %0 = 2; %0 }");
  const auto *ifNode = cast<If>(e.get());
  EXPECT_EQ(cast<Var>(ifNode->getCond().get())->getNameHint(), "c");
  EXPECT_EQ(scalarValue(ifNode->getThen().get()), 1);
  EXPECT_EQ(scalarValue(ifNode->getElse().get()), 2);
  EXPECT_EQ(where(ifNode), "1:14");
  EXPECT_EQ(exprError("if (True) { 1 }"), "1:16: expected 'else'");
}

TEST_F(ParserTest, FunctionLiterals) {
  Ref<Expr> e = expr("fn (%x: int32, %y: (int32, bool), Primitive=1) -> int32 "
                     "{ %x }");
  const auto *fn = cast<Function>(e.get());
  EXPECT_EQ(fn->getNumParams(), 2u);
  EXPECT_EQ(fn->getParam(1)->getTypeAnnotation()->str(), "(int32, bool)");
  EXPECT_EQ(fn->getRetType()->str(), "int32");
  EXPECT_TRUE(fn->isPrimitive());
  // Attributes only, trailing comma.
  e = expr("fn (Primitive=1,) { 1 }");
  EXPECT_EQ(cast<Function>(e.get())->getNumParams(), 0u);
  // Closures capture enclosing variables.
  e = expr("fn (%x) { fn (%y) { add(%x, %y) } }");
  const auto *outer = cast<Function>(e.get());
  const auto *inner = cast<Function>(outer->getBody().get());
  EXPECT_EQ(asOpCall(inner->getBody().get(), "add")->getArg(0),
            outer->getParam(0));
}

TEST_F(ParserTest, UnsupportedConstructs) {
  EXPECT_EQ(exprError("free_var %x; match (%x) { _ => 1 }"),
            "1:14: match expressions (ADTs) are not supported by nnir");
  EXPECT_EQ(exprError("ref(1)"),
            "1:1: references (ref) are not supported by nnir");
  EXPECT_EQ(exprError("ref_read(1)"),
            "1:1: references (ref_read) are not supported by nnir");
  EXPECT_EQ(exprError("fn [A](%x: A) { %x }"),
            "1:4: type parameters are not supported by nnir");
  EXPECT_EQ(exprError("add(let %x = 1; %x, 2)"), "<parsed>");
  EXPECT_EQ(exprError("add(1, 2) + let"),
            "1:13: let is not allowed here; wrap it in parentheses");
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, Types) {
  Ref<Type> t = type("Tensor[(1, 3, 224, 224), float32]");
  const auto *tensor = cast<TensorType>(t.get());
  EXPECT_EQ(tensor->getShape(), ArrayRef<int64_t>({1, 3, 224, 224}));
  EXPECT_EQ(tensor->getDType(), DataType::float32());
  EXPECT_EQ(type("Tensor[(3), float32]")->str(), "Tensor[(3), float32]");
  EXPECT_EQ(type("Tensor[(3,), int8]")->str(), "Tensor[(3), int8]");
  EXPECT_EQ(type("Tensor[(224i64, 3i16), uint8]")->str(),
            "Tensor[(224, 3), uint8]");
  EXPECT_EQ(cast<TensorType>(type("Tensor[(), float32]").get())->getRank(), 0u);
  EXPECT_EQ(type("float32")->str(), "float32");
  EXPECT_EQ(type("bool")->str(), "bool");
  EXPECT_EQ(type("bfloat16")->str(), "bfloat16");
  EXPECT_EQ(type("int8")->str(), "int8");
  EXPECT_EQ(type("Tensor[(0, 2), bfloat16]")->str(),
            "Tensor[(0, 2), bfloat16]");
  EXPECT_EQ(type("(int32, Tensor[(2), bool])")->str(),
            "(int32, Tensor[(2), bool])");
  EXPECT_EQ(cast<TupleType>(type("(int32,)").get())->size(), 1u);
  // As in TVM, a parenthesised type is a 1-tuple.
  EXPECT_EQ(cast<TupleType>(type("(int32)").get())->size(), 1u);
  EXPECT_EQ(cast<TupleType>(type("()").get())->size(), 0u);
  EXPECT_EQ(type("fn (int32, float32) -> (bool,)")->str(),
            "fn (int32, float32) -> (bool,)");
  EXPECT_EQ(type("fn () -> fn (int8) -> int8")->str(),
            "fn () -> fn (int8) -> int8");
  EXPECT_TRUE(isa<IncompleteType>(type("_").get()));
  // Relay's `Any`: a dynamic extent, printed back as `?`.
  Ref<Type> dyn = type("Tensor[(?, 3, ?), float32]");
  EXPECT_EQ(cast<TensorType>(dyn.get())->getShape(),
            ArrayRef<int64_t>({kAnyDim, 3, kAnyDim}));
  EXPECT_TRUE(cast<TensorType>(dyn.get())->isDynamic());
  EXPECT_EQ(dyn->str(), "Tensor[(?, 3, ?), float32]");
  EXPECT_EQ(type("Tensor[(?,), int8]")->str(), "Tensor[(?), int8]");
  EXPECT_TRUE(typesEqual(dyn.get(), type("Tensor[(?, 3, ?), float32]").get()));
  EXPECT_EQ(hashType(dyn.get()),
            hashType(type("Tensor[(?, 3, ?), float32]").get()));
  EXPECT_FALSE(typesEqual(dyn.get(), type("Tensor[(2, 3, 4), float32]").get()));
  EXPECT_TRUE(
      typesCompatible(dyn.get(), type("Tensor[(2, 3, 4), float32]").get()));
  EXPECT_FALSE(
      typesCompatible(dyn.get(), type("Tensor[(2, 4, 4), float32]").get()));
  EXPECT_FALSE(typesCompatible(dyn.get(), type("Tensor[(2, 3), float32]").get()));
  EXPECT_EQ(type("  /* c */ int64")->getLoc().getPointer() -
                sm.getMemoryBuffer(sm.getNumBuffers())->getBufferStart(),
            10);
}

TEST_F(ParserTest, TypeErrors) {
  std::string names = DataType::supportedNames().str();
  EXPECT_EQ(typeError("Tensor[(1), float8]"),
            "1:13: unknown dtype 'float8'; expected one of " + names);
  EXPECT_EQ(typeError("int7"),
            "1:1: unknown dtype 'int7'; expected one of " + names);
  EXPECT_EQ(typeError("Tensor[(2), int8x4]"),
            "1:13: unknown dtype 'int8x4'; expected one of " + names);
  EXPECT_EQ(typeError("List[int32]"),
            "1:1: unknown type 'List'; nnir supports tensor, tuple and "
            "function types (ADTs and type variables are not supported)");
  EXPECT_EQ(typeError("?"), "1:1: '?' is a dynamic dimension, not a type; "
                            "write Tensor[(?, ...), dtype]");
  EXPECT_EQ(typeError("Tensor[(1, ?\?), float32]"), "1:13: expected ',' or ')'");
  EXPECT_EQ(typeError("Tensor[(meta[tir.SizeVar][0]), float32]"),
            "1:9: symbolic dimensions are not supported by nnir");
  EXPECT_EQ(typeError("Tensor[(2, -1), float32]"),
            "1:12: negative dimension -1 in tensor shape");
  EXPECT_EQ(typeError("Tensor[(4294967296, 4294967296, 4294967296), int8]"),
            "1:1: tensor shape has more than 2^63-1 elements");
  EXPECT_EQ(typeError("Tensor[(99999999999999999999), int8]"),
            "1:9: integer literal '99999999999999999999' is out of range");
  EXPECT_EQ(typeError("ref(int32)"),
            "1:1: reference types are not supported by nnir");
  EXPECT_EQ(typeError("fn [A](A) -> A"),
            "1:4: type parameters are not supported by nnir");
  EXPECT_EQ(typeError("Tensor[(1) float32]"), "1:12: expected ',' after the "
                                              "shape");
  EXPECT_EQ(typeError("Tensor[1, float32]"),
            "1:8: expected '(' to start the shape");
  EXPECT_EQ(typeError("fn (int32)"), "1:11: expected '->' and the result type");
  EXPECT_EQ(typeError("int32 int32"),
            "1:7: expected end of file after the type");
  EXPECT_EQ(typeError(""), "1:1: unexpected end of file; expected a type");
}

//===----------------------------------------------------------------------===//
// Inline constants
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, DenseConstants) {
  Ref<Expr> e = expr("dense<[[1, 2, 3], [4, 5, 6]]> : Tensor[(2, 3), int8]");
  const auto *c = cast<Constant>(e.get());
  EXPECT_EQ(c->getType()->str(), "Tensor[(2, 3), int8]");
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(c->getData().getElementAsInt(i), i + 1);
  EXPECT_EQ(where(c), "1:1");

  // A splat fills any shape.
  e = expr("dense<1.5> : Tensor[(2, 2), float16]");
  c = cast<Constant>(e.get());
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(c->getData().getElementAsDouble(i), 1.5);
  EXPECT_EQ(cast<Constant>(expr("dense<7> : Tensor[(0, 5), int32]").get())
                ->getData()
                .getNumElements(),
            0);
  // A bare dtype is 0-d.
  e = expr("dense<3> : uint8");
  EXPECT_TRUE(cast<Constant>(e.get())->isScalar());
  EXPECT_EQ(scalarValue(e.get()), 3);

  // Bools, float specials, bfloat16, uint64, empty lists.
  e = expr("dense<[True, False, 1, 0]> : Tensor[(4), bool]");
  EXPECT_EQ(cast<Constant>(e.get())->getData().getElementAsInt(0), 1);
  EXPECT_EQ(cast<Constant>(e.get())->getData().getElementAsInt(1), 0);
  e = expr("dense<[nan, inf, -inf, nanf, -inff, 1e+10, 2.5f16, 3]> : "
           "Tensor[(8), float32]");
  const NDArray &f = cast<Constant>(e.get())->getData();
  EXPECT_TRUE(std::isnan(f.getElementAsDouble(0)));
  EXPECT_EQ(f.getElementAsDouble(1), INFINITY);
  EXPECT_EQ(f.getElementAsDouble(2), -INFINITY);
  EXPECT_TRUE(std::isnan(f.getElementAsDouble(3)));
  EXPECT_EQ(f.getElementAsDouble(4), -INFINITY);
  EXPECT_EQ(f.getElementAsDouble(5), 1e10);
  EXPECT_EQ(f.getElementAsDouble(6), 2.5);
  EXPECT_EQ(f.getElementAsDouble(7), 3);
  e = expr("dense<[1.5, -2]> : Tensor[(2), bfloat16]");
  EXPECT_EQ(cast<Constant>(e.get())->getData().getElementAsDouble(0), 1.5);
  e = expr("dense<[18446744073709551615, 0]> : Tensor[(2), uint64]");
  EXPECT_EQ(uint64_t(cast<Constant>(e.get())->getData().getElementAsInt(0)),
            UINT64_MAX);
  e = expr("dense<[[], []]> : Tensor[(2, 0), int32]");
  EXPECT_EQ(cast<Constant>(e.get())->getData().getNumElements(), 0);
  e = expr("dense<[-128, 127, 2.0]> : Tensor[(3), int8]");
  EXPECT_EQ(cast<Constant>(e.get())->getData().getElementAsInt(0), -128);
  e = expr("dense<[-9223372036854775808, 65535]> : Tensor[(2), int64]");
  EXPECT_EQ(cast<Constant>(e.get())->getData().getElementAsInt(0), INT64_MIN);
}

TEST_F(ParserTest, DenseConstantErrors) {
  EXPECT_EQ(exprError("dense<[1, 2, 3]> : Tensor[(2), int32]"),
            "1:7: expected 2 elements in dimension 0 of Tensor[(2), int32], "
            "got 3");
  EXPECT_EQ(exprError("dense<[[1, 2], [3]]> : Tensor[(2, 2), int32]"),
            "1:16: expected 2 elements in dimension 1 of Tensor[(2, 2), "
            "int32], got 1");
  EXPECT_EQ(exprError("dense<[1, 2]> : Tensor[(2, 1), int32]"),
            "1:8: expected a list for dimension 1 of Tensor[(2, 1), int32], "
            "got a scalar");
  // Several mismatches: the first in the source is reported.
  EXPECT_EQ(exprError("dense<[1, 2]> : Tensor[(1, 2), int32]"),
            "1:7: expected 1 elements in dimension 0 of Tensor[(1, 2), "
            "int32], got 2");
  EXPECT_EQ(exprError("dense<[[1]]> : Tensor[(1), int32]"),
            "1:8: dense literal is nested deeper than its type Tensor[(1), "
            "int32] (rank 1)");
  EXPECT_EQ(exprError("dense<[1]> : int32"),
            "1:7: dense literal is nested deeper than its type int32 (rank 0)");
  EXPECT_EQ(exprError("dense<[1, 1.5]> : Tensor[(2), int32]"),
            "1:11: value 1.5 is not an integer (int32 dense literal)");
  EXPECT_EQ(exprError("dense<[1, 128]> : Tensor[(2), int8]"),
            "1:11: value 128 is out of range for int8");
  EXPECT_EQ(exprError("dense<-1> : Tensor[(2), uint8]"),
            "1:7: value -1 is out of range for uint8");
  EXPECT_EQ(exprError("dense<[256]> : Tensor[(1), uint8]"),
            "1:8: value 256 is out of range for uint8");
  EXPECT_EQ(exprError("dense<[18446744073709551615]> : Tensor[(1), int64]"),
            "1:8: value 18446744073709551615 is out of range for int64");
  EXPECT_EQ(exprError("dense<inf> : int32"),
            "1:7: value inf is not an integer (int32 dense literal)");
  EXPECT_EQ(exprError("dense<2> : bool"),
            "1:7: value 2 is not a valid bool; expected True, False, 0 or 1");
  EXPECT_EQ(exprError("dense<1.0> : bool"),
            "1:7: value 1.0 is not a valid bool; expected True, False, 0 or 1");
  EXPECT_EQ(exprError("dense<1e6> : float16"),
            "1:7: value 1e6 is out of range for float16");
  EXPECT_EQ(exprError("dense<1> : (int32,)"),
            "1:12: a dense literal needs a tensor type, got (int32,)");
  EXPECT_EQ(exprError("dense<1>"),
            "1:9: expected ':' and the type of the dense literal");
  EXPECT_EQ(exprError("dense<foo> : int32"),
            "1:7: expected a number, True or False in the dense literal");
  EXPECT_EQ(exprError("dense<[1 2]> : Tensor[(2), int32]"),
            "1:10: expected ',' or ']'");
}

TEST_F(ParserTest, ConstantSizeLimit) {
  ParserOptions options;
  options.maxConstantBytes = 16;
  EXPECT_TRUE(expr("dense<1> : Tensor[(4), float32]", options));
  EXPECT_EQ(exprError("dense<1> : Tensor[(5), float32]", options),
            "1:1: constant of 20 bytes exceeds the limit of 16 bytes");
  // Checked before allocating: a splat over a huge shape fails fast.
  EXPECT_EQ(exprError("dense<0> : Tensor[(1000000000, 1000000000), int8]"),
            "1:1: constant of 1000000000000000000 bytes exceeds the limit of "
            "4294967296 bytes");
  options.maxConstantBytes = 2;
  EXPECT_EQ(exprError("1", options),
            "1:1: constant of 4 bytes exceeds the limit of 2 bytes");
  EXPECT_TRUE(expr("1i16", options));
}

//===----------------------------------------------------------------------===//
// Metadata references
//===----------------------------------------------------------------------===//

/// A module text whose metadata section holds \p constants.
std::string withMetadata(StringRef body, ArrayRef<const Constant *> constants) {
  return (body + "\n#[metadata]\n" + encodeMetadata(constants)).str();
}

TEST_F(ParserTest, MetaReferencesResolveToConstants) {
  NDArray a = cantFail(NDArray::create(DataType::float32(), {2, 2}));
  a.setElementFromDouble(3, 7.0);
  NDArray b = cantFail(NDArray::create(DataType::int8(), {3}));
  Ref<Constant> ca = Constant::get(a), cb = Constant::get(b);
  std::string text = withMetadata(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = add(%x, meta[relay.Constant][0] /* ty=Tensor[(2, 2), float32] */);
  (%0, meta[relay.Constant][1], meta[relay.Constant][0])
}
)",
                                  {ca.get(), cb.get()});
  Ref<IRModule> m = module(text);
  ASSERT_TRUE(m);
  const auto *tuple = cast<Tuple>(m->lookup("main")->getBody().get());
  const Call *add = asOpCall(tuple->getField(0).get(), "add");
  ASSERT_TRUE(add);
  const auto *c0 = cast<Constant>(add->getArg(1).get());
  EXPECT_TRUE(c0->getData().bitwiseEqual(a));
  EXPECT_EQ(where(c0), "3:16");
  // Every reference to one entry is the same node.
  EXPECT_EQ(tuple->getField(2).get(), c0);
  EXPECT_TRUE(
      cast<Constant>(tuple->getField(1).get())->getData().bitwiseEqual(b));

  // In an expression and in an attribute value.
  Expected<Ref<Expr>> e =
      parseExpr(withMetadata("fn (%x, c=meta[relay.Constant][1]) { %x }",
                             {ca.get(), cb.get()}),
                sm);
  ASSERT_TRUE(bool(e)) << render(e.takeError());
  const AttrValue *attr = cast<Function>(e->get())->getAttr("c");
  ASSERT_EQ(attr->getKind(), AttrValue::Kind::Expr);
  EXPECT_TRUE(cast<Constant>(attr->getExpr())->getData().bitwiseEqual(b));

  // A metadata section nobody refers to is still checked.
  EXPECT_TRUE(module(withMetadata("def @f() { 1 }", {ca.get()})));
}

TEST_F(ParserTest, ParsesTVMsPrintedReferenceExample) {
  // tvm-text-format-and-ops.md section 1.7: mod.astext() of add/multiply
  // with a (1, 3) ones constant in the metadata section.
  NDArray ones = cantFail(NDArray::create(DataType::float32(), {1, 3}));
  for (int i = 0; i < 3; ++i)
    ones.setElementFromDouble(i, 1.0);
  Ref<Constant> c = Constant::get(ones);
  std::string text = withMetadata(
      R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3), float32] /* ty=Tensor[(1, 3), float32] */) -> Tensor[(1, 3), float32] {
  %0 = add(%x, meta[relay.Constant][0] /* ty=Tensor[(1, 3), float32] */) /* ty=Tensor[(1, 3), float32] */;
  multiply(%0, 2f /* ty=float32 */) /* ty=Tensor[(1, 3), float32] */
}
)",
      {c.get()});
  Ref<IRModule> m = module(text);
  ASSERT_TRUE(m);
  const Call *mul = asOpCall(m->lookup("main")->getBody().get(), "multiply");
  ASSERT_TRUE(mul);
  EXPECT_EQ(scalarValue(mul->getArg(1).get()), 2.0);
  const Call *add = asOpCall(mul->getArg(0).get(), "add");
  ASSERT_TRUE(add);
  EXPECT_TRUE(
      cast<Constant>(add->getArg(1).get())->getData().bitwiseEqual(ones));
}

TEST_F(ParserTest, MetaReferenceErrors) {
  NDArray a = cantFail(NDArray::create(DataType::float32(), {2}));
  Ref<Constant> ca = Constant::get(a);
  EXPECT_EQ(moduleError("def @f() {\n  meta[relay.Constant][0]\n}"),
            "2:3: meta[relay.Constant][0] refers to the metadata section, but "
            "there is none");
  EXPECT_EQ(moduleError(withMetadata("def @f() {\n  meta[relay.Constant][1]\n}",
                                     {ca.get()})),
            "2:3: meta[relay.Constant][1] is out of range: the metadata "
            "section has 1 relay.Constant entries");
  EXPECT_EQ(moduleError(withMetadata("def @f() {\n  meta[relay.Foo][0]\n}",
                                     {ca.get()})),
            "2:3: the metadata section has no 'relay.Foo' entries");
  EXPECT_EQ(moduleError("def @f() { meta[relay.Constant] }"),
            "1:12: malformed meta reference; expected meta[TYPE_KEY][INDEX]");
  // A corrupt section is reported at its `#[metadata]` token, also when the
  // reference comes first.
  std::string text =
      withMetadata("def @f() {\n  meta[relay.Constant][0]\n}", {ca.get()});
  std::string corrupt = text.substr(0, text.size() - 20);
  EXPECT_EQ(moduleError(corrupt).substr(0, 47),
            "4:1: invalid metadata section: malformed JSON: ");
  EXPECT_EQ(moduleError("def @f() { 1 }\n#[metadata]\n{\"root\": 3}"),
            "2:1: invalid metadata section: missing array field 'nodes'");
  // A lexer error between the reference and the section is reported.
  EXPECT_EQ(moduleError(withMetadata("def @f() { meta[relay.Constant][0] }\n$",
                                     {ca.get()})),
            "2:1: unexpected character '$'");
  // The constant size limit applies to metadata constants.
  ParserOptions options;
  options.maxConstantBytes = 4;
  EXPECT_EQ(moduleError(text, options),
            "4:1: invalid metadata section: relay.Constant node 3: "
            "b64ndarrays[0]: constant of 8 bytes exceeds the limit of 4 bytes");
}

//===----------------------------------------------------------------------===//
// Robustness
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, DeepNestingIsAnErrorNotACrash) {
  std::string parens(100000, '(');
  EXPECT_EQ(exprError(parens + "1" + std::string(100000, ')')),
            "1:1001: nesting too deep (limit 1000)");
  EXPECT_EQ(exprError(parens), "1:1001: nesting too deep (limit 1000)");
  std::string calls;
  for (int i = 0; i < 100000; ++i)
    calls += "nn.relu(";
  EXPECT_EQ(exprError(calls), "1:8008: nesting too deep (limit 1000)");
  EXPECT_EQ(typeError(std::string(100000, '(')),
            "1:1001: nesting too deep (limit 1000)");
  EXPECT_EQ(exprError("fn (%x, a=" + std::string(100000, '[') + ") { %x }"),
            "1:1010: nesting too deep (limit 1000)");
  EXPECT_EQ(exprError("dense<" + std::string(100000, '[') + "> : int8"),
            "1:1007: nesting too deep (limit 1000)");
  std::string fns;
  for (int i = 0; i < 100000; ++i)
    fns += "fn () { ";
  EXPECT_EQ(exprError(fns), "1:8001: nesting too deep (limit 1000)");
  std::string ifs;
  for (int i = 0; i < 100000; ++i)
    ifs += "if (True) { ";
  EXPECT_EQ(exprError(ifs), "1:12001: nesting too deep (limit 1000)");
  std::string blocks(100000, '{');
  EXPECT_EQ(exprError(blocks), "1:1001: nesting too deep (limit 1000)");
  // The limit is an option; up to it, nesting works.
  ParserOptions options;
  options.maxNestingDepth = 10;
  EXPECT_TRUE(expr(std::string(10, '(') + "1" + std::string(10, ')'), options));
  EXPECT_EQ(
      exprError(std::string(11, '(') + "1" + std::string(11, ')'), options),
      "1:11: nesting too deep (limit 10)");
}

TEST_F(ParserTest, MillionBindingChainParses) {
  const int n = 1000000;
  std::string text = "def @main(%x: Tensor[(2), float32]) {\n  %0 = add(%x, "
                     "%x);\n";
  text.reserve(n * 32);
  for (int i = 1; i < n; ++i)
    text += "  %" + std::to_string(i) + " = add(%" + std::to_string(i - 1) +
            ", %x);\n";
  text += "  %" + std::to_string(n - 1) + "\n}\n";
  Ref<IRModule> m = module(text);
  ASSERT_TRUE(m);
  // Walk the chain back to the parameter.
  const Expr *e = m->lookup("main")->getBody().get();
  int length = 0;
  while (const Call *call = asOpCall(e, "add")) {
    e = call->getArg(0).get();
    ++length;
  }
  EXPECT_EQ(length, n);
  EXPECT_EQ(e, m->lookup("main")->getParam(0).get());
}

TEST_F(ParserTest, MillionLetChainParses) {
  const int n = 1000000;
  std::string text = "free_var %x;\n";
  text.reserve(n * 40);
  for (int i = 0; i < n; ++i)
    text += "let %v" + std::to_string(i) + " = %x; ";
  text += "%x";
  Ref<Expr> e = expr(text);
  ASSERT_TRUE(e);
  int length = 0;
  const Expr *node = e.get();
  while (const auto *let = dyn_cast<Let>(node)) {
    node = let->getBody().get();
    ++length;
  }
  EXPECT_EQ(length, n);
}

TEST_F(ParserTest, ArbitraryBytesNeverCrash) {
  // A deterministic byte soup, with fragments of real syntax mixed in.
  const char *fragments[] = {"def @f(",
                             "%x",
                             ")",
                             "{",
                             "}",
                             "add(",
                             ",",
                             "dense<[",
                             "]>",
                             ": float32",
                             "meta[relay.Constant][0]",
                             "#[metadata]",
                             "\"str",
                             "/*",
                             "1.5f",
                             "fn",
                             "let %y = ",
                             ";",
                             "(",
                             "\xff",
                             "\r"};
  uint32_t state = 12345;
  auto next = [&]() {
    state = state * 1103515245 + 12345;
    return state >> 8;
  };
  for (int round = 0; round < 300; ++round) {
    std::string text;
    int pieces = next() % 40;
    for (int i = 0; i < pieces; ++i) {
      if (next() % 3 == 0)
        text += char(next() & 0xff);
      else
        text += fragments[next() % std::size(fragments)];
    }
    Expected<Ref<IRModule>> m = parseModule(text, sm, "fuzz");
    if (!m)
      consumeError(m.takeError());
    Expected<Ref<Expr>> e = parseExpr(text, sm, "fuzz");
    if (!e)
      consumeError(e.takeError());
  }
}

} // namespace
