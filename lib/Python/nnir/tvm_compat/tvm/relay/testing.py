"""`tvm.relay.testing`: nnir.testing under Relay's names."""

from nnir.testing import (create_workload, run_infer_type,  # noqa: F401
                          run_opt_pass)
from nnir.tvm_compat._missing import delegating_getattr

__path__ = []

__getattr__ = delegating_getattr(__name__)
