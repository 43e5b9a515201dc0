#!/usr/bin/env python3
"""Writes the models of test/ONNX/unroll.test: SequenceMap and Loops that
carry a sequence, which the importer unrolls.

    unroll_models.py DIR    writes DIR/NAME.onnx for every model and the
                            .npy inputs the test runs them on

Needs Debian's python3-onnx and python3-numpy (run it with %onnx_python).
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import control_flow_models as cf  # noqa: E402  (vi, arr, graph, model)

F, B, I64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64
vi, arr, graph = cf.vi, cf.arr, cf.graph


def seq(name, elem=F):
    return helper.make_tensor_sequence_value_info(name, elem, None)


def model(nodes, inputs, outputs, inits=()):
    return cf.model(nodes, inputs, outputs, inits, opset=17)


def seqmap_add():
    """SequenceMap over [a, b] (shapes (2) and (3)) with the tensor x shared:
    each element plus x, and each element's shape."""
    body = graph([helper.make_node("Add", ["e", "t"], ["sum"]),
                  helper.make_node("Shape", ["e"], ["shape"])],
                 [vi("sum", None), vi("shape", [1], I64)],
                 inputs=[vi("e", None), vi("t", [])])
    return model([helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
                  helper.make_node("SequenceMap", ["s", "x"],
                                   ["sums", "shapes"], body=body)],
                 [vi("a", [2]), vi("b", [3]), vi("x", [])],
                 [seq("sums"), seq("shapes", I64)])


def seqmap_lengths_differ():
    body = graph([helper.make_node("Add", ["e", "f"], ["sum"])],
                 [vi("sum", None)], inputs=[vi("e", None), vi("f", None)])
    return model([helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
                  helper.make_node("SequenceConstruct", ["a"], ["t"]),
                  helper.make_node("SequenceMap", ["s", "t"], ["sums"],
                                   body=body)],
                 [vi("a", [2]), vi("b", [2])], [seq("sums")])


def seqmap_not_sequence():
    body = graph([helper.make_node("Identity", ["e"], ["y"])],
                 [vi("y", None)], inputs=[vi("e", None)])
    return model([helper.make_node("SequenceMap", ["a"], ["ys"], body=body)],
                 [vi("a", [2])], [seq("ys")])


def loop_body(cond_out_node=None):
    """Inserts x[0:i+1] into the carried sequence (its elements grow) and
    scans out 10 * i."""
    nodes = [
        helper.make_node("Add", ["i", "one"], ["end"]),
        helper.make_node("Unsqueeze", ["end", "zero"], ["ends"]),
        helper.make_node("Slice", ["x", "zero", "ends"], ["part"]),
        helper.make_node("SequenceInsert", ["s_in", "part"], ["s_out"]),
        helper.make_node("Mul", ["i", "ten"], ["scan"]),
    ]
    if cond_out_node is None:
        nodes.append(helper.make_node("Identity", ["c_in"], ["c_out"]))
    else:
        nodes.append(cond_out_node)
    return graph(nodes, [vi("c_out", [], B), seq("s_out"), vi("scan", [], I64)],
                 inputs=[vi("i", [], I64), vi("c_in", [], B), seq("s_in")],
                 inits=[arr("one", np.int64(1)), arr("ten", np.int64(10)),
                        arr("zero", np.int64([0]))])


def loop_seq(m=3, body=None, m_input=False, name_m="M"):
    nodes = [helper.make_node("SequenceEmpty", [], ["empty"]),
             helper.make_node("Loop", [name_m, "cond", "empty"],
                              ["s", "scans"], body=body or loop_body())]
    inputs = [vi("x", [4])]
    inits = [arr("cond", np.bool_(True))]
    if m_input:
        inputs.append(vi(name_m, [], I64))
    elif name_m:
        inits.append(arr(name_m, np.int64(m)))
    return model(nodes, inputs, [seq("s"), vi("scans", [None], I64)], inits)


def loop_seq_count():
    return loop_seq()


def loop_seq_until():
    """No trip count: the body's condition (i < 2) ends the loop after
    three iterations."""
    stop = helper.make_node("Less", ["i", "two"], ["c_out"])
    body = loop_body(stop)
    body.initializer.append(arr("two", np.int64(2)))
    return loop_seq(body=body, name_m="")


def loop_seq_m_unknown():
    return loop_seq(m_input=True)


def loop_seq_cond_unknown():
    """The condition after an iteration depends on the graph input limit."""
    stop = helper.make_node("Less", ["i", "limit"], ["c_out"])
    m = loop_seq(body=loop_body(stop))
    m.graph.input.append(vi("limit", [], I64))
    return m


def loop_seq_too_long():
    return loop_seq(m=1000000)


MODELS = [seqmap_add, seqmap_lengths_differ, seqmap_not_sequence,
          loop_seq_count, loop_seq_until, loop_seq_m_unknown,
          loop_seq_cond_unknown, loop_seq_too_long]


def main():
    out = sys.argv[1]
    for make in MODELS:
        onnx.save(make(), "%s/%s.onnx" % (out, make.__name__))
    arrays = {
        "a": np.float32([1, 2]), "b": np.float32([3, 4, 5]),
        "x": np.float32(10), "x4": np.float32([1, 2, 3, 4]),
    }
    for name, value in arrays.items():
        np.save("%s/%s.npy" % (out, name), value)


if __name__ == "__main__":
    main()
