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


def test_build_info_follows_the_info_convention(hol_source):
    import platform

    import kueue_doctor
    info = scrape(hol_source)["kueue_doctor_build_info"]
    assert list(info.values()) == [1.0]
    labels = dict(next(iter(info)))
    assert labels == {"version": kueue_doctor.__version__, "python_version": platform.python_version(),
                      "kueue_version": labels["kueue_version"]}
    assert labels["kueue_version"].startswith("v")   # the controller image the folder holds


def test_cause_has_one_series_per_named_cluster_queue(hol_source):
    rows = series(scrape(hol_source), "cause")
    assert {tuple(sorted(dict(k))) for k in rows} == {("cluster_queue", "id")}
    named = {(dict(k)["id"], dict(k)["cluster_queue"]) for k, v in rows.items() if v == 1}
    assert named == {("head-of-line-blocking", "perception")}
    # every other id: one series, value 0, no queue
    others = {dict(k)["id"]: (dict(k)["cluster_queue"], v) for k, v in rows.items()
              if dict(k)["id"] != "head-of-line-blocking"}
    assert set(others) == {str(c) for c in CauseId} - {"head-of-line-blocking"}
    assert set(others.values()) == {("", 0.0)}


def test_cause_queues_of_cluster_wide_and_merged_causes():
    from kueue_doctor.doctor.findings import Cause, Confidence
    from kueue_doctor.metrics.collector import cause_rows
    from kueue_doctor.metrics.view import cause_queues
    causes = cause_queues([
        Cause(CauseId.NODE_UNHEALTHY, Confidence.MEDIUM, [], cluster_wide=True),
        Cause(CauseId.CONTROLLER_UNHEALTHY, Confidence.MEDIUM, ["team-b"], cluster_wide=True),
        Cause(CauseId.STUCK_PREEMPTION_TARGET, Confidence.HIGH, ["team-b", "team-a"]),
    ])
    assert causes == {"node-unhealthy": ("",), "controller-unhealthy": ("", "team-b"),
                      "stuck-preemption-target": ("team-a", "team-b")}
    rows = dict(cause_rows(causes))
    assert rows[("stuck-preemption-target", "team-a")] == rows[("stuck-preemption-target", "team-b")] == 1
    assert rows[("node-unhealthy", "")] == 1 and rows[("drs-rounding", "")] == 0
    assert len(rows) == len(CauseId) - 3 + 5   # 7 ids not named, 5 (id, queue) pairs named


# label names as upstream Kueue spells them (pkg/metrics/metrics.go), and the exporter's own
UPSTREAM_LABELS = {"cluster_queue", "flavor", "resource", "cohort", "parent_cohort", "root_cohort", "status",
                   "reason", "underlying_cause", "name", "namespace"}
OWN_LABELS = {"shape", "id", "version", "python_version", "kueue_version"}
# kueue-doctor metric -> (upstream Kueue metric of the same quantity, the labels a join uses)
JOINS = {
    "cluster_queue_resource_pending": ("kueue_cluster_queue_resource_pending", ("cluster_queue", "resource")),
    "cohort_subtree_quota": ("kueue_cohort_subtree_quota", ("cohort", "flavor", "resource")),
    "cohort_nominal_quota": ("kueue_cohort_subtree_quota", ("cohort", "flavor", "resource")),
    "cohort_info": ("kueue_cohort_info", ("cohort", "parent_cohort", "root_cohort")),
    "cluster_queue_info": ("kueue_cluster_queue_info", ("cluster_queue", "parent_cohort", "root_cohort")),
    "pending_workloads": ("kueue_pending_workloads", ("cluster_queue", "status")),
    "reserving_active_workloads": ("kueue_reserving_active_workloads", ("cluster_queue",)),
    "admitted_active_workloads": ("kueue_admitted_active_workloads", ("cluster_queue",)),
    "unadmitted_workloads": ("kueue_unadmitted_workloads", ("cluster_queue", "reason", "underlying_cause")),
    "local_queue_unadmitted_workloads": ("kueue_local_queue_unadmitted_workloads",
                                         ("name", "namespace", "cluster_queue", "reason", "underlying_cause")),
    **{f"cluster_queue_{n}": (f"kueue_cluster_queue_{n}", ("cohort", "cluster_queue", "flavor", "resource"))
       for n in ("resource_reservation", "resource_usage", "nominal_quota", "borrowing_limit", "lending_limit")},
}


def test_label_names_are_upstreams(hol_source):
    for name, rows in scrape(hol_source).items():
        for labels in rows:
            assert {k for k, _ in labels} <= UPSTREAM_LABELS | OWN_LABELS, name


def test_metrics_that_mirror_upstream_carry_its_join_labels(hol_source):
    m = scrape(hol_source)
    for name, (_, labels) in JOINS.items():
        rows = series(m, name)
        assert rows, name
        keys = [tuple(dict(k)[a] for a in labels) for k in rows]
        assert len(keys) == len(set(keys)), f"{name}: not one series per {labels}"
    # the alias is the same series under upstream's suffix
    assert series(m, "cohort_subtree_quota") == series(m, "cohort_nominal_quota")


def test_exporter_doc_has_the_join_table():
    from tests.paths import REPO
    doc = (REPO / "docs" / "exporter.md").read_text()
    for name, (upstream, labels) in JOINS.items():
        row = next((line for line in doc.splitlines() if line.startswith(f"| `kueue_doctor_{name}`")), None)
        assert row is not None and f"`{upstream}`" in row, name
        assert all(f"`{a}`" in row for a in labels), name
