# -*- Python -*-
# lit configuration of nnir's regression tests: every `.nnir` and `.test` file
# under test/ (one folder per library or tool), plus the GoogleTest binaries
# through the nested suite in test/Unit.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

# Run lit on the build tree (build/test, build/test/Parser/foo.nnir): the site
# config written there by CMake says where the tools are.
if not hasattr(config, "nnir_obj_root"):
    lit_config.fatal("no site configuration: run lit on the build tree, "
                     "e.g. build/test/Parser, not on the source tree")

config.name = "NNIR"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".nnir", ".test"]
# Inputs/ folders hold files that RUN lines read; they are not tests.
config.excludes = ["Inputs", "CMakeLists.txt", "README.txt", "lit.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.nnir_obj_root, "test")

llvm_config.with_system_environment(["HOME", "TMP", "TEMP", "TMPDIR"])
# FileCheck, `| not`, `| count` and %python.
llvm_config.use_default_substitutions()
# A RUN line that *starts* with `not`, or uses split-file, needs the LLVM
# tools directory on PATH (Debian does not put it there).
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# Variables captured under one CHECK-LABEL do not leak into the next.
llvm_config.with_environment("FILECHECK_OPTS", "--enable-var-scope")

# Our tools come from the build's bin directory, never from PATH.
llvm_config.add_tool_substitutions(
    [ToolSubst("nnir-opt", unresolved="fatal"),
     ToolSubst("nnir-reduce", unresolved="fatal"),
     ToolSubst("nnir-run", unresolved="fatal")], [config.nnir_tools_dir])

# The fuzz targets (test/Fuzz): replay drivers, or libFuzzer binaries in a
# build with NNIR_BUILD_FUZZERS=ON. %fuzz_driver is the FileCheck prefix of
# what they print after a replay: REPLAY or LIBFUZZER.
fuzzers = ["nnir-parser-fuzzer", "nnir-roundtrip-fuzzer"]
if config.nnir_have_onnx.upper() in ("1", "ON", "TRUE", "YES"):
    fuzzers.append("nnir-onnx-import-fuzzer")
llvm_config.add_tool_substitutions(
    [ToolSubst(name, unresolved="fatal") for name in fuzzers],
    [config.nnir_tools_dir])
config.substitutions.append((
    "%fuzz_driver",
    "LIBFUZZER" if config.nnir_build_fuzzers.upper() in ("1", "ON", "TRUE", "YES")
    else "REPLAY"))

config.substitutions.append(("%nnir_src_root", config.nnir_src_root))
config.substitutions.append(("%nnir_obj_root", config.nnir_obj_root))
config.substitutions.append(("%nnir_version", config.nnir_version))

# %npcheck: generate inputs and compare nnir-run's outputs with NumPy
# (test/Run/Inputs/npcheck.py) under an interpreter that has NumPy.
import subprocess
numpy_python = getattr(config, "nnir_numpy_python", "")
if numpy_python and subprocess.call(
        [numpy_python, "-c", "import numpy"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("numpy")
config.substitutions.append(("%numpy_python", numpy_python))
config.substitutions.append(
    ("%npcheck", "%s %s" % (numpy_python, os.path.join(
        config.nnir_src_root, "test", "Run", "Inputs", "npcheck.py"))))

# Optional features, for `REQUIRES:` lines.
if os.access(config.cmake_command, os.X_OK):
    config.available_features.add("cmake")
if shutil.which("split-file", path=config.llvm_tools_dir):
    config.available_features.add("split-file")
# LLVM's remark tool reads the YAML that --pass-remarks-output writes.
if shutil.which("llvm-remarkutil", path=config.llvm_tools_dir):
    config.available_features.add("llvm-remarkutil")
# `root`: the tests run as root, so they can make files of another user
# (chown) to test what nnir trusts.
if hasattr(os, "geteuid") and os.geteuid() == 0:
    config.available_features.add("root")
# The sanitizers of the build (-DNNIR_SANITIZE): `asan`, `ubsan`, `tsan`.
for sanitizer in filter(None, config.nnir_sanitize.split(";")):
    config.available_features.add(
        {"address": "asan", "undefined": "ubsan", "thread": "tsan"}.get(
            sanitizer, sanitizer))

# %nnir_allocator: JEMALLOC when the tools are linked with jemalloc
# (cmake/Allocator.cmake), SYSTEM when not: a FileCheck prefix.
config.substitutions.append((
    "%nnir_allocator",
    "JEMALLOC" if config.nnir_have_jemalloc.upper() in ("1", "ON", "TRUE", "YES")
    else "SYSTEM"))

# `onnx`: nnir-opt and nnir-run read ONNX models (nnir built with
# libonnx-dev). `onnx-python`: the NumPy interpreter also has Debian's
# python3-onnx (%onnx_python), for the conformance runner.
if config.nnir_have_onnx.upper() in ("1", "ON", "TRUE", "YES"):
    config.available_features.add("onnx")
    if numpy_python and subprocess.call(
            [numpy_python, "-c", "import onnx, numpy"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
        config.available_features.add("onnx-python")
config.substitutions.append(("%onnx_python", numpy_python))
# `onnx-testdata`: Debian's libonnx-testdata (the conformance suite).
config.nnir_onnx_testdata = "/usr/share/libonnx-testdata/data"
if os.path.isdir(os.path.join(config.nnir_onnx_testdata, "node")):
    config.available_features.add("onnx-testdata")
config.substitutions.append(("%onnx_testdata", config.nnir_onnx_testdata))
config.substitutions.append(("%nnir_tools_dir", config.nnir_tools_dir))

# `python-bindings`: the Python package is built (build/python/nnir); the
# tests under test/Python run with pytest (test/Python/lit.local.cfg).
# A sanitized build runs them too, with the runtime preloaded
# (test/Python/litpytest.py).
if config.nnir_have_python.upper() in ("1", "ON", "TRUE", "YES"):
    config.available_features.add("python-bindings")
