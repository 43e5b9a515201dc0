//===- DiagnosticVerifier.cpp - Expected diagnostics in the input ---------===//
//
/// \file
/// Implements DiagnosticVerifier (see DiagnosticVerifier.h).
//
//===----------------------------------------------------------------------===//

#include "nnir/Tools/DiagnosticVerifier.h"

#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

#include <cstring>
#include <optional>

using namespace llvm;
using namespace nnir;

static StringRef getKindName(DiagnosticVerifier::Kind kind) {
  switch (kind) {
  case DiagnosticVerifier::Kind::Error:
    return "error";
  case DiagnosticVerifier::Kind::Warning:
    return "warning";
  case DiagnosticVerifier::Kind::Remark:
    return "remark";
  case DiagnosticVerifier::Kind::Note:
    return "note";
  }
  return "error";
}

Error DiagnosticVerifier::addExpectations(unsigned bufferId) {
  StringRef text = sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
  SmallVector<StringRef, 0> lines;
  text.split(lines, '\n');
  // The kind, the optional line, then the text.
  static const Regex pattern(
      "^expected-([a-z]*)(@[^ \t{]*)?[ \t]*(\\{\\{(.*)\\}\\})?");
  for (size_t i = 0, e = lines.size(); i != e; ++i) {
    StringRef line = lines[i];
    size_t comment = line.find("//");
    if (comment == StringRef::npos)
      continue;
    // Every `expected-` of the comment; prose that mentions one (no kind,
    // no `{{`) is not an expectation.
    for (StringRef rest = line.drop_front(comment);;
         rest = rest.drop_front(strlen("expected-"))) {
      size_t at = rest.find("expected-");
      if (at == StringRef::npos)
        break;
      rest = rest.drop_front(at);
      SMLoc loc = SMLoc::getFromPointer(rest.data());
      SmallVector<StringRef, 5> match;
      if (!pattern.match(rest, &match) || match[1].empty())
        continue;
      std::optional<Kind> kind = StringSwitch<std::optional<Kind>>(match[1])
                                     .Case("error", Kind::Error)
                                     .Case("warning", Kind::Warning)
                                     .Case("remark", Kind::Remark)
                                     .Case("note", Kind::Note)
                                     .Default(std::nullopt);
      if (!kind) {
        if (match[3].empty())
          continue;
        return makeError(loc, "unknown expected diagnostic 'expected-" +
                                  match[1] +
                                  "'; expected expected-error, "
                                  "expected-warning, expected-remark or "
                                  "expected-note");
      }
      if (match[3].empty()) {
        if (match[2].empty() && !rest.drop_front(match[0].size())
                                     .ltrim()
                                     .starts_with("{"))
          continue; // `expected-error` in prose.
        return makeError(loc, "expected '{{' and '}}' around the text of the "
                              "expected diagnostic");
      }
      // Lines are numbered from 1.
      int64_t target = static_cast<int64_t>(i) + 1;
      StringRef where = match[2];
      if (!where.empty()) {
        where = where.drop_front(); // '@'
        int64_t offset = 0;
        if (where == "above")
          offset = -1;
        else if (where == "below")
          offset = 1;
        else if ((where.starts_with("+") || where.starts_with("-")) &&
                 !where.drop_front().getAsInteger(10, offset)) {
          if (where.starts_with("-"))
            offset = -offset;
        } else {
          return makeError(loc, "malformed line '@" + where +
                                    "' of an expected diagnostic; expected "
                                    "@+N, @-N, @above or @below");
        }
        target += offset;
        if (target < 1 || target > static_cast<int64_t>(lines.size()))
          return makeError(loc, "the expected diagnostic's line @" + where +
                                    " is outside the input");
      }
      expectations.push_back({*kind, bufferId, static_cast<unsigned>(target),
                              match[4].str(), loc});
    }
  }
  return Error::success();
}

void DiagnosticVerifier::record(Kind kind, SMLoc loc, const Twine &message) {
  produced.push_back({kind, loc, message.str()});
}

void DiagnosticVerifier::recordErrors(Error err) {
  handleAllErrors(std::move(err), [&](const ErrorInfoBase &info) {
    if (info.isA<DiagnosticError>()) {
      const auto &diag = static_cast<const DiagnosticError &>(info);
      record(Kind::Error, diag.getLoc(), diag.getMessage());
      return;
    }
    record(Kind::Error, SMLoc(), info.message());
  });
}

bool DiagnosticVerifier::verify(StringRef toolName, raw_ostream &os) {
  Error problems = Error::success();
  for (const Produced &diag : produced) {
    unsigned line = getLineAndColumn(sourceMgr, diag.loc).first;
    unsigned bufferId =
        line ? sourceMgr.FindBufferContainingLoc(diag.loc) : 0;
    Expectation *met = nullptr;
    for (Expectation &expected : expectations)
      if (!expected.met && expected.kind == diag.kind && line &&
          expected.bufferId == bufferId && expected.line == line &&
          StringRef(diag.message).contains(expected.text)) {
        met = &expected;
        break;
      }
    if (met) {
      met->met = true;
      continue;
    }
    problems = joinErrors(std::move(problems),
                          makeError(diag.loc, "unexpected " +
                                                  getKindName(diag.kind) +
                                                  ": " + diag.message));
  }
  for (const Expectation &expected : expectations)
    if (!expected.met)
      problems = joinErrors(
          std::move(problems),
          makeError(expected.loc, "expected " + getKindName(expected.kind) +
                                      " \"" + expected.text +
                                      "\" was not produced"));
  return !printErrors(std::move(problems), sourceMgr, toolName, os);
}
