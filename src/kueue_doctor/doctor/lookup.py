"""Find the Workload a user means by the name they know: a Workload's own name, or its Job's,
JobSet's, RayJob's, PyTorchJob's, pod group's or one of its Pods' names.

Pure: it reads a ``ClusterState`` and returns a ``WorkloadKey``, or raises an ``InputError``
with one line that says what was looked for, where, and what exists nearby.

The grammar of ``ref`` (kubectl's ``[KIND/]NAME`` with ``-n``, plus the legacy ``NS/NAME``)::

    NAME                 any kind: a Workload of that name first, else any object that owns one
    KIND/NAME            only that kind (``job/foo``, ``jobs.batch/foo``, ``PyTorchJob/foo``)
    NS/NAME              the legacy form: NAME (as above) in namespace NS
    KIND/NS/NAME         that kind in NS: what the error messages print, so it can be pasted back

A first word of two is a kind when it is one of ``KIND_WORDS`` (or a kind the snapshot's
ownerReferences name), else a namespace; a word that is both a kind and a namespace of the
snapshot is read as the namespace only when that namespace has a Workload NAME.

How an object leads to its Workload (Kueue's own links):

- a Workload's ``metadata.ownerReferences`` (kind and name; the pods of a pod group, the Job,
  JobSet, PyTorchJob... of the others); for a Job in the snapshot, its UID: the Workload's
  ownerReference UID or ``kueue.x-k8s.io/job-uid`` label, so that a Workload left from an older
  Job of the same name (kubernetes-sigs/kueue#1789) is not taken for the current Job's;
- a pod group (``kueue.x-k8s.io/pod-group-name`` on pods or Workloads): the Workload of the
  group's name, the Workloads labelled with it, and those its pods name;
- a Pod: its ``kueue.x-k8s.io/workload`` annotation, a Workload whose ownerReferences name it (a
  pod group's or a single pod's), its pod group, else its owners' Workloads up the ownerReferences (Pod -> Job ->
  JobSet; Pod -> ReplicaSet -> Deployment, the Deployment's name read off ``pod-template-hash``).

Namespaces: with a namespace (``-n``, or the ``NS/`` of ``ref``) only that one; otherwise (``-A``,
or a folder with no current namespace) all of them: the one namespace where the name leads to a
Workload; a name that leads to Workloads in several (or exists in several, none with a Workload) is
an error that lists them. ``default_namespace`` is the kubeconfig context's namespace: it is used like ``-n``
but yields to the ``NS/`` of ``ref`` instead of conflicting with it.
"""
from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..api import objects as o
from ..api.state import ClusterState
from ..errors import InputError
from ..keys import WorkloadKey
from ..kueue.constants import JOB_UID_LABEL, POD_GROUP_NAME_LABEL, QUEUE_NAME_LABEL, WORKLOAD_ANNOTATION
from ..sources.snapshot import GatheredSnapshot

WORKLOAD = "Workload"
POD = "Pod"
JOB = "Job"
POD_GROUP = "PodGroup"      # Kueue's pod group: a label on pods, not an API object

# canonical kind -> (API group, extra words: kubectl's short names and other spellings)
KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    WORKLOAD: ("kueue.x-k8s.io", ("wl",)),
    JOB: ("batch", ()),
    "JobSet": ("jobset.x-k8s.io", ()),
    "RayJob": ("ray.io", ()),
    "RayCluster": ("ray.io", ()),
    "PyTorchJob": ("kubeflow.org", ()),
    "TFJob": ("kubeflow.org", ()),
    "MPIJob": ("kubeflow.org", ()),
    "XGBoostJob": ("kubeflow.org", ()),
    "PaddleJob": ("kubeflow.org", ()),
    "JAXJob": ("kubeflow.org", ()),
    "TrainJob": ("trainer.kubeflow.org", ()),
    POD: ("", ("po",)),
    POD_GROUP: ("", ("pod-group",)),
    "AppWrapper": ("workload.codeflare.dev", ()),
    "LeaderWorkerSet": ("leaderworkerset.x-k8s.io", ("lws",)),
    "StatefulSet": ("apps", ("sts",)),
    "Deployment": ("apps", ("deploy",)),
}


def _kind_words() -> dict[str, str]:
    words: dict[str, str] = {}
    for kind, (group, extra) in KINDS.items():
        for w in (kind.lower(), *extra):
            for form in (w, w + "s"):
                words[form] = kind
                if group:
                    words[f"{form}.{group}"] = kind
    return words


# every word that names a kind (lowercase): singular, plural, short names, ``plural.group``
KIND_WORDS: dict[str, str] = _kind_words()

# which object's "no Workload" message is given when several without one share a name
_KIND_ORDER = {JOB: 0, POD_GROUP: 1, POD: 2}

POD_TEMPLATE_HASH_LABEL = "pod-template-hash"   # a Deployment's ReplicaSet is DEPLOYMENT-HASH
MAX_OWNER_DEPTH = 5


@dataclass(frozen=True, order=True)
class ObjectRef:
    """An object that may own a Workload, as the messages print it: ``kind/ns/name``."""
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind.lower()}/{self.namespace}/{self.name}"

    def title(self) -> str:
        return f"{'pod group' if self.kind == POD_GROUP else self.kind} {self.namespace}/{self.name}"


@dataclass(frozen=True)
class Ref:
    """``ref`` parsed: a kind (canonical) or None for any, a namespace or None, the name."""
    kind: str | None
    namespace: str | None
    name: str
    note: str = ""      # how an ambiguous first word was read, for the error path


@dataclass
class Index:
    """Per object that may own a Workload, the Workloads it leads to."""
    state: ClusterState
    owned: dict[ObjectRef, set[WorkloadKey]] = field(default_factory=lambda: defaultdict(set))
    # Workloads that name a Job of the snapshot but belong to an older Job of that name
    stale: dict[ObjectRef, list[WorkloadKey]] = field(default_factory=dict)
    owners: dict[ObjectRef, ObjectRef] = field(default_factory=dict)   # an object's controller, upward

    def by_name(self, name: str) -> list[ObjectRef]:
        return sorted(r for r in self.owned if r.name == name)

    def kinds(self) -> set[str]:
        return {r.kind for r in self.owned}


def _owner(meta: o.Meta, pod_labels: dict[str, str] | None = None) -> ObjectRef | None:
    """The controller of an object (its first ownerReference when none is marked controller)."""
    refs = sorted(meta.owner_references, key=lambda r: not r.get("controller"))
    for r in refs:
        kind, name = str(r.get("kind") or ""), str(r.get("name") or "")
        if kind and name:
            h = (pod_labels or {}).get(POD_TEMPLATE_HASH_LABEL)
            if kind == "ReplicaSet" and h and name.endswith(f"-{h}"):
                # the ReplicaSet is not collected; its Deployment's name is the ReplicaSet's less the hash
                return ObjectRef("Deployment", meta.namespace, name[: -len(h) - 1])
            return ObjectRef(kind, meta.namespace, name)
    return None


def build_index(state: ClusterState) -> Index:
    ix = Index(state)
    wls = state.workloads
    # 1. what Workloads say of their owners
    for key, w in wls.items():
        for r in w.meta.owner_references:
            if r.get("kind") and r.get("name"):
                ix.owned[ObjectRef(str(r["kind"]), key.namespace, str(r["name"]))].add(key)
    # 2. Jobs of the snapshot: by UID when they have one (a Workload of an older namesake is not theirs)
    by_uid: dict[str, set[WorkloadKey]] = defaultdict(set)
    for key, w in wls.items():
        for r in w.meta.owner_references:
            if r.get("uid"):
                by_uid[str(r["uid"])].add(key)
        job_uid = w.meta.labels.get(JOB_UID_LABEL)
        if job_uid:
            by_uid[job_uid].add(key)
    for (ns, name), j in state.jobs.items():
        ref = ObjectRef(JOB, ns, name)
        if j.meta.uid:
            mine = {k for k in by_uid.get(j.meta.uid, set()) if k.namespace == ns}
            older = ix.owned.get(ref, set()) - mine
            if older:
                ix.stale[ref] = sorted(older)
            ix.owned[ref] = mine
        else:
            ix.owned[ref] |= set()
        up = _owner(j.meta)
        if up is not None:
            ix.owners[ref] = up
    for (ns, name) in state.deployments:
        ix.owned[ObjectRef("Deployment", ns, name)] |= set()
    # 3. pod groups
    for key, w in wls.items():
        group = w.meta.labels.get(POD_GROUP_NAME_LABEL)
        if group:
            ix.owned[ObjectRef(POD_GROUP, key.namespace, group)].add(key)
    for (ns, _), p in state.pods.items():
        group = p.meta.labels.get(POD_GROUP_NAME_LABEL)
        if group:
            g = ix.owned[ObjectRef(POD_GROUP, ns, group)]
            if (ns, group) in wls:
                g.add(WorkloadKey(ns, group))
            ann = p.meta.annotations.get(WORKLOAD_ANNOTATION)
            if ann and (ns, ann) in wls:
                g.add(WorkloadKey(ns, ann))
    # 4. pods: their own links, else their owners' Workloads; their owners then lead to them too
    for (ns, name), p in sorted(state.pods.items()):
        ref = ObjectRef(POD, ns, name)
        up = _owner(p.meta, p.meta.labels)
        if up is not None:
            ix.owners[ref] = up
        ix.owned[ref] = _pod_workloads(ix, p, ref)
    for (ns, name) in sorted(state.pods):
        ref = ObjectRef(POD, ns, name)
        mine = set(ix.owned[ref])
        for anc in _ancestors(ix, ref):
            ix.owned[anc] |= mine
    return ix


def _ancestors(ix: Index, ref: ObjectRef) -> Iterable[ObjectRef]:
    seen = {ref}
    cur = ix.owners.get(ref)
    while cur is not None and cur not in seen and len(seen) <= MAX_OWNER_DEPTH:
        seen.add(cur)
        yield cur
        cur = ix.owners.get(cur)


def _pod_workloads(ix: Index, p: o.Pod, ref: ObjectRef) -> set[WorkloadKey]:
    ns, wls = p.meta.namespace, ix.state.workloads
    ann = p.meta.annotations.get(WORKLOAD_ANNOTATION)
    if ann and (ns, ann) in wls:
        return {WorkloadKey(ns, ann)}
    direct = ix.owned.get(ref)          # a Workload owned by this pod: a pod group's or a single pod's
    if direct:
        return set(direct)
    group = p.meta.labels.get(POD_GROUP_NAME_LABEL)
    if group and ix.owned.get(ObjectRef(POD_GROUP, ns, group)):
        return set(ix.owned[ObjectRef(POD_GROUP, ns, group)])
    for anc in _ancestors(ix, ref):
        if ix.owned.get(anc):
            return set(ix.owned[anc])
    return set()


def _namespaces(state: ClusterState) -> set[str]:
    out = set(state.namespaces)
    for keys in (state.workloads, state.pods, state.jobs, state.local_queues, state.deployments):
        out |= {k[0] for k in keys}
    return out


def parse_ref(state: ClusterState, ref: str, seen_kinds: Iterable[str] = ()) -> Ref:
    """``ref`` by the grammar above; ``seen_kinds`` are more kinds (those ownerReferences name)."""
    parts = ref.strip().split("/")
    if not ref.strip() or len(parts) > 3 or not all(parts):
        raise InputError(f"{ref!r}: expected [KIND/]NAME, NAMESPACE/NAME or KIND/NAMESPACE/NAME")
    words = dict(KIND_WORDS)
    for k in seen_kinds:
        words.setdefault(k.lower(), k)
        words.setdefault(k.lower() + "s", k)
    if len(parts) == 1:
        return Ref(None, None, parts[0])
    if len(parts) == 3:
        kind = words.get(parts[0].lower())
        if kind is None:
            raise InputError(f"{ref!r}: {parts[0]!r} is not a kind (KIND/NAMESPACE/NAME: e.g. job/team-a/train)")
        return Ref(kind, parts[1], parts[2])
    first, name = parts
    kind = words.get(first.lower())
    if kind is None:
        return Ref(None, first, name)
    if first in _namespaces(state):
        if (first, name) in state.workloads:
            return Ref(None, first, name)
        return Ref(kind, None, name, note=f"{ref}: {first!r} read as the kind {kind}, not the namespace {first} "
                                          f"(which has no Workload {name})")
    return Ref(kind, None, name)


def find_workload(state: ClusterState | GatheredSnapshot, ref: str, namespace: str | None,
                  all_namespaces: bool = False, *, default_namespace: str | None = None) -> WorkloadKey:
    """The Workload ``ref`` means (grammar in the module docstring); ``namespace`` is ``-n``,
    ``all_namespaces`` is ``-A`` (it overrides ``namespace``, as in kubectl). Anything else is
    an ``InputError``: a miss (with the closest names, and the namespaces the name exists in),
    several matches, or an object Kueue made no Workload for (and why)."""
    if isinstance(state, GatheredSnapshot):
        state = state.state
    ix = build_index(state)
    r = parse_ref(state, ref, ix.kinds() - set(KINDS))
    if r.namespace is not None:
        if namespace is not None and not all_namespaces and namespace != r.namespace:
            raise InputError(f"{ref!r} names namespace {r.namespace}, but -n {namespace} was given")
        scope: str | None = r.namespace
    elif all_namespaces:
        scope = None
    else:
        scope = namespace if namespace is not None else default_namespace
    try:
        return _resolve(ix, r, scope)
    except InputError as e:
        if r.note:
            raise InputError(f"{r.note}; {e.problem}") from None
        raise


def _matches(ix: Index, r: Ref) -> dict[str, list[ObjectRef]]:
    """Per namespace, what ``r`` names there: its Workload alone when it has one (and the
    kind allows), else the owner objects of that name (of the kind asked for)."""
    out: dict[str, list[ObjectRef]] = defaultdict(list)
    if r.kind in (None, WORKLOAD):
        for key in ix.state.workloads:
            if key.name == r.name:
                out[key.namespace].append(ObjectRef(WORKLOAD, key.namespace, key.name))
    has_workload = set(out)
    if r.kind != WORKLOAD:
        for obj in ix.by_name(r.name):
            if obj.namespace in has_workload and r.kind is None:
                continue        # a Workload of that name is there: it is taken first
            if r.kind is None or obj.kind == r.kind:
                out[obj.namespace].append(obj)
    return dict(out)


def _resolve(ix: Index, r: Ref, scope: str | None) -> WorkloadKey:
    found = _matches(ix, r)
    here = {ns: objs for ns, objs in found.items() if scope is None or ns == scope}
    if not here:
        raise InputError(_miss(ix, r, scope, sorted(found)))
    if len(here) > 1:
        # the namespaces where the name leads to a Workload decide; a namesake Kueue does not manage
        # elsewhere (a Pod of a DaemonSet, a Job without the label) does not make it ambiguous
        resolving = {ns: objs for ns, objs in here.items()
                     if any(obj.kind == WORKLOAD or ix.owned.get(obj) for obj in objs)}
        if len(resolving) != 1:
            shown = resolving or here
            listed = ", ".join(_show(obj) for ns in sorted(shown) for obj in shown[ns])
            raise InputError(f"{r.name!r} exists in namespaces {', '.join(sorted(shown))} ({listed}): "
                             f"give -n NAMESPACE")
        here = resolving
    (ns, objs), = here.items()
    for obj in objs:
        if obj.kind == WORKLOAD:
            return WorkloadKey(obj.namespace, obj.name)
    leading = [obj for obj in objs if ix.owned.get(obj)]
    keys = sorted({k for obj in leading for k in ix.owned[obj]})
    if len(keys) == 1:
        return keys[0]
    if len(leading) > 1:
        listed = ", ".join(f"{obj} (Workload {', '.join(str(k) for k in sorted(ix.owned[obj]))})" for obj in leading)
        raise InputError(f"{r.name!r} names {len(leading)} objects in namespace {ns}: {listed}: give the kind, "
                         f"e.g. {leading[0].kind.lower()}/{r.name}")
    if leading:
        obj = leading[0]
        raise InputError(f"{obj.title()} has {len(keys)} Workloads: {', '.join(str(k) for k in keys)}: "
                         f"name one of them")
    obj = min(objs, key=lambda x: (_KIND_ORDER.get(x.kind, 9), x))
    raise InputError(_no_workload(ix, obj))


def _show(obj: ObjectRef) -> str:
    return f"{obj.namespace}/{obj.name}" if obj.kind == WORKLOAD else str(obj)


def _miss(ix: Index, r: Ref, scope: str | None, elsewhere: list[str]) -> str:
    what = {None: f"no Workload named {r.name!r}, nor a job, pod or pod group of one,",
            WORKLOAD: f"no Workload named {r.name!r}"}.get(r.kind, f"no {r.kind} named {r.name!r}")
    where = f"in namespace {scope}" if scope is not None else "in any namespace"
    parts = [f"{what} {where} ({len(ix.state.workloads)} Workloads read)"]
    if elsewhere:
        parts.append(f"found in namespace{'s' if len(elsewhere) > 1 else ''} {', '.join(elsewhere)}: "
                     f"use -n {elsewhere[0] if len(elsewhere) == 1 else 'NAMESPACE'}")
    guesses: list[str] = []
    if r.kind is not None:      # the name under another kind
        other = Ref(None, None, r.name)
        guesses += [_show(obj) for ns, objs in sorted(_matches(ix, other).items())
                    if scope is None or ns == scope for obj in objs]
    names: dict[str, list[str]] = defaultdict(list)
    if r.kind in (None, WORKLOAD):
        for key in sorted(ix.state.workloads):
            if scope is None or key.namespace == scope:
                names[key.name].append(f"{key.namespace}/{key.name}")
    if r.kind != WORKLOAD:
        for obj in sorted(ix.owned):
            if (scope is None or obj.namespace == scope) and (r.kind is None or obj.kind == r.kind):
                names[obj.name].append(str(obj))
    for n in difflib.get_close_matches(r.name, [n for n in names if n != r.name], n=3, cutoff=0.6):
        guesses += names[n]
    guesses = list(dict.fromkeys(guesses))[:3]
    if guesses:
        parts.append(f"did you mean {', '.join(guesses)}?")
    return "; ".join(parts)


def _no_workload(ix: Index, obj: ObjectRef) -> str:
    """Why an object the snapshot has (or its pods name) has no Workload."""
    state = ix.state
    head = f"{obj.title()} has no Workload"
    manage_all = bool(state.configuration and state.configuration.raw.get("manageJobsWithoutQueueName") is True)

    def check(integration: str) -> str:
        return f"Kueue has not created its Workload: check the Kueue controller (that it runs, its log, {integration})"

    if obj.kind == JOB and (obj.namespace, obj.name) in state.jobs:
        j = state.jobs[(obj.namespace, obj.name)]
        queue = j.meta.labels.get(QUEUE_NAME_LABEL)
        older = ix.stale.get(obj)
        tail = (f"; {', '.join(str(k) for k in older)} belong{'s' if len(older) == 1 else ''} to an older Job of "
                f"that name, not to this one (uid {j.meta.uid}; kubernetes-sigs/kueue#1789)") if older else ""
        if not queue and not manage_all:
            return (f"{head}: it has no {QUEUE_NAME_LABEL} label, so Kueue does not manage it (label it with a "
                    f"LocalQueue of namespace {obj.namespace}){tail}")
        asks = (f"it asks for LocalQueue {obj.namespace}/{queue}"
                + ("" if (obj.namespace, queue) in state.local_queues else " (not in the snapshot)")
                if queue else "Kueue manages Jobs without a queue name (manageJobsWithoutQueueName)")
        return (f"{head}: {asks} and is {'suspended' if j.suspend else 'not suspended'}, but "
                f"{check('the batch/job integration enabled')}{tail}")
    if obj.kind == POD and (obj.namespace, obj.name) in state.pods:
        p = state.pods[(obj.namespace, obj.name)]
        if p.meta.labels.get(QUEUE_NAME_LABEL) or p.meta.labels.get(POD_GROUP_NAME_LABEL):
            return f"{head}: it carries Kueue's labels, but {check('the pod integration enabled')}"
        up = ix.owners.get(obj)
        return (f"{head}: it has no {QUEUE_NAME_LABEL} label" + (f" and its owner {up} has no Workload" if up else "")
                + ": Kueue does not manage it")
    if obj.kind == POD_GROUP:
        group_pods = f"the pod integration enabled, every pod of the group created with the {QUEUE_NAME_LABEL} label"
        return f"{head}: pods carry its {POD_GROUP_NAME_LABEL} label, but {check(group_pods)}"
    return (f"{head} in the snapshot: Kueue manages it only with the {QUEUE_NAME_LABEL} label (on it or its pod "
            f"template)")
