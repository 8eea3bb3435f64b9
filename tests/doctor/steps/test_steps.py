"""Each step of the recipe on small built clusters: the status it gives, and what it read."""
from __future__ import annotations

from datetime import timedelta

from kueue_doctor.doctor.diagnose import violations
from kueue_doctor.doctor.findings import CauseId, StepStatus
from kueue_doctor.doctor.steps.fragmentation import step2
from kueue_doctor.doctor.steps.guarantee import step1
from kueue_doctor.doctor.steps.health import step6
from kueue_doctor.doctor.steps.logs import step5
from kueue_doctor.doctor.steps.rates import step3
from kueue_doctor.doctor.steps.release import step4
from kueue_doctor.keys import WorkloadKey

from ..cluster import cluster_queue, condition, facts_of, flavor, local_queue, node, pod, workload

POOL = {"pool": "gpu"}


def base(*extra):
    return [flavor("f", POOL), cluster_queue("q", {"f": 16}, strategy="BestEffortFIFO"),
            local_queue("ns", "lq", "q"), *extra]


def test_step1_fails_with_the_violating_queue_and_figures(tmp_path):
    f = facts_of(tmp_path / "s", base(workload("ns", "w", "lq", 8)))
    found = violations(f)
    s = step1(f, found)
    assert s.status is StepStatus.FAIL and "q" in s.summary
    assert found[0].resources[("f", "nvidia.com/gpu")].pending_that_fits == 8
    assert s.read["Workload"] == 1


def test_step1_passes_when_fitting_work_waited_less(tmp_path):
    f = facts_of(tmp_path / "s", base(workload("ns", "w", "lq", 8, created="2026-11-30T11:58:00Z")))
    s = step1(f, violations(f))
    assert s.status is StepStatus.PASS and "1 fitting workload(s) waited less" in s.summary


def test_step2_is_unknown_without_pods_and_skipped_without_violation(tmp_path):
    f = facts_of(tmp_path / "a", base(workload("ns", "w", "lq", 8), node("n", POOL, 8)))
    assert step2(f, violations(f))[0].status is StepStatus.UNKNOWN
    f = facts_of(tmp_path / "b", base(node("n", POOL, 8), pod("ns", "p", "x", 1, node_name="n")))
    assert step2(f, [])[0].status is StepStatus.SKIPPED


def test_step2_names_fragmentation(tmp_path):
    # 16 GPUs free in all, 4 per node: no node can take an 8-GPU pod
    objs = base(workload("ns", "w", "lq", 8))
    for i in range(4):
        objs += [node(f"n{i}", POOL, 8), pod("ns", f"other-{i}", "x", 4, node_name=f"n{i}")]
    f = facts_of(tmp_path / "s", objs)
    s, causes = step2(f, violations(f))
    assert s.status is StepStatus.FAIL and causes and causes[0].id is CauseId.FRAGMENTATION


def test_step3_fails_for_a_violating_queue_that_admits_nothing(tmp_path):
    old = workload("ns", "old", "lq", 1, created="2026-11-30T09:00:00Z", admitted_to=("q", "f"))
    f = facts_of(tmp_path / "s", base(old, workload("ns", "w", "lq", 8)))
    s = step3(f, violations(f))
    assert s.status is StepStatus.FAIL and "q" in s.summary


def test_step3_passes_when_the_queue_admitted_after_its_violation_began(tmp_path):
    recent = workload("ns", "recent", "lq", 1, created="2026-11-30T11:50:00Z", admitted_to=("q", "f"))
    f = facts_of(tmp_path / "s", base(recent, workload("ns", "w", "lq", 8)))
    s = step3(f, violations(f))
    assert s.status is StepStatus.PASS and f.queues["q"].admissions_last_hour == 1


def test_step3_is_unknown_without_condition_times_or_logs(tmp_path):
    f = facts_of(tmp_path / "s", base(workload("ns", "w", "lq", 8)))
    assert step3(f, violations(f)).status is StepStatus.UNKNOWN


def test_step4_finds_a_gated_workload(tmp_path):
    w = workload("ns", "w", "lq", 8, admitted_to=("q", "f"))
    p = pod("ns", "w-0", "w", 8, phase="Pending")
    p["spec"]["schedulingGates"] = [{"name": "kueue.x-k8s.io/admission"}]
    f = facts_of(tmp_path / "s", base(w, p, node("n", POOL, 8)))
    found = violations(f)
    s, causes = step4(f, found)
    assert s.status is StepStatus.FAIL and causes[0].id is CauseId.NOT_RELEASED
    assert found and found[0].not_running == [WorkloadKey("ns", "w")]


def test_step4_skipped_without_admitted_work_and_unknown_without_pods(tmp_path):
    f = facts_of(tmp_path / "a", base(workload("ns", "w", "lq", 8)))
    assert step4(f, [])[0].status is StepStatus.SKIPPED
    f = facts_of(tmp_path / "b", base(workload("ns", "w", "lq", 8, admitted_to=("q", "f"))))
    assert step4(f, [])[0].status is StepStatus.UNKNOWN


def test_step4_reports_a_victim_holding_quota(tmp_path):
    v = workload("ns", "victim", "lq", 8, admitted_to=("q", "f"))
    condition(v, "Evicted", "True", "2026-11-30T11:40:00Z", "Preempted",
              "Preempted to accommodate a workload (UID: x, JobUID: y) due to prioritization in the ClusterQueue; "
              "preemptor path: /q; preemptee path: /q")
    p = pod("ns", "victim-0", "victim", 8, node_name="n")
    p["metadata"]["deletionTimestamp"] = "2026-11-30T11:40:00Z"
    p["spec"]["terminationGracePeriodSeconds"] = 30
    f = facts_of(tmp_path / "s", base(v, p, node("n", POOL, 8)))
    s, _ = step4(f, [])
    assert s.status is StepStatus.FAIL and f.victims[0].past_grace == ("victim-0",)
    assert f.victims[0].preemptor_cluster_queue == "q"


LOG = ('{"level":"info","ts":"2026-11-30T11:59:00.000Z","logger":"scheduler","msg":"Workload re-queued",'
       '"workload":{"name":"w","namespace":"ns"},"clusterQueue":{"name":"q"},"queue":{"name":"lq",'
       '"namespace":"ns"},"requeueReason":"Generic","added":true,"status":""}\n')


def test_step5_unknown_without_a_log_pass_on_a_quiet_one(tmp_path):
    assert step5(facts_of(tmp_path / "a", base())).status is StepStatus.UNKNOWN
    f = facts_of(tmp_path / "b", base(), log=LOG)
    s = step5(f)
    assert s.status is StepStatus.PASS and s.read["logLinesParsed"] == 1


def test_step5_is_unknown_when_a_log_file_holds_no_line_it_can_read(tmp_path):
    from kueue_doctor.doctor.diagnose import scan_logs
    from kueue_doctor.doctor.gather import build_facts
    from kueue_doctor.sources.snapshot import load_folder

    from ..cluster import write_folder
    folder = write_folder(tmp_path / "s", base())
    (folder / "kueue-controller-manager.log").write_text(LOG)
    # what a log shipper's syslog export looks like: no form the scanner reads
    (folder / "kueue-controller-manager-1.log").write_text(
        "".join(f"<134>Nov 30 11:59:{i:02d} node-3 kueue[1]: scheduling cycle {i}\n" for i in range(30)))
    snap = load_folder(str(folder))
    f = build_facts(snap, timedelta(minutes=5), None, scan_logs(snap))
    s = step5(f)
    assert s.status is StepStatus.UNKNOWN, s.summary
    assert "kueue-controller-manager-1.log (30 lines)" in s.summary and "cannot tell" in s.summary
    assert s.read["logLinesUnrecognized"] == 30
    assert s.evidence == ["kueue-controller-manager-1.log: none of its 30 line(s) is a controller log line of a form "
                          "kueue-doctor reads (30 unrecognised)"]
    # alone, it is "cannot tell" too, never "no known failure signature"
    (folder / "kueue-controller-manager.log").unlink()
    snap = load_folder(str(folder))
    s = step5(build_facts(snap, timedelta(minutes=5), None, scan_logs(snap)))
    assert s.status is StepStatus.UNKNOWN and "cannot tell: none of 30 line(s)" in s.summary


def test_step6_names_notready_nodes_and_says_what_it_did_not_read(tmp_path):
    f = facts_of(tmp_path / "s", base(node("a", POOL, 8), node("b", POOL, 8, ready=False)))
    s, causes = step6(f)
    assert s.status is StepStatus.FAIL and [c.id for c in causes] == [CauseId.NODE_UNHEALTHY]
    assert "no controller Deployment or pod read" in s.summary
    assert step6(facts_of(tmp_path / "t", base()))[0].status is StepStatus.UNKNOWN


def test_quota_reserved_work_held_by_an_admission_check_is_not_running(tmp_path):
    w = workload("ns", "w", "lq", 8, admitted_to=("q", "f"))
    w["status"]["conditions"] = [c for c in w["status"]["conditions"] if c["type"] != "Admitted"]
    w["status"]["admissionChecks"] = [{"name": "provision-gpus", "state": "Pending", "message": "waiting",
                                       "lastTransitionTime": "2026-11-30T11:30:00Z"}]
    f = facts_of(tmp_path / "s", base(w))
    reason = f.workloads[WorkloadKey("ns", "w")].not_running
    assert reason is not None and reason.kind == "admission-check" and "provision-gpus (Pending)" in str(reason)
    found = violations(f)
    assert found and found[0].not_running == [WorkloadKey("ns", "w")]
    assert f.queues["q"].not_released == ()    # Kueue has not admitted it: not step 4's not-released


def test_step2_counts_each_fragmented_shape_once_per_policy_with_the_figures_of_every_demand(tmp_path, monkeypatch):
    # three violating queues, two of them waiting on the same 8-GPU shape: on 4 nodes with 4 GPUs
    # used each, every demand is fragmented; the policies' re-placed clusters are counted once
    # per shape, and each finding still gets what counting every demand on its own gives
    objs = [flavor("f", POOL)]
    for q, gpus in (("a", 8), ("b", 8), ("c", 6)):
        objs += [cluster_queue(q, {"f": 16}, strategy="BestEffortFIFO"), local_queue(q, "lq", q),
                 workload(q, "w", "lq", gpus), workload(q, "w2", "lq", gpus)]
    for i in range(4):
        objs += [node(f"n{i}", POOL, 8), pod("a", f"other-{i}", "x", 4, node_name=f"n{i}")]
    f = facts_of(tmp_path / "s", objs)
    found = violations(f)
    assert len(found) == 3
    from kueue_doctor.frag import diagnose as frag
    from kueue_doctor.frag.from_state import node_shapes, queue_demands
    now, empty, running = node_shapes(f.state)
    demands = [d for v in found for d in queue_demands(
        f.state, v.cluster_queue, now, [f.model.infos[k].obj for k in f.queues[v.cluster_queue].pending], {})]
    alone = frag.diagnose(now, demands, running, empty, policies=("BestFit", "FGD"))
    counted = []
    real = frag.count_slots
    from kueue_doctor.doctor import background
    monkeypatch.setattr(background, "_cores", lambda: 1)   # every count made here, to be seen
    monkeypatch.setattr(frag, "count_slots", lambda nodes, shape: counted.append(shape) or real(nodes, shape))
    s, causes = step2(f, found)
    assert len(counted) == 2 * len({d.shape for d in demands}) < 2 * len(demands)
    got = list(s.evidence)
    assert len(got) == len(alone) and all("fragmentation strands" in line for line in got)
    gains = [c.evidence[1] for c in causes if len(c.evidence) > 1]
    want = [", ".join(f"{p} +{g}" for p, g in a.policy_gain().items() if g > 0) for a in alone]
    assert any(want) and [g.removeprefix("placement policies would have fit more: ") for g in gains] == [w for w in want if w]

