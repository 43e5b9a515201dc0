"""nnir: a tensor-graph compiler on LLVM, in Python.

    import nnir
    x = nnir.var("x", shape=(2, 2))
    y = nnir.op.nn.relu(nnir.op.add(x, nnir.const(1.0)))
    mod = nnir.infer_type(nnir.IRModule.from_expr(y))
    print(mod)

See docs/Python.md.
"""

from . import _nnir
from ._nnir import DiagnosticError, has_onnx
from . import ir
from .ir import (Any, Attrs, Call, Constant, DictAttrs, Expr, FuncType,
                 Function, GlobalVar, If, IncompleteType, IRModule, Let,
                 NDArray, Op,
                 TensorType, Tuple, TupleGetItem, TupleType, Type, Var,
                 assert_structural_equal, const, infer_type, load, ndarray,
                 parse, parse_expr, structural_equal, structural_hash, var)
from . import op
from .expr_functor import ExprMutator, ExprVisitor
from . import instrument
from . import transform

__all__ = ["DiagnosticError", "ExprMutator", "ExprVisitor", "has_onnx",
           "instrument", "ir", "op", "transform"] + ir.__all__

# Running, importing, analyses and TVM's names (docs/Python.md).
from . import analysis, expr_ops, frontend, passes, qnn, testing
from .executor import Device, Executor, cpu, create_executor, device
from .scope_builder import ScopeBuilder
from .tvm_compat import install_as_tvm

__all__ += ["Device", "Executor", "ScopeBuilder", "analysis", "cpu",
            "create_executor", "device", "frontend", "install_as_tvm",
            "testing"]
