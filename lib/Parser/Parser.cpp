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

#include "ParserImpl.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::parser;

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
    // The virtual device goes last, where TVM's printer puts it.
    if (const AttrValue *device = dict->lookup(attr::kVirtualDevice))
      dict = Function::withVirtualDevice(dict.get(), *device);
  }
  return Function::get(head.params, body, head.retType, dict, loc);
}

/// `%x ({virtual_device=V})? (: T)?`, bound in the current scope.
Ref<Var> Parser::parseParam(StringSet<> &paramNames) {
  Token nameTok = tok;
  consume();
  if (!checkDottedName(nameTok))
    return nullptr;
  AttrValue device;
  if (!parseVarDevice(device))
    return nullptr;
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
  Ref<Var> var =
      Var::get(nameTok.name, annotation, nameTok.getLoc(), nullptr, device);
  bindLocal(nameTok.name, var);
  return var;
}

/// `{virtual_device=V}` after a variable's name (TVM's printer writes it on
/// every binder; TVM's parser reads it on parameters only), or nothing.
bool Parser::parseVarDevice(AttrValue &device) {
  if (tok.isNot(TokenKind::LBrace))
    return true;
  consume();
  if (tok.isNot(TokenKind::Identifier) || tok.name != attr::kVirtualDevice)
    return emitUnexpected("'virtual_device=' in a variable's '{...}'");
  consume();
  if (!expect(TokenKind::Equal, "'=' after virtual_device"))
    return false;
  SMLoc loc = tok.getLoc();
  if (!parseAttrValue(device))
    return false;
  switch (device.getKind()) {
  case AttrValue::Kind::None:
  case AttrValue::Kind::Int:
  case AttrValue::Kind::Object:
    break;
  default:
    return emitError(loc, "a virtual device is None, a device type or "
                          "meta[VirtualDevice][i], not " +
                              device.describe());
  }
  return expect(TokenKind::RBrace, "'}' after the virtual device");
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

/// `let %x ({virtual_device=V})? (: T)? =`: the variable, bound.
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
  AttrValue device;
  if (!parseVarDevice(device))
    return nullptr;
  Ref<Type> annotation;
  if (consumeIf(TokenKind::Colon)) {
    annotation = parseType();
    if (!annotation)
      return nullptr;
  }
  Ref<Var> var =
      Var::get(nameTok.name, annotation, nameTok.getLoc(), nullptr, device);
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

/// `free_var %x ({virtual_device=V})? (: T)? ;`
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
  AttrValue device;
  if (!parseVarDevice(device))
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
  slot = Var::get(nameTok.name, annotation, nameTok.getLoc(), nullptr, device);
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
// Public API
//===----------------------------------------------------------------------===//

Expected<Ref<IRModule>> nnir::parseModule(SourceMgr &sourceMgr,
                                          unsigned bufferId,
                                          const ParserOptions &options) {
  Parser parser(*sourceMgr.getMemoryBuffer(bufferId), options,
                ParseMode::Module);
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
  Parser parser(*sourceMgr.getMemoryBuffer(id), options, ParseMode::Expr);
  return parser.parseExprTop();
}

Expected<Ref<Type>> nnir::parseType(StringRef text, SourceMgr &sourceMgr,
                                    StringRef bufferName) {
  unsigned id = addBuffer(text, sourceMgr, bufferName);
  ParserOptions options;
  Parser parser(*sourceMgr.getMemoryBuffer(id), options, ParseMode::Type);
  return parser.parseTypeTop();
}
