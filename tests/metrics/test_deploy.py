"""What deploy/ ships beside the exporter: the alert rules are valid, fire on their unit tests and are
embedded unchanged in the PrometheusRule; the Grafana dashboard and the kube-state-metrics
workaround are valid PromQL, and the workaround counts exactly the workloads whose QuotaReserved
and Admitted are both not True."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
import yaml

from tests.paths import REPO

DEPLOY = REPO / "deploy"
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
                   "refresh_errors_total"):
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
    assert "5 rules found" in p.stdout + p.stderr


@needs_promtool
def test_promtool_rule_unit_tests_fire_the_alerts():
    p = subprocess.run([PROMTOOL, "test", "rules", str(DEPLOY / "prometheus-rules.test.yaml")],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    tests = yaml.safe_load((DEPLOY / "prometheus-rules.test.yaml").read_text())
    fired = {t["alertname"] for case in tests["tests"] for t in case["alert_rule_test"] if t["exp_alerts"]}
    assert fired == {"KueueGuaranteeViolation", "KueueStuckPreemptionTarget", "KueueVictimsHoldingQuotaPastGrace",
                     "KueueAdmittedNotReleased", "KueueDoctorStale"}


def test_prometheus_rule_embeds_the_plain_rules():
    plain = yaml.safe_load((DEPLOY / "rules" / "kueue-doctor.rules.yaml").read_text())
    crd = yaml.safe_load((DEPLOY / "prometheus-rules.yaml").read_text())
    assert crd["apiVersion"] == "monitoring.coreos.com/v1" and crd["kind"] == "PrometheusRule"
    assert crd["spec"] == plain
    for rule in plain["groups"][0]["rules"]:
        assert {"summary", "description", "runbook"} <= set(rule["annotations"])
        assert "kueue-doctor" in rule["annotations"]["runbook"]
