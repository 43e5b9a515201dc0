#!/usr/bin/env python3
"""Writes ONNX models for the lit tests of test/ONNX at test time.

    node_models.py DIR NAME...   writes DIR/NAME.onnx for each NAME

Needs Debian's python3-onnx and python3-numpy (run it with %onnx_python).
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "test", inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def arr(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def empty_tensors():
    # Split into a part of size 0, reshape of an empty tensor with
    # allowzero, Concat of an empty part.
    return model(
        [helper.make_node("Split", ["x", "sizes"], ["a", "b", "c"], axis=1),
         helper.make_node("Reshape", ["b", "shape"], ["r"], allowzero=1),
         helper.make_node("Concat", ["b", "x"], ["cat"], axis=1)],
        [vi("x", [2, 3])],
        [vi("a", None), vi("b", None), vi("c", None), vi("r", None),
         vi("cat", None)],
        [arr("sizes", np.array([1, 0, 2], np.int64)),
         arr("shape", np.array([0, 2, 5], np.int64))])


def split_negative():
    return model(
        [helper.make_node("Split", ["x", "sizes"], ["a", "b"], axis=1)],
        [vi("x", [2, 3])], [vi("a", None), vi("b", None)],
        [arr("sizes", np.array([4, -1], np.int64))])


MODELS = {name: fn for name, fn in globals().items()
          if callable(fn) and fn.__module__ == __name__
          and name not in ("model", "vi", "arr")}

if __name__ == "__main__":
    for name in sys.argv[2:]:
        onnx.save(MODELS[name](), "%s/%s.onnx" % (sys.argv[1], name))
