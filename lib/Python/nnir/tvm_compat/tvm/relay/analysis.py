"""`tvm.relay.analysis`: nnir.analysis under Relay's names."""

from nnir.analysis import (Feature, all_vars, bind, bound_vars,  # noqa: F401
                           detect_feature, free_vars)
from nnir.tvm_compat._missing import delegating_getattr

__path__ = []

__getattr__ = delegating_getattr(__name__)
