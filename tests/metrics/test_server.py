"""The exporter's HTTP endpoints: /metrics, /healthz, /readyz, 404 for the rest.

In process on a live source whose fetch the test controls (before the first load, after it, and
after a failed refresh), then once through `kueue-doctor serve` itself."""
from __future__ import annotations

import threading
import urllib.error
import urllib.request
from datetime import timedelta

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from kueue_doctor.metrics.collector import DoctorCollector
from kueue_doctor.metrics.server import start_server
from kueue_doctor.metrics.sources import LiveSource
from kueue_doctor.sources.snapshot import load_folder
from tests.paths import INCIDENTS

from .serving import Serve

HOL = next(INCIDENTS.glob("01-*"))


def request(url: str, method: str = "GET", headers: dict | None = None) -> tuple[int, dict, bytes]:
    req = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        with e:
            return e.code, dict(e.headers), e.read()


class Fetch:
    """A cluster that answers, or fails, as the test says."""

    def __init__(self):
        self.error: Exception | None = None

    def __call__(self, kubeconfig, context):
        if self.error is not None:
            raise self.error
        return load_folder(str(HOL))


@pytest.fixture
def live():
    fetch = Fetch()
    source = LiveSource("kubeconfig", None, timedelta(minutes=5), 30.0, fetch=fetch)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DoctorCollector(source))
    httpd, thread = start_server("127.0.0.1", 0, registry, source)
    host, port = httpd.server_address[:2]
    try:
        yield source, fetch, f"http://{host}:{port}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def test_healthz_answers_ok_whatever_the_state(live):
    source, fetch, base = live
    assert request(base + "/healthz")[::2] == (200, b"ok\n")   # before the first load too
    fetch.error = RuntimeError("connection refused")
    source.tick()
    status, headers, body = request(base + "/healthz")
    assert (status, body) == (200, b"ok\n") and headers["Content-Type"].startswith("text/plain")


def test_readyz_before_and_after_the_first_load_and_on_a_failing_refresh(live):
    source, fetch, base = live
    assert request(base + "/readyz")[::2] == (503, b"no state loaded yet\n")
    source.tick()
    assert request(base + "/readyz")[::2] == (200, b"ok\n")
    fetch.error = RuntimeError("Unauthorized:\n  token expired")
    source.tick()
    status, _, body = request(base + "/readyz")
    assert (status, body) == (503, b"last refresh failed: Unauthorized: token expired\n")
    fetch.error = None
    source.tick()
    assert request(base + "/readyz")[::2] == (200, b"ok\n")


def test_readyz_when_the_first_load_fails(live):
    source, fetch, base = live
    fetch.error = PermissionError("workloads.kueue.x-k8s.io is forbidden")
    source.tick()
    status, _, body = request(base + "/readyz")
    assert status == 503 and body.decode().splitlines() == [
        "no state loaded yet: last attempt failed: workloads.kueue.x-k8s.io is forbidden"]


@pytest.mark.parametrize("path", ["/", "/metricsx", "/metrics/", "/healthz/x", "/favicon.ico"])
def test_anything_else_is_404(live, path):
    status, _, body = request(live[2] + path)
    assert status == 404 and b"/metrics" in body


def test_metrics_page_is_prometheus_text_with_build_info(live):
    source, _, base = live
    source.tick()
    status, headers, body = request(base + "/metrics?ignored=1")
    assert status == 200 and headers["Content-Type"].startswith("text/plain; version=0.0.4")
    names = {f.name for f in text_string_to_metric_families(body.decode())}
    assert {"kueue_doctor_build_info", "kueue_doctor_guarantee_violation", "kueue_doctor_cause"} <= names


def test_metrics_speak_openmetrics_and_gzip_when_asked(live):
    import gzip
    base = live[2]
    status, headers, body = request(base + "/metrics", headers={"Accept": "application/openmetrics-text; version=1.0.0"})
    assert status == 200 and headers["Content-Type"].startswith("application/openmetrics-text")
    assert body.endswith(b"# EOF\n")
    status, headers, body = request(base + "/metrics", headers={"Accept-Encoding": "gzip"})
    assert headers.get("Content-Encoding") == "gzip" and b"kueue_doctor_build_info" in gzip.decompress(body)


def test_head_has_no_body_and_other_methods_are_refused(live):
    base = live[2]
    status, headers, body = request(base + "/readyz", method="HEAD")
    assert status == 503 and body == b"" and int(headers["Content-Length"]) > 0
    assert request(base + "/metrics", method="POST")[0] == 501


def test_scrapes_are_served_concurrently(live):
    source, _, base = live
    source.tick()
    results: list[int] = []
    threads = [threading.Thread(target=lambda: results.append(request(base + "/metrics")[0])) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert results == [200] * 8


def test_serve_process_endpoints():
    served = Serve(str(HOL), "--listen", "127.0.0.1:0")
    try:
        assert served.get("/healthz")[::2] == (200, "ok\n")
        assert served.get("/readyz")[::2] == (200, "ok\n")   # a folder is loaded before the server starts
        status, ctype, text = served.get("/metrics")
        assert status == 200 and ctype.startswith("text/plain")
        assert 'kueue_doctor_cause{cluster_queue="perception",id="head-of-line-blocking"} 1.0' in text
        assert "kueue_doctor_build_info{" in text
        assert served.get("/nope")[0] == 404
    finally:
        code = served.stop()
    rest = served.stderr()
    assert code == 0 and "Traceback" not in rest and "stopped" in rest
