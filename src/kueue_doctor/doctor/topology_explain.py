"""``explain``'s topology links: for each TAS pod set, the free capacity per domain at the level it
asks for (the domains with most room, and how many there are) and the engine's topology
assignment or failure message, computed as the head outside a cycle (``doctor/tas.py``). Text
carries human units; ``data`` the exact quantities (``-o wide``, JSON)."""
from __future__ import annotations

from typing import Any

from ..api.quantity import format_amount
from .causes.topology import domain_label
from .steps.words import amount, level_name
from .tas import HeadTopology, PodSetTopology

SHOWN = 3


def quantities(res: dict[str, int]) -> dict[str, str]:
    return {r: format_amount(r, v) for r, v in sorted(res.items()) if r != "pods"}


def pod_set_data(p: PodSetTopology) -> dict[str, Any]:
    return {
        "podSet": p.pod_set, "flavor": p.flavor, "topology": p.topology, "level": p.level, "mode": p.mode,
        "count": p.count, "resource": p.resource, "perPod": quantities(p.single_pod),
        "domains": [{"domain": domain_label(d.values, p.level), "values": list(d.values), "free": quantities(d.free),
                     "pods": d.pods} for d in p.domains],
        "domainCount": p.domain_count,
        "assignment": None if p.assignment is None else {
            "levels": list(p.assignment.levels),
            "domains": [{"values": list(d.values), "count": d.count} for d in p.assignment.domains]},
        "failure": p.failure or None, "fitsEmptyCluster": p.fits_empty,
        "largest": [{"level": lf.level, "domain": domain_label(lf.domain, lf.level), "resource": lf.resource,
                     "free": format_amount(lf.resource, lf.free), "domains": lf.domains} for lf in p.largest]}


def pod_set_text(p: PodSetTopology) -> str:
    lv = level_name(p.level)
    top = ", ".join(f"{domain_label(d.values, p.level)} {amount(p.resource, d.free.get(p.resource, 0))} "
                    f"({d.pods} of {p.count} pods)" for d in p.domains[:SHOWN])
    more = p.domain_count - min(SHOWN, len(p.domains))
    text = (f"pod set {p.pod_set}: {p.count} pod(s), {p.mode} {lv} ({p.level}) on flavor {p.flavor}; free per {lv}: "
            f"{top or 'none'}" + (f" and {more} more" if more > 0 else "") + f" ({p.domain_count} {lv}(s))")
    if p.assignment is not None:
        placed = ", ".join(f"{d.values[-1]} x{d.count}" for d in p.assignment.domains)
        return text + f"; Kueue's placement now: {placed}"
    if p.failure:
        return text + f"; Kueue's placement now fails: {p.failure}" + (
            "" if p.fits_empty else f" (no {lv} holds it even with every TAS workload gone)")
    return text


def topology_items(t: HeadTopology) -> list[tuple[str, dict[str, Any]]]:
    if t.missing:
        return [("it asks for a topology, but the snapshot lacks what TAS is computed from: unknown; collect "
                 + " and ".join(t.missing), {"missing": list(t.missing)})]
    return [(pod_set_text(p), pod_set_data(p)) for p in t.pod_sets]
