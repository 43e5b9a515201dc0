//===- Printer.h - Relay text format printer ---------------------*- C++ -*-===//
//
/// \file
/// Prints modules and expressions in the Relay text format v0.0.5, the way
/// TVM's `astext()` does: `#[version = "0.0.5"]`, `def @f(...) { ... }`,
/// graph bindings `%0 = ...;` for every non-atomic call argument, tuple field
/// and condition, `let`, `if`, keyword attributes (non-default fields only),
/// and `/* ty=... */` comments behind a flag.
///
/// Constants: 0-d constants of int16/int32/int64/float16/float32/float64/bool
/// print as TVM's scalar literals (`3f`, `2i64`, `True`), with enough digits
/// to read back bit-exactly. Other constants with at most
/// PrintOptions::inlineConstantLimit elements print inline with nnir's
/// `dense<...> : type` extension (docs/TextFormat.md), as do constants of any
/// size whose elements are all equal (`dense<1f> : Tensor[(4096, 4096),
/// float32]`); the others go to the `#[metadata]` section as
/// `meta[relay.Constant][i]`, in TVM's JSON format.
///
/// The printer never recurses on dataflow depth.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_PRINTER_H
#define NNIR_IR_PRINTER_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace nnir {

class Expr;
class IRModule;
class Type;

struct PrintOptions {
  /// Print `/* ty=... */` after nodes that have a checked type.
  bool showTypes = false;
  /// Non-scalar constants with at most this many elements, or with one
  /// repeated value, print inline (`dense<...>`); larger ones go to the
  /// metadata section. A negative value inlines every constant; 0 promises
  /// TVM's syntax and sends every non-scalar constant to the metadata.
  int64_t inlineConstantLimit = 16;
  /// Print the `#[version = "0.0.5"]` header (modules only).
  bool printVersion = true;
  /// Print the `#[metadata]` section when constants were sent there.
  bool printMetadata = true;
};

void printModule(const IRModule &module, llvm::raw_ostream &os,
                 const PrintOptions &options = {});
/// Prints an expression; free variables are declared with `free_var`.
void printExpr(const Expr *expr, llvm::raw_ostream &os,
               const PrintOptions &options = {});

/// Prints a global function's name with its `@`: bare when it is an
/// identifier the lexer reads back (`@main`, `@conv2d_1`), quoted with the
/// string escapes otherwise (`@"has space"`, `@""`).
void printGlobalName(llvm::raw_ostream &os, llvm::StringRef name);
std::string formatGlobalName(llvm::StringRef name);

std::string toString(const IRModule &module, const PrintOptions &options = {});
std::string toString(const Expr *expr, const PrintOptions &options = {});

} // namespace nnir

#endif // NNIR_IR_PRINTER_H
