"""Checks that BindParams{random=true} bound %w and %b to finite values in
[0.1, 1.0) and left %x a parameter (argv[1]: the printed module)."""

import re
import sys

text = open(sys.argv[1]).read()
assert "def @main(%x: Tensor[(3), float32])" in text, text
values = []
for body in re.findall(r"dense<(.*?)>", text):
    values += [float(v) for v in re.findall(r"-?[0-9.e+-]+", body)]
assert len(values) == 9, values
assert all(0.1 <= v < 1.0 for v in values), values
assert len(set(values)) > 1, values
