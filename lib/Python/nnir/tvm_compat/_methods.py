"""TVM-only methods that `import tvm` adds to nnir's classes.

- `IRModule.import_from_std(name)`: nnir has no Relay standard library
  (core.rly, prelude.rly: algebraic data types). The call is recorded, so
  that a TVM test file that calls it at import still collects; a module
  that asked for it cannot be used as `relay.parse`'s `init_module`
  (NotImplementedError naming the feature).
- `Function.type_params`: always empty (nnir has no polymorphic functions).
- `Function.with_attr(key, value)`: a copy with the attribute set.
"""

import nnir

from ._missing import FEATURES

# Modules whose import_from_std was called (kept alive: few).
_STD_REQUESTS = []


def _import_from_std(self, file_to_import):
    _STD_REQUESTS.append((self, file_to_import))


def std_request(mod):
    """The standard-library file `mod` asked for, or None."""
    for requester, name in _STD_REQUESTS:
        if requester is mod:
            return name
    return None


def check_init_module(mod):
    """Raises NotImplementedError if `mod` imported TVM's standard
    library."""
    name = std_request(mod)
    if name is not None:
        raise NotImplementedError(
            "IRModule.import_from_std(%r): nnir does not implement Relay's "
            "standard library (%s)" % (name, FEATURES["tvm.relay.prelude"]))


def _with_attr(self, attr_key, attr_value):
    attrs = dict(self.attrs.items()) if self.attrs is not None else {}
    attrs[attr_key] = attr_value
    return nnir.Function(list(self.params), self.body, self.ret_type, attrs)


def install():
    if not hasattr(nnir.IRModule, "import_from_std"):
        nnir.IRModule.import_from_std = _import_from_std
    if not hasattr(nnir.Function, "type_params"):
        nnir.Function.type_params = property(lambda self: [])
    if not hasattr(nnir.Function, "with_attr"):
        nnir.Function.with_attr = _with_attr
