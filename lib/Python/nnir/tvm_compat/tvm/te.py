"""`tvm.te`: of TVM's tensor expression language, nnir has only the
variables Relay shapes use: `te.size_var` and `te.var` as extents are
dynamic ones (nnir.Any, printed `?`; see tvm.tir). Everything else is a
MissingFeature."""

from nnir.tvm_compat._missing import missing_attr

from .tir import SizeVar, Var

__path__ = []


def size_var(name="size", dtype="int32", span=None):
    """A non-negative variable as an extent: a dynamic one (nnir.Any)."""
    return SizeVar(name, dtype, span)


def var(name="tindex", dtype="int32", span=None):
    """A variable as an extent: a dynamic one (nnir.Any)."""
    return Var(name, dtype, span)


def __getattr__(attr):
    return missing_attr(__name__, attr)
