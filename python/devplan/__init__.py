"""devplan from Python: the `devplan` tool's commands as functions returning typed results,
and a pytest plugin that gates exported programs (docs/python.md).

    import devplan
    result = devplan.simulate("model.pte", runtime="executorch")
    for finding in result.findings:
        print(finding)

The module imports neither torch nor executorch: the tool runs in a child process.
"""

from importlib.metadata import PackageNotFoundError, version as _version

from ._api import budget_check, budget_record, check, diff, inspect, probe, run, simulate
from ._errors import Error
from ._gate import GateReport, gate
from ._results import (Allocation, Buffer, BudgetCheckResult, BudgetRecordResult, CheckBuffer,
                       CheckMethod, CheckResult, DeviceStatistics, DiffResult, Finding,
                       InspectMethod, InspectResult, ProbeResult, Result, RunResult,
                       SimulateMethod, SimulateResult)

try:
    __version__ = _version("devplan")
except PackageNotFoundError:  # run from the source tree
    __version__ = "0+unknown"

__all__ = [
    "Allocation", "Buffer", "BudgetCheckResult", "BudgetRecordResult", "CheckBuffer",
    "CheckMethod", "CheckResult", "DeviceStatistics", "DiffResult", "Error", "Finding",
    "GateReport", "InspectMethod", "InspectResult", "ProbeResult", "Result", "RunResult",
    "SimulateMethod", "SimulateResult", "budget_check", "budget_record", "check", "diff", "gate",
    "inspect", "probe", "run", "simulate",
]
