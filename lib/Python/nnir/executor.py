"""Running expressions and module functions on arrays, through the JIT.

    ex = nnir.create_executor(mod=mod)
    out = ex.evaluate()(np.ones((2, 2), "float32"))   # @main
    value = ex.evaluate(nnir.op.add(nnir.const(1.0), nnir.const(2.0)))

An `Executor` type-checks the module, then runs the function with nnir's
Evaluator (lib/Python/Executor.cpp): each operator call, or fused primitive
function, is lowered to LLVM IR, compiled by the ORC JIT and run with the
GIL released. Results are `nnir.NDArray`s (`.numpy()`), tuples of them for
tuple results.

Kernels are compiled by the execution engine of the PassContext current
when the executor is made, and cached by structure in it: FoldConstant
under that context and the other executors made under it share the cache
(`engine_stats()` counts its compiles and hits).

nnir runs on the host CPU only: `Device` names it, for code that passes a
device around.
"""

import numpy as np

from . import _nnir
from .ir import (Expr, Function, GlobalVar, IRModule, Let, NDArray,
                 TensorType, infer_type, ndarray)

__all__ = ["Device", "Executor", "cpu", "create_executor", "device"]

_ENTRY = "__nnir_entry"


class Device:
    """A device: nnir's kernels run on the host CPU, `Device("cpu", 0)`."""

    _KINDS = {"cpu": "cpu", "llvm": "cpu", "c": "cpu", "host": "cpu"}

    def __init__(self, kind="cpu", index=0):
        name = self._KINDS.get(str(kind).split()[0].lower())
        if name is None:
            raise NotImplementedError(
                "device '%s': nnir runs kernels on the host CPU only" % kind)
        self.device_type = name
        self.device_id = int(index)

    def __eq__(self, other):
        return isinstance(other, Device) and \
            (other.device_type, other.device_id) == (self.device_type,
                                                     self.device_id)

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def __repr__(self):
        return "%s(%d)" % (self.device_type, self.device_id)

    @property
    def exist(self):
        return True


def cpu(index=0):
    """The host CPU."""
    return Device("cpu", index)


def device(kind, index=0):
    """`device("cpu")`, `device("llvm", 0)`: the host CPU; any other kind
    raises NotImplementedError."""
    return Device(kind, index)


def _param_type(param):
    try:
        return param.checked_type
    except ValueError:
        return param.type_annotation


def _as_array(value, param):
    if isinstance(value, NDArray):
        return value
    dtype = None
    ptype = _param_type(param)
    if isinstance(ptype, TensorType) and \
            not isinstance(value, (np.ndarray, np.generic)):
        dtype = ptype.dtype
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()
    return ndarray(value, dtype)


class Executor:
    """Runs expressions and the functions of `mod` (see the module doc).
    `kind` and `target` are accepted for TVM's sake: every kind runs the
    same way, on the host CPU."""

    def __init__(self, mod=None, device=None, target="llvm", kind="debug"):
        self.mod = mod if mod is not None else IRModule()
        self.device = device
        self.target = target
        self.kind = kind
        self._engine = _nnir.Executor()

    def engine_stats(self):
        """The counters of the executor's engine (shared with FoldConstant
        and the executors under the same PassContext): kernels_compiled,
        memory_hits, disk_hits, kernels_evicted, kernel_runs."""
        return self._engine.engine_stats()

    def _module_with(self, name, func):
        functions = dict(self.mod.functions)
        functions[GlobalVar(name)] = func
        return IRModule(functions)

    def _make_callable(self, expr=None):
        if expr is None:
            expr = self.mod.get_global_var("main")
        if isinstance(expr, GlobalVar):
            mod, name = self.mod, expr.name_hint
        else:
            mod, name = self._module_with(_ENTRY, expr), _ENTRY
        state = {}

        def run(*args, **kwargs):
            if "typed" not in state:
                state["typed"] = infer_type(mod)
            typed = state["typed"]
            params = list(typed[name].params)
            args = list(args)
            for param in params[len(args):]:
                if param.name_hint not in kwargs:
                    raise TypeError("missing argument '%s'" % param.name_hint)
                args.append(kwargs.pop(param.name_hint))
            if kwargs:
                raise TypeError("unknown arguments: %s" % ", ".join(kwargs))
            if len(args) != len(params):
                raise TypeError("%d arguments given, %d expected" %
                                (len(args), len(params)))
            arrays = [_as_array(a, p) for a, p in zip(args, params)]
            return self._engine.call(typed, name, arrays)

        return run

    def evaluate(self, expr=None, binds=None):
        """With no expression: a callable running @main. With a Function or
        a GlobalVar: a callable running it. Any other (closed) expression:
        its value. `binds` maps free variables to values (let-bound around
        the expression)."""
        if binds:
            for var, value in reversed(list(binds.items())):
                if not isinstance(value, Expr):
                    from .ir import Constant
                    value = Constant(_as_array(value, var))
                expr = Let(var, value, expr)
        if expr is None:
            return self._make_callable()
        if isinstance(expr, (Function, GlobalVar)):
            return self._make_callable(expr)
        return self._make_callable(Function([], expr))()


def create_executor(kind="debug", mod=None, device=None, target="llvm",
                    params=None):
    """An Executor over `mod` (see Executor); `params` binds @main's
    parameters by name to constants."""
    if params:
        from .analysis import bind_params_by_name
        mod = IRModule(dict(mod.functions)) if mod is not None else IRModule()
        mod.update({"main": bind_params_by_name(mod["main"], params)})
    return Executor(mod, device, target, kind)
