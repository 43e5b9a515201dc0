"""`tvm.target`: nnir compiles for the host CPU only. A Target names the
target a script asks for and is a (no-op) `with` scope; only the host
kinds are accepted for code generation elsewhere."""

from nnir.tvm_compat._missing import missing_attr

__path__ = []


class Target:
    """`Target("llvm")`, `Target("cuda")`: kept as text; nnir's kernels are
    always compiled for the host CPU."""

    _stack = []

    def __init__(self, target, host=None):
        if isinstance(target, Target):
            target = str(target)
        if isinstance(target, dict):
            target = target.get("kind", "llvm")
        self._text = str(target)
        self.kind = _Kind(self._text.split()[0] if self._text else "llvm")
        self.host = host
        self.keys = [self.kind.name]
        self.attrs = {}

    def __enter__(self):
        Target._stack.append(self)
        return self

    def __exit__(self, *args):
        Target._stack.pop()
        return False

    @staticmethod
    def current(allow_none=True):
        if Target._stack:
            return Target._stack[-1]
        if allow_none:
            return None
        raise ValueError("no target in scope")

    def __str__(self):
        return self._text

    def __repr__(self):
        return "Target(%r)" % self._text


class _Kind:
    def __init__(self, name):
        self.name = name


def create(target):
    return Target(target)


def __getattr__(attr):
    return missing_attr(__name__, attr)


class VirtualDevice:
    """A (device, target, memory scope) record. nnir's IR carries no
    virtual devices: a VirtualDevice can be made, not attached to
    expressions."""

    def __init__(self, device=None, target=None, memory_scope=""):
        self.device = device
        self.target = target
        self.memory_scope = memory_scope
        self.device_type = getattr(device, "device_type", None)
        self.virtual_device_id = getattr(device, "device_id", -1)
