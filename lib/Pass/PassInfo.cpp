//===- PassInfo.cpp - Metadata of a pass ----------------------------------===//
//
/// \file
/// TVM's textual form of PassInfo.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/PassInfo.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

void PassInfo::print(raw_ostream &os) const {
  os << "The meta data of the pass - pass name: " << name
     << ", opt_level: " << optLevel << ", required passes: [";
  if (!required.empty()) {
    os << "\n";
    for (const std::string &r : required)
      os << r << ", ";
  }
  os << "]\n";
}
