"""The generator of nnir.op: one Python function per registered operator.

Kept apart from nnir/op/__init__.py, whose namespace receives the generated
functions (`sum`, `max`, `all`, ... would shadow the builtins this code
uses).
"""


import inspect
import keyword
import sys
import types

import numpy as np

from .. import _nnir
from ..ir import Constant, Expr, Tuple, const

# TVM's positional order where it differs from "inputs, then the record's
# fields in declaration order", and inputs that TVM gives a default. Names
# and orders are those of TVM v0.19's python/tvm/relay/op/*.py.
_SIGNATURES = {
    # TVM: strided_slice(data, begin, end, strides=None, axes=None,
    #                    slice_mode="end"); record: ..., slice_mode, axes.
    "strided_slice": dict(order=("data", "begin", "end", "strides", "axes",
                                 "slice_mode")),
    # TVM: take(data, indices, axis=None, batch_dims=0, mode="clip").
    "take": dict(order=("data", "indices", "axis", "batch_dims", "mode")),
    # TVM: gather(data, axis, indices).
    "gather": dict(order=("data", "axis", "indices")),
    # TVM: pad(data, pad_width, pad_value=0, pad_mode="constant"); nnir's
    # pad_value is the second input.
    "nn.pad": dict(order=("data", "pad_width", "pad_value", "pad_mode"),
                   input_defaults={"pad_value": 0.0}),
    # TVM: full(fill_value, shape=(), dtype="").
    "full": dict(field_defaults={"shape": ()}),
    # TVM: max_pool2d(data, pool_size=(1, 1), ...).
    "nn.max_pool2d": dict(field_defaults={"pool_size": (1, 1)}),
    "nn.avg_pool2d": dict(field_defaults={"pool_size": (1, 1)}),
    # TVM: quantize(data, output_scale, output_zero_point, axis=-1,
    #               out_dtype="int8"), and likewise for the other qnn.*
    # operators whose out_dtype the record leaves required.
    "qnn.quantize": dict(order=("data", "output_scale", "output_zero_point",
                                "axis", "out_dtype"),
                         field_defaults={"out_dtype": "int8"}),
    "qnn.dequantize": dict(order=("data", "input_scale", "input_zero_point",
                                  "axis", "out_dtype"),
                           field_defaults={"out_dtype": "float32"}),
    "qnn.requantize": dict(field_defaults={"out_dtype": "int8"}),
    "qnn.dense": dict(field_defaults={"out_dtype": "int32"}),
    "qnn.conv2d": dict(order=("data", "weight", "input_zero_point",
                              "kernel_zero_point", "input_scale",
                              "kernel_scale", "kernel_size", "channels"),
                       field_defaults={"out_dtype": "int32"}),
}

_EMPTY = inspect.Parameter.empty


def _as_expr(value, name):
    if isinstance(value, Expr):
        return value
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(v, Expr) for v in value):
        return Tuple(list(value))
    try:
        return const(value)
    except Exception as error:
        raise TypeError("argument '%s': expected an expression, got %s" %
                        (name, type(value).__name__)) from error


def _int_list_input(value):
    """An input that an integer-list attribute mirrors: (the input as an
    expression, the attribute's value). A list or tuple of integers becomes
    an int32 constant; a 1-d integer constant gives its values; any other
    expression leaves the attribute unset."""
    if isinstance(value, Constant):
        data = value.data.numpy()
        if data.ndim == 1 and data.dtype.kind in "iu":
            return value, data.tolist()
        return value, None
    if isinstance(value, Expr):
        return value, None
    if isinstance(value, (int, np.integer)):
        value = [value]
    values = [int(v) for v in value]
    return const(np.array(values, dtype="int32")), values


class _OpFunction:
    """Builds calls of one operator; its __signature__ is TVM-like."""

    def __init__(self, info):
        self.op_name = info["name"]
        spec = _SIGNATURES.get(self.op_name, {})
        num_inputs = info["num_inputs"]
        inputs = list(info["inputs"])
        if num_inputs >= 0:
            inputs = inputs[:num_inputs]
        self._variadic = num_inputs < 0
        self._inputs = inputs
        input_defaults = spec.get("input_defaults", {})
        field_defaults = spec.get("field_defaults", {})
        # Attribute fields named like an input (arange's start, stop, step
        # are both) take the input's expression.
        self._shadowed = [f["name"] for f in info["fields"]
                          if f["name"] in inputs]
        self._fields = [f["name"] for f in info["fields"]
                        if f["name"] not in inputs]
        # A shadowed field that holds integers (collapse_sum_to's shape)
        # takes the input's values, and the input becomes an int32
        # constant, as TVM's wrappers build them.
        self._shadowed_lists = [f["name"] for f in info["fields"]
                                if f["name"] in inputs and
                                "list of int" in f["type"]]
        # List fields given one integer, as TVM's wrappers take them: a
        # field whose default has n elements repeats it n times (conv2d's
        # strides=2 is (2, 2)); any other takes a one-element list
        # (sum's axis=1 is [1]).
        self._list_fields = {}
        for f in info["fields"]:
            if "list of int" in f["type"] and "list of list" not in f["type"]:
                default = f["default"]
                self._list_fields[f["name"]] = len(default) \
                    if isinstance(default, tuple) and default else 1
        params = {}
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        for name in inputs:
            params[name] = inspect.Parameter(
                name, kind, default=input_defaults.get(name, _EMPTY))
        for field in info["fields"]:
            name = field["name"]
            if name in params:
                continue
            if name in field_defaults:
                default = field_defaults[name]
            elif not field["required"]:
                default = field["default"]
            elif field["type"].startswith("optional"):
                default = None
            else:
                default = _EMPTY
            params[name] = inspect.Parameter(name, kind, default=default)
        order = spec.get("order")
        names = list(order) + [n for n in params if n not in order] \
            if order else list(params)
        ordered = [params[n] for n in names]
        if order:
            # As in TVM, everything before the last parameter the order
            # lists without a default is positional and required
            # (gather(data, axis, indices)).
            required = [i for i, p in enumerate(ordered[:len(order)])
                        if p.default is _EMPTY]
            for i in range(required[-1] if required else 0):
                ordered[i] = ordered[i].replace(default=_EMPTY)
        # Python wants parameters without defaults first: a required field
        # after a defaulted one becomes keyword-only.
        seen_default = False
        fixed = []
        for p in ordered:
            if p.default is not _EMPTY:
                seen_default = True
            elif seen_default:
                p = p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            fixed.append(p)
        positional = [p for p in fixed if p.kind == kind]
        keyword = [p for p in fixed if p.kind != kind]
        if self._variadic:
            positional = [inspect.Parameter(
                "args", inspect.Parameter.VAR_POSITIONAL)] + [
                p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
                for p in positional if p.name not in inputs]
        self.__signature__ = inspect.Signature(positional + keyword)
        self.__name__ = self.op_name.rsplit(".", 1)[-1]
        self.__qualname__ = self.__name__
        self.__doc__ = "%s%s\n\n%s" % (self.op_name, self.__signature__,
                                       info["description"])

    def __call__(self, *args, **kwargs):
        """The slow path, for the rare operator whose parameter names are
        not Python identifiers (see make_function)."""
        try:
            bound = self.__signature__.bind(*args, **kwargs)
        except TypeError as error:
            unknown = [k for k in kwargs
                       if k not in self.__signature__.parameters]
            if unknown:
                self.fail(unknown)
            raise TypeError("%s: %s" % (self.op_name, error)) from None
        bound.apply_defaults()
        values = bound.arguments
        args = values.pop("args", ()) if self._variadic else \
            [values[name] for name in self._inputs]
        return self.build(args, {name: values[name] for name in self._fields})

    def __repr__(self):
        return "<nnir operator %s%s>" % (self.op_name, self.__signature__)

    def fail(self, unknown):
        """Raises the TypeError for unknown keyword arguments."""
        raise TypeError(
            "unknown attribute '%s' of %s; valid attributes are: %s" %
            (next(iter(unknown)), self.op_name, ", ".join(self._fields)))

    def build(self, args, attrs):
        """The call of the bound arguments (the fast path's body)."""
        if self._shadowed_lists:
            args = list(args)
            for name in self._shadowed_lists:
                index = self._inputs.index(name)
                args[index], attrs[name] = _int_list_input(args[index])
        call_args = [a if isinstance(a, Expr) else _as_expr(a, name)
                     for a, name in zip(args, self._inputs)] \
            if not self._variadic else [_as_expr(a, "args") for a in args]
        for name, count in self._list_fields.items():
            value = attrs.get(name)
            if isinstance(value, (int, np.integer)) and \
                    not isinstance(value, bool):
                attrs[name] = [value] * count
        for name in self._shadowed:
            if name not in self._shadowed_lists:
                attrs[name] = call_args[self._inputs.index(name)]
        return _nnir.make_op_call(self.op_name, call_args, attrs)

    def make_function(self):
        """A plain Python function with this signature: Python binds the
        arguments itself (ten times faster than Signature.bind), and the
        body is build(). Falls back to this object when a name is not an
        identifier."""
        params = list(self.__signature__.parameters.values())
        if not all(p.name.isidentifier() and not keyword.iskeyword(p.name)
                   and not p.name.startswith("_") for p in params):
            return self
        namespace = {"_spec": self}
        text = []
        star = False
        for p in params:
            if p.kind == inspect.Parameter.VAR_POSITIONAL:
                text.append("*" + p.name)
                star = True
                continue
            if p.kind == inspect.Parameter.KEYWORD_ONLY and not star:
                text.append("*")
                star = True
            if p.default is _EMPTY:
                text.append(p.name)
            else:
                namespace["_d_" + p.name] = p.default
                text.append("%s=_d_%s" % (p.name, p.name))
        text.append("**_unknown")
        namespace.update(_make=_nnir.make_op_call, _Expr=Expr,
                         _as_expr=_as_expr)
        if self._variadic:
            args = "[_as_expr(a, 'args') for a in args]"
        else:
            args = "[%s]" % ", ".join(
                "%s if isinstance(%s, _Expr) else _as_expr(%s, %r)" %
                (n, n, n, n) for n in self._inputs)
        attrs = "{%s}" % ", ".join("%r: %s" % (f, f) for f in self._fields)
        # Most operators need no more than this; the others go through
        # build() for their list fields and shadowed inputs.
        if self._list_fields or self._shadowed or self._variadic:
            body = "return _spec.build(%s, %s)" % (
                "args" if self._variadic else "[%s]" % ", ".join(self._inputs),
                attrs)
        else:
            body = "return _make(%r, %s, %s)" % (self.op_name, args, attrs)
        source = ("def %s(%s):\n"
                  "    if _unknown:\n"
                  "        _spec.fail(_unknown)\n"
                  "    %s\n" % (self.__name__, ", ".join(text), body))
        exec(compile(source, "<nnir.op %s>" % self.op_name, "exec"),
             namespace)
        function = namespace[self.__name__]
        function.__doc__ = self.__doc__
        function.__qualname__ = self.__name__
        function.__module__ = "nnir.op"
        function.op_name = self.op_name
        return function


def _namespace(parent, name):
    """The submodule `name` of `parent` (nnir.op.nn), created on first use."""
    full = parent.__name__ + "." + name
    module = sys.modules.get(full)
    if module is None:
        prefix = full.split(".", 2)[-1]
        module = types.ModuleType(full, "The %s.* operators" % prefix)
        sys.modules[full] = module
        setattr(parent, name, module)
    return module


def populate(package):
    """Adds a function per registered operator to the module `package`
    (nnir.op) and its namespaces."""
    for info in _nnir.list_ops():
        function = _OpFunction(info).make_function()
        *prefix, base = info["name"].split(".")
        target = package
        for part in prefix:
            target = _namespace(target, part)
        setattr(target, base, function)
