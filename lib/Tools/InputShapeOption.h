//===- InputShapeOption.h - The tools' --input-shape flag --------*- C++ -*-===//
//
/// \file
/// `--input-shape=NAME=D0xD1x...` (repeatable): fixes the shape of an ONNX
/// graph input, as nnir-opt, nnir-run and nnir-reduce take it; the values
/// are read with parseInputShape() (ModuleLoader.h).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_TOOLS_INPUTSHAPEOPTION_H
#define NNIR_LIB_TOOLS_INPUTSHAPEOPTION_H

#include "llvm/Support/CommandLine.h"

#include <string>

namespace nnir {

class InputShapeOption : public llvm::cl::list<std::string> {
public:
  explicit InputShapeOption(llvm::cl::OptionCategory &category)
      : llvm::cl::list<std::string>(
            "input-shape",
            llvm::cl::desc("Fix the shape of an ONNX graph input: "
                           "NAME=D0xD1x... (repeatable)"),
            llvm::cl::value_desc("NAME=SHAPE"), llvm::cl::cat(category)) {}
};

} // namespace nnir

#endif // NNIR_LIB_TOOLS_INPUTSHAPEOPTION_H
