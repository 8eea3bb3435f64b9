"""The release model: gate defaults per release, which releases carry each bug, version parsing."""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.errors import InputError
from kueue_doctor.kueue.bugs import BUGS, affected, bug, release_notes
from kueue_doctor.kueue.features import GATES, Gate, Spec, Stage, defaults, effective
from kueue_doctor.kueue.releases import DrsMode, release_for
from kueue_doctor.kueue.version import LATEST, Version, parse_version

SRC = Path(__file__).resolve().parents[2] / "src" / "kueue_doctor"


def v(text: str) -> Version:
    return parse_version(text)


# -- feature gates --------------------------------------------------------------------------

# (gate, last release before the change, first release after it, default before, default after)
FLIPS = [
    ("FairSharingPreemptWithinNominal", "0.16.2", "0.16.3", False, True),       # backported to v0.16.3
    ("FairSharingPrioritizeNonBorrowing", "0.16.1", "0.16.2", False, True),     # backported to v0.16.2
    ("SchedulingEquivalenceHashing", "0.17.8", "0.18.0", False, True),
    ("UnadmittedWorkloadsObservability", "0.19.2", "0.20.0", False, True),      # off in every v0.19 tag
    ("QuotaCheckStrategy", "0.18.6", "0.19.0", False, True),
    ("ElasticJobsViaWorkloadSlices", "0.17.8", "0.18.0", False, True),
    ("TopologyAwareScheduling", "0.13.9", "0.14.0", False, True),
    ("RecomputeAssignmentUponPreemptionTargetsOverlap", "0.19.2", "0.20.0", False, True),
    ("FlavorFungibilityPreserveScanProgress", "0.18.4", "0.18.5", False, True),  # backported to v0.18.5
]


@pytest.mark.parametrize(("gate", "before", "after", "was", "now"), FLIPS, ids=[f[0] for f in FLIPS])
def test_gate_default_flips_at_its_release(gate, before, after, was, now):
    assert defaults(v(before))[gate] is was
    assert defaults(v(after))[gate] is now
    assert release_for(before).gates[gate] is was
    assert release_for(after).gates[gate] is now


# What each tag shipped, read from that tag's upstream pkg/features/kube_features.go
# (defaultVersionedFeatureGates; a tag runs the newest entry of its own file): (tag, gate, default),
# None where the tag has no such gate. First every tag, v0.13.0 .. v0.19.2, where main's table
# (read at the tag's minor) says otherwise (main's answer in the comments), then some where they agree.
SHIPPED = [
    # main: absent (its entries start at 0.15); the gate, on, was backported
    ("v0.13.9", "ReclaimablePods", True), ("v0.13.10", "ReclaimablePods", True),
    ("v0.14.4", "ReclaimablePods", True), ("v0.14.5", "ReclaimablePods", True),
    ("v0.14.6", "ReclaimablePods", True), ("v0.14.7", "ReclaimablePods", True),
    ("v0.14.8", "ReclaimablePods", True),
    # main: absent before 0.17
    ("v0.15.5", "FairSharingPrioritizeNonBorrowing", True), ("v0.15.6", "FairSharingPrioritizeNonBorrowing", True),
    ("v0.15.7", "FairSharingPrioritizeNonBorrowing", True), ("v0.15.8", "FairSharingPrioritizeNonBorrowing", True),
    ("v0.16.2", "FairSharingPrioritizeNonBorrowing", True), ("v0.16.3", "FairSharingPrioritizeNonBorrowing", True),
    ("v0.16.4", "FairSharingPrioritizeNonBorrowing", True), ("v0.16.5", "FairSharingPrioritizeNonBorrowing", True),
    ("v0.16.6", "FairSharingPrioritizeNonBorrowing", True), ("v0.16.7", "FairSharingPrioritizeNonBorrowing", True),
    ("v0.16.8", "FairSharingPrioritizeNonBorrowing", True), ("v0.16.9", "FairSharingPrioritizeNonBorrowing", True),
    ("v0.15.6", "FairSharingPreemptWithinNominal", True), ("v0.15.7", "FairSharingPreemptWithinNominal", True),
    ("v0.15.8", "FairSharingPreemptWithinNominal", True), ("v0.16.3", "FairSharingPreemptWithinNominal", True),
    ("v0.16.4", "FairSharingPreemptWithinNominal", True), ("v0.16.5", "FairSharingPreemptWithinNominal", True),
    ("v0.16.6", "FairSharingPreemptWithinNominal", True), ("v0.16.7", "FairSharingPreemptWithinNominal", True),
    ("v0.16.8", "FairSharingPreemptWithinNominal", True), ("v0.16.9", "FairSharingPreemptWithinNominal", True),
    # main: absent before 0.17; on for one patch of each line, then off
    ("v0.15.6", "SchedulingEquivalenceHashing", True), ("v0.15.7", "SchedulingEquivalenceHashing", False),
    ("v0.15.8", "SchedulingEquivalenceHashing", False), ("v0.16.3", "SchedulingEquivalenceHashing", True),
    ("v0.16.4", "SchedulingEquivalenceHashing", False), ("v0.16.5", "SchedulingEquivalenceHashing", False),
    ("v0.16.6", "SchedulingEquivalenceHashing", False), ("v0.16.7", "SchedulingEquivalenceHashing", False),
    ("v0.16.8", "SchedulingEquivalenceHashing", False), ("v0.16.9", "SchedulingEquivalenceHashing", False),
    # main: absent before 0.19 / on from 0.19 (#13063 switched its 0.19 entry on; never picked to v0.19)
    ("v0.18.5", "UnadmittedWorkloadsObservability", False), ("v0.18.6", "UnadmittedWorkloadsObservability", False),
    ("v0.19.0", "UnadmittedWorkloadsObservability", False), ("v0.19.1", "UnadmittedWorkloadsObservability", False),
    ("v0.19.2", "UnadmittedWorkloadsObservability", False),
    # main: absent before 0.20
    ("v0.18.5", "FlavorFungibilityPreserveScanProgress", True),
    ("v0.18.6", "FlavorFungibilityPreserveScanProgress", True),
    ("v0.19.1", "FlavorFungibilityPreserveScanProgress", True),
    ("v0.19.2", "FlavorFungibilityPreserveScanProgress", True),
    ("v0.18.5", "RecomputeAssignmentUponPreemptionTargetsOverlap", False),
    ("v0.18.6", "RecomputeAssignmentUponPreemptionTargetsOverlap", False),
    ("v0.19.1", "RecomputeAssignmentUponPreemptionTargetsOverlap", False),
    ("v0.19.2", "RecomputeAssignmentUponPreemptionTargetsOverlap", False),
    ("v0.18.6", "PrioritizePreemptorWorkloads", False), ("v0.19.2", "PrioritizePreemptorWorkloads", False),
    # main's table and the tag agree
    ("v0.13.8", "ReclaimablePods", None), ("v0.14.3", "ReclaimablePods", None),
    ("v0.15.4", "FairSharingPrioritizeNonBorrowing", None), ("v0.16.1", "FairSharingPrioritizeNonBorrowing", None),
    ("v0.16.2", "FairSharingPreemptWithinNominal", None), ("v0.17.0", "SchedulingEquivalenceHashing", False),
    ("v0.18.0", "SchedulingEquivalenceHashing", True), ("v0.18.4", "UnadmittedWorkloadsObservability", None),
    ("v0.19.0", "FlavorFungibilityPreserveScanProgress", None),
    ("v0.19.0", "RecomputeAssignmentUponPreemptionTargetsOverlap", None),
    ("v0.19.1", "PrioritizePreemptorWorkloads", None), ("v0.19.2", "QuotaCheckStrategy", True),
    ("v0.14.0", "TopologyAwareScheduling", True), ("v0.18.6", "ElasticJobsViaWorkloadSlices", True),
]


@pytest.mark.parametrize(("tag", "gate", "shipped"), SHIPPED, ids=[f"{t}-{g}" for t, g, _ in SHIPPED])
def test_each_tag_runs_the_defaults_it_shipped(tag, gate, shipped):
    g = GATES[gate]
    spec = g.spec(v(tag))
    assert (None if spec is None else spec.default) is shipped
    runs = g.before if shipped is None else shipped
    assert defaults(v(tag))[gate] is runs
    assert release_for(tag).gates[gate] is runs


def test_a_backport_does_not_reach_the_next_lines_first_tags():
    g = GATES["FlavorFungibilityPreserveScanProgress"]
    assert g.introduced == (0, 18, 5)
    assert [g.default(v(t)) for t in ("0.18.4", "0.18.5", "0.18.9", "0.19.0", "0.19.1", "0.20.0")] == \
        [False, True, True, False, True, True]
    # an override on a release between the backport and the next line's pick-up is dropped
    assert effective(v("0.19.0"), {g.name: True})[g.name] is False


def test_gate_specs_must_be_ordered_by_release():
    with pytest.raises(ValueError, match="ordered by release"):
        Gate("X", (Spec(Version(0, 19), True, Stage.BETA), Spec(Version(0, 18, 5), True, Stage.BETA)))
    with pytest.raises(ValueError, match="the first one present"):
        Gate("X", (Spec(Version(0, 19), False, None),))


def test_a_gate_that_exists_but_is_off_is_told_apart_from_a_missing_one():
    heq = GATES["SchedulingEquivalenceHashing"]
    assert heq.spec(v("0.16.2")) is None
    off = heq.spec(v("0.17.0"))
    assert off is not None and off.default is False and off.stage == "Beta"


def test_reclaimable_pods_was_on_before_it_was_gated():
    # v0.15 put a long-standing behaviour behind a gate: older releases honour reclaimablePods
    assert GATES["ReclaimablePods"].spec(v("0.14.0")) is None
    assert defaults(v("0.14.0"))["ReclaimablePods"] is True


def test_fast_quota_release_is_alpha_and_off_in_every_release():
    for tag in ("0.16.2", "0.17.0", "0.19.2", "0.20.0"):
        assert defaults(v(tag))["FastQuotaReleaseInPodIntegration"] is False
    assert GATES["FastQuotaReleaseInPodIntegration"].introduced == (0, 17, 0)


# What upstream's table gives at the reference commit (kueue-semantics.md §0): what the engine
# (and so the conformance cases) runs with when no release is named.
HEAD_DEFAULTS = {
    "FlavorFungibility": True, "PrioritySortingWithinCohort": True, "PartialAdmission": True,
    "FairSharingPreemptWithinNominal": True, "FairSharingPrioritizeNonBorrowing": True,
    "RecomputeAssignmentUponPreemptionTargetsOverlap": True, "FlavorFungibilityPreserveScanProgress": True,
    "SchedulingEquivalenceHashing": True, "ReclaimablePods": True, "UnadmittedWorkloadsObservability": True,
    "QuotaCheckStrategy": True, "ElasticJobsViaWorkloadSlices": True, "TopologyAwareScheduling": True,
    "PrioritizePreemptorWorkloads": False, "PriorityBoost": False, "FastQuotaReleaseInPodIntegration": False,
    "ConcurrentAdmission": False, "MultiKueueOrchestratedPreemption": False,
}


def test_engine_without_a_release_runs_the_reference_commits_defaults():
    cfg = EngineConfig()
    assert {g: cfg.gate(g) for g in HEAD_DEFAULTS} == HEAD_DEFAULTS
    assert release_for(None).version == LATEST
    assert {g: release_for(None).gates[g] for g in HEAD_DEFAULTS} == HEAD_DEFAULTS


def test_every_gate_the_code_asks_for_is_in_the_table():
    asked = set()
    for path in SRC.rglob("*.py"):
        asked |= set(re.findall(r'\bgate\("([A-Za-z]+)"\)', path.read_text()))
    assert len(asked) >= 10     # the scan found the engine's gate checks
    assert asked - set(GATES) == set()


def test_an_override_wins_over_the_default():
    r = release_for("0.18.0", {"FairSharingPreemptWithinNominal": False})
    assert r.gates["FairSharingPreemptWithinNominal"] is False
    assert release_for("0.17.0", {"FastQuotaReleaseInPodIntegration": True}).fast_pod_release is True


def test_an_override_of_a_gate_the_release_lacks_is_dropped():
    assert release_for("0.16.2", {"FastQuotaReleaseInPodIntegration": True}).fast_pod_release is False
    assert effective(v("0.16.2"), {"SchedulingEquivalenceHashing": True})["SchedulingEquivalenceHashing"] is False
    # a gate the table does not list (not modelled) is passed through as set
    assert effective(v("0.13.2"), {"LocalQueueMetrics": True})["LocalQueueMetrics"] is True


# -- releases and the bugs they carry -------------------------------------------------------

CARRIES = {
    "stuck-preemption-target": {
        "0.12.9": True, "0.12.10": False, "0.13.2": True, "0.13.4": True, "0.13.5": False, "0.14.0": False,
    },
    "drs-rounding": {
        "0.12.7": True, "0.12.8": True, "0.12.10": True, "0.13.2": True, "0.13.3": True, "0.13.4": True,
        "0.13.5": False, "0.14.0": False, "0.19.2": False,
    },
    "slow-preemption-release": {"0.13.2": True, "0.16.2": True, "0.17.0": True, "0.20.0": True},
    # PR #13616 (#13607); before v0.15 there is no flavorFungibility.preference to set
    "no-candidates-flavor-preferred": {"0.14.3": False, "0.15.0": True, "0.18.4": True, "0.18.5": False,
                                       "0.19.0": True, "0.19.1": False, "0.20.0": False},
}


@pytest.mark.parametrize(("cause", "tag", "carried"),
                         [(c, t, x) for c, tags in CARRIES.items() for t, x in tags.items()])
def test_which_releases_carry_each_bug(cause, tag, carried):
    assert affected(release_for(tag), cause) is carried


def test_the_fast_release_gate_fixes_bug_1_from_v0_17():
    gate = {"FastQuotaReleaseInPodIntegration": True}
    assert affected(release_for("0.17.0", gate), "slow-preemption-release") is False
    assert affected(release_for("0.16.9", gate), "slow-preemption-release") is True


@pytest.mark.parametrize(("tag", "mode"), [
    ("0.12.7", DrsMode.INTEGER_FLOOR), ("0.12.8", DrsMode.INTEGER_MAX1),
    ("0.12.10", DrsMode.INTEGER_MAX1),   # #6925 was never picked to release-0.12
    ("0.13.2", DrsMode.INTEGER_FLOOR), ("0.13.3", DrsMode.INTEGER_MAX1), ("0.13.4", DrsMode.INTEGER_MAX1),
    ("0.13.5", DrsMode.EXACT), ("0.14.0", DrsMode.EXACT),
])
def test_drs_arithmetic_by_release(tag, mode):
    assert release_for(tag).drs_mode is mode


def test_drs_modes_keep_the_strings_json_output_carries():
    assert [m.value for m in DrsMode] == ["exact", "integer-max1", "integer-floor"]


@pytest.mark.parametrize(("tag", "sticky"), [
    ("0.13.5", False), ("0.13.6", True), ("0.14.0", False), ("0.14.1", True), ("0.15.0", True),
])
def test_sticky_preemptor_by_release(tag, sticky):
    assert release_for(tag).sticky_preemptor is sticky


def test_an_unknown_release_is_neither_affected_nor_fixed():
    assert affected(None, "drs-rounding") is None
    assert release_notes(None, True)[0].startswith("Kueue version unknown")


def test_bug_records_name_their_issues_and_fixes():
    assert bug("stuck-preemption-target").issue == "kubernetes-sigs/kueue#6488, #6757"
    assert bug("stuck-preemption-target").fixed_in == "v0.12.10 / v0.13.5 / v0.14.0 (PR #6872)"
    assert bug("drs-rounding").fixed_in == \
        "v0.12.8 / v0.13.3 / v0.14.0 (PR #6617); exact shares from v0.13.5 / v0.14.0 (PR #6925)"
    assert bug("slow-preemption-release").fixed_in == \
        "v0.17.0 with the alpha gate FastQuotaReleaseInPodIntegration=true (PR #8992; off by default)"
    assert bug("no-candidates-flavor-preferred").fixed_in == "v0.18.5 / v0.19.1 / v0.20.0 (PR #13616)"
    assert {b.cause for b in BUGS} == set(CARRIES)
    with pytest.raises(KeyError):
        bug("no-such-bug")


def test_release_notes_skip_drs_without_fair_sharing():
    r = release_for("0.13.2")
    assert len(release_notes(r, fair_sharing=True)) == 3
    notes = release_notes(r, fair_sharing=False)
    assert len(notes) == 2 and not any("DRS" in n for n in notes)
    assert notes[0].startswith("Kueue v0.13.2 carries the bug 'pod-group quota held")
    assert release_notes(release_for("0.17.0", {"FastQuotaReleaseInPodIntegration": True}), True) == []


# -- versions -------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "parsed"), [
    ("v0.13.2", (0, 13, 2)), ("0.13", (0, 13, 0)), (" 0.14.1 ", (0, 14, 1)),
    ("v0.20.0-devel", (0, 20, 0)), ("v0.18.0-rc.1", (0, 18, 0)), ("0.12.10+build.7", (0, 12, 10)),
])
def test_parse_version(text, parsed):
    assert parse_version(text) == parsed


@pytest.mark.parametrize("text", ["latest", "", "13", "0.x.1", "v0.13.2.1", "main-abc123"])
def test_an_unparsable_version_is_an_input_error(text):
    with pytest.raises(InputError) as err:
        parse_version(text)
    assert err.value.field == "kueue.version"
    assert str(err.value) == f"kueue.version: not a Kueue version: {text!r} (expected e.g. 0.13.2)"
    with pytest.raises(InputError):
        release_for(text or " ")


def test_versions_order_by_number_not_by_text():
    assert parse_version("0.13.10") > parse_version("0.13.9")
    assert parse_version("0.9.0") < parse_version("0.10.0")
    assert parse_version("v0.12.10").label == "v0.12.10" and parse_version("0.13").line == (0, 13)


# -- layering -------------------------------------------------------------------------------

def test_the_release_model_imports_only_the_standard_library_and_errors():
    for path in (SRC / "kueue").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level == 0:
                    assert node.module is not None and node.module.split(".")[0] in sys.stdlib_module_names, \
                        f"{path.name}: {node.module}"
                elif node.level == 1:
                    assert (SRC / "kueue" / f"{(node.module or '').split('.')[0]}.py").exists(), path.name
                else:
                    assert node.level == 2 and node.module == "errors", f"{path.name}: ..{node.module}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    assert alias.name.split(".")[0] in sys.stdlib_module_names, f"{path.name}: {alias.name}"


def test_a_release_with_a_gated_fix_turned_off_is_told_to_turn_it_on():
    from kueue_doctor.kueue.bugs import release_notes
    (note,) = [n for n in release_notes(release_for("v0.18.4"), False) if "#6143" in n]
    assert "has the fix" in note and "FastQuotaReleaseInPodIntegration=true" in note
    assert "fixed in" not in note            # not "fixed in v0.17.0" on a v0.18.4 cluster
    (old,) = [n for n in release_notes(release_for("v0.13.2"), False) if "#6143" in n]
    assert "carries the bug" in old and "fixed in v0.17.0" in old
    on = release_for("v0.18.4", {"FastQuotaReleaseInPodIntegration": True})
    assert not [n for n in release_notes(on, False) if "#6143" in n]
