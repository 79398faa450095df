"""scripts/mutation-equivalent.txt: the mutants that are triaged as equivalent to the original
(no test can tell them apart), one per line: `<id>  <path>:<line>  <why>`. The id is what
counts; the line number is for the reader and may go stale."""

import re

LINE = re.compile(r"^([0-9a-f]{12})\s+(\S+):(\d+)\s+(.+)$")


def load(path):
    equivalents = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            match = LINE.match(line)
            if not match:
                raise ValueError(f"{path}:{number}: expected '<12-hex id>  <path>:<line>  <why>',"
                                 f" got: {line}")
            equivalents[match.group(1)] = match.group(4)
    return equivalents
