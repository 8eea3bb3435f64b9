"""Which cluster to read, resolved as kubectl resolves it (docs/collect.md, "Which cluster").

1. ``--in-cluster``: the pod's service account (token and CA under ``SERVICE_ACCOUNT_DIR``, the
   API server from ``$KUBERNETES_SERVICE_HOST``/``$KUBERNETES_SERVICE_PORT``).
2. ``--kubeconfig F``: that one file, nothing else.
3. ``$KUBECONFIG``, when set and not empty: its files (``:``-separated; missing ones are skipped),
   merged as kubectl merges them: the first file to name a cluster, user or context wins, and
   ``current-context`` comes from the first file that sets one.
4. Else ``~/.kube/config``.
5. With no kubeconfig found, and ``$KUBERNETES_SERVICE_HOST`` set: the pod's service account.

``--context NAME`` picks a context of the merged kubeconfig instead of its current-context. The
files are read and merged by the official client's own code (``KubeConfigMerger``,
``KubeConfigLoader``, ``InClusterConfigLoader``); only the choice of files and the one rule where
the client differs from kubectl (it takes current-context from the *last* file that has the key,
even an empty one) are done here. Credentials stay with the client: exec plugins, token files,
client certificates and relative paths (from the file that named them) all work as in kubectl.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError

# Where a pod's service account is mounted. A module constant so tests can point it at a fake
# one; users have no reason to change it (kubectl and client-go do not let them either).
SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
DEFAULT_KUBECONFIG = "~/.kube/config"
NO_CLUSTER = ("no cluster to read: give a snapshot FOLDER, or --kubeconfig/--context "
              "(no kubeconfig at $KUBECONFIG or ~/.kube/config, not in a pod)")
_NAMED_LISTS = ("clusters", "contexts", "users")


@dataclass(frozen=True)
class Target:
    """One cluster to talk to: the client ``Configuration`` for it and where it came from."""
    configuration: Any = field(repr=False)   # kubernetes.client.Configuration
    namespace: str                           # kubectl's default namespace there
    context: str | None                      # None for the pod's service account
    files: tuple[str, ...] = ()              # the kubeconfig files read, in merge order


def kubeconfig_files(kubeconfig: str | None) -> list[str]:
    """The kubeconfig files kubectl would read, in merge order (existing ones only, except a
    --kubeconfig that is missing, which is kept so the error can name it)."""
    if kubeconfig:
        return [kubeconfig]
    env = os.environ.get("KUBECONFIG", "")
    if env:
        files: list[str] = []
        for p in env.split(os.pathsep):
            p = os.path.expanduser(p)
            if p and p not in files and os.path.isfile(p):
                files.append(p)
        return files
    default = os.path.expanduser(DEFAULT_KUBECONFIG)
    return [default] if os.path.isfile(default) else []


def resolve(kubeconfig: str | None, context: str | None, in_cluster: bool = False) -> Target:
    """The cluster kubectl would talk to with these flags and this environment; bad input is one
    InputError line naming the file."""
    if in_cluster:
        if kubeconfig or context:
            raise InputError("--in-cluster reads the pod's own service account: "
                             "give it without --kubeconfig/--context")
        return _in_cluster()
    files = kubeconfig_files(kubeconfig)
    if kubeconfig and not os.path.isfile(kubeconfig):
        raise InputError("no such kubeconfig file", file=kubeconfig)
    docs = [(f, doc) for f in files if (doc := _read(f)) is not None]  # empty files count as absent, as in kubectl
    if not docs:
        if kubeconfig:
            raise InputError("empty kubeconfig", file=kubeconfig)
        if context:
            raise InputError(f"context {context!r}: no kubeconfig at $KUBECONFIG or ~/.kube/config")
        if os.environ.get("KUBERNETES_SERVICE_HOST"):  # client-go's rule: no kubeconfig, in a pod
            return _in_cluster()
        raise InputError(NO_CLUSTER)
    return _from_kubeconfig(docs, context)


def context_namespace(kubeconfig: str | None, context: str | None, in_cluster: bool = False) -> str:
    """kubectl's default namespace: the context's ``namespace`` (in a pod: ``$POD_NAMESPACE``, else
    the service account's), "default" when none is set."""
    return resolve(kubeconfig, context, in_cluster).namespace


def _configuration() -> Any:
    import urllib3
    from kubernetes.client import Configuration
    cfg = Configuration()
    # Bounded time per request: a read timeout is not retried (it would multiply the wait), only
    # connection setup is, once, so a flaky connect does not lose a whole resource. Set before the
    # client exists: its connection pool takes the setting when it is built.
    cfg.retries = urllib3.util.Retry(total=1, connect=1, read=0, status=0, redirect=0, other=0)
    return cfg


def _clean(text: object, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _read(path: str) -> dict | None:
    """One kubeconfig file, checked enough that the merge cannot fail on it; None when empty."""
    import yaml
    try:
        with open(path, encoding="utf-8") as fh:
            doc = yaml.safe_load(fh)
    except OSError as e:
        raise InputError(f"cannot read kubeconfig: {e.strerror}", file=path) from None
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise InputError(f"not a usable kubeconfig: {_clean(e)}", file=path) from None
    if doc is None:
        return None
    if not isinstance(doc, dict):
        raise InputError(f"not a usable kubeconfig: a {type(doc).__name__}, not a mapping", file=path)
    for key in _NAMED_LISTS:
        items = doc.get(key)
        if items is None:
            continue
        if not isinstance(items, list):
            raise InputError("not a usable kubeconfig: not a list", file=path, field=key)
        for i, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                raise InputError("not a usable kubeconfig: an entry without a name", file=path, field=f"{key}[{i}]")
    cc = doc.get("current-context")
    if cc is not None and not isinstance(cc, str):
        raise InputError("not a usable kubeconfig: not a string", file=path, field="current-context")
    return doc


def _from_kubeconfig(docs: list[tuple[str, dict]], context: str | None) -> Target:
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.kube_config import KubeConfigLoader, KubeConfigMerger

    files = tuple(f for f, _ in docs)
    where = os.pathsep.join(files)
    # The client's merger, fed one file at a time so a failure names its file. It remembers each
    # entry's file, so relative certificate and token paths resolve against the right folder.
    merger: Any = None
    for path, _ in docs:
        try:
            if merger is None:
                merger = KubeConfigMerger(path)
            else:
                merger.paths.append(path)
                merger.load_config(path)
        except (ConfigException, KeyError, TypeError, AttributeError) as e:
            raise InputError(f"not a usable kubeconfig: {_clean(e)}", file=path) from None
    merged = merger.config
    # kubectl: current-context from the first file that sets a non-empty one. (The client's merger
    # lets each later file that has the key overwrite it, even with "".)
    current = next((doc["current-context"] for _, doc in docs if doc.get("current-context")), "")
    merged.value["current-context"] = current
    names = [str(c["name"]) for c in merged.value.get("contexts") or []]
    listed = ", ".join(names) or "none"
    name = context or current
    if context and context not in names:
        raise InputError(f"unknown context {context!r} (contexts: {listed})", file=where)
    if not name:
        raise InputError(f"no current-context: pass --context (contexts: {listed})", file=where)
    if name not in names:
        raise InputError(f"current-context {name!r} is not a context (contexts: {listed})", file=where)
    cfg = _configuration()
    try:
        loader = KubeConfigLoader(config_dict=merged, active_context=name, config_base_path=None)
        loader.load_and_set(cfg)
    except ConfigException as e:
        raise InputError(f"context {name!r}: {_clean(e)}", file=where) from None
    ctx = loader.current_context.get("context") or {}
    namespace = ctx.get("namespace") if isinstance(ctx, dict) else None
    return Target(cfg, namespace or "default", name, files)


def _in_cluster() -> Target:
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.incluster_config import InClusterConfigLoader

    token = os.path.join(SERVICE_ACCOUNT_DIR, "token")
    cfg = _configuration()
    try:
        InClusterConfigLoader(token_filename=token, cert_filename=os.path.join(SERVICE_ACCOUNT_DIR, "ca.crt"),
                              environ=os.environ).load_and_set(cfg)
    except ConfigException as e:
        raise InputError(f"cannot read the cluster from inside a pod: {_clean(e)}", file=SERVICE_ACCOUNT_DIR) from None
    # client-go's in-cluster namespace: $POD_NAMESPACE, else the service account's, else "default"
    namespace = os.environ.get("POD_NAMESPACE", "")
    if not namespace:
        try:
            with open(os.path.join(SERVICE_ACCOUNT_DIR, "namespace"), encoding="utf-8") as fh:
                namespace = fh.read().strip()
        except OSError:
            namespace = ""
    return Target(cfg, namespace or "default", None)
