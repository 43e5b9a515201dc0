//===- Bindings.h - Shared declarations of the Python bindings --*- C++ -*-===//
//
/// \file
/// What the binding sources of the extension `nnir._nnir` share: the holder
/// declaration that lets pybind11 hold IR objects through their intrusive
/// reference count (nnir::Ref), the conversion of llvm::Error into Python
/// exceptions, the process-wide SourceMgr that keeps parsed text for later
/// diagnostics, and one populate function per concern (types, attributes,
/// expressions, operators, modules, parser/printer, NumPy, transforms).
///
/// The bindings stay thin: each wraps one public C++ API call and converts
/// its arguments and errors; Python conveniences live in lib/Python/nnir.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_PYTHON_BINDINGS_H
#define NNIR_LIB_PYTHON_BINDINGS_H

#include "nnir/IR/Object.h"

#include "llvm/Support/Error.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

// IR objects carry their own (thread-safe, intrusive) count, so a holder can
// be made from a raw pointer at any time.
PYBIND11_DECLARE_HOLDER_TYPE(T, nnir::Ref<T>, true)

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace nnir {
class AttrValue;
class Type;

namespace python {
namespace py = pybind11;

/// The C++ side of nnir.DiagnosticError: the rendered text of every error
/// (`file:line:col: error: message`, the line and a caret) and the location
/// of the first one.
struct DiagnosticException : std::exception {
  std::string text;
  std::string message;
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  const char *what() const noexcept override { return text.c_str(); }
};

/// The SourceMgr every parsed text and loaded file is added to. It lives as
/// long as the process: nodes keep locations into its buffers, and a type
/// error found later quotes the source line.
llvm::SourceMgr &getSourceMgr();

/// Throws \p err as a DiagnosticException (nnir.DiagnosticError in Python).
[[noreturn]] void throwDiagnostic(llvm::Error err);
/// Throws \p err as a Python TypeError carrying its message.
[[noreturn]] void throwTypeError(llvm::Error err);

/// The value of \p expected, or throws its error as a DiagnosticError.
template <typename T> T unwrap(llvm::Expected<T> expected) {
  if (!expected)
    throwDiagnostic(expected.takeError());
  return std::move(*expected);
}

/// An attribute value as a Python object (int, float, bool, str, None,
/// tuple, Expr).
py::object attrValueToPython(const AttrValue &value);
/// A Python object as an attribute value; \p what names it in the TypeError
/// raised for an unsupported object ("attribute 'axis' of sum").
AttrValue attrValueFromPython(py::handle object, const std::string &what);
/// A type from a Python object: a Type, or a dtype string (a 0-d tensor).
Ref<Type> typeFromPython(py::handle object);

void populateErrors(py::module_ &m);
void populateExecutor(py::module_ &m);
void populateTypes(py::module_ &m);
void populateAttrs(py::module_ &m);
void populateExprs(py::module_ &m);
void populateOps(py::module_ &m);
void populateModule(py::module_ &m);
void populateParserPrinter(py::module_ &m);
void populateNumPy(py::module_ &m);
void populateTransforms(py::module_ &m);

} // namespace python
} // namespace nnir

#endif // NNIR_LIB_PYTHON_BINDINGS_H
