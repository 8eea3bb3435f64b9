"""Gather a snapshot folder from a live cluster, read-only (GET only), as `kubectl get -o json` and
`kubectl logs` would have written it, plus manifest.json saying what was and was not collected.

A resource whose list fails part-way is left out whole rather than written partially: the doctor
reads a file as the complete set of its objects, so a partial Pod or Workload list would turn
into invented free capacity or invented pending work. The manifest records the gap instead.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import InputError
from ..kueue import constants as kc
from ..kueue import layout
from .kube_client import FetchError, Kube
from .kubeconfig import Target

KUEUE_GROUP = kc.GROUP
KUEUE_VERSIONS_PREFERRED = ("v1beta2", "v1beta1")
# plural -> kind, in the order kueue.yaml lists them
KUEUE_KINDS = {
    "clusterqueues": "ClusterQueue",
    "cohorts": "Cohort",
    "localqueues": "LocalQueue",
    "resourceflavors": "ResourceFlavor",
    "workloadpriorityclasses": "WorkloadPriorityClass",
    "workloads": "Workload",
}
CONTROLLER_NAMESPACE = "kueue-system"
CONTROLLER_NAME = "kueue-controller-manager"
CONTROLLER_LABEL = "app.kubernetes.io/name=kueue"
CONFIGMAP_NAME = "kueue-manager-config"
METRICS_SERVICE = "kueue-controller-manager-metrics-service"
# Labels Kueue puts on the pods it manages (pod integration, and pods of admitted workloads).
# Label selectors cannot OR, so each is one list; annotations cannot be selected server-side.
KUEUE_POD_LABELS = (kc.PODSET_LABEL, kc.MANAGED_LABEL, kc.QUEUE_NAME_LABEL)



def object_file(name: str) -> str:
    """The JSON file collect writes for one of layout's object files (``kueue.yaml`` ->
    ``kueue.json``): JSON decodes several times faster than YAML, with a fraction of the memory,
    and the loader reads both (the layout's YAML names are what the simulator writes)."""
    return name[:-len(".yaml")] + ".json" if name.endswith(".yaml") else name


@dataclass
class Options:
    since_seconds: int = 6 * 3600
    kueue_pods_only: bool = False
    namespace_selector: str = ""  # label selector; "" = every namespace


class Collector:
    def __init__(self, kube: Kube, out: Path, opts: Options):
        self.kube = kube
        self.out = out
        self.opts = opts
        self.collected: list[dict] = []
        self.failed: list[dict] = []
        self.files: dict[str, list[dict]] = {}
        self.kueue_api: str | None = None
        self.kueue_version: str | None = None
        self.namespaces: list[str] | None = None  # set when --namespace-label-filter narrows them

    # -- bookkeeping ---------------------------------------------------------------------------

    def _ok(self, kind: str, api_version: str, items: list[dict], file: str, **extra: Any) -> None:
        for it in items:
            it.setdefault("apiVersion", api_version)
            it.setdefault("kind", kind)
        file = object_file(file)
        self.files.setdefault(file, []).extend(items)
        self.collected.append({layout.E_KIND: kind, layout.E_API_VERSION: api_version, layout.E_COUNT: len(items),
                               layout.E_FILE: file, **extra})

    def _fail(self, what: str, e: FetchError, api_version: str = "", optional: bool = False) -> None:
        entry: dict[str, Any] = {layout.E_KIND: what, layout.E_REASON: e.reason, layout.E_MESSAGE: e.message}
        if api_version:
            entry[layout.E_API_VERSION] = api_version
        if e.status:
            entry[layout.E_STATUS] = e.status
        if optional:
            entry[layout.E_OPTIONAL] = True
        self.failed.append(entry)

    # -- the gathering -------------------------------------------------------------------------

    def run(self) -> dict:
        self._namespaces()
        self._cluster_list("Node", "v1", "/api/v1/nodes", layout.NODES)
        self._pods()
        self._namespaced_list("Event", "v1", "/api/v1", "events", layout.EVENTS)
        self._namespaced_list("LimitRange", "v1", "/api/v1", "limitranges", layout.LIMIT_RANGES)
        self._namespaced_list("Job", "batch/v1", "/apis/batch/v1", "jobs", layout.JOBS)
        self._kueue()
        dep = self._controller()
        if dep is not None:
            self._config_map(dep)
            self._logs(dep)
            self._metrics(dep)
        self._write()
        manifest = {
            layout.COLLECTED_AT: layout.format_time(self.kube.server_now()),
            layout.COLLECTOR: f"kueue-doctor {__version__}",
            layout.SERVER: self.kube.host,
            layout.KUEUE_API_VERSION: self.kueue_api,
            layout.KUEUE_VERSION: self.kueue_version,
            layout.CLOCK_SKEW_SECONDS: self.kube.clock_skew(),
            layout.OPTIONS: {layout.OPT_SINCE_SECONDS: self.opts.since_seconds,
                             layout.OPT_KUEUE_PODS_ONLY: self.opts.kueue_pods_only,
                             layout.OPT_NAMESPACE_LABEL_FILTER: self.opts.namespace_selector or None},
            layout.COLLECTED: self.collected,
            layout.FAILED: self.failed,
            layout.REQUESTS: self.kube.requests,
        }
        (self.out / layout.MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        return manifest

    def check_reachable(self) -> None:
        """Nothing can be gathered from a server that does not answer or refuses who we are:
        that is bad input (wrong kubeconfig), not a partial snapshot."""
        try:
            self.kube.get_json("/api")
        except FetchError as e:
            if e.reason in ("unreachable", "timeout", "unauthorized", "truncated"):
                raise InputError(f"cannot use the API server at {self.kube.host}: {e.message}") from None
            self._fail("discovery /api", e)

    def _cluster_list(self, kind: str, api_version: str, path: str, file: str,
                      query: list | None = None) -> list[dict] | None:
        try:
            items, _ = self.kube.list_all(path, query)
        except FetchError as e:
            self._fail(kind, e, api_version)
            return None
        self._ok(kind, api_version, items, file)
        return items

    def _namespaces(self) -> None:
        sel = self.opts.namespace_selector
        items = self._cluster_list("Namespace", "v1", "/api/v1/namespaces", layout.NAMESPACES,
                                   [("labelSelector", sel)] if sel else None)
        # Without the namespace list there is nothing to narrow by: the cluster-wide lists are
        # a superset, so they stay (the failure is in the manifest).
        if sel and items is not None:
            self.namespaces = sorted(n["metadata"]["name"] for n in items)

    def _gather(self, prefix: str, plural: str, query: list | None = None) -> list[dict]:
        """All objects of a namespaced resource: one cluster-wide list, or one per selected namespace."""
        if self.namespaces is None:
            return self.kube.list_all(f"{prefix}/{plural}", query)[0]
        items: list[dict] = []
        for ns in self.namespaces:
            items.extend(self.kube.list_all(f"{prefix}/namespaces/{ns}/{plural}", query)[0])
        return items

    def _namespaced_list(self, kind: str, api_version: str, prefix: str, plural: str, file: str) -> None:
        try:
            items = self._gather(prefix, plural)
        except FetchError as e:
            self._fail(kind, e, api_version)
            return
        self._ok(kind, api_version, items, file)

    def _pods(self) -> None:
        if not self.opts.kueue_pods_only:
            self._namespaced_list("Pod", "v1", "/api/v1", "pods", layout.PODS)
            return
        by_uid: dict[str, dict] = {}
        for label in KUEUE_POD_LABELS:
            try:
                got = self._gather("/api/v1", "pods", [("labelSelector", label)])
            except FetchError as e:
                e.message += f" (labelSelector {label})"
                self._fail("Pod", e, "v1")
                return
            for p in got:  # a pod can carry several of the labels
                by_uid[(p.get("metadata") or {}).get("uid") or str(id(p))] = p
        self._ok("Pod", "v1", list(by_uid.values()), layout.PODS, **{layout.E_LABEL_SELECTORS: list(KUEUE_POD_LABELS)})

    def _kueue(self) -> None:
        try:
            group = self.kube.get_json(f"/apis/{KUEUE_GROUP}")
        except FetchError as e:
            if e.reason == "not-found":
                e.message = f"the {KUEUE_GROUP} API group is not served: is Kueue installed?"
            self._fail("Kueue API group", e, KUEUE_GROUP)
            return
        served = [v["version"] for v in group.get("versions") or []
                  if isinstance(v, dict) and isinstance(v.get("version"), str)]
        version = next((v for v in KUEUE_VERSIONS_PREFERRED if v in served), None)
        if version is None:
            self._fail("Kueue API group", FetchError("not-found", f"none of {', '.join(KUEUE_VERSIONS_PREFERRED)} "
                                                     f"is served (served: {', '.join(served) or 'none'})"), KUEUE_GROUP)
            return
        gv = f"{KUEUE_GROUP}/{version}"
        self.kueue_api = gv
        try:
            res = self.kube.get_json(f"/apis/{gv}")
            plurals = {r.get("name") for r in res.get("resources") or [] if isinstance(r, dict)}
        except FetchError as e:
            self._fail(f"discovery {gv}", e, gv)
            plurals = set(KUEUE_KINDS)  # try the lists anyway; each failure is recorded on its own
        for plural, kind in KUEUE_KINDS.items():
            if plural not in plurals:
                # Cohorts were v1alpha1 before they moved to the served version.
                if plural == "cohorts" and "v1alpha1" in served:
                    self._cluster_list(kind, f"{KUEUE_GROUP}/v1alpha1", f"/apis/{KUEUE_GROUP}/v1alpha1/cohorts",
                                       layout.KUEUE_OBJECTS)
                else:
                    self._fail(kind, FetchError("not-found", f"{plural} is not served by {gv}"), gv)
                continue
            self._cluster_list(kind, gv, f"/apis/{gv}/{plural}", layout.KUEUE_OBJECTS)

    def _controller(self) -> dict | None:
        path = f"/apis/apps/v1/namespaces/{CONTROLLER_NAMESPACE}/deployments/{CONTROLLER_NAME}"
        first: FetchError | None = None
        try:
            dep = self.kube.get_json(path)
        except FetchError as e:
            first, dep = e, None
        if dep is None:
            # Installed under another name or namespace: find it by the label the manifests and chart set.
            try:
                items, _ = self.kube.list_all("/apis/apps/v1/deployments", [("labelSelector", CONTROLLER_LABEL)])
            except FetchError as e:
                self._fail("Deployment", first if first and first.reason != "not-found" else e, "apps/v1")
                return None
            items.sort(key=lambda d: ("controller" not in d.get("metadata", {}).get("name", ""),
                                      d.get("metadata", {}).get("name", "")))
            if not items:
                self._fail("Deployment", FetchError("not-found", f"no {CONTROLLER_NAMESPACE}/{CONTROLLER_NAME} and "
                                                    f"no Deployment labelled {CONTROLLER_LABEL}"), "apps/v1")
                return None
            dep = items[0]
        self._ok("Deployment", "apps/v1", [dep], layout.DEPLOYMENT)
        self.kueue_version = _kueue_version(dep)
        return dep

    def _config_map(self, dep: dict) -> None:
        ns = dep["metadata"].get("namespace", CONTROLLER_NAMESPACE)
        names = [v["configMap"]["name"] for v in _pod_spec(dep).get("volumes") or []
                 if isinstance(v, dict) and isinstance(v.get("configMap"), dict) and v["configMap"].get("name")]
        name = next((n for n in names if "manager-config" in n), CONFIGMAP_NAME)
        try:
            cm = self.kube.get_json(f"/api/v1/namespaces/{ns}/configmaps/{name}")
        except FetchError as e:
            self._fail("ConfigMap", e, "v1")
            return
        self._ok("ConfigMap", "v1", [cm], layout.DEPLOYMENT)

    def _controller_pods(self, dep: dict) -> list[dict]:
        ns = dep["metadata"].get("namespace", CONTROLLER_NAMESPACE)
        labels = ((dep.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
        selector = ",".join(f"{k}={v}" for k, v in sorted(labels.items())) or CONTROLLER_LABEL
        try:
            pods, _ = self.kube.list_all(f"/api/v1/namespaces/{ns}/pods", [("labelSelector", selector)])
        except FetchError as e:
            self._fail("controller Pods", e, "v1")
            return []
        if not pods:
            self._fail("controller Pods", FetchError("not-found", f"no pod in {ns} matches {selector}"), "v1")
        return sorted(pods, key=lambda p: p["metadata"]["name"])

    def _logs(self, dep: dict) -> None:
        pods = self._controller_pods(dep)
        for pod in pods:
            name, ns = pod["metadata"]["name"], pod["metadata"]["namespace"]
            containers = [c.get("name") for c in (pod.get("spec") or {}).get("containers") or []]
            container = "manager" if "manager" in containers else (containers[0] if containers else "")
            # One replica is the usual install; HA installs get one file per replica (only the leader schedules).
            fname = layout.CONTROLLER_LOG if len(pods) == 1 else layout.replica_log(name)
            query = [("sinceSeconds", self.opts.since_seconds)] + ([("container", container)] if container else [])
            path = self.out / fname
            with open(path, "wb") as fh:
                try:
                    n = self.kube.stream_to(f"/api/v1/namespaces/{ns}/pods/{name}/log", query, fh)
                except FetchError as e:
                    n = fh.tell()
                    e.message += "; the part received is kept" if n else ""
                    self._fail("controller log", e, "v1")
                    self.failed[-1][layout.E_POD] = f"{ns}/{name}"
                    if n:
                        continue
                    fh.close()
                    path.unlink()
                    continue
            self.collected.append({layout.E_KIND: "controller log", layout.E_API_VERSION: "v1",
                                   layout.E_POD: f"{ns}/{name}", layout.E_CONTAINER: container, layout.E_BYTES: n,
                                   layout.E_FILE: fname, layout.E_SINCE_SECONDS: self.opts.since_seconds})

    def _metrics(self, dep: dict) -> None:
        """Kueue's /metrics through the API server's service proxy. Often refused (the metrics
        endpoint wants its own authn) and never needed: a failure is recorded as optional."""
        ns = dep["metadata"].get("namespace", CONTROLLER_NAMESPACE)
        try:
            svc = self.kube.get_json(f"/api/v1/namespaces/{ns}/services/{METRICS_SERVICE}")
            ports = (svc.get("spec") or {}).get("ports") or []
            port = next((p for p in ports if p.get("name") == "https"), ports[0] if ports else {"port": 8443})
            scheme = "https" if port.get("name") == "https" or port.get("port") == 8443 else "http"
            target = f"{scheme}:{METRICS_SERVICE}:{port.get('port')}"
            with open(self.out / layout.METRICS, "wb") as fh:
                n = self.kube.stream_to(f"/api/v1/namespaces/{ns}/services/{target}/proxy/metrics", [], fh)
        except FetchError as e:
            (self.out / layout.METRICS).unlink(missing_ok=True)
            self._fail("metrics", e, optional=True)
            return
        self.collected.append({layout.E_KIND: "metrics", layout.E_SERVICE: f"{ns}/{target}", layout.E_BYTES: n,
                               layout.E_FILE: layout.METRICS})

    def _write(self) -> None:
        for file, items in self.files.items():
            doc = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
            with open(self.out / file, "w", encoding="utf-8") as fh:
                json.dump(doc, fh, indent=4, sort_keys=True, ensure_ascii=False)
                fh.write("\n")


def _pod_spec(dep: dict) -> dict:
    return ((dep.get("spec") or {}).get("template") or {}).get("spec") or {}


def _kueue_version(dep: dict) -> str | None:
    for c in _pod_spec(dep).get("containers") or []:
        repo, _, tag = str(c.get("image", "")).rpartition(":")
        if "kueue" in repo and tag and "/" not in tag:
            return tag.split("@")[0]
    return ((dep.get("metadata") or {}).get("labels") or {}).get("app.kubernetes.io/version")


_JSON_FILES = frozenset(object_file(f) for f in layout.COLLECTED_FILES)


def prepare_out(out: Path, force: bool) -> None:
    """Never clobber a folder someone filled: a non-empty one needs --force, and even then only
    the files collect writes are replaced."""
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a folder", file=str(out))
    if out.is_dir() and any(out.iterdir()):
        if not force:
            raise InputError("folder is not empty (use --force to replace a previous collect)", file=str(out))
        for p in out.iterdir():
            # the YAML files of a collect before the JSON ones too: both would be read
            if p.is_file() and (p.name in layout.COLLECTED_FILES or p.name in _JSON_FILES
                                or layout.is_controller_log(p.name)):
                p.unlink()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create folder: {e.strerror}", file=str(out)) from None


def collect(target: Target, out: Path, opts: Options, timeout: float = 30.0, force: bool = False) -> dict:
    """Gather the cluster ``target`` names (``kubeconfig.resolve``: a bad kubeconfig has failed
    before anything is written) into ``out``."""
    from .kube_client import Kube, api_client
    kube = Kube(api_client(target), timeout=timeout)
    collector = Collector(kube, out, opts)
    collector.check_reachable()  # before touching --out: a wrong server must not cost a previous collect
    prepare_out(out, force)
    return collector.run()
