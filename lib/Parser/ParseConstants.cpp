//===- ParseConstants.cpp - Relay constants ---------------------------------===//
//
/// \file
/// The parser's constants: nnir's `dense<...> : Type` inline constants and
/// TVM's metadata section with its `meta[relay.Constant][i]` references
/// (ParserImpl.h).
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::parser;

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
  if (tensorType->isDynamic()) {
    emitError(typeLoc, "a constant has a static shape, got " + type->str());
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

/// Drops the pages of \p text, a part of the mapped \p buffer that has been
/// read, and of the 2 MiB before it: a fault maps the pages around it that
/// the page cache holds (fault-around, large folios), so reading a text
/// maps back the end of the text read just before it, already released.
static void releaseReadText(const MemoryBuffer &buffer, StringRef text) {
  constexpr size_t kMarginBytes = size_t(2) << 20;
  size_t margin =
      std::min<size_t>(text.data() - buffer.getBufferStart(), kMarginBytes);
  releaseMappedPages(buffer,
                     StringRef(text.data() - margin, text.size() + margin));
}

bool Parser::loadMetadata(const Token &metadataTok) {
  if (metadataSearched && metadata)
    return true; // Decoded when the first reference was met.
  metadataSearched = true;
  MetadataLimits limits;
  limits.maxTensorBytes = options.maxConstantBytes;
  // Tensors of a mapped file stay in it until they are needed.
  const MemoryBuffer *shared = options.sharedBuffer.get();
  if (shared && shared->getBufferKind() == MemoryBuffer::MemoryBuffer_MMap &&
      shared->getBufferStart() == buffer.getBufferStart() &&
      shared->getBufferSize() == buffer.getBufferSize()) {
    limits.textOwner = options.sharedBuffer;
    limits.releaseText = [shared](StringRef text) {
      releaseReadText(*shared, text);
    };
  }
  // Each tensor's text is dropped from memory once it is decoded, so the
  // file and the weights it holds are not resident together.
  Expected<MetadataTable> table =
      decodeMetadata(metadataTok.name, limits, [&](StringRef text) {
        releaseReadText(buffer, text);
      });
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
