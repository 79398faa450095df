#!/usr/bin/env python3
"""Export ExecuTorch programs (.pte) that use devplan's device backend.

Optional tool, not part of CI. It makes its own virtual environment, installs
the pinned ExecuTorch exporter and PyTorch from PyPI into it, runs itself again
inside that environment and writes the programs plus eager reference outputs:

    python3 scripts/export_executorch_fixtures.py            # all programs
    python3 scripts/export_executorch_fixtures.py --list     # names only
    python3 scripts/export_executorch_fixtures.py --only devplan_one_delegate

Outputs (default directory fixtures/executorch/exporter/):
    <name>.pte
    reference/<name>.ones.json   {"<method>": [{"inputs": [...], "outputs": [...]}]}
                                 all-ones float inputs, eager PyTorch outputs,
                                 every tensor flattened in row-major order.
    bundled_<name>.bpte          ExecuTorch bundled program (file identifier
                                 BP08): one of the programs above plus test
                                 cases (fixed inputs, eager expected outputs),
                                 written by executorch.devtools.BundledProgram.
    reference/bundled_<name>.json  the same test cases as JSON (dtype, sizes,
                                 dim_order, data per tensor) and where the
                                 program bytes sit in the .bpte.

The delegates target a backend called "DevplanDeviceBackend". Each delegate
holds exactly one elementwise op; its processed blob is the op's ASCII name
("add" or "mul") and its call arguments are (a, b, out), all on the device
named by the "target_device" compile spec (e.g. b"cuda:0").

The venv needs about 6 GiB: torch from PyPI on Linux is the CUDA build and it
cannot be imported without its nvidia-* libraries, so they are installed too
(no GPU is needed; export runs on the CPU).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

EXECUTORCH_VERSION = "1.5.1"
TORCH_VERSION = "2.15.0"  # the torch that ExecuTorch 1.5.1 was built against
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_VENV = REPO_ROOT / ".venv-export"
DEFAULT_OUT = REPO_ROOT / "fixtures" / "executorch" / "exporter"
DEFAULT_SCHEMA = REPO_ROOT / "runtime_ext" / "schema" / "program.fbs"
IN_VENV_MARKER = "DEVPLAN_EXPORT_IN_VENV"
BACKEND_ID = "DevplanDeviceBackend"
# Registrations that must outlive the function that made them (a torch.library.Library
# unregisters its operators when collected; exir finds backends among live subclasses).
_KEEP_ALIVE: List[Any] = []


# --------------------------------------------------------------------------
# Stage 1: virtual environment (runs with any python3 >= 3.10)
# --------------------------------------------------------------------------

def _venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _installed_versions(py: Path) -> Optional[Dict[str, str]]:
    probe = (
        "import importlib.metadata as m, json\n"
        "out = {}\n"
        "for n in ('executorch', 'torch'):\n"
        "    try:\n"
        "        out[n] = m.version(n)\n"
        "    except m.PackageNotFoundError:\n"
        "        out[n] = None\n"
        "print(json.dumps(out))\n"
    )
    try:
        res = subprocess.run([str(py), "-c", probe], check=True,
                             capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return json.loads(res.stdout.strip().splitlines()[-1])


def _versions_ok(found: Optional[Dict[str, str]]) -> bool:
    if not found:
        return False
    et = (found.get("executorch") or "").split("+")[0]
    th = (found.get("torch") or "").split("+")[0]
    return et == EXECUTORCH_VERSION and th == TORCH_VERSION


def ensure_venv(args: argparse.Namespace) -> Path:
    venv = Path(args.venv).resolve()
    py = _venv_python(venv)
    if not py.exists():
        print(f"[export] creating virtual environment {venv}", flush=True)
        subprocess.run([args.base_python, "-m", "venv", str(venv)], check=True)
    if args.reinstall or not _versions_ok(_installed_versions(py)):
        print(f"[export] installing executorch=={EXECUTORCH_VERSION} "
              f"torch=={TORCH_VERSION} into {venv} (large download)", flush=True)
        subprocess.run([str(py), "-m", "pip", "install", "--upgrade", "pip"],
                       check=True)
        subprocess.run([str(py), "-m", "pip", "install",
                        f"executorch=={EXECUTORCH_VERSION}",
                        f"torch=={TORCH_VERSION}"], check=True)
        found = _installed_versions(py)
        if not _versions_ok(found):
            sys.exit(f"[export] wrong versions in {venv}: {found}")
    return py


def in_target_venv(args: argparse.Namespace) -> bool:
    return (os.environ.get(IN_VENV_MARKER) == "1"
            and Path(sys.prefix).resolve() == Path(args.venv).resolve())


# --------------------------------------------------------------------------
# Stage 2: export (runs inside the venv; torch/executorch imported lazily)
# --------------------------------------------------------------------------

def build_backend_and_partitioner():
    """Define the backend and partitioner classes (needs executorch)."""
    import torch
    from executorch.exir.backend.backend_details import (
        BackendDetails, PreprocessResult)
    from executorch.exir.backend.compile_spec_schema import CompileSpec
    from executorch.exir.backend.partitioner import (
        DelegationSpec, Partitioner, PartitionResult)
    from executorch.exir.dialects._ops import ops as exir_ops

    op_names = {
        exir_ops.edge.aten.add.Tensor: "add",
        exir_ops.edge.aten.mul.Tensor: "mul",
    }

    def _op_name(target) -> Optional[str]:
        if target in op_names:
            return op_names[target]
        if target is torch.ops.aten.add.Tensor:
            return "add"
        if target is torch.ops.aten.mul.Tensor:
            return "mul"
        return None

    # The class name is the backend id written into the program.
    class DevplanDeviceBackend(BackendDetails):
        @staticmethod
        def preprocess(edge_program, compile_specs) -> PreprocessResult:
            ops = [n for n in edge_program.graph_module.graph.nodes
                   if n.op == "call_function"]
            if len(ops) != 1:
                raise RuntimeError(
                    f"{BACKEND_ID}: a partition must hold exactly one op, got "
                    f"{[str(n.target) for n in ops]}")
            node = ops[0]
            name = _op_name(node.target)
            if name is None:
                raise RuntimeError(
                    f"{BACKEND_ID}: unsupported op {node.target}; only "
                    "aten.add.Tensor and aten.mul.Tensor can be delegated")
            alpha = node.kwargs.get("alpha", 1)
            if alpha != 1:
                raise RuntimeError(f"{BACKEND_ID}: add with alpha={alpha} "
                                   "is not supported")
            tensor_args = [a for a in node.args
                           if isinstance(a, torch.fx.Node)]
            if len(node.args) != 2 or len(tensor_args) != 2:
                raise RuntimeError(
                    f"{BACKEND_ID}: {name} needs two tensor operands, got "
                    f"{node.args}")
            return PreprocessResult(processed_bytes=name.encode("ascii"))

    # A backend no runtime has: programs delegating to it load only where a placeholder
    # stands in for it.
    class AbsentBackend(BackendDetails):
        @staticmethod
        def preprocess(edge_program, compile_specs) -> PreprocessResult:
            return PreprocessResult(processed_bytes=b"absent")

    _KEEP_ALIVE.append(AbsentBackend)  # subclasses are found through weak references

    class DevplanPartitioner(Partitioner):
        """Tags add/mul nodes, each as its own single-op partition.

        ``devices[k]`` is the target device ("cuda:0", "cuda:1", ...) of the
        k-th aten.add.Tensor/aten.mul.Tensor node in graph order; None (or an
        index past the end of the list) leaves that node on the CPU.
        """

        def __init__(self, devices: Sequence[Optional[str]],
                     backend_id: str = BACKEND_ID) -> None:
            super().__init__()
            self.devices = list(devices)
            self.backend_id = backend_id

        def partition(self, exported_program) -> PartitionResult:
            sig = exported_program.graph_signature
            constant_inputs = set(sig.inputs_to_parameters) | set(
                sig.inputs_to_buffers) | set(
                getattr(sig, "inputs_to_lifted_tensor_constants", {}))
            tags: Dict[str, DelegationSpec] = {}
            k = 0
            for node in exported_program.graph_module.graph.nodes:
                if node.op != "call_function" or _op_name(node.target) is None:
                    continue
                device = self.devices[k] if k < len(self.devices) else None
                index = k
                k += 1
                if device is None:
                    continue
                for arg in node.args:
                    if (isinstance(arg, torch.fx.Node)
                            and arg.op == "placeholder"
                            and arg.name in constant_inputs):
                        raise RuntimeError(
                            f"node {node.name}: operand {arg.name} is a weight; "
                            "the 1.5.1 exporter cannot feed a weight to a "
                            "device delegate")
                tag = f"devplan_{index}"
                node.meta["delegation_tag"] = tag
                # Only devplan's backend places its work on a device.
                specs = ([CompileSpec("target_device", device.encode("ascii"))]
                         if self.backend_id == BACKEND_ID else [])
                tags[tag] = DelegationSpec(self.backend_id, specs)
            return PartitionResult(tagged_exported_program=exported_program,
                                   partition_tags=tags)

    return DevplanDeviceBackend, DevplanPartitioner


class Spec:
    """One program to export."""

    def __init__(self, name: str, what: str,
                 methods: Callable[[], Dict[str, Any]],
                 devices: Optional[Dict[str, Sequence[Optional[str]]]] = None,
                 config: Callable[[], Dict[str, Any]] = dict,
                 cpu_only_methods: Sequence[str] = (),
                 backend_id: str = BACKEND_ID,
                 data_file: Union[None, str, Callable[[str], str]] = None,
                 write_reference: bool = True) -> None:
        self.name = name
        self.what = what
        self.methods = methods          # -> {method: (module, example_inputs)}
        self.devices = devices or {}    # method -> device per add/mul node
        self.config = config            # -> ExecutorchBackendConfig kwargs
        self.cpu_only_methods = tuple(cpu_only_methods)
        self.backend_id = backend_id      # the backend the partitioner delegates to
        # constants go to <data_file>.ptd; a callable names the file per
        # constant (from its node's name)
        self.data_file = data_file
        self.write_reference = write_reference  # False where the outputs are huge


def program_specs() -> List[Spec]:
    import torch
    from torch import nn

    def ones(*shape):
        return torch.ones(*shape, dtype=torch.float32)

    class Add(nn.Module):
        def forward(self, a, b):
            return a + b

    class CpuAroundDevice(nn.Module):
        def forward(self, a, b):
            return torch.sigmoid(torch.relu(a) + b)

    class AddThenMul(nn.Module):
        def forward(self, a, b, c):
            return (a + b) * c

    class TanhMul(nn.Module):
        def forward(self, a, b):
            return torch.tanh(a) * b

    class IndexWithNone(nn.Module):
        # x[:, idx] is aten::index.Tensor with indices [None, idx]: the
        # exporter writes the None as item -1 of an OptionalTensorList.
        def forward(self, x, idx):
            return x[:, idx]

    class Cond(nn.Module):
        # torch.cond: JumpFalseCalls whose condition is a bool tensor, and a
        # jump to the chain's length when the cond ends the chain.
        def forward(self, x):
            return torch.cond(x.sum() > 0, lambda v: v + 1.0, lambda v: v - 1.0,
                              (x,))

    class Scratch(nn.Module):
        # torch.empty is planned memory that no instruction writes (a kernel's
        # scratch, as Cortex-M's quantized kernels take it); the planner puts
        # it where a tensor dead by then lay.
        def forward(self, x):
            dead = torch.relu(x * 2.0)
            y = dead.sum(dim=0)
            scratch = torch.empty(64, dtype=torch.int32)
            return y + torch.bitwise_and(scratch, 0).to(torch.float32)

    class TwoLayers(nn.Module):
        # Two nn.Linear layers whose weights go to two .ptd files.
        def __init__(self):
            super().__init__()
            torch.manual_seed(1)
            self.first = nn.Linear(4, 3)
            self.second = nn.Linear(3, 2)

        def forward(self, x):
            return self.second(self.first(x))

    class WithWeights(nn.Module):
        # nn.Linear's weight and bias: with external constants they are in
        # the .ptd, not the .pte.
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.linear = nn.Linear(4, 3)

        def forward(self, x):
            return self.linear(x)

    class HugeOutputs(nn.Module):
        # Output 0: outer(i, j) for i, j in 1..256 (65,536 float32);
        # output 1: 4,096 -inf then 4,096 nan.
        def forward(self, x):
            c = torch.cumsum(x[:256], 0)
            z = x - 1.0
            return torch.outer(c, c), torch.cat([torch.log(z), z / z])

    class FixedDouble(nn.Module):
        # alpha is a float: torch.export fixes it at its example value (2.0)
        # and the program records it as a Double input.
        def forward(self, x, alpha: float):
            return x * alpha

    class UnnamedOutputs(nn.Module):
        # Outputs no instruction writes: input 1 returned as it came, and a
        # constant buffer; only the middle output is computed. Input 1's
        # value index is not 1.
        def __init__(self):
            super().__init__()
            self.register_buffer("steps", torch.arange(4, dtype=torch.float32))

        def forward(self, x, y):
            return y, x + 1.0, self.steps

    class MutableState(nn.Module):
        # A buffer the method updates in place: the program plans it and
        # gives it an initial value (1, 2, 3, 4) that the first run reads.
        def __init__(self):
            super().__init__()
            self.register_buffer("state", torch.arange(1, 5, dtype=torch.float32))

        def forward(self, x):
            self.state.add_(x)
            return self.state * 2.0

    def missing_ops():
        # Two operators no kernel library here has, each called twice.
        lib = torch.library.Library("devplan_absent", "DEF")
        _KEEP_ALIVE.append(lib)  # the operators exist while the library lives
        for op in ("twice", "halve"):
            lib.define(f"{op}(Tensor x) -> Tensor")
            lib.define(f"{op}.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")
        factor = {"twice": 2.0, "halve": 0.5}
        for op, f in factor.items():
            lib.impl(op, lambda x, f=f: x * f, "CompositeExplicitAutograd")
            lib.impl(f"{op}.out", lambda x, *, out, f=f: out.copy_(x * f),
                     "CompositeExplicitAutograd")
        ns = torch.ops.devplan_absent

        class MissingOps(nn.Module):
            def forward(self, x):
                return ns.halve(ns.twice(ns.halve(ns.twice(x))))

        return {"forward": (MissingOps(), (ones(2, 2),))}

    def one_delegate():
        return {"forward": (Add(), (ones(2, 2), ones(2, 2)))}

    def initialized_state_config():
        # Without this pass the exporter keeps only a mutated buffer's shape
        # and dtype; with it, the buffer's initial value goes into the program.
        from executorch.exir.passes.init_mutable_pass import (
            InitializedMutableBufferPass)

        return dict(passes=[InitializedMutableBufferPass(["state"])])

    def scratch_config():
        # After the out variants are in place, the empty's own instruction is
        # dropped: its memory.alloc is left as planned memory no instruction
        # writes, which is how a kernel's scratch reaches a program.
        from executorch.exir.pass_base import PassBase, PassResult
        from executorch.exir.passes import ToOutVarPass

        class ScratchFromAlloc(PassBase):
            def call(self, gm):
                gm = ToOutVarPass(ignore_to_out_var_failure=False)(gm).graph_module
                for node in list(gm.graph.nodes):
                    if (node.op == "call_function"
                            and "_empty_dim_order" in str(node.target)):
                        alloc = node.kwargs["out"]
                        for key in ("spec", "val"):  # planning reads them
                            if key in node.meta:
                                alloc.meta[key] = node.meta[key]
                        node.replace_all_uses_with(alloc)
                        gm.graph.erase_node(node)
                gm.recompile()
                return PassResult(gm, True)

        return dict(to_out_var_pass=ScratchFromAlloc())

    def cpu_around():
        return {"forward": (CpuAroundDevice(), (ones(2, 4), ones(2, 4)))}

    def add_then_mul():
        return {"forward": (AddThenMul(), (ones(2, 4), ones(2, 4), ones(2, 4)))}

    def two_methods():
        return {"forward": (Add(), (ones(2, 2), ones(2, 2))),
                "cpu_only": (TanhMul(), (ones(2, 2), ones(2, 2)))}

    def broadcast():
        return {"forward": (Add(), (ones(2, 3), ones(3)))}

    def index_with_none():
        return {"forward": (IndexWithNone(),
                            (ones(2, 4), torch.tensor([0, 2], dtype=torch.int64)))}

    def cond():
        return {"forward": (Cond(), (ones(2, 2),))}

    def transformer():
        torch.manual_seed(0)
        layer = nn.TransformerEncoderLayer(64, 4, batch_first=True).eval()
        return {"forward": (layer, (ones(2, 16, 64),))}

    def skip_io_config():
        from executorch.exir.passes import MemoryPlanningPass
        from executorch.exir.passes.propagate_device_config import (
            PropagateDeviceConfig)
        return dict(
            enable_non_cpu_memory_planning=True,
            propagate_device_config=PropagateDeviceConfig(
                skip_h2d_for_method_inputs=True,
                skip_d2h_for_method_outputs=True),
            memory_planning_pass=MemoryPlanningPass(
                alloc_graph_input=False, alloc_graph_output=False))

    return [
        Spec("devplan_one_delegate", "add(a, b) on cuda:0, inputs [2,2]",
             one_delegate, {"forward": ["cuda:0"]}),
        Spec("devplan_cpu_around_device",
             "sigmoid(relu(a) + b), inputs [2,4]; add on cuda:0",
             cpu_around, {"forward": ["cuda:0"]}),
        Spec("devplan_two_delegates",
             "(a + b) * c, inputs [2,4]; add and mul both on cuda:0",
             add_then_mul, {"forward": ["cuda:0", "cuda:0"]}),
        Spec("devplan_two_devices",
             "(a + b) * c, inputs [2,4]; add on cuda:0, mul on cuda:1",
             add_then_mul, {"forward": ["cuda:0", "cuda:1"]}),
        Spec("devplan_two_methods",
             "forward: a + b on cuda:0; cpu_only: tanh(a) * b on the CPU; "
             "inputs [2,2]",
             two_methods, {"forward": ["cuda:0"]},
             cpu_only_methods=["cpu_only"]),
        Spec("devplan_skip_io",
             "a + b on cuda:0, inputs [2,2]; inputs and output stay on the "
             "device (skip-copy, not planned)",
             one_delegate, {"forward": ["cuda:0"]}, skip_io_config),
        Spec("devplan_skip_io_chain",
             "(a + b) * c on cuda:0, inputs [2,4]; skip-copy inputs and "
             "output, the intermediate is planned on the device",
             add_then_mul, {"forward": ["cuda:0", "cuda:0"]}, skip_io_config),
        Spec("devplan_legacy",
             "a + b on cuda:0, inputs [2,2], "
             "enable_non_cpu_memory_planning=False",
             one_delegate, {"forward": ["cuda:0"]},
             lambda: dict(enable_non_cpu_memory_planning=False)),
        Spec("devplan_broadcast",
             "a [2,3] + b [3] on cuda:0 (b broadcast to the output shape)",
             broadcast, {"forward": ["cuda:0"]}),
        Spec("wild_optional_none",
             "x[:, idx] (aten::index.Tensor, indices [None, idx]), x [2,4] "
             "ones, idx [0, 2]; the None is item -1 of an OptionalTensorList",
             index_with_none, {}, cpu_only_methods=["forward"]),
        Spec("wild_cond",
             "torch.cond(x.sum() > 0, x + 1, x - 1), x [2,2] ones; jump "
             "conditions are bool tensors",
             cond, {}, cpu_only_methods=["forward"]),
        Spec("wild_scratch",
             "relu(x * 2).sum(0) + (empty(64, int32) & 0), x [4,64] ones; "
             "the empty tensor is never written and lies in a dead tensor",
             lambda: {"forward": (Scratch(), (ones(4, 64),))}, {},
             scratch_config, cpu_only_methods=["forward"]),
        Spec("wild_external_data",
             "nn.Linear(4, 3), seed 0, x [2,4] ones; weight and bias in "
             "wild_external_data.ptd (external_constants)",
             lambda: {"forward": (WithWeights(), (ones(2, 4),))}, {},
             cpu_only_methods=["forward"], data_file="wild_external_data"),
        Spec("wild_split_data",
             "Linear(3, 2)(Linear(4, 3)(x)), seed 1, x [2,4] ones; the first "
             "layer's weight and bias in wild_split_data_first.ptd, the "
             "second's in wild_split_data_second.ptd",
             lambda: {"forward": (TwoLayers(), (ones(2, 4),))}, {},
             cpu_only_methods=["forward"],
             data_file=lambda node: "wild_split_data_" + (
                 "first" if "first" in node else "second")),
        Spec("wild_huge_outputs",
             "x [4096] ones; outer(cumsum(x[:256]), same) [256,256] and "
             "cat(log(x - 1), (x - 1) / (x - 1)) [8192]",
             lambda: {"forward": (HugeOutputs(), (ones(4096),))}, {},
             cpu_only_methods=["forward"], write_reference=False),
        Spec("wild_fixed_double",
             "x * alpha, x [2,2] ones, alpha a float fixed at 2.0 by export",
             lambda: {"forward": (FixedDouble(), (ones(2, 2), 2.0))}, {},
             cpu_only_methods=["forward"]),
        Spec("wild_unnamed_outputs",
             "(y, x + 1, steps), x and y [2,2] ones, steps a constant buffer "
             "arange(4): outputs 0 and 2 are an input and a constant that no "
             "instruction writes",
             lambda: {"forward": (UnnamedOutputs(), (ones(2, 2), ones(2, 2)))},
             {}, cpu_only_methods=["forward"]),
        Spec("wild_mutable_state",
             "state += x; return state * 2, x [4] ones, state a buffer "
             "arange(1, 5) updated in place: a planned tensor with an "
             "initial value",
             lambda: {"forward": (MutableState(), (ones(4),))},
             {}, initialized_state_config, cpu_only_methods=["forward"]),
        Spec("wild_absent_backend",
             "a + b delegated to AbsentBackend (no runtime has it), inputs "
             "[2,2]",
             one_delegate, {"forward": ["cpu"]}, backend_id="AbsentBackend"),
        Spec("wild_missing_ops",
             "halve(twice(halve(twice(x)))), x [2,2] ones; devplan_absent::"
             "twice.out and halve.out have no kernel anywhere",
             missing_ops, {}),
        Spec("devplan_transformer",
             "nn.TransformerEncoderLayer(64, 4, batch_first=True), eval, "
             "seed 0, input [2,16,64], CPU only",
             transformer, {}, cpu_only_methods=["forward"]),
    ]


def _flat(t) -> List[float]:
    if isinstance(t, (int, float, bool)):
        return [float(t)]
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def _leaves(out) -> list:
    import torch
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        res = []
        for o in out:
            res.extend(_leaves(o))
        return res
    raise TypeError(f"unexpected output type {type(out)}")


def build_program(spec: Spec, partitioner_cls):
    """Export `spec` in memory.

    Returns (methods, reference, manager): the {method: (module, inputs)} that
    was exported, the all-ones eager reference and the
    ExecutorchProgramManager (its .buffer is the .pte).
    """
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge

    torch.manual_seed(0)
    methods = spec.methods()
    exported = {}
    reference: Dict[str, list] = {}
    for mname, (module, inputs) in methods.items():
        module.eval()
        # Eager on a copy: a method that updates a buffer in place must be
        # exported with the buffer's state from before the first call.
        with torch.no_grad():
            outputs = copy.deepcopy(module)(*inputs)
        reference[mname] = [{
            "inputs": [_flat(t) for t in inputs],
            "outputs": [_flat(t) for t in _leaves(outputs)],
        }]
        exported[mname] = torch.export.export(module, inputs, strict=True)

    edge = to_edge(exported)
    partitioners = {m: partitioner_cls(d, spec.backend_id)
                    for m, d in spec.devices.items()
                    if any(x is not None for x in d)}
    if partitioners:
        edge = edge.to_backend(partitioners)
    config = spec.config()
    if isinstance(spec.data_file, str):
        tag = spec.data_file
        config["external_constants"] = lambda node: tag
    elif spec.data_file is not None:
        name_file = spec.data_file
        config["external_constants"] = lambda node: name_file(node.name)
    et = edge.to_executorch(ExecutorchBackendConfig(**config))
    return methods, reference, et


def export_one(spec: Spec, out_dir: Path, partitioner_cls) -> Dict[str, Any]:
    methods, reference, et = build_program(spec, partitioner_cls)
    pte = out_dir / f"{spec.name}.pte"
    pte.write_bytes(et.buffer)
    data = []
    if et._tensor_data:  # 1.5.1 has no public accessor but the writer
        et.write_tensor_data_to_file(str(out_dir))
        data = [out_dir / f"{name}.ptd" for name in sorted(et._tensor_data)]
    if spec.write_reference:
        ref = out_dir / "reference" / f"{spec.name}.ones.json"
        ref.write_text(json.dumps(reference) + "\n")
    return {"methods": methods, "reference": reference, "pte": pte,
            "data": data}


def check_cpu_methods(spec: Spec, result: Dict[str, Any]) -> List[str]:
    """Run the delegate-free methods in ExecuTorch's runtime, compare."""
    import torch
    try:
        from executorch.runtime import Runtime
    except Exception as e:  # pragma: no cover - optional
        return [f"runtime check skipped ({e})"]
    notes = []
    data = result.get("data") or []
    if len(data) > 1:
        # ExecuTorch's Python runtime takes one data file; its C++ Module
        # merges several (devplan's tests run it so).
        return ["runtime check skipped (the Python runtime takes one .ptd, "
                f"this program has {len(data)})"]
    program = Runtime.get().load_program(
        result["pte"], data_path=data[0] if data else None)
    for mname in spec.cpu_only_methods:
        _, inputs = result["methods"][mname]
        outs = program.load_method(mname).execute(list(inputs))
        want = result["reference"][mname][0]["outputs"]
        got = [_flat(o) for o in outs]
        worst = max(abs(x - y) for g, w in zip(got, want)
                    for x, y in zip(g, w))
        ok = len(got) == len(want) and worst <= 1e-5
        notes.append(f"runtime {mname}: max |diff| {worst:.2e}"
                     f" {'ok' if ok else 'MISMATCH'}")
        if not ok:
            raise RuntimeError(f"{spec.name}.{mname}: runtime output differs "
                               f"from eager by {worst}")
    return notes


# ---------------------------- bundled programs ------------------------------

BUNDLED_FILE_IDENTIFIER = b"BP08"
# ExecuTorch's default tolerances for comparing with bundled expected outputs
# (verify_method_outputs / verify_result_with_bundled_expected_output).
# They are runtime arguments; the .bpte format has no field for them.
BUNDLED_RTOL = 1e-5
BUNDLED_ATOL = 1e-8


class BundledSpec:
    """One bundled program (.bpte) to export.

    ``program`` is exported exactly like a plain Spec; ``cases`` returns
    {method: [inputs, ...]} and each inputs tuple becomes one test case whose
    expected outputs are the eager outputs of the module for those inputs.
    ``same_as`` names a .pte whose bytes the bundled program should equal.
    """

    def __init__(self, name: str, what: str, program: Spec,
                 cases: Callable[[], Dict[str, List[tuple]]],
                 same_as: Optional[str] = None) -> None:
        self.name = name
        self.what = what
        self.program = program
        self.cases = cases
        self.same_as = same_as


def bundled_specs() -> List[BundledSpec]:
    import torch

    base = {s.name: s for s in program_specs()}

    def t(rows):
        return torch.tensor(rows, dtype=torch.float32)

    def randn(seed: int, *shape):
        g = torch.Generator().manual_seed(seed)
        return torch.randn(*shape, generator=g, dtype=torch.float32)

    # The CPU-only program: the same a + b module as devplan_one_delegate,
    # exported without the partitioner.
    one = base["devplan_one_delegate"]
    add_cpu = Spec("bundled_add", "a + b, inputs [2,2], CPU only",
                   one.methods, {}, cpu_only_methods=["forward"])

    def add_cases():
        return {"forward": [
            (t([[1.0, 2.0], [3.0, 4.0]]), t([[0.5, -1.5], [10.0, -4.25]])),
            (randn(1, 2, 2), randn(2, 2, 2)),
        ]}

    def device_cases():
        return {"forward": [
            (t([[-1.0, 0.25], [7.0, 100.0]]), t([[1.0, 0.75], [-7.5, 0.125]])),
            (randn(3, 2, 2), randn(4, 2, 2)),
        ]}

    def two_method_cases():
        return {
            "forward": [
                (t([[2.0, -3.0], [0.5, 8.0]]), t([[-2.0, 1.0], [0.25, -8.0]])),
                (randn(5, 2, 2), randn(6, 2, 2)),
            ],
            "cpu_only": [
                (t([[0.0, 0.5], [-1.0, 2.0]]), t([[1.0, 2.0], [-3.0, 0.5]])),
                (t([[-2.0, 1.0], [0.25, -0.5]]), t([[0.0, -1.0], [4.0, 1.0]])),
                (randn(7, 2, 2), randn(8, 2, 2)),
            ],
        }

    return [
        BundledSpec("bundled_add",
                    "a + b, inputs [2,2], CPU only; forward: 2 test cases",
                    add_cpu, add_cases),
        BundledSpec("bundled_device",
                    "the devplan_one_delegate program (a + b on cuda:0 via "
                    "DevplanDeviceBackend); forward: 2 test cases",
                    one, device_cases, same_as="devplan_one_delegate"),
        BundledSpec("bundled_two_methods",
                    "the devplan_two_methods program; cpu_only: 3 test "
                    "cases, forward (cuda:0): 2 test cases",
                    base["devplan_two_methods"], two_method_cases,
                    same_as="devplan_two_methods"),
    ]


def _own(t):
    """A contiguous copy with its own storage.

    BundledProgram copies a tensor's whole storage, so a view would carry
    bytes that are not its own.
    """
    return t.detach().clone().contiguous()


def _tensor_json(t) -> Dict[str, Any]:
    return {"dtype": str(t.dtype).replace("torch.", ""),
            "sizes": list(t.shape),
            "dim_order": list(range(t.dim())),
            "data": _flat(t)}


def _bp_program_span(data: bytes) -> tuple:
    """(offset, size) of BundledProgram.program inside a .bpte."""
    root = struct.unpack_from("<I", data, 0)[0]
    vtable = root - struct.unpack_from("<i", data, root)[0]
    vt_size = struct.unpack_from("<H", data, vtable)[0]
    slot = 4 + 2 * 2  # field 2: version, method_test_suites, program
    if slot + 2 > vt_size:
        raise ValueError("BundledProgram has no program field")
    field = struct.unpack_from("<H", data, vtable + slot)[0]
    if field == 0:
        raise ValueError("BundledProgram has no program field")
    at = root + field
    vec = at + struct.unpack_from("<I", data, at)[0]
    size = struct.unpack_from("<I", data, vec)[0]
    return vec + 4, size


def export_bundled(bspec: BundledSpec, out_dir: Path,
                   partitioner_cls) -> Dict[str, Any]:
    import hashlib
    import torch
    from executorch.devtools import BundledProgram
    from executorch.devtools.bundled_program.config import (
        MethodTestCase, MethodTestSuite)
    from executorch.devtools.bundled_program.serialize import (
        serialize_from_bundled_program_to_flatbuffer)
    from executorch.devtools.bundled_program.version import (
        BUNDLED_PROGRAM_SCHEMA_VERSION)

    methods, _, et = build_program(bspec.program, partitioner_cls)
    cases = bspec.cases()
    unknown = set(cases) - set(methods)
    if unknown:
        raise RuntimeError(f"test cases for unknown method(s) {sorted(unknown)}")

    suites = []
    described: Dict[str, list] = {}
    for mname, input_sets in cases.items():
        module, _ = methods[mname]
        module.eval()
        test_cases = []
        described[mname] = []
        for inputs in input_sets:
            inputs = [_own(x) for x in inputs]
            with torch.no_grad():
                outputs = [_own(o) for o in _leaves(module(*inputs))]
            test_cases.append(MethodTestCase(inputs=inputs,
                                             expected_outputs=outputs))
            described[mname].append({
                "inputs": [_tensor_json(x) for x in inputs],
                "expected_outputs": [_tensor_json(o) for o in outputs],
            })
        suites.append(MethodTestSuite(method_name=mname,
                                      test_cases=test_cases))

    bundled = BundledProgram(et, suites)
    data = serialize_from_bundled_program_to_flatbuffer(bundled)
    if data[4:8] != BUNDLED_FILE_IDENTIFIER:
        raise RuntimeError(f"file identifier {data[4:8]!r}, expected "
                           f"{BUNDLED_FILE_IDENTIFIER!r}")
    offset, size = _bp_program_span(data)
    program = data[offset:offset + size]
    if program != et.buffer:
        raise RuntimeError("the bundled program bytes differ from the "
                           "exported program")

    bpte = out_dir / f"{bspec.name}.bpte"
    bpte.write_bytes(data)
    # BundledProgram stores the suites sorted by method name; so does this.
    reference = {
        "file": bpte.name,
        "file_identifier": BUNDLED_FILE_IDENTIFIER.decode("ascii"),
        "version": BUNDLED_PROGRAM_SCHEMA_VERSION,
        "program": {"offset": offset, "size": size,
                    "sha256": hashlib.sha256(program).hexdigest(),
                    "same_as": (f"{bspec.same_as}.pte" if bspec.same_as
                                else None)},
        "method_test_suites": [
            {"method_name": m, "test_cases": described[m]}
            for m in sorted(described)],
    }
    ref = out_dir / "reference" / f"{bspec.name}.json"
    ref.write_text(json.dumps(reference, indent=1) + "\n")
    return {"bpte": bpte, "program": program, "methods": methods,
            "reference": reference}


def check_bundled(bspec: BundledSpec, result: Dict[str, Any],
                  out_dir: Path) -> List[str]:
    """Compare with the plain .pte; run the CPU-only methods' test cases."""
    notes = []
    if bspec.same_as:
        pte = out_dir / f"{bspec.same_as}.pte"
        if pte.exists():
            same = pte.read_bytes() == result["program"]
            notes.append(f"program bytes {'==' if same else 'DIFFER from'} "
                         f"{pte.name}")
            if not same:
                raise RuntimeError(f"{bspec.name}: program differs from "
                                   f"{pte.name}")
    cpu = [m for m in bspec.program.cpu_only_methods
           if any(s["method_name"] == m
                  for s in result["reference"]["method_test_suites"])]
    if not cpu:
        return notes
    try:
        import torch
        from executorch.runtime import Runtime
    except Exception as e:  # pragma: no cover - optional
        return notes + [f"runtime check skipped ({e})"]

    # 1. ExecuTorch's runtime on the bundled program bytes with the bundled
    #    inputs, compared with the bundled expected outputs.
    program = Runtime.get().load_program(result["program"])
    for suite in result["reference"]["method_test_suites"]:
        m = suite["method_name"]
        if m not in cpu:
            continue
        method = program.load_method(m)
        worst = 0.0
        for case in suite["test_cases"]:
            ins = [torch.tensor(x["data"], dtype=torch.float32)
                   .reshape(x["sizes"]) for x in case["inputs"]]
            got = [_flat(o) for o in method.execute(ins)]
            want = [o["data"] for o in case["expected_outputs"]]
            if len(got) != len(want):
                raise RuntimeError(f"{bspec.name}.{m}: {len(got)} outputs, "
                                   f"expected {len(want)}")
            for g, w in zip(got, want):
                worst = max([worst] + [abs(x - y) for x, y in zip(g, w)])
        ok = worst <= 1e-5
        notes.append(f"runtime {m}: {len(suite['test_cases'])} test cases, "
                     f"max |diff| {worst:.2e} {'ok' if ok else 'MISMATCH'}")
        if not ok:
            raise RuntimeError(f"{bspec.name}.{m}: runtime differs from the "
                               f"bundled expected outputs by {worst}")

    # 2. ExecuTorch's own bundled-program path: BundledModule loads test case
    #    i's inputs, runs the method and compares with its expected outputs
    #    (ExecuTorch's default tolerances; the .bpte stores none).
    try:
        from executorch.extension.pybindings.portable_lib import (
            _load_bundled_program_from_buffer)
    except Exception as e:  # pragma: no cover - optional
        return notes + [f"bundled-io check skipped ({e})"]
    bundle = _load_bundled_program_from_buffer(result["bpte"].read_bytes())
    for suite in result["reference"]["method_test_suites"]:
        m = suite["method_name"]
        if m not in cpu:
            continue
        for i in range(len(suite["test_cases"])):
            bundle.verify_result_with_bundled_expected_output(
                m, i, rtol=BUNDLED_RTOL, atol=BUNDLED_ATOL)
        notes.append(f"bundled-io {m}: {len(suite['test_cases'])} test cases "
                     "pass BundledModule.verify_result_with_bundled_expected_"
                     f"output (rtol {BUNDLED_RTOL}, atol {BUNDLED_ATOL})")
    return notes


def bundled_schema_dir() -> Optional[Path]:
    """Folder holding the wheel's bundled_program_schema.fbs."""
    try:
        import executorch.devtools.bundled_program.serialize as ser
    except Exception:
        return None
    d = Path(ser.__file__).resolve().parent
    return d if (d / "bundled_program_schema.fbs").exists() else None


def summarize_bundled(bpte: Path, schema_dir: Path, flatc: str,
                      program_schema: Path) -> List[str]:
    """Decode `bpte` with flatc and the wheel's bundled-program schema."""
    data = bpte.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([flatc, "--json", "--raw-binary", "--strict-json",
                        "-o", tmp,
                        str(schema_dir / "bundled_program_schema.fbs"), "--",
                        str(bpte)], check=True, capture_output=True)
        bp = json.loads((Path(tmp) / (bpte.stem + ".json")).read_text())
        offset, size = _bp_program_span(data)
        lines = [f"  file_identifier {data[4:8].decode('latin-1')!r}, "
                 f"{len(data)} bytes, version {bp.get('version')}, "
                 f"program {len(bp.get('program', []))} bytes at offset "
                 f"{offset} (offset % 32 = {offset % 32})"]
        for suite in bp.get("method_test_suites", []):
            cases = suite.get("test_cases", [])
            lines.append(f"  suite {suite.get('method_name')}: "
                         f"{len(cases)} test cases")
            for i, case in enumerate(cases):
                def val(v):
                    if v.get("val_type") != "Tensor":
                        return f"{v.get('val_type')} {v.get('val')}"
                    x = v["val"]
                    raw = bytes(x.get("data", []))
                    n = len(raw) // 4
                    nums = struct.unpack(f"<{n}f", raw[:4 * n]) \
                        if x.get("scalar_type") == "FLOAT" else raw
                    return (f"{x.get('scalar_type')}{x.get('sizes')} "
                            f"dim_order={x.get('dim_order')} "
                            f"{len(raw)}B {list(nums)}")
                lines.append(f"    case {i}: inputs " + "; ".join(
                    val(v) for v in case.get("inputs", [])))
                lines.append("            expected " + "; ".join(
                    val(v) for v in case.get("expected_outputs", [])))
        if program_schema.exists():
            inner = Path(tmp) / (bpte.stem + ".program.pte")
            inner.write_bytes(data[offset:offset + size])
            lines.append("  bundled program:")
            lines.extend("  " + line for line in
                         summarize(inner, program_schema, flatc))
    return lines


# ------------------------------ flatc summary -------------------------------

def _segment_base(data: bytes) -> int:
    if data[8:12] == b"eh00":
        return struct.unpack_from("<Q", data, 24)[0]
    return 0


def _device(tensor: Dict[str, Any]) -> str:
    info = tensor.get("extra_tensor_info") or {}
    dtype = info.get("device_type", "CPU")
    return f"{str(dtype).lower()}:{info.get('device_index', 0)}"


def summarize(pte: Path, schema: Path, flatc: str) -> List[str]:
    """Decode `pte` with flatc and the project's schema; describe each plan."""
    data = pte.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([flatc, "--json", "--raw-binary", "--strict-json",
                        "--defaults-json", "-o", tmp, str(schema), "--",
                        str(pte)], check=True, capture_output=True)
        text = (Path(tmp) / (pte.stem + ".json")).read_text()
    # flatc writes non-finite doubles as bare words.
    for word, rep in (("-inf", "-Infinity"), ("inf", "Infinity"),
                      ("nan", "NaN")):
        text = text.replace(f": {word}\n", f": {rep}\n").replace(
            f": {word},", f": {rep},")
    prog = json.loads(text)
    base = _segment_base(data)
    lines = []
    for plan in prog.get("execution_plan", []):
        values = plan.get("values", [])
        ops = plan.get("operators", [])
        delegates = plan.get("delegates", [])

        def tensor(i):
            v = values[i]
            return v.get("val") if v.get("val_type") == "Tensor" else None

        def blob(d):
            ref = d.get("processed", {})
            idx = ref.get("index", 0)
            if ref.get("location", "INLINE") == "SEGMENT":
                seg = prog["segments"][idx]
                start = base + int(seg["offset"])
                return data[start:start + int(seg["size"])]
            return bytes(prog["backend_delegate_data"][idx]["data"])

        def spec_text(d):
            return ", ".join(
                f"{c['key']}={bytes(c.get('value', [])).decode('latin-1')}"
                for c in d.get("compile_specs", []))

        steps = []
        for chain in plan.get("chains", []):
            for ins in chain.get("instructions", []):
                kind = ins.get("instr_args_type")
                arg = ins.get("instr_args", {})
                if kind == "KernelCall":
                    op = ops[arg["op_index"]]
                    name = op["name"]
                    short = name.split("::")[-1]
                    if short in ("_h2d_copy", "_d2h_copy"):
                        out = tensor(arg["args"][-1])
                        short = ("h2d" if short == "_h2d_copy" else "d2h")
                        steps.append(f"{short}->{_device(out)}" if out
                                     else short)
                    else:
                        steps.append(f"{name}.{op.get('overload', '')}")
                elif kind == "DelegateCall":
                    d = delegates[arg["delegate_index"]]
                    args = arg.get("args", [])
                    devs = sorted({_device(tensor(a)) for a in args
                                   if tensor(a) is not None})
                    steps.append(
                        f"delegate[{arg['delegate_index']}] {d['id']}"
                        f"({blob(d).decode('latin-1')}) args={args} "
                        f"on {'/'.join(devs)}")
                else:
                    steps.append(str(kind))
        dev = plan.get("non_const_buffer_device")
        lines.append(f"  method {plan.get('name')}:")
        lines.append(f"    non_const_buffer_sizes = "
                     f"{[int(x) for x in plan.get('non_const_buffer_sizes', [])]}")
        lines.append("    non_const_buffer_device = " + (
            "absent" if not dev else ", ".join(
                f"buffer_idx {e.get('buffer_idx')} -> "
                f"{e.get('device_type')}:{e.get('device_index', 0)}"
                for e in dev)))
        lines.append("    operators = " + ", ".join(
            f"{o['name']}.{o.get('overload', '')}" for o in ops))
        for i, d in enumerate(delegates):
            lines.append(f"    delegate {i}: id={d['id']} processed="
                         f"{blob(d)!r} compile_specs=[{spec_text(d)}]")
        lines.append("    instructions: " + "; ".join(steps))
        planned = []
        for i, v in enumerate(values):
            t = tensor(i)
            if t is None:
                continue
            alloc = t.get("allocation_info")
            dev_t = _device(t)
            if dev_t != "cpu:0" or alloc is None:
                where = ("unplanned" if alloc is None else
                         f"mem_id {alloc['memory_id']} @ "
                         f"{int(alloc['memory_offset_low'])}")
                if int(t.get("data_buffer_idx", 0)) == 0:
                    planned.append(f"v{i} {t.get('sizes')} {dev_t} {where}")
        if planned:
            lines.append("    device/unplanned tensors: " + "; ".join(planned))
    return lines


# ------------------------------- entry point --------------------------------

def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--venv", default=str(DEFAULT_VENV),
                   help="virtual environment to create/use (default: "
                        ".venv-export/ in the repository root)")
    p.add_argument("--out", default=str(DEFAULT_OUT),
                   help="output directory (default: fixtures/executorch/"
                        "exporter/)")
    p.add_argument("--only", nargs="+", metavar="NAME",
                   help="export only these programs")
    p.add_argument("--list", action="store_true",
                   help="list the programs and exit")
    p.add_argument("--reinstall", action="store_true",
                   help="reinstall executorch and torch into the venv")
    p.add_argument("--base-python", default=sys.executable,
                   help="python used to create the venv (default: this one)")
    p.add_argument("--schema", default=str(DEFAULT_SCHEMA),
                   help="program.fbs used for the flatc summary")
    p.add_argument("--no-summary", action="store_true",
                   help="skip the flatc summary")
    p.add_argument("--no-runtime-check", action="store_true",
                   help="skip running delegate-free methods in ExecuTorch's "
                        "runtime")
    return p.parse_args(argv)


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)

    if not in_target_venv(args):
        py = ensure_venv(args)
        env = dict(os.environ, **{IN_VENV_MARKER: "1"})
        cmd = [str(py), str(Path(__file__).resolve()), *argv]
        print(f"[export] re-running inside {Path(args.venv).resolve()}",
              flush=True)
        os.execve(str(py), cmd, env)

    import logging
    logging.getLogger().setLevel(logging.ERROR)
    import torch
    import executorch
    from importlib.metadata import version

    specs = program_specs()
    bspecs = bundled_specs()
    if args.list:
        for s in specs:
            print(f"{s.name}: {s.what}")
        for b in bspecs:
            print(f"{b.name} (.bpte): {b.what}")
        return 0
    if args.only:
        unknown = set(args.only) - {s.name for s in specs} - {
            b.name for b in bspecs}
        if unknown:
            sys.exit(f"unknown program(s): {sorted(unknown)}")
        specs = [s for s in specs if s.name in args.only]
        bspecs = [b for b in bspecs if b.name in args.only]

    print(f"[export] python {sys.version.split()[0]}, torch {torch.__version__},"
          f" executorch {version('executorch')}", flush=True)
    out_dir = Path(args.out).resolve()
    (out_dir / "reference").mkdir(parents=True, exist_ok=True)
    _, partitioner_cls = build_backend_and_partitioner()
    flatc = None if args.no_summary else shutil.which("flatc")
    schema = Path(args.schema)

    failures = []
    for spec in specs:
        print(f"[export] {spec.name}: {spec.what}", flush=True)
        try:
            result = export_one(spec, out_dir, partitioner_cls)
        except Exception as e:  # keep going; report at the end
            failures.append((spec.name, f"{type(e).__name__}: {e}"))
            print(f"  FAILED: {type(e).__name__}: {e}", flush=True)
            continue
        print(f"  wrote {result['pte'].relative_to(out_dir)} "
              f"({result['pte'].stat().st_size} bytes)", flush=True)
        if spec.cpu_only_methods and not args.no_runtime_check:
            for note in check_cpu_methods(spec, result):
                print(f"  {note}", flush=True)
        if flatc and schema.exists():
            try:
                for line in summarize(result["pte"], schema, flatc):
                    print(line, flush=True)
            except Exception as e:
                print(f"  flatc summary failed: {type(e).__name__}: {e}",
                      flush=True)
    schema_dir = bundled_schema_dir()
    for bspec in bspecs:
        print(f"[export] {bspec.name}: {bspec.what}", flush=True)
        try:
            result = export_bundled(bspec, out_dir, partitioner_cls)
            print(f"  wrote {result['bpte'].relative_to(out_dir)} "
                  f"({result['bpte'].stat().st_size} bytes, program "
                  f"{len(result['program'])} bytes)", flush=True)
            if not args.no_runtime_check:
                for note in check_bundled(bspec, result, out_dir):
                    print(f"  {note}", flush=True)
        except Exception as e:  # keep going; report at the end
            failures.append((bspec.name, f"{type(e).__name__}: {e}"))
            print(f"  FAILED: {type(e).__name__}: {e}", flush=True)
            continue
        if flatc and schema_dir is not None:
            try:
                for line in summarize_bundled(result["bpte"], schema_dir,
                                              flatc, schema):
                    print(line, flush=True)
            except Exception as e:
                print(f"  flatc summary failed: {type(e).__name__}: {e}",
                      flush=True)
    if failures:
        print("[export] failed:", flush=True)
        for name, why in failures:
            print(f"  {name}: {why}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
