"""`tvm.relay`: nnir's expressions, types, operators and tools under
Relay's names."""

import types as _types

import numpy as _np

import nnir as _nnir
from nnir import (Any, Constant, Expr, FuncType, GlobalVar, If, IncompleteType,
                  IRModule, Let, Op, TensorType, Tuple, TupleGetItem,
                  TupleType, Type, Var, var)
from nnir.executor import Executor, create_executor as _create_executor
from nnir.expr_functor import ExprFunctor, ExprMutator, ExprVisitor
from nnir.scope_builder import ScopeBuilder
from nnir.tvm_compat._missing import delegating_getattr

from . import op  # noqa: E402
from .op import TupleWrapper, nn, image, annotation  # noqa: F401,E402
from . import analysis, build_module, frontend, testing, transform  # noqa


# Every operator at the top level, as TVM's relay namespace has them.
for _name, _value in vars(op).items():
    if not _name.startswith("_") and callable(_value) and \
            not isinstance(_value, (_types.ModuleType, type)) and \
            _name not in globals():
        globals()[_name] = _value
split = op.split
topk = op.topk

from .analysis import bind  # noqa: E402
from .build_module import bind_params_by_name  # noqa: E402,F401

RelayExpr = Expr
SourceName = str


class _NodeAlias(type):
    """The metaclass of the classes below: they construct nnir nodes with
    TVM's argument order, and isinstance/issubclass test nnir's class."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls.nnir_class)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, cls.nnir_class)


def _no_type_arguments(what, values):
    if values:
        raise NotImplementedError(
            "%s: type parameters (polymorphic functions) are not implemented "
            "by nnir" % what)


class Function(metaclass=_NodeAlias):
    """nnir.Function, built with TVM's arguments (params, body, ret_type,
    type_params, attrs, span); type_params must be empty."""

    nnir_class = _nnir.Function

    def __new__(cls, params, body, ret_type=None, type_params=None,
                attrs=None, span=None):
        _no_type_arguments("relay.Function", type_params)
        return _nnir.Function(list(params), body, ret_type, attrs)


class Call(metaclass=_NodeAlias):
    """nnir.Call, built with TVM's arguments (op, args, attrs, type_args,
    span); type_args must be empty."""

    nnir_class = _nnir.Call

    def __new__(cls, op, args, attrs=None, type_args=None, span=None):
        _no_type_arguments("relay.Call", type_args)
        return _nnir.Call(op, list(args), attrs)


def const(value, dtype=None, span=None):
    """nnir.const, with Relay's default dtypes: without `dtype`, NumPy
    int64 and float64 data (and Python numbers) become int32 and float32;
    an NDArray keeps its dtype."""
    if dtype is None and isinstance(value, (_np.ndarray, _np.generic)):
        dtype = {"int64": "int32", "float64": "float32"}.get(value.dtype.name)
    return _nnir.const(value, dtype)


def scalar_type(dtype):
    """The type of a scalar (0-d tensor) of `dtype`."""
    return TensorType((), dtype)


def create_executor(kind="debug", mod=None, device=None, target="llvm",
                    params=None):
    """An executor running on nnir's JIT (every kind runs the same way)."""
    return _create_executor(kind, mod, device, target, params)


def parse(source, source_name="from_string", init_module=None,
          init_meta_table=None):
    """The module written in `source` (Relay text), type-checked as TVM's
    parser leaves it."""
    if init_module is not None:
        from nnir.tvm_compat._methods import check_init_module
        check_init_module(init_module)
        raise NotImplementedError("relay.parse: init_module is not "
                                  "implemented by nnir")
    if init_meta_table:
        raise NotImplementedError("relay.parse: init_meta_table is not "
                                  "implemented by nnir (metadata comes from "
                                  "the text's #[metadata] section)")
    return _nnir.infer_type(_nnir.parse(source, source_name))


def parse_expr(source):
    return _nnir.parse_expr(source)


fromtext = parse

__getattr__ = delegating_getattr(__name__)
