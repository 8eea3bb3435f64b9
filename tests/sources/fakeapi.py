"""A recorded Kubernetes API server on 127.0.0.1 for collect/live tests.

It serves the objects of a gathered incident folder as the API would: discovery documents,
paginated lists (limit/continue) per resource, single GETs, pod logs and the metrics service
proxy. Faults (an HTTP status, a response held back until the test releases it, a body cut
short) are set per path. Every request is recorded so tests can check what the client sent
(method, query, auth) and whether the server answered it in full.
"""
from __future__ import annotations

import copy
import functools
import json
import socket
import ssl
import threading
from datetime import datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import yaml

KUEUE = "kueue.x-k8s.io"
KUEUE_PLURALS = {"ClusterQueue": "clusterqueues", "Cohort": "cohorts", "LocalQueue": "localqueues",
                 "ResourceFlavor": "resourceflavors", "WorkloadPriorityClass": "workloadpriorityclasses",
                 "Workload": "workloads"}
TOKEN = "fake-token-for-tests"
# A held response is sent after this long even if the test never releases it, so a client
# that waits for it does not hang the run: it gets its answer late, and the test sees it was answered.
HOLD_LIMIT_S = 30.0
METRICS = b"# TYPE kueue_pending_workloads gauge\nkueue_pending_workloads{cluster_queue=\"perception\",status=\"active\"} 7\n"


@functools.cache
def _parsed(path: Path) -> tuple:
    if not path.exists():
        return ()
    return tuple(yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))["items"])


def _list(folder: Path, name: str) -> list[dict]:
    # parsed once per test run (the incident files are large); the server never changes an item
    return list(_parsed(folder / name))


def controller_pod(dep: dict) -> dict:
    """The incident folders hold no controller pod; a real cluster has one (no node, no requests:
    it must not change what the doctor sees about capacity)."""
    labels = dep["spec"]["selector"]["matchLabels"]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "kueue-controller-manager-6f9c7d9b8-x2k4p", "namespace": "kueue-system",
                         "labels": dict(labels), "uid": "00000000-0000-0000-0000-00000000c0de",
                         "creationTimestamp": "2026-07-26T15:42:30Z"},
            "spec": {"containers": [{"name": "manager", "image": dep["spec"]["template"]["spec"]["containers"][0]["image"]}]},
            "status": {"phase": "Pending"}}


def _matches(obj: dict, selector: str) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    for term in filter(None, selector.split(",")):
        if "=" in term:
            k, _, v = term.partition("=")
            if labels.get(k) != v:
                return False
        elif term not in labels:
            return False
    return True


def _bearer_ok(header: str) -> bool:
    # The auth scheme is case-insensitive (RFC 9110); the in-cluster loader sends "bearer".
    scheme, _, token = header.partition(" ")
    return scheme.lower() == "bearer" and token == TOKEN


class FakeAPI:
    def __init__(self, folder: Path, kueue_versions=("v1beta1", "v1beta2"), page_size_cap: int = 0,
                 tls: tuple[Path, Path] | None = None):
        """``tls``: (certificate, key) files to serve HTTPS with, as a real API server does."""
        self.folder = folder
        self.kueue_versions = tuple(kueue_versions)
        self.requests: list[dict] = []
        self.faults: dict[str, tuple] = {}
        self.release = threading.Event()  # lets held responses go (set on exit)
        self.page_size_cap = page_size_cap
        dep_items = _list(folder, "deployment.yaml")
        self.deployment = next(i for i in dep_items if i["kind"] == "Deployment")
        self.configmap = next(i for i in dep_items if i["kind"] == "ConfigMap")
        self.pods = [*_list(folder, "pods.yaml"), controller_pod(self.deployment)]
        self.nodes = _list(folder, "nodes.yaml")
        self.namespaces: list[dict] = []  # the incident folders hold none
        self.events = _list(folder, "events.yaml")
        self.kueue = _list(folder, "kueue.yaml")
        self.log = (folder / "kueue-controller-manager.log").read_bytes()
        # The API server's clock: a second after the last controller log line, as when it was gathered.
        last = json.loads(self.log.rstrip().rsplit(b"\n", 1)[-1])["ts"]
        self.now = datetime.fromisoformat(last[:19] + "+00:00") + timedelta(seconds=1)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.scheme = "http"
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(str(tls[0]), str(tls[1]))
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
            self.scheme = "https"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeAPI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def paths(self) -> list[str]:
        return [r["path"] for r in self.requests]

    def kubeconfig(self, path: Path) -> Path:
        cfg = {"apiVersion": "v1", "kind": "Config", "current-context": "fake",
               "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
               "users": [{"name": "tester", "user": {"token": TOKEN}}],
               "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "tester"}}]}
        path.write_text(yaml.safe_dump(cfg))
        return path

    # -- routing -------------------------------------------------------------------------------

    def route(self, path: str, q: dict) -> tuple[int, object, str]:
        """(status, body, content type) for a GET."""
        if path == "/api":
            return 200, {"kind": "APIVersions", "versions": ["v1"]}, "json"
        if path == "/apis":
            return 200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": [self._group()]}, "json"
        if path == f"/apis/{KUEUE}":
            return 200, self._group(), "json"
        parts = path.strip("/").split("/")
        if parts[:2] == ["apis", KUEUE] and len(parts) >= 3:
            version = parts[2]
            if version not in self.kueue_versions:
                return self._status(404, "the server could not find the requested resource")
            if len(parts) == 3:
                return 200, {"kind": "APIResourceList", "groupVersion": f"{KUEUE}/{version}",
                             "resources": [{"name": p, "kind": k, "namespaced": k in ("LocalQueue", "Workload"),
                                            "verbs": ["get", "list", "watch"]} for k, p in KUEUE_PLURALS.items()]}, "json"
            plural = parts[3] if len(parts) == 4 else None
            kind = next((k for k, p in KUEUE_PLURALS.items() if p == plural), None)
            if kind is None:
                return self._status(404, "not found")
            items = [dict(copy.deepcopy(i), apiVersion=f"{KUEUE}/{version}") for i in self.kueue if i["kind"] == kind]
            return self._page(f"{kind}List", f"{KUEUE}/{version}", items, q, keep_type=True)
        ns = None
        if parts[:3] == ["api", "v1", "namespaces"] and len(parts) >= 5:
            ns, rest = parts[3], parts[4:]
        elif parts[:2] == ["api", "v1"]:
            rest = parts[2:]
        elif parts[:4] == ["apis", "apps", "v1", "namespaces"] and parts[5:6] == ["deployments"]:
            if parts[4:7] == ["kueue-system", "deployments", "kueue-controller-manager"]:
                return 200, self.deployment, "json"
            return self._status(404, f'deployments.apps "{parts[-1]}" not found')
        elif path == "/apis/apps/v1/deployments":
            return self._page("DeploymentList", "apps/v1", [self.deployment], q)
        elif path in ("/apis/batch/v1/jobs",) or (parts[:4] == ["apis", "batch", "v1", "namespaces"] and parts[-1] == "jobs"):
            return self._page("JobList", "batch/v1", [], q)
        else:
            return self._status(404, "the server could not find the requested resource")
        if rest == ["pods"]:
            return self._page("PodList", "v1", [p for p in self.pods if ns in (None, p["metadata"]["namespace"])], q)
        if len(rest) == 3 and rest[0] == "pods" and rest[2] == "log":
            if any(p["metadata"]["name"] == rest[1] for p in self.pods):
                return 200, self.log, "text/plain"
            return self._status(404, f'pods "{rest[1]}" not found')
        if rest == ["nodes"]:
            return self._page("NodeList", "v1", self.nodes, q)
        if rest == ["events"]:
            return self._page("EventList", "v1", [e for e in self.events if ns in (None, e["metadata"]["namespace"])], q)
        if rest == ["namespaces"]:
            return self._page("NamespaceList", "v1", self.namespaces, q)
        if rest == ["limitranges"]:
            return self._page("LimitRangeList", "v1", [], q)
        if rest == ["configmaps", "kueue-manager-config"]:
            return 200, self.configmap, "json"
        if rest == ["services", "kueue-controller-manager-metrics-service"]:
            return 200, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": rest[1], "namespace": ns},
                         "spec": {"ports": [{"name": "https", "port": 8443, "targetPort": 8443}]}}, "json"
        if rest[:2] == ["services", "https:kueue-controller-manager-metrics-service:8443"] and rest[2:] == ["proxy", "metrics"]:
            return 200, METRICS, "text/plain"
        return self._status(404, "the server could not find the requested resource")

    def _group(self) -> dict:
        versions = [{"groupVersion": f"{KUEUE}/{v}", "version": v} for v in self.kueue_versions]
        return {"kind": "APIGroup", "apiVersion": "v1", "name": KUEUE, "versions": versions,
                "preferredVersion": versions[-1]}

    def _page(self, kind: str, api_version: str, items: list[dict], q: dict, keep_type: bool = False):
        sel = q.get("labelSelector", [""])[0]
        items = [i for i in items if _matches(i, sel)]
        start = int(q.get("continue", ["0"])[0] or 0)
        limit = int(q.get("limit", ["0"])[0] or 0) or len(items) or 1
        if self.page_size_cap:
            limit = min(limit, self.page_size_cap)
        page = items[start:start + limit]
        if not keep_type:  # built-in lists carry no apiVersion/kind on their items; CR lists do
            page = [{k: v for k, v in i.items() if k not in ("apiVersion", "kind")} for i in page]
        more = start + limit < len(items)
        meta = {"resourceVersion": "196680551"} | ({"continue": str(start + limit)} if more else {})
        return 200, {"kind": kind, "apiVersion": api_version, "metadata": meta, "items": page}, "json"

    @staticmethod
    def _status(code: int, message: str):
        reason = {403: "Forbidden", 404: "NotFound", 410: "Expired"}.get(code, "InternalError")
        return code, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message,
                      "reason": reason, "code": code}, "json"

    # -- HTTP ------------------------------------------------------------------------------------

    def _handler(self):
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def date_time_string(self, timestamp=None):
                return format_datetime(api.now, usegmt=True)

            def _any(self):
                u = urlsplit(self.path)
                q = parse_qs(u.query)
                record = {"method": self.command, "path": u.path, "query": q,
                          "auth": self.headers.get("Authorization", ""), "answered": False}
                api.requests.append(record)
                if self.command != "GET":
                    status, body, ctype = api._status(405, "kueue-doctor must only read")
                elif not _bearer_ok(self.headers.get("Authorization", "")):
                    status, body, ctype = api._status(401, "Unauthorized")
                else:
                    status, body, ctype = api.route(u.path, q)
                fault = api.faults.get(u.path)
                if fault and fault[0] == "page" and q.get("continue"):  # only later pages break
                    fault = fault[1]
                elif fault and fault[0] == "page":
                    fault = None
                if fault and fault[0] == "status":
                    status, body, ctype = api._status(fault[1], fault[2] if len(fault) > 2 else "forbidden")
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                if fault and fault[0] == "hold":
                    api.release.wait(HOLD_LIMIT_S)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json" if ctype == "json" else ctype)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if fault and fault[0] == "truncate":
                        # Content-Length promises the whole body; the connection closes at half of it.
                        self.wfile.write(data[: len(data) // 2])
                        self.wfile.flush()
                        self.connection.shutdown(socket.SHUT_RDWR)
                        self.close_connection = True
                        return
                    self.wfile.write(data)
                    self.wfile.flush()
                    record["answered"] = True
                except OSError:  # the client gave up (timeout test)
                    self.close_connection = True

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

        return Handler
