"""The package's own suite: the functions on committed programs, the console script, and the
plugin under pytester. It runs against the installed package (scripts/python-check.sh installs
the wheel into a fresh virtual environment), never the source folder."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import devplan
from devplan._tool import executorch_built_in

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]
UPSTREAM = REPO / "fixtures" / "executorch" / "upstream-1.5.1"
EXPORTER = REPO / "fixtures" / "executorch" / "exporter"
DEVICE_ADD = UPSTREAM / "device_add.pte"  # buffer 0: 256 B on cpu:0, buffer 1: 384 B on cuda:0
ADD = REPO / "fixtures" / "executorch" / "add.pte"  # CPU only: one 48-byte buffer
TRANSFORMER = EXPORTER / "devplan_transformer.pte"
BUNDLED = EXPORTER / "bundled_add.bpte"
CRASHING = REPO / "fixtures" / "executorch" / "findings" / \
    "corrupt_device_mixed_crashes_minimal_verification.pte"

needs_executorch = pytest.mark.skipif(not executorch_built_in(),
                                      reason="this devplan was built without ExecuTorch")


def engines() -> list[str]:
    return ["devplan", "executorch"] if executorch_built_in() else ["devplan"]


def devplan_cli(*args: str) -> subprocess.CompletedProcess:
    """The console script, as a user runs it."""
    script = shutil.which("devplan", path=str(Path(sys.executable).parent))
    assert script is not None, "the console script `devplan` is not installed beside python"
    return subprocess.run([script, *args], capture_output=True, text=True, check=False)


@pytest.fixture
def grown_transformer(tmp_path: Path) -> tuple[Path, Path]:
    """The exporter's transformer, and the same program re-planned by devplan's best planner
    (smaller): the re-planned one is the recording, the exporter's the version that grew."""
    smaller = tmp_path / "smaller" / "transformer.pte"
    smaller.parent.mkdir()
    done = devplan_cli("replan", str(TRANSFORMER), "-o", str(smaller))
    assert done.returncode == 0, done.stderr
    grown = tmp_path / "grown" / "transformer.pte"
    grown.parent.mkdir()
    shutil.copyfile(TRANSFORMER, grown)
    return smaller, grown


__all__ = ["devplan"]
