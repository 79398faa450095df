"""The gate: one program checked the way a merge gate wants it: `check`, `simulate` under each
engine, and the program's budget (checked, or recorded). Used by the pytest plugin's fixture and
by its collected items; python/devplan/pytest_plugin.py says how."""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _api
from ._errors import Error
from ._program import Program, program_file
from ._results import Result, SimulateResult
from ._tool import executorch_built_in

STEPS = ("check", "simulate", "budget")


@dataclass
class GateReport:
    """What a gate found: `failures`, one line each as the tool prints it under the step that
    found it; `hints`, what to do about them; `notes`, what could not be checked here (never a
    failure); `figures`, the numbers each step measured (pytest's user_properties)."""

    name: str
    failures: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what could not be checked here, and why
    figures: dict[str, int] = field(default_factory=dict)
    results: dict[str, Result] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failures

    def message(self) -> str:
        count = len(self.failures)
        head = f"devplan gate: {self.name}: {count} finding{'s' if count != 1 else ''}"
        return "\n".join([head, *("  " + line for line in self.failures + self.hints)])


def available_runtimes() -> tuple[str, ...]:
    return ("devplan", "executorch") if executorch_built_in() else ("devplan",)


def runtimes_for(choice: str | None) -> tuple[str, ...]:
    """--devplan-runtime: devplan, executorch, or both (the default: every engine the tool
    has)."""
    if choice in (None, "both"):
        return available_runtimes()
    if choice not in ("devplan", "executorch"):
        raise Error(f"runtime: expects devplan, executorch or both, got {choice!r}")
    if choice not in available_runtimes():
        raise Error("runtime executorch: this devplan was built without the ExecuTorch engine")
    return (choice,)


@contextmanager
def _budget_lock(budget: Path) -> Iterator[None]:
    """Serialises recordings into one budget across processes (pytest-xdist's workers) without
    leaving a file beside it."""
    key = hashlib.sha256(str(budget.resolve()).encode()).hexdigest()[:16]
    lock = Path(tempfile.gettempdir()) / f"devplan-budget-{key}.lock"
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _simulate_figures(result: SimulateResult, figures: dict[str, int]) -> None:
    prefix = f"devplan.{result.runtime}"
    for device, stats in sorted(result.statistics.items()):
        figures[f"{prefix}.peak_device_bytes.{device}"] = stats.bytes_peak
    figures[f"{prefix}.allocations"] = sum(s.allocations_total for s in result.statistics.values())
    figures[f"{prefix}.leaks"] = len(result.json.get("leaks", []))


def _only_missing_kernels(result: SimulateResult) -> bool:
    failed = [m for m in result.methods if m.status != "ok"]
    return bool(failed) and all(m.status == "OperatorMissing" for m in failed) and \
        not result.json.get("leaks") and not result.json.get("misuse")


def check_step(path: str, report: GateReport, data: Sequence[str] | None) -> None:
    try:
        result = _api.check(path, data=data)
    except Error as e:
        report.failures.append(f"check: {e.message}")
        return
    report.results["check"] = result
    report.failures += [f"check: {f.text}" for f in result.findings]


def simulate_step(path: str, report: GateReport, runtime: str, device: str | None,
                  data: Sequence[str] | None, inject_bug: str | None = None) -> None:
    try:
        result = _api.simulate(path, runtime=runtime, device=device, data=data,
                               inject_bug=inject_bug)
    except Error as e:
        if isinstance(e.result, SimulateResult) and _only_missing_kernels(e.result):
            # The program names operators this build's ExecuTorch has no kernel for (a custom
            # op, or one the wheel leaves out): it cannot run here, and that is not a finding.
            report.notes += [f"simulate ({runtime}): method {m.name} not loaded, it cannot run "
                             f"on this ExecuTorch: {m.message}" for m in e.result.methods
                             if m.status != "ok"]
            return
        report.failures.append(f"simulate ({runtime}): {e.message}")
        if isinstance(e.result, SimulateResult):
            _simulate_figures(e.result, report.figures)
        return
    report.results[f"simulate {runtime}"] = result
    _simulate_figures(result, report.figures)
    report.failures += [f"simulate ({runtime}): {f.text}" for f in result.findings]


def budget_step(path: str, report: GateReport, budget: Path, record: bool, device: str | None,
                data: Sequence[str] | None) -> None:
    if record:
        with _budget_lock(budget):
            try:
                report.results["budget"] = _api.budget_record(path, budget, update=True,
                                                              device=device, data=data)
            except Error as e:
                report.failures.append(f"budget record: {e.message}")
        return
    record_hint = f"run pytest with --devplan-record-budget (it records into {budget})"
    try:
        result = _api.budget_check(budget, path, only_given=True, device=device, data=data)
    except Error as e:
        missing = not budget.exists() or " is not in " in e.message
        report.failures.append(f"budget: {e.message}")
        if missing:
            report.hints.append(f"budget: to record it, {record_hint}")
        return
    report.results["budget"] = result
    report.failures += [f"budget: FAIL {f.text}" for f in result.findings]
    if result.findings:
        report.hints.append(f"budget: to accept the change, {record_hint}")


def gate(program: Program, *, name: str | None = None, budget: Any = None,
         record_budget: bool = False, runtime: str | None = None, device: str | None = None,
         data: Sequence[str] | None = None, steps: Sequence[str] = STEPS,
         inject_bug: str | None = None) -> GateReport:
    """Runs `steps` on `program` and returns what they found (nothing raised for findings).
    `name` names a program given as bytes (the budget's key; default program.pte).
    `inject_bug` (skip-free, double-free, wrong-index-free) is the gate's self-test: simulate
    puts a buggy allocator in front of the device, and the gate must fail."""
    runtimes = runtimes_for(runtime)
    with program_file(program, name) as path:
        report = GateReport(Path(path).name)
        if "check" in steps:
            check_step(path, report, data)
        if "simulate" in steps:
            for rt in runtimes:
                simulate_step(path, report, rt, device, data, inject_bug)
        if "budget" in steps and budget is not None:
            budget_step(path, report, Path(os.fspath(budget)), record_budget, device, data)
        if not (isinstance(program, (str, os.PathLike)) and os.fspath(program) == path):
            # A temporary file: name the program as the caller did.
            report.failures = [line.replace(path, report.name) for line in report.failures]
            report.notes = [line.replace(path, report.name) for line in report.notes]
    return report
