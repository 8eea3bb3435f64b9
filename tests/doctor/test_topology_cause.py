"""topology-fragmentation on gathered TAS folders (tests/data/causes/topology-*, written by
topology_folders.py): named first where no rack has room, not where one has, not on a
healthy busy cluster, and `unknown` with what to collect when Topologies or Nodes are missing."""
from __future__ import annotations

import json

from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.doctor.diagnose import diagnose_facts

from . import cause_folders
from . import topology_folders as tf
from .cluster import facts_of

DATA = cause_folders.DATA
HEAD = "training/job-llm-pretrain-8x4-7c1d2"


def diagnose(name: str) -> tuple[int, dict]:
    out = CliRunner().invoke(cli, ["diagnose", str(DATA / name), "-o", "json"])
    assert out.exception is None or isinstance(out.exception, SystemExit), out.output
    return out.exit_code, json.loads(out.stdout)


def ids(d: dict) -> list[str]:
    return [c["id"] for c in d["causes"]]


def test_the_committed_folders_are_what_the_builder_writes(tmp_path):
    for name in tf.FOLDERS:
        fresh = tf.write(tmp_path, name)
        committed = {p.name: p.read_bytes() for p in (DATA / name).iterdir() if p.name != "PROVENANCE.md"}
        assert {p.name: p.read_bytes() for p in fresh.iterdir()} == committed, name


def test_no_rack_with_room_is_named_first_with_the_numbers():
    code, d = diagnose("topology-fragmentation")
    assert code == 1 and d["verdict"] == "violation"
    c = d["causes"][0]
    assert c["id"] == "topology-fragmentation" and c["confidence"] == "high"
    assert c["clusterQueues"] == ["training"] and c["workloads"] == [HEAD]
    assert ("no rack (cloud.provider.com/topology-rack) of flavor h100-tas has room for pod set workers: largest "
            "free rack: 24 GPUs (b2/b2-r1, room for 5 of 8 pods); needs 32 GPUs (8 pods x 4 GPUs) in one rack"
            in c["summary"])
    assert "Preemption cannot free a rack" in c["summary"]
    ev = c["evidence"]
    # Kueue's own message, and the engine's placement saying the same
    assert f"Kueue: QuotaReserved=False, reason Pending: {tf.HEAD_MESSAGE}" in ev
    assert any(e.startswith("engine's TAS placement now: topology \"h100-topology\" allows to fit only 5 out of 8")
               for e in ev)
    assert ("largest free domain per level on h100-tas: block b2: 44 GPUs (of 2 blocks); rack b2/b2-r1: 24 GPUs "
            "(of 4 racks); node gpu-b1-r1-n3: 8 GPUs (of 16 nodes)") in ev
    # the best candidate racks and what holds them: pods Kueue does not manage, TAS workloads
    assert ("rack b2/b2-r1 (24 GPUs free, takes 5 of 8 pods) is used by pods Kueue does not manage "
            "notebooks/jupyter-alice (2 GPUs), notebooks/jupyter-bob (6 GPUs)") in ev
    assert any(e.startswith("rack b2/b2-r2 (20 GPUs free, takes 5 of 8 pods) is used by TAS workloads "
                            "research/job-eval-suite-0b3d5 (research, 1 pod, 8 GPUs); pods Kueue does not manage "
                            "gpu-ops/gpu-burn-check (4 GPUs)") for e in ev)
    assert "preferred" in c["remedy"]


def test_not_named_when_a_rack_has_room():
    # Kueue's condition still carries the last cycle's topology message; the engine places the head
    _, d = diagnose("topology-rack-free")
    assert "topology-fragmentation" not in ids(d)


def test_not_named_on_a_healthy_busy_cluster():
    # the non-TAS one of the other cause folders, and the fragmented racks with nothing owed
    for name in ("healthy-busy", "topology-healthy-busy"):
        code, d = diagnose(name)
        assert code == 0 and d["verdict"] == "no-violation" and d["causes"] == [], name
    _, d = diagnose("topology-healthy-busy")
    assert step2(d)["status"] == "skipped"


def test_preemption_that_frees_a_rack_is_named(tmp_path):
    objs = tf.cluster(False)
    for o in objs:
        if o["kind"] == "ClusterQueue" and o["metadata"]["name"] == "training":
            o["spec"]["preemption"]["withinClusterQueue"] = "LowerPriority"
        if o["kind"] == "Workload" and o["metadata"]["name"] == tf.HEAD[1]:
            o["spec"]["priority"] = 100
    d = diagnose_facts(facts_of(tmp_path, objs))
    c = next(c for c in d.causes if c.id == "topology-fragmentation")
    assert ("Preemption can free a rack: Kueue's preemption would evict training/job-finetune-7b-41c7e "
            "(InClusterQueue, in training)") in c.summary


def test_unknown_with_what_to_collect_without_topologies(tmp_path):
    objs = [o for o in tf.cluster(False) if o["kind"] != "Topology"]
    d = diagnose_facts(facts_of(tmp_path, objs))
    c = next(c for c in d.causes if c.id == "topology-fragmentation")
    assert c.confidence == "medium" and "unknown" in c.summary
    assert "kubectl get topologies.kueue.x-k8s.io -o yaml" in c.summary


def test_unknown_without_nodes(tmp_path):
    objs = [o for o in tf.cluster(False) if o["kind"] != "Node"]
    d = diagnose_facts(facts_of(tmp_path, objs))
    c = next(c for c in d.causes if c.id == "topology-fragmentation")
    assert "unknown" in c.summary and "kubectl get nodes -o yaml" in c.summary


def test_not_named_for_a_head_that_asks_for_no_topology(tmp_path):
    objs = tf.cluster(False)
    for o in objs:
        if o["kind"] == "ResourceFlavor":
            o["spec"].pop("topologyName")
        if o["kind"] == "Workload" and o["metadata"]["name"] == tf.HEAD[1]:
            o["spec"]["podSets"][0].pop("topologyRequest")
            o["spec"]["podSets"][0]["template"].pop("metadata")
            o["status"]["conditions"][0]["message"] = "couldn't assign flavors to pod set workers: insufficient quota"
    d = diagnose_facts(facts_of(tmp_path, objs))
    assert "topology-fragmentation" not in [c.id for c in d.causes]


def explain_json(name: str) -> dict:
    out = CliRunner().invoke(cli, ["explain", HEAD, str(DATA / name), "-o", "json"])
    assert out.exception is None or isinstance(out.exception, SystemExit), out.output
    return json.loads(out.stdout)


def test_explain_shows_free_capacity_per_rack_and_the_failure():
    import jsonschema

    doc = explain_json("topology-fragmentation")
    schema = json.loads((DATA.parents[2] / "src/kueue_doctor/data/schemas/Explanation.schema.json").read_text())
    jsonschema.validate(doc, schema)
    (item,) = [i for i in doc["chain"] if i["topic"] == "topology"]
    data = item["data"]
    assert data["level"] == tf.RACK and data["mode"] == "required" and data["flavor"] == "h100-tas"
    assert [(d["domain"], d["free"]["nvidia.com/gpu"], d["pods"]) for d in data["domains"]] == [
        ("b2/b2-r1", "24", 5), ("b2/b2-r2", "20", 5), ("b1/b1-r1", "16", 4), ("b1/b1-r2", "8", 2)]
    assert data["domainCount"] == 4 and data["assignment"] is None and data["fitsEmptyCluster"] is True
    assert data["failure"].startswith('topology "h100-topology" allows to fit only 5 out of 8 pod(s)')
    assert "free per rack: b2/b2-r1 24 GPUs (5 of 8 pods)" in item["text"] and "and 1 more (4 rack(s))" in item["text"]


def test_explain_shows_the_assignment_where_a_rack_has_room():
    doc = explain_json("topology-rack-free")
    (item,) = [i for i in doc["chain"] if i["topic"] == "topology"]
    a = item["data"]["assignment"]
    assert a["levels"] == [tf.HOST]
    assert [(d["values"][-1], d["count"]) for d in a["domains"]] == [(f"gpu-b1-r1-n{i}", 2) for i in (1, 2, 3, 4)]
    assert item["data"]["failure"] is None


def step2(d: dict) -> dict:
    return next(s for s in d["steps"] if s["step"] == 2)


def test_step2_covers_topology_domains():
    _, d = diagnose("topology-fragmentation")
    s = step2(d)
    assert s["status"] == "fail" and s["summary"] == "no topology domain has room for the head of training"
    assert s["read"]["Topology"] == 2
    assert (f"training: head {HEAD} pod set workers: no rack of h100-tas has room: largest free rack: 24 GPUs "
            "(b2/b2-r1, room for 5 of 8 pods); needs 32 GPUs (8 pods x 4 GPUs) in one rack") in s["evidence"]
    # node slots alone would have passed it: 16 single-pod slots are free
    assert any("slots are free, so fragmentation does not explain the wait" in e for e in s["evidence"])
    _, d = diagnose("topology-rack-free")
    assert step2(d)["status"] == "pass"


def test_step2_unknown_without_topologies(tmp_path):
    objs = [o for o in tf.cluster(False) if o["kind"] != "Topology"]
    d = diagnose_facts(facts_of(tmp_path, objs))
    s = d.steps[1]
    assert s.status == "unknown" and "kubectl get topologies.kueue.x-k8s.io -o yaml" in s.summary


def test_diagnosis_json_keeps_its_schema():
    import jsonschema
    _, d = diagnose("topology-fragmentation")
    schema = json.loads((DATA.parents[2] / "src/kueue_doctor/data/schemas/Diagnosis.schema.json").read_text())
    jsonschema.validate(d, schema)


def test_preferred_instead_of_required_fits_and_is_not_named(tmp_path):
    # the remedy the cause gives: preferred rack falls back to a block, where 10 of 8 pods fit
    objs = tf.cluster(False)
    for o in objs:
        if o["kind"] == "Workload" and o["metadata"]["name"] == tf.HEAD[1]:
            o["spec"]["podSets"][0]["topologyRequest"] = {"preferred": tf.RACK}
            o["spec"]["podSets"][0]["template"]["metadata"]["annotations"] = {
                "kueue.x-k8s.io/podset-preferred-topology": tf.RACK}
    facts = facts_of(tmp_path, objs)
    d = diagnose_facts(facts)
    assert "topology-fragmentation" not in [c.id for c in d.causes]
    (p,) = facts.queues["training"].head.topology.pod_sets
    assert p.mode == "preferred" and not p.failure
    assert {dom.values[0] for dom in p.assignment.domains} <= {f"gpu-b2-r{r}-n{n}" for r in (1, 2) for n in range(1, 5)}


def test_explain_says_unknown_and_what_to_collect_without_nodes(tmp_path):
    from kueue_doctor.doctor.explain import explain_facts
    from kueue_doctor.keys import WorkloadKey
    objs = [o for o in tf.cluster(False) if o["kind"] != "Node"]
    out = explain_facts(facts_of(tmp_path, objs), WorkloadKey.parse(HEAD))
    (item,) = [i for i in out["chain"] if i["topic"] == "topology"]
    assert "unknown" in item["text"] and "kubectl get nodes -o yaml" in item["text"]
    assert item["data"]["missing"]


def test_a_pod_set_no_rack_can_ever_hold(tmp_path):
    # 10 pods x 4 GPUs = 40 in one rack of 32: training's unused 40 GPUs of quota owe it, no rack ever holds it
    objs = tf.cluster(False)
    for o in objs:
        if o["kind"] == "Workload" and o["metadata"]["name"] == tf.HEAD[1]:
            o["spec"]["podSets"][0]["count"] = 10
    facts = facts_of(tmp_path, objs)
    assert facts.queues["training"].head.mode == "NoFit"
    c = next(c for c in diagnose_facts(facts).causes if c.id == "topology-fragmentation")
    assert "needs 40 GPUs (10 pods x 4 GPUs) in one rack" in c.summary
    assert "Preemption cannot help: no rack of h100-tas holds it even with every TAS workload gone" in c.summary
