"""Passes written in Python over nnir's API, registered by name at import
(so that pipeline text and nnir.transform name them like C++ passes).

AnnotateSpans: prints the module and parses the text back, so that every
node carries a source location in the printed program (as Relay's
AnnotateSpans does); diagnostics of later passes then point into that
text (source name "AnnotateSpans").
"""

from . import transform
from .ir import parse

__all__ = []


@transform.module_pass(opt_level=0, name="AnnotateSpans")
def _annotate_spans(mod, ctx):
    return parse(mod.astext(show_meta_data=True), "AnnotateSpans")


def _annotate_spans_factory():
    """gives every node a location in the module's printed text"""
    return _annotate_spans


# A C++ pass of the same name, once there is one, takes precedence.
if not any(entry["name"] == "AnnotateSpans"
           for entry in transform.list_passes()):
    transform.register_pass("AnnotateSpans", _annotate_spans_factory)
