"""What deploy/ ships beside the exporter: the alert rules are valid, fire on their unit tests, are
embedded unchanged in the PrometheusRule and link their runbooks; the Grafana dashboard and the
kube-state-metrics workaround are valid PromQL, and the workaround counts exactly the workloads whose
QuotaReserved and Admitted are both not True; the kustomize base runs the exporter read-only, and the
Dockerfile builds what it runs."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
import yaml

from tests.paths import REPO

DEPLOY = REPO / "deploy"
KUSTOMIZE = DEPLOY / "kustomize"
# the one base URL of every alert's runbook_url: docs/runbooks.md, one section per alert
RUNBOOKS = "https://github.com/kueue-doctor/kueue-doctor/blob/main/docs/runbooks.md"
ALERTS = {"KueueGuaranteeViolation", "KueueStuckPreemptionTarget", "KueueVictimsHoldingQuotaPastGrace",
          "KueueAdmittedNotReleased", "KueueDoctorStale", "KueueDoctorRefreshFailing", "KueueDoctorDown"}
KUBECTL = shutil.which("kubectl")
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(not PROMTOOL, reason="promtool not installed (Debian package `prometheus`)")

KSM_PENDING = re.search(r"#   (\(sum by .*?)\n#\n", (DEPLOY / "kube-state-metrics-workloads.yaml").read_text(), re.S)


def ksm_expr() -> str:
    return " ".join(line.lstrip("# ").strip() for line in KSM_PENDING.group(1).splitlines())


def dashboard_exprs() -> list[str]:
    d = json.loads((DEPLOY / "grafana-dashboard.json").read_text())
    return [t["expr"].replace("$resource", "nvidia.com/gpu") for p in d["panels"] for t in p["targets"]]


def test_dashboard_covers_the_brief():
    exprs = " ".join(dashboard_exprs())
    for metric in ("guarantee_violation", "pending_fitting_nominal", "free_slots", "cause", "state_age_seconds",
                   "refresh_errors_total", "refresh_failing", "build_info"):
        assert f"kueue_doctor_{metric}" in exprs


def test_ksm_config_is_a_custom_resource_state_config():
    cfg = yaml.safe_load((DEPLOY / "kube-state-metrics-workloads.yaml").read_text())
    assert cfg["kind"] == "CustomResourceStateMetrics"
    wl = next(r for r in cfg["spec"]["resources"] if r["groupVersionKind"]["kind"] == "Workload")
    names = {m["name"] for m in wl["metrics"]}
    assert {"condition", "requested_gpus", "active"} <= names


@needs_promtool
def test_dashboard_and_workaround_promql_parse(tmp_path):
    rules = {"groups": [{"name": "check", "rules": [{"record": f"check:expr{i}", "expr": e}
                                                    for i, e in enumerate([*dashboard_exprs(), ksm_expr()])]}]}
    f = tmp_path / "check.rules.yaml"
    f.write_text(yaml.safe_dump(rules))
    p = subprocess.run([PROMTOOL, "check", "rules", str(f)], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr


@needs_promtool
def test_workaround_keeps_only_unreserved_unadmitted_workloads(tmp_path):
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(
        {"groups": [{"name": "ksm", "rules": [{"record": "pending:gpus", "expr": ksm_expr()}]}]}))

    def wl(name, **conds):
        s = [{"series": f'kueue_ksm_workload_requested_gpus{{namespace="a",workload="{name}",podset="main"}}',
              "values": "8x5"}]
        s += [{"series": f'kueue_ksm_workload_condition{{namespace="a",workload="{name}",type="{t}"}}',
               "values": f"{v}x5"} for t, v in conds.items()]
        return s
    series = (wl("never-tried") + wl("waiting", QuotaReserved=0) + wl("admitted", QuotaReserved=1, Admitted=1)
              + wl("victim", QuotaReserved=1, Evicted=1) + wl("done", QuotaReserved=0, Finished=1))
    (tmp_path / "t.yaml").write_text(yaml.safe_dump({
        "rule_files": ["r.yaml"], "evaluation_interval": "1m",
        "tests": [{"interval": "1m", "input_series": series, "promql_expr_test": [{
            "expr": "pending:gpus", "eval_time": "2m",
            "exp_samples": [{"labels": 'pending:gpus{namespace="a",workload="never-tried"}', "value": 8},
                            {"labels": 'pending:gpus{namespace="a",workload="waiting"}', "value": 8}]}]}]}))
    p = subprocess.run([PROMTOOL, "test", "rules", str(tmp_path / "t.yaml")], capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr


@needs_promtool
def test_promtool_check_rules():
    p = subprocess.run([PROMTOOL, "check", "rules", str(DEPLOY / "rules" / "kueue-doctor.rules.yaml")],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"{len(ALERTS)} rules found" in p.stdout + p.stderr


@needs_promtool
def test_promtool_rule_unit_tests_fire_the_alerts():
    p = subprocess.run([PROMTOOL, "test", "rules", str(DEPLOY / "prometheus-rules.test.yaml")],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    tests = yaml.safe_load((DEPLOY / "prometheus-rules.test.yaml").read_text())
    fired = {t["alertname"] for case in tests["tests"] for t in case["alert_rule_test"] if t["exp_alerts"]}
    assert fired == ALERTS


def test_prometheus_rule_embeds_the_plain_rules():
    plain = yaml.safe_load((DEPLOY / "rules" / "kueue-doctor.rules.yaml").read_text())
    crd = yaml.safe_load((DEPLOY / "prometheus-rules.yaml").read_text())
    assert crd["apiVersion"] == "monitoring.coreos.com/v1" and crd["kind"] == "PrometheusRule"
    assert crd["spec"] == plain
    assert {r["alert"] for r in plain["groups"][0]["rules"]} == ALERTS


def test_every_alert_links_its_runbook_section():
    plain = yaml.safe_load((DEPLOY / "rules" / "kueue-doctor.rules.yaml").read_text())
    runbooks = (REPO / "docs" / "runbooks.md").read_text()
    sections = dict(re.findall(r"^## (\w+)\n(.*?)(?=^## |\Z)", runbooks, re.S | re.M))
    for rule in plain["groups"][0]["rules"]:
        name, notes = rule["alert"], rule["annotations"]
        assert set(notes) == {"summary", "description", "runbook_url"}, name
        # GitHub's anchor of a "## Name" heading is the name in lower case
        assert notes["runbook_url"] == f"{RUNBOOKS}#{name.lower()}", name
        assert name in sections, f"docs/runbooks.md has no section for {name}"
        for part in ("Meaning", "Impact", "Diagnosis", "Mitigation"):
            assert f"**{part}.**" in sections[name], f"{name}: no {part}"
        assert "kueue-doctor" in sections[name]
    assert set(sections) == ALERTS


def test_exporter_down_alert_watches_the_job_the_service_monitor_makes():
    plain = yaml.safe_load((DEPLOY / "rules" / "kueue-doctor.rules.yaml").read_text())
    down = next(r for r in plain["groups"][0]["rules"] if r["alert"] == "KueueDoctorDown")
    service = next(d for d in kustomize_docs() if d["kind"] == "Service")
    # prometheus-operator names a ServiceMonitor target's job after its Service
    assert f'up{{job="{service["metadata"]["name"]}"}}' in down["expr"]


def kustomize_docs() -> list[dict]:
    """The kustomize base's objects as kustomize would gather them (namespace applied), without kustomize."""
    k = yaml.safe_load((KUSTOMIZE / "kustomization.yaml").read_text())
    docs = [d for f in k["resources"] for d in yaml.safe_load_all((KUSTOMIZE / f).read_text()) if d]
    for d in docs:
        if d["kind"] not in ("ClusterRole", "ClusterRoleBinding"):
            d["metadata"]["namespace"] = k["namespace"]
    return docs


def by_kind(docs: list[dict]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for d in docs:
        assert d["kind"] not in out, f"two {d['kind']}s"
        out[d["kind"]] = d
    return out


def test_kustomize_base_holds_the_exporter():
    k = yaml.safe_load((KUSTOMIZE / "kustomization.yaml").read_text())
    assert k["kind"] == "Kustomization" and k["namespace"] == "kueue-system"
    objs = by_kind(kustomize_docs())
    assert set(objs) == {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Deployment", "Service",
                         "ServiceMonitor"}
    dep = objs["Deployment"]
    pod = dep["spec"]["template"]["spec"]
    assert dep["spec"]["selector"]["matchLabels"].items() <= dep["spec"]["template"]["metadata"]["labels"].items()
    assert pod["serviceAccountName"] == objs["ServiceAccount"]["metadata"]["name"]
    binding = objs["ClusterRoleBinding"]
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                  "name": objs["ClusterRole"]["metadata"]["name"]}
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "kueue-doctor", "namespace": "kueue-system"}]
    [c] = pod["containers"]
    # in-cluster, no kubeconfig; every interface of the pod, the port the probes and the Service use
    assert c["args"][:2] == ["serve", "--in-cluster"] and "--kubeconfig" not in c["args"]
    assert c["args"][c["args"].index("--listen") + 1] == "0.0.0.0:9817"
    assert c["ports"] == [{"name": "metrics", "containerPort": 9817, "protocol": "TCP"}]
    assert c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}
    assert c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}
    assert c["resources"]["requests"] and c["resources"]["limits"]["memory"]
    # non-root, read-only root filesystem, nothing to escalate to
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] > 0
    sc = c["securityContext"]
    assert sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"]
    assert {m["mountPath"] for m in c["volumeMounts"]} == {"/tmp"}
    svc, mon = objs["Service"], objs["ServiceMonitor"]
    assert svc["spec"]["selector"].items() <= dep["spec"]["template"]["metadata"]["labels"].items()
    assert svc["spec"]["ports"] == [{"name": "metrics", "port": 9817, "targetPort": "metrics", "protocol": "TCP"}]
    assert mon["apiVersion"] == "monitoring.coreos.com/v1"
    assert mon["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items()
    assert [(e["port"], e["path"]) for e in mon["spec"]["endpoints"]] == [("metrics", "/metrics")]
    # the image the Dockerfile builds, at this release
    from kueue_doctor import __version__
    assert c["image"] == "kueue-doctor" and k["images"] == [{"name": "kueue-doctor", "newTag": __version__}]


def test_kustomize_rbac_is_deploy_rbac_and_read_only():
    ours = list(yaml.safe_load_all((KUSTOMIZE / "rbac.yaml").read_text()))
    assert ours == list(yaml.safe_load_all((DEPLOY / "rbac.yaml").read_text()))
    role = next(d for d in ours if d["kind"] == "ClusterRole")
    for rule in role["rules"]:
        assert set(rule["verbs"]) <= {"get", "list", "watch"}, rule
        assert "*" not in rule.get("resources", []) and "*" not in rule.get("apiGroups", []), rule
        assert not {"secrets"} & set(rule.get("resources", [])), rule


@pytest.mark.skipif(not KUBECTL, reason="kubectl not installed (its kustomize builds the base)")
def test_kubectl_kustomize_builds_the_base():
    p = subprocess.run([KUBECTL, "kustomize", str(KUSTOMIZE)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    built = list(yaml.safe_load_all(p.stdout))
    assert sorted(d["kind"] for d in built) == sorted(d["kind"] for d in kustomize_docs())
    dep = next(d for d in built if d["kind"] == "Deployment")
    assert dep["metadata"]["namespace"] == "kueue-system"
    from kueue_doctor import __version__
    assert dep["spec"]["template"]["spec"]["containers"][0]["image"] == f"kueue-doctor:{__version__}"
    assert all(d["metadata"]["labels"]["app.kubernetes.io/part-of"] == "kueue-doctor" for d in built)


def test_dockerfile_builds_a_non_root_kueue_doctor_image():
    """No container engine here: the Dockerfile is read, not built."""
    lines = [line.strip() for line in (REPO / "Dockerfile").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert lines[0] == "FROM python:3.11-slim"
    assert any(re.fullmatch(r"RUN pip install \.( .*)?", line) for line in lines)
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1].split(":")[0] not in ("0", "root")
    # the uid the Deployment runs as
    dep = by_kind(kustomize_docs())["Deployment"]
    assert users[-1].split(":")[0] == str(dep["spec"]["template"]["spec"]["securityContext"]["runAsUser"])
    assert 'ENTRYPOINT ["kueue-doctor"]' in lines
    assert "EXPOSE 9817" in lines


def join_examples() -> list[str]:
    """The PromQL of docs/exporter.md's "Joining with Kueue's own metrics", comments dropped."""
    doc = (REPO / "docs" / "exporter.md").read_text()
    section = doc[doc.index("## Joining with Kueue's own metrics"):]
    section = section[:section.index("\n## ", 1)]
    blocks = re.findall(r"```promql\n(.*?)```", section, re.S)
    return [" ".join(line.strip() for line in b.splitlines() if not line.strip().startswith("#")) for b in blocks]


@needs_promtool
def test_join_examples_join_kueues_series(tmp_path):
    """The joins on series shaped like both exporters': Kueue's carry `cohort`, `replica_role` and
    two replicas (leader and follower), kueue-doctor's a `flavor` Kueue's pending metric lacks."""
    exprs = join_examples()
    assert len(exprs) == 3
    (tmp_path / "r.yaml").write_text(yaml.safe_dump({"groups": [{"name": "joins", "rules": [
        {"record": f"join:{i}", "expr": e} for i, e in enumerate(exprs)]}]}))
    doctor = 'job="kueue-doctor",instance="10.0.0.7:9817"'

    def kueue(name, labels, value):
        return [{"series": f'{name}{{{labels},job="kueue",instance="10.0.0.{n}:8443",replica_role="{role}"}}',
                 "values": f"{value}x5"} for n, role in ((3, "leader"), (4, "follower"))]
    q = 'cluster_queue="team-a"'
    fr = 'flavor="h100",resource="nvidia.com/gpu"'
    series = [
        {"series": f'kueue_doctor_cluster_queue_resource_pending{{{doctor},{q},{fr}}}', "values": "24x5"},
        {"series": f'kueue_doctor_pending_fitting_nominal{{{doctor},{q},{fr}}}', "values": "16x5"},
        {"series": f'kueue_doctor_guarantee_violation{{{doctor},{q},{fr}}}', "values": "1x5"},
        *kueue("kueue_cluster_queue_resource_pending", f'{q},resource="nvidia.com/gpu"', 20),
        *kueue("kueue_cluster_queue_nominal_quota", f'cohort="research",{q},{fr}', 64),
        *kueue("kueue_cluster_queue_info", f'{q},parent_cohort="research",root_cohort="org"', 1),
    ]
    (tmp_path / "t.yaml").write_text(yaml.safe_dump({
        "rule_files": ["r.yaml"], "evaluation_interval": "1m",
        "tests": [{"interval": "1m", "input_series": series, "promql_expr_test": [
            {"expr": "join:0", "eval_time": "2m",
             "exp_samples": [{"labels": 'join:0{cluster_queue="team-a",resource="nvidia.com/gpu"}', "value": 4}]},
            {"expr": "join:1", "eval_time": "2m",
             # one-to-one with on (...): the result keeps the join labels only
             "exp_samples": [{"labels": f'join:1{{{q},{fr}}}', "value": 0.25}]},
            {"expr": "join:2", "eval_time": "2m",
             "exp_samples": [{"labels": f'join:2{{{q},{fr},root_cohort="org"}}', "value": 1}]},
        ]}]}))
    p = subprocess.run([PROMTOOL, "test", "rules", str(tmp_path / "t.yaml")], capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
