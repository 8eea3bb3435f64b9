"""The metrics sources: a gathered folder, a live cluster and a running simulation, refreshed apart from scrapes."""
from __future__ import annotations

import shutil
from datetime import timedelta

import pytest

from kueue_doctor.errors import InputError
from kueue_doctor.metrics.sources import FolderSource, LiveSource, SimSource
from kueue_doctor.sim.incidents import incident_path
from tests.paths import INCIDENTS

from .helpers import scrape, series


def test_folder_reloads_on_change_and_keeps_last_good_state(tmp_path):
    folder = tmp_path / "snap"
    shutil.copytree(next(INCIDENTS.glob("01-*")), folder)
    src = FolderSource(str(folder), timedelta(minutes=5), 30.0)
    assert series(scrape(src), "cause", id="head-of-line-blocking") == {
        (("cluster_queue", "perception"), ("id", "head-of-line-blocking")): 1}
    assert src.readiness() == (True, "ok")
    # the operator fixes the queue (BestEffortFIFO) and gathers again, without the old log
    # whose lines still show the blocking; the next refresh sees it
    kueue = folder / "kueue.yaml"
    kueue.write_text(kueue.read_text().replace("StrictFIFO", "BestEffortFIFO"))
    (folder / "kueue-controller-manager.log").unlink()
    src.tick()
    assert series(scrape(src), "cause", id="head-of-line-blocking") == {
        (("cluster_queue", ""), ("id", "head-of-line-blocking")): 0}
    # a half-written file: counted as an error, the last good state is still served
    good = kueue.read_text()
    kueue.write_text("kind: List\nitems: [{{{")
    src.tick()
    m = scrape(src)
    assert m["kueue_doctor_refresh_errors_total"][()] == 1
    assert m["kueue_doctor_refresh_failing"][()] == 1
    assert series(m, "guarantee_violation")
    ready, reason = src.readiness()
    assert not ready and reason.startswith("last refresh failed: ") and "\n" not in reason
    # fixed again: ready, and the failure gauge clears (the counter keeps counting)
    kueue.write_text(good)
    src.tick()
    m = scrape(src)
    assert src.readiness() == (True, "ok")
    assert m["kueue_doctor_refresh_failing"][()] == 0 and m["kueue_doctor_refresh_errors_total"][()] == 1


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
    # before the first refresh: only the staleness gauges (and build_info), never a wait on the API server
    m = scrape(src)
    assert "kueue_doctor_guarantee_violation" not in m and m["kueue_doctor_state_age_seconds"][()] == float("inf")
    assert src.readiness() == (False, "no state loaded yet")
    src.tick()
    assert src.readiness() == (True, "ok")
    src.tick()
    m = scrape(src)
    assert m["kueue_doctor_refresh_errors_total"][()] == 1
    assert src.readiness() == (False, "last refresh failed: connection refused")
    assert any(v == 1 for v in series(m, "guarantee_violation", cluster_queue="perception").values())


def test_live_source_missing_kubeconfig(tmp_path):
    with pytest.raises(InputError):
        LiveSource(str(tmp_path / "nope"), None, timedelta(minutes=5), 30.0)


def test_simulation_source_reports_team_a_and_the_victim():
    src = SimSource(str(incident_path("slow-preemption-release")), timedelta(minutes=5), 30.0, 60.0)
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


def test_live_source_whose_first_fetch_fails_is_not_ready():
    def fetch(kubeconfig, context):
        raise PermissionError("workloads.kueue.x-k8s.io is forbidden:\n  User cannot list")
    src = LiveSource("kubeconfig", None, timedelta(minutes=5), 30.0, fetch=fetch)
    src.tick()
    ready, reason = src.readiness()
    assert not ready
    assert reason == "no state loaded yet: last attempt failed: workloads.kueue.x-k8s.io is forbidden: User cannot list"
    m = scrape(src)
    assert m["kueue_doctor_refresh_failing"][()] == 1 and "kueue_doctor_cause" not in m


def test_simulation_source_is_ready_at_once():
    src = SimSource(str(incident_path("slow-preemption-release")), timedelta(minutes=5), 30.0, 60.0)
    assert src.readiness() == (True, "ok")
