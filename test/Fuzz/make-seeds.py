#!/usr/bin/env python3
# ===- make-seeds.py - Seed corpus of the fuzz targets from the lit inputs -===#
#
# Writes one seed per lit input (every .nnir file under the test directory)
# into the output directory, and one per part of a split-file test, so the
# fuzzers start from every construct the suite covers. RUN and CHECK lines
# stay: they are comments, which the parser skips.
#
#   make-seeds.py <test dir> <output dir>

import hashlib
import os
import sys


def parts(text):
    """The split-file parts of text (`//--- name` lines), or text itself."""
    if "\n//--- " not in text:
        return [text]
    chunks = []
    current = []
    for line in text.splitlines(keepends=True):
        if line.startswith("//--- "):
            chunks.append("".join(current))
            current = []
        else:
            current.append(line)
    chunks.append("".join(current))
    return [chunk for chunk in chunks if chunk.strip()]


def main():
    test_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(out_dir):
        os.remove(os.path.join(out_dir, name))
    count = 0
    for root, dirs, files in os.walk(test_dir):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".nnir"):
                continue
            with open(os.path.join(root, name), "rb") as f:
                text = f.read().decode("utf-8", errors="surrogateescape")
            for part in parts(text):
                data = part.encode("utf-8", errors="surrogateescape")
                digest = hashlib.sha1(data).hexdigest()
                with open(os.path.join(out_dir, digest), "wb") as f:
                    f.write(data)
                count += 1
    print("make-seeds: %d seeds in %s" % (count, out_dir))


if __name__ == "__main__":
    main()
