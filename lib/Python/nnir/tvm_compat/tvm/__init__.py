"""`tvm` for nnir (installed by nnir.install_as_tvm())."""

import nnir as _nnir
from nnir import IRModule
from nnir.executor import Device, cpu, device
from nnir.tvm_compat._missing import delegating_getattr as _delegating
from nnir.tvm_compat import _methods

_methods.install()

from . import instrument, ir, nd, target, transform  # noqa: E402

__nnir__ = True
__version__ = "0.19.0+nnir"

# TVM's error classes: nnir raises DiagnosticError (a ValueError) for
# parse, type and pass errors.
TVMError = _nnir.DiagnosticError
DiagnosticError = _nnir.DiagnosticError


def get_global_func(name, allow_missing=False):
    """TVM's registry of packed functions does not exist in nnir: None with
    allow_missing, else NotImplementedError."""
    if allow_missing:
        return None
    from nnir.tvm_compat._missing import missing_error
    raise missing_error("tvm.get_global_func(%r)" % name)


__getattr__ = _delegating(__name__)
