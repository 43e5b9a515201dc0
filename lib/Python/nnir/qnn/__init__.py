"""Quantized operators: `nnir.qnn.op.quantize(data, scale, zero_point)`.

`nnir.qnn.op` is the namespace nnir.op generates for the operators whose
names start with "qnn." (qnn.quantize, qnn.dequantize, qnn.requantize,
qnn.add, ...): an operator registered in C++ under that prefix appears here
without a Python edit. Scales and zero points are tensor arguments (numbers
become constants). The calls run, and FoldConstant(fold_qnn=True) folds
them, through their canonicalization into primitive operators (the
QnnCanonicalize pass).
"""

import sys as _sys

from .. import op as _op

op = _op.qnn
_sys.modules[__name__ + ".op"] = op
