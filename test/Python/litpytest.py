"""The lit test format of test/Python: each test_*.py file is one lit test,
run as `python3 -m pytest -q FILE` with the build's package on PYTHONPATH
(see lit.local.cfg). A module of its own, so lit's workers can pickle it."""

import os
import subprocess

import lit.formats
import lit.Test


def sanitizer_environment(config):
    """The environment an uninstrumented python3 needs to load a sanitized
    extension, or {} for an unsanitized build."""
    if "asan" not in config.available_features and \
            "ubsan" not in config.available_features:
        return {}
    env = {}
    asan = "asan" in config.available_features
    if config.cxx_compiler_id == "Clang":
        runtime = "libclang_rt.%s-x86_64.so" % (
            "asan" if asan else "ubsan_standalone")
    else:
        runtime = "libasan.so" if asan else "libubsan.so"
    # The C++ library comes right after the runtime: python3 does not link
    # it, and ASan's __cxa_throw interceptor needs the real function loaded
    # before the extension throws its first exception.
    env["LD_PRELOAD"] = " ".join(
        subprocess.check_output(
            [config.cmake_cxx_compiler, "-print-file-name=" + library],
            text=True).strip()
        for library in (runtime, "libstdc++.so"))
    options = os.environ.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = ":".join(
        [o for o in options.split(":") if o and not o.startswith("detect_leaks")]
        + ["detect_leaks=0"])
    env["NNIR_TEST_SANITIZED"] = "1"
    return env


class PytestFormat(lit.formats.FileBasedTest):
    """Each test_*.py file is one test: pytest runs it in the build's
    package; the output of a failure is pytest's report."""

    def __init__(self, config):
        super().__init__()
        self.python = config.nnir_python_executable
        self.env = {
            "PYTHONPATH": config.nnir_python_dir,
            "PYTHONDONTWRITEBYTECODE": "1",
            "NNIR_SRC_ROOT": config.nnir_src_root,
            "NNIR_TOOLS_DIR": config.nnir_tools_dir,
        }
        self.env.update(sanitizer_environment(config))

    def getTestsInDirectory(self, testSuite, path_in_suite, litConfig,
                            localConfig):
        for test in super().getTestsInDirectory(testSuite, path_in_suite,
                                                litConfig, localConfig):
            if os.path.basename(test.getSourcePath()).startswith("test_"):
                yield test

    def execute(self, test, litConfig):
        if test.config.unsupported:
            return lit.Test.UNSUPPORTED, "the Python package is not built"
        env = dict(os.environ)
        env.update(self.env)
        command = [self.python, "-m", "pytest", "-q",
                   "-p", "no:cacheprovider", test.getSourcePath()]
        proc = subprocess.run(command, env=env, cwd=os.path.dirname(
            test.getSourcePath()), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, timeout=600)
        output = "$ %s\n%s" % (" ".join(command),
                               proc.stdout.decode("utf-8", "replace"))
        if proc.returncode != 0:
            return lit.Test.FAIL, output
        return lit.Test.PASS, output
