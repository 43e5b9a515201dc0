"""`tvm.transform` and `tvm.ir.transform`: nnir.transform under TVM's names
(imported on first use)."""

from nnir.tvm_compat._missing import delegating_getattr


def _provider():
    import nnir.transform
    return nnir.transform


__getattr__ = delegating_getattr(__name__, _provider)
__path__ = []
