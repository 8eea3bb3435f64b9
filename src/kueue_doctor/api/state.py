"""ClusterState: every object of one cluster, indexed by kind and name."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar

from ..keys import WorkloadKey
from . import objects as o


@dataclass
class ClusterState:
    resource_flavors: dict[str, o.ResourceFlavor] = field(default_factory=dict)
    topologies: dict[str, o.Topology] = field(default_factory=dict)
    cluster_queues: dict[str, o.ClusterQueue] = field(default_factory=dict)
    cohorts: dict[str, o.Cohort] = field(default_factory=dict)
    local_queues: dict[tuple[str, str], o.LocalQueue] = field(default_factory=dict)
    workloads: dict[WorkloadKey, o.Workload] = field(default_factory=dict)
    priority_classes: dict[str, o.WorkloadPriorityClass] = field(default_factory=dict)
    namespaces: dict[str, o.Namespace] = field(default_factory=dict)
    limit_ranges: dict[tuple[str, str], o.LimitRange] = field(default_factory=dict)
    nodes: dict[str, o.Node] = field(default_factory=dict)
    pods: dict[tuple[str, str], o.Pod] = field(default_factory=dict)
    events: list[o.Event] = field(default_factory=list)
    jobs: dict[tuple[str, str], o.Job] = field(default_factory=dict)
    deployments: dict[tuple[str, str], o.Deployment] = field(default_factory=dict)
    config_maps: dict[tuple[str, str], o.ConfigMap] = field(default_factory=dict)
    admission_checks: dict[str, o.AdmissionCheck] = field(default_factory=dict)
    provisioning_request_configs: dict[str, o.ProvisioningRequestConfig] = field(default_factory=dict)
    provisioning_requests: dict[tuple[str, str], o.ProvisioningRequest] = field(default_factory=dict)
    configuration: o.KueueConfiguration | None = None
    # what was read but is not a kind kueue-doctor uses: "apiVersion kind" -> count
    skipped: Counter = field(default_factory=Counter)
    files: list[str] = field(default_factory=list)
    # files read holding documents that are not Kubernetes objects (dashboards, rule groups, ...)
    not_objects: list[str] = field(default_factory=list)
    # a gathered folder's own metadata (manifest.json, ANSWER.yaml): neither objects nor skipped
    metadata_files: list[str] = field(default_factory=list)

    _BY_NAME: ClassVar[dict[str, str]] = {
        "ResourceFlavor": "resource_flavors", "Topology": "topologies",
        "ClusterQueue": "cluster_queues", "Cohort": "cohorts",
        "WorkloadPriorityClass": "priority_classes", "Namespace": "namespaces", "Node": "nodes",
        "AdmissionCheck": "admission_checks", "ProvisioningRequestConfig": "provisioning_request_configs"}
    _BY_KEY: ClassVar[dict[str, str]] = {
        "LocalQueue": "local_queues", "Workload": "workloads", "LimitRange": "limit_ranges",
        "Pod": "pods", "Job": "jobs", "Deployment": "deployments", "ConfigMap": "config_maps",
        "ProvisioningRequest": "provisioning_requests"}

    def add(self, obj) -> None:
        kind = obj.kind
        if kind in self._BY_NAME:
            getattr(self, self._BY_NAME[kind])[obj.meta.name] = obj
        elif kind == "Workload":
            self.workloads[WorkloadKey.of(obj.meta)] = obj
        elif kind in self._BY_KEY:
            getattr(self, self._BY_KEY[kind])[(obj.meta.namespace, obj.meta.name)] = obj
        elif kind == "Event":
            self.events.append(obj)
        elif kind == "Configuration":
            self.configuration = obj
        else:  # pragma: no cover - parse.KINDS and this table are kept in step
            raise KeyError(kind)

    def counts(self) -> dict[str, int]:
        out = {}
        for kind, attr in list(self._BY_NAME.items()) + list(self._BY_KEY.items()):
            n = len(getattr(self, attr))
            if n:
                out[kind] = n
        if self.events:
            out["Event"] = len(self.events)
        if self.configuration is not None:
            out["Configuration"] = 1
        return out

    def kueue_deployment(self) -> o.Deployment | None:
        for dep in self.deployments.values():
            if dep.kueue_version() is not None or "kueue" in dep.meta.name:
                return dep
        return None
