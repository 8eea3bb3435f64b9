"""Live mode: a ``GatheredSnapshot`` straight from a cluster, read-only.

It is gathered into a temporary folder by the same code as ``collect`` and loaded with
``load_folder``, so live and folder diagnoses can never disagree about what was read. The folder
outlives this call (the doctor reads the log files later) and is removed at exit.
"""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

from ..errors import InputError
from ..kueue import layout
from .snapshot import GatheredSnapshot, load_folder

DEFAULT_SINCE_SECONDS = 6 * 3600


def resolve_kubeconfig(kubeconfig: str | None) -> str:
    """The kubeconfig kubectl would use: the flag, else the first file of $KUBECONFIG, else ~/.kube/config."""
    if kubeconfig:
        return kubeconfig
    env = os.environ.get("KUBECONFIG", "")
    for p in env.split(os.pathsep):
        if p and os.path.exists(p):
            return p
    default = os.path.expanduser("~/.kube/config")
    if os.path.exists(default):
        return default
    raise InputError("no kubeconfig: pass --kubeconfig, set KUBECONFIG or create ~/.kube/config")


def snapshot_from_cluster(kubeconfig: str | None, context: str | None, since_seconds: int = DEFAULT_SINCE_SECONDS,
                          timeout: float = 30.0, in_cluster: bool = False) -> GatheredSnapshot:
    from .kube_collect import Options, collect
    folder = tempfile.mkdtemp(prefix="kueue-doctor-live-")
    atexit.register(shutil.rmtree, folder, True)
    try:
        if in_cluster:
            raise InputError("--in-cluster is not supported yet")
        collect(resolve_kubeconfig(kubeconfig), context, Path(folder), Options(since_seconds=since_seconds),
                timeout=timeout)
    except BaseException:
        shutil.rmtree(folder, True)
        raise
    snap = load_folder(folder)
    snap.origin = f"live:{snap.manifest.get(layout.SERVER, '')}"
    return snap
