#!/usr/bin/env bash
# Optional, never in CI: what a user of the Python package does. Exports a small model with
# torch and ExecuTorch's exporter, and gates it with devplan's pytest plugin: records its budget,
# passes the gate, then widens the model and watches the gate fail with the budget's FAIL lines.
#
#   scripts/export-and-gate.sh                  # pip install . into the environment
#   scripts/export-and-gate.sh --wheel W.whl    # a wheel scripts/python-check.sh built
#
# The environment is .venv-export (git ignores it), the one scripts/export_executorch_fixtures.py
# makes: torch 2.15.0 and executorch 1.5.1 with their dependencies from PyPI, about 6 GiB (torch
# on Linux is the CUDA build, and it imports only with its nvidia-* libraries; no GPU is needed
# to export). It is made once and reused; pytest and devplan are added to it. The user's project
# lives in a temporary folder, removed at the end.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
torch_version=2.15.0
executorch_version=1.5.1

wheel=""
while [ $# -gt 0 ]; do
  case "$1" in
    --wheel) wheel="$(realpath "${2:?--wheel needs a file}")"; shift 2 ;;
    *) echo "usage: scripts/export-and-gate.sh [--wheel FILE.whl]" >&2; exit 2 ;;
  esac
done

venv="$root/.venv-export"
py="$venv/bin/python"
say() { echo "export-and-gate: $*"; }
if [ ! -x "$py" ]; then
  say "creating $venv (torch $torch_version, executorch $executorch_version: a large download)"
  python3 -m venv "$venv"
fi
"$py" -m pip install --quiet --disable-pip-version-check "torch==$torch_version" \
  "executorch==$executorch_version" pytest
if [ -n "$wheel" ]; then
  "$py" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel"
else
  "$py" -m pip install --quiet --disable-pip-version-check "$root"
fi

project=$(mktemp -d)
trap 'rm -rf "$project"' EXIT
cat > "$project/test_export.py" <<'PY'
import os

import torch
from executorch.exir import to_edge_transform_and_lower


class Model(torch.nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.first = torch.nn.Linear(16, width)
        self.second = torch.nn.Linear(width, 4)

    def forward(self, x):
        return self.second(torch.relu(self.first(x)))


def export_my_model():
    width = int(os.environ.get("MODEL_WIDTH", "32"))
    exported = torch.export.export(Model(width).eval(), (torch.ones(8, 16),))
    return to_edge_transform_and_lower(exported).to_executorch()


def test_export(devplan):
    program = export_my_model()
    devplan.gate(program.buffer, budget="budget.json")
PY

cd "$project"
say "1. recording the budget"
"$py" -m pytest -q -p no:cacheprovider --devplan-record-budget
say "2. the same model passes its gate"
"$py" -m pytest -q -p no:cacheprovider
say "3. a wider model must fail it"
set +e
MODEL_WIDTH=64 "$py" -m pytest -q -p no:cacheprovider > gate.log 2>&1
code=$?
set -e
cat gate.log
if [ "$code" -ne 1 ] || ! grep -q "budget: FAIL test_export.pte forward: " gate.log; then
  say "FAILED: the wider model was expected to fail its gate with the budget's FAIL lines"
  exit 1
fi
say "ok: the gate passed the model it recorded and failed the wider one"
