"""A program given as a path, as bytes (what `to_executorch().buffer` gives) or as an object
with such a `buffer`, made a file the tool can open."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Union

Program = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Any]


def default_name(data: bytes) -> str:
    """program.bpte for a bundled program (file identifier BP08), else program.pte."""
    return "program.bpte" if data[4:8] == b"BP08" else "program.pte"


def _checked_name(name: str) -> str:
    if not name or "/" in name or name in (".", "..") or "\0" in name:
        raise ValueError(f"name: expects a file name such as 'model.pte', got {name!r}")
    return name


@contextmanager
def program_file(program: Program, name: str | None = None) -> Iterator[str]:
    """The path of `program`. Bytes are written to a temporary folder as `name` (the name
    budgets key the program by), removed afterwards; a path given a different `name` is linked
    there under it."""
    if not isinstance(program, (str, os.PathLike, bytes, bytearray, memoryview)):
        buffer = getattr(program, "buffer", None)
        if not isinstance(buffer, (bytes, bytearray, memoryview)):
            raise TypeError("program: expects a path, the bytes of a program, or an object "
                            f"with a `buffer` of bytes (to_executorch()), got {type(program)}")
        program = buffer
    if isinstance(program, (str, os.PathLike)):
        path = os.fspath(program)
        if name is None or Path(path).name == name:
            yield path
            return
        with tempfile.TemporaryDirectory(prefix="devplan-") as folder:
            link = Path(folder) / _checked_name(name)
            link.symlink_to(Path(path).resolve())
            yield str(link)
        return
    data = bytes(program)
    with tempfile.TemporaryDirectory(prefix="devplan-") as folder:
        path = Path(folder) / _checked_name(name or default_name(data))
        path.write_bytes(data)
        yield str(path)
