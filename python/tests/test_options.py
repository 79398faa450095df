"""The keyword arguments each function takes are the options its command's --help lists."""

from __future__ import annotations

import re

import pytest

from devplan._options import FLAG, MANY, OPTIONS, VALUE, option_args

from conftest import devplan_cli

# Options the functions set themselves: --json always, budget record's -o from `budget`.
_SET_BY_THE_FUNCTION = {"json", "help", "output"}


def help_options(command: str) -> dict[str, str]:
    done = devplan_cli(*command.split(), "--help")
    assert done.returncode == 0, done.stderr
    found = {}
    for line in done.stdout.splitlines():
        m = re.match(r"^  (?:-\w,)?--([\w-]+)( [^ ]+)?( \.\.\.)?", line)
        if not m or m.group(1) in _SET_BY_THE_FUNCTION:
            continue
        takes_value = m.group(2) is not None and not m.group(2).strip().startswith("Needs")
        found[m.group(1).replace("-", "_")] = MANY if m.group(3) else (
            VALUE if takes_value else FLAG)
    return found


@pytest.mark.parametrize("command", sorted(OPTIONS))
def test_each_function_takes_exactly_its_commands_options(command: str) -> None:
    assert OPTIONS[command] == help_options(command)


def test_values_flags_and_repeatable_options() -> None:
    assert option_args("simulate", {"fail_alloc": 3, "capacity": {"cuda:0": "1MiB"},
                                    "method": ["forward", "other"], "place": "0=cuda:1"}) == [
        "--fail-alloc", "3", "--capacity", "cuda:0=1MiB", "--method", "forward", "--method",
        "other", "--place", "0=cuda:1"]
    assert option_args("check", {"probe": True, "runtime": "devplan"}) == [
        "--probe", "--runtime", "devplan"]
    assert option_args("check", {"probe": False, "data": None}) == []
    assert option_args("run", {"input": [[1, 2.5], 3]}) == ["--input", "1,2.5", "--input", "3"]


def test_an_unknown_option_or_a_wrong_flag_value_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"devplan.simulate\(\) has no option 'fail_allocs' "
                                        r"\(it has: backing, capacity, "):
        option_args("simulate", {"fail_allocs": 3})
    with pytest.raises(TypeError, match=r"probe: expects True or False, got 'yes'"):
        option_args("check", {"probe": "yes"})
