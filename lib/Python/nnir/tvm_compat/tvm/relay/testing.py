"""`tvm.relay.testing`: nnir.testing under Relay's names."""

import types

from nnir.testing import (create_workload, run_infer_type,  # noqa: F401
                          run_opt_pass)
from nnir import testing as _testing
from nnir.tvm_compat._missing import delegating_getattr

__path__ = []


def _network_module(name, build):
    """relay.testing.<name>: get_net(...) builds the Function, and
    get_workload(...) gives (module, params)."""
    module = types.ModuleType(__name__ + "." + name, build.__doc__)
    module.get_net = build

    def get_workload(*args, **kwargs):
        return create_workload(build(*args, **kwargs))

    module.get_workload = get_workload
    module.__getattr__ = delegating_getattr(module.__name__)
    return module


inception_v3 = _network_module("inception_v3", _testing.inception_v3)

__getattr__ = delegating_getattr(__name__)
