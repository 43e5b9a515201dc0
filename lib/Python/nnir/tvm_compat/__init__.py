"""TVM's names for nnir: `nnir.install_as_tvm()`.

After `nnir.install_as_tvm()`, `import tvm`, `from tvm import relay`,
`tvm.transform`, `tvm.instrument`, `tvm.testing` (with the pytest plugin
`tvm.testing.plugin`) and the rest resolve to the modules of
nnir/tvm_compat/tvm, which only name nnir's own API with TVM's names
(see docs/Python.md, "TVM compatibility"). TVM modules nnir does not
implement (`tvm.te`, `tvm.tir`, `tvm.relay.prelude`, ...) import, and using
what they hold raises NotImplementedError naming the feature.
"""

import sys

from ._finder import TVMFinder

__all__ = ["install_as_tvm", "uninstall_tvm"]


def install_as_tvm():
    """Makes `import tvm` (and its submodules) import nnir's TVM names.
    Idempotent; a real TVM already imported is an error."""
    existing = sys.modules.get("tvm")
    if existing is not None and not getattr(existing, "__nnir__", False):
        raise RuntimeError("a module 'tvm' (%r) is already imported; call "
                           "nnir.install_as_tvm() before importing TVM" %
                           getattr(existing, "__file__", existing))
    if not any(isinstance(f, TVMFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TVMFinder())
    import tvm  # noqa: F401  (through the finder)
    return sys.modules["tvm"]


def uninstall_tvm():
    """Undoes install_as_tvm(): `tvm` and its submodules are forgotten."""
    sys.meta_path[:] = [f for f in sys.meta_path
                        if not isinstance(f, TVMFinder)]
    for name in list(sys.modules):
        if name == "tvm" or name.startswith("tvm."):
            del sys.modules[name]
