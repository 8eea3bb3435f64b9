"""Which cluster: kubeconfig files and contexts resolved as kubectl resolves them, the pod's
service account, and the `kubectl kueue-doctor` plugin, against the recorded API server."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.commands.source import load_source
from kueue_doctor.doctor.diagnose import diagnose as diagnose_snapshot
from kueue_doctor.errors import InputError
from kueue_doctor.sources import kubeconfig as kc
from kueue_doctor.sources.snapshot import load_folder

from .fakeapi import TOKEN, FakeAPI

BIN = Path(sys.executable).parent
PLUGIN = BIN / "kubectl-kueue_doctor"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """Nothing of the machine's own: an empty home, no $KUBECONFIG, not in a pod."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "POD_NAMESPACE"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def split(api, tmp_path) -> tuple[Path, Path]:
    """The fake cluster's kubeconfig in two files, in two folders, as people keep them.

    A holds the contexts and current-context C; B holds the cluster and the user (a token file
    named relative to B's folder), and also a context C of its own and a current-context "other":
    kubectl ignores both (the first file to name a context wins; current-context comes from the
    first file that sets one), and either would fail here if taken.
    """
    a, b = tmp_path / "a" / "contexts.yaml", tmp_path / "b" / "creds.yaml"
    a.parent.mkdir()
    b.parent.mkdir()
    a.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "C",
        "contexts": [{"name": "C", "context": {"cluster": "fake-cluster", "user": "fake-user", "namespace": "team-a"}},
                     {"name": "other", "context": {"cluster": "nowhere", "user": "fake-user"}}]}))
    (b.parent / "token").write_text(TOKEN)
    b.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "other",
        "clusters": [{"name": "fake-cluster", "cluster": {"server": api.url}}],
        "users": [{"name": "fake-user", "user": {"tokenFile": "token"}}],
        "contexts": [{"name": "C", "context": {"cluster": "nowhere", "user": "nobody"}}]}))
    return a, b


def use(monkeypatch, *files: Path) -> None:
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join(str(f) for f in files))


def plugin(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The installed kubectl-kueue_doctor console script, with this test's environment."""
    assert PLUGIN.exists(), f"{PLUGIN} is not installed (pip install -e .)"
    return subprocess.run([str(PLUGIN), *args], capture_output=True, text=True, env=dict(os.environ), cwd=cwd,
                          timeout=300)


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def one_line(res) -> str:
    err = res.stderr if isinstance(res, subprocess.CompletedProcess) else res.output
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def findings(res: subprocess.CompletedProcess) -> tuple[int, str, list, list[str]]:
    d = json.loads(res.stdout)
    return res.returncode, d["verdict"], d["violations"], [c["id"] for c in d["causes"]]


# -- resolution ------------------------------------------------------------------------------------


def test_kubeconfig_list_is_merged_like_kubectl(api, split, monkeypatch, tmp_path):
    a, b = split
    use(monkeypatch, a, tmp_path / "missing.yaml", b)   # a listed file that does not exist is skipped
    t = kc.resolve(None, None)
    assert t.context == "C" and t.namespace == "team-a" and t.files == (str(a), str(b))
    assert t.configuration.host == api.url                        # the cluster from B, through A's context C
    assert t.configuration.api_key["BearerToken"] == f"Bearer {TOKEN}"  # B's tokenFile, relative to B
    assert kc.context_namespace(None, None) == "team-a" == kc.context_namespace(None, "C")
    # the official client's merger alone takes current-context from the last file that has the key
    # (kubectl: the first file that sets one), which is why kubeconfig.py sets it itself
    from kubernetes.config.kube_config import KubeConfigMerger
    assert KubeConfigMerger(f"{a}{os.pathsep}{b}").config.value["current-context"] == "other"


@pytest.mark.skipif(not shutil.which("kubectl"), reason="kubectl not installed")
def test_merge_agrees_with_kubectl(api, split, monkeypatch):
    use(monkeypatch, *split)
    env = dict(os.environ)

    def kubectl(*args: str) -> str:
        return subprocess.run(["kubectl", *args], capture_output=True, text=True, env=env, check=True,
                              timeout=60).stdout.strip()

    view = json.loads(kubectl("config", "view", "--minify", "-o", "json"))
    t = kc.resolve(None, None)
    assert kubectl("config", "current-context") == t.context == "C"
    assert view["clusters"][0]["cluster"]["server"] == t.configuration.host
    assert view["contexts"][0]["context"].get("namespace", "default") == t.namespace


def test_kubeconfig_flag_uses_only_that_file(api, split, kubeconfig, monkeypatch):
    use(monkeypatch, *split)
    t = kc.resolve(str(kubeconfig), None)
    assert t.context == "fake" and t.files == (str(kubeconfig),) and t.namespace == "default"
    with pytest.raises(InputError, match=r"unknown context 'C' \(contexts: fake\)"):
        kc.resolve(str(kubeconfig), "C")


def test_home_kube_config_is_the_default(api, clean_env, kubeconfig):
    (clean_env / ".kube").mkdir()
    shutil.copy(kubeconfig, clean_env / ".kube" / "config")
    t = kc.resolve(None, None)
    assert t.files == (str(clean_env / ".kube" / "config"),) and t.configuration.host == api.url


def test_kubeconfig_set_means_home_is_not_read(api, clean_env, kubeconfig, monkeypatch, tmp_path):
    (clean_env / ".kube").mkdir()
    shutil.copy(kubeconfig, clean_env / ".kube" / "config")
    use(monkeypatch, tmp_path / "missing.yaml")
    with pytest.raises(InputError) as e:
        kc.resolve(None, None)
    assert str(e.value) == kc.NO_CLUSTER


def test_nothing_to_find_is_one_line_exit_2(tmp_path):
    cmds = [["collect", "--out", "snap"], ["diagnose"], ["explain", "w"], ["serve"]]
    for cmd in cmds:
        res = plugin(*cmd, cwd=tmp_path)
        assert res.returncode == 2 and one_line(res) == kc.NO_CLUSTER, res.stderr


def test_unknown_context_lists_the_contexts(api, split, monkeypatch, tmp_path):
    use(monkeypatch, *split)
    cmds = [["collect", "--out", str(tmp_path / "snap")], ["diagnose"], ["explain", "w"]]
    for cmd in cmds:
        res = plugin(*cmd, "--context", "prod")
        line = one_line(res)
        assert res.returncode == 2 and "unknown context 'prod' (contexts: C, other)" in line, line
        assert str(split[0]) in line
    assert not (tmp_path / "snap").exists()


@pytest.mark.parametrize(("text", "expect"), [
    ("clusters: [unclosed", "not a usable kubeconfig"),
    ("- just\n- a list\n", "not a mapping"),
    ("clusters:\n- cluster: {server: x}\n", "clusters[0]: not a usable kubeconfig: an entry without a name"),
])
def test_bad_kubeconfig_file_is_named(split, monkeypatch, tmp_path, text, expect):
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    use(monkeypatch, split[0], bad)
    res = run("collect", "--out", str(tmp_path / "snap"))
    line = one_line(res)
    assert res.exit_code == 2 and line.startswith(f"{bad}: ") and expect in line, line


def test_context_whose_cluster_is_missing(split, monkeypatch, tmp_path):
    use(monkeypatch, *split)
    res = run("collect", "--out", str(tmp_path / "snap"), "--context", "other")
    line = one_line(res)
    assert res.exit_code == 2 and "context 'other'" in line and "nowhere" in line, line


# -- live reads through the merged kubeconfig -------------------------------------------------------


def same(live, folder) -> None:
    assert live.verdict == folder.verdict
    lj, fj = live.to_json(), folder.to_json()
    assert lj["violations"] == fj["violations"] and lj["violations"]
    assert [c["id"] for c in lj["causes"]] == [c["id"] for c in fj["causes"]] == ["head-of-line-blocking"]


def test_live_source_reads_the_merged_kubeconfig(api, split, monkeypatch, incident):
    use(monkeypatch, *split)
    snap = load_source(None, None, "C")    # the contract every live command goes through
    assert snap.origin == f"live:{api.url}"
    same(diagnose_snapshot(snap), diagnose_snapshot(load_folder(incident)))
    assert {r["auth"] for r in api.requests} == {f"Bearer {TOKEN}"}


def test_plugin_collect_with_only_kubeconfig_env(api, split, monkeypatch, incident, tmp_path):
    use(monkeypatch, *split)
    out = tmp_path / "snap"
    res = plugin("collect", "--context", "C", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert json.loads((out / "manifest.json").read_text())["server"] == api.url
    same(diagnose_snapshot(load_folder(out)), diagnose_snapshot(load_folder(incident)))


def test_plugin_diagnose_live_matches_folder(api, split, monkeypatch, incident):
    use(monkeypatch, *split)
    from_cluster = plugin("diagnose", "--context", "C", "-o", "json")
    from_folder = plugin("diagnose", str(incident), "-o", "json")
    assert from_cluster.returncode not in (2, 70), from_cluster.stderr
    assert findings(from_cluster) == findings(from_folder)
    assert findings(from_folder)[1] == "violation" and from_folder.returncode == 1


def test_live_explain_defaults_to_the_contexts_namespace(api, split, monkeypatch):
    use(monkeypatch, *split)   # context C has namespace team-a, where the incident has no workload
    miss = plugin("explain", "occflow-ft-gc8ql", "--context", "C")
    assert miss.returncode == 2 and "namespace team-a" in miss.stderr and "use -n perception" in miss.stderr
    hit = plugin("explain", "occflow-ft-gc8ql", "--context", "C", "-n", "perception", "-o", "json")
    assert hit.returncode == 0, hit.stderr
    assert json.loads(hit.stdout)["workload"] == "perception/job-occflow-ft-gc8ql-53ef6"
    legacy = plugin("explain", "perception/job-occflow-ft-gc8ql-53ef6", "--context", "C", "-o", "json")
    assert legacy.returncode == 0, legacy.stderr   # NS/NAME overrides the context's namespace


# -- in a pod ----------------------------------------------------------------------------------------


@pytest.fixture
def pod(incident, tmp_path, monkeypatch):
    """A pod's view: a service-account folder (token, CA, namespace) and an HTTPS API server."""
    if not shutil.which("openssl"):
        pytest.skip("openssl not installed (needed to make the fake API server's certificate)")
    sa = tmp_path / "serviceaccount"
    sa.mkdir()
    cert, key = sa / "ca.crt", tmp_path / "tls.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    (sa / "token").write_text(TOKEN)
    (sa / "namespace").write_text("kueue-system\n")
    monkeypatch.setattr(kc, "SERVICE_ACCOUNT_DIR", str(sa))
    with FakeAPI(incident, tls=(cert, key)) as fake:
        monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
        monkeypatch.setenv("KUBERNETES_SERVICE_PORT", str(fake.server.server_address[1]))
        yield fake


@pytest.mark.parametrize("flag", [["--in-cluster"], []], ids=["--in-cluster", "no-kubeconfig-in-a-pod"])
def test_in_cluster(pod, incident, tmp_path, flag):
    out = tmp_path / "snap"
    res = run("collect", "--out", str(out), *flag)
    assert res.exit_code == 0, res.output
    assert json.loads((out / "manifest.json").read_text())["server"] == pod.url
    assert pod.url.startswith("https://") and {r["auth"] for r in pod.requests} == {f"bearer {TOKEN}"}
    same(diagnose_snapshot(load_folder(out)), diagnose_snapshot(load_folder(incident)))
    assert kc.context_namespace(None, None, in_cluster=bool(flag)) == "kueue-system"


def test_in_cluster_env_namespace_and_conflicts(pod, monkeypatch, kubeconfig):
    monkeypatch.setenv("POD_NAMESPACE", "team-b")
    assert kc.context_namespace(None, None) == "team-b"
    with pytest.raises(InputError, match="without --kubeconfig/--context"):
        kc.resolve(None, "C", in_cluster=True)
    assert kc.resolve(str(kubeconfig), None).context == "fake"   # a kubeconfig comes before the pod's account


def test_in_cluster_outside_a_pod_is_one_line(tmp_path):
    res = run("collect", "--out", str(tmp_path / "snap"), "--in-cluster")
    line = one_line(res)
    assert res.exit_code == 2 and "cannot read the cluster from inside a pod" in line, line


def test_collect_prints_through_every_output_form(api, kubeconfig, tmp_path):
    """collect's result (the folder and its manifest) in each form of docs/cli.md."""
    import json as _json

    import jsonschema
    import yaml as _yaml
    from click.testing import CliRunner

    from kueue_doctor.cli import cli
    from kueue_doctor.commands.output import schema

    runner = CliRunner()
    for i, form in enumerate(("json", "yaml", "text", "wide")):
        out = tmp_path / f"snap-{i}"
        res = runner.invoke(cli, ["collect", "--out", str(out), "--kubeconfig", str(kubeconfig), "-o", form])
        assert res.exit_code == 0, res.output
        if form in ("json", "yaml"):
            doc = _json.loads(res.stdout) if form == "json" else _yaml.safe_load(res.stdout)
            assert doc["kind"] == "CollectResult" and doc["folder"] == str(out)
            jsonschema.validate(doc, schema("CollectResult"))
            assert doc["manifest"] == _json.loads((out / "manifest.json").read_text())
        else:
            assert str(out) in res.stdout and "…" not in res.stdout
