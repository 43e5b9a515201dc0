//===- PassGate.cpp - Deciding which passes run ---------------------------===//
//
/// \file
/// Implements PassBisect (see PassGate.h).
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/PassGate.h"

using namespace llvm;
using namespace nnir;

PassGate::~PassGate() = default;

bool PassBisect::shouldRunPass(StringRef name) {
  ++count;
  bool run = limit < 0 || count <= limit;
  os << "BISECT: " << (run ? "running" : "NOT running") << " pass (" << count
     << ") " << name << "\n";
  return run;
}
