#!/usr/bin/env python3
# ===- kernel-property.py - Random programs against NumPy and nnir-opt -O3 -===#
#
# A property test of the kernels: a seeded generator writes a random
# well-typed program (a chain of elementwise, broadcast, reduction, data
# movement, concatenate, dense, softmax, ... calls over parameters and inline
# constants) together with its inputs and the outputs NumPy computes for it.
# Each program then runs three ways, and all must agree:
#   nnir-run PROGRAM                        against NumPy
#   nnir-opt -O3 PROGRAM | nnir-run         against NumPy, and against the
#                                           unoptimised run
# Integers and bools must be equal; floats within a tolerance (NumPy computes
# in float64, nnir in float32). Ops whose result jumps (floor, comparisons,
# casts to int, argmax) only take values NumPy and nnir compute exactly: the
# inputs, and integers.
#
#   kernel-property.py --tools BUILD/bin [--seed S] [--count N]
#                      [--minutes M] [--jobs J] [--work DIR] [--show]
#
# Runs seeds S, S+1, ... (N of them, or until M minutes have passed), prints
# one line per failing seed and a summary, and exits 1 if any failed. A
# failing seed's program, inputs and outputs stay in WORK/seed-<S>/ (the
# command lines to rerun it are in WORK/seed-<S>/README). --show prints the
# program of --seed and exits. check-nnir runs a few seeds
# (kernel-property.test); README.md, "Fuzzing", shows a longer run.
#
# Needs NumPy (run it with /usr/bin/python3 on Debian).

import argparse
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

F32, I32, I64, BOOL = "float32", "int32", "int64", "bool"
INTS = (I32, I64)
NP_DTYPE = {F32: np.float32, I32: np.int32, I64: np.int64, BOOL: np.bool_}

# Floats stay within this magnitude and integers within INT_BOUND, so that no
# float overflows and no int32 wraps; exp only takes values up to EXP_BOUND.
FLOAT_BOUND = 1e4
INT_BOUND = 1 << 20
EXP_BOUND = 8.0
# Operators whose result (or NumPy reference) grows with the input's size
# skip inputs larger than this.
LARGE = 50000
# Float comparison: |nnir - ref| <= ATOL * max(1, max |ref|) + RTOL * |ref|.
RTOL = 1e-4
ATOL = 1e-4


class Value:
    """A value of the program: the text that names it, its dtype, the NumPy
    reference (float64 for floats), whether that reference is exactly what
    nnir computes, its bound (max |element|), and whether an operator uses
    it."""

    def __init__(self, text, dtype, ref, exact):
        self.text = text
        self.dtype = dtype
        self.ref = ref
        self.exact = exact
        self.used = False
        self.bound = float(np.max(np.abs(ref))) if ref.size and dtype != BOOL \
            else 0.0

    @property
    def shape(self):
        return self.ref.shape


def type_text(dtype, shape):
    if not shape:
        return "Tensor[(), %s]" % dtype
    return "Tensor[(%s), %s]" % (", ".join(str(d) for d in shape), dtype)


def element_text(dtype, x):
    if dtype == F32:
        return repr(float(x))
    if dtype == BOOL:
        return "True" if x else "False"
    return str(int(x))


def literal_text(dtype, array):
    """An inline constant: a scalar literal, or dense<...> : Tensor[...]."""
    if array.ndim == 0 and dtype != BOOL:
        x = array.item()
        return element_text(dtype, x) + {F32: "f", I32: "", I64: "i64"}[dtype]

    def nested(a):
        if a.ndim == 0:
            return element_text(dtype, a.item())
        return "[" + ", ".join(nested(s) for s in a) + "]"
    return "dense<%s> : %s" % (nested(array), type_text(dtype, array.shape))


def ints(values):
    return "[" + ", ".join(str(v) for v in values) + "]"


class Generator:
    """Builds one random program from a seed."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.params = []      # (name, dtype, shape, array)
        self.bindings = []    # text of `%i = expr;`
        self.pool = []        # Values usable as operands
        self.big = False      # whether a large tensor was made

    # ---- leaves -----------------------------------------------------------

    def random_array(self, dtype, shape, small=False):
        if dtype == F32:
            if small:  # exact in float32 and short in the text
                return self.np_rng.integers(-8, 9, size=shape) / 4.0
            return self.np_rng.uniform(-2, 2, size=shape).astype(np.float32)
        if dtype in INTS:
            return self.np_rng.integers(-10, 10, size=shape).astype(np.int64)
        return self.np_rng.integers(0, 2, size=shape).astype(np.bool_)

    def leaf(self, dtype, shape, array=None):
        """A new parameter, or (more rarely) an inline constant, of random
        values or of array."""
        shape = tuple(shape)
        size = int(np.prod(shape)) if shape else 1
        if len(self.params) < 5 and self.rng.random() < 0.7 or size > 12:
            if array is None:
                array = self.random_array(dtype, shape)
            name = "p%d" % len(self.params)
            self.params.append((name, dtype, shape, array))
            ref = array.astype(np.float64) if dtype == F32 else array
            value = Value("%" + name, dtype, ref, exact=True)
            self.pool.append(value)
            return value
        if array is None:
            array = self.random_array(dtype, shape, small=True)
        return Value(literal_text(dtype, np.asarray(array)), dtype,
                     np.asarray(array), exact=True)

    def operand(self, dtype, shape=None, exact=False, rank=None):
        """A pool value of dtype (and shape, or rank) that is exact if asked,
        or a new leaf when there is none (or sometimes anyway). rank is an
        int or (min, max)."""
        if isinstance(rank, int):
            rank = (rank, rank)
        found = [v for v in self.pool if v.dtype == dtype and
                 (shape is None or v.shape == tuple(shape)) and
                 (rank is None or rank[0] <= v.ref.ndim <= rank[1]) and
                 (v.exact or not exact)]
        if found and self.rng.random() < 0.8:
            # Mostly one of the latest values, so that programs are chains
            # more than fans of parameters.
            if self.rng.random() < 0.6:
                found = found[-2:]
            value = self.rng.choice(found)
            value.used = True
            return value
        if shape is None:
            shape = self.random_shape(*(rank or (1, 4)))
        return self.leaf(dtype, shape)

    def int_type(self):
        return I64 if self.rng.random() < 0.25 else I32

    def random_shape(self, min_rank=1, max_rank=4):
        if not self.big and min_rank <= 3 <= max_rank and \
                self.rng.random() < 0.03:
            # At most one tensor per program of 2^18 to 2^21 elements: large
            # enough for kernels that run in parallel.
            self.big = True
            return (self.rng.randint(2, 4), self.rng.randint(300, 600),
                    self.rng.randint(400, 900))
        rank = self.rng.randint(min_rank, max_rank)
        shape = [self.rng.randint(1, 5) for _ in range(rank)]
        if rank and self.rng.random() < 0.25:
            # A last axis long enough for vector loops and their remainders.
            shape[-1] = self.rng.randint(8, 37)
        return tuple(shape)

    def broadcast_partner(self, shape):
        """A shape that broadcasts with shape: some leading axes dropped,
        some axes of extent 1, and now and then an extent of 2 or 3 where
        shape has 1 (so the result is larger than shape)."""
        shape = list(shape)
        drop = self.rng.randint(0, len(shape))
        partner = []
        for d in shape[drop:]:
            r = self.rng.random()
            if d == 1 and r < 0.2:
                partner.append(self.rng.randint(2, 3))
            else:
                partner.append(1 if r > 0.7 else d)
        return tuple(partner)

    # ---- emitting ---------------------------------------------------------

    def bind_item(self, expr, index, dtype, ref, exact):
        """Binds the tuple expr, then its field index (the Value)."""
        whole = self.bind(expr, dtype, np.zeros(0), exact)
        self.pool.remove(whole)  # a tuple, not an operand
        return self.bind("%s.%d" % (whole.text, index), dtype, ref, exact)

    def bind(self, expr, dtype, ref, exact):
        if dtype == F32:
            ref = np.asarray(ref, dtype=np.float64)
        elif dtype in INTS:
            ref = np.asarray(ref, dtype=np.int64)
        else:
            ref = np.asarray(ref, dtype=np.bool_)
        name = "%%%d" % len(self.bindings)
        self.bindings.append("  %s = %s;" % (name, expr))
        value = Value(name, dtype, ref, exact)
        self.pool.append(value)
        return value

    def ok(self, dtype, ref):
        """Whether a result stays within the bounds."""
        ref = np.asarray(ref)
        if dtype == BOOL or ref.size == 0:
            return True
        if not np.all(np.isfinite(ref)):
            return False
        bound = FLOAT_BOUND if dtype == F32 else INT_BOUND
        return float(np.max(np.abs(ref))) <= bound

    # ---- operators --------------------------------------------------------
    # Each returns the new Value, or None when it does not apply.

    def op_unary_float(self):
        x = self.operand(F32)
        choices = [
            ("negative(%s)", lambda a: -a),
            ("abs(%s)", np.abs),
            ("nn.relu(%s)", lambda a: np.maximum(a, 0)),
            ("tanh(%s)", np.tanh),
            ("sigmoid(%s)", lambda a: 1 / (1 + np.exp(-a))),
            ("sin(%s)", np.sin),
            ("cos(%s)", np.cos),
            ("atan(%s)", np.arctan),
            ("log(add(abs(%s), 1f))", lambda a: np.log(np.abs(a) + 1)),
            ("sqrt(abs(%s))", lambda a: np.sqrt(np.abs(a))),
            ("rsqrt(add(abs(%s), 1f))", lambda a: 1 / np.sqrt(np.abs(a) + 1)),
            ("clip(%s, a_min=-1.5f, a_max=0.75f)",
             lambda a: np.clip(a, -1.5, 0.75)),
            ("nn.leaky_relu(%s, alpha=0.125f)",
             lambda a: np.where(a > 0, a, 0.125 * a)),
            ("copy(%s)", lambda a: a),
        ]
        if x.bound <= EXP_BOUND:
            choices.append(("exp(%s)", np.exp))
        if x.ref.size <= LARGE:
            choices.append(("erf(%s)",
                            np.vectorize(math.erf, otypes=[np.float64])))
        text, fn = self.rng.choice(choices)
        exact = x.exact and text in ("negative(%s)", "abs(%s)", "nn.relu(%s)",
                                     "copy(%s)")
        return self.bind(text % x.text, F32, fn(x.ref), exact)

    def op_unary_exact(self):
        """Ops whose result jumps: only on exact values."""
        if self.rng.random() < 0.5:
            x = self.operand(F32, exact=True)
            text, fn, dtype = self.rng.choice([
                ("floor(%s)", np.floor, F32),
                ("ceil(%s)", np.ceil, F32),
                ("trunc(%s)", np.trunc, F32),
                ("sign(%s)", np.sign, F32),
                ('cast(%s, dtype="int32")', lambda a: np.trunc(a), I32),
            ])
        else:
            x = self.operand(self.int_type())
            text, fn, dtype = self.rng.choice([
                ("negative(%s)", lambda a: -a, x.dtype),
                ("abs(%s)", np.abs, x.dtype),
                ('cast(%s, dtype="float32")', lambda a: a, F32),
            ])
        return self.bind(text % x.text, dtype, fn(x.ref), True)

    def op_binary(self):
        dtype = self.rng.choice([F32, F32, self.int_type()])
        x = self.operand(dtype)
        y = self.operand(dtype, self.broadcast_partner(x.shape))
        if self.rng.random() < 0.5:
            x, y = y, x
        choices = [
            ("add(%s, %s)", np.add),
            ("subtract(%s, %s)", np.subtract),
            ("multiply(%s, %s)", np.multiply),
            ("maximum(%s, %s)", np.maximum),
            ("minimum(%s, %s)", np.minimum),
        ]
        if dtype == F32:
            choices.append(("divide(%s, add(abs(%s), 1f))",
                            lambda a, b: a / (np.abs(b) + 1)))
        else:
            one = literal_text(dtype, np.array(1))
            choices += [
                ("mod(%s, add(abs(%s), " + one + "))",
                 lambda a, b: np.fmod(a, np.abs(b) + 1)),
                ("floor_divide(%s, add(abs(%s), " + one + "))",
                 lambda a, b: np.floor_divide(a, np.abs(b) + 1)),
                ("floor_mod(%s, add(abs(%s), " + one + "))",
                 lambda a, b: np.mod(a, np.abs(b) + 1)),
            ]
        text, fn = self.rng.choice(choices)
        ref = fn(x.ref, y.ref)
        if not self.ok(dtype, ref):
            return None
        exact = dtype in INTS or (x.exact and y.exact and text in (
            "maximum(%s, %s)", "minimum(%s, %s)"))
        return self.bind(text % (x.text, y.text), dtype, ref, exact)

    def op_compare_where(self):
        dtype = self.rng.choice([F32, self.int_type()])
        x = self.operand(dtype, exact=True)
        y = self.operand(dtype, self.broadcast_partner(x.shape), exact=True)
        text, fn = self.rng.choice([
            ("greater", np.greater), ("less", np.less),
            ("greater_equal", np.greater_equal),
            ("less_equal", np.less_equal), ("equal", np.equal),
            ("not_equal", np.not_equal)])
        cond = self.bind("%s(%s, %s)" % (text, x.text, y.text), BOOL,
                         fn(x.ref, y.ref), True)
        if self.rng.random() < 0.3:
            other = self.operand(BOOL, self.broadcast_partner(cond.shape))
            text, fn = self.rng.choice([
                ("logical_and", np.logical_and), ("logical_or", np.logical_or),
                ("logical_xor", np.logical_xor)])
            return self.bind("%s(%s, %s)" % (text, cond.text, other.text),
                             BOOL, fn(cond.ref, other.ref), True)
        if self.rng.random() < 0.3:
            return cond
        vdtype = self.rng.choice([F32, self.int_type()])
        a = self.operand(vdtype, self.broadcast_partner(cond.shape))
        b = self.operand(vdtype, self.broadcast_partner(cond.shape))
        return self.bind("where(%s, %s, %s)" % (cond.text, a.text, b.text),
                         vdtype, np.where(cond.ref, a.ref, b.ref),
                         a.exact and b.exact)

    def op_reduce(self):
        dtype = self.rng.choice([F32, F32, self.int_type()])
        x = self.operand(dtype, rank=(1, 4))
        if x.ref.ndim == 0:
            return None
        rank = x.ref.ndim
        kinds = [("sum", np.sum), ("max", np.max), ("min", np.min)]
        if dtype == F32:
            kinds += [("mean", np.mean), ("prod", np.prod)]
        name, fn = self.rng.choice(kinds)
        axes = sorted(self.rng.sample(range(rank), self.rng.randint(1, rank)))
        keepdims = self.rng.random() < 0.4
        attrs = []
        if self.rng.random() < 0.2:
            axis_arg = None  # every axis
        else:
            # Sometimes negative axes, sometimes the complement (exclude).
            exclude = self.rng.random() < 0.2 and len(axes) < rank
            if exclude:
                listed = [a for a in range(rank) if a not in axes]
                attrs.append("exclude=True")
            else:
                listed = axes
            listed = [a - rank if self.rng.random() < 0.3 else a
                      for a in listed]
            attrs.insert(0, "axis=" + ints(listed))
            axis_arg = tuple(axes)
        if keepdims:
            attrs.append("keepdims=True")
        ref = fn(x.ref, axis=axis_arg, keepdims=keepdims)
        if not self.ok(dtype, ref):
            return None
        exact = dtype in INTS or (x.exact and name in ("max", "min"))
        text = "%s(%s)" % (name, ", ".join([x.text] + attrs))
        return self.bind(text, dtype, ref, exact)

    def op_argreduce(self):
        dtype = self.rng.choice([F32, self.int_type()])
        x = self.operand(dtype, exact=True, rank=(1, 4))
        if x.ref.ndim == 0:
            return None
        axis = self.rng.randrange(x.ref.ndim)
        keepdims = self.rng.random() < 0.3
        name, fn = self.rng.choice([("argmax", np.argmax),
                                    ("argmin", np.argmin)])
        ref = fn(x.ref, axis=axis, keepdims=keepdims)
        attrs = "axis=[%d]" % axis + (", keepdims=True" if keepdims else "")
        return self.bind("%s(%s, %s)" % (name, x.text, attrs), I32, ref,
                         True)

    def op_reshape(self):
        x = self.operand(self.rng.choice([F32, self.int_type()]))
        size = x.ref.size
        dims = []
        rest = size
        for _ in range(self.rng.randint(0, 3)):
            divisors = [d for d in range(1, math.isqrt(rest) + 1)
                        if rest % d == 0]
            divisors += [rest // d for d in divisors]
            d = self.rng.choice(divisors)
            dims.append(d)
            rest //= d
        dims.append(rest)
        self.rng.shuffle(dims)
        text_dims = list(dims)
        if self.rng.random() < 0.4:
            text_dims[self.rng.randrange(len(dims))] = -1
        return self.bind("reshape(%s, newshape=%s)" % (
            x.text, ints(text_dims)), x.dtype, x.ref.reshape(dims), x.exact)

    def op_transpose(self):
        x = self.operand(self.rng.choice([F32, self.int_type()]),
                         rank=(2, 4))
        rank = x.ref.ndim
        if rank < 2:
            return None
        if self.rng.random() < 0.2:
            return self.bind("transpose(%s, axes=None)" % x.text, x.dtype,
                             np.transpose(x.ref), x.exact)
        perm = list(range(rank))
        self.rng.shuffle(perm)
        return self.bind("transpose(%s, axes=%s)" % (x.text, ints(perm)),
                         x.dtype, np.transpose(x.ref, perm), x.exact)

    def op_expand_squeeze(self):
        x = self.operand(self.rng.choice([F32, self.int_type()]))
        ones = [i for i, d in enumerate(x.shape) if d == 1]
        if ones and self.rng.random() < 0.5:
            axis = self.rng.choice(ones)
            return self.bind("squeeze(%s, axis=[%d])" % (x.text, axis),
                             x.dtype, np.squeeze(x.ref, axis), x.exact)
        if x.ref.ndim >= 4:
            return None
        axis = self.rng.randint(0, x.ref.ndim)
        return self.bind("expand_dims(%s, axis=%d)" % (x.text, axis), x.dtype,
                         np.expand_dims(x.ref, axis), x.exact)

    def op_concatenate_stack(self):
        dtype = self.rng.choice([F32, self.int_type()])
        x = self.operand(dtype, rank=(1, 4))
        if x.ref.ndim == 0:
            return None
        rank = x.ref.ndim
        parts = [x]
        stack = self.rng.random() < 0.3
        axis = self.rng.randrange(rank + 1 if stack else rank)
        for _ in range(self.rng.randint(1, 2)):
            shape = list(x.shape)
            if not stack:
                shape[axis] = self.rng.randint(1, 3)
            parts.append(self.operand(dtype, shape))
        self.rng.shuffle(parts)
        tup = "(" + ", ".join(p.text for p in parts) + ")"
        text_axis = axis - (rank + 1 if stack else rank) \
            if self.rng.random() < 0.3 else axis
        if stack:
            return self.bind("stack(%s, axis=%d)" % (tup, text_axis), dtype,
                             np.stack([p.ref for p in parts], axis),
                             all(p.exact for p in parts))
        return self.bind("concatenate(%s, axis=%d)" % (tup, text_axis), dtype,
                         np.concatenate([p.ref for p in parts], axis),
                         all(p.exact for p in parts))

    def op_slice(self):
        x = self.operand(self.rng.choice([F32, self.int_type()]),
                         rank=(1, 4))
        if x.ref.ndim == 0:
            return None
        begin, end, strides, index = [], [], [], []
        for d in x.shape:
            b = self.rng.randrange(d)
            e = self.rng.randint(b + 1, d)
            s = self.rng.randint(1, 2)
            begin.append(b)
            end.append(e)
            strides.append(s)
            index.append(slice(b, e, s))
        return self.bind(
            "strided_slice(%s, begin=%s, end=%s, strides=%s, axes=None)" % (
                x.text, ints(begin), ints(end), ints(strides)),
            x.dtype, x.ref[tuple(index)], x.exact)

    def op_take(self):
        x = self.operand(self.rng.choice([F32, self.int_type()]),
                         rank=(1, 4))
        if x.ref.ndim == 0:
            return None
        axis = self.rng.randrange(x.ref.ndim)
        count = self.rng.randint(1, 4)
        indices = np.array([self.rng.randrange(x.shape[axis])
                            for _ in range(count)], dtype=np.int64)
        return self.bind("take(%s, %s, axis=%d)" % (
            x.text, literal_text(I32, indices), axis),
                         x.dtype, np.take(x.ref, indices, axis=axis), x.exact)

    def op_split(self):
        x = self.operand(self.rng.choice([F32, self.int_type()]), rank=(1, 4))
        axes = [i for i, d in enumerate(x.shape) if d > 1]
        if not axes:
            return None
        axis = self.rng.choice(axes)
        d = x.shape[axis]
        sections = [s for s in range(2, d + 1) if d % s == 0]
        if self.rng.random() < 0.5:
            n = self.rng.choice(sections)
            parts = np.split(x.ref, n, axis)
            arg = str(n)
        else:
            cut = sorted(set(self.rng.randint(1, d - 1)
                             for _ in range(self.rng.randint(1, 2))))
            parts = np.split(x.ref, cut, axis)
            arg = ints(cut)
        i = self.rng.randrange(len(parts))
        return self.bind_item("split(%s, indices_or_sections=%s, axis=%d)" % (
            x.text, arg, axis), i, x.dtype, parts[i], x.exact)

    def op_tile_repeat_reverse(self):
        x = self.operand(self.rng.choice([F32, self.int_type()]),
                         rank=(1, 4))
        if x.ref.ndim == 0:
            return None
        kind = self.rng.randrange(4)
        if kind != 2 and x.ref.size > LARGE:
            return None
        if kind == 0:
            reps = [self.rng.randint(1, 2) for _ in x.shape]
            return self.bind("tile(%s, reps=%s)" % (x.text, ints(reps)),
                             x.dtype, np.tile(x.ref, reps), x.exact)
        if kind == 1:
            axis = self.rng.randrange(x.ref.ndim)
            n = self.rng.randint(1, 3)
            return self.bind("repeat(%s, repeats=%d, axis=%d)" % (
                x.text, n, axis), x.dtype, np.repeat(x.ref, n, axis), x.exact)
        if kind == 2:
            axis = self.rng.randrange(x.ref.ndim)
            return self.bind("reverse(%s, axis=%d)" % (x.text, axis), x.dtype,
                             np.flip(x.ref, axis), x.exact)
        shape = [self.rng.randint(1, 3)] + [
            d if d != 1 else self.rng.randint(1, 3) for d in x.shape]
        return self.bind("broadcast_to(%s, shape=%s)" % (x.text, ints(shape)),
                         x.dtype, np.broadcast_to(x.ref, shape), x.exact)

    def op_dense(self):
        x = self.operand(F32, rank=2)
        if x.ref.ndim != 2:
            return None
        m, k = x.shape
        n = self.rng.randint(1, 5)
        if self.rng.random() < 0.5:
            w = self.operand(F32, (n, k))
            ref = x.ref @ w.ref.T
            text = "nn.dense(%s, %s, units=None)" % (x.text, w.text)
        else:
            # batch_matmul on the matrix seen as a batch of one.
            ta = self.rng.random() < 0.5
            tb = self.rng.random() < 0.5
            a = x.ref.T if ta else x.ref
            wshape = (1, n, a.shape[1]) if tb else (1, a.shape[1], n)
            w = self.operand(F32, wshape)
            b = w.ref[0].T if tb else w.ref[0]
            ref = (a @ b)[np.newaxis]
            text = ("nn.batch_matmul(expand_dims(%s, axis=0), %s, "
                    "transpose_a=%s, transpose_b=%s)" % (
                        x.text, w.text, ta, tb))
        if not self.ok(F32, ref):
            return None
        return self.bind(text, F32, ref, False)

    def op_softmax_bias_cumsum(self):
        x = self.operand(F32, rank=(1, 4))
        if x.ref.ndim == 0:
            return None
        axis = self.rng.randrange(x.ref.ndim)
        kind = self.rng.randrange(3)
        if kind == 0:
            e = np.exp(x.ref - np.max(x.ref, axis=axis, keepdims=True))
            return self.bind("nn.softmax(%s, axis=%d)" % (x.text, axis), F32,
                             e / np.sum(e, axis=axis, keepdims=True), False)
        if kind == 1:
            bias = self.operand(F32, (x.shape[axis],))
            shape = [1] * x.ref.ndim
            shape[axis] = x.shape[axis]
            return self.bind("nn.bias_add(%s, %s, axis=%d)" % (
                x.text, bias.text, axis), F32,
                x.ref + bias.ref.reshape(shape), False)
        ref = np.cumsum(x.ref, axis=axis)
        if not self.ok(F32, ref):
            return None
        return self.bind("cumsum(%s, axis=%d)" % (x.text, axis), F32, ref,
                         False)

    def op_image(self):
        """NCHW convolution, pooling and padding (no padding inside the
        windows: their NumPy meaning is plain)."""
        x = self.operand(F32, rank=4)
        if x.ref.ndim != 4 or x.ref.size > LARGE:
            return None
        n, c, h, w = x.shape
        kind = self.rng.randrange(5)
        if kind == 3:
            pads = [(self.rng.randint(0, 1), self.rng.randint(0, 2))
                    for _ in range(4)]
            value = self.rng.choice([0, 0.5, -1.25])
            return self.bind("nn.pad(%s, %sf, pad_width=%s)" % (
                x.text, repr(float(value)),
                "[" + ", ".join(ints(p) for p in pads) + "]"), F32,
                np.pad(x.ref, pads, constant_values=value), x.exact)
        if kind == 4:
            return self.bind("nn.batch_flatten(%s)" % x.text, F32,
                             x.ref.reshape(n, -1), x.exact)
        kh, kw = self.rng.randint(1, h), self.rng.randint(1, w)
        sh, sw = self.rng.randint(1, 2), self.rng.randint(1, 2)
        oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
        windows = np.stack([
            np.stack([x.ref[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw]
                      for j in range(ow)], axis=2)
            for i in range(oh)], axis=2)  # N, C, OH, OW, KH, KW
        if kind < 2:
            name, fn = [("nn.max_pool2d", np.max),
                        ("nn.avg_pool2d", np.mean)][kind]
            return self.bind("%s(%s, pool_size=[%d, %d], strides=[%d, %d])" % (
                name, x.text, kh, kw, sh, sw), F32, fn(windows, axis=(4, 5)),
                x.exact and kind == 0)
        o = self.rng.randint(1, 4)
        weight = self.operand(F32, (o, c, kh, kw))
        ref = np.einsum("ncyxij,ocij->noyx", windows, weight.ref)
        if not self.ok(F32, ref):
            return None
        return self.bind(
            "nn.conv2d(%s, %s, strides=[%d, %d], channels=%d, "
            "kernel_size=[%d, %d])" % (x.text, weight.text, sh, sw, o, kh, kw),
            F32, ref, False)

    def op_normalise(self):
        """Normalisations and dropout: SimplifyInference's rewrites."""
        x = self.operand(F32, rank=(1, 4))
        if x.ref.ndim == 0:
            return None
        rank = x.ref.ndim
        axis = self.rng.randrange(rank)
        kind = self.rng.randrange(5)
        if kind == 0:
            return self.bind_item("nn.dropout(%s, rate=0.25f)" % x.text, 0,
                                  F32, x.ref, x.exact)
        if kind == 1:
            e = np.exp(x.ref - np.max(x.ref, axis=axis, keepdims=True))
            return self.bind("nn.log_softmax(%s, axis=%d)" % (x.text, axis),
                             F32, np.log(e / np.sum(e, axis=axis,
                                                    keepdims=True)), False)
        if kind == 2:
            axes = sorted(self.rng.sample(range(rank),
                                          self.rng.randint(1, rank)))
            ss = np.sum(x.ref * x.ref, axis=tuple(axes), keepdims=True)
            return self.bind("nn.l2_normalize(%s, eps=0.001f, axis=%s)" % (
                x.text, ints(axes)), F32,
                x.ref / np.sqrt(np.maximum(ss, 0.001)), False)
        c = x.shape[axis]
        gamma = self.operand(F32, (c,))
        beta = self.operand(F32, (c,))
        shape = [1] * rank
        shape[axis] = c
        g, b = gamma.ref.reshape(shape), beta.ref.reshape(shape)
        eps = 1e-3
        if kind == 3:
            mean = self.operand(F32, (c,))
            var = self.operand(F32, (c,))
            ref = (x.ref - mean.ref.reshape(shape)) / np.sqrt(
                np.abs(var.ref.reshape(shape)) + 0.5 + eps) * g + b
            if not self.ok(F32, ref):
                return None
            return self.bind_item(
                "nn.batch_norm(%s, %s, %s, %s, add(abs(%s), 0.5f), axis=%d, "
                "epsilon=0.001f)" % (x.text, gamma.text, beta.text, mean.text,
                                     var.text, axis), 0, F32, ref, False)
        else:
            mean = np.mean(x.ref, axis=axis, keepdims=True)
            var = np.mean((x.ref - mean) ** 2, axis=axis, keepdims=True)
            ref = (x.ref - mean) / np.sqrt(var + eps) * g + b
            text = "nn.layer_norm(%s, %s, %s, axis=%d, epsilon=0.001f)" % (
                x.text, gamma.text, beta.text, axis)
        if not self.ok(F32, ref):
            return None
        return self.bind(text, F32, ref, False)

    def op_scale_fold(self):
        """A per-channel scale next to a convolution or a dense:
        FoldScaleAxis's patterns (a scale after, through relu, bias_add or
        add; or a scale before, through relu)."""
        if self.rng.random() < 0.5:
            x = self.operand(F32, rank=4)
            if x.ref.size > LARGE:
                return None
            n, c, h, w = x.shape
            o = self.rng.randint(1, 4)
            kh, kw = self.rng.randint(1, h), self.rng.randint(1, w)
            weight = self.operand(F32, (o, c, kh, kw))
            channel_shape = lambda k: (k, 1, 1)

            def layer(inp, inp_text):
                windows = np.stack([
                    np.stack([inp[:, :, i:i + kh, j:j + kw]
                              for j in range(w - kw + 1)], axis=2)
                    for i in range(h - kh + 1)], axis=2)
                return (np.einsum("ncyxij,ocij->noyx", windows, weight.ref),
                        "nn.conv2d(%s, %s, channels=%d, kernel_size=[%d, %d])"
                        % (inp_text, weight.text, o, kh, kw))
        else:
            x = self.operand(F32, rank=2)
            c = x.shape[1]
            o = self.rng.randint(1, 5)
            weight = self.operand(F32, (o, c))
            channel_shape = lambda k: (k,)

            def layer(inp, inp_text):
                return (inp @ weight.ref.T, "nn.dense(%s, %s, units=None)" % (
                    inp_text, weight.text))

        def scale(k):
            values = self.np_rng.integers(-4, 9, size=channel_shape(k)) / 4.0
            if self.rng.random() < 0.6:
                values = np.abs(values) + 0.25  # positive: relu lets it pass
            return values, literal_text(F32, values)

        if self.rng.random() < 0.5:
            # Backward: op(layer(x)) * scale.
            ref, text = layer(x.ref, x.text)
            between = self.rng.randrange(4)
            if between == 1:
                ref, text = np.maximum(ref, 0), "nn.relu(%s)" % text
            elif between == 2:
                bias = self.operand(F32, (o,))
                ref = ref + bias.ref.reshape(channel_shape(o))
                text = "nn.bias_add(%s, %s, axis=%d)" % (
                    text, bias.text, 1 if len(channel_shape(o)) == 3 else -1)
            elif between == 3:
                other = self.operand(F32, channel_shape(o))
                ref, text = ref + other.ref, "add(%s, %s)" % (
                    text, other.text)
            values, literal = scale(o)
            ref, text = ref * values, "multiply(%s, %s)" % (text, literal)
        else:
            # Forward: layer(relu(x * scale)).
            values, literal = scale(c)
            inp = x.ref * values
            inp_text = "multiply(%s, %s)" % (x.text, literal)
            if self.rng.random() < 0.5:
                inp, inp_text = np.maximum(inp, 0), "nn.relu(%s)" % inp_text
            ref, text = layer(inp, inp_text)
        if not self.ok(F32, ref):
            return None
        return self.bind(text, F32, ref, False)

    def op_gather(self):
        """take with every index mode, gather, argmax's last index."""
        x = self.operand(self.rng.choice([F32, self.int_type()]), rank=(1, 4))
        if x.ref.ndim == 0:
            return None
        axis = self.rng.randrange(x.ref.ndim)
        d = x.shape[axis]
        kind = self.rng.randrange(3)
        if kind == 0:
            mode = self.rng.choice(["clip", "wrap"])
            indices = self.np_rng.integers(-d - 2, d + 2,
                                           size=self.rng.randint(1, 4))
            return self.bind('take(%s, %s, axis=%d, mode="%s")' % (
                x.text, literal_text(I32, indices), axis, mode), x.dtype,
                np.take(x.ref, indices, axis=axis, mode=mode), x.exact)
        if kind == 1:
            shape = list(x.shape)
            shape[axis] = self.rng.randint(1, 3)
            indices = self.np_rng.integers(0, d, size=shape)
            idx = self.leaf(I32, shape, array=indices)
            return self.bind("gather(%s, %s, axis=%d)" % (
                x.text, idx.text, axis), x.dtype,
                np.take_along_axis(x.ref, indices, axis), x.exact)
        if not x.exact:
            return None
        last = d - 1 - np.argmax(np.flip(x.ref, axis), axis=axis)
        return self.bind("argmax(%s, axis=[%d], select_last_index=True)" % (
            x.text, axis), I32, last, True)

    def op_int_bits(self):
        dtype = self.int_type()
        x = self.operand(dtype)
        y = self.operand(dtype, self.broadcast_partner(x.shape))
        kind = self.rng.randrange(3)
        if kind == 0:
            text, fn = self.rng.choice([
                ("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                ("bitwise_xor", np.bitwise_xor)])
            return self.bind("%s(%s, %s)" % (text, x.text, y.text), dtype,
                             fn(x.ref, y.ref), True)
        if kind == 1:
            shift = np.abs(y.ref) % 5
            ref = np.right_shift(x.ref, shift)
            return self.bind("right_shift(%s, mod(abs(%s), %s))" % (
                x.text, y.text, literal_text(dtype, np.array(5))), dtype, ref,
                True)
        return self.bind("bitwise_not(%s)" % x.text, dtype, ~x.ref, True)

    def op_power_cumsum(self):
        x = self.operand(F32)
        if self.rng.random() < 0.5:
            y = self.operand(F32, self.broadcast_partner(x.shape))
            ref = np.power(np.abs(x.ref) + 0.5, np.clip(y.ref, -2, 2))
            if not self.ok(F32, ref):
                return None
            return self.bind(
                "power(add(abs(%s), 0.5f), clip(%s, a_min=-2f, a_max=2f))" % (
                    x.text, y.text), F32, ref, False)
        dtype = self.rng.choice([F32, self.int_type()])
        x = self.operand(dtype, rank=(1, 4))
        if x.ref.ndim == 0:
            return None
        axis = self.rng.randrange(x.ref.ndim)
        ref = np.cumsum(x.ref, axis=axis) - x.ref
        if not self.ok(dtype, ref):
            return None
        return self.bind("cumsum(%s, axis=%d, exclusive=True)" % (
            x.text, axis), dtype, ref, dtype in INTS)

    OPS = [
        # (weight, method)
        (3, op_unary_float),
        (2, op_unary_exact),
        (4, op_binary),
        (2, op_compare_where),
        (3, op_reduce),
        (1, op_argreduce),
        (2, op_reshape),
        (2, op_transpose),
        (1, op_expand_squeeze),
        (2, op_concatenate_stack),
        (1, op_slice),
        (1, op_take),
        (1, op_split),
        (1, op_tile_repeat_reverse),
        (2, op_dense),
        (1, op_softmax_bias_cumsum),
        (2, op_image),
        (2, op_normalise),
        (2, op_scale_fold),
        (1, op_gather),
        (1, op_int_bits),
        (1, op_power_cumsum),
    ]

    def generate(self):
        """Returns (program text, params, [expected Values])."""
        ops = self.OPS
        weights = [w for w, _ in ops]
        target = self.rng.randint(4, 12)
        attempts = 0
        while len(self.bindings) < target and attempts < 200:
            attempts += 1
            _, method = self.rng.choices(ops, weights)[0]
            method(self)
        # The result: the last value and every other one nothing uses.
        values = [v for v in self.pool if v.text[1:].isdigit()]
        if not values:
            values = self.pool
        outputs = [values[-1]] + [v for v in values[:-1] if not v.used]
        params = ", ".join("%%%s: %s" % (name, type_text(dtype, shape))
                           for name, dtype, shape, _ in self.params)
        if len(outputs) == 1:
            result = outputs[0].text
        else:
            result = "(" + ", ".join(v.text for v in outputs) + ")"
        text = "def @main(%s) {\n%s\n  %s\n}\n" % (
            params, "\n".join(self.bindings), result)
        return text, self.params, outputs


def compare(name, actual, expected):
    """None if actual matches the expected Value, else a message."""
    want = NP_DTYPE[expected.dtype]
    if actual.dtype != want:
        return "%s: dtype %s, expected %s" % (name, actual.dtype,
                                             np.dtype(want))
    if actual.shape != expected.shape:
        return "%s: shape %s, expected %s" % (name, actual.shape,
                                             expected.shape)
    ref = expected.ref
    if expected.dtype != F32 or expected.exact:
        bad = actual.astype(ref.dtype) != ref
    else:
        a = actual.astype(np.float64)
        scale = max(1.0, float(np.max(np.abs(ref)))) if ref.size else 1.0
        bad = ~(np.abs(a - ref) <= ATOL * scale + RTOL * np.abs(ref))
    if not np.any(bad):
        return None
    i = tuple(int(j) for j in np.argwhere(bad)[0])
    return "%s: %d of %d elements differ; at %s: %r, expected %r" % (
        name, int(np.sum(bad)), bad.size, list(i), actual[i].item(),
        ref[i].item())


def run_seed(seed, tools, work):
    """Generates and checks one program; returns None or a failure message.
    The seed's directory is removed when it passes."""
    directory = os.path.join(work, "seed-%d" % seed)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    text, params, outputs = Generator(seed).generate()
    program = os.path.join(directory, "program.nnir")
    with open(program, "w") as f:
        f.write(text)
    inputs = []
    for name, dtype, shape, array in params:
        path = os.path.join(directory, name + ".npy")
        np.save(path, np.asarray(array, dtype=NP_DTYPE[dtype]))
        inputs += ["--input", "%s=%s" % (name, path)]
    nnir_run = os.path.join(tools, "nnir-run")
    nnir_opt = os.path.join(tools, "nnir-opt")
    optimised = os.path.join(directory, "program.O3.nnir")
    commands = [
        [nnir_run, program, "--output-dir", os.path.join(directory, "plain")]
        + inputs,
        [nnir_opt, "-O3", program, "-o", optimised],
        [nnir_run, optimised, "--output-dir", os.path.join(directory, "O3")]
        + inputs,
    ]
    with open(os.path.join(directory, "README"), "w") as f:
        f.write("seed %d: the expected outputs are NumPy's; rerun with\n" %
                seed)
        f.write("".join(" ".join(c) + "\n" for c in commands))
    failure = None
    for command in commands:
        proc = subprocess.run(command, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
        if proc.returncode != 0:
            failure = "%s failed (exit %d):\n%s" % (
                " ".join(command), proc.returncode,
                proc.stdout.decode(errors="replace"))
            break
    if failure is None:
        results = {}
        for run in ("plain", "O3"):
            results[run] = []
            for i, expected in enumerate(outputs):
                path = os.path.join(directory, run, "output_%d.npy" % i)
                actual = np.load(path)
                results[run].append(actual)
                failure = failure or compare(
                    "%s output %d" % (run, i), actual, expected)
        for i, expected in enumerate(outputs):
            # The -O3 run against the unoptimised one, with the same
            # tolerance (an exact value must come out bit for bit).
            plain = Value("", expected.dtype,
                          results["plain"][i].astype(expected.ref.dtype),
                          expected.exact)
            failure = failure or compare("O3 output %d against plain" % i,
                                         results["O3"][i], plain)
    if failure is None:
        shutil.rmtree(directory)
        return None
    return failure + "\n  program: " + program


def main():
    parser = argparse.ArgumentParser(
        description="Random programs through nnir-run, against NumPy and "
        "against their -O3 form")
    parser.add_argument("--tools", required=True,
                        help="directory of nnir-run and nnir-opt")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--count", type=int, default=10,
                        help="number of seeds (default 10)")
    parser.add_argument("--minutes", type=float,
                        help="run seeds until this many minutes have passed "
                        "(instead of --count)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="seeds checked in parallel")
    parser.add_argument("--work", help="directory for the seeds' files "
                        "(default: a temporary one, kept if a seed fails)")
    parser.add_argument("--show", action="store_true",
                        help="print the program of --seed and exit")
    args = parser.parse_args()

    if args.show:
        sys.stdout.write(Generator(args.seed).generate()[0])
        return 0
    work = args.work or tempfile.mkdtemp(prefix="nnir-kernel-property-")
    os.makedirs(work, exist_ok=True)
    start = time.monotonic()

    def seeds():
        seed = args.seed
        while True:
            if args.minutes is not None:
                if time.monotonic() - start > 60 * args.minutes:
                    return
            elif seed >= args.seed + args.count:
                return
            yield seed
            seed += 1

    failures = 0
    checked = 0
    if args.jobs > 1:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(args.jobs) as pool:
            pending = []
            for seed in seeds():
                pending.append((seed, pool.submit(run_seed, seed, args.tools,
                                                  work)))
                if len(pending) >= 2 * args.jobs:
                    seed0, future = pending.pop(0)
                    failures += report(seed0, future.result())
                    checked += 1
            for seed0, future in pending:
                failures += report(seed0, future.result())
                checked += 1
    else:
        for seed in seeds():
            failures += report(seed, run_seed(seed, args.tools, work))
            checked += 1
    print("kernel-property: %d seeds from %d, %d failed (%.0f s)" % (
        checked, args.seed, failures, time.monotonic() - start))
    if failures:
        print("kernel-property: the failing seeds are in " + work)
        return 1
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def report(seed, failure):
    if failure is None:
        return 0
    print("kernel-property: seed %d FAILED: %s" % (seed, failure))
    sys.stdout.flush()
    return 1


if __name__ == "__main__":
    sys.exit(main())
