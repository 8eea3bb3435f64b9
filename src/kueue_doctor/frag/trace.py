"""Read the Alibaba openb node and pod CSVs (the FGD paper's trace) into shapes.

Rules follow the simulator's own CSV-to-YAML step: every row is a pod whatever its phase or
QoS, times are ignored, per-GPU milli is clipped to one GPU, and a zero CPU request counts as
100m (Kubernetes' "non-zero" request).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass

from ..errors import InputError
from .shapes import GPU_MILLI, NodeShape, PodShape, parse_models

NODE_COLUMNS = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
POD_COLUMNS = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")
DEFAULT_CPU_MILLI = 100  # what the scheduler assumes for a pod that requests no CPU


@dataclass(frozen=True)
class TracePod:
    name: str
    shape: PodShape


def _rows(path: str, required: tuple[str, ...], what: str):
    """(line number, name, row) for each data row; the name (first column) must be set."""
    try:
        f = open(path, newline="", encoding="utf-8")  # noqa: SIM115 - closed by `with f` below; only open() errors are input errors
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", file=path) from None
    with f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        missing = [c for c in required if c not in header]
        if missing:
            raise InputError(f"missing column(s) {', '.join(missing)}", file=path)
        for line, row in enumerate(reader, start=2):
            name = (row.get(required[0]) or "").strip()
            if not name:
                raise InputError(f"empty {what} name", file=f"{path}:{line}", field=required[0])
            yield line, name, row


def _named_sorted(items: list, path: str, what: str) -> list:
    if not items:
        raise InputError(f"no {what}s", file=path)
    items.sort(key=lambda x: x.name)
    return items


def _int(path: str, line: int, row: dict, column: str, *, minimum: int = 0) -> int:
    text = (row.get(column) or "").strip()
    try:
        value = int(float(text)) if text else 0
    except ValueError:
        raise InputError(f"not a number: {text!r}", file=f"{path}:{line}", field=column) from None
    if value < minimum:
        raise InputError(f"must be >= {minimum}: {value}", file=f"{path}:{line}", field=column)
    return value


def read_nodes(path: str) -> list[NodeShape]:
    """GPU nodes of an openb node list, sorted by name as the simulator sorts them."""
    nodes = []
    for line, name, row in _rows(path, NODE_COLUMNS, "node"):
        gpus = _int(path, line, row, "gpu")
        model = (row.get("model") or "").strip()
        nodes.append(NodeShape(name=name, cpu_free=_int(path, line, row, "cpu_milli"),
                               mem_free=_int(path, line, row, "memory_mib"),
                               gpu_free=(GPU_MILLI,) * gpus, model=model,
                               labels=(("gpu-card-model", model),) if model else ()))
    return _named_sorted(nodes, path, "node")


def read_pods(path: str) -> list[TracePod]:
    """Every row of an openb pod list, sorted by name (string order)."""
    pods = []
    for line, name, row in _rows(path, POD_COLUMNS, "pod"):
        cpu = _int(path, line, row, "cpu_milli") or DEFAULT_CPU_MILLI
        gpus = _int(path, line, row, "num_gpu")
        milli = _int(path, line, row, "gpu_milli")
        milli = 0 if gpus == 0 else min(milli, GPU_MILLI)
        models = parse_models(row.get("gpu_spec") or "") if gpus else frozenset()
        pods.append(TracePod(name, PodShape(cpu=cpu, mem=_int(path, line, row, "memory_mib"),
                                            gpus=gpus if milli else 0, gpu_milli=milli,
                                            models=models)))
    return _named_sorted(pods, path, "pod")
