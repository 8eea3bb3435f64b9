"""A gathered snapshot folder: what `kubectl get -o yaml` / `kubectl logs` (or `kueue-doctor
collect`) wrote. Object files are told apart by content; controller logs by name or content."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..api.load import load_paths
from ..api.state import ClusterState
from ..errors import InputError
from ..kueue import layout


@dataclass
class GatheredSnapshot:
    """A cluster as gathered: its objects, its controller logs and what could not be collected."""
    state: ClusterState
    log_files: list[str] = field(default_factory=list)
    metrics_file: str | None = None
    manifest: dict = field(default_factory=dict)
    taken_at: datetime | None = None
    origin: str = ""


def _looks_like_log(path: Path) -> bool:
    name = path.name.lower()
    if name in layout.METRICS_FILES or name.endswith((".yaml", ".yml", ".json")):
        return False
    return name.endswith((*layout.LOG_SUFFIXES, "-logs.txt")) or "controller-manager" in name


def load_folder(folder: str) -> GatheredSnapshot:
    root = Path(folder)
    if not root.exists():
        raise InputError("no such file or directory", file=folder)
    if not root.is_dir():
        raise InputError("not a folder (diagnose reads a gathered snapshot folder)", file=folder)
    state = load_paths([root])
    snap = GatheredSnapshot(state=state, origin=str(root))
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            p = Path(dirpath) / f
            if _looks_like_log(p):
                snap.log_files.append(str(p))
            elif f in layout.METRICS_FILES:
                snap.metrics_file = str(p)
    mpath = root / layout.MANIFEST
    if mpath.exists():
        try:
            snap.manifest = json.loads(mpath.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise InputError(f"unreadable manifest: {e}", file=str(mpath)) from None
        t = snap.manifest.get(layout.COLLECTED_AT)
        if isinstance(t, str):
            snap.taken_at = layout.parse_time(t)
    return snap


def latest_timestamp(state: ClusterState) -> datetime | None:
    """The newest time any object records: what a snapshot's "now" is when nothing says so."""
    best: datetime | None = None

    def see(t: datetime | None) -> None:
        nonlocal best
        if t is not None and (best is None or t > best):
            best = t
    for ev in state.events:
        see(ev.last_timestamp)
    for w in state.workloads.values():
        see(w.meta.creation_timestamp)
        for c in w.status.conditions:
            see(c.last_transition_time)
    for p in state.pods.values():
        see(p.meta.creation_timestamp)
        see(p.meta.deletion_timestamp)
    for n in state.nodes.values():
        for c in n.conditions:
            see(c.last_transition_time)
    for cq in state.cluster_queues.values():
        for c in cq.status.conditions:
            see(c.last_transition_time)
    for j in state.jobs.values():
        see(j.meta.creation_timestamp)
    return best


def utc(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=UTC)
