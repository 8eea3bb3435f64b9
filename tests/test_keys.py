"""WorkloadKey: the one name of a workload, text only at the edges."""
from __future__ import annotations

import json
import pickle

import pytest

from kueue_doctor.api import build
from kueue_doctor.api.state import ClusterState
from kueue_doctor.errors import InputError
from kueue_doctor.keys import WorkloadKey


def test_text_form_round_trips():
    k = WorkloadKey("team-a", "train-1")
    assert str(k) == f"{k}" == "team-a/train-1"
    assert WorkloadKey.parse(str(k)) == k
    assert (k.namespace, k.name) == ("team-a", "train-1")


def test_of_reads_the_metadata():
    wl = build.workload("ns", "w", "lq", {"cpu": "1"})
    assert WorkloadKey.of(wl.meta) == WorkloadKey("ns", "w")


@pytest.mark.parametrize("text", ["", "w", "/w", "ns/", "ns/w/x", "/"])
def test_parse_rejects_what_is_not_namespace_slash_name(text):
    with pytest.raises(InputError) as e:
        WorkloadKey.parse(text)
    assert str(e.value) == f"{text!r}: expected NAMESPACE/NAME of a Workload"
    assert "\n" not in str(e.value)


def test_a_key_is_a_tuple_not_its_text():
    """The mismatch this type exists to make loud: text never finds a key, a tuple does."""
    k = WorkloadKey("ns", "w")
    d = {k: 1}
    assert "ns/w" not in d
    assert ("ns", "w") in d
    assert hash(k) == hash(("ns", "w"))
    # a writer sees a list, so outputs render keys with str()
    assert json.dumps(k) == '["ns", "w"]'
    assert pickle.loads(pickle.dumps(k)) == k and type(pickle.loads(pickle.dumps(k))) is WorkloadKey


def test_keys_sort_by_namespace_then_name_unlike_their_text():
    keys = [WorkloadKey("team-a", "x"), WorkloadKey("team", "x")]
    assert sorted(keys) == [WorkloadKey("team", "x"), WorkloadKey("team-a", "x")]
    assert sorted(keys, key=str) == [WorkloadKey("team-a", "x"), WorkloadKey("team", "x")]


def test_cluster_state_keys_workloads_by_workload_key():
    state = ClusterState()
    state.add(build.workload("ns", "w", "lq", {"cpu": "1"}))
    (key,) = state.workloads
    assert type(key) is WorkloadKey and key == WorkloadKey("ns", "w")
