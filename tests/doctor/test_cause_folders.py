"""The causes added with issue 14 on gathered folders in the form real clusters produce
(tests/data/causes/, written by cause_folders.py), and their absence on a healthy busy cluster
of the same release; then the edges of each rule on small built clusters and logs."""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.doctor.causes.logs import log_causes
from kueue_doctor.doctor.causes.quota import head_exceeds_max_quota, held_without_pods_causes
from kueue_doctor.doctor.causes.rank import rank
from kueue_doctor.doctor.diagnose import diagnose_facts, violations
from kueue_doctor.doctor.findings import Cause, CauseId, Confidence
from kueue_doctor.logs import scan

from . import cause_folders
from .cluster import cluster_queue, facts_of, flavor, job, local_queue, node, owned_by, pod, workload

DATA = cause_folders.DATA
CAUSES = ["quota-held-without-pods", "preemption-retry-storm", "head-exceeds-max-quota"]


def diagnose(name: str) -> tuple[int, dict]:
    out = CliRunner().invoke(cli, ["diagnose", str(DATA / name), "-o", "json"])
    assert out.exception is None or isinstance(out.exception, SystemExit), out.output
    return out.exit_code, json.loads(out.stdout)


def test_the_committed_folders_are_what_the_builder_writes(tmp_path):
    for name in cause_folders.FOLDERS:
        fresh = cause_folders.write(tmp_path, name)
        committed = {p.name: p.read_bytes() for p in (DATA / name).iterdir()}
        assert {p.name: p.read_bytes() for p in fresh.iterdir()} == committed, name


@pytest.mark.parametrize("name", CAUSES)
def test_each_cause_is_found_first_on_its_folder(name):
    code, d = diagnose(name)
    assert code == 1 and d["verdict"] == "violation"
    assert d["kueueVersion"] == "v0.18.4"
    top = d["causes"][0]
    assert top["id"] == name and top["confidence"] == "high", d["causes"]
    assert set(top["clusterQueues"]) <= {v["clusterQueue"] for v in d["violations"]}
    assert top["evidence"] and top["remedy"]
    # a sharper cause is not also reported as the general one
    assert "head-of-line-blocking" not in [c["id"] for c in d["causes"]]


def test_quota_held_without_pods_names_the_holder_and_the_eviction():
    _, d = diagnose("quota-held-without-pods")
    (c,) = d["causes"]
    assert c["clusterQueues"] == ["research"] and c["workloads"][0] == "llm/jobset-pretrain-7b-5c2e1"
    assert c["evidence"][0].startswith("llm/jobset-pretrain-7b-5c2e1 (training): evicted 3h ago, still holds "
                                       "16 nvidia.com/gpu (h100); QuotaReserved=True, Admitted=True, Evicted=True "
                                       "(Evicted reason PodsReadyTimeout")
    assert "kubernetes-sigs/kueue#14811" in c["evidence"][1]
    # the release step still lists the victim; it is not a second cause
    step4 = next(s for s in d["steps"] if s["step"] == 4)
    assert any("no pods left" in e for e in step4["evidence"])


def test_retry_storm_names_the_head_the_rate_and_the_starved_queue():
    _, d = diagnose("preemption-retry-storm")
    c = d["causes"][0]
    assert c["clusterQueues"] == ["perception"] and c["workloads"] == ["mltraining-dev/job-xc-b200-a204b"]
    assert "about 40.02 times a second" in c["summary"]
    assert any("0 admission(s) in any ClusterQueue meanwhile" in e for e in c["evidence"])
    assert "job-xc-b200-a204b" in c["remedy"]


def test_head_exceeds_max_quota_says_what_it_needs_and_the_most_it_can_get():
    _, d = diagnose("head-exceeds-max-quota")
    c = d["causes"][0]
    assert ("fm/job-pretrain-70b-x9 can never be admitted: it needs 64 nvidia.com/gpu in one pod set, the most this "
            "queue can ever get is 48 (flavor h100: nominal 32 + 16 its cohort can lend within its borrowing limit)"
            in c["summary"])
    assert c["workloads"] == ["fm/job-pretrain-70b-x9", "fm/job-sft-run-4", "fm/job-eval-suite-5"]
    # the log's head-of-line evidence went with it
    assert any(e.startswith("log: foundation: head fm/job-pretrain-70b-x9 re-queued") for e in c["evidence"])


def test_a_healthy_busy_cluster_of_the_same_release_has_none():
    code, d = diagnose("healthy-busy")
    assert code == 0 and d["verdict"] == "no-violation" and d["causes"] == [] and d["kueueVersion"] == "v0.18.4"
    report = scan(str(DATA / "healthy-busy" / "kueue-controller-manager.log"))
    assert report.finding("preemption-retry-storm") is None
    assert report.per_cluster_queue["platform"]["noPreemptionCandidates"] == 30


# --- the rules' edges ----------------------------------------------------------------------

POOL = {"pool": "gpu"}


def test_held_without_pods_needs_pods_read_and_skips_work_that_runs_or_waits_on_release(tmp_path):
    def objs(with_pods: bool, suspend: bool = False):
        held = owned_by(workload("ns", "held", "lq", 8, admitted_to=("q", "f")), "Job", "held", "uid-held")
        out = [flavor("f", POOL), cluster_queue("q", {"f": 16}, strategy="BestEffortFIFO"), local_queue("ns", "lq", "q"),
               node("n0", POOL, 8), node("n1", POOL, 8), held, job("ns", "held", uid="uid-held", suspend=suspend),
               workload("ns", "waits", "lq", 8, created="2026-11-30T11:00:00Z"), workload("ns", "big", "lq", 16)]
        if with_pods:
            out.append(pod("other", "unrelated", "", 1, node_name="n1"))
        return out
    f = facts_of(tmp_path / "a", objs(True))
    assert [str(h.key) for h in f.held_without_pods] == ["ns/held"] and f.held_without_pods[0].job == "Job ns/held"
    found = violations(f)
    (c,) = held_without_pods_causes(f, f.queues["q"], found[0])
    assert c.confidence is Confidence.HIGH and "admitted 30m ago" in c.evidence[0]
    # no Pod read at all: nothing can be said
    assert facts_of(tmp_path / "b", objs(False)).held_without_pods == ()
    # a suspended Job is not-released (step 4), not this
    assert facts_of(tmp_path / "c", objs(True, suspend=True)).held_without_pods == ()


def test_head_exceeds_needs_strict_fifo_and_a_request_over_the_ceiling(tmp_path):
    def objs(strategy: str, gpus: int):
        return [flavor("f", POOL), cluster_queue("q", {"f": 16}, strategy=strategy), local_queue("ns", "lq", "q"),
                workload("ns", "head", "lq", gpus, created="2026-11-30T11:00:00Z"), workload("ns", "small", "lq", 8)]
    f = facts_of(tmp_path / "a", objs("StrictFIFO", 24))
    (v,) = violations(f)
    (c,) = head_exceeds_max_quota(f.queues["q"], v)
    assert "needs 24 nvidia.com/gpu in one pod set, the most this queue can ever get is 16 (flavor f: nominal 16, " \
           "nothing more to borrow)" in c.summary
    assert [x.id for x in diagnose_facts(f).causes] == [CauseId.HEAD_EXCEEDS_MAX_QUOTA]
    # BestEffortFIFO: the work behind it is tried, no head blocks it
    f = facts_of(tmp_path / "b", objs("BestEffortFIFO", 24))
    assert all(q.head is None or not head_exceeds_max_quota(q, v) for q in f.queues.values() for v in violations(f))


def _storm(n: int, every: float) -> list[str]:
    out = []
    t0 = datetime(2026, 11, 30, 11, 50, tzinfo=UTC)
    for i in range(n):
        t = t0 + timedelta(seconds=i * every)
        out.append(cause_folders.zap(t, "Level(-2)", "scheduler", "scheduler/scheduler.go:257",
                                     "Workload requires preemption, but there are no candidate workloads allowed for "
                                     "preemption", schedulingCycle=i, workload=cause_folders.ref("ns", "head"),
                                     clusterQueue={"name": "q"}))
        out.append(cause_folders.requeued_line(t, i, "ns", "head", "q", "lq", "PreemptionNoCandidates"))
    return out


def test_a_retry_storm_needs_many_retries_a_second_for_a_while():
    storm = scan(_storm(400, 0.05)).finding("preemption-retry-storm")
    assert storm is not None and storm.detail["heads"]["ns/head"]["perSecond"] == 20.05
    assert scan(_storm(400, 2.0)).finding("preemption-retry-storm") is None     # every 2 s: Kueue's normal pace
    assert scan(_storm(50, 0.05)).finding("preemption-retry-storm") is None     # a burst, not a storm


def test_the_log_head_of_line_signature_over_maximum_capacity_is_head_exceeds(tmp_path):
    objs = [flavor("f", POOL), cluster_queue("q", {"f": 16}), local_queue("ns", "lq", "q"),
            workload("ns", "head", "lq", 8, created="2026-11-30T11:00:00Z"),
            workload("ns", "small", "lq", 8, created="2026-11-30T11:10:00Z")]
    lines = []
    for i in range(30):
        t = datetime(2026, 11, 30, 11, 45, tzinfo=UTC) + timedelta(seconds=20 * i)
        lines.append(cause_folders.zap(t, "Level(-3)", "scheduler", "scheduler/logging.go:42",
                                       "Workload evaluated for admission", schedulingCycle=i,
                                       workload=cause_folders.ref("ns", "head"), clusterQueue={"name": "q"}, status="",
                                       reason="couldn't assign flavors to pod set main: insufficient quota for "
                                       "nvidia.com/gpu in flavor f, previously considered podsets requests (0) + "
                                       "current podset request (64) > maximum capacity (48)"))
        lines.append(cause_folders.requeued_line(t, i, "ns", "head", "q", "lq", ""))
    f = facts_of(tmp_path / "s", objs, log="".join(lines))
    found = violations(f)
    assert [c.id for c in log_causes(f, found)] == [CauseId.HEAD_EXCEEDS_MAX_QUOTA]


def test_a_sharper_cause_takes_the_general_ones_queues_and_evidence():
    from kueue_doctor.doctor.findings import Violation
    from kueue_doctor.keys import WorkloadKey
    found = [Violation("a", {}, [WorkloadKey("ns", "x")], None), Violation("b", {}, [WorkloadKey("ns", "y")], None)]
    hol = Cause(CauseId.HEAD_OF_LINE_BLOCKING, Confidence.MEDIUM, ["a", "b"], [], "hol", ["log: re-queued 40 times"])
    sharp = Cause(CauseId.HEAD_EXCEEDS_MAX_QUOTA, Confidence.HIGH, ["a"], [], "never fits", ["needs 64"])
    ranked = rank([hol, sharp], found)
    assert [(c.id, c.cluster_queues) for c in ranked] == [(CauseId.HEAD_EXCEEDS_MAX_QUOTA, ["a"]),
                                                         (CauseId.HEAD_OF_LINE_BLOCKING, ["b"])]
    assert ranked[0].evidence == ["needs 64", "log: re-queued 40 times"]
