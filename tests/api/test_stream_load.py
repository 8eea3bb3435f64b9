"""A large kubectl-written List streamed (objects built while later parts decode) loads exactly
what the ordinary way loads, and anything irregular in it is read the ordinary way instead."""
from __future__ import annotations

import itertools

import pytest
import yaml

from kueue_doctor.api import load, yamlfast
from kueue_doctor.api.load import load_paths
from kueue_doctor.errors import InputError

_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
API = "kueue.x-k8s.io/v1beta2"
# one line: kubectl writes a multi-line value as a block scalar, PyYAML's dumper (here) does not
CONFIG = '{"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"}'


def items(n: int) -> list[dict]:
    out: list[dict] = [{"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": "cq"},
                        "spec": {"resourceGroups": []}}]
    for i in range(n):
        out.append({"apiVersion": API, "kind": "Workload",
                    "metadata": {"name": f"w{i}", "namespace": "ns", "uid": f"u{i}", "resourceVersion": str(i + 1),
                                 "creationTimestamp": "2026-01-01T00:00:00Z"},
                    "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                        "containers": [{"name": "c", "resources": {"requests": {"cpu": str(i % 7 + 1)}}}]}}}]}})
        if i % 10 == 3:
            out.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "ns"},
                        "spec": {"nodeName": "node-1", "containers": [{"name": "c"}]}, "status": {"phase": "Running"}})
        if i % 25 == 7:
            out.append({"apiVersion": "v9", "kind": "Gadget", "metadata": {"name": f"g{i}"}})
        if i == 40:
            out.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kueue-config", "namespace": "k"},
                        "data": {"controller_manager_config.yaml": CONFIG}})
    return out


def write(tmp_path, objs: list[dict], name: str = "kueue.yaml"):
    path = tmp_path / name
    path.write_text(yaml.dump({"apiVersion": "v1", "items": objs, "kind": "List"}, Dumper=_DUMPER, width=1000))
    return path


@pytest.fixture
def streamed(monkeypatch):
    """Streaming from the first character, in small parts; records whether a file was streamed."""
    monkeypatch.setattr(yamlfast, "PARALLEL_FROM", 1)
    monkeypatch.setattr(yamlfast, "STREAM_PART", 2000)
    monkeypatch.setattr(yamlfast, "usable_cores", lambda: 2)
    seen: list[bool] = []
    real = load.stream_documents
    monkeypatch.setattr(load, "stream_documents", lambda *a: seen.append(real(*a)) or seen[-1])
    return seen


def ordinary(path, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(load, "stream_documents", lambda *a: False)
        return load_paths([path])


def same_state(a, b) -> None:
    assert list(a.workloads.items()) == list(b.workloads.items())
    assert list(a.pods.items()) == list(b.pods.items())
    assert a.cluster_queues == b.cluster_queues and a.config_maps == b.config_maps
    assert a.skipped == b.skipped and a.configuration == b.configuration and a.files == b.files


def test_a_streamed_list_loads_what_the_ordinary_way_loads(tmp_path, monkeypatch, streamed):
    path = write(tmp_path, items(300))
    got = load_paths([path])
    assert streamed == [True]
    same_state(got, ordinary(path, monkeypatch))
    assert len(got.workloads) == 300 and got.skipped["v9 Gadget"] == 12 and got.configuration is not None


@pytest.mark.parametrize("spoil", ["quirk", "nested list", "scenario"])
def test_an_irregular_item_sends_the_file_the_ordinary_way(tmp_path, monkeypatch, streamed, spoil):
    objs = items(300)
    if spoil == "quirk":   # YAML 1.1 octal, for PyYAML to read, in a late part
        next(o for o in objs if o["metadata"]["name"] == "w248")["metadata"]["generation"] = "0755"
        path = write(tmp_path, objs)
        path.write_text(path.read_text().replace("generation: '0755'", "generation: 0755"))
    elif spoil == "nested list":
        objs.insert(200, {"apiVersion": "v1", "kind": "List", "items": [objs.pop(5)]})
        path = write(tmp_path, objs)
    else:
        objs.insert(200, {"objects": [objs.pop(5)]})
        path = write(tmp_path, objs)
    got = load_paths([path])
    assert streamed == [False]
    same_state(got, ordinary(path, monkeypatch))
    if spoil == "quirk":
        assert got.workloads[next(k for k in got.workloads if k.name == "w248")].meta.generation == 493


@pytest.mark.parametrize("where", [3, 280])
def test_a_bad_object_or_bad_yaml_gives_the_ordinary_error(tmp_path, monkeypatch, streamed, where):
    objs = items(300)
    next(o for o in objs if o["metadata"]["name"] == f"w{where}")["spec"]["podSets"] = "many"
    bad_object = write(tmp_path, objs, "a.yaml")
    bad_yaml = write(tmp_path, items(300), "b.yaml")
    text = bad_yaml.read_text().splitlines(keepends=True)
    cut = len(text) * where // 300
    bad_yaml.write_text("".join([*text[:cut], "- {unclosed: [\n", *text[cut:]]))
    for path in (bad_object, bad_yaml):
        with pytest.raises(InputError) as ours:
            load_paths([path])
        with pytest.raises(InputError) as theirs:
            ordinary(path, monkeypatch)
        assert str(ours.value) == str(theirs.value) and str(path) in str(ours.value)
    assert streamed == [False, False]


@pytest.fixture
def slow_worker(monkeypatch):
    """Workers that take their time, so that this process decodes parts from the end meanwhile;
    returns the parts it decoded itself while streaming, as text (the forked workers record
    theirs in their own copy)."""
    import os
    import time
    here, mine = os.getpid(), []
    real_part, real_decode = yamlfast._worker_part, yamlfast._decode_part

    def slow(span):
        time.sleep(0.02)
        return real_part(span)

    def recording(span, text=None):
        if os.getpid() == here and text is not None:
            mine.append(text[span[0]:span[1]])
        return real_decode(span, text)
    monkeypatch.setattr(yamlfast, "_worker_part", slow)
    monkeypatch.setattr(yamlfast, "_decode_part", recording)
    return mine


def test_parts_this_process_decodes_while_it_waits_load_the_same(tmp_path, monkeypatch, streamed, slow_worker):
    path = write(tmp_path, items(300))
    got = load_paths([path])
    assert streamed == [True]
    text = path.read_text()
    assert slow_worker and all(text.index(a) > text.index(b) for a, b in itertools.pairwise(slow_worker))
    assert "name: w299\n" in slow_worker[0]   # from the end
    same_state(got, ordinary(path, monkeypatch))


def test_a_part_for_pyyaml_that_this_process_decodes_sends_the_file_the_ordinary_way(
        tmp_path, monkeypatch, streamed, slow_worker):
    objs = items(300)
    objs[-1]["metadata"]["generation"] = "0755"
    path = write(tmp_path, objs)
    path.write_text(path.read_text().replace("generation: '0755'", "generation: 0755"))
    got = load_paths([path])
    assert streamed == [False] and any("generation: 0755" in part for part in slow_worker)
    same_state(got, ordinary(path, monkeypatch))


def test_workers_send_workloads_as_records_that_build_the_same_objects(tmp_path, monkeypatch, streamed):
    import os
    import time
    here, built = os.getpid(), []
    real_decode, real_build = yamlfast._decode_part, load.from_record

    def slow_here(span, text=None):   # so that the worker decodes most parts
        if os.getpid() == here:
            time.sleep(0.05)
        return real_decode(span, text)
    monkeypatch.setattr(yamlfast, "_decode_part", slow_here)
    monkeypatch.setattr(load, "from_record", lambda r: built.append(r[0]) or real_build(r))
    path = write(tmp_path, items(300))
    got = load_paths([path])
    assert streamed == [True] and "Workload" in built and "Pod" in built
    same_state(got, ordinary(path, monkeypatch))
