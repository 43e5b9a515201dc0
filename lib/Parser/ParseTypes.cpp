//===- ParseTypes.cpp - Relay types -----------------------------------------===//
//
/// \file
/// The parser's types: dtypes, tensor types with their shapes, tuple and
/// function types (ParserImpl.h).
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::parser;

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
    emitError(loc, "'?' is a dynamic dimension, not a type; write "
                   "Tensor[(?, ...), dtype]");
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
    if (tok.is(TokenKind::Question)) {
      // Relay's `Any`: an extent known only at run time.
      shape.push_back(kAnyDim);
      consume();
      if (!consumeIf(TokenKind::Comma))
        break;
      continue;
    }
    if (tok.is(TokenKind::MetaRef))
      return emitError(tok.getLoc(),
                       "symbolic dimensions are not supported by nnir");
    if (tok.isNot(TokenKind::Integer))
      return emitUnexpected("a dimension");
    if (tok.dtype == DataType::uint64())
      return emitError(tok.getLoc(), "dimension " + tok.spelling +
                                         " is out of range for int64");
    // A negative literal is an error, never a spelling of `?`.
    if (tok.intValue < 0)
      return emitError(tok.getLoc(), "negative dimension " +
                                         Twine(tok.intValue) +
                                         " in tensor shape");
    if (Error err = TensorType::verifyShape({tok.intValue}, tok.getLoc()))
      return emitError(std::move(err), tok.getLoc());
    shape.push_back(tok.intValue);
    consume();
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  return expect(TokenKind::RParen, "',' or ')'");
}
