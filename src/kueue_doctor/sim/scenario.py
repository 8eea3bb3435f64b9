"""Simulation scenarios: the cluster, its nodes, the work that arrives, faults, Kueue's release.

Format: docs/simulator.md. A scenario is a YAML mapping with ``kind: Simulation``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..api.fields import Fields, to_quantity
from ..api.load import decode_documents, load_documents, read_text
from ..api.objects import AdmissionFairSharingConfig, TopologyRequest
from ..api.parse import parse_admission_fair_sharing, parse_topology_request
from ..api.state import ClusterState
from ..duration import duration
from ..errors import InputError
from ..keys import WorkloadKey
from ..kueue.podsready import check_block

JOB, POD_GROUP = "Job", "PodGroup"

# Why a workload's pods never become ready (``readiness``): what kubelet or the scheduler reports.
READY = "Ready"
IMAGE_PULL_BACKOFF, ERR_IMAGE_PULL = "ImagePullBackOff", "ErrImagePull"     # bound, container waiting
CRASH_LOOP_BACKOFF = "CrashLoopBackOff"                                     # running, never Ready
UNSCHEDULABLE = "Unschedulable"                                             # never bound
READINESS = (READY, IMAGE_PULL_BACKOFF, ERR_IMAGE_PULL, CRASH_LOOP_BACKOFF, UNSCHEDULABLE)

# scripted admission-check outcomes
PROVISIONING_OUTCOMES = ("Provisioned", "Failed", "BookingExpired", "CapacityRevoked", "Accepted")
CHECK_OUTCOMES = ("Ready", "Retry", "Rejected", "Pending")


@dataclass
class NodeSpec:
    name: str
    allocatable: dict[str, Any]
    labels: dict[str, str] = field(default_factory=dict)


@dataclass
class WorkloadSpec:
    """One workload to create at ``at`` seconds."""
    at: float
    namespace: str
    name: str
    queue: str
    requests: dict[str, Any]      # per pod
    pods: int = 1
    priority: int = 0
    runtime: float = 3600.0
    kind: str = JOB
    grace: float = 30.0           # terminationGracePeriodSeconds
    klass: str = "default"
    synthetic: str = ""           # which parts of a traced workload were made up, if any
    # spec.preemptionGates: (name, seconds after arrival the gate opens, or None: never)
    preemption_gates: list[tuple[str, float | None]] = field(default_factory=list)
    readiness: str = READY        # READINESS: why the pods never become ready, if they do not
    ready_after: float = 0.0      # placed -> pods Ready (image pull, start-up)
    fail_after: float | None = None   # running this long, one pod fails; its replacement is ``recovery``
    recovery: str = READY
    # the pod set's topologyRequest as written (v1beta2 field names), and as the engine reads it
    topology: dict[str, Any] | None = None
    topology_request: TopologyRequest | None = None


@dataclass
class CheckOutcome:
    after: float                  # since the check went Pending (quota reserved)
    outcome: str                  # a ProvisioningRequest condition, or a check state
    message: str = ""


@dataclass
class CheckScript:
    """What an AdmissionCheck answers, attempt after attempt (the last outcome repeats)."""
    name: str
    outcomes: list[CheckOutcome]
    provisioning: bool = True     # a ProvisioningRequest check (outcomes are the request's conditions)
    booking_expires_after: float | None = None   # after Provisioned, BookingExpired unless admitted


# faults that hit one workload, and the ones that hit a node
WORKLOAD_FAULTS = ("zombie", "quotaHeldAfterEviction", "requeueStorm")
NODE_FAULTS = ("nodeNotReady", "nodeReady")
STORM_RATE = 10.0    # attempts a second: 4 lines naming the head each, #8064's ~40 lines a second


@dataclass
class Fault:
    at: float
    kind: str                     # WORKLOAD_FAULTS | NODE_FAULTS (docs/simulator.md, "Faults")
    node: str = ""                # what a node fault hits
    workload: WorkloadKey | None = None   # what a workload fault hits
    rate: float = 0.0             # requeueStorm: attempts a second

    @property
    def target(self) -> WorkloadKey | str:
        return self.workload if self.workload is not None else self.node


@dataclass
class Settings:
    cycle_cost: float = 0.005      # seconds of controller time per cycle
    per_head_cost: float = 0.0002  # per head considered in a cycle
    admission_cost: float = 0.0    # per admission (status patches), seconds
    release_latency: float = 1.0   # quota reserved -> gate removed / job unsuspended
    quota_release_latency: float = 1.0   # pods inactive -> reservation cleared by the job reconciler
    placement: str = "LeastAllocated"
    sample_interval: float = 30.0
    min_wait: float = 300.0
    duration: float | None = None
    api_writes: tuple[float, float, float] | None = None   # sim/perf.py ApiWrites; perf configs only


@dataclass
class Scenario:
    name: str
    state: ClusterState
    nodes: list[NodeSpec] = field(default_factory=list)
    workloads: list[WorkloadSpec] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    version: str | None = None
    gates: dict[str, bool] = field(default_factory=dict)
    fair_sharing: dict | None = None
    # kueue.admissionFairSharing (or the objects' kueue-manager-config ConfigMap): engine/afs.py
    admission_fair_sharing: AdmissionFairSharingConfig | None = None
    settings: Settings = field(default_factory=Settings)
    seed: int = 0
    source: str = ""
    notes: list[str] = field(default_factory=list)
    demo: dict = field(default_factory=dict)   # {cause, fixed: {version, featureGates}, focus: [cq]}
    wait_for_pods_ready: dict | None = None    # kueue.waitForPodsReady, the Configuration's block
    checks: dict[str, CheckScript] = field(default_factory=dict)


def _settings(f: Fields) -> Settings:
    s = Settings()
    for key, attr in (("cycleCost", "cycle_cost"), ("perHeadCost", "per_head_cost"),
                      ("admissionCost", "admission_cost"), ("releaseLatency", "release_latency"),
                      ("quotaReleaseLatency", "quota_release_latency"), ("sampleInterval", "sample_interval"),
                      ("minWait", "min_wait"), ("duration", "duration")):
        if f.has(key):
            setattr(s, attr, duration(f.data[key], f.where(key)))
    s.placement = f.str("placement", s.placement, choices=("LeastAllocated", "MostAllocated"))
    return s


def _preemption_gates(f: Fields) -> list[tuple[str, float | None]]:
    out: list[tuple[str, float | None]] = []
    for i, g in enumerate(f.list("preemptionGates")):
        where = f"{f.where('preemptionGates')}[{i}]"
        if isinstance(g, str) and g:
            out.append((g, None))
        elif isinstance(g, dict):
            gf = Fields(g, where)
            after = gf.data.get("openAfter")
            out.append((gf.str("name", required=True), duration(after, gf.where("openAfter"))
                        if after is not None else None))
        else:
            raise InputError("must be a gate name or {name, openAfter}", field=where)
    return out


def _workload_spec(f: Fields, at: float, name: str) -> WorkloadSpec:
    reqs = f.obj("requests", required=True)
    for k, v in reqs.data.items():
        to_quantity(v, reqs.where(str(k)))
    return WorkloadSpec(
        at=at, namespace=f.str("namespace", "default"), name=name, queue=f.str("queue", required=True),
        requests=dict(reqs.data), pods=f.int("pods", 1, minimum=1), priority=f.int("priority", 0),
        runtime=duration(f.data.get("runtime", 3600), f.where("runtime")),
        kind=f.str("kind", JOB, choices=(JOB, POD_GROUP)),
        grace=duration(f.data.get("terminationGracePeriod", 30), f.where("terminationGracePeriod")),
        klass=f.str("class", "default"),
        preemption_gates=_preemption_gates(f),
        readiness=f.str("readiness", READY, choices=READINESS),
        ready_after=duration(f.data.get("readyAfter", 0), f.where("readyAfter")),
        fail_after=duration(f.data["failAfter"], f.where("failAfter")) if f.has("failAfter") else None,
        recovery=f.str("recovery", READY, choices=READINESS),
        **topology_request_of(f))


TOPOLOGY_KEYS = ("required", "preferred", "unconstrained", "podSetSliceRequiredTopology", "podSetSliceSize")


def topology_request_of(f: Fields) -> dict[str, Any]:
    """``topology: {required | preferred: LEVEL, unconstrained: true, podSetSliceRequiredTopology,
    podSetSliceSize}``: the pod set's topologyRequest (written to the Workload and, as Kueue's job
    integrations read it, to the pod template's annotations)."""
    if not f.has("topology"):
        return {}
    t = f.obj("topology")
    unknown = sorted(set(t.data) - set(TOPOLOGY_KEYS))
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r} (one of {', '.join(TOPOLOGY_KEYS)})", field=t.where(unknown[0]))
    modes = [k for k in ("required", "preferred", "unconstrained") if t.has(k)]
    if len(modes) != 1:
        raise InputError("must set exactly one of required, preferred, unconstrained", field=f.where("topology"))
    req = parse_topology_request(t)
    return {"topology": dict(t.data), "topology_request": req}


_DEFAULT_MESSAGES = {
    "Provisioned": "Provisioning Request was successfully provisioned.",
    "Failed": "Couldn't provision: out of resources in the zone (GCE_STOCKOUT)",
    "BookingExpired": "Capacity booking for the Provisioning Request has expired and the nodes are now "
                      "candidates for scale down when underutilized.",
    "CapacityRevoked": "Capacity was revoked: the nodes of the Provisioning Request were removed",
    "Accepted": "Provisioning Request was accepted and waits for capacity",
}


def _check_script(f: Fields) -> CheckScript:
    provisioning = f.str("controller", "provisioning", choices=("provisioning", "scripted")) == "provisioning"
    choices = PROVISIONING_OUTCOMES if provisioning else CHECK_OUTCOMES
    outcomes = []
    for o_ in f.objs("outcomes", required=True):
        outcome = o_.str("outcome", required=True, choices=choices)
        outcomes.append(CheckOutcome(duration(o_.data.get("after", 60), o_.where("after")), outcome,
                                     o_.str("message", _DEFAULT_MESSAGES.get(outcome, "") if provisioning else "")))
    if not outcomes:
        raise InputError("must list at least one outcome", field=f.where("outcomes"))
    booking = f.data.get("bookingExpiresAfter")
    return CheckScript(f.str("name", required=True), outcomes, provisioning,
                       duration(booking, f.where("bookingExpiresAfter")) if booking is not None else None)


def _storm_rate(x: Fields) -> float:
    """``rate: 10/s`` (or a plain number): the head's attempts a second."""
    raw = x.data.get("rate", STORM_RATE)
    text = str(raw).removesuffix("/s").strip()
    try:
        rate = float(text)
    except ValueError:
        rate = 0.0
    if isinstance(raw, bool) or not 0 < rate <= 1000:
        raise InputError(f"must be attempts a second between 0 and 1000, like 10/s (got {raw!r})",
                         field=x.where("rate"))
    return rate


def parse_scenario(doc: dict, file: str) -> Scenario:
    try:
        f = Fields(doc)
        objects = f.list("objects")
        state = load_documents(objects, file)
        k = f.obj("kueue")
        settings = _settings(f.obj("scheduler"))
        if f.has("duration"):
            settings.duration = duration(f.data["duration"], "duration")
        scn = Scenario(name=f.str("name", Path(file).stem), state=state, version=k.str("version") or None,
                       gates={str(g): bool(v) for g, v in k.obj("featureGates").data.items()},
                       fair_sharing=k.data.get("fairSharing") if k.has("fairSharing") else None,
                       settings=settings, seed=f.int("seed", 0), source=file,
                       demo=dict(f.obj("demo").data))
        if isinstance(k.data.get("admissionFairSharing"), dict):
            scn.admission_fair_sharing = parse_admission_fair_sharing(k.obj("admissionFairSharing"))
        elif state.configuration is not None:
            scn.admission_fair_sharing = state.configuration.admission_fair_sharing
        if k.has("waitForPodsReady"):
            block = k.data["waitForPodsReady"]
            if not isinstance(block, dict):
                raise InputError("must be an object (the Configuration's waitForPodsReady)",
                                 field="kueue.waitForPodsReady")
            try:
                check_block(block)
            except ValueError as e:
                where, _, problem = str(e).partition(": ")
                raise InputError(problem, field=f"kueue.{where}") from None
            scn.wait_for_pods_ready = dict(block)
        for c in f.objs("admissionChecks"):
            script = _check_script(c)
            scn.checks[script.name] = script
        for i, n in enumerate(f.objs("nodes")):
            alloc = n.obj("allocatable", required=True)
            for r, v in alloc.data.items():
                to_quantity(v, alloc.where(str(r)))
            count = n.int("count", None, minimum=0)
            labels = n.str_map("labels")
            if n.has("topology"):
                if count is not None:
                    raise InputError("give either count or topology (which sets the node count)",
                                     field=n.where("count"))
                scn.nodes += topology_nodes(n, n.str("namePrefix", f"node{i}-"), dict(alloc.data), labels)
            elif count is None:
                scn.nodes.append(NodeSpec(n.str("name", required=True), dict(alloc.data), labels))
            else:
                prefix = n.str("namePrefix", f"node{i}-")
                scn.nodes += [NodeSpec(f"{prefix}{j}", dict(alloc.data), dict(labels)) for j in range(count)]
        for w in f.objs("workloads"):
            scn.workloads.append(_workload_spec(w, duration(w.data.get("at", 0), w.where("at")),
                                                w.str("name", required=True)))
        for g in f.objs("generators"):
            start = duration(g.data.get("start", 0), g.where("start"))
            every = duration(g.data.get("every", 60), g.where("every"))
            prefix = g.str("namePrefix", g.str("class", "wl"))
            for j in range(g.int("count", 1, minimum=0)):
                scn.workloads.append(_workload_spec(g, start + j * every, f"{prefix}-{j}"))
        for x in f.objs("faults"):
            kind = x.str("kind", required=True, choices=WORKLOAD_FAULTS + NODE_FAULTS)
            on_workload = kind in WORKLOAD_FAULTS
            where = x.where("workload" if on_workload else "node")
            target = x.str("workload") if on_workload else x.str("node")
            if not target:
                raise InputError("required field is missing", field=where)
            at = duration(x.data.get("at", 0), x.where("at"))
            if on_workload:
                try:
                    key = WorkloadKey.parse(target)
                except InputError as e:
                    raise InputError(e.problem, field=where) from None
                scn.faults.append(Fault(at, kind, workload=key, rate=_storm_rate(x) if kind == "requeueStorm" else 0.0))
            else:
                scn.faults.append(Fault(at, kind, node=target))
        for t in f.objs("traces"):
            # a trace may also add the queues and nodes it implies to ``scn`` (clusterQueues/nodes: generate)
            from .traces import load_trace
            scn.workloads += load_trace(t, Path(file).parent, scn)
        return scn
    except InputError as e:
        raise e.located(file=file) from None


HOSTNAME = "kubernetes.io/hostname"


def _short(label: str) -> str:
    """``cloud.example.com/topology-rack`` -> ``rack``: the part of a level's label in its values."""
    tail = label.rsplit("/", 1)[-1]
    return tail.removeprefix("topology-") or tail


def topology_nodes(n: Fields, prefix: str, alloc: dict[str, Any], labels: dict[str, str]) -> list[NodeSpec]:
    """A node group laid out in a topology: ``topology: {LEVEL_LABEL: COUNT, ...,
    kubernetes.io/hostname: NODES}``, highest level first, each count per domain of the level
    above, the hostname entry last (nodes per lowest domain). Values read ``block0``,
    ``block0-rack1``; nodes ``<namePrefix><lowest value>-<j>``."""
    t = n.obj("topology")
    items = list(t.data.items())
    if not items or items[-1][0] != HOSTNAME:
        raise InputError(f"the last entry must be {HOSTNAME}: NODES (nodes per lowest domain)",
                         field=n.where("topology"))
    counts = []
    for key, v in items:
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise InputError("must be a positive integer", field=t.where(str(key)))
        counts.append(v)
    levels = [str(k) for k, _ in items[:-1]]
    domains: list[list[str]] = [[]]
    for label, c in zip(levels, counts[:-1], strict=True):
        domains = [[*vals, f"{vals[-1] + '-' if vals else ''}{_short(label)}{j}"] for vals in domains for j in range(c)]
    out = []
    for vals in domains:
        base = vals[-1] if vals else "n"
        for j in range(counts[-1]):
            out.append(NodeSpec(f"{prefix}{base}-{j}", dict(alloc), {**labels, **dict(zip(levels, vals, strict=True))}))
    return out


def is_simulation(doc: Any) -> bool:
    return isinstance(doc, dict) and doc.get("kind") == "Simulation"


def is_perf_generator(doc: Any) -> bool:
    return isinstance(doc, dict) and "kind" not in doc and isinstance(doc.get("cohorts"), list)


def load_scenario(path: str) -> Scenario:
    """A scenario file or Kueue's performance-test generator config, told apart by content."""
    docs = decode_documents(read_text(Path(path)), path)
    if len(docs) != 1:
        raise InputError("expected one YAML document (a kind: Simulation scenario or a perf generator config)",
                         file=path)
    doc = docs[0]
    if is_simulation(doc):
        return parse_scenario(doc, path)
    if is_perf_generator(doc):
        from .perf import scenario_from_generator
        return scenario_from_generator(doc, path)
    raise InputError("not a simulation scenario (kind: Simulation) nor a Kueue performance-test generator config",
                     file=path)


def load_with(path: str, version: str | None = None, gates: dict[str, bool] | None = None) -> Scenario:
    """A scenario file with its Kueue release and feature gates overridden (simulate --kueue-version, --gate)."""
    scn = load_scenario(path)
    if version:
        scn.version = version
    if gates:
        scn.gates.update(gates)
    return scn
