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
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

EXECUTORCH_VERSION = "1.5.1"
TORCH_VERSION = "2.15.0"  # the torch that ExecuTorch 1.5.1 was built against
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_VENV = REPO_ROOT / ".venv-export"
DEFAULT_OUT = REPO_ROOT / "fixtures" / "executorch" / "exporter"
DEFAULT_SCHEMA = REPO_ROOT / "runtime_ext" / "schema" / "program.fbs"
IN_VENV_MARKER = "DEVPLAN_EXPORT_IN_VENV"
BACKEND_ID = "DevplanDeviceBackend"


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

    class DevplanPartitioner(Partitioner):
        """Tags add/mul nodes, each as its own single-op partition.

        ``devices[k]`` is the target device ("cuda:0", "cuda:1", ...) of the
        k-th aten.add.Tensor/aten.mul.Tensor node in graph order; None (or an
        index past the end of the list) leaves that node on the CPU.
        """

        def __init__(self, devices: Sequence[Optional[str]]) -> None:
            super().__init__()
            self.devices = list(devices)

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
                tags[tag] = DelegationSpec(
                    BACKEND_ID,
                    [CompileSpec("target_device", device.encode("ascii"))])
            return PartitionResult(tagged_exported_program=exported_program,
                                   partition_tags=tags)

    return DevplanDeviceBackend, DevplanPartitioner


class Spec:
    """One program to export."""

    def __init__(self, name: str, what: str,
                 methods: Callable[[], Dict[str, Any]],
                 devices: Optional[Dict[str, Sequence[Optional[str]]]] = None,
                 config: Callable[[], Dict[str, Any]] = dict,
                 cpu_only_methods: Sequence[str] = ()) -> None:
        self.name = name
        self.what = what
        self.methods = methods          # -> {method: (module, example_inputs)}
        self.devices = devices or {}    # method -> device per add/mul node
        self.config = config            # -> ExecutorchBackendConfig kwargs
        self.cpu_only_methods = tuple(cpu_only_methods)


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

    def one_delegate():
        return {"forward": (Add(), (ones(2, 2), ones(2, 2)))}

    def cpu_around():
        return {"forward": (CpuAroundDevice(), (ones(2, 4), ones(2, 4)))}

    def add_then_mul():
        return {"forward": (AddThenMul(), (ones(2, 4), ones(2, 4), ones(2, 4)))}

    def two_methods():
        return {"forward": (Add(), (ones(2, 2), ones(2, 2))),
                "cpu_only": (TanhMul(), (ones(2, 2), ones(2, 2)))}

    def broadcast():
        return {"forward": (Add(), (ones(2, 3), ones(3)))}

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
        Spec("devplan_transformer",
             "nn.TransformerEncoderLayer(64, 4, batch_first=True), eval, "
             "seed 0, input [2,16,64], CPU only",
             transformer, {}, cpu_only_methods=["forward"]),
    ]


def _flat(t) -> List[float]:
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


def export_one(spec: Spec, out_dir: Path, partitioner_cls) -> Dict[str, Any]:
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge

    torch.manual_seed(0)
    methods = spec.methods()
    exported = {}
    reference: Dict[str, list] = {}
    for mname, (module, inputs) in methods.items():
        module.eval()
        with torch.no_grad():
            outputs = module(*inputs)
        reference[mname] = [{
            "inputs": [_flat(t) for t in inputs],
            "outputs": [_flat(t) for t in _leaves(outputs)],
        }]
        exported[mname] = torch.export.export(module, inputs, strict=True)

    edge = to_edge(exported)
    partitioners = {m: partitioner_cls(d) for m, d in spec.devices.items()
                    if any(x is not None for x in d)}
    if partitioners:
        edge = edge.to_backend(partitioners)
    et = edge.to_executorch(ExecutorchBackendConfig(**spec.config()))

    pte = out_dir / f"{spec.name}.pte"
    pte.write_bytes(et.buffer)
    ref = out_dir / "reference" / f"{spec.name}.ones.json"
    ref.write_text(json.dumps(reference) + "\n")
    return {"methods": methods, "reference": reference, "pte": pte}


def check_cpu_methods(spec: Spec, result: Dict[str, Any]) -> List[str]:
    """Run the delegate-free methods in ExecuTorch's runtime, compare."""
    import torch
    try:
        from executorch.runtime import Runtime
    except Exception as e:  # pragma: no cover - optional
        return [f"runtime check skipped ({e})"]
    notes = []
    program = Runtime.get().load_program(result["pte"])
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
    if args.list:
        for s in specs:
            print(f"{s.name}: {s.what}")
        return 0
    if args.only:
        unknown = set(args.only) - {s.name for s in specs}
        if unknown:
            sys.exit(f"unknown program(s): {sorted(unknown)}")
        specs = [s for s in specs if s.name in args.only]

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
    if failures:
        print("[export] failed:", flush=True)
        for name, why in failures:
            print(f"  {name}: {why}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
