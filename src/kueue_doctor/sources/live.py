"""Live mode: a ``GatheredSnapshot`` straight from a cluster, read-only.

It is gathered into a temporary folder by the same code as ``collect`` and loaded with
``load_folder``, so live and folder diagnoses can never disagree about what was read. The folder
outlives this call (the doctor reads the log files later) and is removed at exit.
"""
from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from ..kueue import layout
from .kubeconfig import context_namespace, resolve
from .snapshot import GatheredSnapshot, load_folder

DEFAULT_SINCE_SECONDS = 6 * 3600
__all__ = ["DEFAULT_SINCE_SECONDS", "context_namespace", "snapshot_from_cluster"]


def snapshot_from_cluster(kubeconfig: str | None, context: str | None, since_seconds: int = DEFAULT_SINCE_SECONDS,
                          timeout: float = 30.0, in_cluster: bool = False) -> GatheredSnapshot:
    """The cluster kubectl would read with these flags (``kubeconfig.resolve``: ``--kubeconfig``
    alone, else ``$KUBECONFIG`` merged, else ``~/.kube/config``, else the pod's service account)."""
    from .kube_collect import Options, collect
    target = resolve(kubeconfig, context, in_cluster)  # bad input fails before the folder exists
    folder = tempfile.mkdtemp(prefix="kueue-doctor-live-")
    atexit.register(shutil.rmtree, folder, True)
    try:
        collect(target, Path(folder), Options(since_seconds=since_seconds), timeout=timeout)
    except BaseException:
        shutil.rmtree(folder, True)
        raise
    snap = load_folder(folder)
    snap.origin = f"live:{snap.manifest.get(layout.SERVER, '')}"
    return snap
