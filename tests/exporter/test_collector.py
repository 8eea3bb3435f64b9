"""The collector on the gathered incident folders and on a running simulation."""
from __future__ import annotations

import shutil
import time
from datetime import timedelta

import pytest
from exporter_helpers import INCIDENTS, SCENARIOS, scrape, series

from kueue_doctor.doctor.findings import CAUSES
from kueue_doctor.errors import InputError
from kueue_doctor.metrics.sources import FolderSource, LiveSource, SimSource


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
    assert set(causes) == set(CAUSES)
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
    assert list(pend)
    assert dict(next(iter(pend)))["flavor"] == "h200"
    assert next(iter(pend.values())) >= 32
    # cpu is published in cores, not Kueue's millicores
    cpu = series(m, "pending_fitting_nominal", cluster_queue="perception", resource="cpu")
    assert 0 < next(iter(cpu.values())) < 10_000
    # ANSWER.yaml: 16 H200 GPUs idle on two empty nodes
    slots = series(m, "free_slots", flavor="h200")
    assert slots
    assert all(v == 2 for v in slots.values())
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
                assert " " not in value, (name, key, value)
                assert len(value) < 64, (name, key, value)


def test_staleness_metrics(hol_source):
    m = scrape(hol_source)
    assert abs(m["kueue_doctor_last_refresh_timestamp_seconds"][()] - time.time()) < 3600
    assert m["kueue_doctor_state_age_seconds"][()] >= 0
    assert m["kueue_doctor_refresh_errors_total"][()] == 0


def test_folder_reloads_on_change_and_keeps_last_good_state(tmp_path):
    folder = tmp_path / "snap"
    shutil.copytree(next(INCIDENTS.glob("01-*")), folder)
    src = FolderSource(str(folder), timedelta(minutes=5), 30.0)
    assert series(scrape(src), "cause", id="head-of-line-blocking") == {(("id", "head-of-line-blocking"),): 1}
    # the operator fixes the queue (BestEffortFIFO) and gathers again, without the old log
    # whose lines still show the blocking; the next refresh sees it
    kueue = folder / "kueue.yaml"
    kueue.write_text(kueue.read_text().replace("StrictFIFO", "BestEffortFIFO"))
    (folder / "kueue-controller-manager.log").unlink()
    src.tick()
    assert series(scrape(src), "cause", id="head-of-line-blocking") == {(("id", "head-of-line-blocking"),): 0}
    # a half-written file: counted as an error, the last good state is still served
    kueue.write_text("kind: List\nitems: [{{{")
    src.tick()
    m = scrape(src)
    assert m["kueue_doctor_refresh_errors_total"][()] == 1
    assert series(m, "guarantee_violation")


def test_bad_folder_is_one_line_input_error(tmp_path):
    with pytest.raises(InputError):
        FolderSource(str(tmp_path / "missing"), timedelta(minutes=5), 30.0)


def test_live_source_serves_last_good_state_without_blocking(hol_source):
    from kueue_doctor.sources.snapshot import load_folder
    folder = next(INCIDENTS.glob("01-*"))
    calls = []

    def fetch(kubeconfig, context):
        calls.append(context)
        if len(calls) > 1:
            raise RuntimeError("connection refused")
        return load_folder(str(folder))
    src = LiveSource("kubeconfig", "prod", timedelta(minutes=5), 30.0, fetch=fetch)
    # before the first refresh: only the staleness gauges, never a wait on the API server
    m = scrape(src)
    assert "kueue_doctor_guarantee_violation" not in m
    assert m["kueue_doctor_state_age_seconds"][()] == float("inf")
    src.tick()
    src.tick()
    m = scrape(src)
    assert m["kueue_doctor_refresh_errors_total"][()] == 1
    assert any(v == 1 for v in series(m, "guarantee_violation", cluster_queue="perception").values())


def test_live_source_missing_kubeconfig(tmp_path):
    with pytest.raises(InputError):
        LiveSource(str(tmp_path / "nope"), None, timedelta(minutes=5), 30.0)


def test_simulation_source_reports_team_a_and_the_victim():
    src = SimSource(str(SCENARIOS / "slow-preemption-release.yaml"), timedelta(minutes=5), 30.0, 60.0)
    src.advance(20 * 60)   # team-b borrows everything; team-a has not arrived
    m = scrape(src)
    assert not any(series(m, "guarantee_violation").values())
    assert series(m, "cohort_resource_usage", cohort="research", resource="nvidia.com/gpu") == {
        (("cohort", "research"), ("flavor", "h100"), ("resource", "nvidia.com/gpu")): 128.0}
    src.advance(40 * 60)   # team-a's heads wait for 15-minute victims
    m = scrape(src)
    on = {dict(k)["cluster_queue"] for k, v in series(m, "guarantee_violation").items() if v == 1}
    assert on == {"team-a"}
    assert series(m, "stuck_preemption_targets", cluster_queue="team-b")[(("cluster_queue", "team-b"),)] >= 1
    assert series(m, "terminating_victims_holding_quota", cluster_queue="team-b")[(("cluster_queue", "team-b"),)] == 0
