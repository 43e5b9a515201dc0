"""`tvm.relay.backend`: the Executor and Runtime records a Relay script
attaches to a module (`mod.with_attr("executor", Executor("aot"))`). nnir
has one way to run a module (the JIT on the host), so the records are
kept as module attributes and have no effect; the rest of TVM's backends
(graph executor codegen, AOT, the VM compiler) are missing features."""

from nnir.tvm_compat._missing import missing_attr

__path__ = []


class _Record:
    """A named configuration with options, as TVM's Executor and Runtime."""

    KINDS = ()
    TYPE_KEY = ""

    def __init__(self, name, options=None):
        if name not in self.KINDS:
            raise ValueError("%s %r is not one of TVM's: %s" %
                             (type(self).__name__, name,
                              ", ".join(self.KINDS)))
        if options is not None and not isinstance(options, dict):
            raise TypeError("%s options must be a dict" % type(self).__name__)
        self.name = name
        self.attrs = dict(options or {})

    def __getitem__(self, key):
        return self.attrs[key]

    def get(self, key, default=None):
        return self.attrs.get(key, default)

    def __eq__(self, other):
        return type(self) is type(other) and self.name == other.name and \
            self.attrs == other.attrs

    def __hash__(self):
        return hash((type(self).__name__, self.name))

    def __repr__(self):
        if not self.attrs:
            return "%s(%r)" % (type(self).__name__, self.name)
        return "%s(%r, %r)" % (type(self).__name__, self.name, self.attrs)

    __str__ = __repr__

    def _nnir_meta_object_(self):
        """How a module attribute holds it (a TVM object of TYPE_KEY)."""
        return (self.TYPE_KEY, [("name", self.name)] +
                [(str(k), str(v)) for k, v in sorted(self.attrs.items())])


class Executor(_Record):
    """`Executor("graph")` or `Executor("aot", {"link-params": True})`."""

    KINDS = ("graph", "aot")
    TYPE_KEY = "Executor"


class Runtime(_Record):
    """`Runtime("cpp")` or `Runtime("crt", {"system-lib": True})`."""

    KINDS = ("cpp", "crt")
    TYPE_KEY = "Runtime"


def __getattr__(name):
    return missing_attr(__name__, name)
