//===- ParserPrinter.cpp - Text in, text out, structural comparison -------===//
//
/// \file
/// parse() and parse_expr() read the text format, load() reads a module file
/// (nnir text, or an ONNX model when nnir is built with ONNX), and the
/// structural equality, hash and difference explanation of modules and
/// expressions. Parsed text is added to the process-wide SourceMgr
/// (Bindings.h), so errors found later still quote their source line.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/StructuralEqual.h"
#include "nnir/Parser/Parser.h"
#include "nnir/Tools/ModuleLoader.h"

#include "llvm/Support/SourceMgr.h"

using namespace nnir;
using namespace nnir::python;

static bool structuralEqualObjects(py::handle a, py::handle b,
                                   bool mapFreeVars) {
  if (py::isinstance<IRModule>(a) && py::isinstance<IRModule>(b))
    return structuralEqual(a.cast<IRModule &>(), b.cast<IRModule &>());
  if (py::isinstance<Expr>(a) && py::isinstance<Expr>(b))
    return structuralEqual(a.cast<Expr *>(), b.cast<Expr *>(), mapFreeVars);
  if (py::isinstance<Type>(a) && py::isinstance<Type>(b))
    return typesEqual(a.cast<Type *>(), b.cast<Type *>());
  if ((py::isinstance<IRModule>(a) || py::isinstance<Expr>(a) ||
       py::isinstance<Type>(a)) &&
      (py::isinstance<IRModule>(b) || py::isinstance<Expr>(b) ||
       py::isinstance<Type>(b)))
    return false;
  throw py::type_error("structural_equal compares IRModules, expressions or "
                       "types");
}

void python::populateParserPrinter(py::module_ &m) {
  m.def(
      "parse",
      [](const std::string &text, const std::string &sourceName) {
        return unwrap(parseModule(text, getSourceMgr(), sourceName));
      },
      py::arg("text"), py::arg("source_name") = "<string>",
      "Parses a module in the text format");
  m.def(
      "parse_expr",
      [](const std::string &text, const std::string &sourceName) {
        return unwrap(parseExpr(text, getSourceMgr(), sourceName));
      },
      py::arg("text"), py::arg("source_name") = "<string>",
      "Parses one expression in the text format");
  m.def(
      "load",
      [](const std::string &path,
         std::map<std::string, std::vector<int64_t>> shapes) {
        llvm::SourceMgr &sm = getSourceMgr();
        unsigned id = unwrap(addInputFile(sm, path));
        ModuleLoadOptions options;
        for (auto &[name, shape] : shapes)
          options.inputShapes[name] = shape;
        return unwrap(loadModule(sm, id, options));
      },
      py::arg("path"),
      py::arg("shapes") = std::map<std::string, std::vector<int64_t>>(),
      "Reads a module file: nnir text, or an ONNX model");
  m.def("has_onnx", &hasONNXSupport,
        "True when this build imports ONNX models");
  m.def("structural_equal", &structuralEqualObjects, py::arg("lhs"),
        py::arg("rhs"), py::arg("map_free_vars") = false);
  m.def(
      "structural_hash",
      [](py::handle object, bool mapFreeVars) -> size_t {
        if (py::isinstance<IRModule>(object))
          return structuralHash(object.cast<IRModule &>());
        if (py::isinstance<Expr>(object))
          return structuralHash(object.cast<Expr *>(), mapFreeVars);
        if (py::isinstance<Type>(object))
          return hashType(object.cast<Type *>());
        throw py::type_error("structural_hash takes an IRModule, an "
                             "expression or a type");
      },
      py::arg("node"), py::arg("map_free_vars") = false);
  m.def(
      "explain_structural_difference",
      [](py::handle a, py::handle b, bool mapFreeVars) -> std::string {
        if (py::isinstance<IRModule>(a) && py::isinstance<IRModule>(b))
          return explainStructuralDifference(a.cast<IRModule &>(),
                                             b.cast<IRModule &>());
        if (py::isinstance<Expr>(a) && py::isinstance<Expr>(b))
          return explainStructuralDifference(a.cast<Expr *>(), b.cast<Expr *>(),
                                             mapFreeVars);
        return structuralEqualObjects(a, b, mapFreeVars)
                   ? ""
                   : "the two differ (" +
                         py::str(py::type::handle_of(a)).cast<std::string>() +
                         " vs " +
                         py::str(py::type::handle_of(b)).cast<std::string>() +
                         ")";
      },
      py::arg("lhs"), py::arg("rhs"), py::arg("map_free_vars") = false);
}
