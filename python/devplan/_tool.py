"""Finding the `devplan` tool and ExecuTorch's libraries, and running the tool."""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ._errors import Error

EXECUTORCH_VERSION = "1.5.1"
INSTALL_EXECUTORCH = (
    f"pip install executorch=={EXECUTORCH_VERSION} (or, without ExecuTorch's own Python "
    f"dependencies, which devplan does not need: pip install --no-deps "
    f"executorch=={EXECUTORCH_VERSION})"
)
_PACKAGE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Completed:
    """One run of the tool: its command line, exit code and both streams."""

    argv: list[str]
    exit_code: int
    stdout: str
    stderr: str


@functools.lru_cache(maxsize=None)
def _build_info() -> dict:
    """What the package's build recorded (cmake/DevplanPython.cmake): the ExecuTorch the tool
    links, or null."""
    path = _PACKAGE / "_build.json"
    if not path.is_file():
        return {"executorch": None}
    return json.loads(path.read_text())


def tool_path() -> Path:
    """The tool: $DEVPLAN_TOOL when set (a build tree's build/bin/devplan), else the one this
    package carries."""
    override = os.environ.get("DEVPLAN_TOOL")
    path = Path(override) if override else _PACKAGE / "bin" / "devplan"
    if not path.is_file() or not os.access(path, os.X_OK):
        where = "$DEVPLAN_TOOL" if override else "this package"
        raise Error(f"the devplan tool is missing: {where} names {path}, which is not an "
                    "executable file; reinstall the package (pip install .)")
    return path


@functools.lru_cache(maxsize=None)
def _engine_line(tool: str) -> str:
    """The second line of `TOOL --version`: "ExecuTorch engine: ..." or "... not built"."""
    done = subprocess.run([tool, "--version"], capture_output=True, text=True, check=False)
    lines = done.stdout.splitlines()
    return lines[1] if len(lines) > 1 else ""


def executorch_built_in() -> bool:
    """Whether the tool carries the ExecuTorch engine (and so needs ExecuTorch's libraries)."""
    override = os.environ.get("DEVPLAN_TOOL")
    if override:  # a build tree's tool, which finds its libraries through its own RPATH
        return not _engine_line(str(tool_path())).endswith("not built")
    return _build_info().get("executorch") is not None


def _executorch_lib_dir() -> Path:
    """The lib folder of the installed executorch wheel; Error saying how to install it when
    there is none, or when it is not the version the tool was built against."""
    spec = importlib.util.find_spec("executorch")  # finds the package without importing it
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        lib = Path(folder) / "lib"
        if (lib / "libexecutorch.so").is_file():
            break
    else:
        raise Error("devplan's tool runs on ExecuTorch's C++ runtime, from the executorch "
                    f"{EXECUTORCH_VERSION} wheel, which is not installed in this environment: "
                    + INSTALL_EXECUTORCH)
    try:
        version = importlib.metadata.version("executorch")
    except importlib.metadata.PackageNotFoundError:
        version = None
    if version is not None and version.split("+")[0] != EXECUTORCH_VERSION:
        raise Error(f"devplan's tool was built against executorch {EXECUTORCH_VERSION}, and "
                    f"this environment has executorch {version}, whose libraries it cannot use: "
                    + INSTALL_EXECUTORCH)
    return lib


def tool_environment() -> dict[str, str]:
    """The environment the tool runs in: this one, with the executorch wheel's lib folder on
    LD_LIBRARY_PATH when the tool needs it (its RPATH covers a wheel beside this package; this
    covers one elsewhere on sys.path)."""
    env = dict(os.environ)
    if executorch_built_in() and not os.environ.get("DEVPLAN_TOOL"):
        lib = str(_executorch_lib_dir())
        old = env.get("LD_LIBRARY_PATH")
        env["LD_LIBRARY_PATH"] = lib + (os.pathsep + old if old else "")
    return env


def run_tool(args: list[str], timeout: float | None = None) -> Completed:
    """Runs `devplan ARGS...` in a child process (an abort in ExecuTorch stays there)."""
    argv = [str(tool_path()), *args]
    try:
        done = subprocess.run(argv, env=tool_environment(), capture_output=True, text=True,
                              errors="replace", timeout=timeout, check=False)
    except subprocess.TimeoutExpired as e:
        raise Error(f"devplan {' '.join(args[:1])} ran past its timeout of {timeout} s",
                    argv=argv) from e
    return Completed(argv, done.returncode, done.stdout, done.stderr)
