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

# TVM's PassContext configs that Relay scripts set and that have nothing to
# act on in nnir (tuning, the build driver, TIR codegen, several devices).
# They are accepted, listed, and have no effect (docs/Python.md).
TVM_CONFIGS = [
    ("relay.backend.use_auto_scheduler", "bool",
     "TVM: apply auto-scheduler tuning records in relay.build (no effect in "
     "nnir: no tuning)"),
    ("relay.backend.use_meta_schedule", "bool",
     "TVM: apply MetaSchedule tuning records (no effect in nnir)"),
    ("relay.backend.use_meta_schedule_dispatch", "int",
     "TVM: MetaSchedule dispatch targets (no effect in nnir)"),
    ("relay.backend.tir_converter", "string",
     "TVM: how Relay lowers to TIR (no effect in nnir)"),
    ("relay.fallback_device_type", "int",
     "TVM: the device of unannotated expressions (no effect in nnir: one "
     "device)"),
    ("relay.frontend.fill_span", "bool",
     "TVM: frontends record source spans (no effect in nnir)"),
    ("tir.disable_vectorize", "bool",
     "TVM: TIR codegen without vectorization (no effect in nnir)"),
    ("tir.disable_assert", "bool",
     "TVM: TIR codegen without asserts (no effect in nnir)"),
]

# TVM's names of nnir's configs.
TVM_CONFIG_ALIASES = [("relay.FuseOps.max_depth", "FuseOps.max_depth"),
                      ("relay.FuseOps.link_params", "FuseOps.link_params")]

# TVM's names of config types in PassContext.list_configs().
TVM_CONFIG_TYPE_NAMES = {"bool": "IntImm", "int": "IntImm",
                         "float": "FloatImm", "string": "runtime.String",
                         "list": "Array"}


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
    from nnir import transform
    for key, kind, description in TVM_CONFIGS:
        transform.register_config(key, kind, description)
    for alias, key in TVM_CONFIG_ALIASES:
        transform.PassContext._register_config_alias(alias, key)
    transform._config_type_names.update(TVM_CONFIG_TYPE_NAMES)
    import tvm  # noqa: F401  (through the finder)
    return sys.modules["tvm"]


def uninstall_tvm():
    """Undoes install_as_tvm(): `tvm` and its submodules are forgotten."""
    sys.meta_path[:] = [f for f in sys.meta_path
                        if not isinstance(f, TVMFinder)]
    from nnir import transform
    transform._config_type_names.clear()
    for name in list(sys.modules):
        if name == "tvm" or name.startswith("tvm."):
            del sys.modules[name]
