"""Keyword arguments to the tool's options: fail_alloc=3 is --fail-alloc 3.

Each command's options are listed as its --help lists them (python/tests/test_options.py checks
the two agree). A value may be a str, a number or a path; a repeatable option takes one value
or a list of them, and a KEY=VALUE one also a dict ({"cuda:0": "1MiB"} is --capacity
cuda:0=1MiB); a flag takes True or False.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

FLAG, VALUE, MANY = "flag", "value", "many"

_DEVICES = {"device": VALUE, "device_map": MANY}

OPTIONS: dict[str, dict[str, str]] = {
    "inspect": {"data": MANY},
    "check": {"data": MANY, "budget_steps": VALUE, "probe": FLAG, "runtime": VALUE},
    "simulate": {"method": MANY, "place": MANY, "fail_alloc": VALUE, "capacity": MANY,
                 "inject_bug": VALUE, "timeline_svg": VALUE, "trace": VALUE, "junit": VALUE,
                 "backing": VALUE, "max_device_allocation": VALUE, "max_host_buffer": VALUE,
                 **_DEVICES, "runtime": VALUE, "data": MANY},
    "run": {"method": VALUE, "input": MANY, "full": FLAG, "data": MANY,
            "max_device_allocation": VALUE, "max_host_buffer": VALUE, "rtol": VALUE,
            "atol": VALUE, **_DEVICES, "runtime": VALUE},
    "probe": {"method": MANY, "input": MANY, "data": MANY, "inject_bug": VALUE, **_DEVICES,
              "runtime": VALUE, "junit": VALUE},
    "diff": {"junit": VALUE, "runtime": VALUE, "data": MANY, **_DEVICES,
             "fail_on_growth": VALUE, "budget_steps": VALUE},
    "budget record": {"update": FLAG, "tolerance": VALUE, "data": MANY, **_DEVICES},
    "budget check": {"only_given": FLAG, "tolerance": VALUE, "allocation_tolerance": VALUE,
                     "data": MANY, **_DEVICES, "junit": VALUE},
}


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):  # --input 1,2,3
        return ",".join(_text(v) for v in value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def option_args(command: str, options: Mapping[str, Any]) -> list[str]:
    """The command line of `options` for `command`; TypeError naming an option the command does
    not have, or a value of the wrong kind."""
    known = OPTIONS[command]
    args: list[str] = []
    for name, value in options.items():
        kind = known.get(name)
        if kind is None:
            have = ", ".join(sorted(known))
            raise TypeError(f"devplan.{command.replace(' ', '_')}() has no option '{name}' "
                            f"(it has: {have})")
        if value is None:
            continue
        flag = "--" + name.replace("_", "-")
        if kind == FLAG:
            if not isinstance(value, bool):
                raise TypeError(f"{name}: expects True or False, got {value!r}")
            if value:
                args.append(flag)
        elif kind == VALUE:
            args += [flag, _text(value)]
        else:
            if isinstance(value, Mapping):
                items = [f"{_text(k)}={_text(v)}" for k, v in value.items()]
            elif isinstance(value, (list, tuple)):
                items = [_text(v) for v in value]  # input=[[1, 2], 3]: one per method input
            else:
                items = [_text(value)]
            for item in items:
                args += [flag, item]
    return args
