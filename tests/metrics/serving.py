"""`kueue-doctor serve` as a child process, for the tests that talk to it over HTTP.

Its stderr is read by a thread into a queue, so waiting for the "listening on" line has a real
deadline (a blocking ``readline`` has none) and what the process printed is in the failure
message. Startup imports the package, loads a folder and runs the doctor before it binds: under
a loaded test run that can take a while, hence the generous default.
"""
from __future__ import annotations

import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

LISTENING = re.compile(r"listening on http://(\S+):(\d+)/metrics")
STARTUP_TIMEOUT = 120.0


class Serve:
    def __init__(self, *args: str, timeout: float = STARTUP_TIMEOUT):
        self.process = subprocess.Popen([sys.executable, "-m", "kueue_doctor", "serve", *args],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.startup: list[str] = []
        threading.Thread(target=self._pump, name="serve-stderr", daemon=True).start()
        self.host, self.port = self._wait_listening(timeout)

    def _pump(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._lines.put(line)
        self._lines.put(None)

    def _wait_listening(self, timeout: float) -> tuple[str, int]:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.startup.append(line)
            m = LISTENING.search(line)
            if m:
                return m.group(1), int(m.group(2))
        code = self.stop()
        raise AssertionError(f"serve did not start within {timeout:g} s: exit {code}, stderr: {''.join(self.startup)!r}")

    def url(self, path: str) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{path}"

    def get(self, path: str, timeout: float = 30) -> tuple[int, str, str]:
        """(status, content type, body) of a GET, error statuses included."""
        try:
            with urllib.request.urlopen(self.url(path), timeout=timeout) as r:
                return r.status, r.headers.get("Content-Type", ""), r.read().decode()
        except urllib.error.HTTPError as e:
            with e:
                return e.code, e.headers.get("Content-Type", ""), e.read().decode()

    def stop(self, sig: int = signal.SIGTERM) -> int:
        p = self.process
        if p.poll() is None:
            p.send_signal(sig)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        return p.returncode

    def stderr(self) -> str:
        """What the process printed after its "listening on" line, once it has exited."""
        out = []
        while True:
            try:
                line = self._lines.get(timeout=10)
            except queue.Empty:
                break
            if line is None:
                break
            out.append(line)
        return "".join(out)
