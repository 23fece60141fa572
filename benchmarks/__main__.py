"""Run a benchmark: ``python -m benchmarks [name] [options]`` (default: privacy_audit)."""

import importlib
import sys

BENCHMARKS = ["privacy_audit"]


def main(argv):
    name = argv[0] if argv and not argv[0].startswith("-") else BENCHMARKS[0]
    if name not in BENCHMARKS:
        sys.exit(f"unknown benchmark {name!r}; choose from {BENCHMARKS}")
    options = argv[1:] if argv and argv[0] == name else argv
    return importlib.import_module(f"benchmarks.{name}").main(options)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
