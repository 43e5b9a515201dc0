"""Constants from NumPy arrays and their data back, without extra copies."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import nnir

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip(dtype):
    array = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    c = nnir.const(array)
    assert c.data.dtype == dtype and c.data.shape == (3, 4)
    out = c.data.numpy()
    assert out.dtype == array.dtype
    np.testing.assert_array_equal(out, array)


def test_python_values_follow_tvm():
    assert nnir.const(1.5).data.dtype == "float32"
    assert nnir.const(2).data.dtype == "int32"
    assert nnir.const([1.0, 2.0]).data.dtype == "float32"
    assert nnir.const(2, "int64").data.dtype == "int64"
    assert nnir.const(np.float64(2)).data.dtype == "float64"


def test_bfloat16_is_raw_bits():
    c = nnir.parse_expr("dense<[1, 2]> : Tensor[(2), bfloat16]")
    assert c.data.dtype == "bfloat16"
    assert c.data.numpy().dtype == np.uint16
    assert list(c.data.numpy()) == [0x3f80, 0x4000]


def test_out_is_a_read_only_view():
    c = nnir.const(np.ones((4, 4), "float32"))
    a, b = c.data.numpy(), c.data.numpy()
    assert np.shares_memory(a, b)
    assert a.ctypes.data == c.data.data_ptr
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0, 0] = 2


def test_view_keeps_the_data_alive():
    view = nnir.const(np.full((1000,), 7, "int32")).data.numpy()
    import gc
    gc.collect()
    assert view.sum() == 7000


def test_non_contiguous_input():
    array = np.arange(16, dtype="float32").reshape(4, 4).T
    np.testing.assert_array_equal(nnir.const(array).data.numpy(), array)


def test_bad_input():
    with pytest.raises(TypeError):
        nnir.const(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        nnir.const(np.zeros(2, "complex64"))
    with pytest.raises(TypeError, match="unknown dtype"):
        nnir.NDArray.from_buffer(np.zeros(2, "float32"), "float7")
    with pytest.raises(TypeError, match="element takes"):
        nnir.NDArray.from_buffer(np.zeros(2, "float32"), "float64")


def test_copied_once_in():
    array = np.ones((1 << 20,), "float32")
    before = nnir._nnir.bytes_copied_in()
    c = nnir.const(array)
    assert nnir._nnir.bytes_copied_in() - before == array.nbytes
    assert not np.shares_memory(c.data.numpy(), array)


@pytest.mark.skipif(os.environ.get("NNIR_TEST_SANITIZED") == "1",
                    reason="peak RSS means nothing under ASan")
def test_100mb_constant_peak_memory():
    # In a fresh interpreter: the peak RSS grows by one copy (100 MB) when
    # the constant is built, and not at all when its data is read back.
    script = textwrap.dedent("""
        import resource
        import numpy as np
        import nnir

        def peak_mb():
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

        array = np.ones((25 * 1024 * 1024,), "float32")  # 100 MB
        start = peak_mb()
        c = nnir.const(array)
        after_in = peak_mb()
        out = c.data.numpy()
        total = float(out.sum(dtype="float64"))
        after_out = peak_mb()
        assert np.shares_memory(out, c.data.numpy())
        print(after_in - start, after_out - after_in, total)
    """)
    proc = subprocess.run([sys.executable, "-c", script], check=True,
                          stdout=subprocess.PIPE, text=True)
    grown_in, grown_out, total = map(float, proc.stdout.split())
    assert total == 25 * 1024 * 1024
    assert 90 <= grown_in < 150, proc.stdout
    assert grown_out < 10, proc.stdout
