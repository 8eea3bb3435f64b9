#!/usr/bin/env python3
"""Reduce Kueue's CRDs to the schemas kueue-doctor validates against.

Usage: python scripts/reduce_crds.py [CRD_DIR] [OUT_DIR]
  CRD_DIR defaults to ../shared/data/kueue-crds (relative to the repository root),
  OUT_DIR to src/kueue_doctor/data/crds.

The upstream Workload CRD is 1.4 MB, almost all of it the embedded Pod template. We ship
one JSON file per kind holding, for each served version, only ``openAPIV3Schema`` with:

* descriptions, printer columns and other documentation dropped;
* CEL rules (``x-kubernetes-validations``) and list/map semantics
  (``x-kubernetes-list-type``, ``-list-map-keys``, ``-map-type``) dropped: schema.py does
  not evaluate them (many are about updates, ``oldSelf``, which a static file has none of,
  and the conformance scenarios deliberately hold objects that break the others);
* ``spec.podSets[].template`` of a Workload cut down to what parse.py reads: the pod
  spec's containers/initContainers (name, resources), nodeSelector, tolerations,
  affinity.nodeAffinity and a few scalars (priority, nodeName, ...). Everything else in a
  pod template is accepted unchecked, as the API server would accept it after pruning.

The output is deterministic (sorted keys), so re-running the script on the same input
gives the same bytes; commit its output together with any change to this script.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM_COMMIT = "ff69552e79ad21652c36caa97038382e55625cf7"

DROP_KEYS = {
    "description", "x-kubernetes-validations", "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys", "x-kubernetes-map-type", "example", "title",
}

# Pod spec fields parse.parse_pod_spec reads; the rest of a pod template is not validated.
POD_SPEC_KEEP = {
    "containers", "initContainers", "overhead", "nodeSelector", "tolerations", "affinity",
    "nodeName", "priorityClassName", "priority", "terminationGracePeriodSeconds",
    "schedulingGates",
}
CONTAINER_KEEP = {"name", "resources", "restartPolicy"}
RESOURCES_KEEP = {"requests", "limits"}
AFFINITY_KEEP = {"nodeAffinity"}


def strip(node):
    """Drop documentation and the extensions schema.py does not evaluate, recursively."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k in DROP_KEYS:
                continue
            if k == "properties":
                out[k] = {name: strip(sub) for name, sub in v.items()}
            else:
                out[k] = strip(v)
        return out
    if isinstance(node, list):
        return [strip(x) for x in node]
    return node


def keep_properties(schema: dict, names: set[str]) -> None:
    props = schema.get("properties", {})
    schema["properties"] = {k: v for k, v in props.items() if k in names}
    if "required" in schema:
        schema["required"] = [r for r in schema["required"] if r in names]
        if not schema["required"]:
            del schema["required"]


def prune_pod_template(workload_schema: dict) -> None:
    pod_set = workload_schema["properties"]["spec"]["properties"]["podSets"]["items"]
    template = pod_set["properties"]["template"]
    keep_properties(template, {"spec"})
    pod = template["properties"]["spec"]
    keep_properties(pod, POD_SPEC_KEEP)
    for key in ("containers", "initContainers"):
        container = pod["properties"][key]["items"]
        keep_properties(container, CONTAINER_KEEP)
        keep_properties(container["properties"]["resources"], RESOURCES_KEEP)
    keep_properties(pod["properties"]["affinity"], AFFINITY_KEEP)


def reduce_crd(crd: dict) -> dict:
    spec = crd["spec"]
    out = {"group": spec["group"], "kind": spec["names"]["kind"], "scope": spec["scope"],
           "upstreamCommit": UPSTREAM_COMMIT, "versions": {}}
    for version in spec["versions"]:
        if not version.get("served", False):
            continue
        schema = strip(version["schema"]["openAPIV3Schema"])
        if out["kind"] == "Workload":
            prune_pod_template(schema)
        out["versions"][version["name"]] = schema
    return out


def main(argv: list[str]) -> int:
    crd_dir = Path(argv[1]) if len(argv) > 1 else ROOT.parent / "shared" / "data" / "kueue-crds"
    out_dir = Path(argv[2]) if len(argv) > 2 else ROOT / "src" / "kueue_doctor" / "data" / "crds"
    out_dir.mkdir(parents=True, exist_ok=True)
    files = sorted(crd_dir.glob("kueue.x-k8s.io_*.yaml"))
    if not files:
        print(f"no kueue.x-k8s.io_*.yaml CRDs in {crd_dir}", file=sys.stderr)
        return 1
    for path in files:
        crd = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        reduced = reduce_crd(crd)
        target = out_dir / f"{reduced['kind'].lower()}.json"
        text = json.dumps(reduced, sort_keys=True, separators=(",", ":")) + "\n"
        target.write_text(text)
        print(f"{path.name} ({path.stat().st_size} bytes) -> {target.relative_to(ROOT)} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
