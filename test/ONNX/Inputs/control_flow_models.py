#!/usr/bin/env python3
"""Writes the small If/Loop/Scan models of test/ONNX/control-flow.test.

    control_flow_models.py DIR    writes DIR/NAME.onnx for every model and
                                  the .npy inputs the test runs them on

Needs Debian's python3-onnx and python3-numpy (run it with %onnx_python).
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F, B, I64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def arr(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def model(nodes, inputs, outputs, inits=(), opset=16):
    graph = helper.make_graph(nodes, "test", inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def graph(nodes, outputs, inputs=(), inits=(), name="g"):
    return helper.make_graph(nodes, name, list(inputs), outputs, list(inits))


def if_nested():
    """then: x + w (w an initializer of the branch), then a nested If on the
    outer input d choosing between that sum and the outer initializer k;
    else: the outer value x itself."""
    inner = helper.make_node(
        "If", ["d"], ["inner"],
        then_branch=graph([helper.make_node("Identity", ["sum"], ["t"])],
                          [vi("t", [2])]),
        else_branch=graph([], [vi("k", [2])]))
    then = graph([helper.make_node("Add", ["x", "w"], ["sum"]), inner],
                 [vi("inner", [2])], inits=[arr("w", np.float32([10, 20]))])
    other = graph([], [vi("x", [2])])
    node = helper.make_node("If", ["c"], ["y"], then_branch=then,
                            else_branch=other)
    return model([node], [vi("c", [], B), vi("d", [1], B), vi("x", [2])],
                 [vi("y", [2])], [arr("k", np.float32([7, 8]))])


def if_two_outputs():
    then = graph([helper.make_node("Neg", ["x"], ["a"]),
                  helper.make_node("Abs", ["x"], ["b"])],
                 [vi("a", [2]), vi("b", [2])])
    other = graph([helper.make_node("Exp", ["x"], ["a2"])],
                  [vi("a2", [2]), vi("x", [2])])
    node = helper.make_node("If", ["c"], ["y", "z"], then_branch=then,
                            else_branch=other)
    return model([node], [vi("c", [], B), vi("x", [2])],
                 [vi("y", [2]), vi("z", [2])])


def if_sample_rate():
    """Silero's shape: the sample rate (an input) picks a branch."""
    then = graph([helper.make_node("Mul", ["x", "two"], ["a"])],
                 [vi("a", [2])], inits=[arr("two", np.float32(2))])
    other = graph([helper.make_node("Mul", ["x", "three"], ["b"])],
                  [vi("b", [2])], inits=[arr("three", np.float32(3))])
    return model([helper.make_node("Equal", ["sr", "rate"], ["is16k"]),
                  helper.make_node("If", ["is16k"], ["y"], then_branch=then,
                                   else_branch=other)],
                 [vi("sr", [], I64), vi("x", [2])], [vi("y", [2])],
                 [arr("rate", np.int64(16000))])


def if_types_differ():
    then = graph([helper.make_node("Unsqueeze", ["x", "ax"], ["u"])],
                 [vi("u", [1, 2])], inits=[arr("ax", np.int64([0]))])
    other = graph([], [vi("x", [2])])
    node = helper.make_node("If", ["c"], ["y"], name="pick",
                            then_branch=then, else_branch=other)
    return model([node], [vi("c", [], B), vi("x", [2])], [vi("y", None)])


def if_squeeze_dynamic():
    # Silero v5's decoder: squeeze the last axis when its extent is 1, an
    # extent the sample count gives (`?` here).
    then = graph([helper.make_node("Squeeze", ["x", "last"], ["s"])],
                 [vi("s", None)], inits=[arr("last", np.int64([-1]))])
    other = graph([helper.make_node("Identity", ["x"], ["i"])],
                  [vi("i", None)])
    return model(
        [helper.make_node("Shape", ["x"], ["shape"]),
         helper.make_node("Gather", ["shape", "minus1"], ["n"]),
         helper.make_node("Equal", ["n", "one"], ["c"]),
         helper.make_node("If", ["c"], ["y"], name="squeeze_if_one",
                          then_branch=then, else_branch=other)],
        [vi("x", ["batch", 3, "samples"])], [vi("y", None)],
        [arr("minus1", np.int64(-1)), arr("one", np.int64(1))])


def if_no_else():
    then = graph([], [vi("x", [2])])
    node = helper.make_node("If", ["c"], ["y"], then_branch=then)
    return model([node], [vi("c", [], B), vi("x", [2])], [vi("y", [2])])


def if_unknown_name():
    then = graph([helper.make_node("Neg", ["nope"], ["n"], name="neg")],
                 [vi("n", [2])])
    other = graph([], [vi("x", [2])])
    node = helper.make_node("If", ["c"], ["y"], then_branch=then,
                            else_branch=other)
    return model([node], [vi("c", [], B), vi("x", [2])], [vi("y", [2])])


def loop_body(nodes, outputs, carried, inits=()):
    inputs = [vi("i", [], I64), vi("cond_in", [], B)] + carried
    return graph(nodes, [vi("cond_out", [], B)] + outputs, inputs, inits)


def loop_scan():
    """y += x[i] for M iterations; the scan output collects each y."""
    body = loop_body(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Gather", ["x", "i"], ["xi"]),
         helper.make_node("Add", ["y_in", "xi"], ["y_out"]),
         helper.make_node("Identity", ["y_out"], ["scan_out"])],
        [vi("y_out", [2]), vi("scan_out", [2])], [vi("y_in", [2])])
    node = helper.make_node("Loop", ["M", "cond", "y0"], ["y", "ys"],
                            body=body)
    return model([node], [vi("M", [], I64), vi("cond", [], B),
                          vi("y0", [2]), vi("x", [4, 2])],
                 [vi("y", [2]), vi("ys", [None, 2])])


def loop_count():
    """A counting loop without scan outputs: acc += 1, M times; the
    condition goes false once acc reaches the outer limit."""
    body = loop_body(
        [helper.make_node("Add", ["acc_in", "one"], ["acc_out"]),
         helper.make_node("Less", ["acc_out", "limit"], ["cond_out"])],
        [vi("acc_out", [])], [vi("acc_in", [])],
        inits=[arr("one", np.float32(1))])
    node = helper.make_node("Loop", ["M", "", "acc0"], ["acc"], body=body)
    node_c = helper.make_node("Loop", ["M", "cond", "acc0"], ["acc_c"],
                              body=body)
    return model([node, node_c],
                 [vi("M", [], I64), vi("cond", [], B), vi("acc0", []),
                  vi("limit", [])], [vi("acc", []), vi("acc_c", [])])


def loop_grows():
    body = loop_body(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Concat", ["y_in", "y_in"], ["y_out"], axis=0)],
        [vi("y_out", [None])], [vi("y_in", [None])])
    node = helper.make_node("Loop", ["M", "cond", "y0"], ["y"], name="grow",
                            body=body)
    return model([node], [vi("M", [], I64), vi("cond", [], B), vi("y0", [2])],
                 [vi("y", [None])])


def loop_early_exit_scan():
    body = loop_body(
        [helper.make_node("Less", ["y_out", "five"], ["cond_out"]),
         helper.make_node("Add", ["y_in", "y_in"], ["y_out"])],
        [vi("y_out", []), vi("y_out", [])], [vi("y_in", [])],
        inits=[arr("five", np.float32(5))])
    node = helper.make_node("Loop", ["M", "cond", "y0"], ["y", "ys"],
                            body=body)
    return model([node], [vi("M", [], I64), vi("cond", [], B), vi("y0", [])],
                 [vi("y", []), vi("ys", [None])])


def loop_no_body():
    node = helper.make_node("Loop", ["M", "cond", "y0"], ["y"])
    return model([node], [vi("M", [], I64), vi("cond", [], B), vi("y0", [2])],
                 [vi("y", [2])])


def scan_reverse():
    """Scan 9+: a running sum over axis 1 of x, read backwards; the partial
    sums stacked on output axis 1."""
    body = graph([helper.make_node("Add", ["s_in", "row"], ["s_out"]),
                  helper.make_node("Identity", ["s_out"], ["out"])],
                 [vi("s_out", [2]), vi("out", [2])],
                 [vi("s_in", [2]), vi("row", [2])])
    node = helper.make_node("Scan", ["s0", "x"], ["s", "outs"], body=body,
                            num_scan_inputs=1, scan_input_axes=[1],
                            scan_input_directions=[1], scan_output_axes=[1])
    return model([node], [vi("s0", [2]), vi("x", [2, 3])],
                 [vi("s", [2]), vi("outs", [2, 3])])


def scan_batched():
    """Scan 8: a batch axis first, the scan axis second."""
    body = graph([helper.make_node("Add", ["s_in", "row"], ["s_out"]),
                  helper.make_node("Identity", ["s_out"], ["out"])],
                 [vi("s_out", [2]), vi("out", [2])],
                 [vi("s_in", [2]), vi("row", [2])])
    node = helper.make_node("Scan", ["", "s0", "x"], ["s", "outs"],
                            body=body, num_scan_inputs=1)
    return model([node], [vi("s0", [2, 2]), vi("x", [2, 3, 2])],
                 [vi("s", [2, 2]), vi("outs", [2, 3, 2])], opset=8)


MODELS = [if_nested, if_sample_rate, if_two_outputs, if_types_differ,
          if_squeeze_dynamic, if_no_else,
          if_unknown_name, loop_scan, loop_count, loop_grows,
          loop_early_exit_scan, loop_no_body, scan_reverse, scan_batched]


def main():
    out = sys.argv[1]
    for make in MODELS:
        onnx.save(make(), "%s/%s.onnx" % (out, make.__name__))
    arrays = {
        "true": np.array(True), "false": np.array(False),
        "true1": np.array([True]), "false1": np.array([False]),
        "x2": np.float32([1, 2]),
        "sr": np.array(8000, np.int64),
        "x42": np.arange(8, dtype=np.float32).reshape(4, 2),
        "y0": np.float32([100, 200]),
        "m4": np.array(4, np.int64), "m100000": np.array(100000, np.int64),
        "zero": np.float32(0), "limit3": np.float32(3),
        "limit1e9": np.float32(1e9),
        "s0": np.float32([0, 0]), "x23": np.float32([[1, 2, 3], [4, 5, 6]]),
        "s022": np.zeros((2, 2), np.float32),
        "x232": np.arange(12, dtype=np.float32).reshape(2, 3, 2),
    }
    for name, value in arrays.items():
        np.save("%s/%s.npy" % (out, name), value)
    # BindParams{dir=...} reads <param>.npy files of a directory.
    import os
    os.makedirs("%s/sr8000" % out, exist_ok=True)
    np.save("%s/sr8000/sr.npy" % out, arrays["sr"])


if __name__ == "__main__":
    main()
