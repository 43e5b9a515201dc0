"""`tvm.testing`: nnir.testing's helpers plus TVM's pytest conveniences
(targets, `parameter` fixtures, `main`). nnir runs on the host CPU, so the
enabled targets are `llvm` on `cpu(0)`; tests marked for other targets
are skipped."""

import sys

from nnir.executor import cpu
from nnir.testing import assert_allclose  # noqa: F401
from nnir.tvm_compat._missing import delegating_getattr


_HOST_KINDS = ("llvm", "c")


def enabled_targets():
    """[(target, device)] the tests may run on: nnir's host CPU."""
    return [("llvm", cpu(0))]


def device_enabled(target):
    return str(target).split()[0] in _HOST_KINDS


def _identity_decorator(*args, **kwargs):
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda func: func


def _skip_decorator(reason):
    def decorator(*args, **kwargs):
        import pytest
        mark = pytest.mark.skip(reason=reason)
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return mark(args[0])
        return mark
    return decorator


# Tests marked for the GPU run on the CPU targets (as TVM runs them when no
# GPU is present).
uses_gpu = _identity_decorator
requires_llvm = _identity_decorator
requires_x86 = _identity_decorator


def parameter(*values, ids=None, by_dict=None):
    """A parametrized pytest fixture: a test taking an argument of the name
    this is assigned to runs once per value."""
    import pytest
    if by_dict is not None:
        ids, values = list(by_dict.keys()), list(by_dict.values())

    @pytest.fixture(params=list(values), ids=ids)
    def as_fixture(request):
        return request.param

    return as_fixture


def fixture(func=None, cache_return_value=False):
    """pytest.fixture (TVM's cache_return_value is accepted and ignored)."""
    import pytest
    if func is None:
        return lambda f: pytest.fixture(f)
    return pytest.fixture(func)


def parametrize_targets(*targets):
    """Runs the test once per host target (`target`, `dev` arguments)."""
    import pytest

    def decorator(func):
        chosen = [t for t in (targets or _HOST_KINDS[:1])
                  if device_enabled(t)]
        return pytest.mark.parametrize(
            "target,dev", [(t, cpu(0)) for t in chosen])(func)

    if len(targets) == 1 and callable(targets[0]):
        func, targets = targets[0], ()
        return decorator(func)
    return decorator


def main():
    """Runs pytest on the calling test file (`python test_x.py`)."""
    import pytest
    sys.exit(pytest.main([sys.argv[0]] + sys.argv[1:]))


_tvm_getattr = delegating_getattr(__name__)


def __getattr__(attr):
    if attr.startswith("requires_"):
        return _skip_decorator("nnir runs on the host CPU only (%s)" % attr)
    return _tvm_getattr(attr)
