"""The console script and `python -m devplan`, the tool inside the installed package, and what
happens where ExecuTorch's wheel is missing."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import devplan
from devplan._tool import executorch_built_in, tool_path

from conftest import ADD, devplan_cli

VERSION_LINES = ["devplan 0.1.0", "ExecuTorch engine: the executorch 1.5.1+cpu wheel"
                 if executorch_built_in() else "ExecuTorch engine: not built"]


def test_the_console_script_is_the_tool() -> None:
    done = devplan_cli("--version")
    assert (done.returncode, done.stdout.splitlines()) == (0, VERSION_LINES)
    done = devplan_cli("inspect", str(ADD))
    assert done.returncode == 0
    assert f"file: {ADD}" in done.stdout.splitlines()
    # Its exit codes, unchanged: 1 a file that is not a program, 2 a usage error.
    assert devplan_cli("inspect", "/etc/hostname").returncode == 1
    done = devplan_cli("simulate", str(ADD), "--capacity", "cuda:0")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == ("devplan simulate: --capacity: expects DEVICE=SIZE, "
                                           "got 'cuda:0'")


def test_python_dash_m_devplan_is_the_tool_too() -> None:
    done = subprocess.run([sys.executable, "-m", "devplan", "--version"], capture_output=True,
                          text=True, check=False)
    assert (done.returncode, done.stdout.splitlines()) == (0, VERSION_LINES)


def test_without_executorchs_wheel_the_package_imports_and_says_how_to_install_it() -> None:
    if not executorch_built_in():
        pytest.skip("this devplan was built without ExecuTorch")
    # An interpreter that cannot find the executorch package, as one without the wheel.
    code = ("import importlib.util, sys\n"
            "real = importlib.util.find_spec\n"
            "importlib.util.find_spec = lambda name, *a: None if name == 'executorch' "
            "else real(name, *a)\n"
            "import devplan, devplan.__main__\n"
            "try:\n"
            "    devplan.inspect(sys.argv[1])\n"
            "except devplan.Error as e:\n"
            "    print(e.message)\n"
            "sys.exit(devplan.__main__.main(['--version']))\n")
    env = {k: v for k, v in os.environ.items() if k != "DEVPLAN_TOOL"}
    done = subprocess.run([sys.executable, "-c", code, str(ADD)], capture_output=True,
                          text=True, check=False, env=env)
    message = ("devplan's tool runs on ExecuTorch's C++ runtime, from the executorch 1.5.1 "
               "wheel, which is not installed in this environment: pip install "
               "executorch==1.5.1 (or, without ExecuTorch's own Python dependencies, which "
               "devplan does not need: pip install --no-deps executorch==1.5.1)")
    assert done.stdout == message + "\n"
    assert (done.returncode, done.stderr) == (1, f"devplan: {message}\n")


@pytest.mark.skipif(os.environ.get("DEVPLAN_EXPECT_INSTALLED") != "1",
                    reason="checks the installed wheel (scripts/python-check.sh sets "
                           "DEVPLAN_EXPECT_INSTALLED=1)")
def test_the_installed_package_carries_the_tool_with_a_relative_rpath() -> None:
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    assert Path(devplan.__file__).resolve().parent == site / "devplan"
    tool = tool_path()
    assert tool == site / "devplan" / "bin" / "devplan"
    dynamic = subprocess.run(["readelf", "-d", str(tool)], capture_output=True, text=True,
                             check=True).stdout
    runpaths = [line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines()
                if "(RUNPATH)" in line or "(RPATH)" in line]
    needed = [line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines()
              if "(NEEDED)" in line]
    if executorch_built_in():
        assert runpaths == ["$ORIGIN/../../executorch/lib"]
        assert "libexecutorch.so" in needed
    else:
        assert runpaths == []
    # Nothing from this machine's CUDA toolkit: the CUDA runtime is linked in.
    assert not any(name.startswith("libcudart") for name in needed)
