"""Real traces as workload arrivals (Philly per-tenant jobs, Alibaba openb pods).

A ``traces:`` entry of a scenario reads one trace and returns its workloads; when asked
(``clusterQueues: generate``, ``nodes: generate``) it also adds the ClusterQueues, LocalQueues,
Cohort, ResourceFlavor and nodes the trace implies to the scenario being built. Whatever the
trace does not record (a tenant split, a quota, a runtime in seconds) is made up here, and
each workload says so in ``WorkloadSpec.synthetic``; the scenario's ``notes`` say it once.
Mappings and their reasons: docs/simulator.md, "Traces".
"""
from __future__ import annotations

import csv
import json
import math
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from ..api import build
from ..api.fields import Fields
from ..duration import duration
from ..errors import InputError
from ..frag.trace import node_rows, pod_rows
from ..samples import existing, resolve
from .scenario import JOB, POD_GROUP, NodeSpec, Scenario, WorkloadSpec, topology_request_of

KINDS = ("philly", "openb")
GPU = "nvidia.com/gpu"
GPU_MILLI = "kueue-doctor.io/gpu-milli"   # made-up extended resource for the gpuShare: milli mode
PHILLY_GPUS_PER_NODE = 8                  # Philly's nodes are not described per VC: assumed 8 GPUs each
PHILLY_TINY_NODES = 1                     # VCs missing from philly_vc.csv (3-18 jobs each) get one node
OPENB_TENANTS = 4


@dataclass
class TraceJob:
    """One trace record on the trace's own clock, before slicing."""
    at: float
    runtime: float
    tenant: str
    name: str
    requests: dict[str, str]
    pods: int = 1
    kind: str = JOB
    klass: str = "default"
    synthetic: list[str] = field(default_factory=list)


@dataclass
class Trace:
    jobs: list[TraceJob]
    quotas: dict[str, dict[str, str]]      # tenant -> resource -> nominal quota (generated queues)
    flavor: str
    flavor_labels: dict[str, str]
    nodes: list[NodeSpec]
    notes: list[str]


# -- entry point ---------------------------------------------------------------------------
def load_trace(f: Fields, base: Path, scn: Scenario) -> list[WorkloadSpec]:
    kind = f.str("kind", required=True, choices=KINDS)
    path = _path(f, "path", base, required=True)
    gen_queues = f.str("clusterQueues", "none", choices=("generate", "none")) == "generate"
    gen_nodes = f.str("nodes", "none", choices=("generate", "none")) == "generate"
    trace = _philly(f, path, base) if kind == "philly" else _openb(f, path, base)
    jobs = _slice(trace.jobs, f)
    scale = _positive(f, "timeScale", 1.0)
    prefix = f.str("namePrefix", "")
    queue = f.str("queue", "main")
    tenants = sorted(trace.quotas)
    if gen_queues:
        _add_queues(f, scn, trace, prefix, queue)
    if gen_nodes:
        _add_nodes(f, scn, trace.nodes)
    where = f"{kind} trace {f.data['path']}"
    scn.notes.append(f"{where}: {len(jobs)} workloads, {len(tenants)} tenants; " + "; ".join(trace.notes))
    if scale != 1.0:
        scn.notes.append(f"{where}: arrival times and runtimes multiplied by timeScale {scale:g}")
    topology = topology_request_of(f)       # for the jobs of at least topologyMinPods pods
    min_pods = f.int("topologyMinPods", 1, minimum=1)
    out = []
    for j in jobs:
        synthetic = list(j.synthetic)
        if scale != 1.0:
            synthetic.append(f"times scaled by {scale:g}")
        out.append(WorkloadSpec(at=j.at * scale, namespace=prefix + j.tenant, name=j.name, queue=queue,
                                requests=dict(j.requests), pods=j.pods, runtime=j.runtime * scale, kind=j.kind,
                                klass=j.klass, synthetic="; ".join(synthetic),
                                **(topology if j.pods >= min_pods else {})))
    return out


def _path(f: Fields, key: str, base: Path, required: bool = False, default: Path | None = None) -> Path:
    """A path named in the scenario: ``builtin:NAME`` (a sample shipped in the package) or relative
    to the scenario file; it must exist (``samples.resolve``, shared with ``frag --nodes/--pods``)."""
    text = f.str(key, required=required)
    if text:
        return resolve(text, base, field=f.where(key))
    if default is None:
        raise InputError("required field is missing", field=f.where(key))
    return existing(default, field=f.where(key))


def _positive(f: Fields, key: str, default: float) -> float:
    v = f.data.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
        raise InputError(f"must be a number > 0, got {v!r}", field=f.where(key))
    return float(v)


def _slice(jobs: list[TraceJob], f: Fields) -> list[TraceJob]:
    """Jobs arriving from ``start`` on (``limit`` of them), moved so that ``start`` is time 0.

    With ``carryOver`` (default) a job that arrived before ``start`` and still runs then
    arrives at 0 for what is left of its runtime, so a slice does not begin on an empty cluster."""
    start = duration(f.data.get("start", 0), f.where("start"))
    limit = f.int("limit", None, minimum=0)
    carry = f.bool("carryOver", True)
    jobs = sorted(jobs, key=lambda j: (j.at, j.tenant, j.name))
    out, carried, taken = [], [], 0
    for j in jobs:
        if j.at < start:
            if carry and start > 0 and j.at + j.runtime > start:
                carried.append(TraceJob(0.0, j.at + j.runtime - start, j.tenant, j.name, j.requests, j.pods,
                                        j.kind, j.klass, [*j.synthetic, "arrived before the slice: runs the rest "
                                                                         "of its runtime from time 0"]))
            continue
        if limit is not None and taken >= limit:
            break
        j.at -= start
        out.append(j)
        taken += 1
    return carried + out


def _add_queues(f: Fields, scn: Scenario, trace: Trace, prefix: str, queue: str) -> None:
    """One ClusterQueue per tenant (namespace = ClusterQueue name, one LocalQueue), one cohort."""
    cohort = f.str("cohort", f"{prefix}{f.data['kind']}")
    flavor = prefix + trace.flavor
    st = scn.state
    reclaim = f.str("reclaimWithinCohort", "Any", choices=("Never", "LowerPriority", "Any"))
    names = [prefix + t for t in sorted(trace.quotas)]
    for kind, taken in (("ClusterQueue", [n for n in names if n in st.cluster_queues]),
                        ("ResourceFlavor", [flavor] if flavor in st.resource_flavors else []),
                        ("Cohort", [cohort] if cohort in st.cohorts else [])):
        if taken:
            raise InputError(f"would generate {kind} {taken[0]}, which the scenario already defines "
                             "(set namePrefix)", field=f.where("clusterQueues"))
    st.add(build.flavor(flavor, trace.flavor_labels))
    st.add(build.cohort(cohort))
    for tenant, quota in sorted(trace.quotas.items()):
        name = prefix + tenant
        st.add(build.cluster_queue(name, {flavor: dict(quota)}, cohort=cohort, reclaim=reclaim))
        st.add(build.local_queue(name, queue, name))


def _add_nodes(f: Fields, scn: Scenario, nodes: list[NodeSpec]) -> None:
    have = {n.name for n in scn.nodes}
    clash = next((n.name for n in nodes if n.name in have), None)
    if clash:
        raise InputError(f"would generate node {clash}, which the scenario already defines", field=f.where("nodes"))
    scn.nodes += nodes


def _open(path: Path, where: str):
    try:
        return open(path, newline="", encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}", field=where) from None


# -- Philly (Gavel's per-virtual-cluster job traces) -----------------------------------------
def _philly(f: Fields, path: Path, base: Path) -> Trace:
    folder = path if path.is_dir() else path.parent
    files = sorted(path.glob("*.trace")) if path.is_dir() else [path]
    only = set(f.strs("virtualClusters"))
    if only:
        files = [p for p in files if p.stem in only]
        missing = only - {p.stem for p in files}
        if missing:
            raise InputError(f"no trace for virtual cluster(s) {', '.join(sorted(missing))} in {path}",
                             field=f.where("virtualClusters"))
    if not files:
        raise InputError(f"no *.trace files in {path}", field=f.where("path"))
    throughputs = _gavel_throughputs(
        _path(f, "throughputs", base, default=folder / "gavel_simulation_throughputs.json"), f.where("throughputs"))
    vc_nodes = _philly_vc_nodes(_path(f, "virtualClusterNodes", base, default=folder / "philly_vc.csv"),
                                f.where("virtualClusterNodes"))
    tiny = f.int("tinyClusterNodes", PHILLY_TINY_NODES, minimum=0)
    # Gavel's runtimes leave Philly's full node counts mostly idle: a smaller cluster makes tenants meet
    capacity = _positive(f, "capacityScale", 1.0)
    jobs: list[TraceJob] = []
    quotas: dict[str, dict[str, str]] = {}
    nodes: list[NodeSpec] = []
    extrapolated = 0
    for p in files:
        vc = p.stem
        tenant = f"vc-{vc}"
        n_nodes = vc_nodes.get(vc, tiny)
        if capacity != 1.0:
            n_nodes = max(1, round(n_nodes * capacity))
        quotas[tenant] = {GPU: str(n_nodes * PHILLY_GPUS_PER_NODE)}
        nodes += [NodeSpec(f"philly-{vc}-{i}", {GPU: PHILLY_GPUS_PER_NODE}, {"gpu.nvidia.com/class": "v100"})
                  for i in range(n_nodes)]
        for line, row in _philly_rows(p, f.where("path")):
            job_type, steps, arrival, gpus = row
            tput, how = _throughput(throughputs, job_type, gpus, f"{p}:{line}")
            extrapolated += bool(how)
            synthetic = [f"runtime = total_steps / Gavel V100 throughput{how}"]
            if vc not in vc_nodes:
                synthetic.append(f"quota of a tiny virtual cluster: {n_nodes} node(s)")
            if capacity != 1.0:
                synthetic.append(f"quota scaled by {capacity:g}")
            pods, per_pod = 1, gpus
            if gpus > PHILLY_GPUS_PER_NODE:
                pods = math.ceil(gpus / PHILLY_GPUS_PER_NODE)
                per_pod = PHILLY_GPUS_PER_NODE
                if gpus % PHILLY_GPUS_PER_NODE:
                    synthetic.append(f"{gpus} GPUs rounded up to {pods} pods of 8")
            klass = "1-gpu" if gpus == 1 else ("multi-gpu" if pods == 1 else "gang")
            jobs.append(TraceJob(arrival, steps / tput, tenant, f"job-{line:05d}", {GPU: str(per_pod)}, pods,
                                 POD_GROUP if pods > 1 else JOB, klass, synthetic))
    notes = ["Philly: runtime = total_steps / Gavel's V100 throughput (not recorded in seconds)",
             f"nominal quota = nodes per VC (philly_vc.csv) x {PHILLY_GPUS_PER_NODE} GPUs (assumed)",
             f"VCs not in philly_vc.csv get {tiny} node(s)"]
    if capacity != 1.0:
        notes.append(f"node counts multiplied by capacityScale {capacity:g}")
    if extrapolated:
        notes.append(f"throughput of {extrapolated} of the files' {len(jobs)} jobs extrapolated linearly "
                     "from a smaller scale factor")
    return Trace(jobs, quotas, "v100", {"gpu.nvidia.com/class": "v100"}, nodes, notes)


def _philly_rows(p: Path, where: str):
    """(line, (job_type, total_steps, arrival_seconds, gpus)) per tab-separated 7-field line."""
    with _open(p, where) as fh:
        for line, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            cols = text.rstrip("\r\n").split("\t")
            if len(cols) != 7:
                raise InputError(f"expected 7 tab-separated fields, got {len(cols)}", file=f"{p}:{line}")
            try:
                steps, arrival, gpus = int(cols[4]), float(cols[5]), int(cols[6])
            except ValueError:
                raise InputError("total_steps, arrival_time and scale_factor must be numbers",
                                 file=f"{p}:{line}") from None
            if steps < 0 or arrival < 0 or gpus < 1:
                raise InputError("total_steps and arrival_time must be >= 0, scale_factor >= 1",
                                 file=f"{p}:{line}")
            yield line, (cols[0], steps, arrival, gpus)


def _gavel_throughputs(p: Path, where: str) -> dict[str, dict[int, float]]:
    """job type -> scale factor -> steps per second on V100 (the ``null`` co-location entry)."""
    try:
        with _open(p, where) as fh:
            v100 = json.load(fh)["v100"]
    except (json.JSONDecodeError, KeyError, TypeError):
        raise InputError(f"{p}: not Gavel's throughput file (no 'v100' table)", field=where) from None
    out: dict[str, dict[int, float]] = {}
    for key, entry in v100.items():
        # keys are Python tuple reprs: "('ResNet-18 (batch size 64)', 4)"
        head, _, scale = key.strip("()").rpartition(", ")
        try:
            out.setdefault(head.strip("'\""), {})[int(scale)] = float(entry["null"])
        except (ValueError, KeyError, TypeError):
            raise InputError(f"{p}: unreadable entry {key!r}", field=where) from None
    return out


def _throughput(table: dict[str, dict[int, float]], job_type: str, gpus: int, where: str) -> tuple[float, str]:
    """Steps per second for ``gpus`` GPUs, and how it was found when Gavel has no figure.

    Gavel measured 1, 2, 4 and 8 GPUs for some job types only; the trace asks for up to 64.
    Then the largest measured scale below is scaled linearly (ideal data-parallel speed-up),
    which shortens big jobs' runtimes; Gavel's figures grow roughly linearly up to 8."""
    by_scale = table.get(job_type)
    if not by_scale:
        raise InputError(f"job type {job_type!r} has no throughput in Gavel's table", file=where)
    if gpus in by_scale and by_scale[gpus] > 0:
        return by_scale[gpus], ""
    smaller = [s for s in by_scale if s < gpus and by_scale[s] > 0]
    if not smaller:
        raise InputError(f"job type {job_type!r} has no usable throughput for {gpus} GPUs", file=where)
    s = max(smaller)
    return by_scale[s] * gpus / s, f" (extrapolated linearly from {s} GPU(s))"


def _philly_vc_nodes(p: Path, where: str) -> dict[str, int]:
    with _open(p, where) as fh:
        rows = list(csv.reader(fh))
    out = {}
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        try:
            out[row[0].strip()] = int(row[1])
        except (IndexError, ValueError):
            raise InputError("expected 'vc,node num' with a whole number of nodes", file=f"{p}:{line}") from None
    return out


# -- Alibaba openb (cluster-trace-gpu-v2023): read by frag.trace, the one openb reader --------
def _openb(f: Fields, path: Path, base: Path) -> Trace:
    if path.is_dir():
        raise InputError("an openb trace path names a pod list CSV (openb_pod_list_*.csv)", field=f.where("path"))
    n = f.int("tenants", OPENB_TENANTS, minimum=1)
    share = f.str("gpuShare", "whole", choices=("whole", "milli", "skip"))
    node_file = _path(f, "nodeList", base, default=path.parent / "openb_node_list_gpu_node.csv")
    gpu_res, per_gpu = (GPU_MILLI, 1000) if share == "milli" else (GPU, 1)
    # (name, cpu milli, memory MiB, GPUs, model), in file order
    rows = [(r.name, r.cpu_milli, r.memory_mib, r.gpus, r.model) for r in node_rows(node_file)]
    if not rows:
        raise InputError(f"no nodes in {node_file}", field=f.where("nodeList"))
    # with its real times openb keeps at most ~70 of 6,212 GPUs busy: a smaller cluster makes
    # tenants meet. Every k-th node is kept, so the GPU models keep their mix.
    capacity = _positive(f, "capacityScale", 1.0)
    if capacity < 1.0:
        keep = max(1, round(len(rows) * capacity))
        rows = [rows[i * len(rows) // keep] for i in range(keep)]
    nodes = [NodeSpec(name, {"cpu": f"{cpu}m", "memory": f"{mem}Mi", **({gpu_res: gpus * per_gpu} if gpus else {})},
                      {"gpu-card-model": model} if model else {})
             for name, cpu, mem, gpus, model in rows]
    jobs: list[TraceJob] = []
    skipped = never_scheduled = 0
    for pod in pod_rows(path, times=True):
        name, gpus, milli = pod.name, pod.num_gpu, pod.gpu_milli
        created, deleted, scheduled = pod.creation_time, pod.deletion_time, pod.scheduled_time
        if deleted is None:
            raise InputError("no deletion_time: the pod's runtime is unknown", file=pod.where, field="deletion_time")
        synthetic = [f"tenant = crc32(pod name) mod {n} (openb has no tenant column)"]
        if capacity < 1.0:
            synthetic.append(f"cluster shrunk by capacityScale {capacity:g}")
        requests: dict[str, str] = {"cpu": f"{pod.cpu_milli}m", "memory": f"{pod.memory_mib}Mi"}
        shared = gpus > 0 and 0 < milli < 1000
        if shared and share == "skip":
            skipped += 1
            continue
        if gpus and share == "milli":
            requests[GPU_MILLI] = str(milli if shared else gpus * 1000)
        elif gpus:
            requests[GPU] = str(gpus)
            if shared:
                synthetic.append(f"GPU share of {milli}/1000 requests one whole GPU")
        if scheduled is None:
            # never bound in the trace: it would have held its request until deleted
            never_scheduled += 1
            runtime = deleted - created
            synthetic.append("never scheduled in the trace: runtime = deletion - creation")
        else:
            runtime = deleted - max(scheduled, created)
        klass = "cpu-only" if not gpus else ("gpu-share" if shared else ("1-gpu" if gpus == 1 else "multi-gpu"))
        tenant = f"tenant-{zlib.crc32(name.encode()) % n}"
        jobs.append(TraceJob(float(created), float(max(runtime, 0)), tenant, name, requests, 1, JOB, klass, synthetic))
    quotas = {}
    cpu, mem, gpus = sum(r[1] for r in rows), sum(r[2] for r in rows), sum(r[3] for r in rows)
    for i in range(n):
        # an equal split of the cluster: the trace records no quotas
        quotas[f"tenant-{i}"] = {"cpu": f"{cpu // n}m", "memory": f"{mem // n}Mi", gpu_res: str(gpus * per_gpu // n)}
    notes = [f"openb: tenant = crc32(pod name) mod {n} and nominal quota = 1/{n} of the nodes (both synthetic)",
             "runtime = deletion_time - scheduled_time",
             {"whole": "GPU-share pods request one whole GPU",
              "milli": f"GPUs counted in {GPU_MILLI} (1000 per GPU, not per device)",
              "skip": f"{skipped} GPU-share pods skipped"}[share]]
    if capacity < 1.0:
        notes.append(f"{len(nodes)} nodes kept of the node list (capacityScale {capacity:g})")
    if never_scheduled:
        notes.append(f"{never_scheduled} pods never scheduled in the trace run for deletion - creation")
    return Trace(jobs, quotas, "openb", {}, nodes, notes)
