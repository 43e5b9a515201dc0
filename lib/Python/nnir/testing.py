"""Helpers for tests of passes and programs (TVM's relay.testing names).

`run_infer_type(expr)` and `run_opt_pass(expr, pass)` put an expression in
a module as @main, type it (and run the pass), and give back @main (when
`expr` is a Function) or its body. `create_workload(func)` types a network
and makes parameters for every input except `data`, by name: weights
random (Xavier), biases, betas and means 0, gammas and variances 1.
"""

import math

import numpy as np

from .ir import Function, IRModule, TensorType, infer_type, ndarray

__all__ = ["assert_allclose", "create_workload", "default_initializer",
           "run_infer_type", "run_opt_pass"]


def _entry(expr, mod):
    entry = mod["main"]
    return entry if isinstance(expr, Function) else entry.body


def run_opt_pass(expr, opt_pass, import_prelude=False):
    """Types `expr` in a module of its own, runs `opt_pass` (a pass or a
    list of passes) and returns @main, or its body."""
    if import_prelude:
        raise NotImplementedError(
            "the Relay prelude (ADTs: lists, options, trees) is not "
            "implemented by nnir")
    mod = infer_type(IRModule.from_expr(expr))
    passes = opt_pass if isinstance(opt_pass, (list, tuple)) else [opt_pass]
    for p in passes:
        mod = p(mod)
    return _entry(expr, mod)


def run_infer_type(expr):
    """`expr` typed, as @main of a module of its own (or @main's body)."""
    return _entry(expr, infer_type(IRModule.from_expr(expr)))


def default_initializer(name, array):
    """Fills `array` in place by the parameter's name (Xavier-uniform
    weights; zero biases, betas and means; unit gammas and variances)."""
    if name.endswith("weight"):
        shape = array.shape
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        fan_out = shape[0] * (int(np.prod(shape[2:])) if len(shape) > 2
                              else 1)
        scale = math.sqrt(6.0 / max(1, fan_in + fan_out))
        array[...] = np.random.uniform(-scale, scale, shape)
    elif name.endswith(("bias", "beta", "mean")):
        array[...] = 0
    elif name.endswith(("gamma", "var")):
        array[...] = 1
    else:
        raise ValueError("no initialization pattern for '%s' (names end in "
                         "weight, bias, gamma, beta, mean or var)" % name)


def create_workload(net, initializer=None, seed=0):
    """(module, params) for the network `net` (a Function or an expression
    whose free variables become its parameters): params maps the name of
    every parameter except `data` to an NDArray made by `initializer(name,
    numpy_array)` (default_initializer)."""
    mod = infer_type(IRModule.from_expr(net))
    np.random.seed(seed)
    initializer = initializer or default_initializer
    params = {}
    for param in mod["main"].params:
        if param.name_hint == "data":
            continue
        ptype = param.checked_type
        if not isinstance(ptype, TensorType):
            raise TypeError("parameter '%s' is not a tensor" % param.name_hint)
        value = np.zeros(ptype.shape, dtype=ptype.dtype)
        initializer(param.name_hint, value)
        params[param.name_hint] = ndarray(value)
    return mod, params


def assert_allclose(actual, desired, rtol=1e-7, atol=1e-7):
    """numpy.testing.assert_allclose on arrays or NDArrays (shapes must
    agree exactly)."""
    actual = np.asarray(actual.numpy() if hasattr(actual, "numpy") else actual)
    desired = np.asarray(desired.numpy() if hasattr(desired, "numpy")
                         else desired)
    np.testing.assert_allclose(actual.shape, desired.shape)
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol,
                               verbose=True)
