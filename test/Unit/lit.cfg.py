# -*- Python -*-
# Runs every GoogleTest binary named `*Tests` under build/unittests (one per
# library: NNIRRuntimeTests, NNIRIRTests, ...), one lit test per gtest case.

import os

import lit.formats

config.name = "NNIR-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.nnir_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
