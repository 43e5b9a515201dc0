#!/usr/bin/env python3
# ===- onnx-crash-models.py - Hostile ONNX models for the import replay ----===#
#
# Writes the ONNX models of crashes/onnx-import/: each asks the importer for
# an allocation, an overflow or a read out of bounds that commit f0f6384
# ("ONNX: bound what a hostile model can make import allocate or overflow")
# bounded, and three found while writing them: range-negative-count (a
# count far below zero converted to int64), conv-transpose-same-huge-stride
# and eye-like-huge-k (signed overflows). They are checked in, so the replay
# needs no Python ONNX: rerun after changing a model.
#
#   onnx-crash-models.py OUT_DIR
#
# Needs Debian's python3-onnx and python3-numpy.

import os
import sys

import numpy as np
from onnx import TensorProto, helper

# The value-info and array helpers of the ONNX tests' models.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "ONNX", "Inputs"))
from models import arr, vi  # noqa: E402


def model(nodes, inputs, inits=(), opset=13):
    outputs = [vi(nodes[-1].output[0], None)]
    graph = helper.make_graph(nodes, "crash", inputs, outputs, list(inits))
    m = helper.make_model(graph,
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


MODELS = {
    # A 4 TiB constant.
    "constant-of-shape-4tib": lambda: model(
        [helper.make_node("ConstantOfShape", ["shape"], ["y"])], [],
        [arr("shape", np.array([1 << 20, 1 << 20], np.int64))]),
    # 10^18 elements.
    "range-1e18": lambda: model(
        [helper.make_node("Range", ["start", "limit", "delta"], ["y"])], [],
        [arr("start", np.float32(0)), arr("limit", np.float32(1e18)),
         arr("delta", np.float32(1))]),
    # A count of -10^30: converting it to an integer is undefined.
    "range-negative-count": lambda: model(
        [helper.make_node("Range", ["start", "limit", "delta"], ["y"])], [],
        [arr("start", np.float32(0)), arr("limit", np.float32(-1e30)),
         arr("delta", np.float32(1))]),
    # The element count of the target shape overflows int64.
    "reshape-overflow": lambda: model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"])],
        [vi("x", [2])],
        [arr("shape", np.array([1 << 40, 1 << 40], np.int64))]),
    # A depth past int64.
    "onehot-depth-1e300": lambda: model(
        [helper.make_node("OneHot", ["i", "depth", "values"], ["y"])],
        [vi("i", [2], TensorProto.INT64)],
        [arr("depth", np.float64(1e300)),
         arr("values", np.array([0, 1], np.float32))], opset=11),
    # blocksize^2 overflows int64.
    "depth-to-space-huge-blocksize": lambda: model(
        [helper.make_node("DepthToSpace", ["x"], ["y"],
                          blocksize=1 << 62)],
        [vi("x", [1, 4, 2, 2])]),
    # A kernel larger than any extent: the output extent overflows.
    "max-pool-huge-kernel": lambda: model(
        [helper.make_node("MaxPool", ["x"], ["y"],
                          kernel_shape=[1 << 62, 1 << 62])],
        [vi("x", [1, 1, 4, 4])]),
    # output_shape with fewer entries than spatial axes: read out of bounds.
    "conv-transpose-short-output-shape": lambda: model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"],
                          output_shape=[4])],
        [vi("x", [1, 1, 3, 3])],
        [arr("w", np.ones((1, 1, 2, 2), np.float32))]),
    # SAME padding's target, extent * stride, overflows int64.
    "conv-transpose-same-huge-stride": lambda: model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"],
                          strides=[1 << 31, 1], auto_pad="SAME_UPPER")],
        [vi("x", [1, 1, 1 << 40, 3])],
        [arr("w", np.ones((1, 1, 2, 2), np.float32))]),
    # The diagonal's column, row + k, overflows int64.
    "eye-like-huge-k": lambda: model(
        [helper.make_node("EyeLike", ["x"], ["y"], k=(1 << 63) - 1)],
        [vi("x", [3, 3])]),
    # Constants shaped like a 2^40-element input.
    "eye-like-huge": lambda: model(
        [helper.make_node("EyeLike", ["x"], ["y"])],
        [vi("x", [1 << 20, 1 << 20])]),
    "trilu-huge": lambda: model(
        [helper.make_node("Trilu", ["x"], ["y"])],
        [vi("x", [1 << 20, 1 << 20])], opset=14),
    "dropout-mask-huge": lambda: model(
        [helper.make_node("Dropout", ["x"], ["y", "mask"])],
        [vi("x", [1 << 20, 1 << 20])]),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, make in sorted(MODELS.items()):
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(make().SerializeToString())


if __name__ == "__main__":
    main()
