#!/usr/bin/env python3
"""ONNX Slice at the edges of its clamping rules, against NumPy.

    slice_edges.py write DIR   writes DIR/slice_edges.onnx (one Slice per
                               case, each its own output), DIR/x.npy and
                               DIR/z.npy (int64 [0]), and three variants:
                               slice_edges_dynamic.onnx, whose starts, ends
                               and steps are computed from the input z (Add
                               of the case's values and z, so known at run
                               time only: the dynamic Slice path),
                               slice_edges_any.onnx, whose x has symbolic
                               extents (?), and slice_edges_dynamic_any.onnx,
                               both
    slice_edges.py check DIR   compares DIR/output_<i>.npy (nnir-run's) with
                               the reference below; prints "slice_edges: N
                               outputs match" or the first difference

The reference follows the ONNX specification (Slice-13), not Python's
slicing: negative starts and ends get the extent added; then for a positive
step starts and ends are clamped to [0, dim], for a negative step starts to
[0, dim - 1] and ends to [-1, dim - 1]. The two differ for a negative step
whose start is below -dim: Python's slice selects nothing, ONNX selects
element 0 (as ONNX Runtime does).
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BIG = 9223372036854775807  # INT64_MAX
SHAPE = (4, 3, 2)

# (starts, ends, axes, steps); axes and steps None: omitted inputs.
CASES = [
    # Positive steps.
    ([0], [BIG], [0], [1]),                   # the whole axis
    ([-100], [100], [0], [1]),                # both beyond the axis
    ([10], [20], [0], [1]),                   # start past the end: empty
    ([3], [1], [1], [1]),                     # start after end: empty
    ([0], [-100], [2], [1]),                  # end far below: empty
    ([-2], [-1], [1], [1]),                   # negatives inside
    ([1], [BIG], [0], [2]),                   # step 2 to INT64_MAX
    ([-3], [3], [-2], [2]),                   # a negative axis
    ([4], [4], [0], [1]),                     # start = end = dim: empty
    # Negative steps.
    ([-1], [-BIG], [0], [-1]),                # flip, as PyTorch exports it
    ([-1], [-BIG - 1], [1], [-1]),            # flip with INT64_MIN
    ([100], [-100], [2], [-1]),               # both beyond: the whole axis
    ([4], [-5], [0], [-1]),                   # start = dim, end = -dim - 1
    ([3], [-4], [0], [-1]),                   # end = -dim: element 0 stays out
    ([-100], [-200], [0], [-1]),              # start far below: element 0
    ([1], [100], [1], [-1]),                  # end beyond the top: empty
    ([1], [1], [1], [-1]),                    # start = end: empty
    ([-1], [-BIG], [1], [-2]),                # step -2 through element 0
    ([2], [0], [0], [-2]),                    # step -2 stopping above 0
    # Several axes at once, each step sign; defaults for axes and steps.
    ([3, 0, 1], [-BIG, 3, -BIG], [0, 1, 2], [-1, 2, -1]),
    ([1, -100], [100, 2], None, None),
    ([-1, 1], [-BIG, -BIG], [-1, -3], [-1, -1]),
]


def ref_slice(x, starts, ends, axes, steps):
    if axes is None:
        axes = list(range(len(starts)))
    if steps is None:
        steps = [1] * len(starts)
    for start, end, axis, step in zip(starts, ends, axes, steps):
        dim = x.shape[axis]
        if start < 0:
            start += dim
        if end < 0:
            end += dim
        if step > 0:
            start = min(max(start, 0), dim)
            end = min(max(end, 0), dim)
        else:
            start = min(max(start, 0), dim - 1)
            end = min(max(end, -1), dim - 1)
        x = np.take(x, np.arange(start, end, step, dtype=np.int64), axis=axis)
    return x


def write_model(path, dynamic, symbolic):
    nodes, inits, outputs = [], [], []

    def bound(name, values):
        inits.append(numpy_helper.from_array(np.array(values, np.int64),
                                             name))
        if not dynamic:
            return name
        nodes.append(helper.make_node("Add", [name, "z"], [name + "_z"]))
        return name + "_z"

    for i, (starts, ends, axes, steps) in enumerate(CASES):
        names = ["x", bound("s%d" % i, starts), bound("e%d" % i, ends)]
        if axes is not None:
            names.append("a%d" % i)
            inits.append(numpy_helper.from_array(np.array(axes, np.int64),
                                                 names[-1]))
        elif steps is not None:
            names.append("")
        if steps is not None:
            names.append(bound("t%d" % i, steps))
        nodes.append(helper.make_node("Slice", names, ["y%d" % i],
                                      name="slice%d" % i))
        outputs.append(helper.make_tensor_value_info("y%d" % i,
                                                     TensorProto.FLOAT, None))
    shape = ["a", "b", "c"] if symbolic else SHAPE
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)]
    if dynamic:
        inputs.append(helper.make_tensor_value_info("z", TensorProto.INT64,
                                                    [1]))
    graph = helper.make_graph(nodes, "slice_edges", inputs, outputs, inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def write(out_dir):
    for suffix, dynamic, symbolic in [("", False, False),
                                      ("_dynamic", True, False),
                                      ("_any", False, True),
                                      ("_dynamic_any", True, True)]:
        write_model("%s/slice_edges%s.onnx" % (out_dir, suffix), dynamic,
                    symbolic)
    np.save("%s/x.npy" % out_dir,
            np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE))
    np.save("%s/z.npy" % out_dir, np.zeros(1, np.int64))


def check(out_dir):
    x = np.load("%s/x.npy" % out_dir)
    for i, case in enumerate(CASES):
        want = ref_slice(x, *case)
        got = np.load("%s/output_%d.npy" % (out_dir, i))
        if got.shape != want.shape or not np.array_equal(got, want):
            print("slice_edges: case %d %s: got %s %s, want %s %s" %
                  (i, case, got.shape, got.tolist(), want.shape,
                   want.tolist()))
            return 1
    print("slice_edges: %d outputs match" % len(CASES))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2]))
