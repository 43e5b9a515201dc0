//===- main.cpp - A program built against an installed nnir ---------------===//
//
/// \file
/// Parses a small module with the installed NNIR::Parser and prints it with
/// NNIR::IR, as a downstream tool would.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Module.h"
#include "nnir/IR/Printer.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Parser/Parser.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

static const char *const kModule = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = add(%x, %x);
  nn.relu(%0)
}
)";

int main() {
  nnir::registerAllOps();
  llvm::SourceMgr sourceMgr;
  auto module = nnir::parseModule(kModule, sourceMgr, "consumer");
  if (!module) {
    nnir::printErrors(module.takeError(), sourceMgr, "consumer", llvm::errs());
    return 1;
  }
  llvm::outs() << "functions: " << (*module)->size() << "\n";
  nnir::printModule(**module, llvm::outs());
  return 0;
}
