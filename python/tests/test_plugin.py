"""The pytest plugin, as a user's suite meets it (pytester runs each in a fresh folder): the
fixture's gate passing and failing, committed programs collected from `devplan_files`,
recording a budget, user_properties in --junitxml, and pytest-xdist."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from conftest import ADD, CRASHING, DEVICE_ADD, EXPORTER, engines, needs_executorch

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


def test_a_clean_program_passes_the_gate_and_its_figures_reach_junit(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_export=f"""
        def test_export(devplan):
            program = open({str(DEVICE_ADD)!r}, "rb").read()   # as to_executorch().buffer
            report = devplan.gate(program)
            assert report.ok and report.name == "test_export.pte"
    """)
    result = pytester.runpytest("--junitxml=junit.xml")
    result.assert_outcomes(passed=1)
    case = ElementTree.parse(pytester.path / "junit.xml").find(".//testcase")
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    expected = {}
    for engine in engines():
        expected[f"devplan.{engine}.peak_device_bytes.cuda:0"] = "384"
        expected[f"devplan.{engine}.allocations"] = "1"
        expected[f"devplan.{engine}.leaks"] = "0"
    assert properties == expected


def test_the_gate_fails_on_a_grown_budget_with_the_tools_fail_lines(
        pytester: pytest.Pytester, grown_transformer: tuple[Path, Path]) -> None:
    smaller, grown = grown_transformer
    pytester.makepyfile(test_export=f"""
        def test_export(devplan):
            devplan.gate(open({str(smaller)!r}, "rb").read(), name="model.pte",
                         budget="budget.json")
    """)
    pytester.runpytest("--devplan-record-budget").assert_outcomes(passed=1)
    budget = json.loads((pytester.path / "budget.json").read_text())
    assert list(budget["programs"]) == ["model.pte"]
    pytester.runpytest().assert_outcomes(passed=1)

    # The exporter's own plan of the same model: larger than devplan's re-plan.
    pytester.makepyfile(test_export=f"""
        def test_export(devplan):
            devplan.gate(open({str(grown)!r}, "rb").read(), name="model.pte",
                         budget="budget.json")
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "devplan gate: model.pte: 3 findings",
        "  budget: FAIL model.pte forward: buffer 0 (cpu:0) grew 851968 B (832.0 KiB) -> "
        "1056768 B (1.0 MiB) (+204800 B, +24.04%; tolerance 0%)",
        "  budget: FAIL model.pte forward: planned bytes on cpu:0 grew 851968 B (832.0 KiB) -> "
        "1056768 B (1.0 MiB) (+204800 B, +24.04%; tolerance 0%)",
        "  budget: FAIL model.pte forward: plan ratio (planned bytes over the lower bound) grew "
        "1.0097 -> 1.2524 (+24.04%; tolerance 0%)",
        "  budget: to accept the change, run pytest with --devplan-record-budget (it records "
        f"into {pytester.path}/budget.json)",
    ], consecutive=True)


def test_a_leak_fails_the_gate_naming_the_allocation(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_export=f"""
        def test_export(devplan):
            devplan.gate({str(DEVICE_ADD)!r}, inject_bug="skip-free")
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    alignment = {"devplan": 16, "executorch": 8}  # ExecuTorch's MemoryManager asks for 8
    lines = [f"  simulate ({engine}): leak: #1 cuda:0 384 B align {alignment[engine]} owner "
             "forward/buffer 1" for engine in engines()]
    count = f"{len(lines)} finding" + ("s" if len(lines) > 1 else "")
    result.stdout.fnmatch_lines([f"devplan gate: device_add.pte: {count}", *lines],
                                consecutive=True)


def test_a_program_that_does_not_load_fails_with_the_tools_message(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_export="""
        def test_export(devplan):
            devplan.gate(b"not a program at all", name="broken.pte")
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    not_a_program = "not a program: file identifier is 'a pr' (expected 'ET12')"
    lines = [f"  check: devplan check: InvalidProgram: broken.pte: {not_a_program}",
             f"  simulate (devplan): devplan simulate: InvalidProgram: broken.pte: {not_a_program}"]
    if "executorch" in engines():
        lines.append("  simulate (executorch): devplan simulate: InvalidArgument: broken.pte: "
                     "ExecuTorch: loading the program failed: offset 0 + size 64 > size_ 20, or "
                     "overflow detected")
    result.stdout.fnmatch_lines([f"devplan gate: broken.pte: {len(lines)} findings", *lines],
                                consecutive=True)
    assert "Traceback" not in result.stdout.str()


def test_committed_programs_are_collected_one_item_per_program_and_step(
        pytester: pytest.Pytester) -> None:
    programs = pytester.mkdir("programs")
    shutil.copyfile(ADD, programs / "add.pte")
    shutil.copyfile(DEVICE_ADD, programs / "device_add.pte")
    (programs / "notes.txt").write_text("not collected")
    pytester.makeini("[pytest]\ndevplan_files = *.pte *.bpte\n")
    result = pytester.runpytest("--collect-only", "-q")
    steps = ["check", *(f"simulate[{engine}]" for engine in engines())]
    result.stdout.fnmatch_lines([f"programs/{name}::{step}" for name in ("add.pte",
                                                                            "device_add.pte")
                                 for step in steps])
    pytester.runpytest().assert_outcomes(passed=2 * len(steps))

    # With a budget each program gets a budget item too: recorded, then checked.
    budget = pytester.path / "budget.json"
    pytester.runpytest(f"--devplan-budget={budget}", "--devplan-record-budget",
                       "-k", "budget").assert_outcomes(passed=2)
    assert sorted(json.loads(budget.read_text())["programs"]) == ["add.pte", "device_add.pte"]
    pytester.runpytest(f"--devplan-budget={budget}").assert_outcomes(passed=2 * len(steps) + 2)


@needs_executorch
def test_a_corrupt_program_fails_its_executorch_item_with_executorchs_message(
        pytester: pytest.Pytester) -> None:
    # A fuzz finding that crashed ExecuTorch under minimal verification; the wheel verifies it.
    shutil.copyfile(CRASHING, pytester.path / "crash.pte")
    pytester.makeini("[pytest]\ndevplan_files = *.pte\n")
    result = pytester.runpytest("-k", "executorch")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "devplan gate: crash.pte: 1 finding",
        "  simulate (executorch): devplan simulate: InvalidProgram: "
        f"{pytester.path}/crash.pte: ExecuTorch: loading the program failed: Verification "
        "failed; data may be truncated or corrupt"], consecutive=True)


def test_runtime_option_picks_the_engine(pytester: pytest.Pytester) -> None:
    shutil.copyfile(ADD, pytester.path / "add.pte")
    pytester.makeini("[pytest]\ndevplan_files = *.pte\n")
    result = pytester.runpytest("--collect-only", "-q", "--devplan-runtime=devplan")
    result.stdout.fnmatch_lines(["add.pte::check", "add.pte::simulate[devplan]"])
    assert "simulate[executorch]" not in result.stdout.str()


def test_record_budget_under_xdist_keeps_every_program(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_many="""
        import pytest

        @pytest.mark.parametrize("n", range(6))
        def test_export(devplan, n):
            devplan.gate(%r, name=f"model_{n}.pte", budget="budget.json")
    """ % str(ADD))
    result = pytester.runpytest("-n", "3", "--devplan-record-budget")
    result.assert_outcomes(passed=6)
    budget = json.loads((pytester.path / "budget.json").read_text())
    assert sorted(budget["programs"]) == [f"model_{n}.pte" for n in range(6)]
    pytester.runpytest("-n", "3").assert_outcomes(passed=6)


def test_a_budget_without_the_program_says_how_to_record_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_export=f"""
        def test_export(devplan):
            devplan.gate({str(ADD)!r}, budget="missing.json")
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "devplan gate: add.pte: 1 finding",
        f"  budget: devplan budget check: AccessFailed: cannot open '{pytester.path}/missing.json'"
        ": No such file or directory",
        f"  budget: to record it, run pytest with --devplan-record-budget (it records into "
        f"{pytester.path}/missing.json)"], consecutive=True)


def test_data_files_beside_a_collected_program_are_given_to_it(pytester: pytest.Pytester) -> None:
    shutil.copyfile(EXPORTER / "wild_split_data.pte", pytester.path / "split.pte")
    shutil.copyfile(EXPORTER / "wild_split_data_first.ptd", pytester.path / "split_first.ptd")
    shutil.copyfile(EXPORTER / "wild_split_data_second.ptd", pytester.path / "split_second.ptd")
    pytester.makeini("[pytest]\ndevplan_files = *.pte\n")
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1 + len(engines()))
    result.stdout.fnmatch_lines(["split.pte::check PASSED*"])
    # Without them, the load fails naming the missing key.
    (pytester.path / "split_second.ptd").unlink()
    result = pytester.runpytest("-k", "simulate and not executorch")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "devplan gate: split.pte: 1 finding",
        "  simulate (devplan): devplan simulate: NotFound: method 'forward': value 2: external "
        "tensor 'second.weight' is in none of the data files given "
        f"({pytester.path}/split_first.ptd)"], consecutive=True)


@needs_executorch
def test_kernels_this_executorch_lacks_are_a_note_never_a_failure(
        pytester: pytest.Pytester) -> None:
    missing = EXPORTER / "wild_missing_ops.pte"
    pytester.makepyfile(test_export=f"""
        def test_export(devplan):
            report = devplan.gate({str(missing)!r})
            assert report.ok and len(report.notes) == 1
    """)
    result = pytester.runpytest("-W", "always::devplan.pytest_plugin.DevplanNote")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([
        "*DevplanNote: devplan gate: wild_missing_ops.pte: simulate (executorch): method forward "
        "not loaded, it cannot run on this ExecuTorch: ExecuTorch: load_method('forward') "
        "failed: operator devplan_absent::twice.out has no kernel; *"])
    # A collected program: its executorch item is skipped with that reason.
    shutil.copyfile(missing, pytester.path / "missing.pte")
    pytester.makeini("[pytest]\ndevplan_files = missing.pte\n")
    result = pytester.runpytest("-rs", "missing.pte")
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED * simulate (executorch): method forward not loaded, "
                                 "it cannot run on this ExecuTorch: *"])


def test_recording_without_a_budget_says_nothing_was_recorded(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_export=f"""
        def test_export(devplan):
            devplan.gate({str(ADD)!r})
    """)
    result = pytester.runpytest("--devplan-record-budget")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines([
        "*DevplanNote: devplan gate: add.pte: --devplan-record-budget: nothing recorded, since "
        "this gate names no budget and --devplan-budget is not given"])


def test_the_fixture_has_the_functions_and_the_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_export=f"""
        import pytest

        def test_export(devplan):
            assert devplan.simulate({str(ADD)!r}).status == "ok"
            with pytest.raises(devplan.Error) as e:
                devplan.simulate({str(ADD)!r}, capacity=123)
            assert e.value.exit_code == 2
    """)
    pytester.runpytest().assert_outcomes(passed=1)
