//===- PassBindings.h - Shared parts of the pass bindings -------*- C++ -*-===//
//
/// \file
/// What Pass.cpp, PassContext.cpp and Instruments.cpp share: typed option
/// values to and from Python (pass options and config entries have one
/// conversion, with TypeErrors that name the option), and instruments to and
/// from Python (every instrument a context holds was given from Python and
/// remembers its Python object).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_PYTHON_PASSBINDINGS_H
#define NNIR_LIB_PYTHON_PASSBINDINGS_H

#include "Bindings.h"

#include "nnir/Pass/OptionValue.h"
#include "nnir/Pass/PassInstrument.h"

#include <memory>
#include <string>
#include <vector>

namespace nnir {
namespace python {

/// \p object as a value of \p type: bool (only True/False), int (not a bool),
/// float (an int too), str, list (a list or tuple of str). Otherwise a
/// TypeError "<what> expects a bool, got str".
/// The OptionType named \p name ("bool", "int", "float", "string", "list");
/// a ValueError otherwise.
OptionType optionTypeFromName(const std::string &name);

OptionValue optionValueFromPython(py::handle object, OptionType type,
                                  const std::string &what);
/// The value as a Python bool, int, float, str or list of str.
py::object optionValueToPython(const OptionValue &value);

/// True for a list, tuple or set (what TVM accepts for lists of names).
bool isSequence(py::handle object);
/// A list, tuple or set of str, or None (empty); \p message is the
/// TypeError for anything else.
std::vector<std::string> namesFromPython(py::handle object,
                                         const std::string &message);

/// One instrument from Python: an nnir.instrument.PassInstrument (a built-in
/// one brings its C++ instrument, called without the GIL); a TypeError for
/// anything else.
std::shared_ptr<PassInstrument> instrumentFromPython(py::handle object);
/// A list, tuple or set of instruments, or None (no instruments); \p what
/// names the argument in the TypeError for anything else.
std::vector<std::shared_ptr<PassInstrument>>
instrumentsFromPython(py::handle list, const char *what);
/// The Python objects of \p instruments, in order.
py::list
instrumentsToPython(llvm::ArrayRef<std::shared_ptr<PassInstrument>> list);

} // namespace python
} // namespace nnir

#endif // NNIR_LIB_PYTHON_PASSBINDINGS_H
