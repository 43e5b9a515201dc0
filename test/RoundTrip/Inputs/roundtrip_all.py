"""Runs `nnir-opt --verify-roundtrip` on every .nnir input of the test suite.

Inputs that do not parse or verify (the negative tests) are skipped; every
other input must print and parse back to a structurally equal module, with
constants inline, with every constant in the metadata section, and with
types printed.

usage: roundtrip_all.py <nnir-opt> <test-root> [<shard> <shards>]

With a shard, only every <shards>-th input starting at <shard> (in sorted
order) is checked, so lit can run the parts side by side.
"""
import pathlib
import subprocess
import sys

CONFIGS = [
    [],
    ["--inline-constant-limit=0"],
    ["--inline-constant-limit=-1"],
    ["--print-types"],
]


def main():
    nnir_opt, root = sys.argv[1], pathlib.Path(sys.argv[2])
    shard, shards = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 3 \
        else (0, 1)
    checked, failed = 0, []
    for path in sorted(root.rglob("*.nnir"))[shard::shards]:
        first = True
        for config in CONFIGS:
            result = subprocess.run(
                [nnir_opt, "--verify-roundtrip", *config, str(path), "-o",
                 "/dev/null"],
                capture_output=True, text=True)
            if result.returncode == 0:
                if first:
                    checked += 1
                first = False
                continue
            if "round trip failed" in result.stderr:
                failed.append(f"{path.relative_to(root)} {' '.join(config)}:\n"
                              f"{result.stderr}")
            break  # A negative test: it does not parse or verify.
    for failure in failed:
        print(failure)
    print(f"round-tripped {checked} inputs, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
