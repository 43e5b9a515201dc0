"""The `>>>` examples of docs/Python.md and README.md, run with doctest.

Every fenced ```pycon block is an example; the blocks of one document run
in order in one namespace, from the top of the source tree (so
`examples/mlp.nnir` reads as in the text). Output must match exactly, with
doctest's `...` for the body of a traceback.
"""

import doctest
import os
import re

import pytest

SRC = os.environ.get("NNIR_SRC_ROOT",
                     os.path.join(os.path.dirname(__file__), "..", ".."))
BLOCK = re.compile(r"^```pycon\n(.*?)^```", re.S | re.M)


def blocks(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for match in BLOCK.finditer(text):
        yield text.count("\n", 0, match.start(1)), match.group(1)


@pytest.mark.parametrize("document", ["docs/Python.md", "README.md"])
def test_examples(document, monkeypatch):
    path = os.path.join(SRC, document)
    found = list(blocks(path))
    assert found, "no ```pycon examples in %s" % document
    monkeypatch.chdir(SRC)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs = {}
    for line, source in found:
        test = parser.get_doctest(source, globs, document, path, line)
        runner.run(test, clear_globs=False)
        globs = test.globs  # DocTest copies the dict it is given
    results = runner.summarize(verbose=False)
    assert results.failed == 0, "%d of %d examples failed (output above)" % (
        results.failed, results.attempted)
