"""A read-only HTTP GET view of a Kubernetes API server, through the official ``kubernetes`` client.

Only GET is ever sent: kueue-doctor never writes to a cluster. Responses are read as raw JSON
(not the client's typed models) because collect writes what ``kubectl get -o yaml`` writes, and
the typed models drop fields they do not know (every Kueue object, newer core fields).
"""
from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, BinaryIO

from .kubeconfig import Target

# A page of this many objects stays a few MB even for Pods, and is the size kubectl uses.
PAGE_SIZE = 500
# Clock differences below this are ordinary NTP jitter, not worth correcting for.
SKEW_THRESHOLD_S = 2.0


class FetchError(Exception):
    """One request that did not give a complete answer. ``reason`` is a short machine word."""

    def __init__(self, reason: str, message: str, status: int | None = None):
        super().__init__(message)
        self.reason = reason  # forbidden | not-found | timeout | truncated | gone | http-error | unreachable
        self.message = message
        self.status = status


def _clean(text: object, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def api_client(target: Target):
    """An ApiClient for one resolved cluster (``kubeconfig.resolve``)."""
    from kubernetes.client import ApiClient
    return ApiClient(configuration=target.configuration)


@dataclass
class Kube:
    """GETs against one API server with a per-request timeout."""
    client: Any
    timeout: float = 30.0
    server_date: datetime | None = None  # the API server's clock at its last answer
    local_date: datetime | None = None   # our clock at the same moment
    requests: int = 0

    @property
    def host(self) -> str:
        return self.client.configuration.host

    def _open(self, path: str, query: list[tuple[str, Any]] | None = None, accept: str = "application/json"):
        """The raw urllib3 response of a GET with status 2xx, body not yet read."""
        import urllib3
        from kubernetes.client.exceptions import ApiException

        params = self.client.param_serialize(method="GET", resource_path=path, query_params=query or [],
                                             header_params={"Accept": accept}, auth_settings=["BearerToken"])
        self.requests += 1
        try:
            resp = self.client.call_api(*params, _request_timeout=(min(self.timeout, 10.0), self.timeout))
        except urllib3.exceptions.MaxRetryError as e:
            raise _transport_error(e.reason or e, self.timeout) from e
        except (TimeoutError, urllib3.exceptions.ReadTimeoutError, urllib3.exceptions.ConnectTimeoutError) as e:
            raise _transport_error(e, self.timeout) from e
        except (urllib3.exceptions.ProtocolError, urllib3.exceptions.HTTPError) as e:
            raise FetchError("truncated", f"connection broken: {_clean(e)}") from e
        except ApiException as e:  # TLS failures come back as status 0
            raise FetchError("unreachable", _clean(e.reason)) from e
        raw = resp.response
        self._see_date(raw.headers.get("Date"))
        if not 200 <= resp.status < 300:
            body = b""
            try:
                body = raw.read(64 * 1024)
            except Exception:
                pass
            finally:
                raw.release_conn()
            raise _status_error(resp.status, body)
        return raw

    def _see_date(self, header: str | None) -> None:
        if not header:
            return
        try:
            self.server_date = parsedate_to_datetime(header).astimezone(UTC)
            self.local_date = datetime.now(UTC)
        except (TypeError, ValueError):
            pass

    def get_json(self, path: str, query: list[tuple[str, Any]] | None = None) -> dict:
        raw = self._open(path, query)
        data = self._read_all(raw)
        try:
            doc = json.loads(data)
        except ValueError as e:
            # A body cut short on a connection that closed cleanly still fails here. (A body that
            # is not UTF-8 raises UnicodeDecodeError, which has no .msg.)
            why = e.msg if isinstance(e, json.JSONDecodeError) else str(e)
            raise FetchError("truncated", f"incomplete JSON after {len(data)} bytes ({why})") from None
        if not isinstance(doc, dict):
            raise FetchError("http-error", "answer is not a JSON object")
        return doc

    def _read_all(self, raw) -> bytes:
        import urllib3
        try:
            return raw.read()
        except (TimeoutError, urllib3.exceptions.ReadTimeoutError) as e:
            raise FetchError("timeout", f"body not finished within {self.timeout:g} s") from e
        except (urllib3.exceptions.ProtocolError, urllib3.exceptions.HTTPError, OSError) as e:
            raise FetchError("truncated", f"connection broken mid-body: {_clean(e)}") from e
        finally:
            raw.release_conn()

    def list_all(self, path: str, query: list[tuple[str, Any]] | None = None) -> tuple[list[dict], dict]:
        """Every item of a list, page by page (limit/continue). Returns (items, the first page's list
        metadata). A continue token that expired (410) restarts the list once from the beginning."""
        for attempt in (1, 2):
            items: list[dict] = []
            token = ""
            first_meta: dict = {}
            try:
                while True:
                    q = [*(query or []), ("limit", PAGE_SIZE)]
                    if token:
                        q.append(("continue", token))
                    page = self.get_json(path, q)
                    if not first_meta:
                        first_meta = page.get("metadata") or {}
                    got = page.get("items")
                    if not isinstance(got, list):
                        raise FetchError("http-error", "list answer has no items")
                    items.extend(got)
                    token = (page.get("metadata") or {}).get("continue") or ""
                    if not token:
                        return items, first_meta
            except FetchError as e:
                if e.reason == "gone" and attempt == 1:
                    continue
                if items:
                    e.message += f" (after {len(items)} items on earlier pages)"
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def stream_to(self, path: str, query: list[tuple[str, Any]], out: BinaryIO) -> int:
        """Copy a (possibly large) plain-text body such as a container log to ``out``; bytes written.
        What arrived before a break is kept and the break is raised, so callers can say so."""
        import urllib3
        raw = self._open(path, query, accept="*/*")
        n = 0
        try:
            for chunk in raw.stream(256 * 1024):
                out.write(chunk)
                n += len(chunk)
        except (TimeoutError, urllib3.exceptions.ReadTimeoutError) as e:
            raise FetchError("timeout", f"stopped sending after {n} bytes (no data for {self.timeout:g} s)") from e
        except (urllib3.exceptions.ProtocolError, urllib3.exceptions.HTTPError, OSError) as e:
            raise FetchError("truncated", f"connection broken after {n} bytes: {_clean(e)}") from e
        finally:
            raw.release_conn()
        return n

    def server_now(self) -> datetime:
        """Now by the API server's clock, which stamped every object timestamp the doctor compares with."""
        now = datetime.now(UTC)
        if self.server_date and self.local_date:
            skew = (self.server_date - self.local_date).total_seconds()
            if abs(skew) > SKEW_THRESHOLD_S:
                return now + (self.server_date - self.local_date)
        return now

    def clock_skew(self) -> float:
        if self.server_date and self.local_date:
            return round((self.server_date - self.local_date).total_seconds(), 1)
        return 0.0


def _transport_error(e: BaseException, timeout: float) -> FetchError:
    import urllib3
    # NewConnectionError (refused, no route, DNS) subclasses ConnectTimeoutError in urllib3: test it first.
    if isinstance(e, urllib3.exceptions.NewConnectionError) or not isinstance(
            e, (urllib3.exceptions.ReadTimeoutError, urllib3.exceptions.ConnectTimeoutError, socket.timeout)):
        return FetchError("unreachable", _clean(e))
    return FetchError("timeout", f"no answer within {timeout:g} s")


def _status_error(status: int, body: bytes) -> FetchError:
    message = ""
    try:
        doc = json.loads(body)
        if isinstance(doc, dict):
            message = doc.get("message") or doc.get("reason") or ""
    except ValueError:
        message = body.decode("utf-8", "replace")
    message = _clean(message) or f"HTTP {status}"
    reason = {401: "unauthorized", 403: "forbidden", 404: "not-found", 410: "gone",
              504: "timeout"}.get(status, "http-error")
    return FetchError(reason, f"HTTP {status}: {message}", status)
