"""The collector on the gathered incident folders (its sources: tests/metrics/test_sources.py)."""
from __future__ import annotations

import time
from datetime import timedelta

from kueue_doctor.doctor.findings import CauseId
from kueue_doctor.metrics.sources import FolderSource
from tests.paths import INCIDENTS

from .helpers import scrape, series


def test_head_of_line_incident_violation_only_in_perception(hol_source):
    m = scrape(hol_source)
    viol = series(m, "guarantee_violation")
    on = {dict(k)["cluster_queue"] for k, v in viol.items() if v == 1}
    assert on == {"perception"}
    assert series(m, "guarantee_violation", cluster_queue="perception", flavor="h200", resource="nvidia.com/gpu")
    # every other queue is published, as 0, so alerts and dashboards see it exists
    assert {dict(k)["cluster_queue"] for k in viol} >= {"planning", "simulation", "foundation-models",
                                                        "data-labeling"}
    # ANSWER.yaml: perception reserves 8 of 24 GPUs; 16 of its pending GPUs fit the rest
    assert list(series(m, "pending_fitting_nominal", cluster_queue="perception",
                       resource="nvidia.com/gpu").values()) == [16.0]


def test_head_of_line_incident_causes(hol_source):
    causes = {dict(k)["id"]: v for k, v in series(scrape(hol_source), "cause").items()}
    assert set(causes) == {str(c) for c in CauseId}
    assert causes["head-of-line-blocking"] == 1
    assert sum(causes.values()) == 1


def test_head_of_line_incident_tree_and_pending(hol_source):
    m = scrape(hol_source)
    assert list(series(m, "cohort_info")) == [(("cohort", "autonomy"), ("parent_cohort", ""),
                                               ("root_cohort", "autonomy"))]
    cq = {dict(k)["cluster_queue"]: dict(k) for k in series(m, "cluster_queue_info")}
    assert cq["perception"]["root_cohort"] == "autonomy"
    assert cq["data-labeling"]["parent_cohort"] == ""
    # the StrictFIFO head alone asks for 32 GPUs; with the queued jobs behind it more than that pends
    pend = series(m, "cluster_queue_resource_pending", cluster_queue="perception", resource="nvidia.com/gpu")
    assert list(pend) and dict(next(iter(pend)))["flavor"] == "h200" and next(iter(pend.values())) >= 32
    # cpu is published in cores, not Kueue's millicores
    cpu = series(m, "pending_fitting_nominal", cluster_queue="perception", resource="cpu")
    assert 0 < next(iter(cpu.values())) < 10_000
    # ANSWER.yaml: 16 H200 GPUs idle on two empty nodes
    slots = series(m, "free_slots", flavor="h200")
    assert slots and all(v == 2 for v in slots.values())
    assert any(dict(k)["shape"].startswith("8gpu") for k in slots)


def test_inactive_queue_incident():
    folder = next(INCIDENTS.glob("02-*"))
    m = scrape(FolderSource(str(folder), timedelta(minutes=5), 30.0))
    causes = {dict(k)["id"]: v for k, v in series(m, "cause").items()}
    assert causes["inactive-queue"] == 1
    assert any(v == 1 for v in series(m, "guarantee_violation").values())


def test_labels_carry_names_only(hol_source):
    """No message, reason or other object text in any label value."""
    for name, rows in scrape(hol_source).items():
        for labels in rows:
            for key, value in labels:
                assert " " not in value and len(value) < 64, (name, key, value)


def test_staleness_metrics(hol_source):
    m = scrape(hol_source)
    assert abs(m["kueue_doctor_last_refresh_timestamp_seconds"][()] - time.time()) < 3600
    assert m["kueue_doctor_state_age_seconds"][()] >= 0
    assert m["kueue_doctor_refresh_errors_total"][()] == 0
