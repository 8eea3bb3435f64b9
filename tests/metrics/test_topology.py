"""The exporter's TAS series on the gathered TAS folders (tests/data/causes/topology-*)."""
from __future__ import annotations

from datetime import timedelta

from kueue_doctor.metrics.sources import FolderSource
from tests.doctor.cause_folders import DATA

from .helpers import scrape, series

RACK = "cloud.provider.com/topology-rack"


def folder(name: str):
    return scrape(FolderSource(str(DATA / name), timedelta(minutes=5), 30.0))


def test_largest_free_domain_per_level_and_flavor():
    m = folder("topology-fragmentation")
    got = {(dict(k)["flavor"], dict(k)["level"]): v for k, v in series(m, "topology_largest_free_domain").items()}
    assert got == {("h100-tas", "cloud.provider.com/topology-block"): 44.0, ("h100-tas", RACK): 24.0,
                   ("h100-tas", "kubernetes.io/hostname"): 8.0,
                   ("l40s-tas", RACK): 4.0, ("l40s-tas", "kubernetes.io/hostname"): 4.0}
    assert {dict(k)["resource"] for k in series(m, "topology_largest_free_domain")} == {"nvidia.com/gpu"}
    assert {dict(k)["topology"] for k in series(m, "topology_largest_free_domain", flavor="l40s-tas")} == {
        "l40s-topology"}
    # and the cause is exported for the queue it is named for
    assert series(m, "cause", id="topology-fragmentation", cluster_queue="training") == {
        (("cluster_queue", "training"), ("id", "topology-fragmentation")): 1.0}


def test_a_free_rack_shows_and_the_cause_is_zero():
    m = folder("topology-rack-free")
    assert list(series(m, "topology_largest_free_domain", flavor="h100-tas", level=RACK).values()) == [32.0]
    assert list(series(m, "cause", id="topology-fragmentation").values()) == [0.0]


def test_no_series_without_topologies(hol_source):
    assert not series(scrape(hol_source), "topology_largest_free_domain")
