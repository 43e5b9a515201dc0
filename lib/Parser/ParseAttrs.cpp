//===- ParseAttrs.cpp - Relay attributes ------------------------------------===//
//
/// \file
/// The parser's attribute lists: keyword arguments of calls and functions
/// (`axis=1, padding=[1, 1]`) and their values (ParserImpl.h).
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::parser;

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
    // TVM's attributes of the operators nnir has hold integers (reshape's
    // newshape, full's shape): `Any` appears only in types.
    return emitError(loc, "a dynamic dimension ('?') is not allowed in an "
                          "attribute value; only tensor types have '?' "
                          "dimensions");
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
