//===- Parser.h - Relay text format parser -----------------------*- C++ -*-===//
//
/// \file
/// Parses the Relay text format v0.0.5 (what TVM's `astext()` prints) into an
/// IRModule, plus nnir's documented extensions (see docs/TextFormat.md):
///   - inline constants `dense<Elements> : Type` (a single unbracketed scalar
///     is a splat; otherwise the brackets follow the shape);
///   - `1.5` / `1e3` without a suffix are float32 literals (TVM rejects them);
///   - `nanf` (and `inf`/`nan` with any float width suffix) is a literal;
///   - strings understand the escapes nnir's printer writes (`\"`, `\\`,
///     `\t`, `\r`, `\n`, `\xHH`); any other backslash is kept as written;
///   - bare `bfloat16`, `int8`, ... are 0-d tensor types;
///   - a dotted attribute key may be the first keyword argument;
///   - a UTF-8 byte order mark at the start of the buffer is skipped.
/// Every node gets the location of its source text. Errors are
/// DiagnosticErrors located in the SourceMgr buffer (file:line:col); the
/// parser never crashes or aborts on bad input, and the first error stops it.
///
/// Not supported (each a located error): ADTs (`type`, `match`), references,
/// type parameters, dynamic (`?`) or symbolic dimensions, virtual devices on
/// parameters, and metadata entries other than relay.Constant.
///
/// Graph bindings (`%0 = ...;`) share one node among all uses; parsing is
/// iterative along binding sequences, so a module with a 1,000,000-call chain
/// parses with a small stack. Syntactic nesting (parentheses, tuples, `fn`,
/// `if`, types) is bounded by ParserOptions::maxNestingDepth.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PARSER_PARSER_H
#define NNIR_PARSER_PARSER_H

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <memory>

namespace nnir {

struct ParserOptions {
  /// Deepest syntactic nesting accepted before a "nesting too deep" error.
  unsigned maxNestingDepth = 1000;
  /// Largest constant (in bytes) the parser will materialise, from inline
  /// literals or the metadata section. The inline constants together may not
  /// exceed it either: a splat (`dense<0> : Tensor[(N), float32]`) costs a
  /// few bytes of text, and metadata tensors are bounded by the text anyway.
  uint64_t maxConstantBytes = uint64_t(1) << 32;
  /// Require the `#[version = "0.0.5"]` header (TVM requires it).
  bool requireVersion = false;
  /// The buffer being parsed, shared (nnir/Tools/ModuleLoader.h's
  /// addInputFile). When it is a mapped file, the metadata section's tensors
  /// are checked but stay in it as text until their data is needed, holding
  /// the buffer; printing an untouched one copies its text. The file must
  /// not change while the module lives. Otherwise, and for any other buffer
  /// (standard input, a string), they are decoded as they are parsed.
  std::shared_ptr<const llvm::MemoryBuffer> sharedBuffer;
};

/// Parses buffer \p bufferId of \p sourceMgr as a module.
llvm::Expected<Ref<IRModule>> parseModule(llvm::SourceMgr &sourceMgr,
                                          unsigned bufferId,
                                          const ParserOptions &options = {});

/// Adds \p text to \p sourceMgr under \p bufferName and parses it.
llvm::Expected<Ref<IRModule>> parseModule(llvm::StringRef text,
                                          llvm::SourceMgr &sourceMgr,
                                          llvm::StringRef bufferName = "<string>",
                                          const ParserOptions &options = {});

/// Parses a single expression (TVM's parse_expr); `free_var` declarations are
/// allowed and undeclared variables are errors. Global references (`@f`) are
/// not checked, as there is no module to check them against.
llvm::Expected<Ref<Expr>> parseExpr(llvm::StringRef text,
                                    llvm::SourceMgr &sourceMgr,
                                    llvm::StringRef bufferName = "<string>",
                                    const ParserOptions &options = {});

/// Parses a type (`Tensor[(1, 3), float32]`, `(int32, bool)`, ...).
llvm::Expected<Ref<Type>> parseType(llvm::StringRef text,
                                    llvm::SourceMgr &sourceMgr,
                                    llvm::StringRef bufferName = "<string>");

} // namespace nnir

#endif // NNIR_PARSER_PARSER_H
