"""`tvm.tir`: of TVM's tensor-level IR, nnir has only what Relay shapes
use. `tir.Any()` is a dynamic extent (nnir.Any, printed `?`); a variable
used as an extent (`tir.Var`, `tir.SizeVar`) is one too, as nnir's types
have no symbolic extents (two uses of one variable are not known equal).
Everything else is a MissingFeature."""

from nnir import Any
from nnir.tvm_compat._missing import missing_attr

__path__ = []


def Var(name, dtype="int32", span=None):  # noqa: N802 (TVM's name)
    """A variable as an extent: a dynamic one (nnir.Any)."""
    return Any()


def SizeVar(name, dtype="int32", span=None):  # noqa: N802 (TVM's name)
    """A non-negative variable as an extent: a dynamic one (nnir.Any)."""
    return Any()


def __getattr__(attr):
    return missing_attr(__name__, attr)
