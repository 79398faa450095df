"""Typed results over the tool's JSON (docs/commands/*.md give each document's members).

Every result keeps the whole document in `json`, the exit code, and the findings as a list of
Finding: one per leak, misuse, overlap, device violation, probe finding, failing test case or
figure that grew, each with the line the tool prints for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._errors import Error

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Finding:
    """What the tool found. `kind`: leak, misuse, overlap, device, probe, test-case, grew,
    growth or abort; `text`: the line as the tool prints it; `data`: the JSON member."""

    kind: str
    text: str
    method: str | None = None
    data: dict = field(default_factory=dict, repr=False, compare=False)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Result:
    """What every command returns."""

    exit_code: int
    findings: list[Finding]
    json: dict = field(repr=False)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def checked_document(doc: Any, command: str) -> dict:
    """The document, when it is one this package reads (schema_version 1)."""
    if not isinstance(doc, dict):
        raise Error(f"devplan {command}: the tool's JSON is not an object")
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        raise Error(f"devplan {command}: the tool wrote schema_version {version}, and this "
                    f"package reads {SCHEMA_VERSION}; install the package and the tool together")
    return doc


def _ledger_findings(doc: dict) -> list[Finding]:
    """Leaks and misuse as simulate, run and probe report them."""
    found = []
    for leak in doc.get("leaks", []):
        text = leak["report"] if isinstance(leak, dict) else str(leak)
        found.append(Finding("leak", f"leak: {text}", None,
                             leak if isinstance(leak, dict) else {"report": leak}))
    for misuse in doc.get("misuse", []):
        text = misuse["message"] if isinstance(misuse, dict) else str(misuse)
        found.append(Finding("misuse", f"misuse: {text}", None,
                             misuse if isinstance(misuse, dict) else {"message": misuse}))
    return found


# --- inspect -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Buffer:
    """A planned buffer: `index` (0-based), `size` in bytes, `device` ("cuda:0")."""

    index: int
    size: int
    device: str
    planned_tensors: int | None = None


@dataclass(frozen=True)
class InspectMethod:
    name: str
    buffers: list[Buffer]
    peak_device_bytes: dict[str, int]
    operators: list[str]
    delegates: list[Any]
    notes: list[str]


@dataclass(frozen=True)
class InspectResult(Result):
    file: str = ""
    methods: list[InspectMethod] = field(default_factory=list)


def _buffers(items: list[dict]) -> list[Buffer]:
    return [Buffer(b["index"], b["size"], b["device"], b.get("planned_tensors")) for b in items]


def inspect_result(doc: dict, code: int) -> InspectResult:
    methods = [InspectMethod(m["name"], _buffers(m.get("buffers", [])),
                             dict(m.get("peak_device_bytes", {})), list(m.get("operators", [])),
                             list(m.get("delegates", [])), list(m.get("notes", [])))
               for m in doc.get("methods", [])]
    return InspectResult(code, [], doc, doc.get("file", ""), methods)


# --- check ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CheckBuffer(Buffer):
    lower_bound: int = 0
    optimum: int | None = None  # the proven optimum; None when the search's budget ran out


@dataclass(frozen=True)
class CheckMethod:
    name: str
    steps: int
    buffers: list[CheckBuffer]
    warnings: list[str]
    notes: list[str]


@dataclass(frozen=True)
class CheckResult(Result):
    file: str = ""
    status: str = ""  # clean, overlap or device
    methods: list[CheckMethod] = field(default_factory=list)


def check_result(doc: dict, code: int) -> CheckResult:
    methods, findings = [], []
    for m in doc.get("methods", []):
        buffers = []
        for b in m.get("buffers", []):
            optimum = b.get("optimum") or {}
            buffers.append(CheckBuffer(b["index"], b["size"], b["device"],
                                       b.get("planned_tensors"), b.get("lower_bound", 0),
                                       optimum.get("best") if optimum.get("optimal") else None))
        methods.append(CheckMethod(m["name"], m.get("steps", 0), buffers,
                                   list(m.get("warnings", [])), list(m.get("notes", []))))
        for o in m.get("overlaps", []):
            findings.append(Finding("overlap", f"OVERLAP {o.get('text', '')}", m["name"], o))
        for d in m.get("device_violations", []):
            findings.append(Finding("device", f"DEVICE {d.get('message', '')}", m["name"], d))
    return CheckResult(code, findings, doc, doc.get("file", ""), doc.get("status", ""), methods)


# --- simulate ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Allocation:
    seq: int
    device: str
    size: int
    alignment: int
    owner: str
    freed: bool


@dataclass(frozen=True)
class DeviceStatistics:
    """Per device, as RMM's statistics adaptor counts: current (live at the end), peak (most
    live at once) and total (ever allocated)."""

    bytes_current: int
    bytes_peak: int
    bytes_total: int
    allocations_current: int
    allocations_peak: int
    allocations_total: int


@dataclass(frozen=True)
class SimulateMethod:
    name: str
    status: str  # ok, or the error code's name
    buffers: list[Buffer]
    placeholders: list[str]
    message: str = ""


@dataclass(frozen=True)
class SimulateResult(Result):
    status: str = ""  # ok, error, leak, misuse or abort
    runtime: str = ""
    device_memory: str = ""
    methods: list[SimulateMethod] = field(default_factory=list)
    allocations: list[Allocation] = field(default_factory=list)
    statistics: dict[str, DeviceStatistics] = field(default_factory=dict)
    summary: str = ""

    @property
    def peak_device_bytes(self) -> dict[str, int]:
        return {device: s.bytes_peak for device, s in self.statistics.items()}


def simulate_result(doc: dict, code: int) -> SimulateResult:
    runtime = doc.get("runtime", "")
    methods = [SimulateMethod(m["name"], m.get("status", ""), _buffers(m.get("buffers", [])),
                              list(m.get("placeholders", [])), m.get("message", ""))
               for m in doc.get("methods", [])]
    allocations = [Allocation(a["seq"], a["device"], a["size"], a["alignment"], a["owner"],
                              a["freed"]) for a in doc.get("allocations", [])]
    statistics = {
        device: DeviceStatistics(s["bytes"]["current"], s["bytes"]["peak"], s["bytes"]["total"],
                                 s["allocations"]["current"], s["allocations"]["peak"],
                                 s["allocations"]["total"])
        for device, s in doc.get("statistics", {}).items()}
    findings = _ledger_findings(doc)
    if doc.get("status") == "abort":
        error = doc.get("error") or {}
        findings.append(Finding("abort", f"abort: {error.get('message', '')}", None, error))
    return SimulateResult(code, findings, doc, doc.get("status", ""), runtime,
                          doc.get("device_memory", ""), methods, allocations, statistics,
                          doc.get("summary", ""))


# --- run -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RunResult(Result):
    runtime: str = ""
    method: str = ""
    outputs: list[dict] = field(default_factory=list)  # index, type, dtype, sizes, device, values
    test_cases: list[dict] = field(default_factory=list)  # a bundled program's cases


def run_result(doc: dict, code: int) -> RunResult:
    findings = _ledger_findings(doc)
    for case in doc.get("test_cases", []):
        if not case.get("passed", True):
            text = (f"test case {case.get('method')}[{case.get('test_case')}] failed: "
                    f"{case.get('message', '')}")
            findings.append(Finding("test-case", text, case.get("method"), case))
    return RunResult(code, findings, doc, doc.get("runtime", ""), doc.get("method", ""),
                     list(doc.get("outputs", [])), list(doc.get("test_cases", [])))


# --- probe ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ProbeResult(Result):
    file: str = ""
    runtime: str = ""
    result: str = ""  # clean, or what was found
    methods: list[dict] = field(default_factory=list)


def probe_result(doc: dict, code: int) -> ProbeResult:
    findings = []
    for m in doc.get("methods", []):
        for f in m.get("findings", []):
            findings.append(Finding("probe", f.get("text", ""), m.get("name"), f))
    findings += _ledger_findings(doc)
    return ProbeResult(code, findings, doc, doc.get("file", ""), doc.get("runtime", ""),
                       str(doc.get("result", "")), list(doc.get("methods", [])))


# --- diff ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DiffResult(Result):
    old: str = ""
    new: str = ""
    result: str = ""  # ok or grew
    differences: int = 0
    methods: list[dict] = field(default_factory=list)  # name, status, changes


def diff_result(doc: dict, code: int) -> DiffResult:
    findings = []
    for g in doc.get("growth", []):
        text = (f"{g.get('method')}: peak device bytes on {g.get('device')} grew "
                f"{g.get('old')} B -> {g.get('new')} B ({g.get('percent')}%)")
        findings.append(Finding("growth", text, g.get("method"), g))
    return DiffResult(code, findings, doc, doc.get("old", ""), doc.get("new", ""),
                      doc.get("result", ""), doc.get("differences", 0),
                      list(doc.get("methods", [])))


# --- budget --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BudgetRecordResult(Result):
    budget: str = ""
    programs: list[dict] = field(default_factory=list)  # name, methods
    dropped: list[str] = field(default_factory=list)


def budget_record_result(doc: dict, code: int) -> BudgetRecordResult:
    return BudgetRecordResult(code, [], doc, doc.get("budget", ""),
                              list(doc.get("programs", [])), list(doc.get("dropped", [])))


@dataclass(frozen=True)
class BudgetCheckResult(Result):
    budget: str = ""
    result: str = ""
    failures: int = 0
    accept: str | None = None  # the command that accepts the change
    notes: list[Finding] = field(default_factory=list)  # within, shrank and note lines
    programs: list[dict] = field(default_factory=list)


def budget_check_result(doc: dict, code: int) -> BudgetCheckResult:
    findings, notes = [], []
    for p in doc.get("programs", []):
        for f in p.get("findings", []):
            item = Finding(f.get("kind", ""), f.get("text", ""), f.get("method"), f)
            (findings if item.kind == "grew" else notes).append(item)
    return BudgetCheckResult(code, findings, doc, doc.get("budget", ""), str(doc.get("result", "")),
                             doc.get("failures", 0), doc.get("accept"), notes,
                             list(doc.get("programs", [])))
