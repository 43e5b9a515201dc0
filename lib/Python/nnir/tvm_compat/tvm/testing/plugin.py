"""`tvm.testing.plugin`: the pytest plugin of TVM's test suite, for nnir.

It registers TVM's markers (gpu, target-specific ones) so that TVM's test
files collect without warnings; tvm.testing.parameter fixtures are plain
pytest fixtures and need nothing more.
"""

_MARKERS = {
    "gpu": "the test uses a GPU (nnir runs it on the host CPU)",
    "tensorcore": "the test uses tensor cores",
    "slow": "a slow test",
    "xfail_target": "expected to fail on some targets",
}


def pytest_configure(config):
    for name, text in _MARKERS.items():
        config.addinivalue_line("markers", "%s: %s" % (name, text))
