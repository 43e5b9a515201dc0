"""`tvm.ir`: nnir's IR classes and comparisons under TVM's names."""

from nnir import (Attrs, DictAttrs, Expr, FuncType, GlobalVar,
                  IncompleteType, IRModule, Op, TensorType, TupleType, Type,
                  assert_structural_equal, structural_equal, structural_hash)
from nnir.tvm_compat._missing import delegating_getattr

from . import instrument, transform  # noqa: F401

__path__ = []
RelayExpr = Expr
BaseExpr = Expr

__getattr__ = delegating_getattr(__name__)
