#!/usr/bin/python3
"""Runs Apache TVM's own Relay pass tests, unmodified, against nnir.

    benchmarks/tvm_tests.py [SOURCE] [--python-path build/python] [-v]

SOURCE is a directory holding TVM's test files (default /work/tvm-tests),
or a git repository of apache/tvm (a mirror), from which the eight files
below are extracted at the tag v0.19.0 (--rev). The files are copied into
a temporary directory next to a conftest.py that holds

    import nnir; nnir.install_as_tvm()
    pytest_plugins = ["tvm.testing.plugin"]

and pytest runs each file there. The script prints, per file, how many
cases pytest collected, passed, failed, errored and skipped, and the
totals; -v adds the first line of each failure. Nothing of TVM enters
this repository: the files live in the temporary directory only.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

FILES = [
    "test_pass_manager.py",
    "test_pass_instrument.py",
    "test_pass_fold_constant.py",
    "test_pass_dead_code_elimination.py",
    "test_pass_eliminate_common_subexpr.py",
    "test_pass_simplify_expr.py",
    "test_pass_fold_scale_axis.py",
    "test_pass_to_a_normal_form.py",
]
TVM_DIR = "tests/python/relay"

CONFTEST = """import nnir
nnir.install_as_tvm()
pytest_plugins = ["tvm.testing.plugin"]
"""

HERE = os.path.dirname(os.path.abspath(__file__))


def is_git_repo(path):
    return subprocess.run(["git", "-C", path, "rev-parse", "--git-dir"],
                          capture_output=True).returncode == 0 and \
        not os.path.exists(os.path.join(path, FILES[0]))


def gather(source, rev, dest):
    """Copies (or extracts) the test files into dest; the names found."""
    found = []
    for name in FILES:
        target = os.path.join(dest, name)
        if is_git_repo(source):
            shown = subprocess.run(
                ["git", "-C", source, "show", "%s:%s/%s" % (rev, TVM_DIR,
                                                            name)],
                capture_output=True)
            if shown.returncode != 0:
                print("%s: not in %s at %s" % (name, source, rev),
                      file=sys.stderr)
                continue
            with open(target, "wb") as f:
                f.write(shown.stdout)
        else:
            path = os.path.join(source, name)
            if not os.path.exists(path):
                print("%s: not found in %s" % (name, source), file=sys.stderr)
                continue
            shutil.copy(path, target)
        found.append(name)
    return found


def run_file(directory, name, env, timeout):
    """pytest on one file; (counts, failures) from its JUnit report."""
    report = os.path.join(directory, name + ".xml")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
           "--junitxml", report, name]
    try:
        subprocess.run(cmd, cwd=directory, env=env, capture_output=True,
                       timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(collected=0, passed=0, failed=0, errors=1,
                    skipped=0), [("(whole file)", "timed out")]
    if not os.path.exists(report):
        return dict(collected=0, passed=0, failed=0, errors=1,
                    skipped=0), [("(whole file)", "pytest wrote no report")]
    root = ET.parse(report).getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    counts = dict(collected=0, passed=0, failed=0, errors=0, skipped=0)
    failures = []
    for case in suite.iter("testcase"):
        outcome = "passed"
        collected = bool(case.get("name"))
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "errors",
                           "skipped": "skipped"}[child.tag]
                if child.get("message") == "collection failure":
                    collected = False
                if child.tag != "skipped":
                    message = (child.get("message") or child.text or "")
                    failures.append((case.get("name") or "(collection)",
                                     message.strip().splitlines()[0][:160]
                                     if message.strip() else child.tag))
                break
        if collected:
            counts["collected"] += 1
        counts[outcome] += 1
    return counts, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", nargs="?", default="/work/tvm-tests",
                        help="directory of TVM's test files, or an apache/tvm "
                             "git repository")
    parser.add_argument("--rev", default="refs/tags/v0.19.0",
                        help="the revision to extract from a git repository")
    parser.add_argument("--python-path",
                        default=os.path.join(HERE, "..", "build", "python"),
                        help="where the nnir package is (build/python)")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print the first line of each failure")
    parser.add_argument("--keep", action="store_true",
                        help="keep (and name) the temporary directory")
    args = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="nnir-tvm-tests-")
    try:
        names = gather(args.source, args.rev, directory)
        with open(os.path.join(directory, "conftest.py"), "w") as f:
            f.write(CONFTEST)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [os.path.abspath(args.python_path)] +
            ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env.pop("PYTEST_ADDOPTS", None)
        totals = dict(collected=0, passed=0, failed=0, errors=0, skipped=0)
        print("%-40s %9s %7s %7s %7s %8s" % ("file", "collected", "passed",
                                              "failed", "errors", "skipped"))
        for name in names:
            counts, failures = run_file(directory, name, env, args.timeout)
            for key in totals:
                totals[key] += counts[key]
            print("%-40s %9d %7d %7d %7d %8d" % (
                name, counts["collected"], counts["passed"], counts["failed"],
                counts["errors"], counts["skipped"]))
            if args.verbose:
                for case, message in failures:
                    print("    %s: %s" % (case, message))
        share = 100.0 * totals["passed"] / totals["collected"] \
            if totals["collected"] else 0.0
        print("%-40s %9d %7d %7d %7d %8d" % (
            "total", totals["collected"], totals["passed"], totals["failed"],
            totals["errors"], totals["skipped"]))
        print("passed: %.1f%% of the collected cases" % share)
        if args.keep:
            print("kept:", directory)
    finally:
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
