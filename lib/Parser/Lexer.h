//===- Lexer.h - Tokens of the Relay text format ----------------*- C++ -*-===//
//
/// \file
/// The lexer of the Relay text format v0.0.5 (TVM's tokenizer.h), with nnir's
/// extensions: `1.5` without a suffix is a float32 literal, `nanf` is a NaN
/// literal, `inf`/`nan` take any float width suffix, a NaN may spell its
/// significand (`nanf:0x1`, `-nanf64:0x8000000000001`, and `nan:0x1` without
/// a suffix), strings understand the escapes nnir's printer writes (`\"`,
/// `\\`, `\t`, `\r`, `\n`, `\xHH`), and a global name may be quoted
/// (`@"has space"`).
///
/// The lexer is a pull lexer over one buffer: it never tokenizes ahead of the
/// parser, and it is a small value type, so the parser looks ahead by copying
/// it. Errors come back as Error tokens carrying a message; the lexer never
/// crashes on any byte sequence.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PARSER_LEXER_H
#define NNIR_PARSER_LEXER_H

#include "nnir/Runtime/DataType.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <string>

namespace nnir {

enum class TokenKind : uint8_t {
  Eof,
  Error,
  Identifier, // foo (dotted names are assembled by the parser)
  LocalVar,   // %x
  GraphVar,   // %12
  GlobalVar,  // @main
  Integer,    // 1, 2i64, -3i16
  Float,      // 1.5f, 2f16, inff, nanf, 1.5
  String,     // "..."
  MetaRef,    // meta[relay.Constant][0]
  Version,    // #[version = "0.0.5"]
  Metadata,   // #[metadata] (the payload is the rest of the buffer)

  // Keywords.
  KwLet,
  KwFn,
  KwDef,
  KwIf,
  KwElse,
  KwType,
  KwMatch,
  KwPartialMatch, // match?
  KwExtern,
  KwFreeVar,
  KwRef,
  KwRefRead,
  KwRefWrite,
  KwTrue,
  KwFalse,
  Underscore,

  // Punctuation.
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Period,
  Equal,
  Semicolon,
  Colon,
  Plus,
  Minus,
  Star,
  Slash,
  Less,
  Greater,
  LessEqual,
  GreaterEqual,
  EqualEqual,
  NotEqual,
  Bang,
  Question,
  Arrow,    // ->
  FatArrow, // =>
};

/// A short description of a token kind for diagnostics ("')'", "identifier").
llvm::StringRef getTokenKindName(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::Eof;
  /// The source text of the token (for Error tokens: where the error is).
  llvm::StringRef spelling;
  /// Identifier / LocalVar / GlobalVar: the name without its sigil.
  /// MetaRef: the type key. Metadata: the JSON payload.
  llvm::StringRef name;
  /// Integer: the value. When the literal has no suffix and does not fit
  /// int64 (but fits uint64), dtype is uint64 and the bits are stored here.
  int64_t intValue = 0;
  /// Float: the value as a float64, correctly rounded (infinite when it is
  /// out of float64's range). A NaN is the literal's NaN in its own type,
  /// widened (nnir/Support/Numbers.h).
  double floatValue = 0;
  /// Integer / Float: the literal's type (float32 for an unsuffixed float).
  DataType dtype;
  /// Integer / Float: the number without its sign and suffix (`1.5`, `10`,
  /// `inf`, `nan`), and the hex digits of a NaN's significand (`nanf:0x1`).
  /// The parser converts this text to the type the context asks for, so a
  /// value is rounded once, from its decimal spelling.
  llvm::StringRef numberText;
  llvm::StringRef nanPayload;
  /// Integer / Float: written with an odd run of '-' before it.
  bool negative = false;
  /// Float: written with a width suffix (`f`, `f16`, `f32`, `f64`).
  bool hasSuffix = false;
  /// GraphVar: the number. MetaRef: the index.
  uint64_t number = 0;
  /// String, and a GlobalVar written `@"..."`: the decoded value. Error:
  /// the message.
  std::string text;
  /// GlobalVar: written `@"..."` (its name is in text).
  bool quoted = false;

  bool is(TokenKind k) const { return kind == k; }
  bool isNot(TokenKind k) const { return kind != k; }
  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data());
  }
};

class Lexer {
public:
  /// Lexes \p buffer, skipping a UTF-8 byte order mark at its start.
  explicit Lexer(llvm::StringRef buffer)
      : cur(buffer.begin()), end(buffer.end()) {
    if (buffer.starts_with("\xEF\xBB\xBF"))
      cur += 3;
  }

  /// Lexes the next token, skipping whitespace and comments.
  Token lex();

  /// True if the character right after the last token is \p c.
  bool nextCharIs(char c) const { return cur != end && *cur == c; }

private:
  Token makeToken(TokenKind kind, const char *tokStart);
  Token makeError(const char *loc, const llvm::Twine &message);
  /// Skips whitespace and comments; on a malformed one returns false and
  /// sets \p error.
  bool skipTrivia(Token &error);

  Token lexIdentifier(const char *tokStart);
  Token lexNumber(const char *tokStart, bool negative);
  Token lexSpecialFloat(const char *tokStart, llvm::StringRef word,
                        bool negative);
  /// After `nan`: `:0x` and hex digits, consumed and returned, or empty.
  llvm::StringRef lexNaNPayload();
  Token lexString(const char *tokStart);
  Token lexSigil(const char *tokStart);
  Token lexHashAttribute(const char *tokStart);
  Token lexMetaRef(const char *tokStart);

  const char *cur;
  const char *end;
};

} // namespace nnir

#endif // NNIR_PARSER_LEXER_H
