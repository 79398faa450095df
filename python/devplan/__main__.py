"""`devplan` (the console script) and `python -m devplan`: the tool itself, with its own
arguments, output and exit codes."""

from __future__ import annotations

import os
import sys

from ._errors import Error
from ._tool import tool_environment, tool_path


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        path = tool_path()
        env = tool_environment()
    except Error as e:
        print(f"devplan: {e.message}", file=sys.stderr)
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(path, ["devplan", *args], env)  # the tool's exit code and signals, unchanged
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
