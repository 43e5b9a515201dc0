#!/usr/bin/env python3
"""Checks that `nnir-run --print` prints arrays as NumPy's str() does.

    print_like_numpy.py gen DIR     write many arrays as DIR/a<i>.npy, a module
                                    DIR/identity.nnir whose @main returns them
                                    all, and DIR/inputs.rsp with the --input
                                    flags that bind them
    print_like_numpy.py check DIR OUT
                                    compare nnir-run's --print output OUT with
                                    str() of each array; report the first
                                    difference

The arrays cover every dtype nnir reads from .npy except bfloat16 (NumPy has
none), with shapes from 0-d and empty to summarised (more than 1000
elements) and rows that wrap, and values that exercise NumPy's float rules:
shortest digits in the dtype's precision, at most 8 fraction digits,
alignment on the point, scientific notation (max >= 1e8, min < 1e-4, ratio >
1000), nan/inf/-0, subnormals, random bit patterns. Needs NumPy (run it with
%numpy_python).
"""

import re
import sys
import warnings

import numpy as np

# Casting out-of-range values to float16 makes inf on purpose.
warnings.simplefilter("ignore", RuntimeWarning)

FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64,
        np.uint8, np.uint16, np.uint32, np.uint64]
NNIR_DTYPE = {np.dtype(t): np.dtype(t).name for t in FLOATS + INTS}
NNIR_DTYPE[np.dtype(np.bool_)] = "bool"


def random_bits(rng, dtype, shape):
    """Finite values of `dtype` with random bit patterns."""
    info = np.finfo(dtype)
    width = np.dtype(dtype).itemsize * 8
    utype = {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
    bits = rng.integers(0, 2**width, size=shape, dtype=np.uint64
                        if width == 64 else np.int64).astype(utype)
    values = bits.view(dtype)
    return np.where(np.isfinite(values), values, info.max).astype(dtype)


def float_arrays(rng, dtype):
    f = lambda values: np.array(values, dtype=dtype)
    info = np.finfo(dtype)
    yield f([0.6508921, 0.07301045, 0.27609745]).reshape(1, 3)
    yield f([1.0, 2.5, -3.25])
    yield f([0.1, 0.2, 0.3, 1 / 3, 2 / 3])
    yield f([100.0, 1000.0, -10.0])
    yield f([0.0, -0.0])
    yield f([-0.0])
    yield f([0.0, 0.0, 0.0])
    yield f([np.nan, 1.0, -np.inf])
    yield f([np.nan, np.nan])
    yield f([np.inf, -np.inf, np.nan])
    yield f([np.inf, 1e-5])
    yield f([1e-5, 1.0])
    yield f([1e-4, 1.0])
    yield f([9.99e-5, 2.0])
    yield f([0.001, 1.0])
    yield f([0.001, 1.0, 1.001])
    yield f([1.0, 1000.0])
    yield f([1.0, 1001.0])
    yield f([-1.5, 1234.5678])
    yield f([info.tiny, 1.0])
    yield f([info.max, -info.max, 0.0])
    yield f([info.eps, 1.0 + info.eps])
    yield f([info.smallest_subnormal, 0.0, -info.smallest_subnormal])
    yield f([123.456, -0.000123])
    yield f([1.0, 2.0, 3.0]) * f(7)
    yield f(np.arange(24) / 7).reshape(2, 3, 4)
    yield f(np.arange(-12, 12) * 0.125).reshape(4, 6)
    yield f(rng.standard_normal(12)).reshape(3, 4)
    yield f(rng.standard_normal(40))
    yield f(rng.standard_normal((7, 13)) * 100)
    yield f(rng.standard_normal((3, 30)) * 1e-3)
    yield f(rng.standard_normal((2, 2, 2, 2)) * 1e5)
    yield f(rng.uniform(-1, 1, 1001))
    yield f(rng.uniform(-1e9, 1e9, (30, 40)))
    yield f(rng.uniform(0, 1, (2, 3, 200)))
    yield f(rng.uniform(-50, 50, (11, 11, 11)))
    yield f(rng.uniform(-1, 1, (1, 1001)))
    yield f(rng.uniform(-1, 1, (1001, 1)))
    yield f(np.full(1500, 0.5))
    yield f(np.concatenate([[np.nan, -np.inf], rng.uniform(0, 1, 1200)]))
    yield random_bits(rng, dtype, 20)
    yield random_bits(rng, dtype, (4, 9))
    yield random_bits(rng, dtype, 1100)
    # Values near powers of ten and the 8-digit cut.
    yield f([0.123456789012, 9.87654321098, 99999999.0, 12345678.9])
    yield f([0.99999999, 0.999999999, 9.9999999])
    yield f([5e-9, 1.0])
    yield f(2.0 ** np.arange(-20, 20, 3))
    yield f(10.0 ** np.arange(-8, 9))
    for scale in (1e-3, 1.0, 1e3, 1e7, 1e9, 1e20):
        yield f(rng.uniform(-1, 1, 8) * scale)
    # 0-d arrays print as their scalar.
    for value in (0.0, -0.0, 1.0, 0.1, 1.5, -2.25, 1e16, 1e15 + 0.5, 1e-4,
                  9.99e-5, 1e-5, 123456789.0, 65504.0, np.nan, np.inf,
                  -np.inf, info.max, info.tiny, info.smallest_subnormal):
        yield f(value)


def int_arrays(rng, dtype):
    info = np.iinfo(dtype)
    i = lambda values: np.array(values, dtype=dtype)
    yield i([0, 1, 2])
    yield i([info.min, info.max])
    yield i([info.max, 0, info.min])
    yield i(np.arange(24) % (info.max // 2 + 1)).reshape(2, 3, 4)
    yield i(rng.integers(info.min, info.max, 20, dtype=dtype, endpoint=True))
    yield i(rng.integers(info.min, info.max, (7, 13), dtype=dtype,
                         endpoint=True))
    yield i(rng.integers(info.min, info.max, 1001, dtype=dtype, endpoint=True))
    yield i(rng.integers(0, 10, (30, 40), dtype=dtype))
    yield i(rng.integers(info.min, info.max, 60, dtype=dtype, endpoint=True))
    yield i(7)
    yield i(info.min)
    yield i(info.max)


def bool_arrays(rng):
    yield np.array([True, False])
    yield np.array([True])
    yield np.array([False, False])
    yield rng.integers(0, 2, 30).astype(bool)
    yield rng.integers(0, 2, (3, 4, 5)).astype(bool)
    yield rng.integers(0, 2, 1200).astype(bool)
    yield np.array(True)
    yield np.array(False)


def empty_arrays():
    for dtype in FLOATS + INTS + [np.bool_]:
        yield np.zeros((0,), dtype)
    yield np.zeros((3, 0), np.float32)
    yield np.zeros((0, 2, 5), np.int32)


def all_arrays():
    rng = np.random.default_rng(20240621)
    for dtype in FLOATS:
        yield from float_arrays(rng, dtype)
    for dtype in INTS:
        yield from int_arrays(rng, dtype)
    yield from bool_arrays(rng)
    yield from empty_arrays()


def nnir_type(a):
    dtype = NNIR_DTYPE[a.dtype]
    if a.ndim == 0:
        return dtype
    dims = ", ".join(str(d) for d in a.shape)
    if a.ndim == 1:
        dims += ","
    return "Tensor[(%s), %s]" % (dims.rstrip(","), dtype)


def gen(out_dir):
    arrays = list(all_arrays())
    params, names, flags = [], [], []
    for k, a in enumerate(arrays):
        np.save("%s/a%d.npy" % (out_dir, k), a)
        params.append("%%a%d: %s" % (k, nnir_type(a)))
        names.append("%%a%d" % k)
        flags.append("--input a%d=%s/a%d.npy" % (k, out_dir, k))
    with open("%s/identity.nnir" % out_dir, "w") as f:
        f.write("def @main(%s) {\n  (%s)\n}\n" % (", ".join(params),
                                                 ", ".join(names)))
    with open("%s/inputs.rsp" % out_dir, "w") as f:
        f.write("\n".join(flags) + "\n")
    print("print-like-numpy: wrote %d arrays" % len(arrays))


def check(out_dir, output):
    with open(output) as f:
        text = f.read()
    # "output_<i>: <type>" heads each array's text.
    parts = re.split(r"^output_(\d+): .*\n", text, flags=re.M)
    printed = {int(parts[i]): parts[i + 1].rstrip("\n")
               for i in range(1, len(parts), 2)}
    k = 0
    while True:
        try:
            a = np.load("%s/a%d.npy" % (out_dir, k))
        except FileNotFoundError:
            break
        expected = str(a)
        got = printed.get(k)
        if got != expected:
            print("print-like-numpy: a%d (%s, shape %s) differs" %
                  (k, a.dtype, a.shape))
            if got is None:
                print("  nnir-run printed nothing for it")
                return 1
            exp_lines, got_lines = expected.split("\n"), got.split("\n")
            for n in range(max(len(exp_lines), len(got_lines))):
                e = exp_lines[n] if n < len(exp_lines) else "<none>"
                g = got_lines[n] if n < len(got_lines) else "<none>"
                if e != g:
                    print("  first difference, line %d:" % (n + 1))
                    print("  numpy:    %r" % e)
                    print("  nnir-run: %r" % g)
                    break
            return 1
        k += 1
    print("print-like-numpy: all %d arrays print as NumPy prints them" % k)
    return 0


def main(argv):
    if argv[1] == "gen":
        gen(argv[2])
        return 0
    if argv[1] == "check":
        return check(argv[2], argv[3])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
