"""The messages Kueue writes when it preempts a workload, and reading them back.

A victim's Evicted and Preempted conditions, and its EvictedDueToPreempted and Preempted events,
carry "Preempted to accommodate a workload (UID: <uid>, JobUID: <job-uid>) due to <human
reason>; preemptor path: /<root cohort>/.../<cq>; preemptee path: /..." (kueue-semantics.md
§5.10, kueue-signals.md §E.1). The preemptor's own Workload gets a PreemptedWorkload event.
Releases with priority boosting append "; preemptor effective priority: ..." to the event; the
parser ignores whatever follows the paths, so it reads every form.

The preemptor path is the one place a snapshot says which ClusterQueue a preemption served once
the preemptor itself has moved on, which is why the doctor parses it.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from .constants import (
    IN_CLUSTER_QUEUE,
    IN_COHORT_FAIR_SHARING,
    IN_COHORT_RECLAIM_WHILE_BORROWING,
    IN_COHORT_RECLAMATION,
)

# Preempted condition reason -> the words the message uses for it.
HUMAN_REASONS: Final[Mapping[str, str]] = {
    IN_CLUSTER_QUEUE: "prioritization in the ClusterQueue",
    IN_COHORT_RECLAMATION: "reclamation within the cohort",
    IN_COHORT_FAIR_SHARING: "Fair Sharing within the cohort",
    IN_COHORT_RECLAIM_WHILE_BORROWING: "reclamation within the cohort while borrowing",
}
_REASONS: Final[Mapping[str, str]] = {text: reason for reason, text in HUMAN_REASONS.items()}

PREFIX: Final = "Preempted to accommodate a workload"

# UIDs hold neither "," nor ")", paths are DNS names joined by "/" (no ";", no spaces). JobUID and
# the paths are optional so that shorter forms (an older release, a hand-edited message) still
# give what they hold.
_MESSAGE = re.compile(
    re.escape(PREFIX) + r" \(UID: (?P<uid>[^,)]*)(?:, JobUID: (?P<job>[^)]*))?\) due to (?P<why>[^;]*)"
    r"(?:; preemptor path: (?P<pre>[^;\s]*); preemptee path: (?P<tee>[^;\s]*))?")


def cohort_path(names: Iterable[str]) -> str:
    """A ClusterQueue's path as the message prints it: ``names`` from the root cohort down to it."""
    return "/" + "/".join(names)


def path_names(path: str) -> list[str]:
    """``cohort_path`` read back: root cohort first, the ClusterQueue last; [] for an empty path."""
    stripped = path.strip("/")
    return stripped.split("/") if stripped else []


def preemption_message(preemptor_uid: str, preemptor_job_uid: str, reason: str, preemptor_path: str,
                       preemptee_path: str) -> str:
    """The victim's eviction message. ``reason`` is the Preempted condition's (InClusterQueue, ...);
    one Kueue does not know is printed as given rather than lost."""
    return (f"{PREFIX} (UID: {preemptor_uid}, JobUID: {preemptor_job_uid}) due to "
            f"{HUMAN_REASONS.get(reason, reason)}; preemptor path: {preemptor_path}; "
            f"preemptee path: {preemptee_path}")


@dataclass(frozen=True, slots=True)
class Preemption:
    """What an eviction message says about the preemption."""
    preemptor_uid: str
    preemptor_job_uid: str     # "" when the message has none
    reason: str                # the Preempted condition's reason; "" if the words are not Kueue's
    reason_text: str           # the words as written
    preemptor_path: str        # "" when the message has none
    preemptee_path: str

    @property
    def preemptor_cluster_queue(self) -> str:
        names = path_names(self.preemptor_path)
        return names[-1] if names else ""

    @property
    def preemptee_cluster_queue(self) -> str:
        names = path_names(self.preemptee_path)
        return names[-1] if names else ""


def parse_preemption_message(message: str) -> Preemption | None:
    """``preemption_message`` read back; None for any other message (other eviction reasons)."""
    m = _MESSAGE.match(message)
    if m is None:
        return None
    why = m["why"]
    return Preemption(m["uid"], m["job"] or "", _REASONS.get(why, ""), why, m["pre"] or "", m["tee"] or "")


def preemptor_queue(message: str | None) -> str:
    """The preempting ClusterQueue an eviction message names at the end of its preemptor path; ""
    if the message names none."""
    p = parse_preemption_message(message or "")
    return p.preemptor_cluster_queue if p is not None else ""


def preempted_workload_message(namespace: str, name: str, uid: str, cluster_queue: str) -> str:
    """The PreemptedWorkload event on the preemptor: which victim, in which ClusterQueue."""
    return f"Preempted workload {namespace}/{name} (UID: {uid}) in ClusterQueue {cluster_queue}"


def flavor_migration_message(evictor_uid: str) -> str:
    """The Evicted condition's message on a variant that a more favourable sibling displaced
    (reason FlavorMigration, ConcurrentAdmission): scheduler.go issueMigration."""
    return (f"Evicted to accommodate a workload (UID: {evictor_uid}) due to migration to more favorable "
            f"resource flavor")
