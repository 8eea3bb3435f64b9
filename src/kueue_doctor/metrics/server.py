"""The exporter's HTTP endpoints, on the standard library's ``ThreadingHTTPServer``.

- ``/metrics``: the registry, rendered by prometheus_client (text format, or OpenMetrics when
  the scraper asks for it; gzip when it accepts it);
- ``/healthz``: 200 ``ok`` while the process serves (a liveness probe);
- ``/readyz``: 200 ``ok`` once the source has a state and its last refresh worked, else 503 and
  the reason in one line (a readiness probe);
- anything else: 404. ``HEAD`` answers like ``GET`` without the body.

prometheus_client's ``start_http_server`` serves the metrics on every path, so a probe on
``/healthz`` would render (and a typo in a scrape path would hide behind) the metrics page.
"""
from __future__ import annotations

import gzip
import socket
import socketserver
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

TEXT = "text/plain; charset=utf-8"


class ExporterServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], family: socket.AddressFamily, registry: CollectorRegistry,
                 source: Any):
        self.address_family = family
        self.registry = registry
        self.source = source
        super().__init__(address, Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind looks the host's FQDN up (a reverse DNS query that can take seconds
        # on a cluster's resolver); the name is only used for CGI, so skip it
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)


class Handler(BaseHTTPRequestHandler):
    server: ExporterServer
    server_version = "kueue-doctor"
    timeout = 30   # a client that stalls mid-request does not hold a thread for ever

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def _answer(self, body: bool) -> None:
        url = urlsplit(self.path)
        if url.path == "/metrics":
            status, ctype, data = self._metrics()
        elif url.path == "/healthz":
            status, ctype, data = 200, TEXT, b"ok\n"
        elif url.path == "/readyz":
            ready, reason = self.server.source.readiness()
            status, ctype, data = (200 if ready else 503), TEXT, (" ".join(reason.split()) + "\n").encode()
        else:
            status, ctype, data = 404, TEXT, b"not found: kueue-doctor serves /metrics, /healthz and /readyz\n"
        encoding = None
        if url.path == "/metrics" and status == 200 and "gzip" in self.headers.get("Accept-Encoding", ""):
            data, encoding = gzip.compress(data), "gzip"
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.end_headers()
        if body:
            self.wfile.write(data)

    def _metrics(self) -> tuple[int, str, bytes]:
        encoder, ctype = choose_encoder(self.headers.get("Accept", ""))
        try:
            return 200, ctype, encoder(self.server.registry)
        except Exception as e:   # one line for the scraper, never a traceback on the exporter's stderr
            return 500, TEXT, f"kueue-doctor: rendering the metrics failed: {type(e).__name__}: {e}\n".encode()

    def log_message(self, format: str, *args: Any) -> None:
        pass   # one line per scrape and probe would drown the refresh errors on stderr


def start_server(host: str, port: int, registry: CollectorRegistry,
                 source: Any) -> tuple[ExporterServer, threading.Thread]:
    """Bind ``host:port`` (port 0: a free one; IPv6 hosts too) and serve in a daemon thread.
    Raises OSError when the address cannot be bound."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, sockaddr = infos[0]
    httpd = ExporterServer((str(sockaddr[0]), port), family, registry, source)
    thread = threading.Thread(target=httpd.serve_forever, name="kueue-doctor-http", daemon=True)
    thread.start()
    return httpd, thread
