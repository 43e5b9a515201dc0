//===- Diagnostics.cpp - Located errors over llvm::SourceMgr --------------===//
//
/// \file
/// Implements DiagnosticError and its rendering.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/Diagnostics.h"

#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Unicode.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

char DiagnosticError::ID = 0;

void DiagnosticError::log(raw_ostream &os) const { os << message; }

std::error_code DiagnosticError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

Error nnir::makeError(SMLoc loc, const Twine &message) {
  return make_error<DiagnosticError>(loc, message.str());
}

Error nnir::makeError(const Twine &message) {
  return make_error<DiagnosticError>(SMLoc(), message.str());
}

/// How diagnostics show source text, as clang does: the source line of a
/// located diagnostic is shown as a window of at most kSnippetColumns
/// columns around the location (`...` marks text left out), with a caret
/// under the location. Columns count characters as a person sees them:
/// UTF-8 code points (a byte that starts no valid UTF-8 sequence counts as
/// one; a tab counts as one in `file:line:col` and stops every 8 columns in
/// the snippet; a leading byte order mark is not counted). Characters that
/// do not print show as `<U+0000>` (controls) or `<FF>` (invalid bytes).
static constexpr unsigned kSnippetColumns = 100;

/// Messages longer than this lose their middle to `...` (they quote names
/// and tokens of the input, which may be megabytes long).
static constexpr size_t kMaxMessageBytes = 1000;

/// Errors printErrors shows before it stops (clang's -ferror-limit, whose
/// default is also 20).
static constexpr unsigned kErrorLimit = 20;

static bool isInSourceMgr(const SourceMgr &sm, SMLoc loc) {
  return loc.isValid() && sm.FindBufferContainingLoc(loc) != 0;
}

//===----------------------------------------------------------------------===//
// Source lines as a person sees them
//===----------------------------------------------------------------------===//

namespace {

/// One character of a source line: a UTF-8 code point, or a byte that
/// starts no valid UTF-8 sequence.
struct SourceChar {
  /// Bytes in the source.
  unsigned size;
  /// The code point, or -1 for an invalid byte.
  int32_t codePoint;
};

/// A diagnostic's place: its line and the character the location is in.
struct SourcePlace {
  /// The line, without its end of line (and without a leading byte order
  /// mark on line 1).
  StringRef line;
  /// Byte offset of the location in \p line.
  size_t offset = 0;
  unsigned lineNumber = 0;
  /// 1-based, in characters (code points).
  unsigned column = 0;
};

} // namespace

/// The character that starts \p text (which is not empty).
static SourceChar decodeChar(StringRef text) {
  auto *begin = reinterpret_cast<const UTF8 *>(text.data());
  unsigned size = getNumBytesForUTF8(*begin);
  if (size == 0 || size > text.size() ||
      !isLegalUTF8Sequence(begin, begin + size))
    return {1, -1};
  if (size == 1)
    return {1, int32_t(*begin)};
  const UTF8 *cursor = begin;
  UTF32 codePoint = 0;
  UTF32 *out = &codePoint;
  if (ConvertUTF8toUTF32(&cursor, begin + size, &out, out + 1,
                         strictConversion) != conversionOK)
    return {1, -1};
  return {size, int32_t(codePoint)};
}

static SourcePlace locate(const SourceMgr &sm, SMLoc loc) {
  unsigned bufferId = sm.FindBufferContainingLoc(loc);
  StringRef buffer = sm.getMemoryBuffer(bufferId)->getBuffer();
  size_t offset = loc.getPointer() - buffer.data();
  size_t newline = buffer.rfind('\n', offset);
  size_t lineStart = newline == StringRef::npos ? 0 : newline + 1;
  // The lexer skips a leading byte order mark: so does the column count.
  if (lineStart == 0 && buffer.starts_with("\xEF\xBB\xBF") && offset >= 3)
    lineStart = 3;
  size_t lineEnd = buffer.find_first_of("\r\n", offset);
  if (lineEnd == StringRef::npos)
    lineEnd = buffer.size();
  // A location at a line end (an error at `\n`) belongs to its line.
  if (lineEnd < offset)
    lineEnd = offset;
  SourcePlace place;
  place.line = buffer.slice(lineStart, lineEnd);
  place.offset = offset - lineStart;
  place.lineNumber = sm.getLineAndColumn(loc, bufferId).first;
  place.column = 1;
  for (size_t i = 0; i < place.offset;) {
    i += decodeChar(place.line.drop_front(i)).size;
    ++place.column;
  }
  return place;
}

/// Appends how \p c shows in a snippet to \p out; returns its width in
/// columns. Tabs stop every 8 columns (of \p column); characters that do
/// not print (controls, NUL, invalid bytes) show as clang shows them:
/// `<U+0000>`, `<FF>`.
static unsigned renderChar(StringRef bytes, SourceChar c, unsigned column,
                           std::string *out) {
  std::string text;
  unsigned width;
  if (c.codePoint == '\t') {
    width = 8 - column % 8;
    text.assign(width, ' ');
  } else if (c.codePoint < 0) {
    raw_string_ostream(text)
        << '<' << format_hex_no_prefix(uint8_t(bytes[0]), 2, /*Upper=*/true)
        << '>';
    width = text.size();
  } else if (!sys::unicode::isPrintable(c.codePoint)) {
    raw_string_ostream(text)
        << "<U+" << format_hex_no_prefix(c.codePoint, 4, /*Upper=*/true)
        << '>';
    width = text.size();
  } else {
    text = bytes.take_front(c.size).str();
    int w = sys::unicode::columnWidthUTF8(text);
    width = w < 0 ? 1 : unsigned(w);
  }
  if (out)
    *out += text;
  return width;
}

/// Writes the window of \p place's line around its location (at most
/// kSnippetColumns wide, `...` where text is left out) and the caret under
/// the location.
static void printSnippet(const SourcePlace &place, raw_ostream &os) {
  StringRef line = place.line;
  // The display column of the location.
  unsigned caret = 0;
  for (size_t i = 0; i < place.offset && i < line.size();) {
    SourceChar c = decodeChar(line.drop_front(i));
    caret += renderChar(line.drop_front(i), c, caret, nullptr);
    i += c.size;
  }
  // The width of the line, as far as a window could reach.
  unsigned total = 0;
  for (size_t i = 0; i < line.size() && total < caret + kSnippetColumns;) {
    SourceChar c = decodeChar(line.drop_front(i));
    total += renderChar(line.drop_front(i), c, total, nullptr);
    i += c.size;
  }
  // The whole line if it fits; else the location in the middle, or the
  // line's last kSnippetColumns columns when it ends sooner.
  unsigned first = 0;
  if (total > kSnippetColumns) {
    first = caret > kSnippetColumns / 2 ? caret - kSnippetColumns / 2 : 0;
    if (total < first + kSnippetColumns)
      first = total - kSnippetColumns;
  }
  unsigned last = first + kSnippetColumns;
  std::string text;
  unsigned textWidth = 0, column = 0, caretInText = 0;
  if (first > 0) {
    text = "...";
    textWidth = 3;
  }
  bool elidedBack = false;
  for (size_t i = 0; i < line.size();) {
    SourceChar c = decodeChar(line.drop_front(i));
    unsigned width = renderChar(line.drop_front(i), c, column, nullptr);
    if (column + width > last) {
      elidedBack = true;
      break;
    }
    if (column >= first) {
      if (i <= place.offset && place.offset < i + c.size)
        caretInText = textWidth;
      renderChar(line.drop_front(i), c, column, &text);
      textWidth += width;
    }
    column += width;
    i += c.size;
  }
  if (place.offset >= line.size())
    caretInText = textWidth;
  if (elidedBack)
    text += "...";
  os << text << '\n';
  WithColor(os, raw_ostream::GREEN, /*Bold=*/true).get().indent(caretInText)
      << "^\n";
}

/// Shortens a message to kMaxMessageBytes, eliding its middle (messages
/// quote identifiers and tokens, which may be as long as the input).
static std::string boundMessage(StringRef message) {
  if (message.size() <= kMaxMessageBytes)
    return message.str();
  auto cut = [&](size_t at) {
    // Never inside a UTF-8 sequence.
    while (at > 0 && (uint8_t(message[at]) & 0xC0) == 0x80)
      --at;
    return at;
  };
  size_t head = cut(kMaxMessageBytes * 3 / 4);
  size_t tail = cut(message.size() - kMaxMessageBytes / 4);
  return (message.take_front(head) + "..." + message.drop_front(tail)).str();
}

/// Renders one diagnostic: `file:line:col: <kind>: message`, the source
/// window and the caret when \p loc is in \p sm, else `<tool>: <kind>:
/// message`. Every located diagnostic of every tool is rendered here.
static void printDiagnostic(const SourceMgr &sm, SMLoc loc,
                            SourceMgr::DiagKind kind, const Twine &message,
                            raw_ostream &os, StringRef toolName = "") {
  std::string text = boundMessage(message.str());
  // `<prefix>: error: ` (or warning, note, remark), coloured as LLVM does.
  auto printKind = [&](StringRef prefix) -> raw_ostream & {
    switch (kind) {
    case SourceMgr::DK_Error:
      return WithColor::error(os, prefix);
    case SourceMgr::DK_Warning:
      return WithColor::warning(os, prefix);
    case SourceMgr::DK_Note:
      return WithColor::note(os, prefix);
    case SourceMgr::DK_Remark:
      break;
    }
    return WithColor::remark(os, prefix);
  };
  if (!isInSourceMgr(sm, loc)) {
    printKind(toolName) << text << "\n";
    return;
  }
  SourcePlace place = locate(sm, loc);
  StringRef name =
      sm.getMemoryBuffer(sm.FindBufferContainingLoc(loc))->getBufferIdentifier();
  WithColor(os, raw_ostream::SAVEDCOLOR, /*Bold=*/true).get()
      << name << ':' << place.lineNumber << ':' << place.column << ": ";
  printKind("");
  WithColor(os, raw_ostream::SAVEDCOLOR, /*Bold=*/true).get() << text << '\n';
  printSnippet(place, os);
}

bool nnir::printErrors(Error err, const SourceMgr &sm, StringRef toolName,
                       raw_ostream &os) {
  const unsigned errorLimit = kErrorLimit;
  unsigned count = 0;
  handleAllErrors(std::move(err), [&](const ErrorInfoBase &info) {
    ++count;
    if (count > errorLimit) {
      if (count == errorLimit + 1)
        WithColor::error(os, toolName)
            << "too many errors emitted, stopping now (the first "
            << errorLimit << " are shown)\n";
      return;
    }
    if (info.isA<DiagnosticError>()) {
      const auto *diag = static_cast<const DiagnosticError *>(&info);
      printDiagnostic(sm, diag->getLoc(), SourceMgr::DK_Error,
                      diag->getMessage(), os, toolName);
      return;
    }
    printDiagnostic(sm, SMLoc(), SourceMgr::DK_Error, info.message(), os,
                    toolName);
  });
  return count != 0;
}

void nnir::printNote(const SourceMgr &sm, SMLoc loc, const Twine &message,
                     raw_ostream &os) {
  printDiagnostic(sm, loc, SourceMgr::DK_Note, message, os);
}

void nnir::printWarning(const SourceMgr &sm, SMLoc loc, const Twine &message,
                        raw_ostream &os) {
  printDiagnostic(sm, loc, SourceMgr::DK_Warning, message, os);
}

void nnir::printRemark(const SourceMgr &sm, SMLoc loc, const Twine &message,
                       raw_ostream &os) {
  printDiagnostic(sm, loc, SourceMgr::DK_Remark, message, os);
}

std::pair<unsigned, unsigned> nnir::getLineAndColumn(const SourceMgr &sm,
                                                     SMLoc loc) {
  if (!isInSourceMgr(sm, loc))
    return {0, 0};
  SourcePlace place = locate(sm, loc);
  return {place.lineNumber, place.column};
}
