"""The functions on committed programs: exact figures, findings, and errors."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import devplan
from devplan._results import Allocation, Buffer, DeviceStatistics

from conftest import ADD, BUNDLED, DEVICE_ADD, engines


@pytest.mark.parametrize("engine", engines())
def test_simulate_reports_the_ledger_and_statistics(engine: str) -> None:
    result = devplan.simulate(DEVICE_ADD, runtime=engine)
    assert (result.exit_code, result.ok, result.status, result.runtime) == (0, True, "ok", engine)
    assert result.device_memory == "unbacked"
    assert [m.name for m in result.methods] == ["forward"]
    assert result.methods[0].buffers == [Buffer(0, 256, "cpu:0"), Buffer(1, 384, "cuda:0")]
    alignment = 16 if engine == "devplan" else 8  # ExecuTorch's MemoryManager asks for 8
    assert result.allocations == [Allocation(1, "cuda:0", 384, alignment, "forward/buffer 1",
                                             True)]
    assert result.statistics == {"cuda:0": DeviceStatistics(0, 384, 384, 0, 1, 1)}
    assert result.peak_device_bytes == {"cuda:0": 384}
    assert result.findings == []
    assert result.summary == "SUMMARY: devplan: no leaks, no misuse (1 allocation, 1 free)"


def test_a_leak_is_a_finding_with_the_tools_line() -> None:
    result = devplan.simulate(DEVICE_ADD, inject_bug="skip-free")
    assert (result.exit_code, result.ok, result.status) == (3, False, "leak")
    assert [(f.kind, f.text) for f in result.findings] == [
        ("leak", "leak: #1 cuda:0 384 B align 16 owner forward/buffer 1")]
    assert str(result.findings[0]) == "leak: #1 cuda:0 384 B align 16 owner forward/buffer 1"


def test_check_of_the_exporters_device_program_is_clean() -> None:
    result = devplan.check(DEVICE_ADD)
    assert (result.exit_code, result.status, result.findings) == (0, "clean", [])
    method = result.methods[0]
    assert (method.name, method.steps) == ("forward", 4)
    assert [(b.index, b.size, b.device, b.lower_bound, b.optimum, b.planned_tensors)
            for b in method.buffers] == [(0, 256, "cpu:0", 256, 256, 3),
                                          (1, 384, "cuda:0", 384, 384, 3)]


def test_bytes_and_objects_with_a_buffer_are_programs() -> None:
    data = ADD.read_bytes()

    class Exported:  # what to_executorch() returns: the bytes are its `buffer`
        buffer = data

    for program in (data, bytearray(data), memoryview(data), Exported()):
        result = devplan.inspect(program)
        assert Path(result.file).name == "program.pte"
        assert result.methods[0].buffers == [Buffer(0, 48, "cpu:0", 3)]
        assert result.methods[0].operators == ["aten::add.out"]
    assert Path(devplan.inspect(data, name="add.pte").file).name == "add.pte"
    with pytest.raises(ValueError, match="name: expects a file name such as 'model.pte', "
                                         "got 'a/b.pte'"):
        devplan.inspect(data, name="a/b.pte")
    with pytest.raises(TypeError, match="program: expects a path, the bytes of a program"):
        devplan.inspect(42)


def test_run_returns_outputs_and_a_bundled_programs_cases() -> None:
    result = devplan.run(ADD, input=[1, 2])
    assert result.outputs == [{"index": 0, "type": "Tensor", "dtype": "float32", "sizes": [1],
                               "device": "cpu:0", "values": [3.0]}]
    bundled = devplan.run(BUNDLED)
    assert [(c["test_case"], c["passed"]) for c in bundled.test_cases] == [(0, True), (1, True)]
    assert bundled.findings == []


def test_probe_and_diff() -> None:
    assert devplan.probe(ADD).result == "clean"
    changed = devplan.diff(ADD, REPO_LINEAR)
    assert (changed.result, changed.differences) == ("ok", 6)
    assert [m["status"] for m in changed.methods] == ["changed"]
    same = devplan.diff(ADD.read_bytes(), ADD.read_bytes())
    assert (same.differences, [m["status"] for m in same.methods]) == (0, ["same"])


REPO_LINEAR = ADD.parent / "linear_no_constant_segment.pte"


def test_budget_record_then_check(tmp_path: Path) -> None:
    budget = tmp_path / "budget.json"
    recorded = devplan.budget_record({"model.pte": ADD.read_bytes()}, budget)
    assert [p["name"] for p in recorded.programs] == ["model.pte"]
    assert recorded.dropped == []
    checked = devplan.budget_check(budget, {"model.pte": ADD.read_bytes()})
    assert (checked.exit_code, checked.result, checked.failures, checked.findings) == (
        0, "ok", 0, [])
    # Another program under the same name: its buffer grew from 48 to 384 bytes... on cpu:0.
    grown = devplan.budget_check(budget, {"model.pte": DEVICE_ADD.read_bytes()})
    assert grown.exit_code == 3 and grown.failures == len(grown.findings) > 0
    assert grown.findings[0].kind == "grew"
    assert grown.findings[0].text == ("model.pte forward: buffer 0 (cpu:0) grew 48 B -> 256 B "
                                      "(+208 B, +433.33%; tolerance 0%)")


def test_load_and_usage_errors_raise_with_the_tools_message(tmp_path: Path) -> None:
    with pytest.raises(devplan.Error) as e:
        devplan.check(b"garbage", name="broken.pte")
    assert e.value.message == ("devplan check: InvalidProgram: broken.pte: not a program: the "
                               "file has 7 bytes, fewer than the 8-byte header")
    assert e.value.exit_code == 1
    with pytest.raises(devplan.Error) as e:
        devplan.simulate(tmp_path / "missing.pte")
    assert e.value.message == (f"devplan simulate: AccessFailed: {tmp_path}/missing.pte: cannot "
                               f"open '{tmp_path}/missing.pte': No such file or directory")
    assert e.value.result.status == "error"  # simulate still wrote its JSON
    with pytest.raises(devplan.Error) as e:
        devplan.simulate(DEVICE_ADD, capacity="cuda:0")
    assert e.value.exit_code == 2
    assert e.value.message.splitlines()[0] == (
        "devplan simulate: --capacity: expects DEVICE=SIZE, got 'cuda:0'")


def test_a_failed_allocation_is_an_error_carrying_the_result() -> None:
    with pytest.raises(devplan.Error) as e:
        devplan.simulate(DEVICE_ADD, fail_alloc=1)
    assert e.value.exit_code == 1
    assert e.value.result.status == "error"
    assert e.value.result.methods[0].status == "MemoryAllocationFailed"


def _fake_tool(tmp_path: Path, body: str) -> str:
    tool = tmp_path / "devplan"
    tool.write_text("#!/bin/sh\n" + body + "\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return str(tool)


def test_another_schema_version_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("DEVPLAN_TOOL", _fake_tool(
        tmp_path, """echo '{"devplan_version": "9.0.0", "schema_version": 2}'"""))
    with pytest.raises(devplan.Error, match=r"^devplan inspect: the tool wrote schema_version 2, "
                                            r"and this package reads 1; install the package "
                                            r"and the tool together$"):
        devplan.inspect(ADD)


def test_a_tool_killed_by_a_signal_is_an_error_naming_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("DEVPLAN_TOOL", _fake_tool(tmp_path, "echo dying >&2; kill -ABRT $$"))
    with pytest.raises(devplan.Error, match=r"^devplan inspect was killed by SIGABRT; its last "
                                            r"words: dying$"):
        devplan.inspect(ADD)


def test_the_module_imports_neither_torch_nor_executorch() -> None:
    import subprocess
    import sys
    code = "import sys, devplan; print(sorted(m for m in sys.modules if m.split('.')[0] in " \
           "('torch', 'executorch')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.stdout == "[]\n"
