"""The commands as functions: each runs the tool with --json in a child process and returns
its typed result (_results.py); a load or usage error raises devplan.Error with the tool's
message."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TypeVar

from . import _results as results
from ._errors import Error
from ._options import option_args
from ._program import Program, program_file
from ._tool import Completed, run_tool

R = TypeVar("R", bound=results.Result)


def _message(command: str, doc: Any, done: Completed) -> str:
    """The tool's own message: the JSON's error, else its standard error."""
    if isinstance(doc, dict) and isinstance(doc.get("error"), dict):
        error = doc["error"]
        code = error.get("code")
        text = error.get("message", "")
        return f"devplan {command}: {code}: {text}" if code else f"devplan {command}: {text}"
    methods = doc.get("methods", []) if isinstance(doc, dict) else []
    failed = [m for m in methods if isinstance(m, dict) and m.get("status", "ok") != "ok"]
    if failed:  # simulate: the methods that did not load, each with its error
        return "; ".join(f"devplan {command}: {m['status']}: {m.get('message', '')}"
                         for m in failed)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    if done.exit_code < 0:
        name = signal.Signals(-done.exit_code).name
        tail = f"; its last words: {lines[-1]}" if lines else ""
        return f"devplan {command} was killed by {name}{tail}"
    if lines:
        return "\n".join(lines)
    return f"devplan {command} exited {done.exit_code} without a message"


def _result(command: str, done: Completed, parse: Callable[[dict, int], R]) -> R:
    doc = None
    if done.stdout.strip():
        try:
            doc = json.loads(done.stdout)
        except ValueError:
            doc = None
    if done.exit_code in (0, 3):
        if doc is None:
            raise Error(f"devplan {command} exited {done.exit_code} and wrote no JSON: "
                        f"{done.stderr.strip()}", exit_code=done.exit_code, argv=done.argv,
                        stderr=done.stderr)
        return parse(results.checked_document(doc, command), done.exit_code)
    partial = None
    if isinstance(doc, dict) and doc.get("schema_version") == results.SCHEMA_VERSION:
        try:
            partial = parse(doc, done.exit_code)
        except (KeyError, TypeError, ValueError):
            partial = None
    raise Error(_message(command, doc, done), exit_code=done.exit_code, argv=done.argv,
                stderr=done.stderr, result=partial)


def _one(command: str, parse: Callable[[dict, int], R], program: Program, name: str | None,
         timeout: float | None, options: Mapping[str, Any]) -> R:
    args = option_args(command, options)
    with program_file(program, name) as path:
        done = run_tool([command, path, *args, "--json"], timeout)
        try:
            return _result(command, done, parse)
        except Error as e:
            given = os.fspath(program) if isinstance(program, (str, os.PathLike)) else None
            if path != given:  # a temporary file: name the program as the caller did
                e.message = e.message.replace(path, Path(path).name)
                e.args = (e.message,)
            raise


def inspect(program: Program, *, name: str | None = None, timeout: float | None = None,
            **options: Any) -> results.InspectResult:
    """devplan inspect: the program's methods, buffers and values."""
    return _one("inspect", results.inspect_result, program, name, timeout, options)


def check(program: Program, *, name: str | None = None, timeout: float | None = None,
          **options: Any) -> results.CheckResult:
    """devplan check: overlapping live tensors, device violations, each buffer's bounds."""
    return _one("check", results.check_result, program, name, timeout, options)


def simulate(program: Program, *, name: str | None = None, timeout: float | None = None,
             **options: Any) -> results.SimulateResult:
    """devplan simulate: load and unload the methods; the allocation ledger, statistics, leaks
    and misuse."""
    return _one("simulate", results.simulate_result, program, name, timeout, options)


def run(program: Program, *, name: str | None = None, timeout: float | None = None,
        **options: Any) -> results.RunResult:
    """devplan run: execute a method (or a bundled program's test cases)."""
    return _one("run", results.run_result, program, name, timeout, options)


def probe(program: Program, *, name: str | None = None, timeout: float | None = None,
          **options: Any) -> results.ProbeResult:
    """devplan probe: execute over poisoned memory and under a plan with no reuse."""
    return _one("probe", results.probe_result, program, name, timeout, options)


def diff(old: Program, new: Program, *, timeout: float | None = None,
         **options: Any) -> results.DiffResult:
    """devplan diff OLD NEW: what changed, method by method."""
    args = option_args("diff", options)
    with ExitStack() as stack:
        # Two unnamed byte strings would both be program.pte; name them apart.
        old_path = stack.enter_context(program_file(old, _name_for(old, "old")))
        new_path = stack.enter_context(program_file(new, _name_for(new, "new")))
        done = run_tool(["diff", old_path, new_path, *args, "--json"], timeout)
    return _result("diff", done, results.diff_result)


def _name_for(program: Program, stem: str) -> str | None:
    if isinstance(program, (bytes, bytearray, memoryview)) or hasattr(program, "buffer"):
        return f"{stem}.pte"
    return None


def _program_paths(stack: ExitStack, programs: Any) -> list[str]:
    """Paths for one program, a list of them, or a mapping of budget names to programs."""
    if isinstance(programs, Mapping):
        return [stack.enter_context(program_file(p, n)) for n, p in programs.items()]
    if isinstance(programs, Sequence) and not isinstance(programs, (str, bytes, bytearray)):
        return [stack.enter_context(program_file(p)) for p in programs]
    return [stack.enter_context(program_file(programs))]


def budget_record(programs: Any, budget: Any, *, timeout: float | None = None,
                  **options: Any) -> results.BudgetRecordResult:
    """devplan budget record PROGRAMS... -o BUDGET. `programs`: one program, a list, or a
    mapping of the names the budget keys them by to programs ({"model.pte": buffer})."""
    args = option_args("budget record", options)
    with ExitStack() as stack:
        paths = _program_paths(stack, programs)
        done = run_tool(["budget", "record", *paths, "-o", str(budget), *args, "--json"],
                        timeout)
    return _result("budget record", done, results.budget_record_result)


def budget_check(budget: Any, programs: Any, *, timeout: float | None = None,
                 **options: Any) -> results.BudgetCheckResult:
    """devplan budget check BUDGET PROGRAMS...: exit 3 (findings of kind "grew") when a figure
    grew beyond its tolerance."""
    args = option_args("budget check", options)
    with ExitStack() as stack:
        paths = _program_paths(stack, programs)
        done = run_tool(["budget", "check", str(budget), *paths, *args, "--json"], timeout)
    return _result("budget check", done, results.budget_check_result)
