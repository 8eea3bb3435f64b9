"""The TAS flavor snapshot: which nodes count, domains per level, leaf capacities."""
from kueue_doctor.api import objects as o
from kueue_doctor.api.quantity import Quantity
from kueue_doctor.engine.tas import build_flavor_snapshot
from kueue_doctor.engine.tas.snapshot import TASFlavorSnapshot

from .helpers import LEVELS, flavor, node, topology


def pod(name: str, node_name: str, cpu: str, phase: str = "Running") -> o.Pod:
    spec = o.PodSpec(containers=[o.Container("c", requests={"cpu": Quantity.parse(cpu)})], node_name=node_name)
    return o.Pod(meta=o.Meta(name=name, namespace="ns"), spec=spec, phase=phase)


def test_domains_per_level_and_rack_values_shared_across_blocks():
    nodes = [node("x1", "b1", "r1"), node("x2", "b1", "r2"), node("x3", "b2", "r1")]
    s = build_flavor_snapshot(flavor(), topology(), nodes)
    assert sorted(s.per_level[0]) == ["b1", "b2"]
    assert sorted(s.per_level[1]) == ["b1,r1", "b1,r2", "b2,r1"]   # r1 exists in two blocks
    assert sorted(s.per_level[2]) == ["x1", "x2", "x3"]            # hostname leaves: the hostname alone
    assert s.per_level[2]["x3"].parent is s.per_level[1]["b2,r1"]
    assert s.lowest_is_node


def test_not_ready_unschedulable_unlabelled_and_other_flavor_nodes_are_excluded():
    nodes = [node("ok", "b1", "r1", labels={"pool": "a"}), node("down", "b1", "r1", ready=False, labels={"pool": "a"}),
             node("cordoned", "b1", "r1", unschedulable=True, labels={"pool": "a"}),
             node("other", "b1", "r1", labels={"pool": "b"})]
    nolevel = node("nolevel", "b1", "r1", labels={"pool": "a"})
    del nolevel.meta.labels[LEVELS[1]]
    s = build_flavor_snapshot(flavor(node_labels={"pool": "a"}), topology(), [*nodes, nolevel])
    assert list(s.leaves) == ["ok"]
    # with SchedulerLibraryIntegration not-ready and unschedulable nodes stay
    s2 = build_flavor_snapshot(flavor(node_labels={"pool": "a"}), topology(), nodes, scheduler_library=True)
    assert sorted(s2.leaves) == ["cordoned", "down", "ok"]


def test_capacity_minus_non_tas_pods_and_tas_usage():
    nodes = [node("x1", "b1", "r1", cpu="4"), node("x2", "b1", "r1", cpu="2")]
    pods = [pod("ds", "x1", "500m"), pod("done", "x1", "1", phase="Succeeded"), pod("unbound", "", "1"),
            pod("pending-bound", "x2", "1", phase="Pending")]
    s = build_flavor_snapshot(flavor(), topology(), nodes, pods)
    assert s.leaves["x1"].free == {"cpu": 3500, "pods": 9}
    assert s.leaves["x2"].free == {"cpu": 1000, "pods": 9}
    s.add_tas_usage("x1", {"cpu": 1000, "pods": 1})
    s.add_tas_usage("gone", {"cpu": 1000, "pods": 1})    # a node no longer in the flavor: ignored
    assert s.free_capacity_per_domain()["x1"] == {"cpu": 2500, "pods": 8}
    assert s.leaves["x1"].remaining(simulate_empty=True) == {"cpu": 3500, "pods": 9}


def test_non_hostname_lowest_level_sums_nodes_of_a_leaf():
    nodes = [node("x1", "b1", "r1", cpu="1"), node("x2", "b1", "r1", cpu="2")]
    s = TASFlavorSnapshot("default", LEVELS[:2], nodes)
    assert list(s.leaves) == ["b1,r1"]
    assert s.leaves["b1,r1"].capacity == {"cpu": 3000, "pods": 20}
    assert not s.lowest_is_node


def test_which_pods_are_tas_pods_follows_the_release():
    """v0.13 tells TAS pods by the kueue.x-k8s.io/tas label alone, v0.14 - v0.16 by the label or
    the request annotations, v0.17+ by the annotations alone; a TAS pod's usage is its workload's,
    so only the others are taken off the node."""
    from kueue_doctor.engine.tas.snapshot import TAS_LABEL, tas_pod_marks
    from kueue_doctor.kueue.version import Version
    labelled = pod("labelled", "x1", "1")
    labelled.meta.labels[TAS_LABEL] = "true"
    annotated = pod("annotated", "x1", "1")
    annotated.meta.annotations["kueue.x-k8s.io/podset-unconstrained-topology"] = "true"
    plain = pod("plain", "x1", "1")
    nodes = [node("x1", "b1", "r1", cpu="8")]

    def free(version: str) -> int:
        v = Version(*(int(x) for x in version.split(".")))
        s = build_flavor_snapshot(flavor(), topology(), nodes, [labelled, annotated, plain], marks=tas_pod_marks(v))
        return s.free_capacity_per_domain()["x1"]["cpu"]

    # counted as non-TAS: plain always, plus the annotated pod (v0.13) or the labelled one (v0.17+)
    assert free("0.13.4") == 8000 - 2000
    assert free("0.14.0") == free("0.16.9") == 8000 - 1000
    assert free("0.17.0") == free("0.20.0") == 8000 - 2000
    assert tas_pod_marks(Version(0, 13, 9)) == "label" and tas_pod_marks(Version(0, 17, 0)) == "annotations"


def test_the_doctor_runs_the_engine_with_the_snapshots_release_rule():
    from kueue_doctor.doctor.gather import engine_config, release_of
    from kueue_doctor.engine.tas.snapshot import tas_pod_marks
    from kueue_doctor.kueue.version import parse_version
    from kueue_doctor.sources.snapshot import load_folder
    from tests.paths import REPO
    state = load_folder(str(REPO / "tests/data/causes/topology-fragmentation")).state
    version = release_of(state)[0]
    assert version and engine_config(state).tas_pod_marks == tas_pod_marks(parse_version(version))
