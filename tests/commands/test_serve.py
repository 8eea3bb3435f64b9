"""`kueue-doctor serve` as a process, scraped by a real Prometheus (its rules: tests/metrics/test_deploy.py)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest
import yaml

from kueue_doctor.sim.incidents import incident_path
from tests.metrics.serving import Serve
from tests.paths import INCIDENTS

PROMETHEUS = shutil.which("prometheus")
needs_prometheus = pytest.mark.skipif(not PROMETHEUS, reason="prometheus not installed (Debian package `prometheus`)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_serve(*args: str) -> Serve:
    """Start `kueue-doctor serve` and wait for its "listening on" line (tests/metrics/serving.py:
    a real deadline, generous enough for a loaded machine, and its stderr in the failure message)."""
    return Serve(*args)


def stop(p: subprocess.Popen, sig=signal.SIGTERM) -> int:
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return p.returncode


def get(url: str, timeout: float = 5) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


@pytest.fixture
def sim_exporter():
    served = start_serve("--simulate", str(incident_path("slow-preemption-release")),
                         "--speed", "1000", "--refresh", "1s", "--listen", "127.0.0.1:0")
    yield served.host, served.port
    served.stop()


@needs_prometheus
def test_prometheus_scrapes_the_violating_queue(sim_exporter, tmp_path):
    host, port = sim_exporter
    web = free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(yaml.safe_dump({
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "scrape_configs": [{"job_name": "kueue-doctor", "static_configs": [{"targets": [f"{host}:{port}"]}]}]}))
    prom = subprocess.Popen([PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'data'}",
                             f"--web.listen-address=127.0.0.1:{web}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        query = urllib.parse.quote("kueue_doctor_guarantee_violation==1")
        found, deadline = set(), time.monotonic() + 40
        while time.monotonic() < deadline and prom.poll() is None:
            try:
                body = json.loads(get(f"http://127.0.0.1:{web}/api/v1/query?query={query}"))
                found = {r["metric"]["cluster_queue"] for r in body["data"]["result"]}
            except (OSError, ValueError):
                pass
            if found:
                break
            time.sleep(0.5)
        assert prom.poll() is None, "prometheus exited"
        # team-a's guarantee is what the 15-minute victims of team-b block
        assert found == {"team-a"}
    finally:
        stop(prom)


def test_serve_binds_loopback_by_default_and_stops_cleanly_on_ctrl_c():
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", 9817))
        except OSError:
            pytest.skip("port 9817 is in use here")
    served = start_serve(str(next(INCIDENTS.glob("01-*"))))
    host, port = served.host, served.port
    try:
        assert (host, port) == ("127.0.0.1", 9817)
        text = get(f"http://127.0.0.1:{port}/metrics", timeout=30)
        assert 'kueue_doctor_guarantee_violation{cluster_queue="perception"' in text
        # nothing answers on the host's other addresses: its non-loopback ones (a host may have none)
        # and another loopback one (on Linux all of 127/8 reaches the host: a wildcard bind answers there)
        others = {a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
                  if not a[4][0].startswith("127.")}
        for addr in sorted(others | {"127.0.0.2"}):
            with socket.socket() as c:
                c.settimeout(2)
                with pytest.raises(OSError):  # noqa: PT011 - refused, unreachable or timed out: any will do
                    c.connect((addr, port))
    finally:
        code = served.stop(signal.SIGINT)
    rest = served.stderr()
    assert code == 0 and "Traceback" not in rest and "stopped" in rest


@pytest.mark.parametrize(("args", "fragment"), [
    (["/no/such/folder"], "no such file"),
    ([], "no cluster to read"),   # no FOLDER: the live cluster, and there is none to find
    (["--simulate", "x.yaml", "--kubeconfig", "k"], "not several"),
    (["--listen", "localhost", "--simulate", "x.yaml"], "HOST:PORT"),
    (["--refresh", "soon", "--simulate", "x.yaml"], "--refresh"),
])
def test_bad_input_is_one_line_exit_2(args, fragment, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST")}
    env["HOME"] = str(tmp_path)   # no ~/.kube/config
    p = subprocess.run([sys.executable, "-m", "kueue_doctor", "serve", *args], capture_output=True, text=True,
                       timeout=30, env=env)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and fragment in p.stderr, p.stderr
