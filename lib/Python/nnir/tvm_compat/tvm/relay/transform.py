"""`tvm.relay.transform`: nnir.transform's passes and decorators under
Relay's names (imported on first use)."""

from nnir.tvm_compat._missing import delegating_getattr

__path__ = []


def _provider():
    import nnir.transform
    return nnir.transform


__getattr__ = delegating_getattr(__name__, _provider)
