"""devplan's pytest plugin (entry point pytest11): installing the package is enough.

    def test_export(devplan):
        program = export_my_model()                          # the user's own to_executorch()
        devplan.gate(program.buffer, budget="budget.json")   # check, simulate, budget

Options: --devplan-budget FILE, --devplan-record-budget, --devplan-runtime, --devplan-device.
The ini setting `devplan_files = *.pte *.bpte` collects committed programs as test items, one
per program and step. docs/python.md has the whole story.
"""

from __future__ import annotations

import fnmatch
import os
import warnings
from pathlib import Path
from typing import Any

import pytest

from . import _api
from ._errors import Error
from ._gate import GateReport, gate, runtimes_for

_BUDGET_HELP = ("the memory budget (devplan budget record) every gate checks its program "
                "against, unless the gate names its own")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("devplan", "devplan: gate exported programs' memory")
    group.addoption("--devplan-budget", metavar="FILE", default=None, help=_BUDGET_HELP)
    group.addoption("--devplan-record-budget", action="store_true", default=False,
                    help="record each gated program into its budget instead of checking it "
                         "(as `devplan budget record --update` does)")
    group.addoption("--devplan-runtime", choices=("devplan", "executorch", "both"),
                    default=None, help="the engines that load each program (default: both "
                                       "that the tool has)")
    group.addoption("--devplan-device", choices=("simulated", "cuda"), default=None,
                    help="where device buffers live (default: simulated)")
    parser.addini("devplan_files", type="args", default=[],
                  help="glob patterns of committed programs collected as tests, one item per "
                       "program and step (e.g. *.pte *.bpte)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "devplan: a devplan gate of a committed program")


class DevplanNote(UserWarning):
    """What a gate could not check here, and why (a program needing kernels this build's
    ExecuTorch lacks): never a failure."""


class GateFailed(Exception):
    """A gate that found something: its report's lines, as the failure's text."""

    def __init__(self, report: GateReport):
        super().__init__(report.message())
        self.report = report


class _Settings:
    """The command line's devplan options."""

    def __init__(self, config: pytest.Config):
        self.budget = config.getoption("devplan_budget")
        self.record = config.getoption("devplan_record_budget")
        self.runtime = config.getoption("devplan_runtime")
        self.device = config.getoption("devplan_device")
        self.invocation_dir = Path(config.invocation_params.dir)

    def budget_path(self, given: Any, test_dir: Path) -> Path | None:
        """A gate's own budget, relative to its test file's folder; else --devplan-budget,
        relative to where pytest was started."""
        if given is not None:
            path = Path(os.fspath(given))
            return path if path.is_absolute() else test_dir / path
        if self.budget is not None:
            path = Path(self.budget)
            return path if path.is_absolute() else self.invocation_dir / path
        return None


def _record_figures(node: pytest.Item, report: GateReport) -> None:
    for key, value in report.figures.items():
        node.user_properties.append((key, value))


def _default_name(node: pytest.Item) -> str:
    """The budget key of a program given as bytes: the test's name as a file name."""
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in node.name)
    return f"{safe}.pte"


class Devplan:
    """The `devplan` fixture: gate(), and the package's functions (devplan.simulate(...)) and
    its Error, which a test's `devplan` argument hides."""

    Error = Error
    inspect = staticmethod(_api.inspect)
    check = staticmethod(_api.check)
    simulate = staticmethod(_api.simulate)
    run = staticmethod(_api.run)
    probe = staticmethod(_api.probe)
    diff = staticmethod(_api.diff)
    budget_record = staticmethod(_api.budget_record)
    budget_check = staticmethod(_api.budget_check)

    def __init__(self, request: pytest.FixtureRequest):
        self._node = request.node
        self._settings = _Settings(request.config)
        self._test_dir = Path(str(request.node.path)).parent

    def gate(self, program: Any, *, budget: Any = None, name: str | None = None,
             data: Any = None, inject_bug: str | None = None) -> GateReport:
        """Checks `program` (a path, its bytes, or to_executorch()'s result): `check`,
        `simulate` under each engine, and its budget when one is given (here, relative to the
        test file's folder, or with --devplan-budget). Fails the test with every finding and
        figure that failed, one per line; returns the report when nothing did. `name`: the
        budget's key for a program given as bytes (default: the test's name, .pte);
        `inject_bug`: the gate's self-test (a buggy allocator simulate must catch)."""
        if name is None and not isinstance(program, (str, os.PathLike)):
            name = _default_name(self._node)
        settings = self._settings
        budget_path = settings.budget_path(budget, self._test_dir)
        report = gate(program, name=name, budget=budget_path,
                      record_budget=settings.record, runtime=settings.runtime,
                      device=settings.device, data=data, inject_bug=inject_bug)
        _record_figures(self._node, report)
        if settings.record and budget_path is None:
            report.notes.append("--devplan-record-budget: nothing recorded, since this gate "
                                "names no budget and --devplan-budget is not given")
        for note in report.notes:
            warnings.warn(DevplanNote(f"devplan gate: {report.name}: {note}"), stacklevel=2)
        if not report.ok:
            pytest.fail(report.message(), pytrace=False)
        return report


@pytest.fixture
def devplan(request: pytest.FixtureRequest) -> Devplan:
    return Devplan(request)


# --- Committed programs as test items (ini: devplan_files) --------------------------------------

def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    patterns = parent.config.getini("devplan_files")
    if not patterns:
        return None
    try:
        relative = file_path.relative_to(parent.config.rootpath).as_posix()
    except ValueError:
        relative = file_path.name
    if any(fnmatch.fnmatch(file_path.name, p) or fnmatch.fnmatch(relative, p)
           for p in patterns):
        return ProgramFile.from_parent(parent, path=file_path)
    return None


def data_files(program: Path) -> list[str]:
    """The data files (.ptd) committed beside a program, by name: <stem>.ptd and
    <stem>_*.ptd (model.pte: model.ptd, model_weights.ptd)."""
    found = [program.with_suffix(".ptd"), *program.parent.glob(f"{program.stem}_*.ptd")]
    return sorted(str(p) for p in found if p.is_file())


class ProgramFile(pytest.File):
    """A committed program: an item for `check`, one for `simulate` under each engine, and
    one for `budget` when --devplan-budget is given."""

    def collect(self):
        settings = _Settings(self.config)
        yield GateItem.from_parent(self, name="check", step="check", runtime=None)
        for runtime in runtimes_for(settings.runtime):
            yield GateItem.from_parent(self, name=f"simulate[{runtime}]", step="simulate",
                                       runtime=runtime)
        if settings.budget is not None:
            yield GateItem.from_parent(self, name="budget", step="budget", runtime=None)


class GateItem(pytest.Item):
    def __init__(self, *, step: str, runtime: str | None, **kwargs: Any):
        super().__init__(**kwargs)
        self.step = step
        self.runtime = runtime
        self.add_marker("devplan")

    def runtest(self) -> None:
        settings = _Settings(self.config)
        report = gate(self.path, budget=settings.budget_path(None, self.path.parent),
                      record_budget=settings.record, runtime=self.runtime or settings.runtime,
                      device=settings.device, data=data_files(self.path) or None,
                      steps=(self.step,))
        _record_figures(self, report)
        if not report.ok:
            raise GateFailed(report)
        if report.notes:
            pytest.skip("; ".join(report.notes))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None):
        if isinstance(excinfo.value, GateFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        data = "".join(f" --data {Path(d).name}" for d in data_files(self.path))
        return self.path, None, f"devplan {self.step}: {self.path.name}{data}"
