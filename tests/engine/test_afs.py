"""Admission fair sharing (engine/afs.py): what the six afs-* conformance cases do not pin down.

Upstream: pkg/util/admissionfairsharing (arithmetic), pkg/cache/queue/afs (ledger, penalties),
pkg/scheduler/scheduler_afs_test.go (TestScheduleForAFS, TestShouldApplyEntryPenalty),
pkg/controller/core/localqueue_controller.go (sampling), kube_features.go (the gate).
"""
from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from kueue_doctor.api.load import load_documents
from kueue_doctor.engine import afs
from kueue_doctor.engine.afs import AfsBehaviour, AfsConfig, UsageLedger
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.keys import WorkloadKey
from kueue_doctor.kueue.features import GATES
from kueue_doctor.kueue.releases import release_for
from kueue_doctor.kueue.version import Version

NOW = datetime(2024, 1, 1, tzinfo=UTC)
CFG = AfsConfig(usage_half_life_time=10, usage_sampling_interval=1)
ROOT = Path(__file__).resolve().parents[2]
FLAVOR = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}}


def cq(name: str = "cq1", cpu: str = "8", afs_mode: bool = True) -> dict:
    spec: dict = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [
        {"name": "default", "resources": [{"name": "cpu", "nominalQuota": cpu}, {"name": "memory", "nominalQuota": "8Gi"}]}]}]}
    if afs_mode:
        spec["admissionScope"] = {"admissionMode": "UsageBasedAdmissionFairSharing"}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def lq(name: str, weight: str | None = "1", consumed: dict | None = None, api: str = "v1beta2") -> dict:
    spec: dict = {"clusterQueue": "cq1"}
    if weight is not None:
        spec["fairSharing"] = {"weight": weight}
    obj: dict = {"apiVersion": f"kueue.x-k8s.io/{api}", "kind": "LocalQueue",
                 "metadata": {"name": name, "namespace": "default"}, "spec": spec}
    if consumed is not None:
        obj["status"] = {"fairSharing": {"weightedShare": 0, "admissionFairSharingStatus": {
            "consumedResources": consumed, "lastUpdate": "2024-01-01T00:00:00Z"}}}
    return obj


def wl(name: str, queue: str, cpu: str, created: int = 0, priority: int = 0, memory: str | None = None) -> dict:
    req = {"cpu": cpu, **({"memory": memory} if memory else {})}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": name, "namespace": "default",
                         "creationTimestamp": (NOW + timedelta(seconds=created)).strftime("%Y-%m-%dT%H:%M:%SZ")},
            "spec": {"queueName": queue, "priority": priority, "podSets": [{"name": "one", "count": 1, "template": {
                "spec": {"containers": [{"name": "c", "resources": {"requests": req}}]}}}]}}


def admitted(objects: list[dict], cycles: int, cfg: AfsConfig | None = CFG, behaviour: AfsBehaviour | None = None,
             gate: bool = True) -> list[str]:
    """Names admitted, in order, after ``cycles`` scheduling cycles."""
    ec = EngineConfig(gates={"AdmissionFairSharing": gate}, admission_fair_sharing=cfg,
                      afs_behaviour=behaviour or AfsBehaviour())
    ec.requeuing_timestamp = ""
    model = AdmissionModel(load_documents([FLAVOR, *objects], "test"), ec)
    out = []
    for _ in range(cycles):
        out += [e.key.name for e in model.cycle(NOW).admitted]
    return out


# -- arithmetic ---------------------------------------------------------------------------------------
def test_alpha_is_the_weight_of_the_newest_sample():
    assert afs.alpha(10, 10) == 0.5
    assert afs.alpha(20, 10) == 0.75
    assert afs.alpha(1, 10) == pytest.approx(1 - 0.5 ** 0.1)
    assert afs.alpha(5, 0) == 0.0      # half-life 0: no penalty, no decay arithmetic


def test_consumed_decays_by_half_per_half_life_toward_admitted_usage():
    assert afs.decayed({"cpu": 8}, {}, 10, 10) == {"cpu": 4}
    assert afs.decayed({"cpu": 8}, {}, 30, 10) == {"cpu": 1}
    assert afs.decayed({}, {"cpu": 8}, 10, 10) == {"cpu": 4}
    # a steady admitted usage is the fixed point
    assert afs.decayed({"cpu": 6}, {"cpu": 6}, 7, 10)["cpu"] == pytest.approx(6)


def test_usage_weights_resources_and_divides_by_the_localqueue_weight():
    consumed = {"cpu": 4, "memory": 2 ** 30}
    assert afs.usage(consumed, {}, 1, {"memory": 0}) == 4
    assert afs.usage(consumed, {"cpu": 1}, 2, {"cpu": 2, "memory": 0}) == 5   # (2*5 + 0) / 2
    assert afs.usage(consumed, {}, 1, {}) == 4 + 2 ** 30                      # unlisted weight 1


def test_zero_weight_is_last_since_the_fix_and_nan_first_before():
    assert afs.usage({}, {}, 0, {}) == math.inf
    assert afs.usage({"cpu": 3}, {}, 0, {}) == math.inf
    assert math.isnan(afs.usage({}, {}, 0, {}, zero_weight_inf=False))
    assert afs.usage({"cpu": 3}, {}, 0, {}, zero_weight_inf=False) == math.inf
    assert afs.order_key(math.nan) < afs.order_key(0.0) < afs.order_key(math.inf)


def test_entry_penalty_is_requests_times_alpha_of_the_sampling_interval():
    a = 1 - 0.5 ** 0.1
    p = afs.entry_penalty({"cpu": 4}, CFG)
    assert p["cpu"] == pytest.approx(4 * a, abs=1e-9) and p["cpu"] <= 4 * a
    # before v0.18.5 / v0.19.1 every scaled amount was truncated to milli units
    assert afs.entry_penalty({"cpu": 4}, CFG, nano=False) == {"cpu": 0.267}
    assert afs.entry_penalty({"nvidia.com/gpu": 1}, AfsConfig(3600, 1), nano=False) == {"nvidia.com/gpu": 0.0}
    assert afs.entry_penalty({"nvidia.com/gpu": 1}, AfsConfig(3600, 1))["nvidia.com/gpu"] > 0


# -- the ledger ---------------------------------------------------------------------------------------------
def test_ledger_penalty_replaces_a_workloads_record_settles_once_and_can_be_dropped():
    led = UsageLedger(CFG)
    k, w = ("default", "lq-a"), WorkloadKey("default", "a")
    led.push_penalty(k, w, {"cpu": 4}, NOW)
    led.push_penalty(k, w, {"cpu": 4}, NOW)          # a re-assume never stacks
    assert led.usage(k) == pytest.approx(4 * (1 - 0.5 ** 0.1), abs=1e-8)
    led.settle(k, w, {"cpu": 4}, NOW)                  # elapsed 0: consumed is the penalty alone
    assert led.entries[k].penalties == {}
    assert led.usage(k) == pytest.approx(4 * (1 - 0.5 ** 0.1), abs=1e-8)
    w2 = WorkloadKey("default", "b")
    led.push_penalty(k, w2, {"cpu": 8}, NOW)
    assert led.sub_penalty(k, w2)["cpu"] > 0
    assert led.sub_penalty(k, w2) == {}


def test_sampling_follows_the_interval_and_half_life_zero_resets():
    led = UsageLedger(CFG)
    k = ("default", "lq")
    led.sample(k, {"cpu": 8}, NOW)                     # a new LocalQueue starts empty at now
    assert led.usage(k) == 0
    assert not led.due(k, NOW + timedelta(milliseconds=500))
    assert led.due(k, NOW + timedelta(seconds=1))
    led.sample(k, {"cpu": 8}, NOW + timedelta(seconds=10))
    assert led.usage(k) == pytest.approx(4)
    led.sample(k, {"cpu": 8}, NOW + timedelta(seconds=20))
    assert led.usage(k) == pytest.approx(6)
    reset = UsageLedger(AfsConfig(0, 1))
    reset.entries[k] = afs.LedgerEntry({"cpu": 5}, last_update=NOW)
    reset.sample(k, {"cpu": 8}, NOW + timedelta(seconds=2))
    assert reset.usage(k) == 0


def test_before_v0_15_a_localqueue_without_status_counts_as_idle_whatever_its_penalty():
    led = UsageLedger(CFG, AfsBehaviour(ledger=False))
    k = ("default", "new")
    led.push_penalty(k, WorkloadKey("default", "x"), {"cpu": 8}, NOW)
    assert led.usage(k) == 0


# -- ordering and the penalty in the cycle ----------------------------------------------------------------
def test_usage_orders_heads_before_priority():
    objs = [cq(), lq("busy", consumed={"cpu": "4"}), lq("idle"),
            wl("high", "busy", "8", priority=100), wl("low", "idle", "8", created=5)]
    assert admitted(objs, 2) == ["low"]
    assert admitted(objs, 2, gate=False) == ["high"]


def test_localqueue_weight_and_resource_weights_change_the_order():
    # lq-a used 4 cpu with weight 4 (usage 1); lq-b 2 cpu with weight 1 (usage 2)
    objs = [cq(), lq("lq-a", "4", {"cpu": "4"}), lq("lq-b", "1", {"cpu": "2"}),
            wl("a", "lq-a", "8", created=1), wl("b", "lq-b", "8")]
    assert admitted(objs, 2) == ["a"]
    # memory weighted heavily: lq-a's 1Gi outweighs lq-b's cpu
    objs = [cq(), lq("lq-a", consumed={"cpu": "1", "memory": "1Gi"}), lq("lq-b", consumed={"cpu": "4"}),
            wl("a", "lq-a", "8"), wl("b", "lq-b", "8", created=1)]
    assert admitted(objs, 2, AfsConfig(10, 1, {"memory": 1e-8})) == ["b"]
    assert admitted(objs, 2, AfsConfig(10, 1, {"memory": 1e-10})) == ["a"]


def test_the_entry_penalty_gives_each_localqueue_its_turn():
    # afs-006 with the penalty off (v0.12): lq-a's two workloads go first
    objs = [cq(), lq("lq-a", consumed={"cpu": "4"}), lq("lq-b", consumed={"cpu": "4"}),
            wl("a1", "lq-a", "4"), wl("a2", "lq-a", "4", 1), wl("b1", "lq-b", "4", 2), wl("b2", "lq-b", "4", 3)]
    assert admitted(objs, 4) == ["a1", "b1"]
    assert admitted(objs, 4, behaviour=AfsBehaviour(entry_penalty=False)) == ["a1", "a2"]


def test_zero_weight_idle_localqueue_went_first_before_the_fix():
    objs = [cq(), lq("lq-a", consumed={"cpu": "0"}), lq("lq-zero", "0", {"cpu": "0"}),
            wl("z1", "lq-zero", "8"), wl("a1", "lq-a", "8", 1)]
    assert admitted(objs, 2) == ["a1"]                                                # afs-002
    assert admitted(objs, 2, behaviour=AfsBehaviour.for_release(Version(0, 19, 0))) == ["z1"]


def test_afs_needs_the_config_the_gate_and_a_usage_based_clusterqueue():
    base = [lq("lq-a", consumed={"cpu": "8"}), lq("lq-b", consumed={"cpu": "2"}),
            wl("a1", "lq-a", "8"), wl("b1", "lq-b", "8", 1)]
    assert admitted([cq(), *base], 2) == ["b1"]
    assert admitted([cq(), *base], 2, cfg=None) == ["a1"]
    assert admitted([cq(), *base], 2, gate=False) == ["a1"]
    assert admitted([cq(afs_mode=False), *base], 2) == ["a1"]


def test_no_penalty_outside_a_usage_based_clusterqueue_or_for_a_reserved_workload():
    ec = EngineConfig(admission_fair_sharing=CFG)
    model = AdmissionModel(load_documents([FLAVOR, cq(afs_mode=False), lq("lq-a"), wl("a1", "lq-a", "4")], "t"), ec)
    model.cycle(NOW)
    assert model.queues.afs_ledger is not None and model.queues.afs_ledger.entries == {}
    model = AdmissionModel(load_documents([FLAVOR, cq(), lq("lq-a"), wl("a1", "lq-a", "4")], "t"), ec)
    model.cycle(NOW)
    assert model.queues.afs_ledger is not None
    assert model.queues.afs_ledger.entries[("default", "lq-a")].penalty()["cpu"] > 0


# -- the gate and the release model --------------------------------------------------------------------------
@pytest.mark.parametrize(("tag", "on"), [("0.11.9", False), ("0.12.0", False), ("0.14.8", False),
                                         ("0.15.0", True), ("0.19.2", True), ("0.20.0", True)])
def test_admission_fair_sharing_gate_by_release(tag, on):
    assert release_for(tag).gates["AdmissionFairSharing"] is on
    assert GATES["AdmissionFairSharing"].spec(Version(0, 11, 9)) is None
    assert release_for("0.12.0", {"AdmissionFairSharing": True}).gates["AdmissionFairSharing"] is True
    assert release_for("0.11.0", {"AdmissionFairSharing": True}).gates["AdmissionFairSharing"] is False


@pytest.mark.parametrize(("tag", "penalty", "ledger", "fixed"), [
    ("0.12.5", False, False, False), ("0.13.0", True, False, False), ("0.15.0", True, True, False),
    ("0.18.4", True, True, False), ("0.18.5", True, True, True), ("0.19.0", True, True, False),
    ("0.19.1", True, True, True), ("0.20.0", True, True, True)])
def test_afs_behaviour_by_release(tag, penalty, ledger, fixed):
    b = AfsBehaviour.for_release(release_for(tag).version)
    assert (b.entry_penalty, b.ledger, b.zero_weight_inf, b.nano) == (penalty, ledger, fixed, fixed)


# -- API --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("api", ["v1beta1", "v1beta2"])
def test_configuration_and_localqueue_fields_in_both_versions(api):
    conf = {"apiVersion": f"config.kueue.x-k8s.io/{api}", "kind": "Configuration",
            "admissionFairSharing": {"usageHalfLifeTime": "168h", "resourceWeights": {"nvidia.com/gpu": 2}}}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"},
          "data": {"controller_manager_config.yaml": yaml.safe_dump(conf)}}
    state = load_documents([cm, lq("q", "0.5", {"cpu": "1500m"}, api=api)], "t")
    c = state.configuration
    assert c is not None and c.admission_fair_sharing is not None
    assert c.admission_fair_sharing.usage_half_life_time == 168 * 3600
    assert c.admission_fair_sharing.usage_sampling_interval == 300      # Kueue's default
    ec = EngineConfig.from_kueue(c)
    assert ec.admission_fair_sharing == AfsConfig(168 * 3600, 300, {"nvidia.com/gpu": 2.0})
    q = state.local_queues[("default", "q")]
    assert afs.weight_of(q) == 0.5
    assert q.afs_status is not None and afs.amounts_of(q.afs_status.consumed_resources) == {"cpu": 1.5}


# -- simulator ----------------------------------------------------------------------------------------------------
def test_simulator_alternates_teams_and_writes_the_localqueue_status(tmp_path):
    from kueue_doctor.sim.scenario import load_with
    from kueue_doctor.sim.simulator import Simulator
    from kueue_doctor.sim.snapshot import write_snapshot

    path = str(ROOT / "examples" / "afs" / "two-teams.yaml")

    def waits(gates: dict[str, bool]) -> dict[str, float]:
        sim = Simulator(load_with(path, gates=gates)).run()
        by: dict[str, list[float]] = {}
        for sw in sim.workloads.values():
            assert sw.first_admitted_at is not None
            by.setdefault(sw.spec.klass, []).append(sw.first_admitted_at - sw.spec.at)
        return {k: sum(v) / len(v) for k, v in by.items()}

    fair, fifo = waits({}), waits({"AdmissionFairSharing": False})
    assert fair["team-b"] < fifo["team-b"] / 2
    sim = Simulator(load_with(path)).run(until=7200)
    write_snapshot(sim, tmp_path)
    from kueue_doctor.api.load import load_paths
    state = load_paths([str(tmp_path)])
    lqs = state.local_queues
    assert all(q.afs_status is not None for q in lqs.values())
    consumed = {k[1]: afs.amounts_of(q.afs_status.consumed_resources) for k, q in lqs.items() if q.afs_status}
    assert consumed["team-a"]["nvidia.com/gpu"] > 0 and consumed["team-b"]["nvidia.com/gpu"] > 0
    assert state.configuration is not None and state.configuration.admission_fair_sharing is not None
    assert state.cluster_queues["shared"].admission_mode == "UsageBasedAdmissionFairSharing"


def test_doctor_reports_localqueue_usage_and_rank_of_a_simulated_snapshot(tmp_path):
    from datetime import timedelta as td

    from kueue_doctor.doctor.gather import build_facts
    from kueue_doctor.sim.scenario import load_with
    from kueue_doctor.sim.simulator import Simulator
    from kueue_doctor.sim.snapshot import write_snapshot
    from kueue_doctor.sources.snapshot import load_folder

    sim = Simulator(load_with(str(ROOT / "examples" / "afs" / "two-teams.yaml"))).run(until=7200)
    write_snapshot(sim, tmp_path)
    facts = build_facts(load_folder(str(tmp_path)), td(minutes=5))
    pending = [wf for wf in facts.workloads.values() if wf.position is not None]
    assert pending and all(wf.lq_usage is not None and wf.lq_rank is not None for wf in pending)
    by_lq = {wf.local_queue: (wf.lq_usage, wf.lq_rank) for wf in pending}
    ranked = sorted(by_lq, key=lambda n: by_lq[n][0] or 0.0)
    assert [by_lq[n][1] for n in ranked] == [(i + 1, len(ranked)) for i in range(len(ranked))]
    # the head comes from the lowest-usage LocalQueue
    head = min(pending, key=lambda wf: wf.position or 0)
    assert head.lq_rank == (1, len(ranked))
