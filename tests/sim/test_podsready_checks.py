"""The simulator's WaitForPodsReady and admission checks, and what its snapshot says about them."""
from __future__ import annotations

import yaml

from kueue_doctor.api.load import load_paths
from kueue_doctor.sim.scenario import load_scenario, parse_scenario
from kueue_doctor.sim.simulator import Simulator
from kueue_doctor.sim.snapshot import write_snapshot
from tests.paths import REPO

INCIDENTS = REPO / "examples" / "incidents"

BASE = [
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "f"}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
     "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
         {"name": "f", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 16}]}]}]}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "main", "namespace": "ns"},
     "spec": {"clusterQueue": "cq"}},
]


def scenario(version="0.20.0", wfpr=None, checks=None, cq_checks=None, workload=None, duration="3h"):
    objects = [dict(o) for o in BASE]
    if cq_checks:
        objects[1] = {**objects[1], "spec": {**objects[1]["spec"], "admissionChecksStrategy": {
            "admissionChecks": [{"name": n} for n in cq_checks]}}}
        objects += [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": n},
                     "spec": {"controllerName": "kueue.x-k8s.io/provisioning-request"}} for n in cq_checks]
    doc = {"kind": "Simulation", "duration": duration, "kueue": {"version": version}, "objects": objects,
           "nodes": [{"count": 2, "allocatable": {"nvidia.com/gpu": 8}}],
           "workloads": [workload or {"name": "w", "namespace": "ns", "queue": "main", "pods": 1,
                                      "requests": {"nvidia.com/gpu": 8}, "runtime": "1h",
                                      "readiness": "ImagePullBackOff"}]}
    if wfpr is not None:
        doc["kueue"]["waitForPodsReady"] = wfpr
    if checks is not None:
        doc["admissionChecks"] = checks
    return parse_scenario(doc, "test.yaml")


def evictions(sim):
    return [(t, f["reason"]) for t, e, f in sim.log if e in ("evicted", "deactivated")]


def test_on_by_default_in_v0_20_with_a_30_minute_timeout():
    sim = Simulator(scenario()).run()
    times = [t for t, reason in evictions(sim) if reason == "PodsReadyTimeout"]
    assert abs(times[0] - 1800) < 5   # admitted at once, evicted 30 minutes later
    assert sim.recorder.kueue_evictions["cq"]["PodsReadyTimeout"] >= 3


def test_off_by_default_before_v0_19():
    sim = Simulator(scenario(version="0.18.6")).run()
    assert evictions(sim) == [] and sim.pods_ready is None


def test_backoff_and_limit_then_deactivation():
    wfpr = {"timeout": "10m", "requeuingStrategy": {"backoffLimitCount": 2, "backoffBaseSeconds": 60}}
    sim = Simulator(scenario(wfpr=wfpr)).run()
    ev = evictions(sim)
    assert [r for _, r in ev] == ["PodsReadyTimeout", "PodsReadyTimeout", "DeactivatedDueToRequeuingLimitExceeded"]
    admitted = [t for t, e, f in sim.log if e == "admitted_true"]
    # readmitted once the backoff (60s, then 120s) is over, after the quota went back
    assert 60 <= admitted[1] - ev[0][0] < 65 and 120 <= admitted[2] - ev[1][0] < 125
    sw = next(iter(sim.workloads.values()))
    assert sw.state == "deactivated" and sw.requeue_count is None and not sw.obj.active


def test_recovery_timeout_after_a_pod_fails():
    wl = {"name": "w", "namespace": "ns", "queue": "main", "requests": {"nvidia.com/gpu": 8}, "runtime": "3h",
          "failAfter": "20m", "recovery": "Unschedulable"}
    sim = Simulator(scenario(wfpr={"timeout": "10m", "recoveryTimeout": "5m"}, workload=wl, duration="40m")).run()
    failed = next(t for t, e, f in sim.log if e == "pod_failed")
    assert evictions(sim)[0] == (failed + 300, "PodsReadyTimeout")


def test_block_admission_serialises_admissions():
    wfpr = {"timeout": "10m", "blockAdmission": True}
    wl = {"name": "w", "namespace": "ns", "queue": "main", "requests": {"nvidia.com/gpu": 8}, "runtime": "1h",
          "readiness": "Unschedulable"}
    scn = scenario(wfpr=wfpr, workload=wl, duration="9m")
    scn.workloads.append(type(scn.workloads[0])(at=60, namespace="ns", name="ok", queue="main",
                                                requests={"nvidia.com/gpu": 8}, runtime=600))
    sim = Simulator(scn).run()
    assert sim.workloads[next(k for k in sim.workloads if k.name == "ok")].first_admitted_at is None
    waits = [f for t, e, f in sim.log if e == "evaluated" and f["condition_reason"] == "WaitingForPodsReady"]
    assert waits


def test_admission_check_retry_twice_then_ready():
    checks = [{"name": "prov", "outcomes": [{"after": "2m", "outcome": "Failed"}, {"after": "2m", "outcome": "Failed"},
                                            {"after": "3m", "outcome": "Provisioned"}]}]
    wl = {"name": "w", "namespace": "ns", "queue": "main", "requests": {"nvidia.com/gpu": 8}, "runtime": "1h"}
    sim = Simulator(scenario(checks=checks, cq_checks=["prov"], workload=wl)).run()
    assert dict(sim.recorder.check_outcomes["prov"]) == {"Retry": 2, "Ready": 1}
    assert [r for _, r in evictions(sim)] == ["AdmissionCheck", "AdmissionCheck"]
    sw = next(iter(sim.workloads.values()))
    assert sw.finished_at is not None
    # <workload>-<check>-<attempt>, one ProvisioningRequest per attempt
    assert [r.name.rsplit("-", 2)[1:] for r in sw.requests] == [["prov", "1"], ["prov", "2"], ["prov", "3"]]
    assert all(r.name.startswith("job-w-") for r in sw.requests)
    ready = next(t for t, e, f in sim.log if e == "admitted_true")
    # 2m + 60s backoff + 2m + 120s backoff + 3m (plus the release and quota latencies)
    assert 600 <= ready < 615


def test_rejected_check_deactivates():
    checks = [{"name": "prov", "outcomes": [{"after": "1m", "outcome": "CapacityRevoked"}]}]
    sim = Simulator(scenario(checks=checks, cq_checks=["prov"])).run()
    assert [r for _, r in evictions(sim)] == ["DeactivatedDueToAdmissionCheck"]


def _workloads(folder):
    state = load_paths([folder])
    return {k.name: w for k, w in state.workloads.items()}, state


def test_pods_ready_timeout_loop_snapshot(tmp_path):
    scn = load_scenario(str(INCIDENTS / "pods-ready-timeout-loop.yaml"))
    write_snapshot(Simulator(scn).run(30 * 60), tmp_path)
    wls, state = _workloads(tmp_path)
    resnet = next(w for n, w in wls.items() if "train-resnet" in n)
    assert resnet.status.requeue_state is not None and resnet.status.requeue_state.count == 1
    assert resnet.condition("PodsReady").reason == "WaitForStart"
    sweep = next(w for n, w in wls.items() if "eval-sweep" in n)
    assert sweep.condition("Evicted").reason == "PodsReadyTimeout"
    assert sweep.condition("Evicted").message == "Exceeded the PodsReady timeout team-vision/eval-sweep"
    assert any(w.condition("QuotaReserved") is not None and w.condition("QuotaReserved").reason == "WaitingForPodsReady"
               for w in wls.values())
    pulls = [p for p in state.pods.values() if p.meta.namespace == "team-vision" and p.container_statuses]
    assert pulls and pulls[0].container_statuses[0]["state"]["waiting"]["reason"] == "ImagePullBackOff"
    assert any(e.reason == "EvictedDueToPodsReadyTimeout" for e in state.events)
    cfg = yaml.safe_load(next(iter(state.config_maps.values())).data["controller_manager_config.yaml"])
    assert cfg["waitForPodsReady"]["blockAdmission"] is True


def test_admission_check_stuck_snapshot(tmp_path):
    scn = load_scenario(str(INCIDENTS / "admission-check-stuck.yaml"))
    write_snapshot(Simulator(scn).run(50 * 60), tmp_path)
    wls, state = _workloads(tmp_path)
    held = [w for w in wls.values() if w.is_true("QuotaReserved") and not w.is_true("Admitted")]
    assert held and all(w.condition("Admitted").reason == "UnsatisfiedAdmissionChecks" for w in held)
    assert {c.state for w in held for c in w.status.check_states} == {"Pending"}
    assert set(state.admission_checks) == {"dws-prov", "dws-prov-spot", "budget-approval"}
    assert state.provisioning_request_configs["dws-config"].retry_strategy.backoff_limit_count == 5
    prs = state.provisioning_requests
    assert any(p.is_true("BookingExpired") for p in prs.values()) and any(p.is_true("Failed") for p in prs.values())
    vit = next(w for n, w in wls.items() if "train-vit" in n)
    assert vit.condition("Evicted").reason == "AdmissionCheck"
    assert vit.condition("Evicted").message.startswith(
        'Evicted due to AdmissionCheck in Retry state: "dws-prov-spot" (Retrying after booking expired: ')
    assert any(e.reason == "AdmissionCheckUpdated" for e in state.events)
