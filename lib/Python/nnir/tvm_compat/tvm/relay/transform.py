"""`tvm.relay.transform`: nnir.transform's passes and decorators under
Relay's names (imported on first use)."""

from nnir.tvm_compat._missing import delegating_getattr

__path__ = []


def _provider():
    import nnir.transform
    return nnir.transform


__getattr__ = delegating_getattr(__name__, _provider)


def SimplifyExpr():
    """Relay's SimplifyExpr: nnir's, with the rewrites that can change a
    floating-point result turned on (allow_inexact), since Relay scripts
    expect Relay's results (docs/Python.md)."""
    import nnir.transform
    return nnir.transform.SimplifyExpr(allow_inexact=True)
