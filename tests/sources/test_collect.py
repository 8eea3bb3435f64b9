"""collect and live mode through the real `kubernetes` client against a recorded API server on 127.0.0.1."""
from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.sources.kube_collect import KUEUE_POD_LABELS
from tests.paths import REPO

from .fakeapi import FakeAPI


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def collect(kubeconfig: Path, out: Path, *extra: str):
    res = run("collect", "--out", str(out), "--kubeconfig", str(kubeconfig), *extra)
    assert res.exit_code == 0, res.output
    return json.loads((out / "manifest.json").read_text())


def diagnose(folder: Path) -> dict:
    res = run("diagnose", str(folder), "-o", "json")
    assert res.exit_code in (0, 1), res.output   # 1: a violation or a cause found
    return json.loads(res.output)


METRICS_PROXY = "/api/v1/namespaces/kueue-system/services/https:kueue-controller-manager-metrics-service:8443/proxy/metrics"
_ORIGINAL: dict = {}


def diagnose_original(folder: Path) -> dict:
    if folder not in _ORIGINAL:
        _ORIGINAL[folder] = diagnose(folder)
    return _ORIGINAL[folder]


def items(path: Path) -> list[dict]:
    doc = yaml.safe_load(path.read_text())
    assert doc["kind"] == "List" and doc["apiVersion"] == "v1"
    return doc["items"]


def failed(manifest: dict, kind: str) -> dict:
    found = [f for f in manifest["failed"] if f["kind"] == kind]
    assert len(found) == 1, manifest["failed"]
    return found[0]


def test_full_collect_diagnoses_like_the_original_folder(api, kubeconfig, incident, tmp_path):
    out = tmp_path / "snap"
    started = time.monotonic()
    m = collect(kubeconfig, out)
    took = timedelta(seconds=time.monotonic() - started)

    assert m["failed"] == []
    assert m["kueueVersion"] == "v0.18.4" and m["kueueApiVersion"] == "kueue.x-k8s.io/v1beta2"
    # collectedAt is the API server's clock (its Date header), the clock object timestamps were stamped with
    # (the fake's clock stands still, so at most the time the collect took is added to it; our own clock is
    # far from the incident's)
    taken = datetime.fromisoformat(m["collectedAt"].replace("Z", "+00:00"))
    assert timedelta(0) <= taken - api.now <= took
    counts = {c["kind"]: c.get("count") for c in m["collected"]}
    assert counts["Pod"] == 130 and counts["Node"] == 27 and counts["Workload"] == 54 and counts["Event"] == 89
    for name in ("kueue.json", "nodes.json", "pods.json", "events.json", "deployment.json", "namespaces.json",
                 "jobs.json"):
        assert (out / name).exists(), name
    # items of built-in lists come without apiVersion/kind from the API; the files carry them as kubectl writes them
    assert {(i["apiVersion"], i["kind"]) for i in items(out / "nodes.json")} == {("v1", "Node")}
    assert items(out / "kueue.json") == items(incident / "kueue.yaml")
    assert [i["kind"] for i in items(out / "deployment.json")] == ["Deployment", "ConfigMap"]
    assert (out / "kueue-controller-manager.log").read_bytes() == (incident / "kueue-controller-manager.log").read_bytes()
    assert (out / "metrics.txt").read_text().startswith("# TYPE kueue_pending_workloads")

    # read-only, authenticated, paginated, and the log window asked for
    assert {r["method"] for r in api.requests} == {"GET"}
    assert all(r["auth"] == "Bearer fake-token-for-tests" for r in api.requests)
    pod_pages = [r for r in api.requests if r["path"] == "/api/v1/pods"]
    assert len(pod_pages) == 4 and all(r["query"]["limit"] == ["500"] for r in pod_pages)
    assert [r["query"].get("continue") for r in pod_pages] == [None, ["40"], ["80"], ["120"]]
    log = next(r for r in api.requests if r["path"].endswith("/log"))
    assert log["query"] == {"sinceSeconds": ["21600"], "container": ["manager"]}

    a, b = diagnose_original(incident), diagnose(out)
    assert b["violations"] == a["violations"] and b["violations"]
    assert b["causes"] == a["causes"]
    assert [(s["step"], s["status"]) for s in b["steps"]] == [(s["step"], s["status"]) for s in a["steps"]]

    assert_rbac_covers(api.requests)


def test_live_diagnose_matches_folder(api, kubeconfig, incident):
    res = run("diagnose", "--kubeconfig", str(kubeconfig), "--context", "fake", "-o", "json")
    assert res.exit_code == 1, res.output
    live, folder = json.loads(res.output), diagnose_original(incident)
    assert live["violations"] == folder["violations"]
    assert [c["id"] for c in live["causes"]] == ["head-of-line-blocking"] == [c["id"] for c in folder["causes"]]


def test_forbidden_resources(api, kubeconfig, tmp_path):
    """A role without pods/log nor events: collect finishes, the manifest says what and why, and
    diagnose still runs and says the log is missing."""
    api.faults[f"/api/v1/namespaces/kueue-system/pods/{api.pods[-1]['metadata']['name']}/log"] = (
        "status", 403, 'pods "x" is forbidden: User "tester" cannot get resource "pods/log"')
    api.faults["/api/v1/events"] = ("status", 403, 'events is forbidden: User "tester" cannot list resource "events"')
    # the metrics endpoint is often out of reach through the proxy; that is no reason to stop either
    api.faults[METRICS_PROXY] = ("status", 503, 'no endpoints available for service "kueue-controller-manager-metrics-service"')
    out = tmp_path / "snap"
    m = collect(kubeconfig, out)
    f = failed(m, "metrics")
    assert f["optional"] and f["status"] == 503 and not (out / "metrics.txt").exists()
    f = failed(m, "controller log")
    assert f["reason"] == "forbidden" and f["status"] == 403 and "pods/log" in f["message"]
    f = failed(m, "Event")
    assert (f["reason"], f["status"], f["apiVersion"]) == ("forbidden", 403, "v1")
    assert len(m["failed"]) == 3
    assert not (out / "kueue-controller-manager.log").exists() and not (out / "events.json").exists()
    assert {c["kind"] for c in m["collected"]} >= {"Pod", "Workload", "Deployment", "ConfigMap"}
    d = diagnose(out)
    step5 = next(s for s in d["steps"] if s["step"] == 5)
    assert step5["status"] == "unknown" and "no controller log" in step5["summary"]
    assert [v["clusterQueue"] for v in d["violations"]] == ["perception"]


def test_timeout_and_truncated_responses(api, kubeconfig, tmp_path):
    # the node list is not answered until the test lets it go
    api.faults["/api/v1/nodes"] = ("hold",)
    # Content-Length promises more than arrives before the connection closes
    api.faults["/apis/kueue.x-k8s.io/v1beta2/workloads"] = ("truncate",)
    # the second page of pods breaks: the pages before it are not written as if they were all pods
    api.faults["/api/v1/pods"] = ("page", ("truncate",))
    out = tmp_path / "snap"
    m = collect(kubeconfig, out, "--request-timeout", "0.5")
    # collect gave up on the nodes after its timeout: it finished while the server still held the
    # one request it sent for them (no retry), and says so in the manifest
    nodes = [r for r in api.requests if r["path"] == "/api/v1/nodes"]
    assert len(nodes) == 1 and not nodes[0]["answered"]
    f = failed(m, "Node")
    assert f["reason"] == "timeout" and "0.5 s" in f["message"]
    assert failed(m, "Workload")["reason"] == "truncated"
    p = failed(m, "Pod")
    assert p["reason"] == "truncated" and "after 40 items" in p["message"]
    assert len(m["failed"]) == 3
    for name in ("nodes.json", "pods.json"):
        assert not (out / name).exists()
    assert {i["kind"] for i in items(out / "kueue.json")} == {"ClusterQueue", "Cohort", "LocalQueue", "ResourceFlavor",
                                                               "WorkloadPriorityClass"}
    assert (out / "events.json").exists() and (out / "kueue-controller-manager.log").exists()


def test_v1beta1_fallback(incident, tmp_path):
    with FakeAPI(incident, kueue_versions=("v1beta1",)) as api:
        m = collect(api.kubeconfig(tmp_path / "kc"), tmp_path / "snap")
        kueue_paths = {p for p in api.paths() if p.startswith("/apis/kueue.x-k8s.io/")}
    assert m["kueueApiVersion"] == "kueue.x-k8s.io/v1beta1"
    assert all(p.startswith("/apis/kueue.x-k8s.io/v1beta1") for p in kueue_paths)
    assert "/apis/kueue.x-k8s.io/v1beta1/clusterqueues" in kueue_paths
    got = items(tmp_path / "snap" / "kueue.json")
    assert len(got) == 71 and {i["apiVersion"] for i in got} == {"kueue.x-k8s.io/v1beta1"}


def test_kueue_pods_only(api, kubeconfig, tmp_path):
    m = collect(kubeconfig, tmp_path / "snap", "--kueue-pods-only")
    pods = items(tmp_path / "snap" / "pods.json")
    assert pods and all(any(k.startswith("kueue.x-k8s.io/") for k in p["metadata"].get("labels", {})) for p in pods)
    labelled = [p for p in api.pods if set(p["metadata"].get("labels", {})) & set(KUEUE_POD_LABELS)]
    assert 0 < len(labelled) < len(api.pods)
    assert sorted(p["metadata"]["uid"] for p in pods) == sorted(p["metadata"]["uid"] for p in labelled)
    sels = {r["query"]["labelSelector"][0] for r in api.requests if r["path"] == "/api/v1/pods"}
    assert sels == {"kueue.x-k8s.io/podset", "kueue.x-k8s.io/managed", "kueue.x-k8s.io/queue-name"}
    assert next(c for c in m["collected"] if c["kind"] == "Pod")["count"] == len(labelled)


def test_namespace_label_filter(api, kubeconfig, tmp_path):
    api.namespaces = [{"metadata": {"name": n, "labels": {"team": t}}}
                      for n, t in (("perception", "ml"), ("planning", "ml"), ("monitoring", "ops"))]
    m = collect(kubeconfig, tmp_path / "snap", "--namespace-label-filter", "team=ml")
    assert {p["metadata"]["namespace"] for p in items(tmp_path / "snap" / "pods.json")} == {"perception", "planning"}
    assert {e["metadata"]["namespace"] for e in items(tmp_path / "snap" / "events.json")} <= {"perception", "planning"}
    paths = set(api.paths())
    assert "/api/v1/pods" not in paths and "/api/v1/namespaces/planning/pods" in paths
    assert "/apis/batch/v1/namespaces/perception/jobs" in paths
    # quota is cluster-wide: Kueue objects and nodes are never narrowed
    counts = {c["kind"]: c["count"] for c in m["collected"] if "count" in c}
    assert counts["Workload"] == 54 and counts["Node"] == 27 and counts["Namespace"] == 2
    assert m["options"]["namespaceLabelFilter"] == "team=ml"


def test_non_empty_out_needs_force(api, kubeconfig, tmp_path):
    out = tmp_path / "snap"
    out.mkdir()
    (out / "notes.md").write_text("mine")
    res = run("collect", "--out", str(out), "--kubeconfig", str(kubeconfig))
    assert res.exit_code == 2 and "not empty" in res.output and "--force" in res.output
    assert sorted(p.name for p in out.iterdir()) == ["notes.md"]
    (out / "kueue-controller-manager-old-replica.log").write_text("stale")
    (out / "kueue.yaml").write_text("apiVersion: v1\nkind: List\nitems: []\n")  # a collect of before JSON
    collect(kubeconfig, out, "--force")
    names = {p.name for p in out.iterdir()}
    assert "notes.md" in names and "kueue-controller-manager-old-replica.log" not in names and "manifest.json" in names
    # the YAML of an earlier collect would be read beside the JSON that replaces it
    assert "kueue.yaml" not in names and "kueue.json" in names


def test_collected_files_are_kubectl_json_lists(api, kubeconfig, tmp_path):
    """What `kubectl get -o json` writes: one JSON document, a v1 List, the items with their kind."""
    out = tmp_path / "snap"
    m = collect(kubeconfig, out)
    for entry in m["collected"]:
        if "count" not in entry:
            continue
        assert entry["file"].endswith(".json")
        doc = json.loads((out / entry["file"]).read_text())
        assert doc["apiVersion"] == "v1" and doc["kind"] == "List" and isinstance(doc["items"], list)


@pytest.mark.parametrize("case", ["missing-kubeconfig", "unknown-context", "unreachable", "bad-token"])
def test_bad_input_is_one_line_exit_2(case, incident, tmp_path):
    import socket
    kc = tmp_path / "kc"
    with FakeAPI(incident) as api:
        api.kubeconfig(kc)
        if case == "unreachable":
            # a port on 127.0.0.1 that nothing listens on
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
            s.close()
            kc.write_text(kc.read_text().replace(api.url, f"http://127.0.0.1:{port}"))
        if case == "bad-token":
            kc.write_text(kc.read_text().replace("fake-token-for-tests", "wrong"))
        args = ["--kubeconfig", str(tmp_path / "nope") if case == "missing-kubeconfig" else str(kc)]
        if case == "unknown-context":
            args += ["--context", "prod"]
        out = tmp_path / "snap"
        for cmd in (["collect", "--out", str(out), "--request-timeout", "2"], ["diagnose"]):
            res = run(*cmd, *args)
            assert res.exit_code == 2, res.output
            assert len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output
            assert {"missing-kubeconfig": "no such kubeconfig file", "unknown-context": "unknown context 'prod'",
                    "unreachable": "cannot use the API server", "bad-token": "HTTP 401"}[case] in res.output
        assert not out.exists()


RBAC = REPO / "deploy" / "rbac.yaml"


def cluster_role() -> dict:
    docs = list(yaml.safe_load_all(RBAC.read_text()))
    assert {d["kind"] for d in docs} == {"ClusterRole", "ServiceAccount", "ClusterRoleBinding"}
    binding = next(d for d in docs if d["kind"] == "ClusterRoleBinding")
    role = next(d for d in docs if d["kind"] == "ClusterRole")
    sa = next(d for d in docs if d["kind"] == "ServiceAccount")
    assert binding["roleRef"]["name"] == role["metadata"]["name"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": sa["metadata"]["name"],
                                    "namespace": sa["metadata"]["namespace"]}]
    return role


def test_rbac_is_read_only():
    verbs = {v for r in cluster_role()["rules"] for v in r["verbs"]}
    assert verbs <= {"get", "list", "watch"}, verbs


def assert_rbac_covers(requests: list[dict]) -> None:
    """Every request collect sent is allowed by deploy/rbac.yaml, and every resource it grants was read."""
    role = cluster_role()

    def allowed(group: str, resource: str, verb: str, name: str = "") -> bool:
        return any(group in r.get("apiGroups", []) and resource in r.get("resources", []) and verb in r["verbs"]
                   and (not r.get("resourceNames") or name in r["resourceNames"]) for r in role["rules"])

    def non_resource(path: str) -> bool:
        # as the API server reads nonResourceURLs: exact, or a prefix ending in *
        return any("get" in r["verbs"] and any(u == path or (u.endswith("*") and path.startswith(u[:-1]))
                                               for u in r.get("nonResourceURLs", [])) for r in role["rules"])

    used = set()
    for req in requests:
        parts = req["path"].strip("/").split("/")
        group, rest = ("", parts[2:]) if parts[0] == "api" else (parts[1] if len(parts) > 1 else "", parts[3:])
        if not rest:  # discovery
            assert non_resource(req["path"]), req["path"]
            continue
        if rest[0] == "namespaces" and len(rest) >= 3:
            rest = rest[2:]
        resource, name, sub = rest[0], rest[1] if len(rest) > 1 else "", rest[2] if len(rest) > 2 else ""
        key = f"{resource}/{sub}" if sub else resource
        used.add((group, key))
        assert allowed(group, key, "get" if name else "list", name), (req["path"], group, key)
    granted = {(g, res) for r in role["rules"] for g in r.get("apiGroups", []) for res in r.get("resources", [])}
    assert granted - used == set(), "granted but never read"
