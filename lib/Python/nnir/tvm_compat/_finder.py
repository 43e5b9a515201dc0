"""The import hook behind install_as_tvm(): `tvm` and `tvm.*` resolve to the
modules of nnir.tvm_compat.tvm (or to nnir's own), unknown ones to
MissingModules."""

import importlib
import importlib.abc
import importlib.util
import sys

from ._missing import MissingModule

_PREFIX = "nnir.tvm_compat."

# TVM names served by another compatibility module than the one of the
# same path.
ALIASES = {
    "tvm.ir.transform": "tvm.transform",
    "tvm.ir.instrument": "tvm.instrument",
    "tvm.runtime.ndarray": "tvm.nd",
    "tvm.relay.expr": "tvm.relay",
    "tvm.relay.function": "tvm.relay",
    "tvm.relay.ty": "tvm.relay",
    "tvm.relay.scope_builder": "tvm.relay",
    "tvm.relay.expr_functor": "tvm.relay",
    "tvm.relay.base": "tvm.relay",
    "tvm.relay.nn": "tvm.relay.op.nn",
    "tvm.relay.image": "tvm.relay.op.image",
    "tvm.relay.annotation": "tvm.relay.op.annotation",
    "tvm.relay.frontend.onnx": "tvm.relay.frontend",
}


def _provider(fullname):
    """The module standing for the TVM module `fullname`."""
    target = ALIASES.get(fullname, fullname)
    real = _PREFIX + target
    if real in sys.modules:
        return sys.modules[real]
    try:
        spec = importlib.util.find_spec(real)
    except (ImportError, AttributeError, ValueError):
        spec = None
    if spec is not None:
        return importlib.import_module(real)
    # A generated module: an attribute of its parent that is a module
    # (tvm.relay.op.nn).
    parent, _, child = target.rpartition(".")
    if parent:
        parent_module = _provider(parent)
        value = parent_module.__dict__.get(child)
        if value is not None and hasattr(value, "__path__"):
            return value
    return MissingModule(fullname)


def has_provider(fullname):
    """Whether nnir has a module (not a MissingModule) for `fullname`."""
    target = ALIASES.get(fullname, fullname)
    real = _PREFIX + target
    if real in sys.modules:
        return True
    try:
        return importlib.util.find_spec(real) is not None
    except (ImportError, AttributeError, ValueError):
        return False


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


class TVMFinder(importlib.abc.MetaPathFinder):
    """Finds `tvm` and its submodules in nnir."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "tvm" and not fullname.startswith("tvm."):
            return None
        module = _provider(fullname)
        return importlib.util.spec_from_loader(
            fullname, _AliasLoader(module),
            is_package=hasattr(module, "__path__"))
