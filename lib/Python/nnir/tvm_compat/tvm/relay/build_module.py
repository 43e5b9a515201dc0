"""`tvm.relay.build_module`: parameter binding and executors."""

from nnir.analysis import bind_params_by_name  # noqa: F401
from nnir.executor import Executor, create_executor  # noqa: F401
from nnir.tvm_compat._missing import delegating_getattr

__path__ = []

__getattr__ = delegating_getattr(__name__)
