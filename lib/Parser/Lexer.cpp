//===- Lexer.cpp - Tokens of the Relay text format ------------------------===//
//
/// \file
/// Implements the pull lexer of the Relay text format: whitespace and nested
/// comments, identifiers and keywords, sigils, number literals with TVM's
/// suffix and range rules, strings, `#[...]` attributes and `meta[...][...]`
/// references.
//
//===----------------------------------------------------------------------===//

#include "Lexer.h"

#include "nnir/Support/Numbers.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"

#include <cmath>
#include <string>

using namespace llvm;
using namespace nnir;

StringRef nnir::getTokenKindName(TokenKind kind) {
  switch (kind) {
  case TokenKind::Eof:
    return "end of file";
  case TokenKind::Error:
    return "invalid token";
  case TokenKind::Identifier:
    return "identifier";
  case TokenKind::LocalVar:
    return "local variable";
  case TokenKind::GraphVar:
    return "graph variable";
  case TokenKind::GlobalVar:
    return "global variable";
  case TokenKind::Integer:
    return "integer";
  case TokenKind::Float:
    return "float";
  case TokenKind::String:
    return "string";
  case TokenKind::MetaRef:
    return "meta reference";
  case TokenKind::Version:
    return "version attribute";
  case TokenKind::Metadata:
    return "'#[metadata]'";
  case TokenKind::KwLet:
    return "'let'";
  case TokenKind::KwFn:
    return "'fn'";
  case TokenKind::KwDef:
    return "'def'";
  case TokenKind::KwIf:
    return "'if'";
  case TokenKind::KwElse:
    return "'else'";
  case TokenKind::KwType:
    return "'type'";
  case TokenKind::KwMatch:
    return "'match'";
  case TokenKind::KwPartialMatch:
    return "'match?'";
  case TokenKind::KwExtern:
    return "'extern'";
  case TokenKind::KwFreeVar:
    return "'free_var'";
  case TokenKind::KwRef:
    return "'ref'";
  case TokenKind::KwRefRead:
    return "'ref_read'";
  case TokenKind::KwRefWrite:
    return "'ref_write'";
  case TokenKind::KwTrue:
    return "'True'";
  case TokenKind::KwFalse:
    return "'False'";
  case TokenKind::Underscore:
    return "'_'";
  case TokenKind::LParen:
    return "'('";
  case TokenKind::RParen:
    return "')'";
  case TokenKind::LBracket:
    return "'['";
  case TokenKind::RBracket:
    return "']'";
  case TokenKind::LBrace:
    return "'{'";
  case TokenKind::RBrace:
    return "'}'";
  case TokenKind::Comma:
    return "','";
  case TokenKind::Period:
    return "'.'";
  case TokenKind::Equal:
    return "'='";
  case TokenKind::Semicolon:
    return "';'";
  case TokenKind::Colon:
    return "':'";
  case TokenKind::Plus:
    return "'+'";
  case TokenKind::Minus:
    return "'-'";
  case TokenKind::Star:
    return "'*'";
  case TokenKind::Slash:
    return "'/'";
  case TokenKind::Less:
    return "'<'";
  case TokenKind::Greater:
    return "'>'";
  case TokenKind::LessEqual:
    return "'<='";
  case TokenKind::GreaterEqual:
    return "'>='";
  case TokenKind::EqualEqual:
    return "'=='";
  case TokenKind::NotEqual:
    return "'!='";
  case TokenKind::Bang:
    return "'!'";
  case TokenKind::Question:
    return "'?'";
  case TokenKind::Arrow:
    return "'->'";
  case TokenKind::FatArrow:
    return "'=>'";
  }
  return "token";
}

/// Letters that may start an identifier after a sigil (`%base/x` is valid).
static bool isIdentStart(char c) { return isAlpha(c) || c == '_' || c == '/'; }
static bool isIdentChar(char c) { return isAlnum(c) || c == '_' || c == '/'; }
/// Characters TVM's tokenizer takes as part of a number.
static bool isNumberChar(char c) {
  return isDigit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

/// The dtype of a literal's suffix that starts with \p kind ('i' or 'f'):
/// the suffixes of DataTypes.def ("i64", "f", "f32", ...), and the bare `i`
/// of TVM's int32. std::nullopt for any other.
static std::optional<DataType> suffixType(StringRef suffix, char kind) {
  if (suffix.empty() || suffix[0] != kind)
    return std::nullopt;
  if (suffix == "i")
    return DataType::int32();
  return DataType::fromLiteralSuffix(suffix);
}

/// The float type of a width suffix ("f", "f16", "f32", "f64").
static std::optional<DataType> floatSuffixType(StringRef suffix) {
  return suffixType(suffix, 'f');
}

/// `inff`, `nanf` and their widths (`inff16`, `nanf64`, ...).
static bool isSpecialFloatWord(StringRef word) {
  return (word.starts_with("inf") || word.starts_with("nan")) &&
         floatSuffixType(word.drop_front(3));
}

/// "i, i16, i32 or i64": the suffixes of \p kind ('i' or 'f'), the short one
/// first, for a diagnostic.
static std::string listSuffixes(char kind) {
  std::vector<StringRef> suffixes = {kind == 'i' ? "i" : "f"};
  for (const DataTypeInfo &info : DataType::getAll())
    if (info.literalSuffix.starts_with(StringRef(&kind, 1)))
      suffixes.push_back(info.literalSuffix);
  std::string result;
  for (size_t i = 0; i < suffixes.size(); ++i)
    result += (i == 0 ? "" : i + 1 == suffixes.size() ? " or " : ", ") +
              suffixes[i].str();
  return result;
}

/// Describes a byte for an "unexpected character" diagnostic.
static std::string describeChar(unsigned char c) {
  if (c >= 0x20 && c < 0x7f)
    return std::string("'") + static_cast<char>(c) + "'";
  std::string hex = "'\\x";
  hex += hexdigit(c >> 4, /*LowerCase=*/false);
  hex += hexdigit(c & 0xf, /*LowerCase=*/false);
  return hex + "'";
}

Token Lexer::makeToken(TokenKind kind, const char *tokStart) {
  Token tok;
  tok.kind = kind;
  tok.spelling = StringRef(tokStart, cur - tokStart);
  return tok;
}

Token Lexer::makeError(const char *loc, const Twine &message) {
  Token tok;
  tok.kind = TokenKind::Error;
  tok.spelling = StringRef(loc, 0);
  tok.text = message.str();
  return tok;
}

bool Lexer::skipTrivia(Token &error) {
  while (cur != end) {
    char c = *cur;
    if (c == ' ' || c == '\t' || c == '\n') {
      ++cur;
      continue;
    }
    if (c == '\r') {
      if (cur + 1 != end && cur[1] == '\n') {
        cur += 2;
        continue;
      }
      error = makeError(cur, "carriage return must be followed by a newline");
      return false;
    }
    if (c != '/' || cur + 1 == end)
      return true;
    if (cur[1] == '/') {
      while (cur != end && *cur != '\n')
        ++cur;
      continue;
    }
    if (cur[1] != '*')
      return true;
    // Block comments nest: /* a /* b */ c */ is one comment.
    const char *commentStart = cur;
    unsigned depth = 0;
    while (cur != end) {
      if (*cur == '/' && cur + 1 != end && cur[1] == '*') {
        ++depth;
        cur += 2;
      } else if (*cur == '*' && cur + 1 != end && cur[1] == '/') {
        cur += 2;
        if (--depth == 0)
          break;
      } else {
        ++cur;
      }
    }
    if (depth != 0) {
      error = makeError(commentStart, "unterminated block comment");
      return false;
    }
  }
  return true;
}

Token Lexer::lex() {
  Token error;
  if (!skipTrivia(error))
    return error;
  const char *tokStart = cur;
  if (cur == end)
    return makeToken(TokenKind::Eof, tokStart);

  char c = *cur;
  if (isDigit(c))
    return lexNumber(tokStart, /*negative=*/false);
  if (c == '-') {
    // A run of '-' before a digit or `inff` belongs to the number; an odd
    // count makes it negative (TVM: `--10` is 10).
    const char *p = cur;
    while (p != end && *p == '-')
      ++p;
    bool negative = (p - cur) % 2 == 1;
    if (p != end && isDigit(*p)) {
      cur = p;
      return lexNumber(tokStart, negative);
    }
    const char *q = p;
    while (q != end && isIdentChar(*q))
      ++q;
    StringRef word(p, q - p);
    if (isSpecialFloatWord(word)) {
      cur = q;
      return lexSpecialFloat(tokStart, word, negative);
    }
    ++cur;
    if (cur != end && *cur == '>') {
      ++cur;
      return makeToken(TokenKind::Arrow, tokStart);
    }
    return makeToken(TokenKind::Minus, tokStart);
  }
  if (isAlpha(c) || c == '_')
    return lexIdentifier(tokStart);

  switch (c) {
  case '"':
    return lexString(tokStart);
  case '%':
  case '@':
    return lexSigil(tokStart);
  case '#':
    return lexHashAttribute(tokStart);
  }

  ++cur;
  auto twoChar = [&](char next, TokenKind two, TokenKind one) {
    if (cur != end && *cur == next) {
      ++cur;
      return makeToken(two, tokStart);
    }
    return makeToken(one, tokStart);
  };
  switch (c) {
  case '(':
    return makeToken(TokenKind::LParen, tokStart);
  case ')':
    return makeToken(TokenKind::RParen, tokStart);
  case '[':
    return makeToken(TokenKind::LBracket, tokStart);
  case ']':
    return makeToken(TokenKind::RBracket, tokStart);
  case '{':
    return makeToken(TokenKind::LBrace, tokStart);
  case '}':
    return makeToken(TokenKind::RBrace, tokStart);
  case ',':
    return makeToken(TokenKind::Comma, tokStart);
  case '.':
    return makeToken(TokenKind::Period, tokStart);
  case ';':
    return makeToken(TokenKind::Semicolon, tokStart);
  case ':':
    return makeToken(TokenKind::Colon, tokStart);
  case '+':
    return makeToken(TokenKind::Plus, tokStart);
  case '*':
    return makeToken(TokenKind::Star, tokStart);
  case '/':
    return makeToken(TokenKind::Slash, tokStart);
  case '?':
    return makeToken(TokenKind::Question, tokStart);
  case '<':
    return twoChar('=', TokenKind::LessEqual, TokenKind::Less);
  case '>':
    return twoChar('=', TokenKind::GreaterEqual, TokenKind::Greater);
  case '!':
    return twoChar('=', TokenKind::NotEqual, TokenKind::Bang);
  case '=':
    if (cur != end && *cur == '>') {
      ++cur;
      return makeToken(TokenKind::FatArrow, tokStart);
    }
    return twoChar('=', TokenKind::EqualEqual, TokenKind::Equal);
  }
  return makeError(tokStart, "unexpected character " + describeChar(c));
}

Token Lexer::lexIdentifier(const char *tokStart) {
  while (cur != end && isIdentChar(*cur))
    ++cur;
  StringRef word(tokStart, cur - tokStart);
  if (word == "meta" && cur != end && *cur == '[')
    return lexMetaRef(tokStart);
  if (word == "match" && cur != end && *cur == '?') {
    ++cur;
    return makeToken(TokenKind::KwPartialMatch, tokStart);
  }
  if (isSpecialFloatWord(word))
    return lexSpecialFloat(tokStart, word, /*negative=*/false);
  if (word == "nan") {
    // `nan:0x1`: a NaN spelled by its significand, without a suffix (a dense
    // element, whose type is the tensor's: the parser checks the digits).
    StringRef payload = lexNaNPayload();
    if (!payload.empty()) {
      Token tok = makeToken(TokenKind::Float, tokStart);
      tok.dtype = DataType::float32();
      tok.numberText = word;
      tok.nanPayload = payload;
      tok.floatValue = std::nan("");
      return tok;
    }
  }
  TokenKind kind = StringSwitch<TokenKind>(word)
                       .Case("let", TokenKind::KwLet)
                       .Case("fn", TokenKind::KwFn)
                       .Case("def", TokenKind::KwDef)
                       .Case("if", TokenKind::KwIf)
                       .Case("else", TokenKind::KwElse)
                       .Case("type", TokenKind::KwType)
                       .Case("match", TokenKind::KwMatch)
                       .Case("extern", TokenKind::KwExtern)
                       .Case("free_var", TokenKind::KwFreeVar)
                       .Case("ref", TokenKind::KwRef)
                       .Case("ref_read", TokenKind::KwRefRead)
                       .Case("ref_write", TokenKind::KwRefWrite)
                       .Case("True", TokenKind::KwTrue)
                       .Case("False", TokenKind::KwFalse)
                       .Case("_", TokenKind::Underscore)
                       .Default(TokenKind::Identifier);
  Token tok = makeToken(kind, tokStart);
  tok.name = word;
  return tok;
}

/// The largest NaN significand of a float type.
static uint64_t getSignificandMask(DataType dtype) {
  return (uint64_t(1)
          << (APFloat::semanticsPrecision(*dtype.getFloatSemantics()) - 1)) -
         1;
}

/// Sets floatValue from numberText / nanPayload / negative / dtype: the decimal
/// text as a float64, or the NaN of the literal's type, widened. False for a
/// malformed number or NaN significand.
static bool setFloatValue(Token &tok) {
  uint64_t bits;
  if (tok.nanPayload.empty()) {
    FloatParseStatus status =
        parseFloatBits(tok.numberText, APFloat::IEEEdouble(), bits);
    if (status == FloatParseStatus::Invalid)
      return false;
    tok.floatValue = status == FloatParseStatus::Overflow
                         ? HUGE_VAL
                         : getDoubleFromBits(bits);
  } else {
    const fltSemantics &sem = *tok.dtype.getFloatSemantics();
    std::string text = ("nan:0x" + tok.nanPayload).str();
    if (parseFloatBits(text, sem, bits) != FloatParseStatus::Ok)
      return false;
    tok.floatValue = widenToDouble(sem, bits);
  }
  if (tok.negative)
    tok.floatValue = -tok.floatValue;
  return true;
}

StringRef Lexer::lexNaNPayload() {
  if (end - cur < 4 || cur[0] != ':' || cur[1] != '0' || cur[2] != 'x' ||
      !isHexDigit(cur[3]))
    return StringRef();
  const char *digits = cur + 3;
  cur = digits;
  while (cur != end && isHexDigit(*cur))
    ++cur;
  return StringRef(digits, cur - digits);
}

Token Lexer::lexSpecialFloat(const char *tokStart, StringRef word,
                             bool negative) {
  // word is "inf" or "nan" followed by a float suffix; a NaN may spell its
  // significand after it (`nanf:0x1`).
  StringRef payload = word.starts_with("nan") ? lexNaNPayload() : StringRef();
  Token tok = makeToken(TokenKind::Float, tokStart);
  tok.dtype = *floatSuffixType(word.drop_front(3));
  tok.hasSuffix = true;
  tok.numberText = word.take_front(3);
  tok.nanPayload = payload;
  tok.negative = negative;
  if (!setFloatValue(tok))
    return makeError(tokStart, "invalid NaN significand in '" + tok.spelling +
                                   "'; expected 0x1 to 0x" +
                                   utohexstr(getSignificandMask(tok.dtype),
                                             /*LowerCase=*/true));
  return tok;
}

Token Lexer::lexNumber(const char *tokStart, bool negative) {
  const char *bodyStart = cur;
  while (cur != end && isNumberChar(*cur))
    ++cur;
  StringRef body(bodyStart, cur - bodyStart);
  StringRef suffix;
  if (cur != end && (*cur == 'f' || *cur == 'i')) {
    const char *suffixStart = cur++;
    while (cur != end && isDigit(*cur))
      ++cur;
    suffix = StringRef(suffixStart, cur - suffixStart);
  }
  // A literal glued to letters (`2u8`, `1x`) is one bad token.
  bool glued = false;
  while (cur != end && isIdentChar(*cur)) {
    ++cur;
    glued = true;
  }
  Token tok = makeToken(TokenKind::Integer, tokStart);
  auto invalid = [&]() {
    return makeError(tokStart, "invalid number '" + tok.spelling + "'");
  };
  if (glued)
    return invalid();

  bool isIntegerText = llvm::all_of(body, isDigit);
  if (isIntegerText && (suffix.empty() || suffix[0] == 'i')) {
    uint64_t magnitude;
    if (body.getAsInteger(10, magnitude))
      return makeError(tokStart, "integer literal '" + tok.spelling +
                                     "' is out of range");
    std::optional<DataType> suffixDType =
        suffix.empty() ? DataType::int32() : suffixType(suffix, 'i');
    if (!suffixDType)
      return makeError(tokStart, "invalid integer literal width '" + suffix +
                                     "'; expected " + listSuffixes('i'));
    unsigned bits = suffixDType->getBits();
    auto fits = [&](unsigned b) {
      uint64_t limit = uint64_t(1) << (b - 1); // |min|; max is limit - 1.
      return negative ? magnitude <= limit : magnitude < limit;
    };
    if (suffix.empty() && !fits(32))
      bits = 64; // TVM: an unsuffixed literal that does not fit int32.
    if (!fits(bits)) {
      if (suffix.empty() && !negative) {
        // Only a dense<> literal of uint64 can use this; the parser checks.
        tok.dtype = DataType::uint64();
        tok.intValue = static_cast<int64_t>(magnitude);
        tok.numberText = body;
        return tok;
      }
      return makeError(tokStart, "integer literal '" + tok.spelling +
                                     "' is out of range for int" + Twine(bits));
    }
    tok.dtype = DataType(DataType::Int, bits);
    tok.intValue = negative ? static_cast<int64_t>(0 - magnitude)
                            : static_cast<int64_t>(magnitude);
    tok.numberText = body;
    tok.negative = negative;
    return tok;
  }

  // Floats: an `f` suffix, or (nnir extension) no suffix with '.'/exponent.
  if (!suffix.empty() && suffix[0] == 'i')
    return invalid();
  DataType dtype = DataType::float32();
  if (!suffix.empty()) {
    std::optional<DataType> suffixType = floatSuffixType(suffix);
    if (!suffixType)
      return makeError(tokStart, "invalid float literal width '" + suffix +
                                     "'; expected " + listSuffixes('f'));
    dtype = *suffixType;
  }
  // The range is checked where the literal is used (a dense element takes
  // the tensor's type, not the suffix's).
  tok.kind = TokenKind::Float;
  tok.dtype = dtype;
  tok.hasSuffix = !suffix.empty();
  tok.numberText = body;
  tok.negative = negative;
  if (!setFloatValue(tok))
    return invalid();
  return tok;
}

Token Lexer::lexString(const char *tokStart) {
  ++cur; // '"'
  std::string value;
  while (true) {
    if (cur == end)
      return makeError(tokStart, "unterminated string");
    char c = *cur++;
    if (c == '"')
      break;
    if (c != '\\' || cur == end) {
      value += c;
      continue;
    }
    // The escapes nnir's printer writes. TVM itself does no escape
    // processing, so any other backslash is kept as written.
    switch (*cur) {
    case '"':
      value += '"';
      ++cur;
      continue;
    case '\\':
      value += '\\';
      ++cur;
      continue;
    case 't':
      value += '\t';
      ++cur;
      continue;
    case 'r':
      value += '\r';
      ++cur;
      continue;
    case 'n':
      value += '\n';
      ++cur;
      continue;
    case 'x':
      if (end - cur >= 3 && isHexDigit(cur[1]) && isHexDigit(cur[2])) {
        value += static_cast<char>(hexDigitValue(cur[1]) * 16 +
                                   hexDigitValue(cur[2]));
        cur += 3;
        continue;
      }
      break;
    default:
      break;
    }
    value += '\\';
  }
  Token tok = makeToken(TokenKind::String, tokStart);
  tok.text = std::move(value);
  return tok;
}

Token Lexer::lexSigil(const char *tokStart) {
  char sigil = *cur++;
  if (sigil == '%' && cur != end && isDigit(*cur)) {
    const char *digits = cur;
    while (cur != end && isDigit(*cur))
      ++cur;
    Token tok = makeToken(TokenKind::GraphVar, tokStart);
    if (StringRef(digits, cur - digits).getAsInteger(10, tok.number))
      return makeError(tokStart, "graph variable number '" + tok.spelling +
                                     "' is too large");
    return tok;
  }
  if (sigil == '@' && cur != end && *cur == '"') {
    // `@"has space"`: a global name that is not an identifier.
    Token name = lexString(cur);
    if (name.is(TokenKind::Error))
      return name;
    Token tok = makeToken(TokenKind::GlobalVar, tokStart);
    tok.text = std::move(name.text);
    tok.quoted = true;
    return tok;
  }
  const char *nameStart = cur;
  // Global names may start with a digit; local ones that do are graph vars.
  while (cur != end && (sigil == '@'       ? isIdentChar(*cur)
                        : cur == nameStart ? isIdentStart(*cur)
                                           : isIdentChar(*cur)))
    ++cur;
  if (cur == nameStart)
    return makeError(tokStart, sigil == '%' ? "expected a name after '%'"
                                            : "expected a name after '@'");
  Token tok = makeToken(
      sigil == '%' ? TokenKind::LocalVar : TokenKind::GlobalVar, tokStart);
  tok.name = StringRef(nameStart, cur - nameStart);
  return tok;
}

Token Lexer::lexHashAttribute(const char *tokStart) {
  ++cur; // '#'
  if (cur == end || *cur != '[')
    return makeError(tokStart, "unexpected character '#'");
  const char *close = cur;
  while (close != end && *close != ']')
    ++close;
  if (close == end)
    return makeError(tokStart, "unterminated '#[' attribute");
  StringRef inner = StringRef(cur + 1, close - cur - 1).trim();
  cur = close + 1;
  Token tok = makeToken(TokenKind::Version, tokStart);
  if (inner == "metadata") {
    tok.kind = TokenKind::Metadata;
    tok.name = StringRef(cur, end - cur);
    cur = end;
    return tok;
  }
  if (inner.consume_front("version")) {
    inner = inner.ltrim();
    if (inner.consume_front("=")) {
      inner = inner.trim();
      if (inner == "\"0.0.5\"")
        return tok;
      return makeError(tokStart, "unsupported text format version " + inner +
                                     "; expected \"0.0.5\"");
    }
  }
  return makeError(tokStart, "unsupported attribute '" + tok.spelling + "'");
}

Token Lexer::lexMetaRef(const char *tokStart) {
  // `meta` has been read; cur is at '['.
  auto malformed = [&]() {
    return makeError(
        tokStart, "malformed meta reference; expected meta[TYPE_KEY][INDEX]");
  };
  const char *keyStart = ++cur;
  while (cur != end && (isAlnum(*cur) || *cur == '_' || *cur == '.'))
    ++cur;
  StringRef key(keyStart, cur - keyStart);
  if (key.empty() || cur == end || *cur != ']')
    return malformed();
  ++cur;
  if (cur == end || *cur != '[')
    return malformed();
  const char *digits = ++cur;
  while (cur != end && isDigit(*cur))
    ++cur;
  StringRef index(digits, cur - digits);
  if (index.empty() || cur == end || *cur != ']')
    return malformed();
  ++cur;
  Token tok = makeToken(TokenKind::MetaRef, tokStart);
  tok.name = key;
  if (index.getAsInteger(10, tok.number))
    return makeError(tokStart,
                     "meta reference index '" + index + "' is too large");
  return tok;
}
