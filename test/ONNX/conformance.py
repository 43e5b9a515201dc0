#!/usr/bin/env python3
"""Runs the ONNX backend test data through nnir-run and reports the results.

Every test directory under DATA/{node,simple,pytorch-converted,
pytorch-operator} holds model.onnx and test_data_set_*/ with input_<i>.pb
and output_<i>.pb (serialised TensorProtos). For each data set this script
runs

    nnir-run model.onnx --input NAME=input_<i>.pb --input-shape=NAME=DIMS ...
             --output-dir OUT

(inputs bound to the graph's non-initializer inputs in order, their shapes
fixed to the data's) and compares OUT/output_<i>.npy with output_<i>.pb at
ONNX's backend-test tolerances (rtol 1e-3, atol 1e-7; NaNs equal; shapes and
dtypes exact). Sequence and optional inputs are passed as the SequenceProto
or OptionalProto files they are (no --input-shape); a sequence output is
compared element by element with OUT/output_<i>_<j>.npy, an optional output
as a sequence of none or one element (nnir-run's naming of a tuple within
the result). A test passes when every data set does. Otherwise it is:

  wrong        nnir-run succeeded but an output differs
  unsupported  nnir-run refused the model with a diagnostic (the reason is
               its first error line)
  crashed      nnir-run died on a signal, timed out, or exited with a code
               other than 0 and 1

It prints a summary by folder and by operator. With --expected FILE (one
`folder/test` per line that must pass; `#` comments) it exits 1 when a listed
test does not pass, and lists newly passing tests so the file can be
updated; --write-expected FILE writes the passing tests.

Needs NumPy and onnx (Debian's python3-numpy and python3-onnx).
"""

import argparse
import collections
import concurrent.futures
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

FOLDERS = ["node", "simple", "pytorch-converted", "pytorch-operator"]
RTOL = 1e-3
ATOL = 1e-7


def graph_inputs(model):
    """The names, kinds ("tensor_type", "sequence_type", "optional_type", ...)
    and tensor element types of the graph's non-initializer inputs."""
    initializers = {init.name for init in model.graph.initializer}
    return [(i.name, i.type.WhichOneof("value"), i.type.tensor_type.elem_type)
            for i in model.graph.input if i.name not in initializers]


def graph_outputs(model):
    """The kinds of the graph's outputs."""
    return [o.type.WhichOneof("value") for o in model.graph.output]


def bfloat16_close(got, want):
    """bfloat16 bit patterns (uint16) equal, or adjacent values of one sign
    (one unit in the last place). ONNX 1.12's reference casts float32 to
    bfloat16 by truncation; nnir rounds to nearest even, as TVM does and as
    ONNX's Cast specifies from ONNX 1.14 on."""
    got = got.astype(np.int32)
    want = want.astype(np.int32)
    same_sign = (got & 0x8000) == (want & 0x8000)
    finite = (want & 0x7f80) != 0x7f80
    return bool(np.all((got == want) |
                       (same_sign & finite & (np.abs(got - want) <= 1))))


class NotATensor(Exception):
    pass


def load_pb(path):
    """The TensorProto in path and its value; NotATensor for the sequences
    and optionals some tests store."""
    tensor = onnx.TensorProto()
    try:
        with open(path, "rb") as f:
            tensor.ParseFromString(f.read())
        return tensor, numpy_helper.to_array(tensor)
    except Exception as e:
        raise NotATensor("%s is not a tensor (%s)" % (os.path.basename(path), e))


def proto_value(proto):
    """A TensorProto's array; a SequenceProto's elements and an
    OptionalProto's value (none or one) as lists, as nnir encodes both."""
    if isinstance(proto, onnx.TensorProto):
        return numpy_helper.to_array(proto)
    if isinstance(proto, onnx.SequenceProto):
        if proto.sparse_tensor_values or proto.map_values:
            raise NotATensor("a sequence of sparse tensors or maps")
        return [proto_value(e) for e in list(proto.tensor_values) +
                list(proto.sequence_values) + list(proto.optional_values)]
    for field in ("tensor_value", "sequence_value", "optional_value"):
        if proto.HasField(field):
            return [proto_value(getattr(proto, field))]
    if proto.HasField("sparse_tensor_value") or proto.HasField("map_value"):
        raise NotATensor("an optional sparse tensor or map")
    return []


def load_value(path, kind):
    """The value in path, read as the graph declares it (kind)."""
    if kind in (None, "tensor_type"):
        return load_pb(path)[1]
    classes = {"sequence_type": onnx.SequenceProto,
               "optional_type": onnx.OptionalProto}
    if kind not in classes:
        raise NotATensor("%s holds a %s" % (os.path.basename(path), kind))
    proto = classes[kind]()
    try:
        with open(path, "rb") as f:
            proto.ParseFromString(f.read())
        return proto_value(proto)
    except NotATensor:
        raise
    except Exception as e:
        raise NotATensor("%s is not a %s (%s)" % (os.path.basename(path),
                                                  kind, e))


def compare(got, want, label):
    """None when the array got matches want, else why not."""
    bfloat16 = False
    if got.dtype.kind == "V" and got.dtype.itemsize == 2 and \
            want.dtype == np.uint16:
        # bfloat16: NumPy has no such type; ONNX's helper gives the bit
        # patterns as uint16, nnir writes them as |V2.
        got = got.view(np.uint16)
        bfloat16 = True
    if got.shape != want.shape:
        return "%s has shape %s, expected %s" % (label, got.shape, want.shape)
    if got.dtype != want.dtype:
        return "%s has dtype %s, expected %s" % (label, got.dtype, want.dtype)
    if bfloat16:
        ok = bfloat16_close(got, want)
    elif want.dtype.kind in "fc":
        ok = np.allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True)
    else:
        ok = np.array_equal(got, want)
    if not ok:
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        return "%s differs (max abs diff %g)" % (
            label, float(np.nanmax(diff)) if diff.size else 0.0)
    return None


def compare_output(out_dir, name, want, label):
    """None when OUT/<name>.npy (an array) or OUT/<name>_<j>... (a list:
    a sequence's or optional's elements, and no more) match want."""
    if isinstance(want, list):
        for j, w in enumerate(want):
            problem = compare_output(out_dir, "%s_%d" % (name, j), w,
                                     "%s element %d" % (label, j))
            if problem:
                return problem
        extra = "%s_%d" % (name, len(want))
        if os.path.exists(os.path.join(out_dir, extra + ".npy")) or \
                glob.glob(os.path.join(out_dir, extra + "_*.npy")):
            return "%s has more than %d elements" % (label, len(want))
        return None
    got_path = os.path.join(out_dir, name + ".npy")
    if not os.path.exists(got_path):
        return "%s is missing" % label
    return compare(np.load(got_path), want, label)


def first_error(text):
    for line in text.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[0].strip() if lines else "(no message)"


def run_data_set(nnir_run, model_path, names, output_kinds, data_dir, timeout,
                 cache_dir):
    """Returns (status, detail) for one test_data_set."""
    inputs = sorted(glob.glob(os.path.join(data_dir, "input_*.pb")),
                    key=lambda p: int(re.findall(r"(\d+)\.pb$", p)[0]))
    outputs = sorted(glob.glob(os.path.join(data_dir, "output_*.pb")),
                     key=lambda p: int(re.findall(r"(\d+)\.pb$", p)[0]))
    if len(inputs) > len(names):
        return "unsupported", "the data has more inputs than the graph"
    cmd = [nnir_run, model_path]
    with tempfile.TemporaryDirectory(prefix="nnir-onnx-") as out_dir:
        for (name, kind, elem_type), path in zip(names, inputs):
            if kind != "tensor_type":
                # A SequenceProto or OptionalProto: nnir-run reads it as
                # the graph declares the input.
                cmd += ["--input", "%s=%s" % (name, path)]
                continue
            tensor, array = load_pb(path)
            if tensor.data_type in (onnx.TensorProto.STRING,):
                return "unsupported", "string input '%s'" % name
            if elem_type == onnx.TensorProto.BFLOAT16 and \
                    tensor.data_type == onnx.TensorProto.UINT16:
                # ONNX 1.12's test data stores bfloat16 inputs as their uint16
                # bit patterns: the same bits, declared as bfloat16.
                tensor.data_type = onnx.TensorProto.BFLOAT16
                path = os.path.join(out_dir, "bf16_" + os.path.basename(path))
                with open(path, "wb") as f:
                    f.write(tensor.SerializeToString())
            dims = "x".join(str(d) for d in array.shape)
            cmd += ["--input", "%s=%s" % (name, path),
                    "--input-shape=%s=%s" % (name, dims)]
        cmd += ["--output-dir", out_dir]
        if cache_dir:
            cmd += ["--kernel-cache-dir", cache_dir]
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "crashed", "timed out after %d s" % timeout
        stderr = proc.stderr.decode(errors="replace")
        if proc.returncode < 0:
            return "crashed", "killed by %s: %s" % (
                signal.Signals(-proc.returncode).name, first_error(stderr))
        if proc.returncode == 1:
            return "unsupported", first_error(stderr)
        if proc.returncode != 0:
            return "crashed", "exit code %d: %s" % (proc.returncode,
                                                    first_error(stderr))
        for i, path in enumerate(outputs):
            kind = output_kinds[i] if i < len(output_kinds) else None
            want = load_value(path, kind)
            problem = compare_output(out_dir, "output_%d" % i, want,
                                     "output %d" % i)
            if problem:
                return "wrong", problem
    return "passed", ""


def run_test(args, folder, test_dir):
    model_path = os.path.join(test_dir, "model.onnx")
    try:
        model = onnx.load(model_path, load_external_data=False)
        names = graph_inputs(model)
        output_kinds = graph_outputs(model)
        ops = sorted({n.op_type for n in model.graph.node})
    except Exception as e:  # A model the Python package cannot read.
        return "unsupported", "onnx cannot load the model: %s" % e, []
    data_sets = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))
    if not data_sets:
        return "unsupported", "no test data", ops
    for data_dir in data_sets:
        try:
            status, detail = run_data_set(args.nnir_run, model_path, names,
                                          output_kinds, data_dir, args.timeout,
                                          args.cache_dir)
        except NotATensor as e:
            status, detail = "unsupported", "the test data: %s" % e
        if status != "passed":
            return status, detail, ops
    return "passed", "", ops


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nnir-run", required=True)
    parser.add_argument("--data", default="/usr/share/libonnx-testdata/data")
    parser.add_argument("--folders", default=",".join(FOLDERS))
    parser.add_argument("--filter", default="",
                        help="only tests whose folder/name matches this regex")
    parser.add_argument("--expected", help="tests that must pass")
    parser.add_argument("--write-expected",
                        help="write the passing tests to this file")
    parser.add_argument("--jobs", "-j", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--cache-dir", default="",
                        help="nnir-run's kernel cache directory")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="print every test's result")
    parser.add_argument("--by-operator", action="store_true",
                        help="print the summary by operator")
    args = parser.parse_args()

    tests = []
    pattern = re.compile(args.filter) if args.filter else None
    for folder in args.folders.split(","):
        root = os.path.join(args.data, folder)
        if not os.path.isdir(root):
            print("error: no test data in %s" % root, file=sys.stderr)
            return 2
        for name in sorted(os.listdir(root)):
            test_dir = os.path.join(root, name)
            key = "%s/%s" % (folder, name)
            if not os.path.isfile(os.path.join(test_dir, "model.onnx")):
                continue
            if pattern and not pattern.search(key):
                continue
            tests.append((folder, key, test_dir))

    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_test, args, folder, test_dir): (folder, key)
                   for folder, key, test_dir in tests}
        for future in concurrent.futures.as_completed(futures):
            folder, key = futures[future]
            results[key] = (folder,) + future.result()

    kinds = ["passed", "wrong", "unsupported", "crashed"]
    by_folder = collections.OrderedDict()
    by_op = collections.defaultdict(collections.Counter)
    for key in sorted(results):
        folder, status, detail, ops = results[key]
        by_folder.setdefault(folder, collections.Counter())[status] += 1
        for op in ops:
            by_op[op][status] += 1
        if args.verbose or status in ("wrong", "crashed"):
            print("%-12s %s%s" % (status.upper(), key,
                                  ": " + detail if detail else ""))

    print("\nSummary by folder:")
    print("  %-20s %7s %7s %7s %12s %8s" % ("folder", "total", *kinds))
    totals = collections.Counter()
    for folder, counts in by_folder.items():
        total = sum(counts.values())
        totals.update(counts)
        print("  %-20s %7d %7d %7d %12d %8d" % (
            folder, total, *[counts[k] for k in kinds]))
    print("  %-20s %7d %7d %7d %12d %8d" % (
        "all", sum(totals.values()), *[totals[k] for k in kinds]))
    if args.by_operator:
        print("\nSummary by operator (tests whose graph uses it):")
        for op in sorted(by_op):
            counts = by_op[op]
            print("  %-28s %5d %5d %5d %5d" % (op, *[counts[k] for k in kinds]))
        reasons = collections.Counter(
            detail for _, status, detail, _ in results.values()
            if status == "unsupported")
        print("\nUnsupported, by reason:")
        for reason, count in reasons.most_common():
            print("  %4d  %s" % (count, reason))

    passing = sorted(k for k, r in results.items() if r[1] == "passed")
    if args.write_expected:
        with open(args.write_expected, "w") as f:
            f.write("# The ONNX backend tests (Debian's libonnx-testdata) "
                    "that nnir passes:\n"
                    "# test/ONNX/conformance.test fails when one of them "
                    "stops passing.\n"
                    "# Regenerate with test/ONNX/conformance.py "
                    "--write-expected (README.md).\n")
            for key in passing:
                f.write(key + "\n")
    if args.expected:
        with open(args.expected) as f:
            expected = {l.strip() for l in f
                        if l.strip() and not l.startswith("#")}
        selected = {key for _, key, _ in tests}
        expected &= selected
        regressions = sorted(expected - set(passing))
        new = sorted(set(passing) - expected)
        for key in new:
            print("NEW PASS     %s (add it to %s)" % (key, args.expected))
        for key in regressions:
            folder, status, detail, _ = results[key]
            print("REGRESSION   %s: %s %s" % (key, status, detail))
        print("\n%d expected to pass, %d regressions, %d newly passing" % (
            len(expected), len(regressions), len(new)))
        return 1 if regressions else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
