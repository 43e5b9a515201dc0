#!/usr/bin/env python3
"""Writes the ONNX models and values of the sequence and optional tests
(test/ONNX/sequences.test, sequence-io.test, sequence-errors.test):

    sequences.py DIR    write DIR/NAME.onnx for every model and the input
                        values (TensorProto, SequenceProto, OptionalProto)

The tests run it (REQUIRES: onnx-python), so nothing binary is checked in.
Needs Debian's python3-onnx and python3-numpy.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def model(nodes, inputs, outputs, inits=(), opset=15):
    graph = helper.make_graph(nodes, "test", inputs, outputs, list(inits))
    m = helper.make_model(graph,
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def seq_vi(name, elem=F, shape=None):
    return helper.make_value_info(
        name, helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(elem, shape)))


def opt_vi(name, elem_type):
    return helper.make_value_info(name,
                                  helper.make_optional_type_proto(elem_type))


def const(name, value, dtype=np.int64):
    return numpy_helper.from_array(np.array(value, dtype), name)


def node(op, inputs, outputs, **attrs):
    return helper.make_node(op, inputs, outputs, name=outputs[0], **attrs)


def xyz(shape=(2, 3)):
    return [vi(n, list(shape)) for n in "xyz"]


MODELS = {
    # SequenceConstruct, then SequenceAt from the end.
    "seq_at": model(
        [node("SequenceConstruct", ["x", "y", "z"], ["s"]),
         node("SequenceAt", ["s", "p"], ["out"])],
        xyz(), [vi("out", [2, 3])], [const("p", -1)]),
    # SequenceInsert in the middle, SequenceErase at the front; the sequence
    # and its length are the outputs.
    "seq_insert_erase": model(
        [node("SequenceConstruct", ["x", "y"], ["s"]),
         node("SequenceInsert", ["s", "z", "one"], ["s2"]),
         node("SequenceErase", ["s2", "zero"], ["s3"]),
         node("SequenceLength", ["s3"], ["n"])],
        xyz(), [seq_vi("s3"), vi("n", [], I64)],
        [const("one", 1), const("zero", 0)]),
    # SequenceEmpty, two inserts at the end, ConcatFromSequence.
    "seq_empty_concat": model(
        [node("SequenceEmpty", [], ["e"]),
         node("SequenceInsert", ["e", "x"], ["s1"]),
         node("SequenceInsert", ["s1", "y"], ["s2"]),
         node("ConcatFromSequence", ["s2"], ["out"], axis=1)],
        xyz()[:2], [vi("out", [2, 6])]),
    # ConcatFromSequence with new_axis: a stack on the last axis.
    "seq_stack": model(
        [node("SequenceConstruct", ["x", "y", "z"], ["s"]),
         node("ConcatFromSequence", ["s"], ["out"], axis=-1, new_axis=1)],
        xyz(), [vi("out", [2, 3, 3])]),
    # SplitToSequence: parts of 3 (the last shorter), given sizes, and
    # single slices with keepdims=0.
    "split_to_seq": model(
        [node("SplitToSequence", ["x", "three"], ["a"]),
         node("SplitToSequence", ["x", "sizes"], ["b"], axis=1),
         node("SplitToSequence", ["x"], ["c"], axis=1, keepdims=0),
         node("SequenceAt", ["c", "two"], ["c2"])],
        [vi("x", [4, 3])], [seq_vi("a"), seq_vi("b"), vi("c2", [4])],
        [const("three", 3), const("sizes", [1, 2]), const("two", 2)]),
    # Optional of a tensor, an empty optional, and their queries.
    "optional": model(
        [node("Optional", ["x"], ["o"]),
         node("OptionalHasElement", ["o"], ["has"]),
         node("OptionalGetElement", ["o"], ["got"]),
         node("Optional", [], ["none"],
              type=helper.make_tensor_type_proto(F, [2, 3])),
         node("OptionalHasElement", ["none"], ["has_none"])],
        [vi("x", [2, 3])],
        [vi("has", [], TensorProto.BOOL), vi("got", [2, 3]),
         vi("has_none", [], TensorProto.BOOL)]),
    # A sequence graph input: its length, an element, and itself (Identity).
    "seq_input": model(
        [node("SequenceLength", ["s"], ["n"]),
         node("SequenceAt", ["s", "one"], ["e"]),
         node("Identity", ["s"], ["same"])],
        [seq_vi("s")], [vi("n", [], I64), vi("e", None), seq_vi("same")],
        [const("one", 1)]),
    # An optional graph input, of a sequence.
    "optional_input": model(
        [node("OptionalHasElement", ["o"], ["has"]),
         node("OptionalGetElement", ["o"], ["s"])],
        [opt_vi("o", helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(F, None)))],
        [vi("has", [], TensorProto.BOOL), seq_vi("s")]),
    "optional_tensor_input": model(
        [node("OptionalHasElement", ["o"], ["has"])],
        [opt_vi("o", helper.make_tensor_type_proto(F, [2]))],
        [vi("has", [], TensorProto.BOOL)]),
    # Errors.
    "seq_at_out_of_range": model(
        [node("SequenceConstruct", ["x", "y", "z"], ["s"]),
         node("SequenceAt", ["s", "p"], ["out"])],
        xyz(), [vi("out", [2, 3])], [const("p", 3)]),
    "seq_at_input_position": model(
        [node("SequenceConstruct", ["x", "y", "z"], ["s"]),
         node("SequenceAt", ["s", "p"], ["out"])],
        xyz() + [vi("p", [], I64)], [vi("out", [2, 3])]),
    "split_input_sizes": model(
        [node("SplitToSequence", ["x", "sizes"], ["s"]),
         node("SequenceLength", ["s"], ["n"])],
        [vi("x", [4, 3]), vi("sizes", [2], I64)], [vi("n", [], I64)]),
    "concat_mixed_dtypes": model(
        [node("SequenceConstruct", ["x", "i"], ["s"]),
         node("ConcatFromSequence", ["s"], ["out"], axis=0)],
        [vi("x", [2, 3]), vi("i", [2, 3], I64)], [vi("out", [4, 3])]),
    "optional_get_empty": model(
        [node("Optional", [], ["o"],
              type=helper.make_tensor_type_proto(F, [2])),
         node("OptionalGetElement", ["o"], ["out"])],
        [], [vi("out", [2])]),
    "erase_empty": model(
        [node("SequenceEmpty", [], ["e"]),
         node("SequenceErase", ["e"], ["out"])],
        [], [seq_vi("out")]),
    "add_sequence": model(
        [node("SequenceConstruct", ["x"], ["s"]),
         node("Add", ["s", "x"], ["out"])],
        [vi("x", [2, 3])], [vi("out", [2, 3])]),
    "at_of_tensor": model(
        [node("SequenceAt", ["x", "p"], ["out"])],
        [vi("x", [2, 3])], [vi("out", [3])], [const("p", 0)]),
}


def values():
    """The input values: name -> serialised proto."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    elements = [np.array([1, 2], np.float32), np.array([3, 4, 5], np.float32),
                np.array([[6]], np.float32)]
    seq = helper.make_sequence(
        "s", onnx.SequenceProto.TENSOR,
        [numpy_helper.from_array(e) for e in elements])
    seq_int = helper.make_sequence(
        "s", onnx.SequenceProto.TENSOR,
        [numpy_helper.from_array(np.array([1, 2], np.int64))])
    inner = helper.make_sequence(
        "", onnx.SequenceProto.TENSOR,
        [numpy_helper.from_array(e) for e in elements[:2]])
    opt_seq = helper.make_optional("o", onnx.OptionalProto.SEQUENCE, inner)
    opt_empty = helper.make_optional("o", onnx.OptionalProto.UNDEFINED, None)
    opt_tensor = helper.make_optional(
        "o", onnx.OptionalProto.TENSOR,
        numpy_helper.from_array(np.array([1, 2], np.float32)))
    return {
        "x.pb": numpy_helper.from_array(x).SerializeToString(),
        "seq.pb": seq.SerializeToString(),
        "seq_int.pb": seq_int.SerializeToString(),
        "opt_seq.pb": opt_seq.SerializeToString(),
        "opt_empty.pb": opt_empty.SerializeToString(),
        "opt_tensor.pb": opt_tensor.SerializeToString(),
        # A SequenceProto cut in the middle of its first element.
        "seq_truncated.pb": seq.SerializeToString()[:12],
    }


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, m in MODELS.items():
        onnx.save(m, os.path.join(out, name + ".onnx"))
    for name, data in values().items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    np.save(os.path.join(out, "x.npy"),
            np.arange(6, dtype=np.float32).reshape(2, 3))


if __name__ == "__main__":
    main()
