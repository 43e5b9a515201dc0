//===- Remark.cpp - Optimisation remarks of passes ------------------------===//
//
/// \file
/// Remark arguments and messages.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/Remark.h"

using namespace llvm;
using namespace nnir;

StringRef nnir::getRemarkKindName(RemarkKind kind) {
  switch (kind) {
  case RemarkKind::Passed:
    return "Passed";
  case RemarkKind::Missed:
    return "Missed";
  case RemarkKind::Analysis:
    return "Analysis";
  }
  return "Analysis";
}

RemarkArg::RemarkArg(StringRef key, int64_t value)
    : key(key.str()), value(std::to_string(value)) {}
RemarkArg::RemarkArg(StringRef key, uint64_t value)
    : key(key.str()), value(std::to_string(value)) {}

Remark &Remark::operator<<(StringRef text) {
  args.emplace_back("String", text);
  return *this;
}

Remark &Remark::operator<<(RemarkArg arg) {
  args.push_back(std::move(arg));
  return *this;
}

std::string Remark::getMessage() const {
  std::string message;
  for (const RemarkArg &arg : args)
    message += arg.value;
  return message;
}

RemarkSink::~RemarkSink() = default;
