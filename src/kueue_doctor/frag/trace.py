"""The one reader of the Alibaba openb node and pod CSVs (the FGD paper's trace).

``node_rows`` and ``pod_rows`` read the files as they are (file order, blank numbers as 0,
blank times as None, negative numbers refused); ``read_nodes`` and ``read_pods`` turn them into
fragmentation shapes, and the simulator's ``traces:`` entry (``sim/traces.py``) into nodes and
workloads. Shapes follow the FGD simulator's own CSV-to-YAML step: every row is a pod whatever
its phase or QoS, times are ignored, per-GPU milli is clipped to one GPU, and a zero CPU request
counts as 100m (Kubernetes' "non-zero" request).

Paths go through ``samples.resolve``, as a scenario's ``path:`` does: ``builtin:openb-nodes`` and
``builtin:openb-pods`` (and a missing openb file) say where to download the trace, which is not
shipped with kueue-doctor (no licence allows redistributing it).
"""
from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..engine.nodes import NodeTerms
from ..errors import InputError
from ..samples import resolve
from .shapes import GPU_MILLI, NodeShape, PodShape, parse_models

NODE_COLUMNS = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
POD_COLUMNS = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")
TIME_COLUMNS = ("creation_time", "deletion_time", "scheduled_time")
MODEL_LABEL = "gpu-card-model"
DEFAULT_CPU_MILLI = 100  # what the scheduler assumes for a pod that requests no CPU

PathLike = str | Path


@dataclass(frozen=True)
class NodeRow:
    """One row of an openb node list, as written."""
    name: str
    cpu_milli: int
    memory_mib: int
    gpus: int
    model: str
    where: str       # "FILE:LINE"


@dataclass(frozen=True)
class PodRow:
    """One row of an openb pod list, as written (times only when asked for)."""
    name: str
    cpu_milli: int
    memory_mib: int
    num_gpu: int
    gpu_milli: int
    gpu_spec: str
    where: str
    creation_time: int = 0
    deletion_time: int | None = None
    scheduled_time: int | None = None


@dataclass(frozen=True)
class TracePod:
    name: str
    shape: PodShape


def _rows(path: PathLike, required: tuple[str, ...], what: str) -> Iterator[tuple[str, str, dict]]:
    """(where, name, row) for each data row; the name (first column) must be set. ``path`` may
    name a packaged sample (``builtin:NAME``, ``samples.resolve``, as a scenario's ``path:``)."""
    path = str(resolve(str(path)))
    try:
        f = open(path, newline="", encoding="utf-8")  # noqa: SIM115 - only open() errors are InputErrors; `with f` closes it
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
            yield f"{path}:{line}", name, row


def _num(where: str, row: dict, column: str, empty: int | None = 0) -> int | None:
    text = (row.get(column) or "").strip()
    if not text:
        return empty
    try:
        value = int(float(text))
    except ValueError:
        raise InputError(f"not a number: {text!r}", file=where, field=column) from None
    if value < 0:
        raise InputError(f"must be >= 0: {value}", file=where, field=column)
    return value


def _int(where: str, row: dict, column: str) -> int:
    value = _num(where, row, column)
    assert value is not None
    return value


def node_rows(path: PathLike) -> list[NodeRow]:
    """Every row of an openb node list, in file order."""
    return [NodeRow(name, _int(where, row, "cpu_milli"), _int(where, row, "memory_mib"), _int(where, row, "gpu"),
                    (row.get("model") or "").strip(), where)
            for where, name, row in _rows(path, NODE_COLUMNS, "node")]


def pod_rows(path: PathLike, times: bool = False) -> list[PodRow]:
    """Every row of an openb pod list, in file order; with ``times`` the time columns are
    required and read (blank creation: 0; blank deletion or scheduling: None)."""
    out = []
    for where, name, row in _rows(path, POD_COLUMNS + (TIME_COLUMNS if times else ()), "pod"):
        pod = PodRow(name, _int(where, row, "cpu_milli"), _int(where, row, "memory_mib"), _int(where, row, "num_gpu"),
                     _int(where, row, "gpu_milli"), (row.get("gpu_spec") or "").strip(), where)
        if times:
            pod = PodRow(pod.name, pod.cpu_milli, pod.memory_mib, pod.num_gpu, pod.gpu_milli, pod.gpu_spec, where,
                         _int(where, row, "creation_time"), _num(where, row, "deletion_time", None),
                         _num(where, row, "scheduled_time", None))
        out.append(pod)
    return out


def _named_sorted(items: list, path: PathLike, what: str) -> list:
    if not items:
        raise InputError(f"no {what}s", file=str(path))
    items.sort(key=lambda x: x.name)
    return items


def read_nodes(path: PathLike) -> list[NodeShape]:
    """GPU nodes of an openb node list, sorted by name as the simulator sorts them."""
    nodes = [NodeShape(name=r.name, cpu_free=r.cpu_milli, mem_free=r.memory_mib, gpu_free=(GPU_MILLI,) * r.gpus,
                       model=r.model, terms=NodeTerms(labels={MODEL_LABEL: r.model} if r.model else {}))
             for r in node_rows(path)]
    return _named_sorted(nodes, path, "node")


def read_pods(path: PathLike) -> list[TracePod]:
    """Every row of an openb pod list, sorted by name (string order)."""
    pods = []
    for r in pod_rows(path):
        gpus = r.num_gpu
        milli = 0 if gpus == 0 else min(r.gpu_milli, GPU_MILLI)
        models = parse_models(r.gpu_spec) if gpus else frozenset()
        pods.append(TracePod(r.name, PodShape(cpu=r.cpu_milli or DEFAULT_CPU_MILLI, mem=r.memory_mib,
                                              gpus=gpus if milli else 0, gpu_milli=milli, models=models)))
    return _named_sorted(pods, path, "pod")
