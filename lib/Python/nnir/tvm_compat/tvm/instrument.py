"""`tvm.instrument` and `tvm.ir.instrument`: nnir.instrument under TVM's
names (imported on first use)."""

from nnir.tvm_compat._missing import delegating_getattr


def _provider():
    import nnir.instrument
    return nnir.instrument


__getattr__ = delegating_getattr(__name__, _provider)
__path__ = []
