"""One WorkloadKey from the cluster state to the outputs: a workload given as text finds its
facts, every layer's map answers the same key, and no key reaches an output unrendered.

A text key looked up in a map of WorkloadKeys does not fail, it just misses; these tests fail
where such a miss would silently drop a verdict, a position or a log line."""
from __future__ import annotations

import json
from typing import Any

import pytest

from kueue_doctor.doctor.diagnose import diagnose_facts
from kueue_doctor.doctor.explain import explain, explain_facts
from kueue_doctor.errors import InputError
from kueue_doctor.guarantee import Fit
from kueue_doctor.keys import WorkloadKey
from kueue_doctor.sources.snapshot import load_folder

from .cluster import cluster_queue, facts_of, flavor, local_queue, workload, write_folder

# StrictFIFO behind a head that can never fit: "small" fits the unused nominal quota and waits
OBJECTS = [flavor("f", {}), cluster_queue("q", {"f": 8}), local_queue("team-a", "lq", "q"),
           workload("team-a", "big", "lq", 16, created="2026-11-30T11:00:00Z"),
           workload("team-a", "small", "lq", 2)]
SMALL = WorkloadKey("team-a", "small")


def no_keys(value: Any, where: str = "$") -> None:
    """Everything a writer gets is JSON-ready: text where a workload is named, never a key."""
    assert not isinstance(value, WorkloadKey), f"{where}: a WorkloadKey reached the output unrendered"
    if isinstance(value, dict):
        for k, v in value.items():
            assert isinstance(k, str), f"{where}: mapping key {k!r}"
            no_keys(v, f"{where}.{k}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            no_keys(v, f"{where}[{i}]")


def test_every_layer_answers_the_same_key(tmp_path):
    facts = facts_of(tmp_path, OBJECTS)
    q = facts.queues["q"]
    assert q.pending == (WorkloadKey("team-a", "big"), SMALL)
    for key in q.pending:
        assert type(key) is WorkloadKey
        assert facts.workloads[key].key == key
        assert facts.model.infos[key].key == key
        assert key in facts.state.workloads
        assert key in q.guarantee.verdicts
    assert q.guarantee.verdicts[SMALL].fit is Fit.FITS
    assert q.guarantee.violating == (SMALL,)
    assert q.head is not None and q.head.key == WorkloadKey("team-a", "big")
    # the mismatch the type makes visible: text names nothing in these maps
    assert "team-a/small" not in q.guarantee.verdicts and "team-a/small" not in facts.workloads


def test_explain_finds_a_workload_given_as_text(tmp_path):
    snap = load_folder(str(write_folder(tmp_path, OBJECTS)))
    out = explain(snap, "team-a/small")
    no_keys(out)
    assert json.loads(json.dumps(out)) == out
    assert out["workload"] == "team-a/small"
    chain = {item["topic"]: item for item in reversed(out["chain"])}   # the first item of each topic
    assert chain["position"]["data"]["head"] == "team-a/big"
    # the verdict was found under the parsed key: a miss would leave the guarantee out
    assert chain["guarantee"]["data"]["violation"] is True
    assert chain["guarantee"]["data"]["fit"] == "fits"


@pytest.mark.parametrize("text", ["small", "team-a/", "/small", "team-a/small/x"])
def test_explain_rejects_what_is_not_namespace_slash_name(tmp_path, text):
    snap = load_folder(str(write_folder(tmp_path, OBJECTS)))
    with pytest.raises(InputError, match="expected NAMESPACE/NAME of a Workload"):
        explain(snap, text)


def test_diagnosis_and_explain_render_keys_as_text(tmp_path):
    facts = facts_of(tmp_path, OBJECTS)
    d = diagnose_facts(facts)
    j = d.to_json()
    no_keys(j)
    assert j["violations"][0]["pendingWorkloads"] == ["team-a/small"]
    assert any("team-a/small" in c["workloads"] for c in j["causes"])
    no_keys(explain_facts(facts, SMALL))
