"""Upstream's TAS failure messages, word for word, and the node-exclusion statistics they carry.

Upstream: ``tasExclusionStats`` / ``notFitMessage`` / ``multiLayerNotFitMessage``
(pkg/cache/scheduler/tas_flavor_snapshot.go), ``NodeExclusionStats`` (simulator/types.go).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...api import objects as o


def taint_string(t: o.Taint) -> str:
    """corev1.Taint.ToString: ``key=value:effect``, ``key:effect`` without a value."""
    return f"{t.key}:{t.effect}" if not t.value else f"{t.key}={t.value}:{t.effect}"


@dataclass
class ExclusionStats:
    total_nodes: int = 0
    node_selector: int = 0
    affinity: int = 0
    topology_domain: int = 0
    scheduler_library_no_fit: int = 0
    taints: dict[str, int] = field(default_factory=dict)
    resources: dict[str, int] = field(default_factory=dict)

    def has_exclusions(self) -> bool:
        # schedulerLibraryNoFit alone does not count (upstream hasExclusions)
        return bool(self.node_selector or self.affinity or self.taints or self.topology_domain or self.resources)

    def record_taint(self, t: o.Taint) -> None:
        k = taint_string(t)
        self.taints[k] = self.taints.get(k, 0) + 1

    def record_resource(self, name: str) -> None:
        self.resources[name] = self.resources.get(name, 0) + 1

    def add(self, other: ExclusionStats) -> None:
        self.total_nodes += other.total_nodes
        self.node_selector += other.node_selector
        self.affinity += other.affinity
        self.topology_domain += other.topology_domain
        self.scheduler_library_no_fit += other.scheduler_library_no_fit
        for k, v in other.taints.items():
            self.taints[k] = self.taints.get(k, 0) + v
        for k, v in other.resources.items():
            self.resources[k] = self.resources.get(k, 0) + v

    def reasons(self) -> str:
        out = []
        if self.node_selector:
            out.append(f"nodeSelector: {self.node_selector}")
        if self.affinity:
            out.append(f"affinity: {self.affinity}")
        if self.topology_domain:
            out.append(f"topologyDomain: {self.topology_domain}")
        if self.scheduler_library_no_fit:
            out.append(f"schedulerLibraryNoFit: {self.scheduler_library_no_fit}")
        out += [f"taint {go_quote(k)}: {v}" for k, v in sorted(self.taints.items())]
        out += [f"resource {go_quote(k)}: {v}" for k, v in sorted(self.resources.items())]
        return ", ".join(sorted(out))

    def suffix(self) -> str:
        return f". Total nodes: {self.total_nodes}; excluded: {self.reasons()}" if self.has_exclusions() else ""


def go_quote(s: str) -> str:
    """Go's %q for the plain strings that appear here."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def not_fit(topology: str, fit: int, total: int, slice_size: int, stats: ExclusionStats) -> str:
    unit = "pod" if slice_size == 1 else "slice"
    if fit == 0:
        text = f"topology {go_quote(topology)} doesn't allow to fit any of {total} {unit}(s)"
    else:
        text = f"topology {go_quote(topology)} allows to fit only {fit} out of {total} {unit}(s)"
    return text + stats.suffix()


def multi_layer_not_fit(topology: str, layers: list[tuple[int, int, str]], stats: ExclusionStats) -> str:
    """``layers``: (slices that fit, slices needed, level) per constraint."""
    text = f"topology {go_quote(topology)} doesn't allow to fit"
    for fit, need, level in layers:
        text += f"; {fit}/{need} slice(s) fit on level {level}"
    return text + stats.suffix()


def no_domains_at_level(level: str) -> str:
    return f"no topology domains at level: {level}"


def no_requested_level(level: str) -> str:
    return f"no requested topology level: {level}"


def no_requested_slice_level(level: str) -> str:
    return f"no requested topology level for slices: {level}"


def slice_above_podset(slice_level: str, level: str) -> str:
    return f"podset slice topology {slice_level} is above the podset topology {level}"


SLICE_SIZE_MISSING = "slice topology requested, but slice size not provided"
LEVEL_NOT_SPECIFIED = "topology level not specified"


def no_inner_slice_level(level: str) -> str:
    return f"no requested topology level for additional slice layer: {level}"


def inner_layer_not_lower(level: str, parent: str) -> str:
    return f"additional slice layer topology {level} must be at a lower level than {parent}"


def inner_layer_not_dividing(size: int, parent_size: int) -> str:
    return f"additional slice layer size {size} must evenly divide parent layer size {parent_size}"


def stale_domain(value: str) -> str:
    return ("Cannot replace the node, because the existing topologyAssignment is invalid, "
            f"as it contains the stale domain {value}")


def no_replacement(node: str) -> str:
    return f"cannot find replacement assignment for unhealthy node: {node}"


BALANCED_NO_OPTIMAL_SET = "TAS Balanced Placement: Cannot find optimal domain set to fit the request"
BALANCED_BELOW_THRESHOLD = "TAS Balanced Placement: Not enough slices to meet the threshold"
BALANCED_NOT_ALL_PLACED = "TAS Balanced Placement: Not all slices or leaders could be placed"
