"""What the report tests read from a page: its figures, what it would fetch, and what headless
Chromium makes of it (the DOM after its scripts ran, its console, the requests it made)."""
from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is absent (Debian package `chromium`; .ci/run installs it)")

SCRIPT = re.compile(r"<script([^>]*)>(.*?)</script>", re.S | re.I)
NEW_PLOT = re.compile(r"Plotly\.newPlot\(\s*\"([^\"]+)\",\s*")


def figures(html: str) -> dict[str, dict]:
    """Each figure a page draws, by its div id: {"data": [traces], "layout": {...}}, in page order."""
    out: dict[str, dict] = {}
    dec = json.JSONDecoder()
    for m in NEW_PLOT.finditer(html):
        data, end = dec.raw_decode(html, m.end())
        rest = html[end:].lstrip()
        assert rest.startswith(","), rest[:40]
        layout, _ = dec.raw_decode(html[end:].lstrip()[1:].lstrip())
        out[m.group(1)] = {"data": data, "layout": layout}
    return out


def offline_problems(html: str) -> list[str]:
    """What would make a page fetch something when viewed: a script with a src, links, imports,
    URLs outside the scripts; and plotly.js not inlined exactly once."""
    problems = []
    scripts = SCRIPT.findall(html)
    problems += [f"script with attributes {a!r}" for a, _ in scripts if "src" in a.lower()]
    big = [b for _, b in scripts if len(b) > 1_000_000]
    if len(big) != 1 or "plotly.js" not in big[0][:2000].lower():
        problems.append(f"{len(big)} inline plotly.js bundles, not 1")
    problems += [f"URL in a figure script: {u}" for _, b in scripts if len(b) <= 1_000_000
                 for u in re.findall(r"https?://\S{0,40}", b)]
    rest = SCRIPT.sub("", html)
    problems += [f"outside the scripts: {m}" for m in
                 re.findall(r"https?://\S{0,40}|\bsrc\s*=|<link\b|@import|url\(|<iframe\b", rest, re.I)]
    return problems


@dataclass
class Loaded:
    dom: str                # the document after its scripts ran
    console: list[str]      # console messages (any level: our pages log nothing)
    requests: list[str]     # URLs the page asked the network for

    def count(self, css_class: str) -> int:
        """Elements whose class attribute holds ``css_class``."""
        return len(re.findall(r'class="(?:[^"]*\s)?' + re.escape(css_class) + r'(?:\s[^"]*)?"', self.dom))


def load(page: Path, timeout: float = 240.0) -> Loaded:
    """Opens ``page`` in headless Chromium, no network (an unreachable proxy catches any fetch,
    and the net log records the attempt), and returns what it shows."""
    with tempfile.TemporaryDirectory() as tmp:
        netlog = Path(tmp) / "net.json"
        res = subprocess.run(
            [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-extensions", f"--user-data-dir={tmp}/profile", "--enable-logging=stderr", "--v=0",
             "--proxy-server=127.0.0.1:9", f"--log-net-log={netlog}", "--window-size=1400,2400",
             "--dump-dom", page.resolve().as_uri()],
            capture_output=True, text=True, timeout=timeout, check=False)
        assert res.returncode == 0, res.stderr[-2000:]
        console = [line for line in res.stderr.splitlines() if ":CONSOLE" in line]
        return Loaded(res.stdout, console, page_requests(netlog))


def page_requests(netlog: Path) -> list[str]:
    """The URLs requested on behalf of a file:// page (the browser's own requests, made for no
    page, are left out)."""
    if not netlog.exists():
        return []
    log = json.loads(netlog.read_text() or "{}")
    start = log.get("constants", {}).get("logEventTypes", {}).get("URL_REQUEST_START_JOB")
    return [e["params"]["url"] for e in log.get("events", [])
            if e.get("type") == start and "file://" in str(e.get("params", {}).get("network_isolation_key", ""))
            and not str(e["params"].get("url", "")).startswith("file:")]
