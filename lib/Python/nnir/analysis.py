"""Small analyses of expressions: variables, features, parameter binding.

`free_vars(expr)` lists the variables an expression uses without binding
them (a Let's var and a Function's params bind), in the order the walk
meets them; `bound_vars` and `all_vars` the others. `detect_feature` says
which kinds of node occur. `bind(expr, {var: value})` substitutes, and
`bind_params_by_name(func, {name: array})` turns parameters into constants.
"""

import enum

from . import _nnir
from .expr_functor import ExprMutator, ExprVisitor
from .ir import (Call, Constant, Expr, Function, GlobalVar, If, Let, Op,
                 Tuple, TupleGetItem, Var, ndarray)

__all__ = ["Feature", "all_vars", "bind", "bind_params_by_name",
           "bound_vars", "detect_feature", "free_vars"]


class _VarCollector(ExprVisitor):
    def __init__(self):
        super().__init__()
        self.order = {}
        self.bound = {}

    def _bind(self, var):
        self.bound.setdefault(var, None)
        self.order.setdefault(var, None)

    def visit_var(self, var):
        self.order.setdefault(var, None)

    def visit_let(self, let):
        self._bind(let.var)
        super().visit_let(let)

    def visit_function(self, fn):
        for param in fn.params:
            self._bind(param)
        super().visit_function(fn)


def _collect(expr):
    collector = _VarCollector()
    collector.visit(expr)
    return collector


def free_vars(expr):
    """The variables `expr` uses but does not bind, in first-use order."""
    collector = _collect(expr)
    return [v for v in collector.order if v not in collector.bound]


def bound_vars(expr):
    """The variables bound in `expr` (let variables, function parameters)."""
    return list(_collect(expr).bound)


def all_vars(expr):
    """Every variable of `expr`, bound or free."""
    return list(_collect(expr).order)


class Feature(enum.IntEnum):
    """The kinds of node (and program shape) `detect_feature` reports."""
    fVar = 0
    fGlobalVar = 1
    fConstant = 2
    fTuple = 3
    fTupleGetItem = 4
    fFunction = 5
    fOp = 6
    fCall = 7
    fLet = 8
    fIf = 9
    fRefCreate = 10
    fRefRead = 11
    fRefWrite = 12
    fConstructor = 13
    fMatch = 14
    fGraph = 15
    fLetRec = 16


_FEATURE_OF = {Var: Feature.fVar, GlobalVar: Feature.fGlobalVar,
               Constant: Feature.fConstant, Tuple: Feature.fTuple,
               TupleGetItem: Feature.fTupleGetItem,
               Function: Feature.fFunction, Op: Feature.fOp,
               Call: Feature.fCall, Let: Feature.fLet, If: Feature.fIf}


class _FeatureDetector(ExprVisitor):
    def __init__(self):
        super().__init__()
        self.features = set()
        self.uses = {}

    def visit(self, expr):
        # Count users: a node (other than a variable, operator, global or
        # constant) with more than one makes the program a graph.
        if not isinstance(expr, (Var, Op, GlobalVar, Constant)):
            self.uses[expr] = self.uses.get(expr, 0) + 1
        return super().visit(expr)

    def visit_let(self, let):
        self.features.add(Feature.fLet)
        if let.var in _collect(let.value).order:
            self.features.add(Feature.fLetRec)
        super().visit_let(let)


def detect_feature(expr, mod=None):
    """The set of Features of `expr` (a module: of all its functions)."""
    exprs = [expr] if isinstance(expr, Expr) else []
    if mod is not None:
        exprs += list(mod.functions.values())
    elif not isinstance(expr, Expr):
        exprs = list(expr.functions.values())
    detector = _FeatureDetector()
    for e in exprs:
        detector.visit(e)
    features = set(detector.features)
    for node in detector.memo_map:
        features.add(_FEATURE_OF[type(node)])
    if any(count > 1 for count in detector.uses.values()):
        features.add(Feature.fGraph)
    return features


class _Substitute(ExprMutator):
    def __init__(self, binds):
        super().__init__()
        self.binds = binds

    def visit_var(self, var):
        return self.binds.get(var, var)


def bind(expr, binds):
    """`expr` with the variables of `binds` (Var -> Expr) replaced; bound
    function parameters are dropped from the parameter list."""
    binds = {k: v if isinstance(v, Expr) else Constant(ndarray(v))
             for k, v in binds.items()}
    if isinstance(expr, Function):
        body = _Substitute(binds).visit(expr.body)
        params = [p for p in expr.params if p not in binds]
        return Function(params, body, expr.ret_type, expr.attrs)
    return _Substitute(binds).visit(expr)


def bind_params_by_name(func, params):
    """`func` with the parameters named in `params` (name -> array) turned
    into constants; names that are no parameter are ignored. A name shared
    by two parameters is a ValueError."""
    names = [p.name_hint for p in func.params]
    arrays = {}
    for name, value in params.items():
        if name not in names:
            continue
        if names.count(name) > 1:
            raise ValueError("multiple parameters are named '%s'" % name)
        if not isinstance(value, _nnir.NDArray):
            value = ndarray(value.numpy() if hasattr(value, "numpy") and
                            not hasattr(value, "__array_interface__")
                            else value)
        arrays[name] = value
    if not arrays:
        return func
    return _nnir._bind_params(func, arrays)
