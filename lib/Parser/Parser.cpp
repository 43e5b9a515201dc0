//===- Parser.cpp - Relay text format parser ------------------------------===//
//
/// \file
/// A recursive-descent parser for the Relay text format v0.0.5 (TVM's
/// src/relay/parser/parser.cc) producing nnir IR, plus nnir's `dense<...>`
/// inline constants.
///
/// Recursion follows syntactic nesting only (parentheses, tuples, calls,
/// `fn`, `if`, blocks, types, attribute lists, dense brackets), and each of
/// those levels passes a DepthGuard bounded by ParserOptions::maxNestingDepth.
/// Binding sequences (`%0 = ...; %1 = ...;`, `let` chains, `e1; e2`) and
/// infix chains are parsed in loops, so a 1,000,000-binding function parses
/// with constant stack in linear time. Scopes are a single undo log over two
/// hash maps (local names, graph numbers), so lookups stay O(1) however many
/// bindings are live.
///
/// The first error stops parsing: it is recorded and every caller unwinds.
//
//===----------------------------------------------------------------------===//

#include "nnir/Parser/Parser.h"

#include "Lexer.h"

#include "nnir/IR/Metadata.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Printer.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Support/Numbers.h"
#include "nnir/Support/Suggestions.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

using namespace llvm;
using namespace nnir;

namespace {

enum class ParseMode { Module, Expr, Type };

class Parser {
public:
  Parser(StringRef buffer, const ParserOptions &options, ParseMode mode)
      : lexer(buffer), options(options), mode(mode),
        denseGraphLimit(buffer.size() / 8 + 1024) {}

  Expected<Ref<IRModule>> parseModuleTop();
  Expected<Ref<Expr>> parseExprTop();
  Expected<Ref<Type>> parseTypeTop();

private:
  //===--------------------------------------------------------------------===//
  // Tokens and errors
  //===--------------------------------------------------------------------===//

  /// Advances to the next token; a lexer error is reported at once.
  LLVM_ATTRIBUTE_NOINLINE void consume() {
    tok = lexer.lex();
    if (tok.is(TokenKind::Error))
      emitError(tok.getLoc(), tok.text);
  }
  bool consumeIf(TokenKind kind) {
    if (tok.isNot(kind))
      return false;
    consume();
    return true;
  }
  /// Consumes a token of \p kind or reports "expected <what>".
  bool expect(TokenKind kind, StringRef what = "") {
    if (tok.is(kind)) {
      consume();
      return true;
    }
    return emitExpected(kind, what);
  }
  LLVM_ATTRIBUTE_NOINLINE bool emitExpected(TokenKind kind, StringRef what) {
    return emitError(tok.getLoc(),
                     "expected " +
                         (what.empty() ? getTokenKindName(kind) : what));
  }
  /// The kind of the \p n-th token after the current one (lexed on a copy
  /// of the lexer, so nothing is consumed).
  LLVM_ATTRIBUTE_NOINLINE TokenKind peekKind(unsigned n = 1) const {
    Lexer copy = lexer;
    Token t;
    for (unsigned i = 0; i < n; ++i)
      t = copy.lex();
    return t.kind;
  }

  /// Records the first error; always returns false.
  LLVM_ATTRIBUTE_NOINLINE bool emitError(SMLoc loc, const Twine &message) {
    if (!failed) {
      failed = true;
      errorLoc = loc;
      errorMessage = message.str();
    }
    return false;
  }
  /// Records \p err (a DiagnosticError keeps its location; others get
  /// \p fallback).
  LLVM_ATTRIBUTE_NOINLINE bool emitError(Error err, SMLoc fallback) {
    handleAllErrors(
        std::move(err),
        [&](const DiagnosticError &diag) {
          emitError(diag.getLoc().isValid() ? diag.getLoc() : fallback,
                    diag.getMessage());
        },
        [&](const ErrorInfoBase &info) {
          emitError(fallback, info.message());
        });
    return false;
  }
  /// Reports an unexpected token: "unexpected end of file" at the end,
  /// "expected <what>" elsewhere.
  LLVM_ATTRIBUTE_NOINLINE bool emitUnknownInfixOp(StringRef name) {
    return emitError(tok.getLoc(), "unknown operator '" + name + "'");
  }
  LLVM_ATTRIBUTE_NOINLINE bool emitUnexpected(StringRef what) {
    if (tok.is(TokenKind::Eof))
      return emitError(tok.getLoc(),
                       "unexpected end of file; expected " + what);
    return emitError(tok.getLoc(), "expected " + what);
  }
  Error takeError() { return makeError(errorLoc, errorMessage); }
  /// The error of a DepthGuard (out of line: its Twines would otherwise sit
  /// in every recursive frame).
  LLVM_ATTRIBUTE_NOINLINE bool emitNestingError(SMLoc loc) {
    return emitError(loc, "nesting too deep (limit " +
                              Twine(options.maxNestingDepth) + ")");
  }

  /// The name of a GlobalVar token (`@main`, `@"has space"`).
  static StringRef getGlobalName(const Token &t) {
    return t.quoted ? StringRef(t.text) : t.name;
  }

  /// Bounds syntactic recursion.
  class DepthGuard {
  public:
    DepthGuard(Parser &parser, SMLoc loc) : parser(parser) {
      ok = ++parser.depth <= parser.options.maxNestingDepth;
      if (!ok)
        parser.emitNestingError(loc);
    }
    ~DepthGuard() { --parser.depth; }
    explicit operator bool() const { return ok; }

  private:
    Parser &parser;
    bool ok;
  };

  //===--------------------------------------------------------------------===//
  // Scopes
  //===--------------------------------------------------------------------===//

  /// One per binding in scope, so it is kept to 32 bytes.
  struct Binding {
    static Binding local(StringRef name, Ref<Expr> value, unsigned scope,
                         int64_t shadowed) {
      Binding b{std::move(value), {}, uint32_t(name.size()), scope, false,
                shadowed};
      b.key.nameData = name.data();
      return b;
    }
    static Binding graph(uint64_t number, Ref<Expr> value, unsigned scope,
                         int64_t shadowed) {
      Binding b{std::move(value), {}, 0, scope, true, shadowed};
      b.key.number = number;
      return b;
    }
    /// A let or parameter's name (the text outlives the parser).
    StringRef getName() const { return StringRef(key.nameData, nameSize); }

    Ref<Expr> value;
    union {
      const char *nameData;
      /// `%N`'s N.
      uint64_t number;
    } key;
    uint32_t nameSize;
    /// The scope depth the binding was made at.
    unsigned scope : 31;
    unsigned isGraph : 1;
    /// The binding it shadows (an index into bindings), or -1.
    int64_t shadowed;
  };
  static_assert(sizeof(Binding) == 32, "one per binding: keep it small");

  void pushScope() { scopeMarks.push_back(bindings.size()); }
  void popScope() {
    size_t mark = scopeMarks.pop_back_val();
    while (bindings.size() > mark) {
      Binding &b = bindings.back();
      if (b.isGraph) {
        setGraphBinding(b.key.number, b.shadowed);
      } else {
        if (b.shadowed >= 0)
          localIndex[b.getName()] = b.shadowed;
        else
          localIndex.erase(b.getName());
      }
      bindings.pop_back();
    }
  }
  void bindLocal(StringRef name, Ref<Var> var) {
    auto it = localIndex.find(name);
    int64_t shadowed = it == localIndex.end() ? -1 : int64_t(it->second);
    localIndex[name] = bindings.size();
    bindings.push_back(Binding::local(name, std::move(var),
                                      scopeMarks.size(), shadowed));
  }
  bool bindGraph(const Token &nameTok, Ref<Expr> value) {
    int64_t shadowed = findGraphBinding(nameTok.number);
    if (shadowed >= 0 && bindings[shadowed].scope == scopeMarks.size())
      return emitError(nameTok.getLoc(), nameTok.spelling +
                                             " is already defined in this "
                                             "scope");
    setGraphBinding(nameTok.number, bindings.size());
    bindings.push_back(Binding::graph(nameTok.number, std::move(value),
                                      scopeMarks.size(), shadowed));
    return true;
  }

  /// The binding of `%N` in scope (an index into bindings), or -1.
  int64_t findGraphBinding(uint64_t number) const {
    if (number < denseGraphLimit)
      return number < graphSlots.size() ? graphSlots[number] : -1;
    auto it = graphIndex.find(number);
    return it == graphIndex.end() ? -1 : int64_t(it->second);
  }
  /// Makes \p index (-1: none) the binding of `%N`.
  void setGraphBinding(uint64_t number, int64_t index) {
    if (number < denseGraphLimit) {
      if (number >= graphSlots.size()) {
        if (index < 0)
          return;
        graphSlots.resize(
            std::min<uint64_t>(
                std::max<uint64_t>(number + 1, 2 * graphSlots.size()),
                denseGraphLimit),
            -1);
      }
      graphSlots[number] = index;
      return;
    }
    if (index < 0)
      graphIndex.erase(number);
    else
      graphIndex[number] = index;
  }

  //===--------------------------------------------------------------------===//
  // Grammar
  //===--------------------------------------------------------------------===//

  // The functions on the recursion path (parseExprSeq -> parseBinExpr ->
  // parseCallExpr -> parseAtomic -> parseTupleOrParens / parseIf / ...) keep
  // small frames: everything bulky that does not recurse (literals, names,
  // infix chains, tuple tails, building the result, diagnostics) is kept out
  // of line, so the nesting limit fits well within the default stack, also
  // under AddressSanitizer, whose frames give every temporary its own slot
  // (about 2.5 KB per level of parentheses there, under 1 KB without).
  bool parseDefinition();
  Ref<Function> parseFunctionRest(SMLoc loc);
  /// What comes before a function's body.
  struct FunctionHead {
    SmallVector<Ref<Var>, 4> params;
    std::vector<NamedAttrValue> attrs;
    Ref<Type> retType;
  };
  LLVM_ATTRIBUTE_NOINLINE bool parseFunctionHead(FunctionHead &head);
  LLVM_ATTRIBUTE_NOINLINE Ref<Function>
  finishFunction(FunctionHead &head, Ref<Expr> body, SMLoc loc);
  LLVM_ATTRIBUTE_NOINLINE Ref<Var> parseParam(StringSet<> &paramNames);
  struct SeqItem {
    Ref<Var> var; // null for `e;` sequencing
    Ref<Expr> value;
    SMLoc loc;
  };
  Ref<Expr> parseExprSeq();
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr>
  finishExprSeq(SmallVector<SeqItem, 0> &items, Ref<Expr> result);
  LLVM_ATTRIBUTE_NOINLINE bool parseGraphBinding();
  LLVM_ATTRIBUTE_NOINLINE bool parseLetBinding(SmallVector<SeqItem, 0> &items);
  LLVM_ATTRIBUTE_NOINLINE Ref<Var> parseLetHead();
  LLVM_ATTRIBUTE_NOINLINE bool finishLetBinding(SmallVector<SeqItem, 0> &items,
                                                Ref<Var> var, Ref<Expr> value,
                                                SMLoc loc);
  Ref<Expr> parseBraceBody();
  LLVM_ATTRIBUTE_NOINLINE bool parseFreeVar();
  Ref<Expr> parseBinExpr();
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseInfixRest(Ref<Expr> first);
  Ref<Expr> parseCallExpr();
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseCallArgs(Ref<Expr> callee, SMLoc loc);
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr>
  buildCall(Ref<Expr> callee, ArrayRef<Ref<Expr>> args,
            std::vector<NamedAttrValue> kwargs, SMLoc loc);
  Ref<Expr> parseAtomic();
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseAtomicLeaf();
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseAtomicError();
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseTupleGetItem(Ref<Expr> tuple,
                                                      SMLoc loc);
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseTupleOrParens();
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseTupleRest(Ref<Expr> first, SMLoc loc);
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseIf();
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseOpName();
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseLocalVar();
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseGraphVar();
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseGlobalVar();
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseScalarLiteral();
  /// The bits of float literal \p t as a value of the float type \p dtype:
  /// its decimal digits rounded once, to nearest even; a NaN's significand
  /// read in \p dtype. Reports a value that rounds past the largest finite
  /// one (`65520f16`).
  bool getFloatBits(const Token &t, DataType dtype, uint64_t &bits);
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseMetaRef();
  LLVM_ATTRIBUTE_NOINLINE bool checkDottedName(const Token &nameTok);

  LLVM_ATTRIBUTE_NOINLINE bool isKeywordArgStart() const;
  bool parseKeywordArgs(std::vector<NamedAttrValue> &kwargs);
  bool parseAttrValue(AttrValue &out);
  LLVM_ATTRIBUTE_NOINLINE bool parseAttrArray(AttrValue &out, SMLoc loc);
  LLVM_ATTRIBUTE_NOINLINE bool parseAttrLeaf(AttrValue &out, SMLoc loc);
  LLVM_ATTRIBUTE_NOINLINE Ref<DictAttrs>
  makeDictAttrs(std::vector<NamedAttrValue> kwargs, StringRef owner);

  Ref<Type> parseType();
  LLVM_ATTRIBUTE_NOINLINE Ref<Type> parseTensorType();
  LLVM_ATTRIBUTE_NOINLINE Ref<Type> parseNamedType();
  bool parseShape(Shape &shape);
  std::optional<DataType> parseDType(const Token &nameTok);

  // Inline constants.
  struct DenseScalar {
    enum Kind : uint8_t { Int, Float, Bool } kind;
    /// Int: the value does not fit int64; intValue holds uint64 bits.
    bool big = false;
    /// Int / Float: written with a minus sign (`-0` is -0.0 in a float
    /// tensor).
    bool negative = false;
    unsigned depth = 0;
    /// Int (with its sign) and Bool.
    int64_t intValue = 0;
    /// Float: the value as a float64 (for integer element types).
    double floatValue = 0;
    /// Int / Float: the number's text without sign (`1.5`, `inf`, `nan`)
    /// and a NaN's significand digits, read in the element type of a float
    /// tensor.
    StringRef numberText;
    StringRef nanPayload;
    SMLoc loc;
  };
  struct DenseList {
    unsigned depth;
    uint64_t count;
    SMLoc loc;
  };
  struct DenseElements {
    std::vector<DenseScalar> scalars;
    std::vector<DenseList> lists;
  };
  LLVM_ATTRIBUTE_NOINLINE Ref<Expr> parseDense();
  bool parseDenseElements(DenseElements &elems, unsigned depth);
  LLVM_ATTRIBUTE_NOINLINE bool parseDenseScalar(DenseElements &elems,
                                                unsigned depth);
  bool checkDenseStructure(const DenseElements &elems, const TensorType &type);
  bool storeDenseScalar(NDArray &array, int64_t index, const DenseScalar &s);
  static std::string describeScalar(const DenseScalar &s);
  /// Checks a constant against ParserOptions::maxConstantBytes before it is
  /// allocated; an \p inlineConstant (a literal or `dense<...>`) also counts
  /// towards the total the text may materialise.
  bool checkConstantSize(DataType dtype, ArrayRef<int64_t> shape, SMLoc loc,
                         bool inlineConstant = true);

  // Metadata.
  bool loadMetadata(const Token &metadataTok);
  bool ensureMetadata(const Token &refTok);
  bool checkMetaRef(const Token &refTok);
  /// The constant `meta[relay.Constant][i]` names (an expression position).
  Ref<Constant> resolveMetaRef(const Token &refTok);
  /// The attribute value any supported `meta[K][i]` stands for.
  bool resolveMetaValue(const Token &refTok, AttrValue &out);

  Lexer lexer;
  Token tok;
  const ParserOptions &options;
  ParseMode mode;
  unsigned depth = 0;
  /// Bytes of the inline constants made so far: a splat is a few bytes of
  /// text for up to maxConstantBytes of data, so they are bounded in total.
  uint64_t inlineConstantBytes = 0;

  bool failed = false;
  SMLoc errorLoc;
  std::string errorMessage;

  /// Every binding in scope, innermost last. One buffer, not a deque: the
  /// deque's small blocks sat between the nodes allocated at the same time,
  /// so once freed their memory could not serve the printer's tables.
  SmallVector<Binding, 0> bindings;
  SmallVector<size_t, 16> scopeMarks;
  StringMap<size_t> localIndex;
  /// Graph numbers below denseGraphLimit (TVM's printer numbers from 0 up,
  /// so all of them in practice) find their binding in graphSlots; larger
  /// ones in graphIndex. The limit is proportional to the text's size, so
  /// graphSlots is too, whatever numbers the text uses.
  uint64_t denseGraphLimit;
  SmallVector<int64_t, 0> graphSlots;
  DenseMap<uint64_t, size_t> graphIndex;
  StringMap<Ref<Var>> freeVars;

  struct GlobalInfo {
    Ref<GlobalVar> var;
    SMLoc firstUse;
    bool defined = false;
  };
  StringMap<GlobalInfo> globals;
  std::vector<std::pair<Ref<GlobalVar>, Ref<Function>>> definitions;

  bool metadataSearched = false;
  std::optional<MetadataTable> metadata;
  /// Constants materialised from the table, with the location of the first
  /// reference (later references share the node).
  std::vector<Ref<Constant>> metaConstants;
  /// The array of each scalar literal read so far, by value and dtype.
  DenseMap<std::pair<uint64_t, uint64_t>, NDArray> scalarLiterals;
};

} // namespace

//===----------------------------------------------------------------------===//
// Top level
//===----------------------------------------------------------------------===//

Expected<Ref<IRModule>> Parser::parseModuleTop() {
  consume();
  if (tok.is(TokenKind::Version))
    consume();
  else if (options.requireVersion)
    emitError(tok.getLoc(), "expected '#[version = \"0.0.5\"]'");
  while (!failed) {
    if (tok.is(TokenKind::KwDef)) {
      parseDefinition();
      continue;
    }
    if (tok.is(TokenKind::KwType) || tok.is(TokenKind::KwExtern)) {
      emitError(tok.getLoc(),
                "type definitions (ADTs) are not supported by nnir");
      break;
    }
    break;
  }
  if (!failed && tok.is(TokenKind::Metadata)) {
    if (loadMetadata(tok))
      consume();
  }
  if (!failed && tok.isNot(TokenKind::Eof)) {
    if (tok.is(TokenKind::Version))
      emitError(tok.getLoc(), "the version attribute must come first");
    else if (tok.is(TokenKind::KwFreeVar))
      emitError(tok.getLoc(), "free_var is not allowed in a module: global "
                              "functions cannot have free variables");
    else
      emitError(tok.getLoc(), "expected 'def' or end of file");
  }
  if (failed)
    return takeError();

  // Globals may be used before their definition; check them now.
  const GlobalInfo *firstUndefined = nullptr;
  StringRef undefinedName;
  for (const auto &entry : globals) {
    const GlobalInfo &info = entry.getValue();
    if (info.defined)
      continue;
    if (!firstUndefined ||
        info.firstUse.getPointer() < firstUndefined->firstUse.getPointer()) {
      firstUndefined = &info;
      undefinedName = entry.getKey();
    }
  }
  if (firstUndefined)
    return makeError(firstUndefined->firstUse,
                     "undefined global function " +
                         formatGlobalName(undefinedName));

  Ref<IRModule> module = IRModule::create();
  for (auto &def : definitions)
    if (Error err = module->add(def.first, def.second))
      return err;
  return module;
}

Expected<Ref<Expr>> Parser::parseExprTop() {
  consume();
  if (tok.is(TokenKind::Version))
    consume();
  Ref<Expr> expr = parseExprSeq();
  if (!failed && tok.is(TokenKind::Metadata)) {
    if (loadMetadata(tok))
      consume();
  }
  if (!failed && tok.isNot(TokenKind::Eof))
    emitError(tok.getLoc(), "expected end of file after the expression");
  if (failed)
    return takeError();
  return expr;
}

Expected<Ref<Type>> Parser::parseTypeTop() {
  consume();
  Ref<Type> type = parseType();
  if (!failed && tok.isNot(TokenKind::Eof))
    emitError(tok.getLoc(), "expected end of file after the type");
  if (failed)
    return takeError();
  return type;
}

bool Parser::parseDefinition() {
  SMLoc defLoc = tok.getLoc();
  consume(); // def
  if (tok.isNot(TokenKind::GlobalVar))
    return emitUnexpected("a global function name ('@name') after 'def'");
  StringRef name = getGlobalName(tok);
  SMLoc nameLoc = tok.getLoc();
  GlobalInfo &info = globals[name];
  if (info.defined)
    return emitError(nameLoc, "redefinition of global function " +
                                  formatGlobalName(name));
  if (!info.var) {
    info.var = GlobalVar::get(name, nameLoc);
    info.firstUse = nameLoc;
  }
  info.defined = true;
  Ref<GlobalVar> var = info.var;
  consume();
  Ref<Function> func = parseFunctionRest(defLoc);
  if (!func)
    return false;
  definitions.push_back({var, func});
  return true;
}

/// Parses `(params, attrs) -> T { body }` after `def @name` or `fn`.
Ref<Function> Parser::parseFunctionRest(SMLoc loc) {
  DepthGuard guard(*this, loc);
  if (!guard)
    return nullptr;
  FunctionHead head;
  if (!parseFunctionHead(head))
    return nullptr;
  Ref<Expr> body = parseBraceBody();
  if (!body)
    return nullptr;
  return finishFunction(head, std::move(body), loc);
}

/// `(params, attrs) -> T`, with the parameters bound in a new scope.
bool Parser::parseFunctionHead(FunctionHead &head) {
  if (tok.is(TokenKind::LBracket))
    return emitError(tok.getLoc(), "type parameters are not supported by nnir");
  if (!expect(TokenKind::LParen, "'(' to start the parameter list"))
    return false;
  pushScope();
  StringSet<> paramNames;
  while (tok.isNot(TokenKind::RParen)) {
    if (tok.is(TokenKind::LocalVar)) {
      Ref<Var> param = parseParam(paramNames);
      if (!param)
        return false;
      head.params.push_back(std::move(param));
      if (!consumeIf(TokenKind::Comma))
        break;
      continue;
    }
    if (isKeywordArgStart()) {
      if (!parseKeywordArgs(head.attrs))
        return false;
      break;
    }
    return emitUnexpected("a parameter ('%name'), an attribute or ')'");
  }
  if (!expect(TokenKind::RParen, "',' or ')'"))
    return false;
  if (consumeIf(TokenKind::Arrow)) {
    head.retType = parseType();
    if (!head.retType)
      return false;
  }
  return true;
}

/// Closes the parameters' scope and builds the function.
Ref<Function> Parser::finishFunction(FunctionHead &head, Ref<Expr> body,
                                     SMLoc loc) {
  popScope();
  Ref<DictAttrs> dict;
  if (!head.attrs.empty()) {
    dict = makeDictAttrs(std::move(head.attrs), "the function");
    if (!dict)
      return nullptr;
  }
  return Function::get(head.params, body, head.retType, dict, loc);
}

/// `%x (: T)?`, bound in the current scope.
Ref<Var> Parser::parseParam(StringSet<> &paramNames) {
  Token nameTok = tok;
  consume();
  if (!checkDottedName(nameTok))
    return nullptr;
  if (tok.is(TokenKind::LBrace)) {
    emitError(tok.getLoc(), "virtual_device annotations on parameters are "
                            "not supported by nnir");
    return nullptr;
  }
  Ref<Type> annotation;
  if (consumeIf(TokenKind::Colon)) {
    annotation = parseType();
    if (!annotation)
      return nullptr;
  }
  if (!paramNames.insert(nameTok.name).second) {
    emitError(nameTok.getLoc(), "duplicate parameter " + nameTok.spelling);
    return nullptr;
  }
  Ref<Var> var = Var::get(nameTok.name, annotation, nameTok.getLoc());
  bindLocal(nameTok.name, var);
  return var;
}

/// `{ ExprSeq }`
Ref<Expr> Parser::parseBraceBody() {
  if (!expect(TokenKind::LBrace, "'{'"))
    return nullptr;
  Ref<Expr> body = parseExprSeq();
  if (!body || !expect(TokenKind::RBrace, "'}'"))
    return nullptr;
  return body;
}

//===----------------------------------------------------------------------===//
// Expression sequences and bindings
//===----------------------------------------------------------------------===//

Ref<Expr> Parser::parseExprSeq() {
  // Bindings and `e;` items are collected in source order; the Lets are
  // built from the innermost out once the final expression is known.
  SmallVector<SeqItem, 0> items;
  pushScope();
  Ref<Expr> result;
  while (true) {
    if (tok.is(TokenKind::GraphVar) && peekKind() == TokenKind::Equal) {
      if (!parseGraphBinding())
        return nullptr;
      continue;
    }
    if (tok.is(TokenKind::KwLet)) {
      if (!parseLetBinding(items))
        return nullptr;
      continue;
    }
    // `%a = e;` (or `%a: T = e;`): no expression goes on like that. As in
    // TVM, only numbered graph variables bind without `let`.
    if (tok.is(TokenKind::LocalVar) &&
        (peekKind() == TokenKind::Equal || peekKind() == TokenKind::Colon)) {
      emitError(tok.getLoc(), "a named variable is bound with 'let' ('let " +
                                  tok.spelling +
                                  " = ...;'); bindings without 'let' are "
                                  "numbered ('%0 = ...;')");
      return nullptr;
    }
    if (tok.is(TokenKind::KwFreeVar)) {
      if (!parseFreeVar())
        return nullptr;
      continue;
    }
    SMLoc loc = tok.getLoc();
    Ref<Expr> expr;
    if (tok.is(TokenKind::LBrace)) {
      DepthGuard guard(*this, loc);
      if (!guard)
        return nullptr;
      expr = parseBraceBody();
    } else {
      expr = parseBinExpr();
    }
    if (!expr)
      return nullptr;
    if (consumeIf(TokenKind::Semicolon)) {
      items.push_back({nullptr, std::move(expr), loc});
      continue;
    }
    result = std::move(expr);
    break;
  }
  return finishExprSeq(items, std::move(result));
}

/// Closes the scope of an expression sequence and builds its Lets.
Ref<Expr> Parser::finishExprSeq(SmallVector<SeqItem, 0> &items,
                                Ref<Expr> result) {
  popScope();
  for (auto it = items.rbegin(), e = items.rend(); it != e; ++it) {
    Ref<Var> var = it->var ? it->var : Var::get("", nullptr, it->loc);
    result = Let::get(std::move(var), std::move(it->value), std::move(result),
                      it->loc);
  }
  return result;
}

/// `%N = e;` binds N to the node e itself (no Let).
bool Parser::parseGraphBinding() {
  Token nameTok = tok;
  consume(); // %N
  consume(); // =
  Ref<Expr> value = parseBinExpr();
  if (!value)
    return false;
  if (!expect(TokenKind::Semicolon, "';' after the graph binding"))
    return false;
  return bindGraph(nameTok, std::move(value));
}

/// `let %x (: T)? = e;`
bool Parser::parseLetBinding(SmallVector<SeqItem, 0> &items) {
  SMLoc letLoc = tok.getLoc();
  Ref<Var> var = parseLetHead();
  if (!var)
    return false;
  Ref<Expr> value = parseBinExpr();
  if (!value)
    return false;
  return finishLetBinding(items, std::move(var), std::move(value), letLoc);
}

/// `let %x (: T)? =`: the variable, bound.
Ref<Var> Parser::parseLetHead() {
  consume(); // let
  if (tok.is(TokenKind::GraphVar)) {
    emitError(tok.getLoc(), "a numbered variable is bound without 'let' ('" +
                                tok.spelling +
                                " = ...;'); 'let' binds a named variable "
                                "('let %x = ...;')");
    return nullptr;
  }
  if (tok.isNot(TokenKind::LocalVar)) {
    emitUnexpected("a variable ('%name') after 'let'");
    return nullptr;
  }
  Token nameTok = tok;
  consume();
  if (!checkDottedName(nameTok))
    return nullptr;
  Ref<Type> annotation;
  if (consumeIf(TokenKind::Colon)) {
    annotation = parseType();
    if (!annotation)
      return nullptr;
  }
  Ref<Var> var = Var::get(nameTok.name, annotation, nameTok.getLoc());
  // As in TVM's parser (BindVar before the value), the let variable is in
  // scope in its own value, so a let-bound closure can call itself.
  bindLocal(nameTok.name, var);
  if (!expect(TokenKind::Equal, "'='"))
    return nullptr;
  return var;
}

/// The `;` after a let binding's value.
bool Parser::finishLetBinding(SmallVector<SeqItem, 0> &items, Ref<Var> var,
                              Ref<Expr> value, SMLoc loc) {
  if (!expect(TokenKind::Semicolon, "';' after the let binding"))
    return false;
  items.push_back({std::move(var), std::move(value), loc});
  return true;
}

/// `free_var %x (: T)? ;`
bool Parser::parseFreeVar() {
  SMLoc loc = tok.getLoc();
  if (mode == ParseMode::Module)
    return emitError(loc, "free_var is not allowed in a module: global "
                          "functions cannot have free variables");
  consume();
  if (tok.isNot(TokenKind::LocalVar))
    return emitUnexpected("a variable ('%name') after 'free_var'");
  Token nameTok = tok;
  consume();
  if (!checkDottedName(nameTok))
    return false;
  Ref<Type> annotation;
  if (consumeIf(TokenKind::Colon)) {
    annotation = parseType();
    if (!annotation)
      return false;
  }
  Ref<Var> &slot = freeVars[nameTok.name];
  if (slot)
    return emitError(nameTok.getLoc(), "free variable " + nameTok.spelling +
                                           " is declared twice");
  slot = Var::get(nameTok.name, annotation, nameTok.getLoc());
  return expect(TokenKind::Semicolon, "';' after the free_var declaration");
}

/// The operator and precedence of an infix token (TVM's op_table.h).
static bool getInfixOp(TokenKind kind, StringRef &name, int &precedence) {
  switch (kind) {
  case TokenKind::Star:
    name = "multiply", precedence = 12;
    return true;
  case TokenKind::Slash:
    name = "divide", precedence = 12;
    return true;
  case TokenKind::Plus:
    name = "add", precedence = 10;
    return true;
  case TokenKind::Minus:
    name = "subtract", precedence = 10;
    return true;
  case TokenKind::Less:
    name = "less", precedence = 8;
    return true;
  case TokenKind::LessEqual:
    name = "less_equal", precedence = 8;
    return true;
  case TokenKind::Greater:
    name = "greater", precedence = 8;
    return true;
  case TokenKind::GreaterEqual:
    name = "greater_equal", precedence = 8;
    return true;
  case TokenKind::EqualEqual:
    name = "equal", precedence = 7;
    return true;
  case TokenKind::NotEqual:
    name = "not_equal", precedence = 7;
    return true;
  default:
    return false;
  }
}

/// Infix expressions, left associative, by operator precedence with explicit
/// stacks (no recursion on the length of the chain).
namespace {
/// An infix operator waiting for its right operand.
struct PendingOp {
  Op *op;
  int precedence;
  SMLoc loc;
};
} // namespace

/// Replaces the top two operands by a call of the top operator.
LLVM_ATTRIBUTE_NOINLINE static void
reduceInfix(SmallVectorImpl<Ref<Expr>> &operands,
            SmallVectorImpl<PendingOp> &ops) {
  PendingOp op = ops.pop_back_val();
  Ref<Expr> rhs = operands.pop_back_val();
  Ref<Expr> lhs = operands.pop_back_val();
  operands.push_back(Call::get(op.op, {lhs, rhs}, nullptr, op.loc));
}

Ref<Expr> Parser::parseBinExpr() {
  Ref<Expr> first = parseCallExpr();
  StringRef name;
  int precedence;
  if (!first || !getInfixOp(tok.kind, name, precedence))
    return first;
  return parseInfixRest(std::move(first));
}

/// The operators and operands after the first operand of an infix chain.
Ref<Expr> Parser::parseInfixRest(Ref<Expr> first) {
  SmallVector<Ref<Expr>, 2> operands;
  SmallVector<PendingOp, 2> ops;
  auto reduce = [&]() { reduceInfix(operands, ops); };
  operands.push_back(std::move(first));
  StringRef name;
  int precedence;
  while (getInfixOp(tok.kind, name, precedence)) {
    Op *op = Op::lookup(name);
    if (!op) {
      emitUnknownInfixOp(name);
      return nullptr;
    }
    while (!ops.empty() && ops.back().precedence >= precedence)
      reduce();
    ops.push_back({op, precedence, tok.getLoc()});
    consume();
    Ref<Expr> rhs = parseCallExpr();
    if (!rhs)
      return nullptr;
    operands.push_back(std::move(rhs));
  }
  while (!ops.empty())
    reduce();
  return operands.back();
}

Ref<Expr> Parser::parseCallExpr() {
  SMLoc loc = tok.getLoc();
  Ref<Expr> expr = parseAtomic();
  // f(a)(b) is a curried call.
  while (expr && tok.is(TokenKind::LParen))
    expr = parseCallArgs(std::move(expr), loc);
  return expr;
}

Ref<Expr> Parser::parseCallArgs(Ref<Expr> callee, SMLoc loc) {
  DepthGuard guard(*this, tok.getLoc());
  if (!guard)
    return nullptr;
  consume(); // (
  SmallVector<Ref<Expr>, 4> args;
  std::vector<NamedAttrValue> kwargs;
  while (tok.isNot(TokenKind::RParen)) {
    if (isKeywordArgStart()) {
      if (!parseKeywordArgs(kwargs))
        return nullptr;
      break;
    }
    Ref<Expr> arg = parseExprSeq();
    if (!arg)
      return nullptr;
    args.push_back(std::move(arg));
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  if (!expect(TokenKind::RParen, "',' or ')'"))
    return nullptr;
  return buildCall(std::move(callee), args, std::move(kwargs), loc);
}

Ref<Expr> Parser::buildCall(Ref<Expr> callee, ArrayRef<Ref<Expr>> args,
                            std::vector<NamedAttrValue> kwargs, SMLoc loc) {
  if (auto *op = dyn_cast<Op>(callee.get())) {
    if (Error err = op->checkNumArgs(args.size(), loc)) {
      emitError(std::move(err), loc);
      return nullptr;
    }
    Expected<Ref<Attrs>> attrs = op->createAttrs(kwargs, loc);
    if (!attrs) {
      emitError(attrs.takeError(), loc);
      return nullptr;
    }
    return Call::get(std::move(callee), args, std::move(*attrs), loc);
  }
  Ref<DictAttrs> dict;
  if (!kwargs.empty()) {
    dict = makeDictAttrs(std::move(kwargs), "the call");
    if (!dict)
      return nullptr;
  }
  return Call::get(std::move(callee), args, std::move(dict), loc);
}

//===----------------------------------------------------------------------===//
// Atomic expressions
//===----------------------------------------------------------------------===//

Ref<Expr> Parser::parseAtomic() {
  SMLoc loc = tok.getLoc();
  Ref<Expr> expr;
  // Only the constructs that nest are parsed here; the others are leaves.
  switch (tok.kind) {
  case TokenKind::KwFn:
    consume();
    expr = parseFunctionRest(loc);
    break;
  case TokenKind::KwIf:
    expr = parseIf();
    break;
  case TokenKind::LParen:
    expr = parseTupleOrParens();
    break;
  default:
    expr = parseAtomicLeaf();
    break;
  }
  if (!expr)
    return nullptr;
  // `.N` projects a tuple field (one level, as in TVM).
  if (tok.is(TokenKind::Period))
    return parseTupleGetItem(std::move(expr), loc);
  return expr;
}

/// An atomic expression that does not nest: a literal, a variable, a
/// constant, an operator name.
Ref<Expr> Parser::parseAtomicLeaf() {
  switch (tok.kind) {
  case TokenKind::Integer:
  case TokenKind::Float:
  case TokenKind::KwTrue:
  case TokenKind::KwFalse:
    return parseScalarLiteral();
  case TokenKind::LocalVar:
    return parseLocalVar();
  case TokenKind::GraphVar:
    return parseGraphVar();
  case TokenKind::GlobalVar:
    return parseGlobalVar();
  case TokenKind::MetaRef:
    return parseMetaRef();
  case TokenKind::Identifier:
    if (tok.name == "dense" && peekKind() == TokenKind::Less)
      return parseDense();
    return parseOpName();
  default:
    return parseAtomicError();
  }
}

/// Reports a token that cannot start an atomic expression.
Ref<Expr> Parser::parseAtomicError() {
  SMLoc loc = tok.getLoc();
  switch (tok.kind) {
  case TokenKind::KwRef:
  case TokenKind::KwRefRead:
  case TokenKind::KwRefWrite:
    emitError(loc,
              "references (" + tok.spelling + ") are not supported by nnir");
    break;
  case TokenKind::KwMatch:
  case TokenKind::KwPartialMatch:
    emitError(loc, "match expressions (ADTs) are not supported by nnir");
    break;
  case TokenKind::KwLet:
  case TokenKind::KwFreeVar:
  case TokenKind::LBrace:
    // Valid at the start of an expression sequence only.
    emitError(loc, tok.spelling + " is not allowed here; wrap it in "
                                  "parentheses");
    break;
  default:
    emitUnexpected("an expression");
    break;
  }
  return nullptr;
}

/// `.N` after an atomic expression.
Ref<Expr> Parser::parseTupleGetItem(Ref<Expr> tuple, SMLoc loc) {
  consume(); // .
  if (tok.isNot(TokenKind::Integer)) {
    emitUnexpected("a tuple index after '.'");
    return nullptr;
  }
  if (tok.intValue < 0 || tok.intValue > INT32_MAX ||
      tok.dtype == DataType::uint64()) {
    emitError(tok.getLoc(), "invalid tuple index " + tok.spelling);
    return nullptr;
  }
  Ref<Expr> item =
      TupleGetItem::get(std::move(tuple), unsigned(tok.intValue), loc);
  consume();
  return item;
}

Ref<Expr> Parser::parseGlobalVar() {
  GlobalInfo &info = globals[getGlobalName(tok)];
  if (!info.var) {
    info.var = GlobalVar::get(getGlobalName(tok), tok.getLoc());
    info.firstUse = tok.getLoc();
  }
  consume();
  return info.var;
}

Ref<Expr> Parser::parseMetaRef() {
  Ref<Expr> expr = resolveMetaRef(tok);
  if (expr)
    consume();
  return expr;
}

/// After a local variable name: a following `.name` means the name had a
/// dot in it (TVM prints `%conv1.weight` but cannot parse it).
bool Parser::checkDottedName(const Token &nameTok) {
  if (tok.isNot(TokenKind::Period) || peekKind() != TokenKind::Identifier)
    return true;
  Lexer copy = lexer;
  Token next = copy.lex();
  return emitError(
      nameTok.getLoc(),
      "variable names cannot contain '.'; '" +
          StringRef(nameTok.spelling.begin(),
                    next.spelling.end() - nameTok.spelling.begin()) +
          "' cannot be parsed");
}

Ref<Expr> Parser::parseLocalVar() {
  // `%conv1.weight`: report the dotted name, not an undefined `%conv1`. (The
  // lexer stands right after the name, so one byte tells whether to look.)
  if (lexer.nextCharIs('.') && peekKind(2) == TokenKind::Identifier) {
    Lexer copy = lexer;
    copy.lex();
    Token field = copy.lex();
    emitError(tok.getLoc(),
              "variable names cannot contain '.'; '" +
                  StringRef(tok.spelling.begin(),
                            field.spelling.end() - tok.spelling.begin()) +
                  "' cannot be parsed");
    return nullptr;
  }
  auto it = localIndex.find(tok.name);
  Ref<Expr> expr;
  if (it != localIndex.end()) {
    expr = bindings[it->second].value;
  } else {
    auto free = freeVars.find(tok.name);
    if (free == freeVars.end()) {
      emitError(tok.getLoc(), "undefined variable " + tok.spelling);
      return nullptr;
    }
    expr = free->second;
  }
  consume();
  return expr;
}

Ref<Expr> Parser::parseGraphVar() {
  int64_t index = findGraphBinding(tok.number);
  if (index < 0) {
    emitError(tok.getLoc(), "undefined variable " + tok.spelling);
    return nullptr;
  }
  consume();
  return bindings[index].value;
}

bool Parser::checkConstantSize(DataType dtype, ArrayRef<int64_t> shape,
                               SMLoc loc, bool inlineConstant) {
  std::optional<int64_t> bytes = getByteSize(shape, dtype.getStorageBytes());
  if (!bytes)
    return emitError(loc, "constant size overflows int64");
  if (uint64_t(*bytes) > options.maxConstantBytes)
    return emitError(loc, "constant of " + Twine(*bytes) +
                              " bytes exceeds the limit of " +
                              Twine(options.maxConstantBytes) + " bytes");
  if (!inlineConstant)
    return true;
  if (uint64_t(*bytes) > options.maxConstantBytes - inlineConstantBytes)
    return emitError(loc, "inline constants total more than the limit of " +
                              Twine(options.maxConstantBytes) + " bytes");
  inlineConstantBytes += *bytes;
  return true;
}

/// The text of a number as parseFloatBits reads it, without the sign.
static std::string getNumberText(StringRef digits, StringRef nanPayload) {
  if (nanPayload.empty())
    return digits.str();
  return ("nan:0x" + nanPayload).str();
}

/// Sets the sign bit of \p bits, a value of format \p sem.
static uint64_t negateBits(const fltSemantics &sem, uint64_t bits) {
  return bits ^ (uint64_t(1) << (APFloat::semanticsSizeInBits(sem) - 1));
}

bool Parser::getFloatBits(const Token &t, DataType dtype, uint64_t &bits) {
  const fltSemantics &sem = *dtype.getFloatSemantics();
  switch (
      parseFloatBits(getNumberText(t.numberText, t.nanPayload), sem, bits)) {
  case FloatParseStatus::Ok:
    break;
  case FloatParseStatus::Overflow:
    return emitError(t.getLoc(), "float literal '" + t.spelling +
                                     "' is out of range for " + dtype.str());
  case FloatParseStatus::Invalid:
    return emitError(t.getLoc(), "invalid NaN significand in '" + t.spelling +
                                     "' for " + dtype.str());
  }
  if (t.negative)
    bits = negateBits(sem, bits);
  return true;
}

/// An integer, float or bool literal: a 0-d constant.
Ref<Expr> Parser::parseScalarLiteral() {
  SMLoc loc = tok.getLoc();
  DataType dtype = tok.is(TokenKind::Integer) || tok.is(TokenKind::Float)
                       ? tok.dtype
                       : DataType::boolean();
  if (tok.is(TokenKind::Integer) && dtype == DataType::uint64()) {
    emitError(loc, "integer literal '" + tok.spelling +
                       "' is out of range for int64");
    return nullptr;
  }
  if (!checkConstantSize(dtype, {}, loc))
    return nullptr;
  // The literal's value: an integer, a float's bits, or a bool.
  enum : uint64_t { IntValue, FloatBits, BoolValue };
  uint64_t kind, payload;
  if (tok.is(TokenKind::Integer)) {
    kind = IntValue;
    payload = static_cast<uint64_t>(tok.intValue);
  } else if (tok.is(TokenKind::Float)) {
    kind = FloatBits;
    if (!getFloatBits(tok, dtype, payload))
      return nullptr;
  } else {
    kind = BoolValue;
    payload = tok.is(TokenKind::KwTrue) ? 1 : 0;
  }
  // Literals of one value and dtype share their (immutable) array; each
  // literal stays a Constant node of its own, with its own location.
  std::pair<uint64_t, uint64_t> key{
      kind << 40 | uint64_t(dtype.getCode()) << 32 |
          uint64_t(dtype.getBits()) << 16 | dtype.getLanes(),
      payload};
  auto [it, inserted] = scalarLiterals.try_emplace(key);
  if (inserted) {
    Expected<NDArray> array = NDArray::create(dtype, {});
    if (!array) {
      scalarLiterals.erase(it);
      emitError(array.takeError(), loc);
      return nullptr;
    }
    if (kind == FloatBits)
      array->setElementBits(0, payload);
    else
      array->setElementFromInt(0, static_cast<int64_t>(payload));
    it->second = std::move(*array);
  }
  consume();
  return Constant::get(it->second, loc);
}

/// A (dotted) operator name: `add`, `nn.conv2d`.
Ref<Expr> Parser::parseOpName() {
  SMLoc loc = tok.getLoc();
  std::string name = tok.name.str();
  consume();
  while (tok.is(TokenKind::Period) && peekKind() == TokenKind::Identifier) {
    consume();
    name += ".";
    name += tok.name;
    consume();
  }
  if (Op *op = Op::lookup(name)) {
    // Relay gives an operator used as a value (`let %g = nn.relu;`) the
    // operator's polymorphic type; nnir's types have no type parameters, so
    // an operator must be called where it is named.
    if (tok.isNot(TokenKind::LParen)) {
      emitError(loc, "operator '" + name +
                         "' can only be called, not used as a value");
      return nullptr;
    }
    return op;
  }
  std::string message = "unknown operator '" + name + "'";
  message += formatDidYouMean(OpRegistry::instance().suggest(name, 1));
  emitError(loc, message);
  return nullptr;
}

Ref<Expr> Parser::parseTupleOrParens() {
  SMLoc loc = tok.getLoc();
  DepthGuard guard(*this, loc);
  if (!guard)
    return nullptr;
  consume(); // (
  if (consumeIf(TokenKind::RParen))
    return Tuple::get({}, loc);
  Ref<Expr> first = parseExprSeq();
  if (!first)
    return nullptr;
  if (consumeIf(TokenKind::RParen))
    return first;
  return parseTupleRest(std::move(first), loc);
}

/// The fields of a tuple after the first one.
Ref<Expr> Parser::parseTupleRest(Ref<Expr> first, SMLoc loc) {
  if (tok.isNot(TokenKind::Comma)) {
    emitUnexpected("',' or ')'");
    return nullptr;
  }
  SmallVector<Ref<Expr>, 4> fields;
  fields.push_back(std::move(first));
  while (consumeIf(TokenKind::Comma)) {
    if (tok.is(TokenKind::RParen))
      break;
    Ref<Expr> field = parseExprSeq();
    if (!field)
      return nullptr;
    fields.push_back(std::move(field));
  }
  if (!expect(TokenKind::RParen, "',' or ')'"))
    return nullptr;
  return Tuple::get(fields, loc);
}

Ref<Expr> Parser::parseIf() {
  SMLoc loc = tok.getLoc();
  DepthGuard guard(*this, loc);
  if (!guard)
    return nullptr;
  consume(); // if
  if (!expect(TokenKind::LParen, "'(' after 'if'"))
    return nullptr;
  Ref<Expr> cond = parseExprSeq();
  if (!cond || !expect(TokenKind::RParen, "')'"))
    return nullptr;
  Ref<Expr> thenBranch = parseBraceBody();
  if (!thenBranch)
    return nullptr;
  if (!expect(TokenKind::KwElse, "'else'"))
    return nullptr;
  Ref<Expr> elseBranch = parseBraceBody();
  if (!elseBranch)
    return nullptr;
  return If::get(std::move(cond), std::move(thenBranch), std::move(elseBranch),
                 loc);
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// `name=` or `dotted.name=` starts the keyword arguments of a call or the
/// attributes of a function.
bool Parser::isKeywordArgStart() const {
  if (tok.isNot(TokenKind::Identifier))
    return false;
  Lexer copy = lexer;
  Token t = copy.lex();
  while (t.is(TokenKind::Period)) {
    if (copy.lex().isNot(TokenKind::Identifier))
      return false;
    t = copy.lex();
  }
  return t.is(TokenKind::Equal);
}

/// `Attr (','? Attr)* ','?` up to (not including) the closing ')'.
bool Parser::parseKeywordArgs(std::vector<NamedAttrValue> &kwargs) {
  while (tok.isNot(TokenKind::RParen)) {
    if (tok.isNot(TokenKind::Identifier)) {
      if (tok.is(TokenKind::Eof))
        return emitUnexpected("')'");
      return emitError(tok.getLoc(), "expected an attribute ('name=value') or "
                                     "')'; positional arguments must come "
                                     "before attributes");
    }
    SMLoc keyLoc = tok.getLoc();
    std::string key = tok.name.str();
    consume();
    while (consumeIf(TokenKind::Period)) {
      if (tok.isNot(TokenKind::Identifier))
        return emitUnexpected("an identifier after '.'");
      key += ".";
      key += tok.name;
      consume();
    }
    if (!expect(TokenKind::Equal, "'=' after the attribute name"))
      return false;
    AttrValue value;
    if (!parseAttrValue(value))
      return false;
    kwargs.push_back({std::move(key), std::move(value), keyLoc});
    consumeIf(TokenKind::Comma);
  }
  return true;
}

bool Parser::parseAttrValue(AttrValue &out) {
  SMLoc loc = tok.getLoc();
  DepthGuard guard(*this, loc);
  if (!guard)
    return false;
  if (tok.is(TokenKind::LBracket))
    return parseAttrArray(out, loc);
  if (consumeIf(TokenKind::LParen)) {
    // Parentheses only group; `(1, 2)` is not a value.
    if (!parseAttrValue(out))
      return false;
    return expect(TokenKind::RParen, "')'");
  }
  return parseAttrLeaf(out, loc);
}

/// `[v, ...]`
bool Parser::parseAttrArray(AttrValue &out, SMLoc loc) {
  consume(); // [
  std::vector<AttrValue> elements;
  while (tok.isNot(TokenKind::RBracket)) {
    AttrValue element;
    if (!parseAttrValue(element))
      return false;
    elements.push_back(std::move(element));
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  if (!expect(TokenKind::RBracket, "',' or ']'"))
    return false;
  out = AttrValue::array(std::move(elements), loc);
  return true;
}

/// A literal, `None` or an expression.
bool Parser::parseAttrLeaf(AttrValue &out, SMLoc loc) {
  switch (tok.kind) {
  case TokenKind::Integer:
    if (tok.dtype == DataType::uint64())
      return emitError(loc, "integer literal '" + tok.spelling +
                                "' is out of range for int64");
    out = AttrValue::integer(tok.intValue, tok.dtype, loc);
    consume();
    return true;
  case TokenKind::Float: {
    // As in TVM, the value is the decimal as a float64 (a float64 field
    // reads `1e-05f` as 1e-05); the suffix bounds its range. A NaN is the
    // suffix type's NaN.
    uint64_t bits;
    if (!getFloatBits(tok, tok.dtype, bits))
      return false;
    double value = tok.nanPayload.empty()
                       ? tok.floatValue
                       : widenToDouble(*tok.dtype.getFloatSemantics(), bits);
    out = AttrValue::floating(value, tok.dtype, loc);
    consume();
    return true;
  }
  case TokenKind::KwTrue:
  case TokenKind::KwFalse:
    out = AttrValue::boolean(tok.is(TokenKind::KwTrue), loc);
    consume();
    return true;
  case TokenKind::String:
    out = AttrValue::string(tok.text, loc);
    consume();
    return true;
  case TokenKind::Question:
    return emitError(loc, "dynamic dimensions ('?') are not supported by nnir");
  case TokenKind::MetaRef:
    if (!resolveMetaValue(tok, out))
      return false;
    consume();
    return true;
  case TokenKind::Identifier:
    if (tok.name == "None" || tok.name == "nullptr") {
      out = AttrValue::none(loc);
      consume();
      return true;
    }
    break;
  default:
    break;
  }
  if (tok.is(TokenKind::Eof) || tok.is(TokenKind::RParen) ||
      tok.is(TokenKind::Comma))
    return emitUnexpected("an attribute value");
  Ref<Expr> expr = parseAtomic();
  if (!expr)
    return false;
  out = AttrValue::expr(std::move(expr), loc);
  return true;
}

Ref<DictAttrs> Parser::makeDictAttrs(std::vector<NamedAttrValue> kwargs,
                                     StringRef owner) {
  StringSet<> seen;
  for (const NamedAttrValue &kw : kwargs)
    if (!seen.insert(kw.name).second) {
      emitError(kw.loc,
                "attribute '" + kw.name + "' of " + owner + " is given twice");
      return nullptr;
    }
  return DictAttrs::get(kwargs);
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// True for names TVM would read as a dtype (so an unknown one is reported
/// as a bad dtype rather than an unknown type).
static bool looksLikeDType(StringRef name) {
  for (StringRef prefix :
       {"int", "uint", "float", "bfloat", "bool", "e4m3", "e5m2"})
    if (name.starts_with(prefix))
      return true;
  return false;
}

std::optional<DataType> Parser::parseDType(const Token &nameTok) {
  std::optional<DataType> dtype = DataType::parse(nameTok.name);
  if (!dtype)
    emitError(nameTok.getLoc(), "unknown dtype '" + nameTok.name +
                                    "'; expected one of " +
                                    DataType::supportedNames());
  return dtype;
}

Ref<Type> Parser::parseType() {
  SMLoc loc = tok.getLoc();
  DepthGuard guard(*this, loc);
  if (!guard)
    return nullptr;
  switch (tok.kind) {
  case TokenKind::LParen: {
    // `()`, `(T)`, `(T,)`, `(T1, T2)`: as in TVM, `(T)` is a 1-tuple.
    consume();
    SmallVector<Ref<Type>, 4> fields;
    while (tok.isNot(TokenKind::RParen)) {
      Ref<Type> field = parseType();
      if (!field)
        return nullptr;
      fields.push_back(std::move(field));
      if (!consumeIf(TokenKind::Comma))
        break;
    }
    if (!expect(TokenKind::RParen, "',' or ')'"))
      return nullptr;
    return TupleType::get(fields, loc);
  }
  case TokenKind::KwFn: {
    consume();
    if (tok.is(TokenKind::LBracket)) {
      emitError(tok.getLoc(), "type parameters are not supported by nnir");
      return nullptr;
    }
    if (!expect(TokenKind::LParen, "'(' after 'fn'"))
      return nullptr;
    SmallVector<Ref<Type>, 4> params;
    while (tok.isNot(TokenKind::RParen)) {
      Ref<Type> param = parseType();
      if (!param)
        return nullptr;
      params.push_back(std::move(param));
      if (!consumeIf(TokenKind::Comma))
        break;
    }
    if (!expect(TokenKind::RParen, "',' or ')'") ||
        !expect(TokenKind::Arrow, "'->' and the result type"))
      return nullptr;
    Ref<Type> result = parseType();
    if (!result)
      return nullptr;
    return FuncType::get(params, std::move(result), loc);
  }
  case TokenKind::Underscore:
    consume();
    return IncompleteType::get(loc);
  case TokenKind::Identifier:
    return tok.name == "Tensor" ? parseTensorType() : parseNamedType();
  case TokenKind::KwRef:
    emitError(loc, "reference types are not supported by nnir");
    return nullptr;
  case TokenKind::Question:
    emitError(loc, "dynamic dimensions ('?') are not supported by nnir");
    return nullptr;
  default:
    emitUnexpected("a type");
    return nullptr;
  }
}

/// A dtype name in type position: a 0-d tensor type.
Ref<Type> Parser::parseNamedType() {
  SMLoc loc = tok.getLoc();
  if (std::optional<DataType> dtype = DataType::parse(tok.name)) {
    consume();
    return TensorType::getScalar(*dtype, loc);
  }
  if (looksLikeDType(tok.name)) {
    parseDType(tok);
    return nullptr;
  }
  emitError(loc, "unknown type '" + tok.name +
                     "'; nnir supports tensor, tuple and function types "
                     "(ADTs and type variables are not supported)");
  return nullptr;
}

/// `Tensor[(d0, d1, ...), dtype]`
Ref<Type> Parser::parseTensorType() {
  SMLoc loc = tok.getLoc();
  consume(); // Tensor
  if (!expect(TokenKind::LBracket, "'[' after 'Tensor'"))
    return nullptr;
  Shape shape;
  if (!parseShape(shape))
    return nullptr;
  if (!expect(TokenKind::Comma, "',' after the shape"))
    return nullptr;
  if (tok.isNot(TokenKind::Identifier)) {
    emitUnexpected("a dtype");
    return nullptr;
  }
  std::optional<DataType> dtype = parseDType(tok);
  if (!dtype)
    return nullptr;
  consume();
  if (!expect(TokenKind::RBracket, "']'"))
    return nullptr;
  Expected<Ref<TensorType>> type = TensorType::create(shape, *dtype, loc);
  if (!type) {
    emitError(type.takeError(), loc);
    return nullptr;
  }
  return *type;
}

bool Parser::parseShape(Shape &shape) {
  if (!expect(TokenKind::LParen, "'(' to start the shape"))
    return false;
  while (tok.isNot(TokenKind::RParen)) {
    if (tok.is(TokenKind::Question))
      return emitError(tok.getLoc(),
                       "dynamic dimensions ('?') are not supported by nnir");
    if (tok.is(TokenKind::MetaRef))
      return emitError(tok.getLoc(),
                       "symbolic dimensions are not supported by nnir");
    if (tok.isNot(TokenKind::Integer))
      return emitUnexpected("a dimension");
    if (tok.dtype == DataType::uint64())
      return emitError(tok.getLoc(), "dimension " + tok.spelling +
                                         " is out of range for int64");
    if (Error err = TensorType::verifyShape({tok.intValue}, tok.getLoc()))
      return emitError(std::move(err), tok.getLoc());
    shape.push_back(tok.intValue);
    consume();
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  return expect(TokenKind::RParen, "',' or ')'");
}

//===----------------------------------------------------------------------===//
// Inline constants: dense<Elements> : Type
//===----------------------------------------------------------------------===//

Ref<Expr> Parser::parseDense() {
  SMLoc loc = tok.getLoc();
  consume(); // dense
  consume(); // <
  DenseElements elems;
  if (!parseDenseElements(elems, 0))
    return nullptr;
  if (!expect(TokenKind::Greater, "'>' to end the dense literal") ||
      !expect(TokenKind::Colon, "':' and the type of the dense literal"))
    return nullptr;
  SMLoc typeLoc = tok.getLoc();
  Ref<Type> type = parseType();
  if (!type)
    return nullptr;
  const auto *tensorType = dyn_cast<TensorType>(type.get());
  if (!tensorType) {
    emitError(typeLoc,
              "a dense literal needs a tensor type, got " + type->str());
    return nullptr;
  }
  if (!checkDenseStructure(elems, *tensorType))
    return nullptr;
  DataType dtype = tensorType->getDType();
  ArrayRef<int64_t> shape = tensorType->getShape();
  // Check the size before allocating: a splat can describe a huge tensor.
  if (!checkConstantSize(dtype, shape, loc))
    return nullptr;
  if (elems.lists.empty()) {
    // A splat: convert the scalar once; the array keeps only that element
    // until its buffer is needed.
    Expected<NDArray> element = NDArray::create(dtype, {});
    if (!element) {
      emitError(element.takeError(), loc);
      return nullptr;
    }
    if (!storeDenseScalar(*element, 0, elems.scalars.front()))
      return nullptr;
    Expected<NDArray> array =
        NDArray::splat(dtype, shape, element->getElementBits(0));
    if (!array) {
      emitError(array.takeError(), loc);
      return nullptr;
    }
    return Constant::get(std::move(*array), loc);
  }
  // Every element is written below: no zero-fill.
  Expected<NDArray> array =
      NDArray::create(dtype, shape, UINT64_MAX, /*zeroFill=*/false);
  if (!array) {
    emitError(array.takeError(), loc);
    return nullptr;
  }
  for (int64_t i = 0, count = array->getNumElements(); i < count; ++i)
    if (!storeDenseScalar(*array, i, elems.scalars[i]))
      return nullptr;
  return Constant::get(std::move(*array), loc);
}

bool Parser::parseDenseElements(DenseElements &elems, unsigned level) {
  if (tok.isNot(TokenKind::LBracket))
    return parseDenseScalar(elems, level);
  DepthGuard guard(*this, tok.getLoc());
  if (!guard)
    return false;
  size_t listIndex = elems.lists.size();
  elems.lists.push_back({level, 0, tok.getLoc()});
  consume(); // [
  if (tok.isNot(TokenKind::RBracket)) {
    while (true) {
      if (!parseDenseElements(elems, level + 1))
        return false;
      ++elems.lists[listIndex].count;
      if (!consumeIf(TokenKind::Comma))
        break;
    }
  }
  return expect(TokenKind::RBracket, "',' or ']'");
}

bool Parser::parseDenseScalar(DenseElements &elems, unsigned level) {
  DenseScalar s;
  s.loc = tok.getLoc();
  s.depth = level;
  bool negate = consumeIf(TokenKind::Minus); // `-inf`, `- 1`
  switch (tok.kind) {
  case TokenKind::Integer:
    s.kind = DenseScalar::Int;
    s.intValue = tok.intValue;
    s.big = tok.dtype == DataType::uint64();
    s.negative = negate != tok.negative;
    s.numberText = tok.numberText;
    if (negate) {
      if (s.big || tok.intValue == INT64_MIN)
        return emitError(s.loc, "integer out of range for int64");
      s.intValue = -s.intValue;
    }
    break;
  case TokenKind::Float:
    s.kind = DenseScalar::Float;
    s.floatValue = negate ? -tok.floatValue : tok.floatValue;
    s.negative = negate != tok.negative;
    s.numberText = tok.numberText;
    s.nanPayload = tok.nanPayload;
    break;
  case TokenKind::KwTrue:
  case TokenKind::KwFalse:
    if (negate)
      return emitUnexpected("a number after '-'");
    s.kind = DenseScalar::Bool;
    s.intValue = tok.is(TokenKind::KwTrue);
    break;
  case TokenKind::Identifier:
    if (tok.name == "inf" || tok.name == "nan") {
      s.kind = DenseScalar::Float;
      s.floatValue = tok.name == "inf" ? HUGE_VAL : std::nan("");
      if (negate)
        s.floatValue = -s.floatValue;
      s.negative = negate;
      s.numberText = tok.name;
      break;
    }
    return emitError(tok.getLoc(), "expected a number, True or False in the "
                                   "dense literal");
  default:
    return emitUnexpected("a number, True, False or '[' in the dense literal");
  }
  consume();
  elems.scalars.push_back(s);
  return true;
}

/// Checks that the bracket nesting matches the shape: every list at depth d
/// has shape[d] elements and every scalar sits at depth rank. A single
/// unbracketed scalar is a splat and fits any shape.
bool Parser::checkDenseStructure(const DenseElements &elems,
                                 const TensorType &type) {
  if (elems.lists.empty())
    return true; // A splat (the grammar guarantees exactly one scalar).
  ArrayRef<int64_t> shape = type.getShape();
  unsigned rank = shape.size();
  // Report the first mismatch in source order.
  SMLoc loc;
  std::string message;
  auto note = [&](SMLoc at, std::string text) {
    if (!loc.isValid() || at.getPointer() < loc.getPointer()) {
      loc = at;
      message = std::move(text);
    }
  };
  for (const DenseList &list : elems.lists) {
    if (list.depth >= rank) {
      note(list.loc, "dense literal is nested deeper than its type " +
                         type.str() + " (rank " + std::to_string(rank) + ")");
      continue;
    }
    if (list.count != uint64_t(shape[list.depth]))
      note(list.loc, "expected " + std::to_string(shape[list.depth]) +
                         " elements in dimension " +
                         std::to_string(list.depth) + " of " + type.str() +
                         ", got " + std::to_string(list.count));
  }
  for (const DenseScalar &s : elems.scalars)
    if (s.depth != rank)
      note(s.loc, "expected a list for dimension " + std::to_string(s.depth) +
                      " of " + type.str() + ", got a scalar");
  if (loc.isValid())
    return emitError(loc, message);
  return true;
}

/// The text of a dense scalar for diagnostics, as written.
std::string Parser::describeScalar(const DenseScalar &s) {
  if (s.kind == DenseScalar::Bool)
    return s.intValue ? "True" : "False";
  return (s.negative ? "-" : "") + getNumberText(s.numberText, s.nanPayload);
}

bool Parser::storeDenseScalar(NDArray &array, int64_t index,
                              const DenseScalar &s) {
  DataType dtype = array.getDType();
  if (dtype.isBool()) {
    bool ok =
        s.kind == DenseScalar::Bool || (s.kind == DenseScalar::Int && !s.big &&
                                        (s.intValue == 0 || s.intValue == 1));
    if (!ok)
      return emitError(s.loc, "value " + describeScalar(s) +
                                  " is not a valid bool; "
                                  "expected True, False, 0 or 1");
    array.setElementFromInt(index, s.intValue);
    return true;
  }
  if (dtype.isInteger()) {
    unsigned bits = dtype.getBits();
    bool isSigned = dtype.isInt();
    if (s.kind == DenseScalar::Float) {
      double v = s.floatValue;
      if (!std::isfinite(v) || std::trunc(v) != v)
        return emitError(s.loc, "value " + describeScalar(s) +
                                    " is not an integer (" + dtype.str() +
                                    " dense literal)");
      double lo = isSigned ? -std::ldexp(1.0, bits - 1) : 0.0;
      double hi = std::ldexp(1.0, isSigned ? bits - 1 : bits); // exclusive
      if (v < lo || v >= hi)
        return emitError(s.loc, "value " + describeScalar(s) +
                                    " is out of range for " + dtype.str());
      if (v >= std::ldexp(1.0, 63))
        array.setElementFromInt(index, int64_t(uint64_t(v)));
      else
        array.setElementFromInt(index, int64_t(v));
      return true;
    }
    // Int or Bool.
    bool inRange;
    if (s.big) {
      inRange = !isSigned && bits == 64;
    } else if (isSigned) {
      inRange = bits == 64 || (s.intValue >= -(int64_t(1) << (bits - 1)) &&
                               s.intValue < (int64_t(1) << (bits - 1)));
    } else {
      inRange =
          s.intValue >= 0 && (bits == 64 || s.intValue < (int64_t(1) << bits));
    }
    if (!inRange)
      return emitError(s.loc, "value " + describeScalar(s) +
                                  " is out of range for " + dtype.str());
    array.setElementFromInt(index, s.intValue);
    return true;
  }
  // Floating point: the element's text rounded once, in the element type,
  // by the same rule as a scalar literal's.
  const fltSemantics &sem = *dtype.getFloatSemantics();
  std::string text = s.kind == DenseScalar::Bool
                         ? std::string(s.intValue ? "1" : "0")
                         : getNumberText(s.numberText, s.nanPayload);
  uint64_t bits;
  switch (parseFloatBits(text, sem, bits)) {
  case FloatParseStatus::Ok:
    break;
  case FloatParseStatus::Overflow:
    return emitError(s.loc, "value " + describeScalar(s) +
                                " is out of range for " + dtype.str());
  case FloatParseStatus::Invalid:
    return emitError(s.loc, "invalid NaN significand in '" + describeScalar(s) +
                                "' for " + dtype.str());
  }
  if (s.negative)
    bits = negateBits(sem, bits);
  array.setElementBits(index, bits);
  return true;
}

//===----------------------------------------------------------------------===//
// Metadata
//===----------------------------------------------------------------------===//

bool Parser::loadMetadata(const Token &metadataTok) {
  if (metadataSearched && metadata)
    return true; // Decoded when the first reference was met.
  metadataSearched = true;
  MetadataLimits limits;
  limits.maxTensorBytes = options.maxConstantBytes;
  Expected<MetadataTable> table = decodeMetadata(metadataTok.name, limits);
  if (!table) {
    emitError(metadataTok.getLoc(),
              "invalid metadata section: " + toString(table.takeError()));
    return false;
  }
  metadata = std::move(*table);
  metaConstants.resize(metadata->constants.size());
  return true;
}

/// Finds and decodes the metadata section on the first reference. The
/// section ends the file, so this lexes ahead on a copy of the lexer.
bool Parser::ensureMetadata(const Token &refTok) {
  if (!metadataSearched) {
    Lexer copy = lexer;
    while (true) {
      Token t = copy.lex();
      if (t.is(TokenKind::Metadata)) {
        if (!loadMetadata(t))
          return false;
        break;
      }
      if (t.is(TokenKind::Error))
        return emitError(t.getLoc(), t.text);
      if (t.is(TokenKind::Eof)) {
        metadataSearched = true;
        break;
      }
    }
  }
  if (!metadata)
    return emitError(refTok.getLoc(), refTok.spelling +
                                          " refers to the metadata section, "
                                          "but there is none");
  return true;
}

/// Checks that \p refTok names an entry of the metadata section: the section
/// exists, has entries under its key and one at its index.
bool Parser::checkMetaRef(const Token &refTok) {
  if (!ensureMetadata(refTok))
    return false;
  StringRef key = refTok.name;
  auto count = metadata->entryCounts.find(key);
  if (count == metadata->entryCounts.end())
    return emitError(refTok.getLoc(),
                     "the metadata section has no '" + key + "' entries");
  if (refTok.number >= count->second)
    return emitError(refTok.getLoc(),
                     refTok.spelling +
                         " is out of range: the metadata section has " +
                         Twine(count->second) + " " + key + " entries");
  if (key != "relay.Constant" && !metadata->values.count(key))
    return emitError(refTok.getLoc(),
                     refTok.spelling + ": nnir cannot read '" + key +
                         "' metadata entries (it reads relay.Constant, the "
                         "boxed values, IntImm, FloatImm, String, Array, "
                         "Map, VirtualDevice and Target)");
  return true;
}

Ref<Constant> Parser::resolveMetaRef(const Token &refTok) {
  if (!checkMetaRef(refTok))
    return nullptr;
  if (refTok.name != "relay.Constant") {
    emitError(refTok.getLoc(),
              refTok.spelling + " is a " + refTok.name +
                  ", not an expression; only attribute values may refer "
                  "to it");
    return nullptr;
  }
  Ref<Constant> &slot = metaConstants[refTok.number];
  if (!slot) {
    const NDArray &data = metadata->constants[refTok.number]->getData();
    if (!checkConstantSize(data.getDType(), data.getShape(), refTok.getLoc(),
                           /*inlineConstant=*/false))
      return nullptr;
    // Same buffer, with the location of this reference.
    slot = Constant::get(data, refTok.getLoc());
  }
  return slot;
}

bool Parser::resolveMetaValue(const Token &refTok, AttrValue &out) {
  if (refTok.name == "relay.Constant") {
    Ref<Constant> constant = resolveMetaRef(refTok);
    if (!constant)
      return false;
    out = AttrValue::expr(std::move(constant), refTok.getLoc());
    return true;
  }
  if (!checkMetaRef(refTok))
    return false;
  out = metadata->values.find(refTok.name)->second[refTok.number];
  out.setLoc(refTok.getLoc());
  return true;
}

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

Expected<Ref<IRModule>> nnir::parseModule(SourceMgr &sourceMgr,
                                          unsigned bufferId,
                                          const ParserOptions &options) {
  StringRef buffer = sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
  Parser parser(buffer, options, ParseMode::Module);
  return parser.parseModuleTop();
}

/// Adds \p text to \p sourceMgr and returns its buffer id.
static unsigned addBuffer(StringRef text, SourceMgr &sourceMgr,
                          StringRef bufferName) {
  return sourceMgr.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(text, bufferName), SMLoc());
}

Expected<Ref<IRModule>> nnir::parseModule(StringRef text, SourceMgr &sourceMgr,
                                          StringRef bufferName,
                                          const ParserOptions &options) {
  return parseModule(sourceMgr, addBuffer(text, sourceMgr, bufferName),
                     options);
}

Expected<Ref<Expr>> nnir::parseExpr(StringRef text, SourceMgr &sourceMgr,
                                    StringRef bufferName,
                                    const ParserOptions &options) {
  unsigned id = addBuffer(text, sourceMgr, bufferName);
  Parser parser(sourceMgr.getMemoryBuffer(id)->getBuffer(), options,
                ParseMode::Expr);
  return parser.parseExprTop();
}

Expected<Ref<Type>> nnir::parseType(StringRef text, SourceMgr &sourceMgr,
                                    StringRef bufferName) {
  unsigned id = addBuffer(text, sourceMgr, bufferName);
  ParserOptions options;
  Parser parser(sourceMgr.getMemoryBuffer(id)->getBuffer(), options,
                ParseMode::Type);
  return parser.parseTypeTop();
}
