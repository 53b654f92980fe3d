#!/usr/bin/env python3
"""The size rules of Docs/ARCHITECTURE.md ("Size"), checked by `make lint`.

- No Swift file under Sources/ is over 300 lines.
- No type has more than 25 methods, counted over its declaration and every extension of it in the same module
  (`func` declarations one level inside; initialisers, nested types' methods and closures are not counted).

Prints the largest types and exits 1 naming what breaks a rule. Runs in well under a second: it reads the files,
builds nothing.
"""

import argparse
import collections
import os
import re
import sys

MAX_LINES = 300
MAX_METHODS = 25

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))? )*(?:public |internal |private |fileprivate |package )?(?:final )?"
    r"(extension|class|struct|enum|actor|protocol)\s+([A-Za-z_][\w.]*)"
)
METHOD = re.compile(
    r"^    (?:@[\w()\"., ]+ )*(?:(?:public|internal|private|fileprivate|package|nonisolated|override|static|class|"
    r"mutating|final|private\(set\)|public private\(set\))\s+)*func\b"
)


def count(sources):
    methods = collections.Counter()
    long_files = []
    for root, _, files in os.walk(sources):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(root, name)
            module = os.path.relpath(path, sources).split(os.sep)[0]
            current = None
            with open(path, encoding="utf-8") as file:
                lines = file.readlines()
            if len(lines) > MAX_LINES:
                long_files.append((path, len(lines)))
            for line in lines:
                declared = DECLARATION.match(line)
                if declared:
                    current = f"{module}.{declared.group(2)}"
                    methods[current] += 0
                elif current and METHOD.match(line):
                    methods[current] += 1
    return methods, long_files


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sources", default="Sources")
    parser.add_argument("--top", type=int, default=5, help="how many of the largest types to print")
    arguments = parser.parse_args()
    methods, long_files = count(arguments.sources)
    largest = ", ".join(f"{name} {n}" for name, n in methods.most_common(arguments.top))
    too_many = [(name, n) for name, n in methods.items() if n > MAX_METHODS]
    for path, n in long_files:
        print(f"{path}: {n} lines, over {MAX_LINES}", file=sys.stderr)
    for name, n in sorted(too_many):
        print(f"{name}: {n} methods, over {MAX_METHODS}", file=sys.stderr)
    if long_files or too_many:
        return 1
    print(f"Sizes: OK (no file over {MAX_LINES} lines; no type over {MAX_METHODS} methods; largest: {largest})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
