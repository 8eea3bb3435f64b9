"""A ConcurrentAdmission variant whose parent already runs as another variant is owed nothing:
Kueue switches it off or lets it wait to migrate, and the parent's work runs."""
from __future__ import annotations

from kueue_doctor.guarantee import Fit
from tests.doctor.cluster import cluster_queue, facts_of, flavor, local_queue, workload

PARENT = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "name": "job-train", "uid": "parent-uid",
          "controller": True, "blockOwnerDeletion": True}


def objects(variant_owned: bool) -> list[dict]:
    running = workload("research", "job-train-b300-aaaaa", "main", 8, admitted_to=("research", "b300"))
    waiting = workload("research", "job-train-b300-bbbbb", "main", 8, created="2026-11-30T11:00:00Z")
    if variant_owned:
        for w in (running, waiting):
            w["metadata"]["ownerReferences"] = [dict(PARENT)]
    return [flavor("b300", {}), cluster_queue("research", {"b300": 16}), local_queue("research", "main", "research"),
            running, waiting]


def test_a_waiting_variant_of_a_running_parent_is_no_violation(tmp_path):
    facts = facts_of(tmp_path / "v", objects(variant_owned=True))
    g = facts.queues["research"].guarantee
    assert not g.violating and not g.fitting
    (key,) = (k for k in facts.queues["research"].pending if k.name.endswith("bbbbb"))
    assert g.verdicts[key].fit is Fit.SIBLING_ADMITTED


def test_the_same_work_without_a_parent_is_a_violation(tmp_path):
    # the rule is about variants only: an ordinary workload that fits and waits is still owed
    facts = facts_of(tmp_path / "w", objects(variant_owned=False))
    assert [k.name for k in facts.queues["research"].guarantee.violating] == ["job-train-b300-bbbbb"]
