#!/usr/bin/env python3
"""Writes an ONNX model with about MB megabytes of float32 initializers: a
chain of MatMul + Add layers on 1024x1024 weights (4 MiB each).

    /usr/bin/python3 benchmarks/make_big_onnx.py 100 /tmp/big100.onnx
    build/bin/nnir-onnx-import-bench /tmp/big100.onnx
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    megabytes, out = int(sys.argv[1]), sys.argv[2]
    n = 1024
    layers = max(1, megabytes * 1024 * 1024 // (n * n * 4))
    rng = np.random.default_rng(0)
    nodes, inits, prev = [], [], "x"
    for i in range(layers):
        w = rng.standard_normal((n, n), dtype=np.float32) * 0.01
        inits.append(numpy_helper.from_array(w, "w%d" % i))
        inits.append(numpy_helper.from_array(np.zeros(n, np.float32), "b%d" % i))
        nodes.append(helper.make_node("MatMul", [prev, "w%d" % i], ["m%d" % i]))
        nodes.append(helper.make_node("Add", ["m%d" % i, "b%d" % i], ["a%d" % i]))
        prev = "a%d" % i
    graph = helper.make_graph(
        nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    with open(out, "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
