"""Placeholders for the parts of TVM nnir does not implement.

A `MissingModule` imports cleanly and hands out `MissingFeature`s for its
attributes; using one (calling it, or anything but reading further
attributes) raises NotImplementedError naming the feature, so a TVM script
fails where it needs the feature, not where it imports it.
"""

import types

# What nnir lacks, by TVM module; the message names it.
FEATURES = {
    "tvm.te": "TVM's tensor expression language (tvm.te)",
    "tvm.tir": "TVM's tensor-level IR (tvm.tir)",
    "tvm.topi": "TVM's operator library TOPI (tvm.topi)",
    "tvm.script": "TVMScript (tvm.script)",
    "tvm.arith": "TVM's arithmetic analysis (tvm.arith)",
    "tvm.runtime": "TVM's runtime modules (tvm.runtime)",
    "tvm.contrib": "TVM's contrib libraries (tvm.contrib)",
    "tvm.autotvm": "AutoTVM tuning (tvm.autotvm)",
    "tvm.auto_scheduler": "the auto-scheduler (tvm.auto_scheduler)",
    "tvm.meta_schedule": "MetaSchedule (tvm.meta_schedule)",
    "tvm.driver": "TVM's build driver (tvm.driver)",
    "tvm.rpc": "TVM's RPC (tvm.rpc)",
    "tvm.micro": "microTVM (tvm.micro)",
    "tvm.relax": "Relax (tvm.relax)",
    "tvm.relay.prelude": "the Relay prelude: algebraic data types (lists, "
                         "options, trees) and their functions",
    "tvm.relay.adt": "algebraic data types (constructors, match)",
    "tvm.relay.quantize": "Relay's quantization flow",
    "tvm.relay.backend": "Relay's backends (graph executor codegen, AOT, "
                         "VM compiler, executor/runtime configuration)",
    "tvm.relay.dataflow_pattern": "Relay's dataflow pattern language",
    "tvm.relay.vm": "the Relay virtual machine",
    "tvm.relay.loops": "Relay's loop helpers (recursive functions)",
    "tvm.relay.param_dict": "Relay's parameter (de)serialization",
    "tvm.relay.collage": "Collage partitioning",
    "tvm.relay.Ref": "references (RefCreate, RefRead, RefWrite)",
    "tvm.relay.transform.gradient": "automatic differentiation (gradient)",
    "tvm.relay.build": "building deployable libraries (relay.build)",
    "tvm.relay.testing.count": "the Relay prelude's natural numbers",
    "tvm.relay.testing": "Relay's test networks (inception_v3, resnet, ...) "
                         "and helpers beyond run_infer_type, run_opt_pass "
                         "and create_workload",
}


def describe(name):
    """The feature `name` (a dotted TVM name) belongs to."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        if prefix in FEATURES:
            return FEATURES[prefix]
    if name.startswith("tvm.relay.Ref"):
        return FEATURES["tvm.relay.Ref"]
    last = parts[-1]
    if name.startswith("tvm.relay.transform.") and last[:1].isupper():
        return ("a Relay pass nnir's pass registry does not have; "
                "nnir.transform.list_passes() lists nnir's")
    if name.startswith("tvm.relay.") and last[:1].islower() and \
            len(parts) <= 5:
        return ("a Relay operator or helper nnir does not have; "
                "nnir.op.list_op_names() lists nnir's operators")
    return "a TVM feature outside nnir's Relay layer"


def missing_error(name):
    return NotImplementedError(
        "%s is not implemented by nnir (%s); see the list of differences "
        "from TVM in nnir's docs/Python.md" % (name, describe(name)))


class MissingFeature:
    """Stands for the TVM object `name`; any use but reading attributes
    raises NotImplementedError."""

    __slots__ = ("_name",)

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return MissingFeature(self._name + "." + attr)

    def __call__(self, *args, **kwargs):
        raise missing_error(self._name)

    def __getitem__(self, key):
        raise missing_error(self._name)

    def __enter__(self):
        raise missing_error(self._name)

    def __exit__(self, *args):
        return False

    def __iter__(self):
        raise missing_error(self._name)

    def __bool__(self):
        raise missing_error(self._name)

    def __mro_entries__(self, bases):
        raise missing_error(self._name)

    def __repr__(self):
        return "<%s: not implemented by nnir>" % self._name


def missing_attr(module_name, attr):
    """What a compatibility module's __getattr__ returns for a name it
    lacks: a MissingFeature, or AttributeError for private names."""
    if module_name.startswith("nnir.tvm_compat."):
        module_name = module_name[len("nnir.tvm_compat."):]
    if attr.startswith("_") or attr.startswith("pytest"):
        raise AttributeError("module '%s' has no attribute '%s'" %
                             (module_name, attr))
    return MissingFeature(module_name + "." + attr)


class MissingModule(types.ModuleType):
    """A TVM module nnir does not implement: it imports, and its
    attributes are MissingFeatures."""

    def __init__(self, name):
        super().__init__(name, "Not implemented by nnir: %s" %
                         describe(name))
        self.__path__ = []

    def __getattr__(self, attr):
        return missing_attr(self.__name__, attr)


def delegating_getattr(module_name, provider=None):
    """A module-level __getattr__: names come from the module `provider()`
    returns (imported on first use), then from the compatibility submodule
    of that name (imported now: `from tvm import relay`), and otherwise are
    MissingFeatures."""
    if module_name.startswith("nnir.tvm_compat."):
        module_name = module_name[len("nnir.tvm_compat."):]

    def __getattr__(attr):
        if attr.startswith("_"):
            return missing_attr(module_name, attr)
        if provider is not None:
            try:
                return getattr(provider(), attr)
            except AttributeError:
                pass
        from ._finder import has_provider
        fullname = module_name + "." + attr
        if has_provider(fullname):
            import importlib
            return importlib.import_module(fullname)
        return missing_attr(module_name, attr)
    return __getattr__
