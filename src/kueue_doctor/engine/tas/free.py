"""Free capacity per topology domain of one TAS flavor snapshot, level by level: what the
doctor's topology-fragmentation cause, ``explain`` and the exporter report.

The capacity rules are the snapshot's (``Leaf.remaining``: allocatable of the flavor's usable
nodes, minus non-TAS pods, minus admitted TAS workloads), so a domain reported full is full for
admission too. Pods of one shape per leaf are counted as placement's phase 1 counts them
(``fillInCounts`` in upstream's tas_flavor_snapshot.go: ``count_in`` of the pod's requests plus
one ``pods`` against each leaf, summed up the tree); the per-node taint, nodeSelector and
affinity filtering of placement is not applied here.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .requests import Resources, add, count_in, with_one_pod
from .snapshot import Domain, TASFlavorSnapshot


@dataclass(frozen=True, slots=True)
class DomainFree:
    """One domain's free capacity, and how many pods of the asked shape it could take."""
    id: str
    values: tuple[str, ...]
    free: Resources
    pods: int          # pods of the shape (0 when no shape was asked)
    leaves: tuple[str, ...]


def _leaves_under(d: Domain) -> list[Domain]:
    if d.leaf is not None:
        return [d]
    out: list[Domain] = []
    for c in d.children:
        out += _leaves_under(c)
    return out


def free_at_level(snap: TASFlavorSnapshot, level: int, single_pod: Mapping[str, int] | None = None,
                  simulate_empty: bool = False) -> list[DomainFree]:
    """Every domain at ``level`` (index into ``snap.levels``), most pods of the shape first,
    then most free of the shape's largest resource, then by id."""
    per_pod = with_one_pod(single_pod) if single_pod else None
    out = []
    for did, dom in snap.per_level[level].items():
        free: Resources = {}
        pods = 0
        leaves = _leaves_under(dom)
        for lf in leaves:
            assert lf.leaf is not None
            rem = lf.leaf.remaining(simulate_empty)
            add(free, rem)
            if per_pod is not None:
                pods += count_in(per_pod, rem)[0]
        out.append(DomainFree(did, dom.values, free, pods, tuple(lf.id for lf in leaves)))
    main = main_resource(single_pod or {})
    return sorted(out, key=lambda d: (-d.pods, -d.free.get(main, 0), d.id))


def main_resource(single_pod: Mapping[str, int]) -> str:
    """The resource a shape is about: an extended resource (GPUs) before cpu and memory."""
    extended = sorted(r for r, v in single_pod.items() if v and r not in ("cpu", "memory", "pods")
                      and not r.startswith(("hugepages-", "ephemeral-storage")))
    if extended:
        return max(extended, key=lambda r: single_pod[r])
    return "cpu" if single_pod.get("cpu") else next(iter(sorted(single_pod)), "cpu")


def largest_free(snap: TASFlavorSnapshot, resource: str) -> list[tuple[str, DomainFree | None]]:
    """Per level, the domain with the most free ``resource`` (None for a level with no domain)."""
    out: list[tuple[str, DomainFree | None]] = []
    for i, key in enumerate(snap.levels):
        doms = free_at_level(snap, i)
        doms.sort(key=lambda d: (-d.free.get(resource, 0), d.id))
        out.append((key, doms[0] if doms else None))
    return out
