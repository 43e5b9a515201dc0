//===- ParserImpl.h - The Relay text format parser --------------*- C++ -*-===//
//
/// \file
/// The recursive-descent parser behind nnir/Parser/Parser.h, private to
/// lib/Parser. One class in four files, by the grammar's parts: Parser.cpp
/// (modules, functions, bindings, expressions), ParseAttrs.cpp (attributes),
/// ParseTypes.cpp (types) and ParseConstants.cpp (`dense<...>` constants and
/// the metadata section). Parser.cpp's file comment describes the design.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_PARSER_PARSERIMPL_H
#define NNIR_LIB_PARSER_PARSERIMPL_H

#include "nnir/Parser/Parser.h"

#include "Lexer.h"

#include "nnir/IR/Metadata.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Printer.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Support/Heap.h"
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

namespace nnir {
namespace parser {

// The LLVM names the parser uses unqualified, as MLIR's Support/LLVM.h
// brings them into its namespace.
using llvm::APFloat;
using llvm::ArrayRef;
using llvm::DenseMap;
using llvm::Error;
using llvm::ErrorInfoBase;
using llvm::Expected;
using llvm::fltSemantics;
using llvm::SmallVector;
using llvm::SmallVectorImpl;
using llvm::SMLoc;
using llvm::StringMap;
using llvm::StringRef;
using llvm::StringSet;
using llvm::Twine;


enum class ParseMode { Module, Expr, Type };

class Parser {
public:
  Parser(const llvm::MemoryBuffer &buffer, const ParserOptions &options,
         ParseMode mode)
      : buffer(buffer), lexer(buffer.getBuffer()), options(options),
        mode(mode), denseGraphLimit(buffer.getBufferSize() / 8 + 1024) {}

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
  LLVM_ATTRIBUTE_NOINLINE bool parseVarDevice(AttrValue &device);
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

  /// The text parsed (the metadata decoder drops the pages of a mapped
  /// file's tensors once they are decoded).
  const llvm::MemoryBuffer &buffer;
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

/// The text of a number as parseFloatBits reads it, without the sign.
inline std::string getNumberText(StringRef digits, StringRef nanPayload) {
  if (nanPayload.empty())
    return digits.str();
  return ("nan:0x" + nanPayload).str();
}

/// Sets the sign bit of \p bits, a value of format \p sem.
inline uint64_t negateBits(const fltSemantics &sem, uint64_t bits) {
  return bits ^ (uint64_t(1) << (APFloat::semanticsSizeInBits(sem) - 1));
}

} // namespace parser
} // namespace nnir

#endif // NNIR_LIB_PARSER_PARSERIMPL_H
