//===- Errors.cpp - llvm::Error to Python exceptions ----------------------===//
//
/// \file
/// nnir.DiagnosticError (a ValueError) carries the rendered diagnostics of a
/// parse, type or pass error, and the location of the first one as `file`,
/// `line` and `column` attributes. Errors about attributes of an operator
/// call are TypeErrors, as Python reports a bad keyword argument. A Python
/// exception raised inside a Python pass or instrument crosses the C++ pass
/// infrastructure as a PythonError and comes out as itself.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/Support/Diagnostics.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

using namespace nnir;
using namespace nnir::python;

llvm::SourceMgr &python::getSourceMgr() {
  // Never destroyed: nodes alive at interpreter exit may still point into it.
  static llvm::SourceMgr *sourceMgr = new llvm::SourceMgr();
  return *sourceMgr;
}

//===----------------------------------------------------------------------===//
// Python objects and exceptions held by C++
//===----------------------------------------------------------------------===//

PyObjectRef::~PyObjectRef() {
  if (!object)
    return;
  // After (or during) finalization, e.g. a static registry destroyed at
  // exit, there is no interpreter to give the reference back to; asking
  // PyGILState_Check then is no help either (it answers yes).
  if (!Py_IsInitialized() || _Py_IsFinalizing()) {
    object.release();
    return;
  }
  if (PyGILState_Check()) {
    object = py::object();
    return;
  }
  // A pass run with the GIL released may drop the last reference.
  py::gil_scoped_acquire gil;
  object = py::object();
}

char PythonError::ID = 0;

PythonError::PythonError(py::error_already_set &error)
    : exception(sharePyObject(error.value())) {
  // The traceback of the Python frames the exception left travels with it.
  if (error.trace() && error.value().attr("__traceback__").is_none())
    PyException_SetTraceback(error.value().ptr(), error.trace().ptr());
  message = py::str(py::type::handle_of(error.value()).attr("__name__"))
                .cast<std::string>();
  std::string text = py::str(error.value()).cast<std::string>();
  if (!text.empty())
    message += ": " + text;
}

void PythonError::log(llvm::raw_ostream &os) const { os << message; }

std::error_code PythonError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error python::errorFromPython(py::error_already_set &error,
                                    const std::string &note) {
  py::object value = error.value();
  if (!note.empty() && py::hasattr(value, "add_note")) {
    try {
      value.attr("add_note")(note);
    } catch (py::error_already_set &) {
      // A note is a courtesy; the exception itself is what matters.
    }
  }
  return llvm::make_error<PythonError>(error);
}

/// The thread's pending exception (see setPendingPythonError).
static SharedPyObject &getPendingPythonError() {
  static thread_local SharedPyObject pending;
  return pending;
}

void python::setPendingPythonError(const py::object &exception) {
  getPendingPythonError() = sharePyObject(exception);
}

void python::clearPendingPythonError() { getPendingPythonError().reset(); }

//===----------------------------------------------------------------------===//
// DiagnosticError
//===----------------------------------------------------------------------===//

void python::throwDiagnostic(llvm::Error err) {
  // A Python exception raised by a Python pass or instrument comes out as
  // itself (its type, traceback and notes), whatever else went wrong after.
  py::object raised;
  err = llvm::handleErrors(
      std::move(err),
      [&](std::unique_ptr<PythonError> python) -> llvm::Error {
        if (raised)
          return llvm::Error(std::move(python));
        raised = python->getException();
        return llvm::Error::success();
      });
  SharedPyObject pending = std::move(getPendingPythonError());
  if (!raised && pending && err) {
    // The exception of a pass factory, whose error C++ turned into text:
    // raise the exception itself, noted with where it happened.
    raised = pending->get();
    std::string text;
    llvm::raw_string_ostream os(text);
    printErrors(std::move(err), getSourceMgr(), "nnir", os);
    while (!os.str().empty() && text.back() == '\n')
      text.pop_back();
    if (py::hasattr(raised, "add_note"))
      raised.attr("add_note")(text);
    err = llvm::Error::success();
  }
  if (raised) {
    llvm::consumeError(std::move(err));
    PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(raised.ptr())),
                    raised.ptr());
    throw py::error_already_set();
  }
  DiagnosticException exception;
  // Note the first error's location and message, then render them all.
  struct Item {
    llvm::SMLoc loc;
    std::string message;
  };
  std::vector<Item> items;
  llvm::handleAllErrors(
      std::move(err),
      [&](const DiagnosticError &diag) {
        items.push_back({diag.getLoc(), diag.getMessage()});
      },
      [&](const llvm::ErrorInfoBase &other) {
        items.push_back({llvm::SMLoc(), other.message()});
      });
  llvm::SourceMgr &sm = getSourceMgr();
  llvm::Error all = llvm::Error::success();
  for (const Item &item : items)
    all = llvm::joinErrors(std::move(all), makeError(item.loc, item.message));
  llvm::raw_string_ostream os(exception.text);
  printErrors(std::move(all), sm, "nnir", os);
  os.flush();
  while (!exception.text.empty() && exception.text.back() == '\n')
    exception.text.pop_back();
  if (!items.empty()) {
    exception.message = items.front().message;
    llvm::SMLoc loc = items.front().loc;
    if (unsigned id = loc.isValid() ? sm.FindBufferContainingLoc(loc) : 0) {
      exception.file = sm.getMemoryBuffer(id)->getBufferIdentifier().str();
      std::tie(exception.line, exception.column) = getLineAndColumn(sm, loc);
    }
  }
  throw exception;
}

void python::throwTypeError(llvm::Error err) {
  throw py::type_error(llvm::toString(std::move(err)));
}

void python::populateErrors(py::module_ &m) {
  // Leaked on purpose: the type must outlive every translation.
  static auto *type = new py::exception<DiagnosticException>(
      m, "DiagnosticError", PyExc_ValueError);
  // Users catch it as nnir.DiagnosticError; tracebacks name it so.
  type->attr("__module__") = "nnir";
  type->doc() = "A located error of nnir (parse, type or pass error). "
                "str() is the rendered diagnostic; `message`, `file`, "
                "`line` and `column` describe the first error (`file` is "
                "None for an error without a location).";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const DiagnosticException &e) {
      py::object error =
          py::reinterpret_borrow<py::object>(type->ptr())(e.text);
      error.attr("message") = e.message;
      if (e.file.empty()) {
        error.attr("file") = py::none();
        error.attr("line") = py::none();
        error.attr("column") = py::none();
      } else {
        error.attr("file") = e.file;
        error.attr("line") = e.line;
        error.attr("column") = e.column;
      }
      PyErr_SetObject(type->ptr(), error.ptr());
    }
  });
}
