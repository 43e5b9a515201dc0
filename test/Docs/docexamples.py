"""The command examples of nnir's documentation, as lit tests.

Every fenced block of README.md and docs/*.md whose first line starts with
`$ ` is an example: each `$ ` line (with `\\` continuations) is a command,
and the lines after it, up to the next `$ ` line, are what it prints (stdout
and stderr together; a command's own `>/dev/null` leaves only stderr). Each
example is one lit test, named after its file and line
(`Docs/Passes.md:194`). A command runs under bash in the source tree as a
reader would run it after README's set-up command: `build/bin/` means the
tools of the build under test, and other commands come from PATH without
the build's tools directory or LLVM's unversioned tools directory (Debian
puts neither on PATH), so a bare `nnir-opt` or `llvm-remarkutil` fails the
test, as does any command the shell cannot find or run. The expected output
must match line by line (trailing spaces aside), with two allowances:

  - a line `...` (indented or not) stands for any number of lines;
  - a block preceded by `<!-- doc-test: times vary -->` compares the
    decimals of timing lines (lines with a percentage `( 26.0%)` or a time
    `0.142 ms`, `0.0002 seconds`) as placeholders; other lines, computed
    values included, must match exactly.

A command whose expected output has an `error:` line must fail, any other
must succeed. `<!-- doc-test: not run: REASON -->` before a block reports it
as UNSUPPORTED with the reason (for commands that need files the suite does
not build). Run this file directly to list the examples:
`python3 test/Docs/docexamples.py README.md docs/*.md`, or to run them:
`python3 test/Docs/docexamples.py --run build/bin README.md docs/*.md`
(test/Docs/harness checks the checker this way).
"""

import argparse
import difflib
import glob
import os
import re
import subprocess
import sys
import tempfile

DIRECTIVE = re.compile(r"^<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(```+)")


class Command:
    def __init__(self, line, text):
        self.line = line
        self.text = text
        self.expected = []


class Example:
    def __init__(self, path, line, directives):
        self.path = path
        self.line = line
        self.directives = directives
        self.commands = []

    def not_run_reason(self):
        for d in self.directives:
            if d.startswith("not run"):
                return d.split(":", 1)[1].strip() if ":" in d else d
        return None

    def times_vary(self):
        return "times vary" in self.directives


def parse_examples(path):
    """The examples of the Markdown file at `path`, in order."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    examples = []
    directives = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = DIRECTIVE.match(line)
        if m:
            directives.append(m.group(1))
            i += 1
            continue
        fence = FENCE.match(line)
        if not fence:
            if line.strip():
                directives = []
            i += 1
            continue
        indent, ticks = fence.group(1), fence.group(2)
        start = i + 1
        end = start
        while end < len(lines) and not lines[end].strip().startswith(ticks):
            end += 1
        body = [l[len(indent):] if l.startswith(indent) else l
                for l in lines[start:end]]
        if body and body[0].startswith("$ "):
            example = Example(path, start + 1, directives)
            j = 0
            while j < len(body):
                if body[j].startswith("$ "):
                    first = j
                    text = body[j][2:]
                    while text.endswith("\\") and j + 1 < len(body):
                        j += 1
                        text = text[:-1].rstrip() + " " + body[j].strip()
                    example.commands.append(Command(start + first + 1, text))
                else:
                    example.commands[-1].expected.append(body[j])
                j += 1
            examples.append(example)
        directives = []
        i = end + 1
    return examples


PERCENT = re.compile(r"\(\s*\d+(\.\d+)?%\)")
DECIMAL = re.compile(r"\d+\.\d+")
# Lines of a timing report: a percentage, or a number with a unit of time.
TIMING_LINE = re.compile(r"%\)|\d\s*(ms|s|seconds)\b")


def normalize(lines, times_vary):
    result = [l.rstrip() for l in lines]
    while result and not result[-1]:
        result.pop()
    if times_vary:
        result = [DECIMAL.sub("#.#", PERCENT.sub("(#%)", l))
                  if TIMING_LINE.search(l) else l for l in result]
    return result


def matches(expected, actual):
    """Whether `actual` matches `expected`, where a `...` line stands for any
    number of lines."""
    # memo[(i, j)]: expected[i:] matches actual[j:]
    memo = {}

    def match(i, j):
        while True:
            key = (i, j)
            if key in memo:
                return memo[key]
            if i == len(expected):
                result = j == len(actual)
                break
            if expected[i].strip() == "...":
                result = any(match(i + 1, k)
                             for k in range(j, len(actual) + 1))
                break
            if j == len(actual) or expected[i] != actual[j]:
                result = False
                break
            i, j = i + 1, j + 1
        memo[key] = result
        return result

    return match(0, 0)


def reader_path(path, hidden_dirs):
    """`path` (a PATH value) without the directories `hidden_dirs`, which a
    reader who followed README's set-up does not have on PATH."""
    hidden = {os.path.realpath(d) for d in hidden_dirs if d}
    return os.pathsep.join(d for d in path.split(os.pathsep)
                           if d and os.path.realpath(d) not in hidden)


def run_example(example, src_root, tools_dir, hidden_dirs=()):
    """Runs every command of `example`; returns (passed, report).

    The commands run in a scratch directory that links every top-level entry
    of the source tree, so relative paths read as in the source tree while
    the files an example writes (`--pass-remarks-output=fuse.yaml`) go to the
    scratch directory and are removed with it."""
    with tempfile.TemporaryDirectory(prefix="nnir-doc-") as scratch:
        for entry in os.listdir(src_root):
            os.symlink(os.path.join(src_root, entry),
                       os.path.join(scratch, entry))
        return _run_commands(example, scratch, tools_dir, hidden_dirs)


# bash's exit codes for a command it cannot find (127) or run (126).
NOT_RUN = (126, 127)


def _run_commands(example, cwd, tools_dir, hidden_dirs):
    env = dict(os.environ)
    env["PATH"] = reader_path(env.get("PATH", ""), [tools_dir, *hidden_dirs])
    report = []
    passed = True
    for command in example.commands:
        text = re.sub(r"(?<![\w/.-])build/bin/", tools_dir + "/", command.text)
        try:
            proc = subprocess.run(["bash", "-c", text], cwd=cwd, env=env,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=300)
        except subprocess.TimeoutExpired:
            report.append("%s:%d: timed out: %s" %
                          (example.path, command.line, text))
            return False, "\n".join(report)
        output = proc.stdout.decode("utf-8", "replace").split("\n")
        expected = normalize(command.expected, example.times_vary())
        actual = normalize(output, example.times_vary())
        want_failure = any("error:" in l for l in command.expected)
        report.append("$ " + text)
        report.append("exit code %d" % proc.returncode)
        if proc.returncode in NOT_RUN:
            passed = False
            report.append("%s:%d: the command does not run as written from "
                          "the top of the repository after README's set-up "
                          "(exit code %d: a command not found or not "
                          "executable; use build/bin/ for nnir's tools and "
                          "Debian's names, such as llvm-remarkutil-19, for "
                          "LLVM's)" %
                          (example.path, command.line, proc.returncode))
        elif (proc.returncode != 0) != want_failure:
            passed = False
            report.append("%s:%d: the command %s, but the documented output "
                          "%s an error" %
                          (example.path, command.line,
                           "failed" if proc.returncode else "succeeded",
                           "shows" if want_failure else "shows no"))
        if not matches(expected, actual):
            passed = False
            report.append("%s:%d: the output differs from the documented "
                          "output:" % (example.path, command.line))
            report.extend(difflib.unified_diff(
                expected, actual, "documented", "actual", lineterm=""))
        else:
            report.append("output as documented")
    return passed, "\n".join(report)


try:
    import lit.formats
    import lit.Test

    class DocExamplesFormat(lit.formats.TestFormat):
        """One lit test per example of README.md and docs/*.md. Defined here
        rather than in lit.local.cfg so that lit can hand it to its worker
        processes (it pickles the format by module and name)."""

        def __init__(self, src_root, tools_dir, hidden_dirs):
            self.src_root = src_root
            self.tools_dir = tools_dir
            self.hidden_dirs = hidden_dirs
            self.examples = {}

        def documents(self):
            return [os.path.join(self.src_root, "README.md")] + sorted(
                glob.glob(os.path.join(self.src_root, "docs", "*.md")))

        def getTestsInDirectory(self, testSuite, path_in_suite, litConfig,
                                localConfig):
            for path in self.documents():
                # README.md:145, Passes.md:194; run one with
                # `lit build/test/Docs --filter=Passes.md:194`.
                for example in parse_examples(path):
                    name = "%s:%d" % (os.path.basename(path), example.line)
                    self.examples[name] = example
                    yield lit.Test.Test(testSuite, path_in_suite + (name,),
                                        localConfig, file_path=path)

        def execute(self, test, litConfig):
            example = self.examples[test.path_in_suite[-1]]
            reason = example.not_run_reason()
            if reason:
                return lit.Test.UNSUPPORTED, "not run: " + reason
            passed, report = run_example(example, self.src_root,
                                         self.tools_dir, self.hidden_dirs)
            return (lit.Test.PASS if passed else lit.Test.FAIL), report
except ImportError:  # run directly, without lit
    pass


def main(argv):
    parser = argparse.ArgumentParser(
        description="List (or run) the command examples of Markdown files.")
    parser.add_argument("--run", metavar="TOOLS_DIR",
                        help="run the examples with the tools of TOOLS_DIR "
                        "as build/bin/ and print each report; exit code 1 "
                        "when one fails")
    parser.add_argument("--hide", metavar="DIR", action="append", default=[],
                        help="take DIR off PATH as well (repeatable; the "
                        "suite hides LLVM's unversioned tools directory)")
    parser.add_argument("--src-root", default=os.path.dirname(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        help="the directory the commands run in (default: "
                        "the repository holding this script)")
    parser.add_argument("files", nargs="+", metavar="FILE")
    args = parser.parse_args(argv[1:])
    failed = False
    for path in args.files:
        for example in parse_examples(path):
            reason = example.not_run_reason()
            print("%s:%d%s" % (path, example.line,
                               " (not run: %s)" % reason if reason else ""))
            if args.run and not reason:
                passed, report = run_example(example, args.src_root,
                                             args.run, args.hide)
                failed = failed or not passed
                print(("PASS" if passed else "FAIL") + "\n" + report)
            elif not args.run:
                for command in example.commands:
                    print("  $ " + command.text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
