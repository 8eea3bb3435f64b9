"""PreemptionOverBorrowing and a flavor without preemption candidates, by release.

Upstream kubernetes-sigs/kueue#13607: isPreferred (pkg/scheduler/flavorassigner) compared the
borrowing level before the preemption mode, so a first flavor whose quota is used up (borrowing
limit 0, no candidate of lower priority) won over a second flavor that fits, only because a sibling's
unused quota made the first one sourceable one level up; the workload stayed pending every cycle.
PR #13616 ranks "no candidates" below every viable mode; it is in v0.18.5, v0.19.1 and v0.20.0.
The tree is the issue's: flavor-a Preempt at borrowing level 1 with no candidates, flavor-b Fit
at level 2 (the root's burst pool)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kueue_doctor.api import build
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine.assignment import Mode, Possibility
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.kueue.releases import release_for

T0 = datetime(2026, 7, 29, tzinfo=UTC)


def issue_13607(preference: str | None = "PreemptionOverBorrowing") -> ClusterState:
    s = ClusterState()
    for f in ("flavor-a", "flavor-b"):
        s.add(build.flavor(f))
    s.add(build.cohort("root", "", {"flavor-a": {"cpu": "0"}, "flavor-b": {"cpu": "200"}}))
    s.add(build.cohort("mid", "root"))
    target = build.cluster_queue("target", {"flavor-a": {"cpu": ("4", "0")}, "flavor-b": {"cpu": "0"}},
                                 cohort="mid", within="LowerPriority", borrow_within="Never",
                                 when_can_borrow="TryNextFlavor")
    target.flavor_fungibility.preference = preference
    s.add(target)
    s.add(build.cluster_queue("sibling", {"flavor-a": {"cpu": "4"}}, cohort="mid"))   # unused
    s.add(build.local_queue("ns", "lq", "target"))
    for i in range(4):   # flavor-a's nominal quota, used at the head's own priority
        s.add(build.workload("ns", f"run{i}", "lq", {"cpu": "1"}, created=T0, admitted_to="target",
                             flavors={"cpu": "flavor-a"}, admitted_at=T0))
    s.add(build.workload("ns", "head", "lq", {"cpu": "1"}, created=T0 + timedelta(minutes=1)))
    return s


def cycle(state: ClusterState, cfg: EngineConfig):
    res = AdmissionModel(state, cfg).cycle(T0 + timedelta(hours=1))
    (head,) = [e for e in res.entries + res.inadmissible if e.key.name == "head"]
    return head, [e.key.name for e in res.admitted]


@pytest.mark.parametrize(("version", "admitted"), [
    ("v0.17.3", False), ("v0.18.4", False), ("v0.18.5", True), ("v0.19.0", False), ("v0.19.1", True),
    ("v0.20.0", True)])
def test_the_fix_by_release(version, admitted):
    release = release_for(version)
    head, names = cycle(issue_13607(), EngineConfig(gates=dict(release.gates),
                                                    no_candidates_ranked_last=release.no_candidates_ranked_last))
    attempts = [(a.flavor, a.mode, a.borrow, a.possibility) for ps in head.assigned.pod_sets for a in ps.attempts]
    assert attempts == [("flavor-a", Mode.PREEMPT, 1, Possibility.NO_CANDIDATES), ("flavor-b", Mode.FIT, 2, None)]
    assert (names == ["head"]) is admitted
    if not admitted:
        assert head.inadmissible_msg == ("couldn't assign flavors to pod set main: insufficient unused quota for "
                                         "cpu in flavor flavor-a, 1 more needed")


@pytest.mark.parametrize("preference", [None, "BorrowingOverPreemption"])
def test_other_preferences_compare_the_mode_first_in_every_release(preference):
    for fixed in (True, False):
        _, names = cycle(issue_13607(preference), EngineConfig(no_candidates_ranked_last=fixed))
        assert names == ["head"]
