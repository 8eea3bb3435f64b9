"""WaitForPodsReady as a given Kueue release runs it: whether it is on, its timeouts, blocking and
requeuing backoff, from the Configuration's ``waitForPodsReady`` block (or its absence).

Upstream (kubernetes-sigs/kueue, read at every tag v0.12.0 .. v0.19.2 and main ff69552e):

- ``apis/config/v1beta1``: ``enable`` (default false) switches it on; then ``timeout`` defaults
  to 5 minutes (``defaultPodsReadyTimeout``), ``blockAdmission`` to ``enable`` (true), and
  ``recoveryTimeout`` to ``timeout`` from v0.16 (before v0.16 it was opt-in: unset, no recovery
  timeout). ``configuration_conversion.go`` turns ``enable: false`` into no block at all, and
  the hub (v1beta2) defaults are *not* applied after conversion (the universal decoder
  defaults the version it read), so a v1beta1 Configuration without ``enable: true`` runs
  without WaitForPodsReady on every release, v0.19+ included.
- ``apis/config/v1beta2`` (from v0.15): the block's presence enables it
  (``waitforpodsready.Enabled``: ``cfg != nil``); ``blockAdmission`` defaults to false,
  ``recoveryTimeout`` to ``timeout`` from v0.16, ``timeout`` is required (validation "must be specified")
  until v0.18. From v0.19 ``SetDefaults_Configuration`` puts an empty block in when there is
  none and defaults ``timeout`` to 30 minutes (``DefaultWaitForPodsReadyTimeout``): on by
  default, unless the ``DisableWaitForPodsReady`` gate (alpha, off, v0.19+) is set.
- ``requeuingStrategy``: ``timestamp`` Eviction, ``backoffBaseSeconds`` 60,
  ``backoffMaxSeconds`` 3600, ``backoffLimitCount`` unset (requeue for ever), in both versions.
- ``recoveryTimeout: 0s`` disables the recovery timeout (``core.go`` keeps only a positive one).

The backoff (``workload.UpdateRequeueState`` -> ``pkg/util/wait.Backoff.WaitTime``, a
``wait.Backoff{Duration: base, Factor: 2, Jitter: 0.0001, Cap: max}`` stepped ``count`` times):
the n-th requeue waits ``base`` for n = 1 and ``min(base * 2^(n-1), max)`` after, times
``1 + U(0, 0.0001)``. A max of 0 means no cap. Kueue draws the jitter; the model leaves it out
(at most 0.01 % longer).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from .version import Version

# a Go time.Duration as metav1.Duration prints and reads it: "30m0s", "5m", "1h30m", "300ms"
_GO_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def go_duration(text: str) -> float | None:
    """Seconds of a Go duration string; None if it is not one ("0" is 0)."""
    t = text.strip()
    if t == "0":
        return 0.0
    parts = _GO_PART.findall(t)
    if not parts or "".join(n + u for n, u in parts) != t:
        return None
    return float(sum(float(n) * _GO_UNITS[u] for n, u in parts))

V1BETA1: Final = "config.kueue.x-k8s.io/v1beta1"
V1BETA2: Final = "config.kueue.x-k8s.io/v1beta2"

DISABLE_GATE: Final = "DisableWaitForPodsReady"
V1BETA1_TIMEOUT: Final = 5 * 60.0          # v1beta1 defaultPodsReadyTimeout
V1BETA2_TIMEOUT: Final = 30 * 60.0         # v1beta2 DefaultWaitForPodsReadyTimeout (v0.19+)
BACKOFF_BASE_SECONDS: Final = 60
BACKOFF_MAX_SECONDS: Final = 3600
BACKOFF_JITTER: Final = 0.0001
EVICTION_TIMESTAMP: Final = "Eviction"
CREATION_TIMESTAMP: Final = "Creation"

V1BETA2_CONFIG: Final = Version(0, 15)     # the first release with config v1beta2
ON_BY_DEFAULT: Final = Version(0, 19)      # v1beta2 defaults an absent block (and the gate exists)
RECOVERY_DEFAULT: Final = Version(0, 16)   # recoveryTimeout defaults to timeout


@dataclass(frozen=True, slots=True)
class RequeuingStrategy:
    timestamp: str = EVICTION_TIMESTAMP
    backoff_limit_count: int | None = None   # None: requeued for ever
    backoff_base_seconds: int = BACKOFF_BASE_SECONDS
    backoff_max_seconds: int = BACKOFF_MAX_SECONDS


@dataclass(frozen=True, slots=True)
class WaitForPodsReady:
    """The effective settings of an enabled WaitForPodsReady (seconds)."""
    timeout: float
    block_admission: bool = False
    recovery_timeout: float | None = None    # None: no recovery timeout
    requeuing: RequeuingStrategy = RequeuingStrategy()
    source: str = ""                         # how it came about, for explanations

    def backoff(self, count: int) -> float:
        """Seconds the ``count``-th requeue waits (``count`` >= 1)."""
        return backoff_seconds(count, self.requeuing.backoff_base_seconds, self.requeuing.backoff_max_seconds)


@dataclass(frozen=True, slots=True)
class Resolved:
    """``settings`` None: WaitForPodsReady is off (``why`` says why); ``problem``: what Kueue's
    validation rejects (the manager would not start with it)."""
    settings: WaitForPodsReady | None
    why: str
    problem: str = ""


def backoff_seconds(count: int, base: int, cap: int) -> float:
    """Upstream's requeue backoff for the ``count``-th requeue, without the jitter."""
    if count < 1:
        return 0.0
    if count == 1:
        return float(base)           # the first Step returns Duration before any capping
    wait = float(base) * float(2 ** (count - 1))
    return min(wait, float(cap)) if cap > 0 else wait


def _seconds(value: Any, where: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)  # a Go duration is a string; numbers are taken as seconds
    s = go_duration(str(value)) if value is not None else None
    if s is None:
        raise ValueError(f"{where}: not a duration: {value!r}")
    return s


def _int(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{where}: must be an integer, got {value!r}")
    return value


def _bool(value: Any, where: str) -> bool | None:
    if value is None:
        return None
    if not isinstance(value, bool):
        raise ValueError(f"{where}: must be true or false, got {value!r}")
    return value


def check_block(block: Mapping[str, Any]) -> None:
    """Raises ValueError ("field: problem") for a block whose fields have the wrong types."""
    for key in ("timeout", "recoveryTimeout"):
        if block.get(key) is not None:
            _seconds(block[key], f"waitForPodsReady.{key}")
    for key in ("enable", "blockAdmission"):
        _bool(block.get(key), f"waitForPodsReady.{key}")
    rs = block.get("requeuingStrategy")
    if rs is not None and not isinstance(rs, Mapping):
        raise ValueError("waitForPodsReady.requeuingStrategy: must be an object")
    for key in ("backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"):
        _int((rs or {}).get(key), f"waitForPodsReady.requeuingStrategy.{key}")
    ts = (rs or {}).get("timestamp")
    if ts is not None and ts not in (EVICTION_TIMESTAMP, CREATION_TIMESTAMP):
        raise ValueError(f"waitForPodsReady.requeuingStrategy.timestamp: must be Eviction or Creation, got {ts!r}")


def resolve(block: Mapping[str, Any] | None, api_version: str | None, version: Version,
            gates: Mapping[str, bool] | None = None) -> Resolved:
    """WaitForPodsReady as ``version`` runs a Configuration of ``api_version`` (None: no
    Configuration at all, Kueue's defaults) whose ``waitForPodsReady`` is ``block``."""
    gates = gates or {}
    if version >= ON_BY_DEFAULT and gates.get(DISABLE_GATE, False):
        return Resolved(None, f"the {DISABLE_GATE} feature gate is on")
    beta1 = api_version == V1BETA1 or (api_version is None and version < V1BETA2_CONFIG)
    if beta1:
        if block is None or not block.get("enable", False):
            return Resolved(None, "waitForPodsReady.enable is not true (config v1beta1)")
        timeout = _seconds(block["timeout"], "timeout") if block.get("timeout") is not None else V1BETA1_TIMEOUT
        block_admission = block.get("blockAdmission")
        block_admission = True if block_admission is None else bool(block_admission)
        source = "config v1beta1, enable: true"
    else:
        if block is None:
            if version < ON_BY_DEFAULT:
                return Resolved(None, f"no waitForPodsReady block (on by default only from {ON_BY_DEFAULT.label})")
            block = {}
            source = f"on by default ({ON_BY_DEFAULT.label}+, config v1beta2)"
        else:
            source = "config v1beta2, waitForPodsReady block present"
        t = block.get("timeout")
        timeout = _seconds(t, "timeout") if t is not None else 0.0
        if timeout == 0.0:
            if version < ON_BY_DEFAULT:
                return Resolved(None, "waitForPodsReady.timeout must be specified",
                                problem="waitForPodsReady.timeout: Required value: must be specified")
            timeout = V1BETA2_TIMEOUT
        block_admission = bool(block.get("blockAdmission", False) or False)
    rt = block.get("recoveryTimeout")
    recovery: float | None
    if rt is not None:
        recovery = _seconds(rt, "recoveryTimeout")
    else:
        recovery = timeout if version >= RECOVERY_DEFAULT else None
    if recovery is not None and recovery <= 0:
        recovery = None
    rs = block.get("requeuingStrategy") or {}
    requeuing = RequeuingStrategy(
        timestamp=rs.get("timestamp") or EVICTION_TIMESTAMP,
        backoff_limit_count=_int(rs.get("backoffLimitCount"), "backoffLimitCount"),
        backoff_base_seconds=_int(rs.get("backoffBaseSeconds"), "backoffBaseSeconds") or BACKOFF_BASE_SECONDS,
        backoff_max_seconds=_int(rs.get("backoffMaxSeconds"), "backoffMaxSeconds") or BACKOFF_MAX_SECONDS)
    return Resolved(WaitForPodsReady(timeout, block_admission, recovery, requeuing, source), source)
