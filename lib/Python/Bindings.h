//===- Bindings.h - Shared declarations of the Python bindings --*- C++ -*-===//
//
/// \file
/// What the binding sources of the extension `nnir._nnir` share: the holder
/// declaration that lets pybind11 hold IR objects through their intrusive
/// reference count (nnir::Ref), the conversion of llvm::Error into Python
/// exceptions, the process-wide SourceMgr that keeps parsed text for later
/// diagnostics, and one populate function per concern (types, attributes,
/// expressions, operators, modules, parser/printer, NumPy, transforms, the
/// pass infrastructure and instruments). It also holds what the pass bindings
/// need to call Python from C++: PyObjectRef (a reference that C++ may drop
/// without the GIL) and PythonError (a Python exception travelling through
/// C++ frames as an llvm::Error, re-raised unchanged at the boundary).
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

#include <memory>
#include <string>

// IR objects carry their own (thread-safe, intrusive) count, so a holder can
// be made from a raw pointer at any time.
PYBIND11_DECLARE_HOLDER_TYPE(T, nnir::Ref<T>, true)

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace nnir {
class AttrValue;
class PassContext;
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

/// Throws \p err as a DiagnosticException (nnir.DiagnosticError in Python);
/// when \p err holds a PythonError, re-raises that Python exception instead
/// (with its traceback and notes), dropping the rest.
[[noreturn]] void throwDiagnostic(llvm::Error err);
/// Throws \p err as a Python TypeError carrying its message.
[[noreturn]] void throwTypeError(llvm::Error err);

/// A strong reference to a Python object held by C++ objects that may be
/// released on a thread without the GIL (a pass run with the GIL released):
/// the destructor takes the GIL, and leaks the reference once the
/// interpreter is finalizing.
class PyObjectRef {
public:
  explicit PyObjectRef(py::object object) : object(std::move(object)) {}
  PyObjectRef(const PyObjectRef &) = delete;
  PyObjectRef &operator=(const PyObjectRef &) = delete;
  ~PyObjectRef();
  const py::object &get() const { return object; }

private:
  py::object object;
};
using SharedPyObject = std::shared_ptr<PyObjectRef>;
inline SharedPyObject sharePyObject(py::object object) {
  return std::make_shared<PyObjectRef>(std::move(object));
}

/// A Python exception on its way through C++ frames (a Python pass or
/// instrument called by a C++ Sequential or PassContext), as an llvm::Error.
/// throwDiagnostic re-raises the exception object itself.
class PythonError : public llvm::ErrorInfo<PythonError> {
public:
  static char ID;
  /// Takes the exception being handled; the GIL must be held.
  explicit PythonError(py::error_already_set &error);
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  const py::object &getException() const { return exception->get(); }

private:
  SharedPyObject exception;
  std::string message;
};

/// The Python exception being handled, with \p note added to it (PEP 678:
/// tracebacks print it under the message), as an llvm::Error. The GIL must
/// be held.
llvm::Error errorFromPython(py::error_already_set &error,
                            const std::string &note);

/// A Python exception raised where C++ may turn its error into text (a pass
/// factory called by the pipeline parser or by a Sequential resolving a
/// required pass) is also remembered for the calling thread: when
/// throwDiagnostic then finds no PythonError in the error it is given, it
/// re-raises this exception, with the diagnostic as a note.
void setPendingPythonError(const py::object &exception);
/// Forgets the thread's pending exception (at the start of a call).
void clearPendingPythonError();

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

/// Hands \p ctx a default ExecutionEngine, made when a pass or an executor
/// first asks for it, so that FoldConstant and the executors under \p ctx
/// share one engine and its kernel cache (Executor.cpp).
void provideEngine(PassContext &ctx);

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
void populatePasses(py::module_ &m);
void populatePassContext(py::module_ &m);
void populateInstruments(py::module_ &m);

} // namespace python
} // namespace nnir

#endif // NNIR_LIB_PYTHON_BINDINGS_H
