"""The exporter's Topology-Aware Scheduling series: per TAS flavor and topology level, the free
capacity of the largest free domain, from the doctor's TAS facts (``doctor/tas.py``: the TAS
snapshot a scheduling cycle would build, so the capacity rules are those of admission)."""
from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily

from ..doctor.facts import Facts
from .view import View, base_value

NAME = "kueue_doctor_topology_largest_free_domain"


def topology_rows(view: View, facts: Facts) -> None:
    if facts.tas is None:
        return
    for lf in facts.tas.largest:
        view.topology_free[(lf.flavor, lf.topology, lf.level, lf.resource)] = lf.free


def topology_metrics(view: View) -> Iterator[GaugeMetricFamily]:
    if not view.topology_free:
        return
    g = GaugeMetricFamily(NAME, "Free capacity of the largest free domain at a topology level of a TAS ResourceFlavor "
                          "(allocatable of Ready, schedulable nodes minus pods Kueue does not manage and admitted TAS "
                          "workloads; GPUs as counts, cores for cpu, bytes for memory): what one pod set requiring "
                          "that level could get at most.", labels=["flavor", "topology", "level", "resource"])
    for key, v in sorted(view.topology_free.items()):
        g.add_metric(list(key), base_value(key[3], v))
    yield g
