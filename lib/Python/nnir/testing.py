"""Helpers for tests of passes and programs (TVM's relay.testing names).

`run_infer_type(expr)` and `run_opt_pass(expr, pass)` put an expression in
a module as @main, type it (and run the pass), and give back @main (when
`expr` is a Function) or its body. `create_workload(func)` types a network
and makes parameters for every input except `data`, by name: weights
random (Xavier), biases, betas and means 0, gammas and variances 1.
`inception_v3()` is a test network with typed weights.
"""

import math

import numpy as np

from . import op
from .ir import (Function, IRModule, TensorType, TupleGetItem, infer_type,
                 ndarray, var)

__all__ = ["assert_allclose", "create_workload", "default_initializer",
           "inception_v3", "run_infer_type", "run_opt_pass"]


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


class _NetBuilder:
    """Builds a network with typed parameters: each layer's weights are
    variables annotated with their shapes (so a network types without
    anything inferring parameter types from their uses)."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.params = []

    def var(self, name, shape):
        v = var(name, shape=shape, dtype=self.dtype)
        self.params.append(v)
        return v

    def conv_bn_relu(self, data, channels_in, channels, kernel, name,
                     strides=(1, 1), padding=(0, 0)):
        weight = self.var(name + "_conv_weight",
                          (channels, channels_in) + tuple(kernel))
        y = op.nn.conv2d(data, weight, strides=strides, padding=padding,
                         channels=channels, kernel_size=kernel)
        stats = [self.var("%s_bn_%s" % (name, part), (channels,))
                 for part in ("gamma", "beta", "moving_mean", "moving_var")]
        y = TupleGetItem(op.nn.batch_norm(y, *stats, epsilon=2e-5), 0)
        return op.nn.relu(y)


def inception_v3(batch_size=1, num_classes=1000, image_shape=(3, 299, 299),
                 dtype="float32"):
    """Inception v3 (Szegedy et al., "Rethinking the Inception Architecture
    for Computer Vision", 2015) as a Function of `data` and its typed
    weights: a test network of some 300 operator calls. Each convolution
    is conv2d + batch_norm + relu without bias."""
    net = _NetBuilder(dtype)
    data = var("data", shape=(batch_size,) + tuple(image_shape), dtype=dtype)
    cbr = net.conv_bn_relu

    def pool(x, kind, size=3, strides=(1, 1), padding=(0, 0)):
        if kind == "max":
            return op.nn.max_pool2d(x, (size, size), strides, padding=padding)
        return op.nn.avg_pool2d(x, (size, size), strides, padding=padding,
                                count_include_pad=True)

    def block_a(x, cin, pool_features, name):
        b1 = cbr(x, cin, 64, (1, 1), name + "_1x1")
        b5 = cbr(cbr(x, cin, 48, (1, 1), name + "_5x5_reduce"), 48, 64,
                 (5, 5), name + "_5x5", padding=(2, 2))
        b3 = cbr(x, cin, 64, (1, 1), name + "_3x3_reduce")
        b3 = cbr(b3, 64, 96, (3, 3), name + "_3x3_1", padding=(1, 1))
        b3 = cbr(b3, 96, 96, (3, 3), name + "_3x3_2", padding=(1, 1))
        bp = cbr(pool(x, "avg", padding=(1, 1)), cin, pool_features, (1, 1),
                 name + "_pool")
        return op.concatenate([b1, b5, b3, bp], axis=1), \
            64 + 64 + 96 + pool_features

    def block_b(x, cin, name):
        b3 = cbr(x, cin, 384, (3, 3), name + "_3x3", strides=(2, 2))
        bd = cbr(x, cin, 64, (1, 1), name + "_3x3dbl_reduce")
        bd = cbr(bd, 64, 96, (3, 3), name + "_3x3dbl_1", padding=(1, 1))
        bd = cbr(bd, 96, 96, (3, 3), name + "_3x3dbl_2", strides=(2, 2))
        bp = pool(x, "max", strides=(2, 2))
        return op.concatenate([b3, bd, bp], axis=1), 384 + 96 + cin

    def block_c(x, cin, c7, name):
        b1 = cbr(x, cin, 192, (1, 1), name + "_1x1")
        b7 = cbr(x, cin, c7, (1, 1), name + "_7x7_reduce")
        b7 = cbr(b7, c7, c7, (1, 7), name + "_7x7_1", padding=(0, 3))
        b7 = cbr(b7, c7, 192, (7, 1), name + "_7x7_2", padding=(3, 0))
        bd = cbr(x, cin, c7, (1, 1), name + "_7x7dbl_reduce")
        for i, (kernel, pad, cout) in enumerate([
                ((7, 1), (3, 0), c7), ((1, 7), (0, 3), c7),
                ((7, 1), (3, 0), c7), ((1, 7), (0, 3), 192)]):
            bd = cbr(bd, c7, cout, kernel, "%s_7x7dbl_%d" % (name, i),
                     padding=pad)
        bp = cbr(pool(x, "avg", padding=(1, 1)), cin, 192, (1, 1),
                 name + "_pool")
        return op.concatenate([b1, b7, bd, bp], axis=1), 4 * 192

    def block_d(x, cin, name):
        b3 = cbr(x, cin, 192, (1, 1), name + "_3x3_reduce")
        b3 = cbr(b3, 192, 320, (3, 3), name + "_3x3", strides=(2, 2))
        b7 = cbr(x, cin, 192, (1, 1), name + "_7x7x3_reduce")
        b7 = cbr(b7, 192, 192, (1, 7), name + "_7x7x3_1", padding=(0, 3))
        b7 = cbr(b7, 192, 192, (7, 1), name + "_7x7x3_2", padding=(3, 0))
        b7 = cbr(b7, 192, 192, (3, 3), name + "_7x7x3_3", strides=(2, 2))
        bp = pool(x, "max", strides=(2, 2))
        return op.concatenate([b3, b7, bp], axis=1), 320 + 192 + cin

    def block_e(x, cin, name):
        b1 = cbr(x, cin, 320, (1, 1), name + "_1x1")

        def split_3x3(y, c_in, prefix):
            return [cbr(y, c_in, 384, (1, 3), prefix + "_1x3",
                        padding=(0, 1)),
                    cbr(y, c_in, 384, (3, 1), prefix + "_3x1",
                        padding=(1, 0))]

        b3 = split_3x3(cbr(x, cin, 384, (1, 1), name + "_3x3_reduce"), 384,
                       name + "_3x3")
        bd = cbr(x, cin, 448, (1, 1), name + "_3x3dbl_reduce")
        bd = cbr(bd, 448, 384, (3, 3), name + "_3x3dbl", padding=(1, 1))
        bd = split_3x3(bd, 384, name + "_3x3dbl")
        bp = cbr(pool(x, "avg", padding=(1, 1)), cin, 192, (1, 1),
                 name + "_pool")
        return op.concatenate([b1] + b3 + bd + [bp], axis=1), \
            320 + 4 * 384 + 192

    cin = image_shape[0]
    x = cbr(data, cin, 32, (3, 3), "conv", strides=(2, 2))
    x = cbr(x, 32, 32, (3, 3), "conv_1")
    x = cbr(x, 32, 64, (3, 3), "conv_2", padding=(1, 1))
    x = pool(x, "max", strides=(2, 2))
    x = cbr(x, 64, 80, (1, 1), "conv_3")
    x = cbr(x, 80, 192, (3, 3), "conv_4")
    x = pool(x, "max", strides=(2, 2))
    c = 192
    for i, features in enumerate((32, 64, 64)):
        x, c = block_a(x, c, features, "mixed_%d" % i)
    x, c = block_b(x, c, "mixed_3")
    for i, c7 in enumerate((128, 160, 160, 192)):
        x, c = block_c(x, c, c7, "mixed_%d" % (4 + i))
    x, c = block_d(x, c, "mixed_8")
    for i in range(2):
        x, c = block_e(x, c, "mixed_%d" % (9 + i))
    x = op.nn.batch_flatten(op.nn.global_avg_pool2d(x))
    fc_weight = net.var("fc1_weight", (num_classes, c))
    fc_bias = net.var("fc1_bias", (num_classes,))
    x = op.nn.bias_add(op.nn.dense(x, fc_weight, units=num_classes), fc_bias)
    return Function([data] + net.params, op.nn.softmax(x))
