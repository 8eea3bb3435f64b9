"""Each finding fires on its signature and stays quiet on the near-miss."""
from __future__ import annotations

from kueue_doctor.keys import WorkloadKey
from kueue_doctor.logs import scan
from kueue_doctor.logs.signatures import workload_key

from .excerpts import admitted, evaluated, line, ongoing, preempted, requeued, wl, zombie_cycles


def ids(report):
    return [f.id for f in report.findings]


def test_zombie_shared_by_two_queues_is_a_stuck_target():
    report = scan(zombie_cycles(12))
    f = report.finding("stuck-preemption-target")
    assert f is not None
    assert f.cluster_queues == ["team-a", "team-b"]
    assert WorkloadKey("team-c", "zombie") in f.workloads
    assert f.detail["targets"]["team-c/zombie"]["cycles"] == 12
    assert f.detail["skippedHeads"] == 12
    assert report.per_cluster_queue["team-a"]["skippedOverlappingTargets"] == 6
    # The zombie is shared, so it is not also reported as a slow (but eventual) release.
    assert "slow-preemption-release" not in ids(report)


def test_one_cycle_of_overlap_is_normal():
    assert "stuck-preemption-target" not in ids(scan(zombie_cycles(2)))


def _slow_release(hold: float, victims: int = 3) -> list[str]:
    out = []
    head = ("team-d", "head")
    t = 0.0
    for i in range(victims):
        victim = ("batch", f"low-{i}")
        out.append(preempted(t, i * 100, head, victim, "batch"))
        out.append(requeued(t, i * 100, head, "team-d", "PendingPreemption"))
        for k in range(1, 6):
            out.append(ongoing(t + hold * k / 5, i * 100 + k, head, victim))
        t += hold + 1
        out.append(admitted(t, i * 100 + 9, ("team-d", f"admitted-{i}"), "team-d"))
    return out


def test_victims_holding_quota_for_a_grace_period_are_slow_release():
    report = scan(_slow_release(300.0), grace=60)
    f = report.finding("slow-preemption-release")
    assert f is not None
    assert f.count == 3
    assert f.cluster_queues == ["team-d"]
    assert f.detail["heldSeconds"]["batch/low-0"] == 300.0
    # Admissions come one per grace period: the spacing is the hold time plus the retry.
    assert 290 <= f.detail["admissionSpacingSeconds"]["team-d"] <= 310
    assert report.per_cluster_queue["team-d"]["preemptionsIssued"] == 3
    assert report.per_cluster_queue["batch"]["preemptedFrom"] == 3


def test_one_short_preemption_is_not_slow():
    assert "slow-preemption-release" not in ids(scan(_slow_release(5.0, victims=1), grace=60))


def _drs(borrowing: int) -> list[str]:
    lender = ("research", "big-train")
    return [
        evaluated(0, 1, lender, "research", "assumed", borrowing=borrowing),
        admitted(0.1, 1, lender, "research"),
        line(10, "DominantResourceShare values used during tournament", v=4, schedulingCycle=5,
             drsValues=[{"parentCohort": "gpu", "workload": wl(*lender), "drs": "0"}]),
        line(10.2, "Workload requires preemption, but there are no candidate workloads allowed for preemption",
             v=2, schedulingCycle=5, workload=wl("vision", "reclaim"), clusterQueue={"name": "vision"},
             preemption={"reclaimWithinCohort": "Any"}),
        requeued(10.3, 5, ("vision", "reclaim"), "vision", "PreemptionNoCandidates"),
    ]


def test_zero_drs_for_a_borrowing_queue_with_no_candidates_is_drs_rounding():
    f = scan(_drs(borrowing=1)).finding("drs-rounding")
    assert f is not None
    assert f.cluster_queues == ["research", "vision"]
    assert f.detail == {"zeroDrs": {"research": 1}, "noCandidates": {"vision": 1}}


def test_zero_drs_for_a_queue_that_does_not_borrow_is_fine():
    assert "drs-rounding" not in ids(scan(_drs(borrowing=0)))


def test_errors_and_leader_election_make_the_controller_unhealthy():
    lines = [line(i, "Reconciler error", v=0, logger="controller", error="etcdserver: request timed out")
             for i in range(5)]
    for rec in lines:
        assert '"level":"info"' in rec
    lines = [rec.replace('"level":"info"', '"level":"error"') for rec in lines]
    lines.append("E0820 10:00:09.000000       1 leaderelection.go:340] failed to renew lease kueue-system/x: "
                 "timed out\n")
    report = scan(lines)
    f = report.finding("controller-unhealthy")
    assert f is not None
    # klog's E line is an error line too, as a JSON "error" line is
    assert f.detail["errors"] == 6
    assert len(f.detail["leaderEvents"]) == 1
    assert report.malformed == 0 and report.to_json()["files"][0]["forms"] == {"json": 5, "klog": 1}


def test_a_few_errors_and_conflicts_are_not_unhealthy():
    lines = [line(1, "Reconciler error", v=0, error="x").replace('"level":"info"', '"level":"error"'),
             line(2, "Skipping", error="Operation cannot be fulfilled on workloads: the object has been modified")]
    report = scan(lines)
    assert "controller-unhealthy" not in ids(report)
    assert report.health["errors"] == 1


def test_head_retried_for_minutes_with_the_same_reason_is_head_of_line_blocking():
    head = ("perception", "big")
    lines = []
    for i in range(25):
        lines.append(evaluated(i * 15, i, head, "perception", "",
                               "couldn't assign flavors to pod set main: insufficient unused quota"))
        lines.append(requeued(i * 15, i, head, "perception", "NoFit"))
    report = scan(lines)
    f = report.finding("head-of-line-blocking")
    assert f is not None and f.workloads == [WorkloadKey("perception", "big")]
    assert f.to_json()["workloads"] == ["perception/big"]
    heads = report.per_cluster_queue["perception"]["retriedHeads"]
    assert heads[0]["attempts"] == 25 and heads[0]["reason"].startswith("couldn't assign")
    # The same head admitted before five minutes pass is just a busy queue.
    assert "head-of-line-blocking" not in ids(scan([*lines[:20], admitted(400, 99, head, "perception")]))


def test_workload_references_are_read_as_keys():
    """A klog reference or an "ns/name" string names a workload; anything without a namespace
    names none (Kueue always logs a Workload's namespace)."""
    assert workload_key(wl("team-a", "w")) == WorkloadKey("team-a", "w")
    assert workload_key("team-a/w") == WorkloadKey("team-a", "w")
    assert workload_key({"name": "w"}) is None
    assert workload_key("w") is None and workload_key(None) is None and workload_key("") is None
