"""The gathered snapshot folder: its file names and manifest.json.

Written by ``collect`` (from a live cluster) and by ``simulate --snapshot-at``, read by the folder
source. The object files are told apart by content when read, so a folder gathered by hand with
``kubectl get -o yaml`` under other names still loads; the names matter to the writers (which
files a ``--force`` may replace) and to finding the controller's log and the metrics.
"""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

# -- object files: one `kubectl get -o yaml` List each -----------------------------------------
KUEUE_OBJECTS: Final = "kueue.yaml"       # ClusterQueues, Cohorts, LocalQueues, flavors, priority classes, Workloads
NODES: Final = "nodes.yaml"
PODS: Final = "pods.yaml"
EVENTS: Final = "events.yaml"
DEPLOYMENT: Final = "deployment.yaml"     # the controller's Deployment and its Configuration ConfigMap
NAMESPACES: Final = "namespaces.yaml"
LIMIT_RANGES: Final = "limitranges.yaml"
JOBS: Final = "jobs.yaml"

# -- the controller's log and metrics ------------------------------------------------------------
CONTROLLER_LOG_PREFIX: Final = "kueue-controller-manager"
CONTROLLER_LOG: Final = f"{CONTROLLER_LOG_PREFIX}.log"
LOG_SUFFIXES: Final = (".log", ".log.gz", ".jsonl")
METRICS: Final = "metrics.txt"
METRICS_FILES: Final = (METRICS, "metrics.prom")  # the second: what people save a scrape as

MANIFEST: Final = "manifest.json"

# What each writer puts in a folder, in the order it writes them (the manifest aside for the
# simulator, which writes it last, after the files it lists).
SIMULATED_FILES: Final = (KUEUE_OBJECTS, NODES, PODS, EVENTS, DEPLOYMENT, CONTROLLER_LOG)
COLLECTED_FILES: Final = (KUEUE_OBJECTS, NAMESPACES, LIMIT_RANGES, NODES, PODS, JOBS, EVENTS, DEPLOYMENT,
                          METRICS, MANIFEST)


def replica_log(pod: str) -> str:
    """An HA install's log file for one controller replica (only the leader schedules)."""
    return f"{CONTROLLER_LOG_PREFIX}-{pod}.log"


def is_controller_log(name: str) -> bool:
    """A log file ``collect`` writes (the single replica's or one per replica)."""
    return name.startswith(CONTROLLER_LOG_PREFIX) and name.endswith(".log")


# -- manifest.json -------------------------------------------------------------------------------
# Top-level keys. The doctor reads COLLECTED_AT (the snapshot's "now": a quiet cluster's log may
# end long before it) and FAILED (what is missing, so absence is not read as "nothing there").
COLLECTED_AT: Final = "collectedAt"
COLLECTOR: Final = "collector"
SOURCE: Final = "source"                  # the simulator's: which scenario made the folder
FILES: Final = "files"                    # the simulator's: the files it wrote
SERVER: Final = "server"
KUEUE_API_VERSION: Final = "kueueApiVersion"
KUEUE_VERSION: Final = "kueueVersion"
CLOCK_SKEW_SECONDS: Final = "clockSkewSeconds"
OPTIONS: Final = "options"
COLLECTED: Final = "collected"
FAILED: Final = "failed"
REQUESTS: Final = "requests"

# OPTIONS keys: how collect was asked to gather
OPT_SINCE_SECONDS: Final = "sinceSeconds"
OPT_KUEUE_PODS_ONLY: Final = "kueuePodsOnly"
OPT_NAMESPACE_LABEL_FILTER: Final = "namespaceLabelFilter"

# keys of one COLLECTED or FAILED entry
E_KIND: Final = "kind"                    # an object kind, or what else was read ("controller log", "metrics")
E_API_VERSION: Final = "apiVersion"
E_COUNT: Final = "count"
E_FILE: Final = "file"
E_REASON: Final = "reason"                # FAILED: a short cause (forbidden, not-found, timeout, ...)
E_MESSAGE: Final = "message"
E_STATUS: Final = "status"                # FAILED: the HTTP status, when there was one
E_OPTIONAL: Final = "optional"            # FAILED: nothing the doctor needs (the metrics)
E_POD: Final = "pod"
E_CONTAINER: Final = "container"
E_BYTES: Final = "bytes"
E_SINCE_SECONDS: Final = "sinceSeconds"
E_SERVICE: Final = "service"
E_LABEL_SELECTORS: Final = "labelSelectors"

# Whole seconds in UTC, like the object timestamps the snapshot time is compared with.
_TIME_FORMAT: Final = "%Y-%m-%dT%H:%M:%SZ"


def format_time(at: datetime) -> str:
    """COLLECTED_AT's form; ``at`` must be timezone-aware (a naive time would be read as local)."""
    if at.tzinfo is None:
        raise ValueError("a snapshot time must be timezone-aware")
    return at.astimezone(UTC).strftime(_TIME_FORMAT)


def parse_time(text: str) -> datetime:
    """COLLECTED_AT read back; also any ISO 8601 time a hand-written manifest holds (naive if it has no zone)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
